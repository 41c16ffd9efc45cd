// Talking to korpd: JSON over fetch, problems (RFC 9457) turned into
// ApiError, the signed-in person (session cookie + CSRF token).

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
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
  await api('POST', '/v1/players', body);
  return signIn(name, password);
}

export async function signOut() {
  try { await api('DELETE', '/v1/session'); } finally { remember(null); }
}

export const q = encodeURIComponent;
