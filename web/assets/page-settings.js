// Settings (/settings): notification preferences, webhooks, tokens for bots,
// the password and the signed-in sessions.

import { api, me, q } from './api.js';
import { h, messageBox } from './ui.js';
import { leaveSection } from './page-leave.js';
import { t, tn, date } from './i18n.js';
import { confirmMoves, setConfirmMoves, nextAfterMove, setNextAfterMove } from './play-prefs.js';

const KINDS = ['challenge', 'challenge_declined', 'challenge_cancelled', 'game_start', 'move', 'draw_offer', 'claim', 'game_end', 'deadline_near'];
const KIND_NAMES = {
  challenge: () => t('challenge'), challenge_declined: () => t('challenge declined'),
  challenge_cancelled: () => t('challenge canceled'), game_start: () => t('game start'), move: () => t('move'),
  draw_offer: () => t('draw offer'), claim: () => t('claim'), game_end: () => t('game end'),
  deadline_near: () => t('deadline near'),
};

function kindBoxes(prefix, selected) {
  return h('fieldset', { class: 'kinds', id: prefix + '-events' },
    h('legend', {}, prefix === 'email' ? t('Email me about') : prefix === 'push' ? t('Notify my browsers about') : t('Send to webhooks')),
    ...KINDS.map(k => h('label', { class: 'check' },
      h('input', { type: 'checkbox', name: prefix + '-' + k, value: k, checked: selected.includes(k) }), ' ', KIND_NAMES[k]())));
}

function checked(fieldset) { return [...fieldset.querySelectorAll('input:checked')].map(i => i.value); }

// How this browser plays (play-prefs.js): saved at once, in this browser only.
function playSection() {
  const box = (idName, label, on, set) => {
    const input = h('input', { type: 'checkbox', id: idName, checked: on });
    input.addEventListener('change', () => set(input.checked));
    return h('label', { class: 'check' }, input, ' ', label);
  };
  return h('section', { class: 'card', id: 'playing' }, h('h2', {}, t('Playing in this browser')),
    h('p', {}, box('confirm-moves', t('Show my move and send it only when I confirm it'), confirmMoves(), setConfirmMoves)),
    h('p', {}, box('next-after-move', t('After each move, go to the next game where it is my move'), nextAfterMove(), setNextAfterMove)));
}

export async function render(main, { navigate }) {
  if (!me()) { navigate('/login?next=/settings', { replace: true }); return null; }
  document.title = t('Settings') + ' · korp';
  const notifMsg = messageBox(), hookMsg = messageBox(), tokMsg = messageBox();
  const notif = h('section', { class: 'card', id: 'notifications' }, h('h2', {}, t('Notifications')), notifMsg);
  const hooks = h('section', { class: 'card', id: 'webhooks' }, h('h2', {}, t('Webhooks')), hookMsg);
  const toks = h('section', { class: 'card', id: 'tokens' }, h('h2', {}, t('Tokens for bots')), tokMsg);
  const account = accountSection();
  main.append(h('h1', {}, t('Settings')), playSection(), notif, hooks, toks, account.section, leaveSection());

  // ---- notification preferences ---------------------------------------------
  try {
    const s = await api('GET', '/v1/players/me/notifications');
    const enabled = h('input', { type: 'checkbox', id: 'email-enabled', checked: s.email_enabled });
    const address = h('input', { type: 'email', id: 'email-address', value: s.email_address || '', maxlength: 254 });
    const emailKinds = kindBoxes('email', s.email_events);
    const hookKinds = kindBoxes('webhook', s.webhook_events);
    const pushKinds = kindBoxes('push', s.push_events);
    const digest = h('input', { type: 'checkbox', id: 'digest', checked: s.digest.enabled });
    const hour = h('input', { type: 'number', id: 'digest-hour', min: 0, max: 23, value: s.digest.hour_utc });
    const reminder = h('input', { type: 'number', id: 'reminder-hours', min: 0, max: 720, value: s.reminder_hours });
    const confirmation = h('p', { id: 'email-confirmation', class: 'hint' });
    const showConfirmation = prefs => {
      if (!prefs.email_address) { confirmation.replaceChildren(); return; }
      if (prefs.email_confirmed) { confirmation.replaceChildren(t('This address is confirmed.')); return; }
      const resend = h('button', { type: 'button', id: 'email-confirm-resend' }, t('Send the link again'));
      resend.addEventListener('click', async () => {
        try {
          await api('POST', '/v1/players/me/email/confirmation');
          notifMsg.show(t('A new confirmation link is on its way.'), 'ok');
        } catch (err) { notifMsg.show(err.message, 'error'); }
      });
      confirmation.replaceChildren(h('span', { class: 'warn' }, t('Not confirmed yet:'), ' '),
        t('korp sends nothing else to this address until you follow the link emailed to it.'), ' ', resend);
    };
    showConfirmation(s);
    const form = h('form', { class: 'form', id: 'notifications-form' },
      h('label', { class: 'check' }, enabled, ' ', t('Send me email')),
      h('label', { for: 'email-address' }, t('Email address')), address, confirmation,
      emailKinds,
      h('label', { class: 'check' }, digest, ' ', t('One daily digest instead of an email per move')),
      h('label', { for: 'digest-hour' }, t('Digest hour (UTC)')), hour,
      h('label', { for: 'reminder-hours' }, t('Remind me when fewer hours than this are left (0: never)')), reminder,
      hookKinds, pushKinds,
      h('button', { type: 'submit', class: 'primary' }, t('Save')));
    form.addEventListener('submit', async e => {
      e.preventDefault();
      try {
        const saved = await api('PUT', '/v1/players/me/notifications', {
          email_enabled: enabled.checked, email_address: address.value.trim() || null,
          email_events: checked(emailKinds), webhook_events: checked(hookKinds),
          push_events: checked(pushKinds),
          digest: { enabled: digest.checked, hour_utc: Number(hour.value) }, reminder_hours: Number(reminder.value) });
        showConfirmation(saved);
        notifMsg.show(t('Saved.'), 'ok');
      } catch (err) { notifMsg.show(err.message, 'error'); }
    });
    notif.append(form);
  } catch (e) { notifMsg.show(e.message, 'error'); }
  notif.append(pushSection());

  // ---- webhooks -----------------------------------------------------------
  const hookList = h('ul', { class: 'list', id: 'webhook-list' });
  const url = h('input', { type: 'url', id: 'webhook-url', placeholder: 'https://bot.example.org/korp/hook', required: true });
  const hookForm = h('form', { class: 'form row-form', id: 'webhook-form' },
    h('label', { for: 'webhook-url' }, t('New webhook URL')), url, h('button', { type: 'submit' }, t('Add webhook')));
  async function loadHooks() {
    try {
      const r = await api('GET', '/v1/webhooks');
      hookList.replaceChildren(...(r.webhooks.length ? r.webhooks.map(w => h('li', { 'data-webhook': w.id },
        h('code', {}, w.url), ' ', w.enabled ? '' : h('span', { class: 'warn' }, `disabled${w.disabled_reason ? ': ' + w.disabled_reason : ''} `),
        !w.enabled ? h('button', { type: 'button', onclick: () => hookAct(`/v1/webhooks/${q(w.id)}/enable`, 'POST') }, t('Enable')) : null,
        h('button', { type: 'button', class: 'danger', onclick: () => hookAct(`/v1/webhooks/${q(w.id)}`, 'DELETE') }, t('Delete'))))
        : [h('li', { class: 'none' }, t('No webhooks.'))]));
    } catch (e) { hookMsg.show(e.message, 'error'); }
  }
  async function hookAct(path, method) {
    try { await api(method, path); await loadHooks(); } catch (e) { hookMsg.show(e.message, 'error'); }
  }
  hookForm.addEventListener('submit', async e => {
    e.preventDefault();
    try {
      const w = await api('POST', '/v1/webhooks', { url: url.value.trim() });
      hookMsg.show(t('Webhook added. Its signing secret, shown only now: {secret}', { secret: w.secret }), 'ok');
      url.value = '';
      await loadHooks();
    } catch (err) { hookMsg.show(err.message, 'error'); }
  });
  hooks.append(hookList, hookForm);

  // ---- tokens ---------------------------------------------------------------
  const tokList = h('ul', { class: 'list', id: 'token-list' });
  const shown = h('p', { class: 'secret', id: 'new-token', hidden: true });
  async function loadTokens() {
    try {
      const r = await api('GET', '/v1/players/me/tokens');
      tokList.replaceChildren(...(r.tokens.length ? r.tokens.map(tok => h('li', { 'data-token': tok.id },
        h('code', {}, tok.id), ' ', t('created {created}, last used {used}', { created: date(tok.created_at), used: tok.last_used_at ? date(tok.last_used_at) : t('never') }), ' ',
        h('button', { type: 'button', class: 'danger', onclick: async () => {
          try { await api('DELETE', `/v1/players/me/tokens/${q(tok.id)}`); tokMsg.show(t('Token revoked.'), 'ok'); await loadTokens(); } catch (e) { tokMsg.show(e.message, 'error'); }
        } }, t('Revoke'))))
        : [h('li', { class: 'none' }, t('No tokens.'))]));
    } catch (e) { tokMsg.show(e.message, 'error'); }
  }
  const create = h('button', { type: 'button', id: 'token-create', onclick: async () => {
    try {
      const tok = await api('POST', '/v1/players/me/tokens', {});
      shown.replaceChildren(t('New token, shown only now:'), ' ', h('code', {}, tok.token));
      shown.hidden = false;
      await loadTokens();
    } catch (e) { tokMsg.show(e.message, 'error'); }
  } }, t('Create a token'));
  toks.append(h('p', { class: 'hint' }, t('A bot signs in with a token: Authorization: Bearer korp_…')), tokList, create, shown);
  await Promise.all([loadHooks(), loadTokens(), account.load()]);
  return null;
}

// ---- password and sessions --------------------------------------------------
// Changing the password ends the other sessions (tokens stay); the list shows
// every signed-in browser, and "Sign out everywhere else" ends all but this one.
function accountSection() {
  const pwMsg = messageBox(), sessMsg = messageBox();
  const current = h('input', { type: 'password', id: 'current-password', autocomplete: 'current-password', required: true });
  const fresh = h('input', { type: 'password', id: 'new-password', autocomplete: 'new-password', minlength: 8, maxlength: 128, required: true });
  const pwForm = h('form', { class: 'form', id: 'password-form' },
    h('label', { for: 'current-password' }, t('Current password')), current,
    h('label', { for: 'new-password' }, t('New password (8 to 128 characters; a few words make a good one)')), fresh,
    h('button', { type: 'submit', class: 'primary' }, t('Change password')));
  const list = h('ul', { class: 'list', id: 'session-list' });
  async function load() {
    try {
      const r = await api('GET', '/v1/players/me/sessions');
      list.replaceChildren(...(r.sessions.length ? r.sessions.map(s => h('li', { 'data-session': s.id },
        s.current ? h('strong', {}, t('This browser')) : t('Another browser'),
        ' — ' + t('signed in {created}, last seen {seen}, ends {ends}', { created: date(s.created_at), seen: date(s.last_seen_at, { dateStyle: 'medium', timeStyle: 'short' }), ends: date(s.expires_at) })))
        : [h('li', { class: 'none' }, t('No sessions.'))]));
    } catch (e) { sessMsg.show(e.message, 'error'); }
  }
  pwForm.addEventListener('submit', async e => {
    e.preventDefault();
    try {
      await api('PUT', '/v1/players/me/password', { current_password: current.value, new_password: fresh.value });
      current.value = fresh.value = '';
      pwMsg.show(t('Password changed. Your other sessions have ended; tokens for bots still work.'), 'ok');
      await load();
    } catch (err) { pwMsg.show(err.message, 'error'); }
  });
  const endOthers = h('button', { type: 'button', class: 'danger', id: 'sessions-end', onclick: async () => {
    try {
      const r = await api('DELETE', '/v1/players/me/sessions');
      sessMsg.show(tn('Signed out in {n} other browser.', 'Signed out in {n} other browsers.', r.ended), 'ok');
      await load();
    } catch (e) { sessMsg.show(e.message, 'error'); }
  } }, t('Sign out everywhere else'));
  const section = h('section', { class: 'card', id: 'account' },
    h('h2', {}, t('Password')), pwMsg, pwForm,
    h('h2', {}, t('Signed-in browsers')), sessMsg, list, endOthers);
  return { section, load };
}

// "Notify me in this browser": Web Push through korp's service worker (/sw.js),
// with the server's VAPID key; the browsers subscribed so far, each removable.
function pushSection() {
  const msg = messageBox();
  const list = h('ul', { class: 'list', id: 'push-list' });
  const button = h('button', { type: 'button', id: 'push-subscribe' }, t('Notify me in this browser'));
  const section = h('div', { id: 'push' }, h('h3', {}, t('Browser notifications')), msg, list, button);
  const supported = 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
  async function load() {
    try {
      const r = await api('GET', '/v1/players/me/push-subscriptions');
      list.replaceChildren(...(r.subscriptions.length ? r.subscriptions.map(s => h('li', { 'data-push': s.id },
        h('code', {}, new URL(s.endpoint).host), ' ', t('since {date}', { date: date(s.created_at) }), ' ',
        h('button', { type: 'button', class: 'danger', onclick: async () => {
          try { await api('DELETE', `/v1/players/me/push-subscriptions/${q(s.id)}`); await load(); } catch (e) { msg.show(e.message, 'error'); }
        } }, t('Remove'))))
        : [h('li', { class: 'none' }, t('No browser is notified.'))]));
    } catch (e) { msg.show(e.message, 'error'); }
  }
  button.addEventListener('click', async () => {
    try {
      const { vapid_public_key: key } = await api('GET', '/v1/push/key');
      if (await Notification.requestPermission() !== 'granted') { msg.show(t('This browser does not allow notifications from korp.'), 'error'); return; }
      const reg = await navigator.serviceWorker.register('/sw.js');
      await navigator.serviceWorker.ready;
      const raw = atob(key.replace(/-/g, '+').replace(/_/g, '/'));
      const sub = await reg.pushManager.subscribe({ userVisibleOnly: true,
        applicationServerKey: Uint8Array.from(raw, c => c.charCodeAt(0)) });
      await api('POST', '/v1/players/me/push-subscriptions', sub.toJSON());
      msg.show(t('This browser will be notified.'), 'ok');
      await load();
    } catch (e) { msg.show(e.message, 'error'); }
  });
  if (!supported) { button.disabled = true; msg.show(t('This browser cannot show notifications from web pages.'), 'error'); }
  load();
  return section;
}
