// Who this browser plays as. The token itself lives in an HttpOnly cookie the server sets;
// this keeps only the id and name, to greet the player and recognise their seat.

import { api } from './api.js';

const KEY = 'euchre:me';

export function me() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY));
    return saved && saved.id && saved.name ? saved : null;
  } catch {
    return null;
  }
}

export async function becomePlayer(name) {
  const body = await api.newPlayer(name.trim());
  const who = { id: body.id, name: body.name };
  localStorage.setItem(KEY, JSON.stringify(who));
  return who;
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
    if (who.id === saved.id) return false;
    localStorage.setItem(KEY, JSON.stringify({ id: who.id, name: who.name }));
    return true;
  } catch (error) {
    if (error.status !== 401) return false;  // offline: keep what we have
    forget();
    return true;
  }
}
