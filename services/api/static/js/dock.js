// The dock under the table: a status line saying what is happening or what to do, and the
// moves open to you as buttons, each showing its key.

import { api } from './api.js';
import { effectiveSuit, winningSeat } from './cards.js';
import { fill, h, touchOnly, withSuits } from './dom.js';
import { keycap } from './keys.js';
import { handSort } from './handorder.js';
import { option } from './options.js';
import { nameOf, ourTeam, teamMembers } from './seats.js';

/** What the status line says when nothing has gone wrong. */
export function statusText(v) {
  const can = v.can || {};
  const name = (seat) => nameOf(v, seat);
  if (v.status === 'over') {
    const [a, b] = [v.score[v.winner], v.score[1 - v.winner]];
    if (v.you === null) return `${teamMembers(v, v.winner)} won, ${a}–${b}.`;
    return v.winner === ourTeam(v) ? `We won, ${a}–${b}!` : `They won, ${a}–${b}.`;
  }
  if (v.you !== null && v.seats[v.you].away) {
    return v.seats[v.you].left
      ? 'You left: a bot plays for you until you sit back down.'
      : 'You were away, so a bot is playing for you: make a move to take your seat back.';
  }
  if (can.farmer) return 'A farmer’s hand! Pick three cards to swap for the kitty, or keep your hand.';
  if (can.order) {
    const suit = v.up[1];
    if (can.order.must_alone) return `Your partner deals: you may only order up {${suit}} by going alone. Or pass.`;
    return v.you === v.dealer ? `Your bid: pick up the {${suit}}, or pass.` : `Your bid: order up {${suit}} for ${nameOf(v, v.dealer)}, or pass.`;
  }
  if (can.call) {
    if (!can.pass) return 'Everyone passed and you deal: you must call trump.';
    return `Round two: call any suit but {${v.up[1]}}, or pass.`;
  }
  if (can.discard) return `You picked up the {${v.up[1]}}. Pick the card to bury (${touchOnly() ? 'tap it' : 'click it or press 1–6'}), then Bury.`;
  if (can.defend) return `${name(v.alone)} is going alone. Defend alone against them?`;
  if (can.play) {
    if (!v.trick.length) return 'Your lead: tap a card or press its number.';
    const led = effectiveSuit(v.trick[0].card, v.trump);
    const follow = can.play.cards.some((c) => effectiveSuit(c, v.trump) === led);
    const partner = option('partner') && winningSeat(v.trick, v.trump) === (v.you + 2) % 4 ? ' Your partner is winning it.' : '';
    return follow ? `Your turn: follow {${led}}.${partner}` : `Your turn: no {${led}} in your hand, so any card goes.${partner}`;
  }
  if (v.phase === 'reveal') return 'Shuffling: each player’s sealed seed is being revealed…';
  if (v.phase === 'scored') {
    if (can.ready) return 'Hand over. Ready for the next one?';
    const waiting = [0, 1, 2, 3].filter((n) => !v.ready[n]).map(name);
    return waiting.length ? `Waiting for ${waiting.join(', ')} to be ready…` : 'Dealing…';
  }
  if (v.turn === null) return '';
  const who = name(v.turn);
  const doing = {
    farmer: `${who} has a farmer’s hand…`,
    bid1: `${who} is bidding…`,
    bid2: `${who} is choosing trump…`,
    discard: `${who} is burying a card…`,
    defend: `${who} is deciding whether to defend alone…`,
    play: v.trick.length ? `${who} to play…` : `${who} to lead…`,
  }[v.phase];
  return v.you === null ? `Watching. ${doing || ''}` : doing || '';
}

/** The moves open to you now, each showing its key, the Go alone toggle and the sort. */
export function drawMoves(game, v, host) {
  const can = v.can || {};
  const slot = (child) => h('div.slot-move', {}, child);
  const button = (label, key, onclick, attrs = {}) => h('button', { type: 'button', 'data-key': key, disabled: game.pending, onclick, ...attrs }, withSuits(label), key ? keycap(key) : null);
  const aloneToggle = (allowed, forced) => (allowed ? h('button.toggle', {
    type: 'button', 'data-key': 'A', 'aria-pressed': String(forced || game.alone), disabled: forced || game.pending, name: 'alone',
    title: forced ? 'Your partner deals: ordering up means going alone' : 'Play this hand without your partner',
    onclick: () => { game.alone = !game.alone; game.draw(); },
  }, forced || game.alone ? 'Going alone' : 'Go alone', keycap('A')) : null);
  let slots = [];
  let extra = null;
  game.movesEl.dataset.kind = Object.keys(can).join(' ') || 'none';
  if (can.order) {
    const suit = v.up[1];
    const alone = can.order.must_alone || game.alone;
    const verb = v.you === v.dealer ? 'Pick up' : 'Order up';
    slots = [null, null,
      button(`${verb} {${suit}}${alone ? ' alone' : ''}`, suit, () => game.send({ type: 'order', alone }), { class: 'primary', 'data-move': 'order', 'data-suit': suit }),
      button('Pass', 'P', () => game.send({ type: 'pass' }), { 'data-move': 'pass' })];
    extra = aloneToggle(can.order.alone || can.order.must_alone, can.order.must_alone);
  } else if (can.call) {
    const alone = game.alone;
    slots = can.call.suits.map((suit) => button(`Call {${suit}}${alone ? ' alone' : ''}`, suit, () => game.send({ type: 'call', suit, alone }), { class: 'primary', 'data-move': 'call', 'data-suit': suit }));
    slots.push(can.pass
      ? button('Pass', 'P', () => game.send({ type: 'pass' }), { 'data-move': 'pass' })
      : h('button', { type: 'button', disabled: true, title: 'The dealer must call trump', 'data-move': 'pass' }, 'Can’t pass'));
    extra = aloneToggle(can.call.alone, false);
  } else if (can.defend) {
    slots = [null, null,
      button('Defend alone', 'A', () => game.send({ type: 'defend', alone: true }), { class: 'primary', 'data-move': 'defend-alone' }),
      button('With partner', 'P', () => game.send({ type: 'defend', alone: false }), { 'data-move': 'defend' })];
  } else if (can.discard) {
    const [card] = game.selected;
    slots = [null, null,
      button(card ? `Bury ${card[0] === 'T' ? '10' : card[0]}{${card[1]}}` : 'Bury', 'B', () => game.send({ type: 'discard', card }), { class: 'primary', disabled: game.pending || !card, 'data-move': 'discard' }),
      button('Change my mind', 'U', () => { game.selected.clear(); game.draw(); }, { disabled: game.pending || !card, 'data-move': 'undo-discard' })];
  } else if (can.farmer) {
    slots = [null, null,
      button('Swap these three', 'W', () => game.send({ type: 'farmer', cards: [...game.selected] }), { class: 'primary', disabled: game.pending || game.selected.size !== 3, 'data-move': 'farmer-swap' }),
      button('Keep my hand', 'K', () => game.send({ type: 'farmer', cards: [] }), { 'data-move': 'farmer-keep' })];
  } else if (can.claim) {
    const title = 'Claim every trick left for your side: taken only if it is certain from your own cards';
    slots = [button('Claim the rest', 'C', () => game.send({ type: 'claim' }), { 'data-move': 'claim', title })];
  } else if (v.phase === 'scored' || v.status === 'over') {
    if (!game.sheetOpen) {
      slots = [button('Result', 'R', () => game.openSheet(), { 'data-move': 'result' })];
      if (can.ready) slots.push(button('Next hand', 'N', () => game.send({ type: 'ready' }), { class: 'primary', 'data-move': 'ready' }));
      if (can.deal && !can.ready) slots.push(button('Start without waiting', 'W', () => game.send({ type: 'deal' }), { 'data-move': 'deal', disabled: game.pending || game.dealHeld() }));
      if (v.status === 'over' && host && !v.again) slots.push(button('Play again', 'N', () => game.playAgain(), { class: 'primary', 'data-move': 'again' }));
      if (v.status === 'over' && !host && v.again && v.you !== null) slots.push(button('Join the new table', 'N', () => game.joinAgain(), { class: 'primary', 'data-move': 'join-again' }));
    }
  } else if (v.you !== null && v.seats[v.you].away && v.status === 'playing') {
    const words = v.seats[v.you].left ? 'Sit back down' : 'I’m back';
    slots = [h('button.primary', { type: 'button', 'data-move': 'back', onclick: () => game.ctx.act(() => api.sit(v.code, v.you)).catch(() => {}) }, words)];
  }
  slots = slots.filter(Boolean);
  fill(game.movesEl, slots.length ? h('div.slots4', { 'data-count': slots.length }, slots.map(slot)) : null, extra, sortButton(game, v));
}

/** Sorting moves nothing on the table, so it stays open while a move is on its way. */
function sortButton(game, v) {
  if (v.you === null || !v.hand.length) return null;
  const mine = handSort() === 'mine';
  return h('button.sort', {
    type: 'button', 'data-key': 'O', name: 'sort',
    title: mine ? 'Cards where you put them: switch to sorting by suit' : 'Sorted by suit, trump first: switch to your own order',
    onclick: () => game.toggleSort(),
  }, mine ? 'Sort: My order' : 'Sort: By suit', keycap('O'));
}
