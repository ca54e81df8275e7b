// The rules page: docs/euchre.md as the server renders it, the same page the engine agrees
// with line for line, or its translation in the page's language (api.js says which the page
// is shown in). A section is addressed as #/rules/SECTION (its heading's id less "rule-", the
// same in every language), so the page's own links and a link shared from outside both land
// on it.

import { api } from './api.js';
import { fill, h } from './dom.js';
import { t } from './i18n.js';
import { bar, StatusLine } from './nav.js';

let kept = null; // the page, fetched once: it changes only with a new deploy

/** The heading of the section `el` is in. */
function sectionOf(el) {
  let at = el;
  while (at && !/^H[1-6]$/.test(at.tagName)) at = at.previousElementSibling;
  return at?.textContent ?? t('Rules');
}

export function mountRulesPage(root, section) {
  root.dataset.view = 'loading';
  const status = new StatusLine('rules-status');
  const article = h('article.rules-text', { 'aria-busy': 'true' }, h('p.empty', {}, t('Fetching the rules…')));
  let gone = false;
  fill(root, bar(), h('main.rules-page', {}, status.el, article));

  (async () => {
    try {
      kept ??= await api.rules();
      if (gone) return;
      article.innerHTML = kept.html; // our own docs/euchre*.md, rendered without raw HTML
      article.lang = kept.language; // English where the server has no translation
      article.removeAttribute('aria-busy');
      // A wide table or block of code scrolls on its own, and a keyboard can reach it to
      // scroll; each is named by its section, so the regions can be told apart.
      const named = new Map();
      for (const wide of article.querySelectorAll('table, pre')) {
        const section = sectionOf(wide);
        const n = (named.get(section) ?? 0) + 1;
        named.set(section, n);
        const label = wide.tagName === 'TABLE' ? t('{section}: table {number}', { section, number: n }) : t('{section}: example {number}', { section, number: n });
        const wrap = h('div.rules-wide', { tabindex: '0', role: 'region', 'aria-label': label });
        wide.before(wrap);
        wrap.append(wide);
      }
      root.dataset.view = 'rules';
      const target = section && document.getElementById(`rule-${section}`);
      if (target) {
        target.setAttribute('tabindex', '-1');
        target.scrollIntoView();
        target.focus({ preventScroll: true });
      }
    } catch (err) {
      if (!gone) status.error(err);
    }
  })();
  return () => { gone = true; };
}
