// Whether the signed-in player is an arbiter (their record's `role`, from
// GET /v1/players/me; the session itself does not say), and the navigation
// link to the arbiter's queue shown to arbiters only.

import { api, me } from './api.js';
import { t } from './i18n.js';
import { h } from './ui.js';

let known = { id: null, arbiter: false };

/* Resolves to true when the signed-in player is an arbiter. */
export async function isArbiter() {
  const player = me();
  if (!player) return false;
  if (known.id === player.id) return known.arbiter;
  try {
    const record = await api('GET', '/v1/players/me');
    known = { id: player.id, arbiter: record.role === 'arbiter' };
  } catch {
    return false;
  }
  return known.arbiter;
}

/* Adds "Arbiter" to the navigation once it is known that the player is one. */
export function addArbiterLink(nav) {
  const player = me();
  if (!player) return;
  isArbiter().then(yes => {
    if (!yes || me()?.id !== player.id || nav.querySelector('#nav-arbiter')) return;
    const link = h('a', { href: '/arbiter', id: 'nav-arbiter' }, t('Arbiter'));
    const signOut = nav.querySelector('#sign-out');
    if (signOut) signOut.before(link); else nav.append(link);
  });
}
