// "Leave table" during a game, and the rules of leaving stated beside it. What leaving costs
// is said before it is done: a bot of the table's level takes the seat for the rest of the
// game, and in a rated game leaving counts as a loss (docs/ratings.md "Integrity").

import { api } from './api.js';
import { fill, h } from './dom.js';
import { levelName } from './rules.js';

const BACK_MINUTES = 3; // docs/ratings.md: a stand-up is a leave unless back within 3 minutes

/** The rules of leaving, for the player at this seat: a sentence or two. */
export function leavingRules(v) {
  const rated = !!v.seats[v.you]?.registered;
  const bot = `a ${levelName(v.bots).toLowerCase()} bot plays your seat`;
  return rated
    ? `Leaving a rated game counts as a loss, whatever the score, unless you sit back down within ${BACK_MINUTES} minutes; meanwhile ${bot}.`
    : `If you leave, ${bot} to the end of the game; games played as a guest aren’t rated.`;
}

export function leaveKey(v) {
  const s = v.you === null ? null : v.seats[v.you];
  return [v.status, v.you, s?.away, s?.left, s?.registered, v.bots];
}

/** The button and the rules, for someone seated at a game under way and not yet away. */
export function drawLeave(el, v, game) {
  const s = v.you === null ? null : v.seats[v.you];
  if (!s || v.status !== 'playing' || s.away) {
    fill(el);
    el.hidden = true;
    return;
  }
  el.hidden = false;
  fill(el,
    h('button.ghost', { type: 'button', name: 'leave', onclick: () => leave(game) }, 'Leave table'),
    h('p.leave-rules', {}, leavingRules(v)));
}

async function leave(game) {
  const v = game.v;
  if (!window.confirm(`Leave the table?\n\n${leavingRules(v)}`)) return;
  await game.ctx.act(() => api.stand(v.code, v.you)).catch(() => {});
}
