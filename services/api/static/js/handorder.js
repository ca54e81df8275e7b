// The order the hand is shown in: the suit sort, or "My order", the player's own, dragged into
// place. Both are kept in this browser: the choice for every table, the order for each table.

import { sortHand } from './cards.js';

const SORT_KEY = 'euchre:hand-sort';
const orderKey = (code) => `euchre:order:${code}`;

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key));
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // storage refused (a private window): the order lasts for this page only
  }
}

/** 'suit' or 'mine'. */
export const handSort = () => (read(SORT_KEY) === 'mine' ? 'mine' : 'suit');

export function setHandSort(sort) { write(SORT_KEY, sort); }

/**
 * The hand as it is shown. In My order the cards kept keep their places; cards that left drop
 * out, and cards that arrived (the picked-up card, a farmer's swap) go after them, in the suit
 * sort among themselves. A new deal starts from the suit sort too, rather than from the order
 * the server dealt, which is no order at all. The order is saved with its deal: the same cards
 * come round again in later deals, and an old order must not place them.
 */
export function arrange(v) {
  const sorted = sortHand(v.hand, v.trump);
  if (handSort() !== 'mine') return sorted;
  const saved = read(orderKey(v.code));
  const kept = saved?.deal === v.deal_no && Array.isArray(saved.cards) ? saved.cards.filter((c) => v.hand.includes(c)) : [];
  const shown = [...kept, ...sorted.filter((c) => !kept.includes(c))];
  const record = saving(v, shown);
  if (JSON.stringify(saved) !== JSON.stringify(record)) write(orderKey(v.code), record);
  return shown;
}

/** Move `card` to place `to` of the hand as shown; the new order. */
export function moveCard(v, shown, card, to) {
  const rest = shown.filter((c) => c !== card);
  rest.splice(Math.max(0, Math.min(to, rest.length)), 0, card);
  write(orderKey(v.code), saving(v, rest));
  return rest;
}

// An emptied hand takes its key away, so finished tables leave nothing behind.
const saving = (v, cards) => (cards.length ? { deal: v.deal_no, cards } : null);
