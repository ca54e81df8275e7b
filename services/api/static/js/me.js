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
