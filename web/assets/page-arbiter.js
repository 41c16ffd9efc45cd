// The arbiter's page (/arbiter): the queue of GET
// /v1/arbiter/queue, oldest first, one card per item (arbiter-item.js; a
// fair-play review, about a player rather than a position,
// arbiter-review.js), its pages followed by their cursor up to
// QUEUE_SHOWN items; then the fair-play list (arbiter-players.js).
// Anyone else is told that the page is for arbiters only.

import { api, me, q } from './api.js';
import { t } from './i18n.js';
import { h, messageBox } from './ui.js';
import { isArbiter } from './arbiter-role.js';
import { createQueueItem } from './arbiter-item.js';
import { createReviewItem } from './arbiter-review.js';
import { createFairplayList } from './arbiter-players.js';

// Items shown at most: four of korpd's pages.
const QUEUE_SHOWN = 2000;

// The open items, oldest first, page after page.
async function queueItems() {
  const items = [];
  let next = null;
  do {
    const answer = await api('GET', '/v1/arbiter/queue' + (next ? `?cursor=${q(next)}` : ''));
    items.push(...answer.items);
    next = answer.next;
  } while (next && items.length < QUEUE_SHOWN);
  return items;
}

function refusal(main) {
  main.append(h('p', { id: 'arbiter-refused', class: 'message message-info' },
    t('Only arbiters can see the arbiter\u2019s queue.'), ' ',
    me() ? null : h('a', { href: `/login?next=${q('/arbiter')}` }, t('Sign in'))));
}

export async function render(main) {
  document.title = `${t('Arbiter\u2019s queue')} \u00b7 korp`;
  main.append(h('h1', {}, t('Arbiter\u2019s queue')));
  if (!(await isArbiter())) { refusal(main); return null; }
  const msg = messageBox();
  msg.id = 'arbiter-message';
  const list = h('ol', { id: 'arbiter-queue', class: 'arbiter-queue', 'aria-label': t('Waiting for an arbiter, oldest first') });
  const fairplay = createFairplayList();
  main.append(msg, list, fairplay.el);
  let cards = [], closed = false, generation = 0;

  async function load() {
    const mine = ++generation;
    msg.clear();
    let items;
    try {
      items = await queueItems();
    } catch (e) {
      if (e.status === 403 || e.status === 401) { list.remove(); fairplay.el.remove(); refusal(main); return; }
      msg.show(e.message, 'error');
      return;
    }
    if (closed || mine !== generation) return;
    cards.forEach(c => c.destroy());
    cards = items.map(item => (item.kind === 'fairplay-review' ? createReviewItem : createQueueItem)(item, { onRuled: load }));
    list.replaceChildren(...(cards.length ? cards.map(c => c.el)
      : [h('li', { class: 'none', id: 'arbiter-queue-empty' }, t('Nothing waits for an arbiter.'))]));
    await Promise.all(cards.map(c => c.load()));
    // The engine thinks a second per position: one item at a time.
    for (const c of cards) {
      if (closed || mine !== generation) return;
      await c.engine();
    }
  }

  await Promise.all([load(), fairplay.load()]);
  return () => { closed = true; cards.forEach(c => c.destroy()); };
}
