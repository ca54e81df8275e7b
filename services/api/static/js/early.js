// The look a player picked (kept by options.js), put on the page's root before its first paint.
// A module runs only once the whole page is parsed, so while options.js did this alone a page
// picked dark was drawn light first, and its cards at the normal size: this classic script runs
// where it stands in the head, and options.js calls it again after every pick.
'use strict';
globalThis.euchreLook = Object.assign(function look() {
  let picked = {};
  try {
    picked = JSON.parse(localStorage.getItem(look.KEY)) || {};
  } catch {
    // nothing kept, or storage refused: the system's theme and normal cards
  }
  const root = document.documentElement;
  const system = matchMedia('(prefers-color-scheme: dark)').matches;
  const dark = picked.theme === 'dark' || (picked.theme !== 'light' && system);
  root.dataset.theme = dark ? 'dark' : 'light';
  root.dataset.cardSize = ['small', 'large'].includes(picked.size) ? picked.size : 'normal';
  // The browser's own controls (form fields, scroll bars) drawn to match.
  document.querySelector('meta[name="color-scheme"]')?.setAttribute('content', dark ? 'dark' : 'light');
}, { KEY: 'euchre.options' });
globalThis.euchreLook();
