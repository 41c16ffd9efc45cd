// Real processes for the browser tests: a throwaway PostgreSQL cluster and
// korpd on free loopback ports, stopped by PID; Chromium from Debian driven
// by playwright-core. The same steps as tests/server/korp_fixtures.py.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

export const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

// Listening ports come from below 32768: the kernel hands 32768-60999
// (net.ipv4.ip_local_port_range) to outgoing connections, and one of them
// may hold a port picked there.
// The probe starts at a place that depends on the process id, so that test
// files running side by side look in different places.
const PORT_LOW = 20000, PORT_COUNT = 12000;

function canListen(port) {
  return new Promise(resolve => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

export async function freePort() {
  const start = (process.pid * 7919 + nextProbe++ * 101) % PORT_COUNT;
  for (let i = 0; i < PORT_COUNT; i++) {
    const port = PORT_LOW + (start + i) % PORT_COUNT;
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${PORT_LOW}-${PORT_LOW + PORT_COUNT - 1}`);
}
let nextProbe = 0;

// A port probed free may be taken before the server binds it: start again
// on another one, a few times, when the failure says so.
const BIND_FAILED = /could not bind|address already in use|EADDRINUSE/i;
const START_TRIES = 3;

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
  asOwner(['initdb', '-D', data, '-U', 'korp', '--auth=trust', '--locale=C.UTF-8', '-E', 'UTF8']);
  const conf = path.join(data, 'postgresql.conf');
  const original = fs.readFileSync(conf, 'utf8');
  let port;
  for (let tries = 1; ; tries++) {
    port = await freePort();
    fs.writeFileSync(conf, original +
      `listen_addresses = '127.0.0.1'\nport = ${port}\nunix_socket_directories = ''\n`);
    try {
      asOwner(['pg_ctl', '-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
      break;
    } catch (e) {
      const log = fs.existsSync(path.join(dir, 'log')) ? fs.readFileSync(path.join(dir, 'log'), 'utf8') : '';
      if (tries >= START_TRIES || !BIND_FAILED.test(e.message + log)) throw e;
    }
  }
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

/* Starts korpd and waits (at most 20 s) until it answers /healthz. */
async function spawnKorpd(binary, databaseUrl, extraEnv, port, logPath) {
  const base = `http://127.0.0.1:${port}`;
  const log = fs.openSync(logPath, 'w');
  const env = { ...process.env, KORP_DATABASE_URL: databaseUrl, KORP_LISTEN: `127.0.0.1:${port}`, KORP_RATE_LIMIT: '0', KORP_SIGNUP_LIMIT: '0', KORP_EMAIL_CONFIRMATION: 'off', KORP_CHALLENGES_PER_DAY: '0', ...extraEnv };
  const proc = spawn(binary, [], { env, stdio: ['ignore', log, log] });
  const exited = new Promise(r => proc.once('exit', r));
  const deadline = Date.now() + 20000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      fs.closeSync(log);
      return { proc: null, base, text: fs.readFileSync(logPath, 'utf8') };
    }
    try { const r = await fetch(base + '/healthz'); if (r.ok) break; } catch { /* not yet */ }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      await exited;
      fs.closeSync(log);
      throw new Error('korpd did not answer /healthz within 20 s: ' + fs.readFileSync(logPath, 'utf8'));
    }
    await new Promise(r => setTimeout(r, 100));
  }
  return { proc, base, log, exited };
}

export async function startKorpd(binary, databaseUrl, extraEnv = {}) {
  const logPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'korp-web-korpd-')), 'korpd.log');
  let run;
  for (let tries = 1; ; tries++) {
    run = await spawnKorpd(binary, databaseUrl, extraEnv, await freePort(), logPath);
    if (run.proc) break;
    if (tries >= START_TRIES || !/cannot listen/.test(run.text)) throw new Error('korpd exited early: ' + run.text);
  }
  const { proc, base, log, exited } = run;
  return {
    base,
    logText: () => fs.readFileSync(logPath, 'utf8'),
    async close() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const stopped = await Promise.race([exited.then(() => true), new Promise(r => setTimeout(r, 10000, false))]);
        if (!stopped) { proc.kill('SIGKILL'); await exited; }
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
export async function person(browser, base, name, { width = 1280, height = 900, locale } = {}) {
  // locale: the browser's language, e.g. 'pl-PL' (navigator.languages, Accept-Language).
  const context = await browser.newContext({ baseURL: base, viewport: { width, height }, ...(locale ? { locale } : {}) });
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

/*
 * What a browser test needs: a throwaway PostgreSQL, korpd on it (KORPD, and
 * KORP_WEB_DIR when set) and Chromium, in `stage` (a new object unless given);
 * stage.close() stops whatever was started, also after a failed start.
 * stage.call(method, url, token, body) talks to korpd's API and fails the test
 * on an error answer.
 */
export async function startStage(extraEnv = {}, stage = {}) {
  stage.close = async () => {
    await stage.browser?.close().catch(() => {});
    await stage.korpd?.close();
    stage.pg?.close();
  };
  stage.call = async (method, url, token, body) => {
    const headers = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const r = await fetch(stage.korpd.base + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    assert.ok(r.ok, `${method} ${url}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  stage.pg = await startPostgres();
  const env = { ...extraEnv };
  if (process.env.KORP_WEB_DIR) env.KORP_WEB_DIR = process.env.KORP_WEB_DIR;
  stage.korpd = await startKorpd(process.env.KORPD || path.join(REPO, 'build', 'korpd', 'korpd'), stage.pg.url, env);
  stage.browser = await launchChromium();
  return stage;
}

/*
 * One stage for a whole test file: started in node:test's `before`, then
 * setUp(stage) (the file's players and games), stopped in `after`.  Returns
 * the stage object, filled once `before` has run.
 */
export function useStage(setUp = async () => {}, extraEnv = {}) {
  const stage = {};
  before(async () => {
    await startStage(extraEnv, stage);
    await setUp(stage);
  });
  after(async () => stage.close?.());
  return stage;
}

/* A game WHITE (a player made by the API, with its token) plays against
 * BLACK, started by a challenge and its acceptance: Korpalski unless `terms`
 * say otherwise. Resolves to the game's id. */
export async function newGame(call, white, black, terms = {}) {
  const c = await call('POST', '/v1/challenges', white.token,
    { variant: 'korpalski', opponent: black.id, color: 'white', ...terms });
  return (await call('POST', `/v1/challenges/${c.id}/accept`, black.token)).game_id;
}

/* Resolves once predicate() is true; fails after `timeout` ms naming `what`. */
export async function until(what, predicate, timeout = 15000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise(r => setTimeout(r, 100));
  }
}

/*
 * The violations axe-core (npm, pinned) finds on the page, one line each.
 * It is put into the page through the debugging protocol (the pages' CSP
 * refuses inline scripts, as it should).
 */
export async function axeViolations(page) {
  axeSource ??= fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.map(v => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`);
}
let axeSource = null;

/* Signs person p in as NAME through the sign-in page; resolves once the
 * navigation shows the player. */
export async function signIn(p, name, password, timeout = 15000) {
  await p.page.goto('/login');
  await p.page.fill('#name', name);
  await p.page.fill('#password', password);
  await p.page.click('form.auth-form button[type=submit]');
  await p.page.locator('.nav-me').waitFor({ timeout });
}

/*
 * person() signed in through the sign-in page with a name and password; it
 * resolves once the navigation shows the player. `allow` lists the console
 * errors the caller provokes on purpose.
 */
export async function signedIn(browser, base, name, password, { allow = [], timeout = 15000 } = {}) {
  const p = await person(browser, base, name);
  for (const re of allow) p.allow(re);
  await signIn(p, name, password, timeout);
  return p;
}
