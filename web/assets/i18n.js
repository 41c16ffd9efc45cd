// The page's words. t('English text', { name: value }) returns the text in the
// page's language with {name} placeholders filled in; tn('{n} day', '{n} days',
// n) the form for the number n by the catalog's Plural-Forms (Polish: 1 dzień,
// 2 dni, 5 dni), with {n} written in the page's locale. number() and date()
// write figures and days as the page's language does (Intl). The catalogs
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
let pluralOf = n => (n === 1 ? 0 : 1);   // English: one, other

export function language() { return current; }

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

export function t(msgid, params) {
  const text = catalog[msgid];
  return fill(typeof text === 'string' ? text : msgid, params);
}

/* The form of a text for the number n; params.n is n unless given. */
export function tn(singular, plural, n, params) {
  const forms = catalog[singular];
  let text = n === 1 ? singular : plural;
  if (Array.isArray(forms)) text = forms[pluralOf(n)] ?? forms[forms.length - 1];
  return fill(text, { n: number(n), ...params });
}

/* A number as the page's language writes it (1,5 in Polish). */
export function number(value, options) {
  return new Intl.NumberFormat(current, options).format(value);
}

/* A moment (a Date or an ISO text) as the page's language writes it;
 * options as Intl.DateTimeFormat's (a day with its month and year by default). */
export function date(value, options = { dateStyle: 'medium' }) {
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? String(value) : new Intl.DateTimeFormat(current, options).format(d);
}

/*
 * A gettext Plural-Forms expression ("nplurals=3; plural=(n==1 ? 0 : ...);")
 * made a function of n, without eval: C's operators on integers, read by
 * precedence climbing. An expression it cannot read gives English's rule.
 */
export function pluralRule(header) {
  const m = /plural\s*=\s*([^;]+)/.exec(header || '');
  const tokens = m ? m[1].match(/\d+|n|&&|\|\||[=!<>]=|[-+*\/%<>!?:()]/g) : null;
  if (!tokens || tokens.join('') !== m[1].replace(/\s+/g, '')) return n => (n === 1 ? 0 : 1);
  let at = 0;
  const BINARY = [['||'], ['&&'], ['==', '!='], ['<', '>', '<=', '>='], ['+', '-'], ['*', '/', '%']];
  const apply = (op, a, b) => ({
    '||': () => +(a || b), '&&': () => +(a && b), '==': () => +(a === b), '!=': () => +(a !== b),
    '<': () => +(a < b), '>': () => +(a > b), '<=': () => +(a <= b), '>=': () => +(a >= b),
    '+': () => a + b, '-': () => a - b, '*': () => a * b,
    '/': () => (b ? Math.trunc(a / b) : 0), '%': () => (b ? a % b : 0),
  })[op]();
  function unary() {
    const tok = tokens[at++];
    if (tok === '!') { const f = unary(); return n => +!f(n); }
    if (tok === '(') { const f = ternary(); at++; return f; }
    if (tok === 'n') return n => n;
    const v = Number(tok);
    return () => v;
  }
  function binary(level) {
    if (level === BINARY.length) return unary();
    let f = binary(level + 1);
    while (BINARY[level].includes(tokens[at])) {
      const op = tokens[at++], a = f, b = binary(level + 1);
      f = n => apply(op, a(n), b(n));
    }
    return f;
  }
  function ternary() {
    const cond = binary(0);
    if (tokens[at] !== '?') return cond;
    at++;
    const yes = ternary();
    at++;   // ':'
    const no = ternary();
    return n => (cond(n) ? yes(n) : no(n));
  }
  const rule = ternary();
  return n => rule(Math.abs(Math.trunc(n)));
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
  pluralOf = pluralRule(next['']?.plural_forms || 'plural=(n != 1);');
  document.documentElement.lang = code;
}
