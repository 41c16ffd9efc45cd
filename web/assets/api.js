// Talking to korpd: JSON over fetch, problems (RFC 9457) turned into
// ApiError, the signed-in person (session cookie + CSRF token).

import { t, language } from './i18n.js';

// What each problem type (its `reason`) says in the page's language;
// English pages show the problem's own detail, which says more.
const REASONS = {
  'not-found': () => t('Not found'),
  'method-not-allowed': () => t('Method not allowed'),
  'body-too-large': () => t('Request body too large'),
  'bad-request': () => t('Bad request'),
  'unsupported-media-type': () => t('Unsupported media type'),
  'unavailable': () => t('korp is busy; try again in a moment.'),
  'internal-error': () => t('Something went wrong on korp\'s side.'),
  'unauthorized': () => t('You are not signed in, or the name or password is wrong.'),
  'forbidden': () => t('You may not do that.'),
  'conflict': () => t('That conflicts with what is already there.'),
  'not-your-turn': () => t('Not your turn'),
  'game-over': () => t('The game is over'),
  'ply-mismatch': () => t('The game has moved on: reload the page.'),
  'illegal-move': () => t('Illegal move'),
  'draw-not-allowed': () => t('Draw not allowed'),
  'too-many-requests': () => t('Too many requests: wait a little and try again.'),
  'invalid-webhook-url': () => t('The webhook URL cannot be used'),
  'invalid-value': () => t('A value is not allowed'),
  'not-implemented': () => t('Not implemented'),
  'conditional-conflict': () => t('Conditional moves disagree'),
  'leave-exceeded': () => t('Over the leave allowance'),
  // Why a move was refused (rules_reason_slug in rules/variant.c).
  'syntax': p => notationsText(p?.notations),
  'invalid-position': () => t('That position is not valid.'),
  'ambiguous': () => t('Several moves fit: say which man by its file or rank.'),
  'not-legal': () => t('That move is not legal here.'),
  'no-piece-on-square': () => t('There is no man on that square.'),
  'no-such-piece': () => t('You have no such man.'),
  'own-man-on-square': () => t('One of your own men stands on that square.'),
  'capture-of-empty-square': () => t('There is nothing to capture on that square.'),
  'capture-not-marked': () => t('That move captures: mark the capture.'),
  'cannot-reach': () => t('None of your men can reach that square.'),
  'king-in-check': () => t('That move would leave your king in check.'),
  'promotion-not-named': () => t('Say which man the pawn becomes.'),
  'not-a-promotion': () => t('That move is not a promotion.'),
  'promotion-piece-not-captured': () => t('A pawn becomes only a man of yours that has been captured.'),
  'prison-empty': () => t('None of your men has been captured: the pawn cannot promote yet.'),
  'king-not-placed': () => t('Place your king first.'),
  'kings-adjacent': () => t('The kings may not stand next to each other.'),
  'not-in-reserve': () => t('You have no such man in your reserve.'),
  'drop-on-occupied-square': () => t('That square is taken: drop on an empty one.'),
  'pawn-drop-rank': () => t('A pawn may not be dropped on the first or the last rank.'),
  'drop-gives-check': () => t('A drop may never give check.'),
  'no-drops': () => t('This variant has no drops.'),
  'agreement-not-allowed': () => t('Korpalski allows a draw by agreement only when both reserves are empty'),
  // Refusals finer than their problem's type (api_outcomes.c, games_result.code).
  'line-refused': () => t('The arbiter cannot take that line.'),
  'line-not-check': () => t('In a perpetual-check line every move of yours must give check.'),
  'line-move-refused': () => t('A move of the line cannot be read or is not legal.'),
  'line-past-the-end': () => t('The game would be over before the end of the line.'),
  'line-too-long': () => t('The line is too long.'),
  'line-empty': () => t('Write the moves of the line, yours first.'),
  'entry-refused': () => t('You may not enter this tournament: your rating or your record does not meet its conditions.'),
  'daily-limit': () => t('That is as many as a day allows: try again tomorrow.'),
  'day-out-of-range': () => t('That day is out of range.'),
  'give-time-on-your-turn': () => t('You may give time only while your opponent is to move.'),
  'no-time-limit': () => t('This game has no time limit: there is no time to give.'),
  'leave-overlap': () => t('Those days overlap leave you have booked: cancel that booking first, or choose other days.'),
  'rated-play-closed': () => t('This account is closed for rated play: it may play unrated games only.'),
  'conditional-on-your-turn': () => t('Conditional moves are set while your opponent is to move: play your move first.'),
  // Sign-up, passwords and tokens (api_players.c).
  'name-invalid': () => t('A name is 2 to 30 letters, digits, _ or -.'),
  'name-taken': () => t('That name is taken: choose another.'),
  'name-not-latin': () => t('A name is written in Latin letters (with their accents, like Łucja or Győző), so that no two names look alike.'),
  'email-invalid': () => t('Write one e-mail address, like anna@example.org.'),
  'password-length': () => t('A password is 8 to 128 characters; a few words make a good one.'),
  'password-is-name': () => t('A password must not be your name.'),
  'password-common': () => t('That password is one of the most common ones: choose another.'),
  'password-wrong': () => t('The current password is wrong.'),
  'no-password': () => t('This account has no password: it signs in with tokens only.'),
  'signup-limit': () => t('Too many players have signed up from here in the last hour: try again later.'),
  'token-limit': () => t('You hold as many tokens as a player may: revoke one first.'),
  // Conditional lines, tournaments and challenges.
  'lines-too-many': () => t('There are too many lines.'),
  'line-move-length': () => t('A move of a line is empty or too long.'),
  'line-length-odd': () => t('A line is an even number of moves: their move, your reply, and so on.'),
  'time-unreadable': () => t('That date or time cannot be read.'),
  'ends-before-start': () => t('The end must come after the start.'),
  'starts-in-the-past': () => t('The start is in the past.'),
  'ends-in-the-past': () => t('The end is in the past.'),
  'too-far-ahead': () => t('That is too far ahead.'),
  'rating-range-empty': () => t('The lowest rating is above the highest: no one could join.'),
  'tournament-not-open': () => t('The tournament does not take entries now.'),
  'tournament-full': () => t('The tournament is full.'),
  'already-entered': () => t('You are in this tournament already.'),
  'tournament-over': () => t('The tournament is over.'),
  'not-entered': () => t('You are not playing in this tournament.'),
  'open-challenges-limit': () => t('You have as many open challenges as allowed: cancel one first.'),
  'challenge-not-open': () => t('That challenge is no longer open.'),
  'too-few-players': () => t('A round robin needs at least 3 players.'),
  'too-many-players': () => t('Too many players have joined for a round robin.'),
  'challenge-open-already': () => t('Your challenge to this player is still open: wait for the answer or cancel it.'),
  // A draw claim's answer (its `code`).
  'threefold-holds': () => t('the position has occurred three times.'),
  'fifty-move-holds': () => t('fifty moves have passed without a capture, pawn move or drop.'),
  'threefold-short': () => t('the position has not occurred three times.'),
  'fifty-move-short': () => t('fifty moves have not passed yet without a capture, pawn move or drop.'),
  'no-fifty-move-rule': () => t('this game is played without the fifty-move rule.'),
};

/* A reason code said in the page's language, or null on an English page
 * (whose answers say more in their own words) or for a code not known. */
export function reasonText(code) {
  return language() !== 'en' && REASONS[code] ? REASONS[code]() : null;
}

// The notations a variant reads (an unreadable move's problem names them), as
// the words that follow "write it" in the page's language.
const NOTATIONS = {
  san: () => t('in SAN'),
  uci: () => t('in coordinates (UCI)'),
  polish: () => t('in the inventor\'s Polish notation'),
  hungarian: () => t('with Hungarian letters (K V B F H)'),
};

function notationsText(notations) {
  const names = (Array.isArray(notations) ? notations : []).filter(n => NOTATIONS[n]).map(n => NOTATIONS[n]());
  if (!names.length) return t('korp cannot read that move.');
  const list = new Intl.ListFormat(language(), { type: 'disjunction' }).format(names);
  return t('korp cannot read that move: write it {notations}.', { notations: list });
}

function problemText(status, problem) {
  // The notations of the variant, in every language (the detail does not name them).
  if (problem?.reason === 'syntax' && Array.isArray(problem.notations)) return notationsText(problem.notations);
  if (language() !== 'en') {
    // An illegal move's reason is finer (drop-gives-check): then the type says it.
    const slug = String(problem?.type || '').replace(/^.*\/problems\//, '');
    const said = REASONS[problem?.reason] || REASONS[slug];
    if (said) return said(problem);
    if (status === 0) return t('korp cannot be reached.');
  }
  return problem?.detail || problem?.title || `HTTP ${status}`;
}

export class ApiError extends Error {
  constructor(status, problem) {
    super(problemText(status, problem));
    this.status = status;
    this.problem = problem || {};
  }
}

const session = { player: null, csrf: null, token: null };

/* The signed-in player ({id, name}) or null. */
export function me() { return session.player; }

/*
 * Sends a request; `body` (an object) goes as JSON. Resolves to the parsed
 * JSON answer (null for 204), rejects with ApiError for a problem.
 */
export async function api(method, path, body, { headers = {}, raw = false } = {}) {
  const h = { Accept: 'application/json', ...headers };
  if (body !== undefined) h['Content-Type'] = 'application/json';
  if (method !== 'GET' && session.csrf) h['X-CSRF-Token'] = session.csrf;
  if (session.token) h.Authorization = 'Bearer ' + session.token;
  let res;
  try {
    res = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  } catch (e) {
    throw new ApiError(0, { title: 'Network error', detail: 'korp cannot be reached: ' + e.message });
  }
  if (res.status === 204) return null;
  const type = res.headers.get('Content-Type') || '';
  if (!res.ok) {
    let problem = null;
    if (type.includes('json')) { try { problem = await res.json(); } catch { /* not JSON after all */ } }
    if (res.status === 429 && problem) {
      const wait = res.headers.get('Retry-After');
      if (wait) problem.detail = `${problem.detail || 'too many requests'} (try again in ${wait} s)`;
    }
    throw new ApiError(res.status, problem);
  }
  if (raw) return res.text();
  return type.includes('json') ? res.json() : res.text();
}

function remember(answer) {
  session.player = answer?.player || null;
  session.csrf = answer?.csrf_token || null;
}

/* Asks korpd who is signed in (the cookie); resolves to the player or null. */
export async function loadSession() {
  try {
    remember(await api('GET', '/v1/session'));
  } catch (e) {
    if (e.status !== 401 && e.status !== 404) console.warn('session check failed:', e.message);
    remember(null);
  }
  return session.player;
}

export async function signIn(name, password) {
  remember(await api('POST', '/v1/session', { name, password }));
  return session.player;
}

/* Creates the account, then signs in with it. */
export async function signUp(name, password, email) {
  const body = { name, password };
  if (email) body.email = email;
  // The account reads korp in the page's language (its emails too).
  await api('POST', '/v1/players', body, { headers: { 'Accept-Language': language() } });
  return signIn(name, password);
}

export async function signOut() {
  try { await api('DELETE', '/v1/session'); } finally { remember(null); }
}

export const q = encodeURIComponent;
