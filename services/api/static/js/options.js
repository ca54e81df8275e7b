// A player's own options at the table: each helper and the banners can be turned off, the
// your-turn sound and the four-colour deck on. They are kept in this browser, so a choice outlasts a reload, and they
// are set on the page's root as data-help-* for the styles that draw the helpers.

import { h, suitMark } from './dom.js';

const KEY = 'euchre.options';

export const OPTIONS = [
  ['playable', 'Light up the cards I can play'],
  ['partner', 'Say when my partner is winning the trick'],
  ['bower', 'Mark the bowers'],
  ['banners', 'Banners for calls, loners and results'],
  ['sound', 'A sound when it is my turn'],
  ['four', 'Four-colour deck: diamonds blue, clubs green'],
];
// Options that stay off until the player turns them on.
const OFF_UNTIL_ASKED = new Set(['sound', 'four']);

function stored() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

/** Whether the option is on: as the player last set it, else on (off for OFF_UNTIL_ASKED). */
export const option = (key) => stored()[key] ?? !OFF_UNTIL_ASKED.has(key);

function show() {
  for (const [key] of OPTIONS) document.documentElement.dataset[`help${key[0].toUpperCase()}${key.slice(1)}`] = option(key) ? 'on' : 'off';
}

function set(key, on) {
  const now = { ...stored(), [key]: on };
  try {
    localStorage.setItem(KEY, JSON.stringify(now));
  } catch {
    // storage refused (a private window): the choice lasts for this page only
  }
  show();
}

/** The bar's Options menu; `changed` redraws what the options decide. */
export function optionsMenu(changed) {
  show();
  const rows = OPTIONS.map(([key, label]) => h('label.option-row', {},
    h('input', { type: 'checkbox', name: `option-${key}`, checked: option(key), onchange: (event) => { set(key, event.target.checked); changed?.(); } }),
    h('span', {}, label, key === 'four' ? h('span.suit-preview', { 'aria-hidden': 'true' }, ['S', 'H', 'D', 'C'].map((s) => suitMark(s))) : null)));
  return h('details.bar-menu.options-menu', {}, h('summary', {}, 'Options'),
    h('div.bar-menu-items', { role: 'group', 'aria-label': 'Options' }, rows));
}

show();
