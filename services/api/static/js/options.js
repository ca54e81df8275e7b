// A player's own options: each helper and the banners can be turned off, the your-turn sound,
// the four-colour deck and the left-handed layout on; the theme (the system's, light or dark)
// and the cards' size are picked. They are kept in this browser, so a choice outlasts a
// reload, and they are set on the page's root (data-help-*, data-theme, data-card-size) for
// the styles that draw them.

import { h, suitMark } from './dom.js';

const KEY = 'euchre.options';

export const OPTIONS = [
  ['playable', 'Light up the cards I can play'],
  ['partner', 'Say when my partner is winning the trick'],
  ['bower', 'Mark the bowers'],
  ['banners', 'Banners for calls, loners and results'],
  ['sound', 'A sound when it is my turn'],
  ['four', 'Four-colour deck: diamonds blue, clubs green'],
  ['left', 'Left-handed: the score and my moves on the left'],
];
// Options that stay off until the player turns them on.
const OFF_UNTIL_ASKED = new Set(['sound', 'four', 'left']);

// Options picked from a few: the first of each is what a player has until they pick.
const CHOICES = {
  theme: ['Theme', [['system', 'System'], ['light', 'Light'], ['dark', 'Dark']]],
  size: ['Cards', [['normal', 'Normal'], ['small', 'Small'], ['large', 'Large']]],
};

const darkSystem = matchMedia('(prefers-color-scheme: dark)');

function stored() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) || {};
  } catch {
    return {};
  }
}

/** Whether the option is on: as the player last set it, else on (off for OFF_UNTIL_ASKED). */
export const option = (key) => stored()[key] ?? !OFF_UNTIL_ASKED.has(key);

/** The player's pick of a CHOICES option, else its first. */
const choice = (key) => {
  const picked = stored()[key];
  const values = CHOICES[key][1].map(([value]) => value);
  return values.includes(picked) ? picked : values[0];
};

function show() {
  const root = document.documentElement;
  for (const [key] of OPTIONS) root.dataset[`help${key[0].toUpperCase()}${key.slice(1)}`] = option(key) ? 'on' : 'off';
  const theme = choice('theme');
  const dark = theme === 'dark' || (theme === 'system' && darkSystem.matches);
  root.dataset.theme = dark ? 'dark' : 'light';
  root.dataset.cardSize = choice('size');
  // The browser's own controls (form fields, scroll bars) drawn to match.
  document.querySelector('meta[name="color-scheme"]')?.setAttribute('content', dark ? 'dark' : 'light');
  for (const el of document.querySelectorAll('.theme-switch')) themeWords(el);
}

function set(key, value) {
  const now = { ...stored(), [key]: value };
  try {
    localStorage.setItem(KEY, JSON.stringify(now));
  } catch {
    // storage refused (a private window): the choice lasts for this page only
  }
  show();
}

const pick = (key, changed) => {
  const [label, values] = CHOICES[key];
  return h('div.option-pick', {}, h('span', { id: `option-${key}-label` }, label),
    h('div.seg', { role: 'radiogroup', 'aria-labelledby': `option-${key}-label` }, values.map(([value, text]) => h('label', {},
      h('input', { type: 'radio', name: `option-${key}`, value, checked: choice(key) === value, onchange: () => { set(key, value); changed?.(); } }),
      h('span', {}, text)))));
};

/** The bar's Options menu; `changed` redraws what the options decide. */
export function optionsMenu(changed) {
  show();
  const rows = OPTIONS.map(([key, label]) => h('label.option-row', {},
    h('input', { type: 'checkbox', name: `option-${key}`, checked: option(key), onchange: (event) => { set(key, event.target.checked); changed?.(); } }),
    h('span', {}, label, key === 'four' ? h('span.suit-preview', { 'aria-hidden': 'true' }, ['S', 'H', 'D', 'C'].map((s) => suitMark(s))) : null)));
  return h('details.bar-menu.options-menu', {}, h('summary', {}, 'Options'),
    h('div.bar-menu-items', { role: 'group', 'aria-label': 'Options' }, pick('theme', changed), pick('size', changed), rows));
}

function themeWords(el) {
  const values = CHOICES.theme[1];
  const now = values.findIndex(([value]) => value === choice('theme'));
  const [, nowText] = values[now];
  const [, nextText] = values[(now + 1) % values.length];
  el.querySelector('.sr-only').textContent = `Theme: ${nowText}`;
  el.title = `Theme: ${nowText}. Switch to ${nextText}`;
  el.dataset.themeChoice = values[now][0];
}

/** The bar's theme switch, for the pages without the Options menu: each press takes the next
 * theme (the system's, light, dark). */
export function themeSwitch() {
  const el = h('button.ghost.small.theme-switch', {
    type: 'button',
    onclick: () => {
      const values = CHOICES.theme[1].map(([value]) => value);
      set('theme', values[(values.indexOf(choice('theme')) + 1) % values.length]);
    },
  }, h('span', { 'aria-hidden': 'true' }, '◐'), h('span.sr-only'));
  themeWords(el);
  return el;
}

darkSystem.addEventListener('change', show);
show();
