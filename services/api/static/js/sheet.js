// The result sheet between hands (the call, tricks, points, the score, the hand's review,
// every hand so far) and at the end of the game (the winners, the final score, the rating
// change, the last hand's review, a result to share, the way to the game's record, Play again).

import { copyText, fill, h, suitMark, withSuits } from './dom.js';
import { t } from './i18n.js';
import { keycap } from './keys.js';
import { recordPath } from './nav.js';
import { nameOf, ourTeam, teamMembers, teamName, teamOf } from './seats.js';
import { outcomeWords, pointsWords, shareText } from './words.js';

export function sheetKey(v, host) {
  return [v.status, v.phase, v.hand_no, v.hands.length, v.can, v.ready, v.seats.map((s) => [s.name, s.bot, s.away]), v.you, host, v.again];
}

// Who did the euchring, from where the reader sits.
function euchredBy(v, defenders) {
  if (v.you === null) return teamMembers(v, defenders);
  return defenders === ourTeam(v) ? t('us') : t('them');
}

/** Who called the hand, as the sheet's facts say it: "by Ada, alone; Cog defended alone". */
function callFact(v, o) {
  const name = nameOf(v, o.maker);
  const by = o.alone !== null ? t('by {name}, alone', { name }) : t('by {name}', { name });
  return o.defender !== null ? t('{call}; {defender} defended alone', { call: by, defender: nameOf(v, o.defender) }) : by;
}

function handsTable(v) {
  const us = ourTeam(v);
  return h('table.hands', {},
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, t('Call')), h('th', { scope: 'col' }, t('Tricks')),
      h('th', { scope: 'col' }, t('Points')), h('th', { scope: 'col' }, `${teamName(v, us)}–${teamName(v, 1 - us)}`))),
    h('tbody', {}, v.hands.map((o) => {
      const makers = teamOf(o.maker);
      const tricks = makers === us ? `${o.tricks}–${5 - o.tricks}` : `${5 - o.tricks}–${o.tricks}`;
      return h('tr', { class: o.team === us ? 'ours' : 'theirs', 'data-hand': o.hand_no },
        h('td', {}, String(o.hand_no)),
        h('td.call', {}, suitMark(o.trump), ' ', o.alone !== null ? t('{name} alone', { name: nameOf(v, o.maker) }) : nameOf(v, o.maker),
          o.how === 'euchre' ? h('span.how', {}, t('euchred by {names}', { names: euchredBy(v, 1 - makers) })) : o.how === 'march' ? h('span.how', {}, t('march')) : null),
        h('td', {}, tricks),
        h('td', {}, t('+{points} {team}', { points: o.points, team: teamName(v, o.team) })),
        h('td.score', {}, `${o.score[us]}–${o.score[1 - us]}`));
    })));
}

function keyButton(label, key, attrs) {
  return h('button', { type: 'button', 'data-key': key, ...attrs }, withSuits(label), keycap(key === 'Esc' ? 'Esc' : key));
}

/**
 * Fill `el` with the sheet for view `v`. `act` holds what the buttons do: ready, dealNow,
 * close, playAgain, lobby; `rating` is what the game did to the viewer's rating; `review`,
 * the last hand's cards that cost their side tricks.
 */
export function drawSheet(el, v, { host, act, rating, review, dealHeld = false, pending = false }) {
  const us = ourTeam(v);
  const o = v.outcome;
  if (v.closed) { // nobody won: the house ended it (docs/euchre.md "A table the house closes")
    el.dataset.sheet = 'closed';
    fill(el,
      h('header', {}, h('span.kicker', {}, t('Table closed')), h('h2', { id: 'sheet-title' }, t('The house closed this table'))),
      h('p.closed-reason', {}, v.closed),
      h('footer', {},
        h('a.button', { href: '#/' }, t('Lobby')),
        keyButton(t('See the table'), 'Esc', { class: 'ghost', onclick: act.close })));
    return;
  }
  if (v.status === 'over') {
    const won = v.you !== null && v.winner === us;
    const title = v.you === null ? t('{names} won', { names: teamMembers(v, v.winner) }) : won ? t('We won!') : t('They won');
    const squares = h('div.squares', { role: 'img', 'aria-label': t('Each hand, who scored: {teams}', { teams: v.hands.map((x) => teamName(v, x.team)).join(', ') }) }, v.hands.map((x) => h('span.square', { class: x.team === us ? 'ours' : 'theirs', title: t('Hand {number}: {team}', { number: x.hand_no, team: teamName(v, x.team) }) })));
    const share = shareText(v);
    el.dataset.sheet = 'over';
    fill(el,
      h('header', {}, h('span.kicker', {}, t('Game over')), h('h2', { id: 'sheet-title' }, title),
        h('p.winners', {}, t('{winners} beat {losers}', { winners: `${nameOf(v, v.winner)} & ${nameOf(v, v.winner + 2)}`, losers: `${nameOf(v, 1 - v.winner)} & ${nameOf(v, 3 - v.winner)}` }))),
      h('div.final', { 'data-final': `${v.score[0]}-${v.score[1]}` },
        h('span.us', { class: v.winner === us ? 'win' : '' }, h('small', {}, teamName(v, us)), h('b', {}, String(v.score[us]))),
        h('span.dash', {}, '–'),
        h('span.them', { class: v.winner !== us ? 'win' : '' }, h('small', {}, teamName(v, 1 - us)), h('b', {}, String(v.score[1 - us])))),
      rating,
      review,
      h('div.share-box', {}, squares,
        h('button.ghost', { type: 'button', name: 'share', onclick: async (e) => {
          const ok = await copyText(share);
          e.target.textContent = ok ? t('Copied!') : t('Select and copy below');
        } }, t('Copy result')),
        h('pre.share-text', {}, share.split('\n')[0].replace(/\s*\u{1F3C6}/u, ''))),
      h('details.all-hands', {}, h('summary', {}, t('Every hand ({count})', { count: v.hands.length })), handsTable(v)),
      h('footer', {},
        host ? keyButton(t('Play again'), 'N', { class: 'primary big', name: 'again', onclick: act.playAgain, disabled: pending || !!v.again })
          : v.again && v.you !== null ? keyButton(t('Join the new table'), 'N', { class: 'primary big', name: 'join-again', onclick: act.joinAgain })
            : h('p.hint', {}, t('The host can open a new table with the same rules: you’ll be invited.')),
        h('a.button', { href: recordPath(v.code) }, t('Game record')),
        h('a.button', { href: '#/' }, t('Lobby')),
        keyButton(t('See the table'), 'Esc', { class: 'ghost', onclick: act.close })));
    return;
  }
  if (!o) return;
  const words = outcomeWords(v, o);
  const makers = teamOf(o.maker);
  const ourTricks = makers === us ? o.tricks : 5 - o.tricks;
  const waiting = [0, 1, 2, 3].filter((n) => !v.ready[n]).map((n) => (n === v.you ? t('you') : nameOf(v, n)));
  const buttons = [];
  if (v.can.ready) buttons.push(keyButton(t('Next hand'), 'N', { class: 'primary big', name: 'ready', onclick: act.ready, disabled: pending }));
  if (v.can.deal && !v.can.ready) buttons.push(keyButton(t('Start without waiting'), 'W', { class: 'big', name: 'deal', onclick: act.dealNow, disabled: dealHeld }));
  buttons.push(keyButton(t('See the table'), 'Esc', { class: 'ghost', onclick: act.close }));
  el.dataset.sheet = 'hand';
  fill(el,
    h('header', {}, h('span.kicker', {}, t('Hand {number}', { number: o.hand_no })), h('h2', { id: 'sheet-title' }, words.title), h('p', {}, withSuits(words.text))),
    h('dl.facts', {},
      h('div', {}, h('dt', {}, t('Call')), h('dd', {}, suitMark(o.trump), ' ', callFact(v, o))),
      h('div', {}, h('dt', {}, t('Tricks')), h('dd', {}, t('{us} {ours} – {them} {theirs}', { us: teamName(v, us), ours: ourTricks, them: teamName(v, 1 - us), theirs: 5 - ourTricks }))),
      h('div', {}, h('dt', {}, t('Points')), h('dd', {}, pointsWords(v, o))),
      h('div.big-score', {}, h('dt', {}, t('Score')), h('dd', {},
        h('small', {}, teamName(v, us)), h('b.us', {}, String(o.score[us])), h('span.dash', {}, '–'),
        h('b.them', {}, String(o.score[1 - us])), h('small', {}, teamName(v, 1 - us))))),
    review,
    handsTable(v),
    waiting.length && !v.can.ready ? h('p.hint.waiting-on', {}, t('Waiting for {names}.', { names: waiting.join(', ') })) : null,
    h('footer', {}, buttons));
}
