// "Leave table" during a game, among the bar's tools: what leaving costs is its description
// (heard with it, shown as its tooltip), asked again before it is done, and stated in the
// waiting room before the game starts: a bot of the table's level takes the seat for the rest
// of the game, and in a rated game leaving counts as a loss (docs/ratings.md "Integrity").
// A line of its own under the hand took the height the board needs.

import { api } from './api.js';
import { fill, h } from './dom.js';
import { t } from './i18n.js';
import { levelName } from './rules.js';

const BACK_MINUTES = 3; // docs/ratings.md: a stand-up is a leave unless back within 3 minutes

/** The rules of leaving, for the player at this seat: a sentence or two. */
export function leavingRules(v) {
  const rated = !!v.seats[v.you]?.registered;
  const level = levelName(v.bots).toLowerCase();
  return rated
    ? t('Leaving a rated game counts as a loss, whatever the score, unless you sit back down within {minutes} minutes; meanwhile a {level} bot plays your seat.', { minutes: BACK_MINUTES, level })
    : t('If you leave, a {level} bot plays your seat to the end of the game; games played as a guest aren’t rated.', { level });
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
  const rules = leavingRules(v);
  fill(el,
    h('button.ghost.small', { type: 'button', name: 'leave', title: rules, 'aria-describedby': 'leave-rules', onclick: () => leave(game) }, t('Leave table')),
    h('p.leave-rules.sr-only', { id: 'leave-rules' }, rules));
}

async function leave(game) {
  const v = game.v;
  if (!window.confirm([t('Leave the table?'), leavingRules(v)].join('\n\n'))) return;
  await game.ctx.act(() => api.stand(v.code, v.you)).catch(() => {});
}
