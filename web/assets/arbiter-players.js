// The fair-play list on the arbiter's page: for one variant, the players
// whose analysed games stand out most (GET /v1/arbiter/fairplay), first
// the most outstanding, with their share of the engine's first choices over
// their last 10, 25 and 100 games (a recent change of habits shows as a gap),
// their first three, their average loss and where they stand among the
// players listed.  docs/fairplay.md says what the figures mean.

import { api, q } from './api.js';
import { t } from './i18n.js';
import { h, link, messageBox, variantName } from './ui.js';

const share = x => (typeof x === 'number' ? `${Math.round(x * 100)}%` : '\u2013');
const loss = x => (typeof x === 'number' ? x.toFixed(1) : '\u2013');

/* createFairplayList(): { el, load() }: a section with its variant menu. */
export function createFairplayList() {
  const msg = messageBox();
  const menu = h('select', { id: 'fairplay-variant', name: 'variant' },
    ...['korpalski', 'glinski'].map(v => h('option', { value: v }, variantName(v))));
  const rows = h('tbody', {});
  const table = h('table', { class: 'crosstable fairplay-players', id: 'fairplay-players' },
    h('caption', {}, t('The most outstanding first')),
    h('thead', {}, h('tr', {}, ...[t('Analysed player'), t('Games analysed'),
      t('First choice, last 10 games'), t('First choice, last 25 games'),
      t('First choice, last 100 games'), t('Within its first three'),
      t('Average loss (centipawns)'), t('Stands above (first choice)')]
      .map(x => h('th', { scope: 'col' }, x)))),
    rows);
  const el = h('section', { class: 'card fairplay-list', 'aria-labelledby': 'fairplay-title' },
    h('h2', { id: 'fairplay-title' }, t('Fair play: who stands out')),
    h('p', {}, h('label', { for: menu.id }, t('Figures of the variant')), ' ', menu),
    table, msg);

  async function load() {
    msg.clear();
    el.dataset.ready = 'false';
    let answer;
    try {
      answer = await api('GET', `/v1/arbiter/fairplay?variant=${q(menu.value)}`);
    } catch (e) {
      msg.show(e.message, 'error');
      return;
    }
    rows.replaceChildren(...(answer.players.length ? answer.players.map(p =>
      h('tr', { 'data-player': p.player.id },
        h('th', { scope: 'row' }, link('/players/' + q(p.player.id), p.player.name)),
        ...[String(p.games), share(p.last10?.top1), share(p.last25?.top1), share(p.last100?.top1),
          share(p.top3), loss(p.acpl), share(p.top1_percentile)].map(x => h('td', {}, x))))
      : [h('tr', {}, h('td', { colspan: 8 }, t('Nobody has analysed games in this variant yet.')))]));
    el.dataset.ready = 'true';
  }
  menu.addEventListener('change', load);
  return { el, load };
}
