// The review after each hand in words (docs/bots.md "The review after each hand"): a line for
// the call (and any pass that likely cost), judged over likely deals from what its bidder
// knew, and a line for each card that cost its side tricks, with the cards that would have
// kept them, judged with every hand open; said from the viewer's seat ("your") where there is
// one, by names otherwise.

import { api, settled } from './api.js';
import { miniCard } from './cards.js';
import { fill, h, withSuits } from './dom.js';
import { t, tParts } from './i18n.js';
import { nameOf } from './seats.js';
import { NUMBERS } from './words.js';

/** Hand `handNo`'s review once the worker has done it (a moment after the hand is scored;
 * until then GET .../reviews leaves it out), or null when it isn't in within a while. */
export function settledReview(code, handNo, wanted) {
  return settled(async () => (await api.reviews(code)).hands.find((r) => r.hand_no === handNo) ?? null, wanted);
}

const tricks = (n) => (n === 1 ? t('a trick') : t('{count} tricks', { count: NUMBERS[n] }));

/** "A♠", "A♠ or Q♥", "A♠, K♣ or Q♥", as cards. */
function either(cards, trump) {
  const or = ' ' + t('or') + ' ';
  return cards.flatMap((c, i) => [i === 0 ? null : i === cards.length - 1 ? or : ', ', miniCard(c, trump)]);
}

/** The costly cards of a hand's review, each as its line's parts. */
export function reviewLines(v, review) {
  return review.cards.filter((c) => c.after < c.before).map((c) => {
    const cost = c.before - c.after;
    const values = { name: nameOf(v, c.seat), card: miniCard(c.card, review.trump), trick: c.trick, tricks: tricks(cost), better: either(c.better, review.trump) };
    let parts;
    if (v.you === c.seat) {
      parts = cost === 1 ? tParts('Your {card} on trick {trick} cost {tricks}: {better} would have kept it.', values)
        : tParts('Your {card} on trick {trick} cost {tricks}: {better} would have kept them.', values);
    } else {
      parts = cost === 1 ? tParts('{name}’s {card} on trick {trick} cost {tricks}: {better} would have kept it.', values)
        : tParts('{name}’s {card} on trick {trick} cost {tricks}: {better} would have kept them.', values);
    }
    return { card: c, parts };
  });
}

/** How each part of the review judges, said once above it. */
export const REVIEW_HOW = t('Each card is judged with every hand open (perfect information); each bid over likely deals '
  + 'from what its bidder knew then: their own cards, the up card and the bids before.');

/** Points on average, signed: "+1.3", "−0.4". */
const signed = (p) => (p < 0 ? `−${(-p).toFixed(1)}` : `+${p.toFixed(1)}`);

/** A bid as the review names it: "passing", "ordering up {S} alone", "calling {H} with a partner". */
function bidding(o, made) {
  if (o.bid === 'pass') return t('passing');
  const suit = `{${o.suit}}`;
  if (o.bid === 'order') {
    return o.alone ? t('ordering up {suit} alone', { suit }) : made.alone ? t('ordering up {suit} with a partner', { suit }) : t('ordering up {suit}', { suit });
  }
  return o.alone ? t('calling {suit} alone', { suit }) : made.alone ? t('calling {suit} with a partner', { suit }) : t('calling {suit}', { suit });
}

/** The judged bids of a hand's review, each as its line's words (suits written {S}). */
export function bidLines(v, review) {
  // A bid with nothing to weigh it by (a stuck dealer's call) has no verdict to draw.
  return (review.bids ?? []).filter((b) => b.others.length).map((b) => {
    const mine = v.you === b.seat;
    const name = nameOf(v, b.seat);
    const made = b.made;
    let what;
    if (made.bid === 'pass') {
      what = b.round === 1 ? (mine ? t('Your pass in round one') : t('{name}’s pass in round one', { name }))
        : (mine ? t('Your pass in round two') : t('{name}’s pass in round two', { name }));
    } else {
      what = mine ? t('Your call, {bid},', { bid: bidding(made, made) }) : t('{name}’s call, {bid},', { name, bid: bidding(made, made) });
    }
    const values = { what, points: signed(made.points), deals: b.deals, name };
    const worth = mine ? t('{what} was worth {points} points on average over {deals} likely deals from what you knew', values)
      : t('{what} was worth {points} points on average over {deals} likely deals from what {name} knew', values);
    const euchred = made.bid === 'pass' ? '' : ', ' + (made.euchred ? t('euchred in {count} of them', { count: made.euchred }) : t('never euchred'));
    const others = b.others.map((o) => `${bidding(o, made)}: ${signed(o.points)}`).join('; ');
    const best = b.others.reduce((x, o) => (o.points > x.points ? o : x), b.others[0]);
    const better = { bid: bidding(best, made) };
    const verdict = !b.costly ? t('A sound call.')
      : made.bid === 'pass' ? t('That pass cost points: {bid} was the better bid.', better) : t('That call cost points: {bid} was the better bid.', better);
    return { bid: b, words: `${worth}${euchred}; ${others}. ${verdict}` };
  });
}

/** The review: how it judges, its bids' lines, then its cards' lines or a word that nothing
 * cost a trick (nor the call, unless it did). */
export function reviewList(v, review) {
  const bids = bidLines(v, review);
  const lines = reviewLines(v, review);
  const callCost = (review.bids ?? []).some((b) => b.costly && b.made.bid !== 'pass');
  return h('div.review-body', {},
    h('p.review-how', {}, REVIEW_HOW),
    bids.length ? h('ul.review-bids', { 'data-hand': review.hand_no },
      bids.map(({ bid, words }) => h('li', { 'data-seat': bid.seat, 'data-costly': String(bid.costly) }, withSuits(words)))) : null,
    lines.length
      ? h('ul.review-lines', { 'data-hand': review.hand_no },
        lines.map(({ card, parts }) => h('li', { 'data-seat': card.seat, 'data-card': card.card, 'data-trick': card.trick }, parts)))
      : h('p.review-none', { 'data-hand': review.hand_no }, callCost
        ? t('No card cost a trick: the call did.')
        : t('No card cost a trick: every one was as good as any other its player held.')));
}

/** Fill the sheet's review (kept across redraws, so its news is announced when it comes). */
export function drawReview(el, v, review, late) {
  el.dataset.review = review ? 'in' : late ? 'late' : 'pending';
  fill(el, h('h3', {}, t('The review')),
    review ? reviewList(v, review)
      : h('p.hint', {}, late ? t('The review isn’t in yet: it will show in the game record.') : t('Reviewing the hand…')));
}
