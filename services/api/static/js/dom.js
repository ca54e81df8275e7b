// Small DOM helpers: element building, redraw-only-what-changed, and suit marks.

import { t } from './i18n.js';

// An element is built before the parent it goes into, so SVG's own are known by name.
const SVG_TAGS = new Set(['svg', 'use', 'polyline', 'line']);

/** h('button.big', {onclick, 'data-key': 'P'}, 'Pass'): an element with attributes and children. */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split('.');
  const el = document.createElementNS(
    SVG_TAGS.has(tag) ? 'http://www.w3.org/2000/svg' : 'http://www.w3.org/1999/xhtml',
    tag || 'div',
  );
  if (classes.length) el.setAttribute('class', classes.join(' '));
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.setAttribute('class', [el.getAttribute('class'), v].filter(Boolean).join(' '));
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k === 'value') el.value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replace an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Remembers what each part of a screen was last drawn from, so a part is redrawn only when its
 * inputs change: an update that changes nothing visible touches no element and keeps focus.
 */
export class Parts {
  constructor() { this.keys = new Map(); }
  changed(name, ...inputs) {
    const key = JSON.stringify(inputs);
    if (this.keys.get(name) === key) return false;
    this.keys.set(name, key);
    return true;
  }
  forget(name) { if (name) this.keys.delete(name); else this.keys.clear(); }
}

export const SUIT_NAMES = { S: t('spades'), H: t('hearts'), D: t('diamonds'), C: t('clubs') };
export const isRed = (suit) => suit === 'H' || suit === 'D';

/** A suit mark drawn from the page's SVG symbols, coloured by the suit. */
export function suitMark(suit, cls = '') {
  if (suit === 'N') return h('span', { class: `suit notrump ${cls}`.trim(), role: 'img', 'aria-label': NO_TRUMP, title: t('No trump') }, 'NT');
  const svg = h('svg', { class: `suit ${isRed(suit) ? 'red' : 'black'} suit-${suit} ${cls}`.trim(), viewBox: '0 0 100 100', role: 'img', 'aria-label': SUIT_NAMES[suit] });
  svg.append(h('use', { href: `#suit-${suit}` }));
  return svg;
}

/** Text with suit marks: 'Called {H}' -> ['Called ', <svg>]; {N}, no trump, in words. */
export function withSuits(text) {
  return text.split(/(\{[SHDCN]\})/).filter(Boolean).map((part) => {
    const m = /^\{([SHDCN])\}$/.exec(part);
    if (!m) return part;
    return m[1] === 'N' ? NO_TRUMP : suitMark(m[1]);
  });
}

/** How a no-trump call (trump "N") is said. */
export const NO_TRUMP = t('no trump');

export function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }

export const reducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
/** A touch screen with no keyboard to press keys on: the query that hides key hints (base.css). */
export const touchOnly = () => window.matchMedia?.('(hover: none) and (pointer: coarse)').matches;

/** Copy text to the clipboard, falling back to a hidden textarea where the API is missing. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h('textarea', { style: { position: 'fixed', opacity: '0' } });
    area.value = text;
    document.body.append(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    area.remove();
    return ok;
  }
}
