// An arbiter who signs in on the web board, made as an operator makes one:
// `korpd admin create-arbiter NAME --password-stdin` (the password on
// standard input); resolves to the account's {id, name, token}.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO } from './harness.mjs';

export async function createArbiter(base, databaseUrl, name, password) {
  const korpd = process.env.KORPD || path.join(REPO, 'build', 'korpd', 'korpd');
  const r = spawnSync(korpd, ['admin', 'create-arbiter', name, '--password-stdin'], {
    input: password + '\n', encoding: 'utf8', timeout: 60000,
    env: { ...process.env, KORP_DATABASE_URL: databaseUrl } });
  const token = r.stdout.trim();
  if (r.status !== 0 || !token.startsWith('korp_')) throw new Error(`korpd admin create-arbiter ${name}: ${r.stderr}`);
  const me = await fetch(base + '/v1/players/me', { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
  if (!me.ok) throw new Error(`GET /v1/players/me as ${name}: ${me.status}`);
  const p = await me.json();
  return { id: p.id, name: p.name, token, role: p.role };
}
