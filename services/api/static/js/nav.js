// Moving between the lobby and tables, and the bar at the top of every page.

import { h, withSuits } from './dom.js';
import { me } from './me.js';

export function go(path) {
  if (location.hash === `#${path}`) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = path;
}

export const tableLink = (code) => `${location.origin}/#/t/${code}`;

export function bar(...middle) {
  const who = me();
  return h('header.bar', {},
    h('a.brand', { href: '#/', title: 'Back to the lobby' },
      h('svg.brand-mark', { viewBox: '0 0 100 100', 'aria-hidden': 'true' }, h('use', { href: '#suit-S' })),
      h('span', {}, 'Euchre Tables')),
    h('div.bar-mid', {}, ...middle),
    who ? h('span.bar-me', { title: 'You play as' }, who.name) : null);
}

/** A status line: what is happening, or what went wrong, in one sentence. */
export class StatusLine {
  constructor(cls = '') {
    this.el = h(`p.status${cls ? `.${cls}` : ''}`, { role: 'status', 'aria-live': 'polite', 'data-tone': 'info' });
    this.timer = null;
  }
  /** Say `text` (suits written {H} are drawn as marks); `hold` keeps it up that long. */
  say(text, tone = 'info', hold = 0) {
    clearTimeout(this.timer);
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
