// The leaderboard: registered players with five rated games or more, best rating first, a page
// at a time.

import { api } from './api.js';
import { fill, h } from './dom.js';
import { t } from './i18n.js';
import { me } from './me.js';
import { bar, playerPath, StatusLine } from './nav.js';

const PAGE = 20;

export function mountLeaderboard(root) {
  root.dataset.view = 'loading';
  const status = new StatusLine('board-status');
  const who = me();
  const rows = h('tbody');
  const listEl = h('div.board-list', {}, h('p.empty', {}, t('Fetching the leaderboard…')));
  const more = h('button.ghost.more', { type: 'button', name: 'more', hidden: true, onclick: () => load(true) }, t('More'));
  let next = 0;
  let gone = false;

  const row = (p) => h('tr', { 'data-player': p.id, class: p.id === who?.id ? 'me' : null },
    h('td.rank', {}, String(p.rank)),
    h('td', {}, h('a', { href: playerPath(p.id) }, p.name), p.id === who?.id ? h('span.you', {}, ' ', t('(you)')) : null),
    h('td.num', {}, String(p.rating.display)),
    h('td.num', {}, String(p.games)));

  const load = async (asked = false) => {
    more.disabled = true;
    try {
      const page = await api.leaderboard(next, PAGE);
      if (gone) return;
      const added = page.players.map(row);
      rows.append(...added);
      next = page.next;
      more.hidden = next === null;
      if (!rows.children.length) {
        fill(listEl, h('p.empty', {}, t('Nobody has played five rated games yet. Register a name and play: the board fills as games end.')));
      } else if (!listEl.contains(rows)) {
        fill(listEl, h('table.ranks', {},
          h('thead', {}, h('tr', {},
            h('th.rank', { scope: 'col' }, t('Rank')), h('th', { scope: 'col' }, t('Player')),
            h('th.num', { scope: 'col' }, t('Rating')), h('th.num', { scope: 'col' }, t('Games')))),
          rows));
      } else if (asked && added.length) {
        // The button may go with the last page: keep the reader where the new rows begin.
        added[0].querySelector('a').focus();
      }
      root.dataset.view = 'leaderboard';
    } catch (err) {
      if (!gone) status.error(err);
    } finally {
      more.disabled = false;
    }
  };

  fill(root, bar(),
    h('main.board-page', {},
      h('h1', {}, t('Leaderboard')),
      h('p.lede', {}, t('Registered players with five rated games or more. The rating is each one’s skill less three times its uncertainty, so a lucky few games don’t top the board.')),
      status.el,
      h('section.card-panel', {}, listEl, more)));
  load();
  return () => { gone = true; };
}
