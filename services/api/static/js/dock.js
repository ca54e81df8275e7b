// The dock under the table: a status line saying what is happening or what to do, and the
// moves open to you as buttons, each showing its key.

import { api } from './api.js';
import { effectiveSuit, winningSeat } from './cards.js';
import { fill, h, touchOnly, withSuits } from './dom.js';
import { keycap } from './keys.js';
import { handSort } from './handorder.js';
import { t } from './i18n.js';
import { option } from './options.js';
import { nameOf, ourTeam, teamMembers } from './seats.js';

/** What the status line says when nothing has gone wrong. */
export function statusText(v) {
  const can = v.can || {};
  const name = (seat) => nameOf(v, seat);
  if (v.closed) return t('The house closed this table: {reason}', { reason: v.closed });
  if (v.status === 'over') {
    const [a, b] = [v.score[v.winner], v.score[1 - v.winner]];
    if (v.you === null) return t('{names} won, {score}–{other}.', { names: teamMembers(v, v.winner), score: a, other: b });
    return v.winner === ourTeam(v) ? t('We won, {score}–{other}!', { score: a, other: b }) : t('They won, {score}–{other}.', { score: a, other: b });
  }
  if (v.you !== null && v.seats[v.you].away) {
    return v.seats[v.you].left
      ? t('You left: a bot plays for you until you sit back down.')
      : t('You were away, so a bot is playing for you: make a move to take your seat back.');
  }
  if (can.farmer) return t('A farmer’s hand! Pick three cards to swap for the kitty, or keep your hand.');
  if (can.order) {
    const suit = `{${v.up[1]}}`;
    if (can.order.must_alone) return t('Your partner deals: you may only order up {suit} by going alone. Or pass.', { suit });
    return v.you === v.dealer ? t('Your bid: pick up the {suit}, or pass.', { suit }) : t('Your bid: order up {suit} for {name}, or pass.', { suit, name: nameOf(v, v.dealer) });
  }
  if (can.call) {
    if (!can.pass) return t('Everyone passed and you deal: you must call trump.');
    const suit = `{${v.up[1]}}`;
    if (can.call.suits.includes('N')) return t('Round two: call any suit but {suit}, no trump, or pass.', { suit });
    return t('Round two: call any suit but {suit}, or pass.', { suit });
  }
  if (can.discard) {
    const suit = `{${v.up[1]}}`;
    return touchOnly() ? t('You picked up the {suit}. Pick the card to bury (tap it), then Bury.', { suit })
      : t('You picked up the {suit}. Pick the card to bury (click it or press 1–6), then Bury.', { suit });
  }
  if (can.defend) return t('{name} is going alone. Defend alone against them?', { name: name(v.alone) });
  if (can.play) {
    if (!v.trick.length) return t('Your lead: tap a card or press its number.');
    const led = effectiveSuit(v.trick[0].card, v.trump);
    const follow = can.play.cards.some((c) => effectiveSuit(c, v.trump) === led);
    const partner = option('partner') && winningSeat(v.trick, v.trump) === (v.you + 2) % 4 ? ' ' + t('Your partner is winning it.') : '';
    const suit = `{${led}}`;
    return (follow ? t('Your turn: follow {suit}.', { suit }) : t('Your turn: no {suit} in your hand, so any card goes.', { suit })) + partner;
  }
  if (v.phase === 'reveal') return t('Shuffling: each player’s sealed seed is being revealed…');
  if (v.phase === 'scored') {
    if (can.ready) return t('Hand over. Ready for the next one?');
    const waiting = [0, 1, 2, 3].filter((n) => !v.ready[n]).map(name);
    return waiting.length ? t('Waiting for {names} to be ready…', { names: waiting.join(', ') }) : t('Dealing…');
  }
  if (v.turn === null) return '';
  const who = name(v.turn);
  const doing = {
    farmer: t('{name} has a farmer’s hand…', { name: who }),
    bid1: t('{name} is bidding…', { name: who }),
    bid2: t('{name} is choosing trump…', { name: who }),
    discard: t('{name} is burying a card…', { name: who }),
    defend: t('{name} is deciding whether to defend alone…', { name: who }),
    play: v.trick.length ? t('{name} to play…', { name: who }) : t('{name} to lead…', { name: who }),
  }[v.phase];
  return v.you === null ? t('Watching.') + ' ' + (doing || '') : doing || '';
}

/** The moves open to you now, each showing its key, the Go alone toggle and the sort. */
export function drawMoves(game, v, host) {
  const can = v.can || {};
  const slot = (child) => h('div.slot-move', {}, child);
  const button = (label, key, onclick, attrs = {}) => h('button', { type: 'button', 'data-key': key, disabled: game.pending, onclick, ...attrs }, withSuits(label), key ? keycap(key) : null);
  const aloneToggle = (allowed, forced) => (allowed ? h('button.toggle', {
    type: 'button', 'data-key': 'A', 'aria-pressed': String(forced || game.alone), disabled: forced || game.pending, name: 'alone',
    title: forced ? t('Your partner deals: ordering up means going alone') : t('Play this hand without your partner'),
    onclick: () => { game.alone = !game.alone; game.draw(); },
  }, forced || game.alone ? t('Going alone') : t('Go alone'), keycap('A')) : null);
  let slots = [];
  let extra = null;
  game.movesEl.dataset.kind = Object.keys(can).join(' ') || 'none';
  if (can.order) {
    const suit = v.up[1];
    const alone = can.order.must_alone || game.alone;
    const values = { suit: `{${suit}}` };
    const label = v.you === v.dealer
      ? (alone ? t('Pick up {suit} alone', values) : t('Pick up {suit}', values))
      : (alone ? t('Order up {suit} alone', values) : t('Order up {suit}', values));
    slots = [null, null,
      button(label, suit, () => game.send({ type: 'order', alone }), { class: 'primary', 'data-move': 'order', 'data-suit': suit }),
      button(t('Pass'), 'P', () => game.send({ type: 'pass' }), { 'data-move': 'pass' })];
    extra = aloneToggle(can.order.alone || can.order.must_alone, can.order.must_alone);
  } else if (can.call) {
    const alone = game.alone;
    slots = can.call.suits.map((suit) => button(alone ? t('Call {suit} alone', { suit: `{${suit}}` }) : t('Call {suit}', { suit: `{${suit}}` }), suit, () => game.send({ type: 'call', suit, alone }), { class: 'primary', 'data-move': 'call', 'data-suit': suit }));
    slots.push(can.pass
      ? button(t('Pass'), 'P', () => game.send({ type: 'pass' }), { 'data-move': 'pass' })
      : h('button', { type: 'button', disabled: true, title: t('The dealer must call trump'), 'data-move': 'pass' }, t('Can’t pass')));
    extra = aloneToggle(can.call.alone, false);
  } else if (can.defend) {
    slots = [null, null,
      button(t('Defend alone'), 'A', () => game.send({ type: 'defend', alone: true }), { class: 'primary', 'data-move': 'defend-alone' }),
      button(t('With partner'), 'P', () => game.send({ type: 'defend', alone: false }), { 'data-move': 'defend' })];
  } else if (can.discard) {
    const [card] = game.selected;
    slots = [null, null,
      button(card ? t('Bury {card}', { card: `${card[0] === 'T' ? '10' : card[0]}{${card[1]}}` }) : t('Bury'), 'B', () => game.send({ type: 'discard', card }), { class: 'primary', disabled: game.pending || !card, 'data-move': 'discard' }),
      button(t('Change my mind'), 'U', () => { game.selected.clear(); game.draw(); }, { disabled: game.pending || !card, 'data-move': 'undo-discard' })];
  } else if (can.farmer) {
    slots = [null, null,
      button(t('Swap these three'), 'W', () => game.send({ type: 'farmer', cards: [...game.selected] }), { class: 'primary', disabled: game.pending || game.selected.size !== 3, 'data-move': 'farmer-swap' }),
      button(t('Keep my hand'), 'K', () => game.send({ type: 'farmer', cards: [] }), { 'data-move': 'farmer-keep' })];
  } else if (can.claim) {
    const title = t('Claim every trick left for your side: taken only if it is certain from your own cards');
    slots = [button(t('Claim the rest'), 'C', () => game.send({ type: 'claim' }), { 'data-move': 'claim', title })];
  } else if (v.phase === 'scored' || v.status === 'over') {
    if (!game.sheetOpen) {
      slots = [button(t('Result'), 'R', () => game.openSheet(), { 'data-move': 'result' })];
      if (can.ready) slots.push(button(t('Next hand'), 'N', () => game.send({ type: 'ready' }), { class: 'primary', 'data-move': 'ready' }));
      if (can.deal && !can.ready) slots.push(button(t('Start without waiting'), 'W', () => game.send({ type: 'deal' }), { 'data-move': 'deal', disabled: game.pending || game.dealHeld() }));
      if (v.status === 'over' && host && !v.again && !v.closed) slots.push(button(t('Play again'), 'N', () => game.playAgain(), { class: 'primary', 'data-move': 'again' }));
      if (v.status === 'over' && !host && v.again && v.you !== null) slots.push(button(t('Join the new table'), 'N', () => game.joinAgain(), { class: 'primary', 'data-move': 'join-again' }));
    }
  } else if (v.you !== null && v.seats[v.you].away && v.status === 'playing') {
    const words = v.seats[v.you].left ? t('Sit back down') : t('I’m back');
    slots = [h('button.primary', { type: 'button', 'data-move': 'back', onclick: () => game.ctx.act(() => api.sit(v.code, v.you)).catch(() => {}) }, words)];
  }
  slots = slots.filter(Boolean);
  fill(game.movesEl, slots.length ? h('div.slots4', { 'data-count': slots.length }, slots.map(slot)) : null, extra, hintButton(game, v), sortButton(game, v));
}

// The decisions a hint answers (domain/hint.py): a bid, the dealer's discard, defending alone, a card.
const HINTED = ['order', 'call', 'discard', 'defend', 'play'];

/** Whether the player may ask for a hint now: switched on, their turn, and bots in every other seat. */
export function hintOffered(v) {
  return option('hints') && v.you !== null && v.status === 'playing' && !v.seats[v.you].away
    && HINTED.some((k) => v.can?.[k]) && v.seats.every((s, n) => n === v.you || (s.bot && !s.player));
}

function hintButton(game, v) {
  if (!hintOffered(v)) return null;
  return h('button.hint', {
    type: 'button', 'data-key': '?', name: 'hint', disabled: game.pending || game.hinting,
    title: t('What the expert bot would do in your seat, and why. A game you win after a hint isn’t rated as your win.'),
    onclick: () => game.askHint(),
  }, t('Hint'), keycap('?'));
}

/** Sorting moves nothing on the table, so it stays open while a move is on its way. */
function sortButton(game, v) {
  if (v.you === null || !v.hand.length) return null;
  const mine = handSort() === 'mine';
  return h('button.sort', {
    type: 'button', 'data-key': 'O', name: 'sort',
    title: mine ? t('Cards where you put them: switch to sorting by suit') : t('Sorted by suit, trump first: switch to your own order'),
    onclick: () => game.toggleSort(),
  }, mine ? t('Sort: My order') : t('Sort: By suit'), keycap('O'));
}
