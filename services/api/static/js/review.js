// The review after each hand in words (docs/bots.md "The review after each hand"): a line for
// each card that cost its side tricks, with the cards that would have kept them; said from the
// viewer's seat ("your") where there is one, by names otherwise.

import { api, settled } from './api.js';
import { miniCard } from './cards.js';
import { fill, h } from './dom.js';
import { nameOf } from './seats.js';
import { NUMBERS } from './words.js';

/** Hand `handNo`'s review once the worker has done it (a moment after the hand is scored;
 * until then GET .../reviews leaves it out), or null when it isn't in within a while. */
export function settledReview(code, handNo, wanted) {
  return settled(async () => (await api.reviews(code)).hands.find((r) => r.hand_no === handNo) ?? null, wanted);
}

const tricks = (n) => (n === 1 ? 'a trick' : `${NUMBERS[n]} tricks`);

/** "A♠", "A♠ or Q♥", "A♠, K♣ or Q♥", as cards. */
function either(cards, trump) {
  return cards.flatMap((c, i) => [i === 0 ? null : i === cards.length - 1 ? ' or ' : ', ', miniCard(c, trump)]);
}

/** The costly cards of a hand's review, each as its line's parts. */
export function reviewLines(v, review) {
  const owner = (seat) => (v.you === seat ? 'Your' : `${nameOf(v, seat)}’s`);
  return review.cards.filter((c) => c.after < c.before).map((c) => {
    const cost = c.before - c.after;
    return {
      card: c,
      parts: [`${owner(c.seat)} `, miniCard(c.card, review.trump), ` on trick ${c.trick} cost ${tricks(cost)}: `,
        ...either(c.better, review.trump), ` would have kept ${cost === 1 ? 'it' : 'them'}.`],
    };
  });
}

/** The review's lines as a list, or a word that nothing cost a trick. */
export function reviewList(v, review) {
  const lines = reviewLines(v, review);
  if (!lines.length) return h('p.review-none', { 'data-hand': review.hand_no }, 'No card cost a trick: every one was as good as any other its player held.');
  return h('ul.review-lines', { 'data-hand': review.hand_no },
    lines.map(({ card, parts }) => h('li', { 'data-seat': card.seat, 'data-card': card.card, 'data-trick': card.trick }, parts)));
}

/** Fill the sheet's review (kept across redraws, so its news is announced when it comes). */
export function drawReview(el, v, review, late) {
  el.dataset.review = review ? 'in' : late ? 'late' : 'pending';
  fill(el, h('h3', {}, 'The review'),
    review ? reviewList(v, review)
      : h('p.hint', {}, late ? 'The review isn’t in yet: it will show in the game record.' : 'Reviewing the hand…'));
}
