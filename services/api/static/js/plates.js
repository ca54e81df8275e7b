// The four plates round the table: name, dealer mark, tags (Called ♥, Alone, Sitting out),
// whose turn it is, how many cards each seat holds, and a place for its clock.

import { fill, h, suitMark } from './dom.js';
import { t, tc, tn } from './i18n.js';
import { levelName } from './rules.js';
import { isBot, nameOf, positionOf } from './seats.js';

/** "1 card", "4 cards". */
const cards = (count) => tn('{count} card', '{count} cards', count);

export function plateKey(v, seat) {
  const s = v.seats[seat];
  return [s, v.you, v.dealer, v.maker, v.alone, v.defender, v.trump, v.sitting.includes(seat), v.counts[seat],
    deciding(v, seat), v.phase === 'scored' ? v.ready[seat] : null, v.status];
}

/** Whether this seat is the one the table waits on (between hands: anyone not ready). */
export function deciding(v, seat) {
  if (v.status !== 'playing') return false;
  if (v.phase === 'scored') return !v.ready[seat];
  return v.turn === seat;
}

export function drawPlate(el, v, seat) {
  const s = v.seats[seat];
  const pos = positionOf(v, seat);
  const mine = v.you === seat;
  const tags = [];
  if (v.maker === seat && v.trump) tags.push(h('span.tag.called', {}, t('Called'), ' ', suitMark(v.trump)));
  if (v.alone === seat) tags.push(h('span.tag.alone', {}, t('Alone')));
  if (v.defender === seat) tags.push(h('span.tag.alone', {}, tc('seat', 'Defending alone')));
  if (v.sitting.includes(seat)) tags.push(h('span.tag.out', {}, t('Sitting out')));
  if (s.away && s.left) tags.push(h('span.tag.away', { title: t('A bot plays for them until they sit down again') }, tc('seat', 'Left')));
  else if (s.away) tags.push(h('span.tag.away', { title: t('A bot plays for them until they come back') }, t('Away')));
  if (v.phase === 'scored' && v.status === 'playing') tags.push(h('span.tag', { class: v.ready[seat] ? 'ready' : 'reading' }, v.ready[seat] ? t('Ready') : t('Reading')));
  const count = v.counts[seat];
  el.className = `plate at-${pos}`;
  el.dataset.seat = seat;
  el.dataset.turn = deciding(v, seat) ? 'yes' : 'no';
  el.classList.toggle('out', v.sitting.includes(seat));
  el.classList.toggle('mine', mine);
  fill(el,
    h('div.plate-top', {},
      v.dealer === seat ? h('span.dealer', { title: t('Dealer'), role: 'img', 'aria-label': t('Dealer') }, t('D')) : null,
      h('strong.name', { title: nameOf(v, seat) }, nameOf(v, seat)),
      mine ? h('span.you', {}, t('You')) : null,
      isBot(v, seat) && !s.away ? h('span.botmark', { title: t('{level} bot', { level: levelName(s.bot) }) }, t('bot')) : null),
    h('div.plate-tags', {}, tags),
    // Filled by the clocks (clocks.js), which tick between views.
    h('div.clocks', { hidden: true }),
    mine ? null : h('div.backs', { role: 'img', 'aria-label': cards(count), title: cards(count) },
      Array.from({ length: count }, () => h('span.back-mini')),
      h('span.count', {}, String(count))));
}
