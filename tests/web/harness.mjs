// Real processes for the browser tests: a throwaway PostgreSQL cluster and
// korpd on free loopback ports, stopped by PID; Chromium from Debian driven
// by playwright-core. The same steps as tests/server/korp_fixtures.py.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
    s.on('error', reject);
  });
}

function pgBin() {
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base) ? fs.readdirSync(base).sort((a, b) => Number(a) - Number(b)) : [];
  if (!versions.length) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  return path.join(base, versions[versions.length - 1], 'bin');
}

const root = process.geteuid() === 0;

function asOwner(argv) {
  const full = [path.join(pgBin(), argv[0]), ...argv.slice(1)];
  const cmd = root ? ['runuser', '-u', 'postgres', '--', ...full] : full;
  const r = spawnSync(cmd[0], cmd.slice(1), { cwd: '/', encoding: 'utf8', timeout: 120000 });
  if (r.status !== 0) throw new Error(`${argv[0]} failed: ${r.stderr || r.stdout}`);
}

export async function startPostgres() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'korp-web-pg-'));
  fs.chmodSync(dir, 0o755);
  if (root) spawnSync('chown', ['postgres', dir]);
  const data = path.join(dir, 'data');
  const port = await freePort();
  asOwner(['initdb', '-D', data, '-U', 'korp', '--auth=trust', '--locale=C.UTF-8', '-E', 'UTF8']);
  fs.appendFileSync(path.join(data, 'postgresql.conf'),
    `listen_addresses = '127.0.0.1'\nport = ${port}\nunix_socket_directories = ''\n`);
  asOwner(['pg_ctl', '-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
  const r = spawnSync(path.join(pgBin(), 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'korp', 'korp'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error('createdb failed: ' + r.stderr);
  return {
    url: `postgresql://korp@127.0.0.1:${port}/korp`,
    close() {
      try { asOwner(['pg_ctl', '-D', data, '-w', '-t', '60', '-m', 'fast', 'stop']); } catch { /* already down */ }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startKorpd(binary, databaseUrl, extraEnv = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'korp-web-korpd-')), 'korpd.log');
  const log = fs.openSync(logPath, 'w');
  const env = { ...process.env, KORP_DATABASE_URL: databaseUrl, KORP_LISTEN: `127.0.0.1:${port}`, KORP_RATE_LIMIT: '0', ...extraEnv };
  const proc = spawn(binary, [], { env, stdio: ['ignore', log, log] });
  const deadline = Date.now() + 20000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error('korpd exited early: ' + fs.readFileSync(logPath, 'utf8'));
    try { const r = await fetch(base + '/healthz'); if (r.ok) break; } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error('korpd did not answer /healthz within 20 s');
    await new Promise(r => setTimeout(r, 100));
  }
  return {
    base,
    logText: () => fs.readFileSync(logPath, 'utf8'),
    async close() {
      if (proc.exitCode === null) {
        proc.kill('SIGTERM');
        await Promise.race([new Promise(r => proc.once('exit', r)), new Promise(r => setTimeout(r, 10000))]);
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      }
      fs.closeSync(log);
      fs.rmSync(path.dirname(logPath), { recursive: true, force: true });
    },
  };
}

export async function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}

/*
 * A browser context for one person, with every console error, page error
 * and CSP violation collected in `errors` (the tests fail on any).
 */
export async function person(browser, base, name, { width = 1280, height = 900 } = {}) {
  const context = await browser.newContext({ baseURL: base, viewport: { width, height } });
  const page = await context.newPage();
  const errors = [];
  const allowed = [];
  page.on('console', m => {
    if (m.type() !== 'error') return;
    // Signed out, GET /v1/session answers 401 by design, and Chromium logs
    // every failed request; that one is expected.
    const text = `${m.text()} (${m.location().url || ''})`;
    if (/status of 401/.test(m.text()) && /\/v1\/session$/.test(m.location().url || '')) return;
    // A test that provokes an error answer on purpose allows its log line.
    if (allowed.some(re => re.test(text))) return;
    errors.push(`${name}: console: ${text}`);
  });
  page.on('pageerror', e => errors.push(`${name}: page error: ${e.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', e => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  return { name, context, page, errors, allow: re => allowed.push(re) };
}
