// Makes a player who signs in with a password an arbiter: `korpd admin
// create-arbiter` makes token-only accounts, and the web board signs in with
// a password, so the tests promote a web account in the database itself.

import { spawnSync } from 'node:child_process';

export function makeArbiter(databaseUrl, name) {
  const r = spawnSync('psql', [databaseUrl, '-v', 'ON_ERROR_STOP=1', '-qAt', '-v', `name=${name}`],
    // (psql fills in :'name' in what it reads, not in a -c command)
    { input: "UPDATE players SET role = 'arbiter' WHERE name = :'name' RETURNING id;\n", encoding: 'utf8', timeout: 60000 });
  if (r.status !== 0 || !r.stdout.trim()) throw new Error(`making ${name} an arbiter failed: ${r.stderr || r.stdout}`);
}
