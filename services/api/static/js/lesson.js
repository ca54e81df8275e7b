// Learn in a minute (#/learn): one hand of Euchre walked through in eleven short steps, from
// the deal to the score, with a card the learner plays themselves. It is a lesson, not a
// game: its cards are fixed here, in the page, and it sends nothing to the server until the
// learner asks to play bots at the end, where the deal is the shuffle's as always.
// The words follow docs/euchre.md.

import { cardFace, sortHand } from './cards.js';
import { fill, h, withSuits } from './dom.js';
import { t, tParts } from './i18n.js';
import { playBots } from './lobby.js';
import { becomeGuest, forget, me } from './me.js';
import { bar, StatusLine } from './nav.js';
import { DEFAULT_RULES } from './rules.js';

// The learner sits at the bottom; play goes clockwise: you, the opponent on your left, your
// partner, the opponent on your right. Your partner deals, so the opponent on your right
// (left of the dealer) bids first and leads the first trick.
const SEATS = [
  ['top', t('Your partner')],
  ['left', t('Opponent')],
  ['right', t('Opponent')],
  ['bottom', t('You')],
];
const DEALT = ['JS', '9S', 'AH', 'JC', 'KC'];
const UP = 'TC';
const FOLLOW = '9S'; // the one card that follows the king of spades: the jack of spades is a club
const PASS = t('Pass');
const ORDER = t('Order up {suit}', { suit: '{C}' });

// Each step: its words (suits as {C}) and what the table shows. `hand` is false once the
// learner's cards are played out; `pick` is the step where the learner plays a card.
const STEPS = [
  {
    id: 'teams',
    title: t('Two against two'),
    words: t('You and your partner, across from you, play as a team against the two opponents. The first team to 10 points wins.'),
    lit: ['top', 'bottom'],
  },
  {
    id: 'deal',
    title: t('The deal'),
    words: t('Only the 9s up to the aces are used: 24 cards. Your partner deals five to each player, turns one face up (the 10{C}) and leaves three face down: the kitty.'),
    up: true,
    lit: [UP],
  },
  {
    id: 'trump',
    title: t('Trump'),
    words: t('Each hand, one suit is trump: any trump beats any card of another suit. The first bids are on the turned card’s suit, here clubs.'),
    up: true,
    lit: [UP, 'JC', 'KC'],
  },
  {
    id: 'bowers',
    title: t('The bowers'),
    words: t('If clubs are trump, the jack of clubs is the right bower, the highest card. The jack of the other suit of the same colour, spades, is the left bower, next highest: it counts as a club. Then come the A, K, Q, 10 and 9 of clubs.'),
    up: true,
    trump: 'C',
    lit: ['JC', 'JS'],
  },
  {
    id: 'bidding',
    title: t('Order up or pass'),
    words: t('Starting left of the dealer, each player in turn may order up the turned card, making its suit trump, or pass. The opponent on your right passes.'),
    up: true,
    bids: { right: PASS },
    lit: [UP],
  },
  {
    id: 'order',
    title: t('You order it up'),
    words: t('With both bowers, you order it up: clubs are trump, and your side must take three of the five tricks. Your partner, the dealer, picks up the 10{C} and buries a card.'),
    trump: 'C',
    bids: { right: PASS, bottom: ORDER },
    lit: ['JC', 'JS', 'KC'],
  },
  {
    id: 'follow',
    title: t('Follow suit'),
    words: t('The player left of the dealer leads: the king of spades. You must follow suit, with a spade if you have one. Your turn: play a card.'),
    trump: 'C',
    trick: { right: 'KS' },
    pick: true,
  },
  {
    id: 'trick',
    title: t('Winning a trick'),
    words: t('The opponent on your left plays the ace of spades. Your partner has no spade, so may play any card: the 10{C}, a trump. The highest trump takes the trick: your partner wins it.'),
    trump: 'C',
    trick: { right: 'KS', bottom: FOLLOW, left: 'AS', top: UP },
    lit: [UP],
    tally: [1, 0],
  },
  {
    id: 'tricks',
    title: t('Five tricks'),
    words: t('The winner of a trick leads the next. Your trumps take the other four: your side takes all five tricks.'),
    trump: 'C',
    hand: false,
    tally: [5, 0],
  },
  {
    id: 'score',
    title: t('The score'),
    words: t('The side that made trump scores 1 point for three or four tricks, 2 for all five (a march; 4 going alone). With fewer than three they are euchred: the other side scores 2.'),
    trump: 'C',
    hand: false,
    tally: [5, 0],
    points: t('{banner} {points}', { banner: t('A march!'), points: t('+{points} to {team}', { points: 2, team: t('Us') }) }),
  },
  {
    id: 'play',
    title: t('Your turn'),
    words: t('That’s a hand of Euchre. Now play a real game against three bots, dealt from a fresh shuffle, not from this lesson.'),
    trump: null,
    hand: false,
    end: true,
  },
];

export function mountLesson(root) {
  root.dataset.view = 'lesson';
  const status = new StatusLine('lesson-said');
  const wordsEl = h('div.lesson-words', { id: 'lesson-words', 'aria-live': 'polite', 'aria-atomic': 'true' });
  const feltEl = h('div.felt.lesson-felt');
  const handEl = h('div.lesson-hand', { role: 'group', 'aria-label': t('Your cards') });
  const backButton = h('button.big', { type: 'button', name: 'back', onclick: () => show(at - 1) }, t('Back'));
  const nextButton = h('button.primary.big', { type: 'button', name: 'next', 'aria-describedby': 'lesson-words', onclick: () => show(at + 1) }, t('Next'));
  const playButton = h('button.primary.big', { type: 'button', name: 'play-bots', onclick: () => play() }, t('Play bots now'));
  const endEl = h('div.lesson-end', {}, playButton,
    h('a.button.big', { href: '#/rules' }, t('Read the rules')),
    h('p.hint', {}, t('Three easy bots and you, straight to a table: no name needed.')));
  const main = h('main.lesson', {},
    h('h1', {}, t('Learn Euchre in a minute')),
    h('p.hint.lesson-note', {}, t('A practice hand with set cards: nothing is played at a table or recorded.')),
    wordsEl, feltEl, handEl, status.el, endEl,
    h('nav.lesson-steps', { 'aria-label': t('Lesson steps') }, backButton, nextButton));
  let at = -1; // the step shown, none yet
  let followed = false; // the learner has played the card that follows suit

  function show(n) {
    if (n < 0 || n >= STEPS.length) return;
    const step = STEPS[n];
    const moved = n !== at;
    at = n;
    main.dataset.step = step.id;
    main.dataset.stepNo = String(n + 1);
    status.say('');
    fill(wordsEl, h('h2', {}, t('Step {number} of {count}: {title}', { number: n + 1, count: STEPS.length, title: step.title })), h('p', {}, withSuits(step.words)));
    drawFelt(step);
    drawHand(step);
    endEl.hidden = !step.end;
    feltEl.hidden = !!step.end;
    handEl.hidden = !!step.end;
    backButton.disabled = n === 0;
    nextButton.hidden = !!step.end;
    nextButton.disabled = !!step.pick && !followed;
    if (!moved) return;
    // Focus stays where the learner pressed, unless that was hidden or disabled by the step.
    const focused = document.activeElement;
    if (step.end) playButton.focus();
    else if (nextButton.disabled) handEl.querySelector('button')?.focus();
    else if (!main.contains(focused) || focused.disabled || !focused.isConnected || focused.closest('.lesson-hand')) nextButton.focus();
  }

  function drawFelt(step) {
    const trick = step.pick && followed ? { ...step.trick, bottom: FOLLOW } : step.trick || {};
    const seats = SEATS.map(([where, name]) => {
      const bid = step.bids?.[where];
      const card = trick[where];
      return h(`div.lesson-seat.at-${where}`, { class: step.lit?.includes(where) ? 'lit' : null },
        h('div.lesson-plate', {},
          h('strong', {}, name),
          where === 'top' ? h('span.tag', {}, t('Dealer')) : null,
          bid ? h(`span.tag${bid === PASS ? '' : '.called'}`, {}, withSuits(bid)) : null),
        card ? cardFace(card, { trump: step.trump, cls: lit(step, card), attrs: { 'data-played': where } }) : null);
    });
    const middle = h('div.lesson-mid', {},
      step.up ? h('div.lesson-up', {},
        cardFace(UP, { cls: lit(step, UP), flag: t('Turned up') }),
        h('div.lesson-kitty', { role: 'img', 'aria-label': t('the kitty: three cards face down') },
          [0, 1, 2].map(() => h('span.back-mini', { 'aria-hidden': 'true' })))) : null,
      step.trump && !step.up ? h('p.tag.called', {}, tParts('Trump {suit}', { suit: withSuits(`{${step.trump}}`) })) : null,
      step.tally ? h('p.lesson-tally', {}, t('Tricks: {us} {ours}, {them} {theirs}', { us: t('Us'), ours: step.tally[0], them: t('Them'), theirs: step.tally[1] })) : null,
      step.points ? h('p.lesson-points', {}, step.points) : null);
    fill(feltEl, seats, middle);
  }

  function drawHand(step) {
    if (step.hand === false) {
      fill(handEl, h('p.hint', {}, t('Your cards are all played.')));
      return;
    }
    const played = step.id === 'trick' || (step.pick && followed);
    const cards = sortHand(DEALT.filter((c) => !played || c !== FOLLOW), step.trump);
    const picking = step.pick && !followed;
    fill(handEl, cards.map((card, i) => {
      if (!picking) return cardFace(card, { trump: step.trump, cls: lit(step, card) });
      const face = cardFace(card, {
        tag: 'button',
        trump: step.trump,
        cls: 'pickable',
        attrs: { type: 'button', 'data-key': String(i + 1), onclick: () => pick(card) },
      });
      face.append(h('kbd.cardkey', { 'aria-hidden': 'true', 'data-hint': String(i + 1) }));
      return face;
    }));
  }

  function pick(card) {
    if (card !== FOLLOW) {
      status.say(card === 'JS'
        ? t('Not that one: with clubs trump, the jack of spades is the left bower, a club and not a spade. You hold another spade, so you must play it.')
        : t('Not that one: a spade was led and you hold one, so you must follow suit with it.'), 'error');
      status.el.scrollIntoView({ block: 'nearest' });
      return;
    }
    followed = true;
    show(at);
    status.say(t('Right: the nine of spades is your only spade, so you must play it.'));
    nextButton.focus();
  }

  /** Easy bots and the default house rules, as whoever this browser plays as, or a new guest:
   * also when the server no longer knows the name kept here (a 401). */
  async function play() {
    playButton.disabled = true;
    try {
      if (!me()) await becomeGuest();
      await playBots({ ...DEFAULT_RULES }, 'easy').catch(async (err) => {
        if (err.status !== 401) throw err;
        forget();
        await becomeGuest();
        await playBots({ ...DEFAULT_RULES }, 'easy');
      });
    } catch (err) {
      status.error(err);
    } finally {
      playButton.disabled = false;
    }
  }

  // Arrow keys step back and forth; in your cards they move between the cards. Enter steps on
  // from anywhere but a control, which Enter presses itself.
  const onKey = (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target instanceof Element ? event.target : null;
    if (target?.closest('input, textarea, select, [contenteditable]')) return;
    const inHand = target?.closest('.lesson-hand');
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      const forward = event.key === 'ArrowRight';
      event.preventDefault();
      if (inHand) {
        const cards = [...handEl.querySelectorAll('button')];
        const i = cards.indexOf(target.closest('button'));
        cards[Math.min(cards.length - 1, Math.max(0, i + (forward ? 1 : -1)))]?.focus();
      } else if (forward) {
        if (!nextButton.disabled && !nextButton.hidden) show(at + 1);
      } else {
        show(at - 1);
      }
    } else if (event.key === 'Enter' && !target?.closest('button, a, summary')) {
      if (!nextButton.disabled && !nextButton.hidden) {
        event.preventDefault();
        show(at + 1);
      }
    }
  };
  document.addEventListener('keydown', onKey);

  fill(root, bar(), main);
  show(0);
  return () => document.removeEventListener('keydown', onKey);
}

const lit = (step, card) => (step.lit?.includes(card) ? 'lit' : '');
