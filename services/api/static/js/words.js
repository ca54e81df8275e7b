// What happened, in words, from the viewer's side of the table. Suits are written {S} and
// drawn as marks by withSuits().

import { cardName } from './cards.js';
import { SUIT_NAMES } from './dom.js';
import { nameOf, ourTeam, subject, teamMembers, teamName, teamOf } from './seats.js';

export const NUMBERS = ['no', 'one', 'two', 'three', 'four', 'five'];

/** A bid as its seat said it; the dealer ordering the card up is picking it up. */
export function bidWords(b, dealer) {
  if (b.bid === 'pass') return 'Pass';
  const verb = b.bid === 'order' ? (b.seat === dealer ? 'Pick up' : 'Order up') : 'Call';
  return `${verb} {${b.suit}}${b.alone ? ' alone' : ''}`;
}

/** Who made trump, said to the viewer: "you" on the maker's own screen. */
export function calledBy(v) {
  return `called by ${v.you === v.maker ? 'you' : nameOf(v, v.maker)}${v.alone !== null ? ', alone' : ''}`;
}

/** A card as a sentence names it: "the nine of clubs", "the left bower (jack of diamonds)". */
function theCard(card, trump) {
  const named = cardName(card, trump);
  return named.startsWith('the ') ? named : `the ${named}`;
}

/** Why a card was refused: it doesn't follow the suit led (`led`, or null if none was). */
export function cannotPlay(card, trump, led) {
  if (!led) return 'That card can’t be played now.';
  return `You must follow {${led}}: you can’t play ${theCard(card, trump)}.`;
}

/** Words with their suits written out, for what is heard rather than seen. */
export const spoken = (text) => text.replace(/\{([SHDC])\}/g, (_, suit) => SUIT_NAMES[suit]);

/** A card played, as the table tells it: "Cog played the ace of hearts." */
export function playedWords(v, p) {
  return `${subject(v, p.seat)} played ${theCard(p.card, v.trump)}.`;
}

/** A trick told in one go, as a look back at it: each card in play order, and who took it. */
export function trickWords(v, trick, trump = v.trump) {
  const cards = trick.cards.map((p, n) => `${subject(v, p.seat)} ${n ? 'played' : 'led'} ${theCard(p.card, trump)}`);
  return `${cards.join(', ')}. ${subject(v, trick.winner)} took it.`;
}

/** Who took this hand's trick `n` (from 0), and the tricks each side has taken by then. */
export function tookWords(v, n) {
  const us = ourTeam(v);
  const taken = (team) => v.tricks.slice(0, n + 1).filter((t) => teamOf(t.winner) === team).length;
  return `${subject(v, v.tricks[n].winner)} took the trick: ${teamName(v, us)} ${taken(us)}, ${teamName(v, 1 - us)} ${taken(1 - us)}.`;
}

/** A claim taken: who claimed the rest of the hand, and the cards they showed for it. */
export function claimedWords(v, c) {
  const rest = c.tricks === 1 ? 'the last trick' : `the last ${NUMBERS[c.tricks]} tricks`;
  return `${subject(v, c.seat)} claimed ${rest}, showing ${c.cards.map((card) => theCard(card, v.trump)).join(', ')}.`;
}

/** A scored hand told in one go: how it went, the points and the score after it. */
export function scoredWords(v, o) {
  const us = ourTeam(v);
  const { title, text } = outcomeWords(v, o);
  return `${title}: ${spoken(text)} ${pointsWords(v, o)}. Score: ${teamName(v, us)} ${o.score[us]}, ${teamName(v, 1 - us)} ${o.score[1 - us]}.`;
}

/** A seat's side, said from where the viewer sits. */
const side = (v, seat) => teamName(v, teamOf(seat));

export function callBanner(v, bid) {
  const who = nameOf(v, bid.seat);
  const verb = bid.bid === 'order' ? (bid.seat === v.dealer ? 'picked up' : 'ordered up') : 'called';
  const need = v.you === null ? `${teamMembers(v, teamOf(bid.seat))} need three tricks`
    : teamOf(bid.seat) === ourTeam(v) ? 'We need three tricks' : 'They need three tricks';
  if (bid.alone) return { title: 'Going alone!', text: `${v.you === bid.seat ? 'You' : who} ${verb} {${bid.suit}}. ${need}.`, tone: 'alone' };
  return { title: `${v.you === bid.seat ? 'You' : who} ${verb} {${bid.suit}}`, text: `${need}.`, tone: 'call' };
}

export function defendBanner(v) {
  return { title: 'Defending alone!', text: `${subject(v, v.defender)} against ${subject(v, v.alone)}, one on one.`, tone: 'alone' };
}

/** The headline and a line under it for a scored hand. */
export function outcomeWords(v, o) {
  const makers = teamOf(o.maker);
  const ours = v.you !== null && makers === ourTeam(v);
  const watching = v.you === null;
  const makerName = subject(v, o.maker);
  const how = `${makerName} called {${o.trump}}${o.alone !== null ? ' alone' : ''}`;
  const took = `${NUMBERS[o.tricks]} trick${o.tricks === 1 ? '' : 's'}`;
  if (o.how === 'euchre') {
    const title = watching ? `${teamMembers(v, makers)} were euchred` : ours ? 'We were euchred' : 'Euchred them!';
    return { title, text: `${how} and took ${took}.`, banner: 'Euchred!' };
  }
  if (o.how === 'march') {
    const alone = o.alone !== null;
    const title = watching ? `${teamMembers(v, makers)} took all five` : ours ? 'We took all five' : 'They took all five';
    return { title, text: `${how} and took every trick.`, banner: alone ? 'All five, alone!' : 'A march!' };
  }
  const title = watching ? `${teamMembers(v, makers)} made it` : ours ? 'We made it' : 'They made it';
  return { title, text: `${how} and took ${took}.`, banner: null };
}

export function pointsWords(v, o) {
  return `+${o.points} to ${teamName(v, o.team)}`;
}

/** "We won 10–7 🏆" and a square a hand, to paste anywhere. */
export function shareText(v) {
  const us = ourTeam(v);
  const won = v.winner === us;
  const head = v.you === null
    ? `${teamMembers(v, v.winner)} won ${v.score[v.winner]}–${v.score[1 - v.winner]}`
    : won ? `We won ${v.score[us]}–${v.score[1 - us]} 🏆` : `We lost ${v.score[us]}–${v.score[1 - us]}`;
  const squares = v.hands.map((o) => (o.team === us ? '🟩' : '🟥')).join('');
  const names = (t) => `${nameOf(v, t)} & ${nameOf(v, t + 2)}`;
  return `Euchre Tables: ${head}\n${squares}\n${names(v.winner)} beat ${names(1 - v.winner)}`;
}
