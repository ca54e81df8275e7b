// What happened, in words, from the viewer's side of the table. Suits are written {S} and
// drawn as marks by withSuits().

import { theCard } from './cards.js';
import { NO_TRUMP, SUIT_NAMES } from './dom.js';
import { t } from './i18n.js';
import { nameOf, ourTeam, subject, teamMembers, teamName, teamOf } from './seats.js';

export const NUMBERS = [t('no'), t('one'), t('two'), t('three'), t('four'), t('five')];
export const TRICKS = [t('no tricks'), t('one trick'), t('two tricks'), t('three tricks'), t('four tricks'), t('five tricks')];

/** A suit as the words carry it, for withSuits() to draw: `{H}`. */
const mark = (suit) => `{${suit}}`;

/** A bid as its seat said it; the dealer ordering the card up is picking it up. */
export function bidWords(b, dealer) {
  if (b.bid === 'pass') return t('Pass');
  const suit = mark(b.suit);
  if (b.bid === 'order' && b.seat === dealer) return b.alone ? t('Pick up {suit} alone', { suit }) : t('Pick up {suit}', { suit });
  if (b.bid === 'order') return b.alone ? t('Order up {suit} alone', { suit }) : t('Order up {suit}', { suit });
  return b.alone ? t('Call {suit} alone', { suit }) : t('Call {suit}', { suit });
}

/** Who made trump, said to the viewer: "you" on the maker's own screen. */
export function calledBy(v) {
  const name = nameOf(v, v.maker);
  if (v.alone !== null) return v.you === v.maker ? t('called by you, alone') : t('called by {name}, alone', { name });
  return v.you === v.maker ? t('called by you') : t('called by {name}', { name });
}

/** Why a card was refused: it doesn't follow the suit led (`led`, or null if none was). */
export function cannotPlay(card, trump, led) {
  if (!led) return t('That card can’t be played now.');
  return t('You must follow {suit}: you can’t play {card}.', { suit: mark(led), card: theCard(card, trump) });
}

/** Words with their suits written out, for what is heard rather than seen. */
export const spoken = (text) => text.replace(/\{([SHDCN])\}/g, (_, suit) => SUIT_NAMES[suit] ?? NO_TRUMP);

/** A card played, as the table tells it: "Cog played the ace of hearts." */
export function playedWords(v, p) {
  const card = theCard(p.card, v.trump);
  return v.you === p.seat ? t('You played {card}.', { card }) : t('{name} played {card}.', { name: nameOf(v, p.seat), card });
}

/** A trick told in one go, as a look back at it: each card in play order, and who took it. */
export function trickWords(v, trick, trump = v.trump) {
  const cards = trick.cards.map((p, n) => {
    const card = theCard(p.card, trump);
    const name = nameOf(v, p.seat);
    if (v.you === p.seat) return n ? t('You played {card}', { card }) : t('You led {card}', { card });
    return n ? t('{name} played {card}', { name, card }) : t('{name} led {card}', { name, card });
  });
  const cardsSaid = cards.join(', ');
  return v.you === trick.winner ? t('{cards}. You took it.', { cards: cardsSaid })
    : t('{cards}. {name} took it.', { cards: cardsSaid, name: nameOf(v, trick.winner) });
}

/** Who took this hand's trick `n` (from 0), and the tricks each side has taken by then. */
export function tookWords(v, n) {
  const us = ourTeam(v);
  const taken = (team) => v.tricks.slice(0, n + 1).filter((trick) => teamOf(trick.winner) === team).length;
  const winner = v.tricks[n].winner;
  const score = { us: teamName(v, us), ours: taken(us), them: teamName(v, 1 - us), theirs: taken(1 - us) };
  return v.you === winner ? t('You took the trick: {us} {ours}, {them} {theirs}.', score)
    : t('{name} took the trick: {us} {ours}, {them} {theirs}.', { name: nameOf(v, winner), ...score });
}

/** A claim taken: who claimed the rest of the hand, and the cards they showed for it. */
export function claimedWords(v, c) {
  const rest = c.tricks === 1 ? t('the last trick') : t('the last {count} tricks', { count: NUMBERS[c.tricks] });
  const cards = c.cards.map((card) => theCard(card, v.trump)).join(', ');
  return v.you === c.seat ? t('You claimed {rest}, showing {cards}.', { rest, cards })
    : t('{name} claimed {rest}, showing {cards}.', { name: nameOf(v, c.seat), rest, cards });
}

/** A scored hand told in one go: how it went, the points and the score after it. */
export function scoredWords(v, o) {
  const us = ourTeam(v);
  const { title, text } = outcomeWords(v, o);
  return t('{title}: {text} {points}. Score: {us} {ours}, {them} {theirs}.', {
    title, text: spoken(text), points: pointsWords(v, o), us: teamName(v, us), ours: o.score[us], them: teamName(v, 1 - us), theirs: o.score[1 - us],
  });
}

/** "Ada called {H}" / "You picked up {H}": a call as the table tells it afterwards. */
function calledWords(v, bid) {
  const values = { name: nameOf(v, bid.seat), suit: mark(bid.suit) };
  const you = v.you === bid.seat;
  if (bid.bid === 'order' && bid.seat === v.dealer) return you ? t('You picked up {suit}', values) : t('{name} picked up {suit}', values);
  if (bid.bid === 'order') return you ? t('You ordered up {suit}', values) : t('{name} ordered up {suit}', values);
  return you ? t('You called {suit}', values) : t('{name} called {suit}', values);
}

export function callBanner(v, bid) {
  const need = v.you === null ? t('{names} need three tricks', { names: teamMembers(v, teamOf(bid.seat)) })
    : teamOf(bid.seat) === ourTeam(v) ? t('We need three tricks') : t('They need three tricks');
  const called = calledWords(v, bid);
  if (bid.alone) return { title: t('Going alone!'), text: t('{called}. {need}.', { called, need }), tone: 'alone' };
  return { title: called, text: t('{need}.', { need }), tone: 'call' };
}

export function defendBanner(v) {
  return { title: t('Defending alone!'), text: t('{defender} against {alone}, one on one.', { defender: subject(v, v.defender), alone: subject(v, v.alone) }), tone: 'alone' };
}

/** The headline and a line under it for a scored hand. */
export function outcomeWords(v, o) {
  const makers = teamOf(o.maker);
  const ours = v.you !== null && makers === ourTeam(v);
  const watching = v.you === null;
  const values = { name: nameOf(v, o.maker), suit: mark(o.trump) };
  const alone = o.alone !== null;
  const how = v.you === o.maker
    ? (alone ? t('You called {suit} alone', values) : t('You called {suit}', values))
    : (alone ? t('{name} called {suit} alone', values) : t('{name} called {suit}', values));
  const took = TRICKS[o.tricks];
  const names = teamMembers(v, makers);
  if (o.how === 'euchre') {
    const title = watching ? t('{names} were euchred', { names }) : ours ? t('We were euchred') : t('Euchred them!');
    return { title, text: t('{how} and took {took}.', { how, took }), banner: t('Euchred!') };
  }
  if (o.how === 'march') {
    const title = watching ? t('{names} took all five', { names }) : ours ? t('We took all five') : t('They took all five');
    return { title, text: t('{how} and took every trick.', { how }), banner: alone ? t('All five, alone!') : t('A march!') };
  }
  const title = watching ? t('{names} made it', { names }) : ours ? t('We made it') : t('They made it');
  return { title, text: t('{how} and took {took}.', { how, took }), banner: null };
}

export function pointsWords(v, o) {
  return t('+{points} to {team}', { points: o.points, team: teamName(v, o.team) });
}

/** "We won 10–7 🏆" and a square a hand, to paste anywhere. */
export function shareText(v) {
  const us = ourTeam(v);
  const won = v.winner === us;
  const head = v.you === null
    ? t('{names} won {score}–{other}', { names: teamMembers(v, v.winner), score: v.score[v.winner], other: v.score[1 - v.winner] })
    : won ? t('We won {score}–{other} 🏆', { score: v.score[us], other: v.score[1 - us] }) : t('We lost {score}–{other}', { score: v.score[us], other: v.score[1 - us] });
  const squares = v.hands.map((o) => (o.team === us ? '🟩' : '🟥')).join('');
  const names = (team) => `${nameOf(v, team)} & ${nameOf(v, team + 2)}`;
  const beat = t('{winners} beat {losers}', { winners: names(v.winner), losers: names(1 - v.winner) });
  return [t('Euchre Tables: {head}', { head }), squares, beat].join('\n');
}
