// Moving between the pages (the lobby, tables and their records, players, the leaderboard),
// and the bar at the top of every page.

import { h, withSuits } from './dom.js';
import { t } from './i18n.js';
import { me } from './me.js';
import { themeSwitch } from './options.js';

export function go(path) {
  if (location.hash === `#${path}`) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = path;
}

export const tableLink = (code) => `${location.origin}/#/t/${code}`;

export const playerPath = (id) => `#/players/${encodeURIComponent(id)}`;

export const recordPath = (code) => `#/t/${encodeURIComponent(code)}/record`;

/** The rules, in a tab of their own from a table: leaving the table's page would drop its
 * stream, and a player gone from it long enough is covered by a bot. */
function rulesLink() {
  const atTable = location.hash.startsWith('#/t/');
  return h('a.bar-link', {
    href: '#/rules',
    target: atTable ? '_blank' : null,
    rel: atTable ? 'noopener' : null,
    'aria-current': location.hash.startsWith('#/rules') ? 'page' : null,
  }, t('Rules'));
}

export function bar(...middle) {
  const who = me();
  const link = (href, text) => h('a.bar-link', { href, 'aria-current': location.hash === href ? 'page' : null }, text);
  return h('header.bar', {},
    h('a.brand', { href: '#/', title: t('Back to the lobby') },
      h('svg.brand-mark', { viewBox: '0 0 100 100', 'aria-hidden': 'true' }, h('use', { href: '#suit-S' })),
      h('span', {}, t('Euchre Tables'))),
    h('div.bar-mid', {}, ...middle),
    h('nav.bar-links', { 'aria-label': t('Pages') },
      rulesLink(),
      link('#/leaderboard', t('Leaderboard')),
      who?.registered ? link(playerPath(who.id), t('My record')) : null),
    themeSwitch(),
    who ? h('span.bar-me', { title: t('You play as') }, who.name) : null);
}

/** A page with nothing to show: what is missing, why, and the way back. */
export function missingPage(title, words) {
  return h('main.missing', {}, h('h1', {}, title), h('p', {}, words),
    h('a.button.primary', { href: '#/' }, t('Back to the lobby')));
}

/** The page for a table code nobody opened: the table's page and its record both say it. */
export function noTablePage(code) {
  return missingPage(t('There is no table {code}', { code }), t('The link may be mistyped, or the table long gone.'));
}

/** A status line: what is happening, or what went wrong, in one sentence. */
export class StatusLine {
  constructor(cls = '') {
    this.el = h(`p.status${cls ? `.${cls}` : ''}`, { role: 'status', 'aria-live': 'polite', 'data-tone': 'info' });
    this.timer = null;
  }
  /** Say `text` (suits written {H} are drawn as marks); `hold` keeps it up that long. The
   * owner's `moment()`, if set, names what was going on when it was said (`said`). */
  say(text, tone = 'info', hold = 0) {
    clearTimeout(this.timer);
    this.said = this.moment?.();
    if (this.text !== text) {
      this.text = text;
      this.el.replaceChildren(...withSuits(text));
    }
    if (this.el.dataset.tone !== tone) this.el.dataset.tone = tone;
    this.sticky = tone === 'error' || hold > 0;
    if (hold) this.timer = setTimeout(() => { this.sticky = false; this.fallback?.(); }, hold);
  }
  error(err) { this.say(err?.message || String(err), 'error', 6000); }
}
