// Ratings in words (a rating, a change, its spread) and the game-over sheet's line saying what
// the game did to the viewer's own.

import { api, settled } from './api.js';
import { h, fill } from './dom.js';
import { t } from './i18n.js';
import { me } from './me.js';
import { playerPath } from './nav.js';

export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : '±0');

/** "1290 → 1302 (+12)", in displayed ratings. */
export const changeWords = (before, after) => `${before.display} → ${after.display} (${signed(after.display - before.display)})`;

/** A rating still finding its level: its uncertainty is near a new player's 350 (true for
 * about the first five games, after which the leaderboard lists a player), so the number
 * shown, skill less three uncertainties, starts low and moves far with each game. */
export const provisional = (r) => r.sigma > 260;

export const PROVISIONAL = t('New ratings are provisional: they start low and move a lot over the first few games, until the system is sure of you.');

/** The skill the rating is drawn from, and how unsure of it we still are: "1410 ± 36". */
export const spreadWords = (r) => `${Math.round(r.mu)} ± ${Math.round(r.sigma)}`;

/** The table's ratings once they are in, or null when they aren't within a while. A worker
 * rates a game after it ends, usually well within a second; the table's view says "pending"
 * until it has. */
export function settledRatings(code, wanted) {
  return settled(async () => {
    const ratings = (await api.table(code)).ratings;
    return ratings && ratings.status !== 'pending' ? ratings : null;
  }, wanted);
}

const mineOf = (v, ratings) => ratings?.seats?.find((s) => s.seat === v.you);

/** What the line says, and why, for the viewer's seat; someone watching hears only that the
 * game wasn't rated at all. */
function lineFor(v, ratings, late) {
  if (!ratings || ratings.status === 'pending') {
    if (v.you === null) return null;
    return late ? ['late', t('The rating isn’t in yet: it will show on the players’ pages.')] : ['pending', t('Rating…')];
  }
  if (ratings.status === 'unrated') return ['unrated', t('Not rated: no registered player')];
  if (v.you === null) return null;
  const mine = mineOf(v, ratings);
  const change = mine?.before && mine?.after ? changeWords(mine.before, mine.after) : '';
  switch (mine?.status) {
    case 'rated': return ['rated', t('Rating {change}', { change })];
    case 'left': return ['left', change ? t('You left before the end: rated as a loss. Rating {change}', { change }) : t('You left before the end: rated as a loss')];
    case 'banned': return ['banned', t('The host banned you: rated as the bot played your seat out. Rating {change}', { change })];
    case 'stalled': return ['stalled', change ? t('You held up the game past the limit: rated as a loss. Rating {change}', { change }) : t('You held up the game past the limit: rated as a loss')];
    case 'covered': return ['covered', t('A bot played most of your seat: the win isn’t yours, not rated')];
    case 'hinted': return ['hinted', t('You took a hint: the win isn’t yours, not rated')];
    case 'abandoned': return ['abandoned', t('The game was ended for stalling: not rated')];
    case 'short': return ['short', t('A game to {points} points is too short to rate: not rated', { points: v.settings.points })];
    case 'guest': return ['guest', t('Guests aren’t rated — register to keep a rating')];
    default: return null;
  }
}

/** Fill the sheet's live line (kept across redraws, so its news is announced when it comes). */
export function drawRatingLine(el, v, ratings, late) {
  const line = lineFor(v, ratings, late);
  el.dataset.rating = line ? line[0] : 'none';
  const mine = mineOf(v, ratings);
  const first = line?.[0] === 'rated' && mine?.before && provisional(mine.before);
  fill(el, line ? line[1] : '', first ? h('span.rating-why', {}, PROVISIONAL) : null);
  if (mine?.before && mine?.after) el.dataset.change = Math.sign(mine.after.display - mine.before.display);
  else delete el.dataset.change;
}

/** The line in its box, with the way to the viewer's record and the leaderboard. */
export function ratingBox(line) {
  const who = me();
  return h('div.rating-box', {}, line,
    h('span.rating-links', {},
      who?.registered ? h('a', { href: playerPath(who.id) }, t('My record')) : null,
      h('a', { href: '#/leaderboard' }, t('Leaderboard'))));
}
