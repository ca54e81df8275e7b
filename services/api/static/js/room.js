// The waiting room: four seats, bots, the host's house rules in plain words, and the start.

import { api } from './api.js';
import { fill, h, Parts } from './dom.js';
import { t } from './i18n.js';
import { leavingRules } from './leave.js';
import { becomePlayer, me } from './me.js';
import { StatusLine, tableLink } from './nav.js';
import { HOUSE_RULES, LEVELS, levelName } from './rules.js';
import { nameOf, positionOf, teamOf } from './seats.js';

export class Room {
  constructor(ctx) {
    this.kind = 'room';
    this.ctx = ctx;
    this.parts = new Parts();
    this.status = new StatusLine('room-status');
    this.status.fallback = () => this.ctx.view && this.update(this.ctx.view);
    this.level = null;
    this.busy = false;
    this.nameInput = h('input', { name: 'name', autocomplete: 'nickname', maxlength: 40, placeholder: t('Your name'), 'aria-label': t('Your name') });
    this.signInEl = h('form.card-panel.sign-in', { onsubmit: (e) => { e.preventDefault(); this.signIn().catch(() => {}); } });
    this.seatsEl = h('div.room-seats');
    this.rulesEl = h('section.card-panel.room-rules');
    this.actionsEl = h('div.room-actions');
    this.shareEl = h('div.share');
    // Start comes before the seats and rules: on a laptop it is in view without a scroll.
    this.el = h('main.room', {},
      h('div.room-head', {}, h('h1', { tabindex: '-1' }, t('Waiting room')), this.shareEl),
      this.status.el,
      this.signInEl,
      this.actionsEl,
      h('div.room-grid', {},
        h('section.card-panel.room-table', {}, h('h2', {}, t('Seats')),
          h('p.hint', {}, t('Partners sit across from each other.')), this.seatsEl),
        this.rulesEl));
  }

  destroy() {}

  signedOut() { this.parts.forget(); if (this.ctx.view) this.update(this.ctx.view); }

  async signIn() {
    const name = this.nameInput.value.trim();
    if (!name) {
      this.nameInput.focus();
      this.status.say(t('Type your name first, then pick a seat.'), 'error');
      throw new Error('no name');
    }
    await becomePlayer(name).catch((err) => { this.status.error(err); throw err; });
    this.ctx.restream();
    this.parts.forget();
    this.update(this.ctx.view);
  }

  async run(call) {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.ctx.act(call);
    } catch { /* shown in the status line */ } finally {
      this.busy = false;
    }
  }

  update(v) {
    const who = me();
    const host = !!who && v.host === who.id;
    if (this.level === null) this.level = v.bots;
    this.el.dataset.host = host ? 'yes' : 'no';

    if (this.parts.changed('share', v.code)) {
      const link = tableLink(v.code);
      fill(this.shareEl, h('span', {}, t('Invite with the link')),
        h('input.share-link', { readonly: true, value: link, 'aria-label': t('Link to this table'), onfocus: (e) => e.target.select() }));
    }

    // A locked room takes no one new: someone not seated there can only watch, so nothing
    // offers them a name or a seat (the status line says why).
    const shut = v.locked && v.you === null && !host;
    if (this.parts.changed('sign-in', !!who, shut)) {
      this.signInEl.hidden = !!who || shut;
      if (!who && !shut) {
        fill(this.signInEl, h('label.field', {}, h('span', {}, t('Pick a name to sit down')), this.nameInput),
          h('button.primary', { type: 'submit' }, t('Save name')));
      }
    }

    if (this.parts.changed('seats', v.seats, v.you, v.host, who?.id, host, this.level, shut)) this.drawSeats(v, who, host, shut);
    if (this.parts.changed('rules', v.settings, host)) this.drawRules(v, host);
    if (this.parts.changed('actions', v.seats, v.you, host, v.bots, v.host, v.locked)) this.drawActions(v, host);

    if (!this.status.sticky) {
      const open = v.seats.filter((s) => !s.player && !s.bot).length;
      let text;
      if (shut) text = t('This room is locked: the host isn’t taking new players. You can watch the game, but not sit down.');
      else if (v.you === null) text = who ? t('Pick an open seat to join the game.') : t('Pick a name, then an open seat.');
      else if (host) {
        text = open === 1 ? t('You host. Invite friends, add bots, or start: the open seat gets a bot.')
          : open ? t('You host. Invite friends, add bots, or start: the {count} open seats get bots.', { count: open })
            : t('Every seat is taken. Start when you’re ready.');
      }
      else {
        const hostSeat = v.seats.findIndex((s) => s.player === v.host);
        text = hostSeat >= 0 ? t('You’re in. {name} will start the game.', { name: nameOf(v, hostSeat) }) : t('You’re in. The host will start the game.');
      }
      this.status.say(text);
    }
  }

  drawSeats(v, who, host, shut) {
    const seatCard = (n) => {
      const s = v.seats[n];
      const mine = v.you === n;
      const pos = positionOf(v, n);
      const relation = v.you === null ? t('Team {number}', { number: teamOf(n) + 1 }) : mine ? t('You') : teamOf(n) === teamOf(v.you) ? t('Your partner') : t('Opponent');
      let state = 'empty';
      if (mine) state = 'me';
      else if (s.player) state = 'player';
      else if (s.bot) state = 'bot';
      const buttons = [];
      if (state === 'empty' && !shut) {
        // Sitting down is a watcher's first step; moving seats is a seated player's aside,
        // never brighter than Start.
        buttons.push(h(v.you === null ? 'button.primary' : 'button', {
          type: 'button', 'data-action': 'sit',
          onclick: async () => {
            if (!me()) { try { await this.signIn(); } catch { return; } }
            this.run(() => api.sit(v.code, n));
          },
        }, v.you === null ? t('Sit here') : t('Move here')));
        if (host) buttons.push(h('button', { type: 'button', 'data-action': 'bot', onclick: () => this.run(() => api.bot(v.code, n, this.level)) }, t('Add bot')));
      } else if (state === 'bot' && host) {
        buttons.push(h('button', { type: 'button', 'data-action': 'remove-bot', onclick: () => this.run(() => api.stand(v.code, n)) }, t('Remove bot')));
      } else if (state === 'player' && host) {
        buttons.push(h('button.ghost', {
          type: 'button', 'data-action': 'ban',
          onclick: () => { if (confirm(t('Ban {name}? They lose the seat and can’t sit or watch here again.', { name: nameOf(v, n) }))) this.run(() => api.ban(v.code, s.player)); },
        }, t('Ban')));
      } else if (mine) {
        buttons.push(h('button.ghost', { type: 'button', 'data-action': 'stand', onclick: () => this.run(() => api.stand(v.code, n)) }, t('Stand up')));
      }
      // The host's partner is whoever sits across: "As partners" moves this seat there.
      if (host && v.you !== null && !mine && state !== 'empty' && teamOf(n) !== teamOf(v.you)) {
        buttons.push(h('button', { type: 'button', 'data-action': 'partner', onclick: () => this.run(() => api.partner(v.code, n)) }, t('As partners')));
      }
      const who = state === 'empty' ? t('Open seat') : nameOf(v, n);
      return h(`div.seat-card.at-${pos}`, { 'data-seat': n, 'data-state': state },
        h('span.relation', {}, relation),
        h('strong.occupant', {}, who),
        h('span.tags', {},
          s.player && s.player === v.host ? h('span.tag', {}, t('Host')) : null,
          state === 'bot' ? h('span.tag.bot', {}, t('{level} bot', { level: levelName(s.bot) })) : null),
        mine && (s.commitment || s.seed) ? shuffleShare(s) : null,
        h('span.seat-buttons', {}, buttons));
    };
    const levelPicker = host ? h('label.level-pick', {}, h('span', {}, t('Bots added')),
      h('select', { name: 'bot-level', onchange: (e) => { this.level = e.target.value; this.parts.forget('seats'); this.update(this.ctx.view); } },
        LEVELS.map(([k, label]) => h('option', { value: k, selected: k === this.level }, label)))) : null;
    fill(this.seatsEl, h('div.seat-cross', {}, [0, 1, 2, 3].map(seatCard), h('div.seat-felt', {}, h('span', {}, v.code))), levelPicker);
  }

  drawRules(v, host) {
    fill(this.rulesEl,
      h('h2', {}, t('House rules')),
      h('p.hint', {}, host ? t('You host: change them until the game starts.') : t('The host chose these.')),
      h('div.rules-list', {}, HOUSE_RULES.map((r) => {
        const value = v.settings[r.key];
        const label = (r.choices.find(([k]) => k === value) || [value, value])[1];
        const control = host
          ? h('div.seg', { role: 'radiogroup', 'aria-label': r.label }, r.choices.map(([k, text]) => h('label', {},
            h('input', { type: 'radio', name: `room-${r.key}`, value: k, checked: k === value, 'data-rule': r.key,
              onchange: () => this.run(() => api.settings(v.code, { [r.key]: k })) }),
            h('span', {}, text))))
          : h('span.rule-value', { 'data-value': value }, label);
        return h('div.rule-row', { 'data-rule': r.key, 'data-value': value },
          h('div.rule-words', {}, h('strong', {}, r.label), h('span.hint', {}, r.hint)), control);
      })));
  }

  drawActions(v, host) {
    const open = v.seats.filter((s) => !s.player && !s.bot).length;
    if (host) {
      fill(this.actionsEl,
        h('button.primary.big', { type: 'button', name: 'start', onclick: () => this.run(() => api.start(v.code)) }, t('Start the game')),
        h('button.ghost', { type: 'button', name: 'lock', 'aria-pressed': String(v.locked), onclick: () => this.run(() => (v.locked ? api.unlock(v.code) : api.lock(v.code))) },
          v.locked ? t('Unlock the room') : t('Lock the room')),
        h('p.hint', {}, botsComing(open, levelName(v.bots).toLowerCase())));
    } else {
      fill(this.actionsEl, h('p.hint', {}, t('The host starts the game; open seats get bots.')));
    }
    // Whoever sits hears the rule of leaving before the game starts, not only when leaving.
    if (v.you !== null) this.actionsEl.append(h('p.hint.leave-rule', {}, leavingRules(v)));
  }
}

/** What the open seats will get when the host starts: "The 2 open seats will get easy bots." */
function botsComing(open, level) {
  if (open === 4) return t('Every open seat will get {level} bots.', { level });
  if (open === 1) return t('The open seat will get {level} bots.', { level });
  if (open) return t('The {count} open seats will get {level} bots.', { count: open, level });
  return t('Four at the table.');
}

/** The seat's share of the shuffle, in words, with what an auditor checks folded under it:
 * the seed this browser chose, and whether the table holds only its fingerprint so far. */
function shuffleShare(s) {
  const sealed = !!s.commitment;
  return h('details.seed', {},
    h('summary', {}, sealed ? t('Your share of the shuffle is sealed') : t('Your share of the shuffle')),
    h('p', {}, t('This browser picked a random number that is mixed into every deal, so nobody, the server included, can stack the deck alone.'), ' ',
      sealed ? t('It stays here until the game starts; the table holds only its fingerprint:') : t('The table was given it openly (this page can’t seal it here):')),
    h('code', {}, sealed ? s.commitment : s.seed));
}
