// Notes and messages on the game page: a player's private notes,
// and the messages between the players (which others read once the game is
// over), each with its author's name, its time in the reader's zone and the
// ply it was sent at; refresh() when a message event comes.

import { api, q } from './api.js';
import { h, messageBox, sideName } from './ui.js';
import { t, date } from './i18n.js';

const POLL_MS = 60000;

export function createTalk({ id, myColor }) {
  const msg = messageBox();
  const list = h('ol', { id: 'messages', class: 'messages', 'aria-label': t('Messages') });
  const text = h('textarea', { id: 'message-input', rows: 2, maxlength: 500, 'aria-label': t('Message to your opponent') });
  const send = h('form', { id: 'message-form', class: 'message-form' }, text,
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, t('Send'))));
  const notes = h('textarea', { id: 'notes-input', rows: 4, maxlength: 20000, 'aria-label': t('Private notes') });
  const notesSaved = h('span', { class: 'hint', id: 'notes-saved' });
  const notesForm = h('form', { id: 'notes-form', class: 'notes-form' },
    h('label', { for: 'notes-input' }, t('Private notes (only you read them)')), notes,
    h('div', { class: 'row' }, h('button', { type: 'submit' }, t('Save notes')), notesSaved));
  const el = h('section', { class: 'talk', id: 'talk', 'aria-label': t('Messages and notes') },
    h('h2', {}, t('Messages')), list, myColor ? send : null, msg, myColor ? notesForm : null);
  let status = null, timer = null, names = {}, asked = 0;

  /* A message's time in the reader's zone and the page's language. */
  const when = at => new Date(at).toLocaleString(document.documentElement.lang || undefined,
    { dateStyle: 'medium', timeStyle: 'short' });

  // Others read the players' messages once the game is over: no request before.
  const readable = () => !!myColor || (status !== null && status !== 'active');

  async function loadMessages() {
    if (!readable()) {
      list.replaceChildren(h('li', { class: 'hint' }, t('The players\u2019 messages are shown when the game is over.')));
      return;
    }
    // Two reads at once (an event and the game's reload): the later asked wins.
    const mine = ++asked;
    try {
      const r = await api('GET', `/v1/games/${q(id)}/messages`);
      if (mine !== asked) return;
      list.replaceChildren(...r.messages.map(m =>
        h('li', { class: 'msg msg-' + m.from, 'data-ply': m.ply },
          h('span', { class: 'msg-meta muted' }, h('time', { datetime: m.created_at }, when(m.created_at)), ' · ', t('ply {ply}', { ply: m.ply })), ' ',
          h('span', { class: 'msg-author' }, names[m.from] || '', m.from === myColor ? ` (${t('you')})` : ''), ' · ',
          h('span', { class: 'msg-from' }, sideName(m.from)), ': ',
          h('span', { class: 'msg-text' }, m.text))));
      if (!r.messages.length) list.replaceChildren(h('li', { class: 'hint' }, t('No messages.')));
    } catch (e) {
      msg.show(e.message, 'error');
    }
  }

  async function loadNotes() {
    try {
      const r = await api('GET', `/v1/games/${q(id)}/notes`);
      notes.value = r.text;
    } catch (e) { msg.show(e.message, 'error'); }
  }

  send.addEventListener('submit', async e => {
    e.preventDefault();
    msg.clear();
    if (!text.value.trim()) return;
    try {
      await api('POST', `/v1/games/${q(id)}/messages`, { text: text.value });
      text.value = '';
      await loadMessages();
    } catch (err) { msg.show(err.message, 'error'); }
  });
  notesForm.addEventListener('submit', async e => {
    e.preventDefault();
    msg.clear();
    try {
      const r = await api('PUT', `/v1/games/${q(id)}/notes`, { text: notes.value });
      notesSaved.textContent = t('Saved {time}', { time: date(r.updated_at, { dateStyle: 'medium', timeStyle: 'short' }) });
    } catch (err) { msg.show(err.message, 'error'); }
  });

  if (myColor) loadNotes();
  timer = setInterval(() => { if (!document.hidden) loadMessages(); }, POLL_MS);

  return {
    el,
    update(game) {
      const changed = game.status !== status;
      status = game.status;
      names = { white: game.white.name, black: game.black.name };
      if (changed || game.status === 'active') loadMessages();
      send.hidden = !myColor;
    },
    refresh() { loadMessages(); },
    destroy() { clearInterval(timer); },
  };
}
