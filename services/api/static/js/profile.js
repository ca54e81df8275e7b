// A player's page: their rating and how it has moved, their counts, their record against each
// level of bot, and their latest games with the way to each one's record and log.

import { api } from './api.js';
import { fill, h } from './dom.js';
import { language, t, tc } from './i18n.js';
import { ratingChart } from './chart.js';
import { me } from './me.js';
import { bar, missingPage, recordPath } from './nav.js';
import { changeWords, PROVISIONAL, provisional, spreadWords } from './ratings.js';
import { ALL_LEVELS, levelName } from './rules.js';

const STATS = [
  ['games', t('Games')],
  ['won', t('Won')],
  ['lost', t('Lost')],
  ['alone_made', t('Alone and made it')],
  ['marches', t('Marches')],
  ['euchres_taken', t('Euchres dealt')],
  ['euchred', t('Times euchred')],
];

// The columns of the record against the computer, as the family's old page had them.
const RECORD = [
  ['won', tc('record', 'W'), t('matches won')],
  ['lost', tc('record', 'L'), t('matches lost')],
  ['alone', tc('record', 'A'), t('went alone successfully')],
  ['euchres', tc('record', 'E'), t('euchres dealt')],
  ['marches', tc('record', 'M'), t('marches scored')],
];

const when = new Intl.DateTimeFormat(language(), { dateStyle: 'medium', timeStyle: 'short' });

export function mountProfile(root, id) {
  root.dataset.view = 'loading';
  let gone = false;
  const body = h('div.page', {}, h('p.boot', {}, t('Looking the player up…')));
  fill(root, bar(), body);
  api.player(id).then((p) => {
    if (gone) return;
    fill(body, profile(p, p.id === me()?.id));
    root.dataset.view = 'profile';
  }, (err) => {
    if (gone) return;
    root.dataset.view = 'missing';
    fill(body, err.status === 404 ? missingPage(t('There is no such player'), t('The link may be mistyped, or the player long gone.'))
      : missingPage(t('That player can’t be shown'), err.message));
  });
  return () => { gone = true; };
}

function profile(p, mine) {
  return h('main.profile', { 'data-player': p.id },
    h('header.card-panel.profile-head', {},
      h('div', {},
        h('span.kicker', {}, p.registered ? t('Registered player') : t('Guest')),
        h('h1', {}, p.name, mine ? h('span.you', {}, ' ', t('(you)')) : null)),
      ratingNow(p.rating, mine)),
    // A guest with nothing counted has nothing more to show than that they aren't rated.
    p.registered || p.stats.games ? h('div.profile-grid', {},
      h('section.card-panel.history', {}, h('h2', {}, t('Rating history')),
        p.history.length ? ratingChart(p.history) : h('p.empty', {}, t('No rated games yet.'))),
      h('section.card-panel.stats', {}, h('h2', {}, t('Games')),
        h('dl.stat-grid', {}, STATS.map(([key, label]) => h('div', { 'data-stat': key }, h('dt', {}, label), h('dd', {}, String(p.stats[key])))))),
      records(p.records, mine),
      recent(p.recent)) : null);
}

function ratingNow(rating, mine) {
  if (!rating) {
    return h('p.rating-now.unrated', {}, mine ? t('Guests aren’t rated: in the lobby, choose Change name and add a password to keep a rating.') : t('Guests aren’t rated.'));
  }
  return h('div.rating-now', {},
    h('span.kicker', {}, t('Rating')),
    h('b.rating-figure', {}, String(rating.display)),
    h('span.rating-spread', {}, h('b', {}, spreadWords(rating)), ' ', t('skill ± uncertainty')),
    h('p.hint', {}, t('The skill less three times its uncertainty: it rises with wins, and as games make it surer.')),
    provisional(rating) ? h('p.hint.rating-why', {}, PROVISIONAL) : null);
}

function records(byLevel, mine) {
  const levels = ALL_LEVELS.filter((level) => byLevel[level]);
  return h('section.card-panel.records', {},
    h('h2', {}, mine ? t('Your record vs. the computer') : t('Record vs. the computer')),
    levels.length ? h('table.records-table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('Level')),
        RECORD.map(([, letter, meaning]) => h('th', { scope: 'col' }, h('abbr', { title: meaning }, letter))))),
      h('tbody', {}, levels.map((level) => h('tr', { 'data-level': level },
        h('th', { scope: 'row' }, levelName(level)),
        RECORD.map(([key]) => h('td', {}, String(byLevel[level][key]))))))) : h('p.empty', {}, t('No games against two bots yet.')),
    h('p.hint', {}, t('W / L = matches won / lost · A = went alone successfully · E = euchres dealt · M = marches scored. Totals are per level, across every game where both opponents were bots of that level.')));
}

function recent(games) {
  return h('section.card-panel.recent', {}, h('h2', {}, t('Recent games')),
    games.length ? h('table.recent-table', {},
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, t('Result')), h('th', { scope: 'col' }, t('Rating')), h('th', { scope: 'col' }, t('Game')))),
      h('tbody', {}, games.map((g) => h('tr', { 'data-code': g.code, class: g.won ? 'won' : 'lost' },
        h('td', {}, h('strong', {}, g.won ? t('Won') : g.left ? t('Left: a loss') : t('Lost')),
          h('time', { datetime: g.at }, when.format(new Date(g.at)))),
        h('td.change', {}, changeWords(g.before, g.after)),
        h('td.links', {},
          h('a', { href: `#/t/${encodeURIComponent(g.code)}`, title: t('The table as it ended') }, g.code),
          h('a', { href: recordPath(g.code), 'aria-label': t('The record of {code}', { code: g.code }) }, t('Record')),
          h('a', { href: g.log, 'aria-label': t('The log of {code}', { code: g.code }) }, t('Log'))))))) : h('p.empty', {}, t('No rated games yet.')));
}
