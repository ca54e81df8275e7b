// A player's own options: each helper and the banners can be turned off, the your-turn sound,
// the four-colour deck, the left-handed layout and hints against bots on; the theme (the system's, light or dark)
// and the cards' size are picked. They are kept in this browser, so a choice outlasts a
// reload, and they are set on the page's root (data-help-*, data-theme, data-card-size) for
// the styles that draw them. The language is kept by i18n.js, and picked here when the page
// offers more than English.

import { fill, h, suitMark } from './dom.js';
import { language, offeredLanguages, pickLanguage, t } from './i18n.js';

// The picks' key, and what draws them on the page's root: early.js, in the head.
const look = globalThis.euchreLook;
const KEY = look.KEY;

export const OPTIONS = [
  ['playable', t('Light up the cards I can play')],
  ['partner', t('Say when my partner is winning the trick')],
  ['bower', t('Mark the bowers')],
  ['banners', t('Banners for calls, loners and results')],
  ['sound', t('A sound when it is my turn')],
  ['four', t('Four-colour deck: diamonds blue, clubs green')],
  ['left', t('Left-handed: the score and my moves on the left')],
  ['hints', t('Hints against bots (a win after a hint isn’t rated)')],
];
// Options that stay off until the player turns them on.
const OFF_UNTIL_ASKED = new Set(['sound', 'four', 'left', 'hints']);

// Options picked from a few: the first of each is what a player has until they pick.
const CHOICES = {
  theme: [t('Theme'), [['system', t('System')], ['light', t('Light')], ['dark', t('Dark')]]],
  size: [t('Cards'), [['normal', t('Normal')], ['small', t('Small')], ['large', t('Large')]]],
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
  look();
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

/** The language pick, shown once the server says the page is offered in more than English. */
function languagePick() {
  const el = h('div.option-pick.language-pick', { hidden: true });
  offeredLanguages().then((offered) => {
    if (offered.length < 2) return;
    el.hidden = false;
    fill(el, h('span', { id: 'option-language-label' }, t('Language')),
      h('div.seg', { role: 'radiogroup', 'aria-labelledby': 'option-language-label' }, offered.map((l) => h('label', { lang: l.code },
        h('input', { type: 'radio', name: 'option-language', value: l.code, checked: language() === l.code, onchange: () => pickLanguage(l.code) }),
        h('span', {}, l.name)))));
  });
  return el;
}

/** The bar's Options menu; `changed` redraws what the options decide. */
export function optionsMenu(changed) {
  show();
  const rows = OPTIONS.map(([key, label]) => h('label.option-row', {},
    h('input', { type: 'checkbox', name: `option-${key}`, checked: option(key), onchange: (event) => { set(key, event.target.checked); changed?.(); } }),
    h('span', {}, label, key === 'four' ? h('span.suit-preview', { 'aria-hidden': 'true' }, ['S', 'H', 'D', 'C'].map((s) => suitMark(s))) : null)));
  return h('details.bar-menu.options-menu', {}, h('summary', {}, t('Options')),
    h('div.bar-menu-items', { role: 'group', 'aria-label': t('Options') }, pick('theme', changed), pick('size', changed), languagePick(), rows));
}

function themeWords(el) {
  const values = CHOICES.theme[1];
  const now = values.findIndex(([value]) => value === choice('theme'));
  const [, nowText] = values[now];
  const [, nextText] = values[(now + 1) % values.length];
  el.querySelector('.sr-only').textContent = t('Theme: {theme}', { theme: nowText });
  el.title = t('Theme: {theme}. Switch to {next}', { theme: nowText, next: nextText });
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
