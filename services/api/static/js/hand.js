// Your hand: in the order chosen (handorder.js), the cards you may play lit and the rest
// dimmed, keys 1 to 6 by the place shown. Tapping plays a card, picks the one to bury (Bury
// then buries it), or picks three to swap.

import { cardFace } from './cards.js';
import { t } from './i18n.js';
import { fill, h } from './dom.js';

/** What the hand is for right now, and which cards that allows. */
export function handMode(v) {
  const can = v.can || {};
  if (can.play) return { mode: 'play', legal: can.play.cards };
  if (can.discard) return { mode: 'discard', legal: can.discard.cards };
  if (can.farmer) return { mode: 'farmer', legal: can.farmer.cards };
  return { mode: null, legal: [] };
}

export function handKey(v, cards, sort, selected, pending) {
  return [cards, sort, v.trump, v.deal_no, handMode(v), [...selected], pending, v.you, v.sitting, v.kitty_state, v.up, v.status];
}

/** `cards`: the hand in the order shown; `sort`: 'suit' or 'mine' (cards are dragged in
 * 'mine'). `held`: your turn to play, but the table is still showing the cards before it, so
 * nothing is offered yet. */
export function drawHand(el, v, { cards, sort, selected, pending, held = false, dealt, onCard }) {
  if (v.you === null) {
    el.dataset.mode = 'watching';
    fill(el, h('p.watching', {}, t('You’re watching this table.')));
    return;
  }
  const { mode, legal } = held ? { mode: null, legal: [] } : handMode(v);
  const sittingOut = v.sitting.includes(v.you);
  el.dataset.mode = mode || 'wait';
  el.dataset.sort = sort;
  el.classList.toggle('sitting-out', sittingOut);
  el.style.setProperty('--n', cards.length);
  fill(el, cards.map((card, i) => {
    const ok = legal.includes(card);
    const attrs = {
      type: 'button',
      'data-index': i,
      'data-key': i < 6 ? String(i + 1) : null,
      'data-legal': mode ? String(ok) : null,
      'aria-disabled': (mode && !ok) || pending || sittingOut ? 'true' : null,
      'aria-pressed': mode === 'farmer' || mode === 'discard' ? String(selected.has(card)) : null,
      onclick: () => onCard(card),
      style: dealt ? { animationDelay: `${i * 70}ms` } : null,
    };
    const classes = [mode ? (ok ? 'lit' : 'dim') : '', selected.has(card) ? 'selected' : '', dealt ? 'dealt' : ''].filter(Boolean).join('.');
    const flag = mode === 'discard' && card === v.up ? t('Picked up') : null;
    const el2 = cardFace(card, { tag: 'button', trump: v.trump, attrs, cls: classes, flag });
    if (i < 6) el2.append(h('kbd.cardkey', { 'aria-hidden': 'true', 'data-hint': String(i + 1) }));
    return el2;
  }), sittingOut ? h('p.sitting-note', {}, t('Your partner is going alone: you sit this hand out.')) : null);
}
