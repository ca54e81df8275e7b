// The rail: both scores, trump and who called it, tricks as pips with what each side needs,
// and the turned card's fate.

import { fill, h, suitMark, SUIT_NAMES, withSuits } from './dom.js';
import { miniCard } from './cards.js';
import { t } from './i18n.js';
import { firstTo } from './rules.js';
import { nameOf, ourTeam, teamMembers, teamName, teamOf } from './seats.js';
import { calledBy } from './words.js';

export function railKey(v) {
  return [v.score, v.you, v.seats.map((s) => [s.name, s.bot]), v.trump, v.maker, v.alone, v.defender, v.taken,
    v.up, v.kitty_state, v.dealer, v.phase, v.hand_no, v.deal_no, v.buried];
}

export function drawRail(el, v) {
  const us = ourTeam(v);
  const them = 1 - us;
  const scoreRow = (team) => h(`div.score-row.${team === us ? 'us' : 'them'}`, { 'data-team': team },
    h('span.team', {}, teamName(v, team), h('small', {}, teamMembers(v, team))),
    h('span.figure', { 'data-score': v.score[team] }, String(v.score[team])));

  let trumpPanel;
  if (v.trump) {
    const none = v.trump === 'N';
    trumpPanel = h('div.panel.trump', { 'data-trump': v.trump },
      h('span.label', {}, t('Trump')),
      h('div.trump-line', {}, suitMark(v.trump, 'big'), h('span', {},
        h('strong', {}, none ? t('No trump') : SUIT_NAMES[v.trump]),
        h('small', {}, calledBy(v)))));
  } else {
    trumpPanel = h('div.panel.trump.none', {},
      h('span.label', {}, t('Trump')),
      h('div.trump-line', {}, h('span.nosuit', {}, '?'), h('span', {},
        h('strong', {}, v.phase === 'bid2' ? t('Round two') : v.phase === 'bid1' ? t('Round one') : t('Not yet')),
        h('small', {}, v.phase === 'bid2'
          ? withSuits(v.settings.no_trump === 'on'
            ? t('any suit but {suit}, or no trump', { suit: `{${v.up[1]}}` })
            : t('any suit but {suit}', { suit: `{${v.up[1]}}` }))
          : v.phase === 'bid1' ? t('order up the turned card or pass') : ''))));
  }

  let tricksPanel = null;
  if (v.trump && v.maker !== null) {
    const makers = teamOf(v.maker);
    const need = Math.max(0, 3 - v.taken[makers]);
    const defenders = 1 - makers;
    let line;
    if (v.taken[defenders] >= 3) line = v.you === null ? t('Euchred!') : defenders === us ? t('We euchred them!') : t('We’re euchred');
    else if (need === 0) line = v.you === null ? t('{names} made it', { names: teamMembers(v, makers) }) : makers === us ? t('We made it') : t('They made it');
    else line = v.you === null ? t('{names} need {count}', { names: teamMembers(v, makers), count: need }) : makers === us ? t('We need {count}', { count: need }) : t('They need {count}', { count: need });
    const pips = (team) => h(`div.pips-row.${team === us ? 'us' : 'them'}`, {},
      h('span.who', {}, teamName(v, team)),
      h('span.pipset', { 'aria-hidden': 'true' }, [0, 1, 2, 3, 4].map((i) => h('span.trick-pip', { class: i < v.taken[team] ? 'won' : '' }))),
      h('span.figure.small', { 'data-taken': v.taken[team] }, String(v.taken[team])));
    tricksPanel = h('div.panel.tricks', {},
      h('span.label', {}, t('Tricks')),
      pips(us), pips(them),
      h('p.need', { 'data-need': need }, line));
  } else {
    tricksPanel = h('div.panel.tricks.empty', {}, h('span.label', {}, t('Tricks')), h('p.need', {}, t('Trump first')));
  }

  const fate = {
    up: t('turned up'),
    down: t('turned down'),
    picked: v.you === v.dealer ? t('picked up by you') : t('picked up by {name}', { name: nameOf(v, v.dealer) }),
    out: v.you === v.dealer ? t('out: you sit out') : t('out: {name} sits out', { name: nameOf(v, v.dealer) }),
  }[v.kitty_state] || '';
  if (v.up) {
    trumpPanel.append(h('div.turned-line', { 'data-kitty': v.kitty_state }, miniCard(v.up), h('span', {}, fate)));
    if (v.buried) trumpPanel.append(h('div.turned-line.buried', {}, miniCard(v.buried), h('span', {}, t('you buried'))));
  }

  fill(el,
    h('div.panel.scores', {}, h('span.label', {}, t('Hand {number} · {target}', { number: ['scored', 'over'].includes(v.phase) ? v.hands.length : v.hand_no, target: firstTo(v.settings) })), scoreRow(us), scoreRow(them)),
    trumpPanel,
    tricksPanel);
  el.dataset.trump = v.trump || '';
}

