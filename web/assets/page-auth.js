// Sign in (/login) and sign up (/signup): a name and a password.

import { signIn, signUp } from './api.js';
import { h, messageBox } from './ui.js';
import { t } from './i18n.js';

export function render(main, { mode, navigate, refreshNav }) {
  const signup = mode === 'signup';
  document.title = (signup ? t('Sign up') : t('Sign in')) + ' · korp';
  const next = new URLSearchParams(location.search).get('next');
  const safeNext = next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
  const msg = messageBox();
  const name = h('input', { id: 'name', name: 'name', autocomplete: 'username', required: true, minlength: 2, maxlength: 30, pattern: '[\\-A-Za-z0-9_\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u017F]{2,30}' });
  const password = h('input', { id: 'password', name: 'password', type: 'password', required: true, minlength: 8, maxlength: 256,
    autocomplete: signup ? 'new-password' : 'current-password' });
  const email = h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'email', maxlength: 254 });
  const submit = h('button', { type: 'submit', class: 'primary' }, signup ? t('Create account') : t('Sign in'));
  const form = h('form', { class: 'card form auth-form', novalidate: true },
    h('h1', {}, signup ? t('Sign up') : t('Sign in')),
    h('label', { for: 'name' }, t('Name')), name,
    signup ? h('p', { class: 'hint' }, t('2-30 letters, digits, _ or -')) : null,
    h('label', { for: 'password' }, t('Password')), password,
    signup ? h('p', { class: 'hint' }, t('8 to 128 characters, not a common password: a few words make a good one')) : null,
    signup ? [h('label', { for: 'email' }, t('Email (optional, for notifications)')), email] : null,
    submit, msg,
    h('p', {}, signup ? t('Have an account?') : t('New here?'), ' ',
      h('a', { href: (signup ? '/login' : '/signup') + (next ? '?next=' + encodeURIComponent(safeNext) : '') }, signup ? t('Sign in') : t('Sign up'))));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    msg.clear();
    if (!form.checkValidity()) {
      const bad = [name, password, email].find(i => !i.checkValidity());
      msg.show(bad === name ? t('A name is 2-30 letters, digits, _ or -.') : bad === password ? t('A password has 8 to 128 characters.') : t('That email address does not look right.'), 'error');
      bad.focus();
      return;
    }
    submit.disabled = true;
    try {
      if (signup) await signUp(name.value.trim(), password.value, email.value.trim() || null);
      else await signIn(name.value.trim(), password.value);
      await refreshNav();
      navigate(safeNext, { replace: true });
    } catch (err) {
      msg.show(err.status === 401 ? t('Wrong name or password.') : err.message, 'error');
      submit.disabled = false;
    }
  });
  main.append(form);
  name.focus();
}
