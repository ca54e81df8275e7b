// The host's tools during a game, in the bar: lock or unlock the room, and ban a person (who
// loses the seat to a bot). Before the start the waiting room has these on its seat cards;
// muting is in the chat panel.

import { api } from './api.js';
import { fill, h, Parts } from './dom.js';
import { t } from './i18n.js';
import { me } from './me.js';
import { nameOf } from './seats.js';

export class HostMenu {
  constructor(ctx) {
    this.ctx = ctx;
    this.parts = new Parts();
    this.list = h('div.bar-menu-items', { role: 'group', 'aria-label': t('Host tools') });
    this.el = h('details.bar-menu.host-menu', { hidden: true }, h('summary', {}, t('Host')), this.list);
  }

  update(v) {
    const host = !!me() && v.host === me().id && v.status === 'playing';
    this.el.hidden = !host;
    if (!host || !this.parts.changed('menu', v.locked, v.seats, v.banned)) return;
    const act = (call) => this.ctx.act(call).catch(() => {});
    const people = v.seats.map((s, n) => [s, n]).filter(([s, n]) => s.player && n !== v.you && !v.banned.some((b) => b.player === s.player));
    fill(this.list,
      h('button', { type: 'button', name: 'menu-lock', onclick: () => act(() => (v.locked ? api.unlock(v.code) : api.lock(v.code))) },
        v.locked ? t('Unlock the room') : t('Lock the room')),
      people.map(([s, n]) => h('button.ghost', {
        type: 'button', 'data-ban': n,
        onclick: () => { if (confirm(t('Ban {name}? A bot plays their seat to the end, and they can’t come back.', { name: nameOf(v, n) }))) act(() => api.ban(v.code, s.player)); },
      }, `Ban ${nameOf(v, n)}`)));
  }
}
