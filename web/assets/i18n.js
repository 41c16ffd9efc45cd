// The page's words. t('English text', { name: value }) returns the text in the
// page's language with {name} placeholders filled in. The catalogs
// (/assets/i18n/pl.json, hu.json) are made at build time from po/*.po, the
// same catalogs korpd's emails use; English is the msgids themselves.
//
// The language: the signed-in player's `language` preference, else the one
// a visitor picked with the switch (localStorage), else the browser's
// languages, else English. loadLanguage() runs before the first render.

export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'pl', name: 'Polski' },
  { code: 'hu', name: 'Magyar' },
];
const CODES = LANGUAGES.map(l => l.code);
const STORE = 'korp.language';

let current = 'en';
let catalog = {};

export function language() { return current; }

export function t(msgid, params) {
  const text = catalog[msgid] || msgid;
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/* The language a page should use: the player's preference, the visitor's
 * choice, the browser's, English. */
export function chooseLanguage(player) {
  if (player && CODES.includes(player.language)) return player.language;
  let stored = null;
  try { stored = localStorage.getItem(STORE); } catch { /* storage off */ }
  if (CODES.includes(stored)) return stored;
  for (const tag of navigator.languages || [navigator.language || '']) {
    const code = String(tag).toLowerCase().split('-')[0];
    if (CODES.includes(code)) return code;
  }
  return 'en';
}

/* Remembers a visitor's choice in this browser. */
export function rememberLanguage(code) {
  try { localStorage.setItem(STORE, code); } catch { /* storage off */ }
}

/* Loads the catalog of `code` and makes it the page's language. */
export async function loadLanguage(code) {
  if (!CODES.includes(code)) code = 'en';
  let next = {};
  if (code !== 'en') {
    try {
      const res = await fetch(`/assets/i18n/${code}.json`, { credentials: 'same-origin' });
      if (res.ok) next = await res.json();
      else code = 'en';
    } catch { code = 'en'; }
  }
  current = code;
  catalog = next;
  document.documentElement.lang = code;
}
