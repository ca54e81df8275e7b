// Table motion: a queue of cues played one after another (a card flies in, a trick is swept),
// so the table lags the server by its animations only.

import { reducedMotion } from './dom.js';

const SKIP_AT = 12; // this many waiting: show the table as it is

export class Cues {
  constructor() {
    this.queue = [];
    this.running = false;
    this.waiters = [];
    this.hurry = () => false;
  }

  get busy() { return this.running || this.queue.length > 0; }

  /** Queue a cue: an async function given a speed factor (1 normal, smaller is faster). */
  add(run, { held = false } = {}) {
    this.queue.push({ run, held });
    if (this.queue.length >= SKIP_AT) this.onSkip?.();
    if (!this.running) this.play();
  }

  async play() {
    this.running = true;
    this.onchange?.(true);
    while (this.queue.length) {
      const cue = this.queue.shift();
      // Catching up: while more waits behind, or it's your turn, cards land quicker. A held
      // cue (a trick's sweep) keeps a readable pace so a lead never just appears.
      // A tab in the background shows nothing, so it plays nothing: it catches up at once.
      // Reduced motion keeps the time and drops the movement (animate, below).
      let speed = document.hidden ? 0 : 1;
      // With reduced motion a held cue is a still trick, seen for its whole time.
      if (speed && (this.queue.length > 3 || this.hurry())) {
        speed = cue.held ? (reducedMotion() ? 1 : 0.6) : 0.35;
      }
      try { await cue.run(speed); } catch { /* an element went away mid-flight: carry on */ }
    }
    this.running = false;
    this.onchange?.(false);
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((resolve) => resolve());
  }

  /** Drop what is waiting; the caller draws the end state. */
  clear() { this.queue = []; }

  idle() { return this.busy ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve(); }
}

/** Animate an element and wait for it (Web Animations), or do nothing at speed 0. With
 * reduced motion the element stays still for as long as it would have moved: a card that
 * lands or a trick that is swept still takes its time, so every step can be seen. */
export function animate(el, frames, duration, speed, easing = 'cubic-bezier(.2,.7,.2,1)') {
  if (!speed) return Promise.resolve();
  if (reducedMotion() || !el.animate) return pause(duration, speed);
  const a = el.animate(frames, { duration: duration * speed, easing, fill: 'both' });
  return a.finished.catch(() => {});
}

export const pause = (ms, speed) => new Promise((resolve) => setTimeout(resolve, ms * speed));

/** The translation that puts `el`'s centre on `target`'s centre. */
export function offsetTo(el, target, scale = 1) {
  const a = el.getBoundingClientRect();
  const b = target.getBoundingClientRect();
  const dx = (b.left + b.width / 2) - (a.left + a.width / 2);
  const dy = (b.top + b.height / 2) - (a.top + a.height / 2);
  return `translate(${dx * scale}px, ${dy * scale}px)`;
}
