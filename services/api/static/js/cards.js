// Cards: faces drawn in HTML and SVG, the hand's order (trump first), and the bowers.

import { h, isRed, suitMark, SUIT_NAMES } from './dom.js';
import { t, tc } from './i18n.js';

export const RANKS = '9TJQKA';
const RANK_LABEL = { 9: '9', T: '10', J: 'J', Q: 'Q', K: 'K', A: 'A' };
const SUIT_SYMBOL = { S: '♠', H: '♥', D: '♦', C: '♣' };

export const rankOf = (card) => card[0];
export const suitOf = (card) => card[1];
export const rankLabel = (card) => RANK_LABEL[card[0]];

/** A card as its corner shows it: "J♠", "10♥". */
export const cardShort = (card) => `${rankLabel(card)}${SUIT_SYMBOL[suitOf(card)]}`;

/** The other suit of the same colour: clubs for spades, diamonds for hearts. */
export const sameColour = (suit) => ({ S: 'C', C: 'S', H: 'D', D: 'H' })[suit];

export const isRight = (card, trump) => !!trump && card === `J${trump}`;
export const isLeft = (card, trump) => !!trump && card === `J${sameColour(trump)}`;

/** The suit a card belongs to once trump is known: the left bower is a trump. */
export const effectiveSuit = (card, trump) => (isLeft(card, trump) ? trump : suitOf(card));

/** A card's name: "nine of clubs", "the left bower (jack of diamonds)". A name of its own for
 * each rank, for the languages whose words change with it. */
export function cardName(card, trump) {
  const suit = SUIT_NAMES[suitOf(card)];
  if (isRight(card, trump)) return t('the right bower (jack of {suit})', { suit });
  if (isLeft(card, trump)) return t('the left bower (jack of {suit})', { suit });
  return {
    9: () => t('nine of {suit}', { suit }),
    T: () => t('ten of {suit}', { suit }),
    J: () => t('jack of {suit}', { suit }),
    Q: () => t('queen of {suit}', { suit }),
    K: () => t('king of {suit}', { suit }),
    A: () => t('ace of {suit}', { suit }),
  }[rankOf(card)]();
}

/** A card as a sentence names it: "the nine of clubs", "the left bower (jack of diamonds)". */
export function theCard(card, trump) {
  const suit = SUIT_NAMES[suitOf(card)];
  if (isRight(card, trump) || isLeft(card, trump)) return cardName(card, trump);
  return {
    9: () => t('the nine of {suit}', { suit }),
    T: () => t('the ten of {suit}', { suit }),
    J: () => t('the jack of {suit}', { suit }),
    Q: () => t('the queen of {suit}', { suit }),
    K: () => t('the king of {suit}', { suit }),
    A: () => t('the ace of {suit}', { suit }),
  }[rankOf(card)]();
}

function power(card, trump) {
  if (isRight(card, trump)) return 20;
  if (isLeft(card, trump)) return 19;
  return RANKS.indexOf(rankOf(card));
}

/** Who is winning the trick so far: the best trump, or else the best card of the suit led. */
export function winningSeat(trick, trump) {
  const led = effectiveSuit(trick[0].card, trump);
  const strength = (card) => {
    const s = effectiveSuit(card, trump);
    if (s === trump) return 100 + power(card, trump);
    return s === led ? 50 + power(card, trump) : 0;
  };
  return trick.reduce((best, p) => (strength(p.card) > strength(best.card) ? p : best)).seat;
}

/**
 * The hand's order: trump first (the left bower with it, bowers high), then the other suits
 * with colours alternating where the cards allow; before trump, spades, hearts, clubs,
 * diamonds. Within a suit, high to low.
 */
export function sortHand(cards, trump) {
  const groups = new Map();
  for (const c of cards) {
    const s = effectiveSuit(c, trump);
    if (!groups.has(s)) groups.set(s, []);
    groups.get(s).push(c);
  }
  const rest = ['S', 'H', 'C', 'D'].filter((s) => s !== trump && groups.has(s));
  let best = rest;
  let bestClashes = Infinity;
  for (const order of permutations(rest)) {
    const line = trump && groups.has(trump) ? [trump, ...order] : order;
    let clashes = 0;
    for (let i = 1; i < line.length; i += 1) if (isRed(line[i]) === isRed(line[i - 1])) clashes += 1;
    if (clashes < bestClashes) { best = order; bestClashes = clashes; }
  }
  const suits = trump && groups.has(trump) ? [trump, ...best] : best;
  return suits.flatMap((s) => groups.get(s).sort((a, b) => power(b, trump) - power(a, trump)));
}

function permutations(items) {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [x, ...p]));
}

// Pip layouts for the 9 and 10, in percent of the face's inner box.
const PIPS = {
  9: [[25, 10], [25, 37], [25, 63], [25, 90], [75, 10], [75, 37], [75, 63], [75, 90], [50, 50]],
  T: [[25, 10], [25, 37], [25, 63], [25, 90], [75, 10], [75, 37], [75, 63], [75, 90], [50, 24], [50, 76]],
};

/** A card face (or its back, for `null`). Extra attributes go on the outer element; `flag` is
 * a word pinned to the face ("Picked up").
 *
 * The name starts with the text the face shows (its corner, the bower's tag, the flag), so
 * someone who names what they see, as voice control does, names the card; the words after
 * say what it is. The rank drawn again (the turned corner, a court card's middle) and its key
 * are drawn by CSS, so they don't count as its text twice. */
export function cardFace(card, { trump = null, tag = 'div', attrs = {}, cls = '', flag = null } = {}) {
  if (!card) return h(`${tag}.card.back${cls ? `.${cls}` : ''}`, { role: 'img', 'aria-label': t('a card, face down'), ...attrs });
  const suit = suitOf(card);
  const rank = rankOf(card);
  const colour = isRed(suit) ? 'red' : 'black';
  const corner = (where, attrs, text) => h(`span.corner.${where}`, {}, h('b', attrs, text), suitMark(suit));
  let middle;
  if (PIPS[rank]) {
    middle = h('span.pips', {}, PIPS[rank].map(([x, y]) =>
      h('span.pip', { style: { left: `${x}%`, top: `${y}%` }, class: y > 55 ? 'flip' : '' }, suitMark(suit))));
  } else if (rank === 'A') {
    middle = h('span.ace', {}, suitMark(suit));
  } else {
    middle = h('span.court', {}, h('b', { 'data-rank': rank }), suitMark(suit));
  }
  const bower = isLeft(card, trump) ? h('span.bower', { title: t('The left bower counts as trump') }, tc('bower', 'Left'))
    : isRight(card, trump) ? h('span.bower.right', { title: t('The right bower: the highest card') }, tc('bower', 'Right')) : null;
  const shown = [cardShort(card), bower?.textContent, flag].filter(Boolean).join(' ');
  // The spaces keep the face's words apart as they are read: "J Left", not "JLeft".
  return h(`${tag}.card.${colour}${cls ? `.${cls}` : ''}`, {
    'data-card': card,
    'aria-label': `${shown}, ${cardName(card, trump)}`,
    role: tag === 'button' ? null : 'img',
    ...attrs,
  }, corner('tl', {}, rankLabel(card)), h('span.mid', {}, middle, h('span.solo', {}, suitMark(suit))),
  corner('br', { 'data-rank': rankLabel(card) }),
  bower ? [' ', bower] : null, flag ? [' ', h('span.flag', {}, flag)] : null);
}

/** A small inline card for text and the rail: "J" and a suit mark; named as a bower once
 * `trump` is known. */
export function miniCard(card, trump = null) {
  if (!card) return h('span.mini.back', { role: 'img', 'aria-label': t('a card, face down') });
  return h(`span.mini.${isRed(suitOf(card)) ? 'red' : 'black'}`, { 'data-card': card, role: 'img', 'aria-label': `${cardShort(card)}, ${cardName(card, trump)}` },
    h('b', {}, rankLabel(card)), suitMark(suitOf(card)));
}
