// The result sheet between hands (the call, tricks, points, the score, the hand's review,
// every hand so far) and at the end of the game (the winners, the final score, the rating
// change, the last hand's review, a result to share, the way to the game's record, Play again).

import { copyText, fill, h, suitMark, withSuits } from './dom.js';
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
  return defenders === ourTeam(v) ? 'us' : 'them';
}

function handsTable(v) {
  const us = ourTeam(v);
  return h('table.hands', {},
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, 'Call'), h('th', { scope: 'col' }, 'Tricks'),
      h('th', { scope: 'col' }, 'Points'), h('th', { scope: 'col' }, `${teamName(v, us)}–${teamName(v, 1 - us)}`))),
    h('tbody', {}, v.hands.map((o) => {
      const makers = teamOf(o.maker);
      const tricks = makers === us ? `${o.tricks}–${5 - o.tricks}` : `${5 - o.tricks}–${o.tricks}`;
      return h('tr', { class: o.team === us ? 'ours' : 'theirs', 'data-hand': o.hand_no },
        h('td', {}, String(o.hand_no)),
        h('td.call', {}, suitMark(o.trump), ` ${nameOf(v, o.maker)}${o.alone !== null ? ' alone' : ''}`, o.how === 'euchre' ? h('span.how', {}, `euchred by ${euchredBy(v, 1 - makers)}`) : o.how === 'march' ? h('span.how', {}, 'march') : null),
        h('td', {}, tricks),
        h('td', {}, `+${o.points} ${teamName(v, o.team)}`),
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
  if (v.status === 'over') {
    const won = v.you !== null && v.winner === us;
    const title = v.you === null ? `${teamMembers(v, v.winner)} won` : won ? 'We won!' : 'They won';
    const squares = h('div.squares', { role: 'img', 'aria-label': `Each hand, who scored: ${v.hands.map((x) => teamName(v, x.team)).join(', ')}` }, v.hands.map((x) => h('span.square', { class: x.team === us ? 'ours' : 'theirs', title: `Hand ${x.hand_no}: ${teamName(v, x.team)}` })));
    const share = shareText(v);
    el.dataset.sheet = 'over';
    fill(el,
      h('header', {}, h('span.kicker', {}, 'Game over'), h('h2', { id: 'sheet-title' }, title),
        h('p.winners', {}, `${nameOf(v, v.winner)} & ${nameOf(v, v.winner + 2)} beat ${nameOf(v, 1 - v.winner)} & ${nameOf(v, 3 - v.winner)}`)),
      h('div.final', { 'data-final': `${v.score[0]}-${v.score[1]}` },
        h('span.us', { class: v.winner === us ? 'win' : '' }, h('small', {}, teamName(v, us)), h('b', {}, String(v.score[us]))),
        h('span.dash', {}, '–'),
        h('span.them', { class: v.winner !== us ? 'win' : '' }, h('small', {}, teamName(v, 1 - us)), h('b', {}, String(v.score[1 - us])))),
      rating,
      review,
      h('div.share-box', {}, squares,
        h('button.ghost', { type: 'button', name: 'share', onclick: async (e) => {
          const ok = await copyText(share);
          e.target.textContent = ok ? 'Copied!' : 'Select and copy below';
        } }, 'Copy result'),
        h('pre.share-text', {}, share.split('\n')[0].replace(/\s*\u{1F3C6}/u, ''))),
      h('details.all-hands', {}, h('summary', {}, `Every hand (${v.hands.length})`), handsTable(v)),
      h('footer', {},
        host ? keyButton('Play again', 'N', { class: 'primary big', name: 'again', onclick: act.playAgain, disabled: pending || !!v.again })
          : v.again && v.you !== null ? keyButton('Join the new table', 'N', { class: 'primary big', name: 'join-again', onclick: act.joinAgain })
            : h('p.hint', {}, 'The host can open a new table with the same rules: you’ll be invited.'),
        h('a.button', { href: recordPath(v.code) }, 'Game record'),
        h('a.button', { href: '#/' }, 'Lobby'),
        keyButton('See the table', 'Esc', { class: 'ghost', onclick: act.close })));
    return;
  }
  if (!o) return;
  const words = outcomeWords(v, o);
  const makers = teamOf(o.maker);
  const ourTricks = makers === us ? o.tricks : 5 - o.tricks;
  const waiting = [0, 1, 2, 3].filter((n) => !v.ready[n]).map((n) => (n === v.you ? 'you' : nameOf(v, n)));
  const buttons = [];
  if (v.can.ready) buttons.push(keyButton('Next hand', 'N', { class: 'primary big', name: 'ready', onclick: act.ready, disabled: pending }));
  if (v.can.deal && !v.can.ready) buttons.push(keyButton('Start without waiting', 'W', { class: 'big', name: 'deal', onclick: act.dealNow, disabled: dealHeld }));
  buttons.push(keyButton('See the table', 'Esc', { class: 'ghost', onclick: act.close }));
  el.dataset.sheet = 'hand';
  fill(el,
    h('header', {}, h('span.kicker', {}, `Hand ${o.hand_no}`), h('h2', { id: 'sheet-title' }, words.title), h('p', {}, withSuits(words.text))),
    h('dl.facts', {},
      h('div', {}, h('dt', {}, 'Call'), h('dd', {}, suitMark(o.trump), ` by ${nameOf(v, o.maker)}${o.alone !== null ? ', alone' : ''}${o.defender !== null ? `; ${nameOf(v, o.defender)} defended alone` : ''}`)),
      h('div', {}, h('dt', {}, 'Tricks'), h('dd', {}, `${teamName(v, us)} ${ourTricks} – ${teamName(v, 1 - us)} ${5 - ourTricks}`)),
      h('div', {}, h('dt', {}, 'Points'), h('dd', {}, pointsWords(v, o))),
      h('div.big-score', {}, h('dt', {}, 'Score'), h('dd', {},
        h('small', {}, teamName(v, us)), h('b.us', {}, String(o.score[us])), h('span.dash', {}, '–'),
        h('b.them', {}, String(o.score[1 - us])), h('small', {}, teamName(v, 1 - us))))),
    review,
    handsTable(v),
    waiting.length && !v.can.ready ? h('p.hint.waiting-on', {}, `Waiting for ${waiting.join(', ')}.`) : null,
    h('footer', {}, buttons));
}
