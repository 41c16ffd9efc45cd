// Leave, a section of the settings page: the allowance of this
// year, the bookings (cancel one, or end one in progress today), and a form
// to book days. While a player is on leave no time runs in their games.

import { api, q } from './api.js';
import { h, messageBox } from './ui.js';
import { t, tn, date } from './i18n.js';

/* A day of leave (YYYY-MM-DD…) as the page's language writes it. */
function day(text) { return date(text.slice(0, 10) + 'T00:00:00Z', { dateStyle: 'medium', timeZone: 'UTC' }); }

export function leaveSection() {
  const msg = messageBox();
  const summary = h('p', { id: 'leave-summary' });
  const list = h('ul', { class: 'list', id: 'leave-list' });
  const start = h('input', { type: 'date', id: 'leave-start', required: true,
    value: new Date().toISOString().slice(0, 10) });
  const days = h('input', { type: 'number', id: 'leave-days', min: 1, max: 366, value: 7, required: true });
  const form = h('form', { class: 'form', id: 'leave-form' },
    h('label', { for: 'leave-start' }, t('First day (UTC)')), start,
    h('label', { for: 'leave-days' }, t('Days')), days,
    h('button', { type: 'submit', class: 'primary' }, t('Book leave')));
  const section = h('section', { class: 'card', id: 'leave' }, h('h2', {}, t('Leave')),
    h('p', { class: 'hint' }, t('While you are on leave no time runs in your games (unless a game was made without leave), and your opponents see until when.')),
    msg, summary, list, form);

  async function load() {
    try {
      const l = await api('GET', '/v1/players/me/leave');
      summary.textContent = t('{remaining} of {allowance} days left this year ({used} booked).', { remaining: l.remaining, allowance: l.allowance, used: l.used });
      list.replaceChildren(...l.bookings.map(b => h('li', { 'data-leave': b.id },
        t('{start} to {end} ({days})', { start: day(b.start), end: day(b.end), days: tn('{n} day', '{n} days', b.days) }), ' ',
        h('button', { type: 'button', class: 'danger', onclick: () => cancel(b.id) }, t('Cancel')))));
    } catch (e) { msg.show(e.message, 'error'); }
  }

  async function cancel(id) {
    try {
      await api('DELETE', `/v1/players/me/leave/${q(id)}`);
      msg.show(t('Cancelled (a leave in progress ends tonight).'), 'ok');
      await load();
    } catch (e) { msg.show(e.message, 'error'); }
  }

  form.addEventListener('submit', async e => {
    e.preventDefault();
    try {
      const b = await api('POST', '/v1/players/me/leave', { start: start.value, days: Number(days.value) });
      msg.show(t('Booked: {start} to {end}.', { start: day(b.start), end: day(b.end) }), 'ok');
      await load();
    } catch (err) { msg.show(err.message, 'error'); }
  });

  load();
  return section;
}
