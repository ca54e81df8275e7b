// Short banners over the table: a call, going alone, defending alone, a euchre, a march.
// Each waits its turn; one whose moment has passed (another deal is on) is dropped.

import { fill, h, reducedMotion, withSuits } from './dom.js';
import { option } from './options.js';

const SHOW = 2000;

export class Banners {
  /** `stillDue(banner)`: whether its moment hasn't passed; `place(el)`: puts the banner
   * where it hides nothing that matters, just before it shows. */
  constructor(stillDue, place) {
    this.el = h('div.banner', { hidden: true, role: 'status', 'aria-live': 'polite' });
    this.place = place;
    this.queue = [];
    this.running = false;
    this.waiters = [];
    this.stillDue = stillDue;
    this.current = null;
  }

  get busy() { return this.running || this.queue.length > 0; }

  add(banner) {
    if (!option('banners')) return;
    this.queue.push(banner);
    if (!this.running) this.run();
  }

  async run() {
    this.running = true;
    while (this.queue.length) {
      const b = this.queue.shift();
      if (!this.stillDue(b)) continue;
      this.current = b;
      this.el.dataset.tone = b.tone || 'call';
      // The space keeps the title and its line apart when read out; the grid ignores it.
      fill(this.el, h('strong', {}, withSuits(b.title)), b.text ? [' ', h('span', {}, withSuits(b.text))] : null);
      this.el.hidden = false;
      this.place?.(this.el);
      this.el.classList.remove('leaving');
      void this.el.offsetWidth;
      this.el.classList.add('showing');
      const hold = this.queue.length > 1 ? SHOW / 2 : SHOW;
      await new Promise((resolve) => { this.timer = setTimeout(resolve, reducedMotion() ? hold / 2 : hold); this.skip = resolve; });
      this.el.classList.remove('showing');
      this.el.hidden = true;
      this.current = null;
    }
    this.running = false;
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((resolve) => resolve());
  }

  /** Drop everything waiting (the result sheet is opening) and hide the one showing. */
  clear() {
    this.queue = [];
    clearTimeout(this.timer);
    this.skip?.();
  }

  idle() { return this.busy ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve(); }
}
