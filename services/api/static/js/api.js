// The HTTP contract (docs: /schema): every call, and problem+json errors turned into sentences.

import { sleep } from './dom.js';
import { language, t } from './i18n.js';
import { keep, pledge } from './seed.js';

export class ApiError extends Error {
  constructor(status, detail, body = null) {
    super(detail);
    this.status = status;
    this.body = body;
  }
}

/** The answer's text; a refusal, or no answer at all, as an ApiError in words. */
async function answer(method, path, body, accept = 'application/json') {
  // The server words its refusals in the language the page is shown in, not the browser's.
  const init = { method, credentials: 'same-origin', headers: { Accept: accept, 'Accept-Language': language() } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, t('Can’t reach the server. Check your connection and try again.'));
  }
  const text = await response.text();
  if (!response.ok) {
    const data = parsed(text);
    const detail = data?.detail || `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, sentence(detail), data);
  }
  return text;
}

function parsed(text) {
  try { return text ? JSON.parse(text) : null; } catch { return null; }
}

export async function call(method, path, body) {
  return parsed(await answer(method, path, body));
}

/** A call that sits the caller down at `code` (or a table it opens) with a seed's commitment. */
async function pledging(method, path, body, code) {
  const { seed, body: given } = await pledge();
  const view = await call(method, path, { ...body, ...given });
  keep(code ?? view.code, seed);
  return view;
}

/** An NDJSON answer (a table's log): each line's object, in order. */
async function lines(path) {
  const text = await answer('GET', path, undefined, 'application/x-ndjson');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

/** The server's details are lower-case fragments ("you must follow hearts"); show a sentence. */
function sentence(detail) {
  const s = String(detail).trim();
  if (!s) return s;
  const first = s[0].toUpperCase() + s.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/**
 * What `ask()` answers once it answers at all (anything but null), asked every `every` ms while
 * `wanted()`; null when nothing came within `patience` ms. For read models a worker keeps a
 * moment behind the log, which nothing streams when they change. A moment offline is asked
 * again.
 */
export async function settled(ask, wanted, every = 500, patience = 15000) {
  const until = Date.now() + patience;
  while (wanted() && Date.now() < until) {
    try {
      const found = await ask();
      if (found !== null && found !== undefined) return found;
    } catch { /* ask again */ }
    await sleep(every);
  }
  return null;
}

const tablePath = (code) => `/api/tables/${encodeURIComponent(code)}`;

export const api = {
  newPlayer: (name, password) => call('POST', '/api/players', password ? { name, password } : { name }),
  signIn: (name, password) => call('POST', '/api/sessions', { name, password }),
  whoAmI: () => call('GET', '/api/players/me'),
  player: (id) => call('GET', `/api/players/${encodeURIComponent(id)}`),
  rules: () => call('GET', '/api/rules'),
  leaderboard: (offset, limit) => call('GET', `/api/leaderboard?limit=${limit}&offset=${offset}`),
  logout: () => call('POST', '/api/sessions/logout'),
  waiting: (before) => call('GET', before ? `/api/tables?before=${before}` : '/api/tables'),
  open: (body) => pledging('POST', '/api/tables', body),
  table: (code) => call('GET', tablePath(code)),
  log: (code) => lines(`${tablePath(code)}/log`),
  verify: (code) => call('GET', `${tablePath(code)}/verify`),
  reviews: (code) => call('GET', `${tablePath(code)}/reviews`),
  exportUrl: (code) => `${tablePath(code)}/export`,
  sit: (code, seat) => pledging('POST', `${tablePath(code)}/seats/${seat}`, {}, code),
  stand: (code, seat) => call('DELETE', `${tablePath(code)}/seats/${seat}`),
  bot: (code, seat, level) => call('PUT', `${tablePath(code)}/seats/${seat}/bot`, { level }),
  settings: (code, changes) => call('PATCH', `${tablePath(code)}/settings`, changes),
  start: (code) => call('POST', `${tablePath(code)}/start`),
  spectators: (code) => call('GET', `${tablePath(code)}/spectators`),
  again: (code) => pledging('POST', `${tablePath(code)}/again`, {}),
  lock: (code) => call('POST', `${tablePath(code)}/lock`),
  unlock: (code) => call('POST', `${tablePath(code)}/unlock`),
  ban: (code, player) => call('POST', `${tablePath(code)}/bans`, { player }),
  partner: (code, seat) => call('POST', `${tablePath(code)}/partners`, { seat }),
  move: (code, move) => call('POST', `${tablePath(code)}/moves`, move),
  hint: (code) => call('POST', `${tablePath(code)}/hint`),
  eventsUrl: (code) => `${tablePath(code)}/events`,
  chat: (code, text) => call('POST', `${tablePath(code)}/chat`, { text }),
  react: (code, emoji) => call('POST', `${tablePath(code)}/reactions`, { emoji }),
  mute: (code, player) => call('POST', `${tablePath(code)}/mutes`, { player }),
  unmute: (code, player) => call('DELETE', `${tablePath(code)}/mutes/${encodeURIComponent(player)}`),
};
