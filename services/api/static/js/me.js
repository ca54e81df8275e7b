// Who this browser plays as. The token itself lives in an HttpOnly cookie the server sets;
// this keeps only the id, the name and whether it is registered, to greet the player,
// recognise their seat and link to their record.

import { api, ApiError } from './api.js';
import { t } from './i18n.js';

const KEY = 'euchre:me';

export function me() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY));
    return saved && saved.id && saved.name ? saved : null;
  } catch {
    return null;
  }
}

/** A guest by `name`; with a password, the registered player of that name: registered now
 * when it isn't yet, signed in when it is. `returning` says which is likelier, to try first. */
export async function becomePlayer(name, password = '', returning = false) {
  const body = password ? await registered(name.trim(), password, returning) : await guest(name.trim());
  const who = { id: body.id, name: body.name, registered: !!password };
  localStorage.setItem(KEY, JSON.stringify(who));
  return who;
}

/** A guest named "Guest 4821", for a first visit that plays before picking a name: a name is
 * anyone's until registered, so another guest's namesake is no clash; one that a registered
 * name looks like is (409), so pick again. */
export async function becomeGuest() {
  for (let tries = 0; ; tries += 1) {
    const name = `Guest ${1000 + Math.floor(Math.random() * 9000)}`;
    try {
      return await becomePlayer(name);
    } catch (err) {
      if (err.status !== 409 || tries >= 4) throw err;
    }
  }
}

/** A guest by `name`; the server's refusal of a registered name (worded for programs, which
 * sign in by their own route) put as a person at the page can act on it. */
async function guest(name) {
  try {
    return await api.newPlayer(name);
  } catch (err) {
    if (err.status !== 409) throw err;
    throw new ApiError(409, t('“{name}” is a registered name. If it’s yours, sign in with its password in the lobby; if not, pick another name.', { name }), err.body);
  }
}

async function registered(name, password, returning) {
  const signIn = () => api.signIn(name, password);
  const register = () => api.newPlayer(name, password);
  try {
    return await (returning ? signIn : register)();
  } catch (err) {
    // Signing in finds no such registration (401), or registering finds one already (409).
    if (err.status !== (returning ? 401 : 409)) throw err;
  }
  try {
    return await (returning ? register : signIn)();
  } catch (err) {
    if (err.status !== 401 && err.status !== 409) throw err;
    throw new ApiError(err.status, t('{name} is registered with another password: check it, or pick another name.', { name }), err.body);
  }
}

/** The server no longer knows our cookie (a 401): ask for a name again. */
export function forget() {
  localStorage.removeItem(KEY);
}

/** Sign out for good: the server revokes the token and clears the cookie, so the next name
 * typed is a new player. Offline, the name is forgotten here all the same. */
export function signOut() {
  forget();
  return api.logout().catch(() => {});
}

/** Ask the server who the cookie belongs to, and forget a name it no longer knows (the
 * cookie expired, or the database was reset). True when that changed who we are. */
export async function checkMe() {
  const saved = me();
  if (!saved) return false;
  try {
    const who = await api.whoAmI();
    if (who.id === saved.id && who.registered === !!saved.registered) return false;
    localStorage.setItem(KEY, JSON.stringify({ id: who.id, name: who.name, registered: who.registered }));
    return true;
  } catch (error) {
    if (error.status !== 401) return false;  // offline: keep what we have
    forget();
    return true;
  }
}
