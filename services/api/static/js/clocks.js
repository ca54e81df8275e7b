// The table's clocks on the seat plates: how long before a bot covers a person whose
// connection dropped ("Disconnected · bot in 0:17"), and, with the turn limit on, how long
// the seat whose turn it is has left. The player is told, once, when theirs runs low.
//
// The server says how many seconds are left, never a time of day, so the page's clock and
// the server's needn't agree; a decision's time runs from when this page saw it begin, or, for
// one already under way when the page opened, from as long ago as the server says it has
// waited (the table's own view carries `waited`; the stream's views come as decisions begin).

import { t } from './i18n.js';
import { deciding } from './plates.js';

// A reload closes the stream for a moment: not worth a "Disconnected" that is gone again
// before it can be read.
const HOLD = 1500;
const LIMIT = { brisk: 60, relaxed: 120 }; // docs/euchre.md "Away and back"
const WARN_AT = 10; // seconds left when the player is told their time runs low

export class Clocks {
  /** `tell(text)`: says something to a screen reader, politely. */
  constructor(tell) {
    this.tell = tell;
    this.gone = new Map(); // seat: { since, until } by Date.now()
    this.turns = new Map(); // seat: { key, since }
    this.warned = null;
    this.timer = null;
    this.v = null;
    this.plates = [];
  }

  destroy() { clearInterval(this.timer); this.timer = null; }

  /** The stream's `presence` event, received `now`: who has no stream open, and the seconds
   * till a bot covers them. */
  disconnected(frame, now = Date.now()) {
    this.gone = new Map(frame.seats.map((g) => [g.seat, {
      since: now - (frame.grace - g.covers_in) * 1000,
      until: now + g.covers_in * 1000,
    }]));
    this.run();
  }

  /** A new view: which decisions began, for the turn timers. */
  update(v) {
    this.v = v;
    const now = Date.now();
    const limit = v.settings?.turn_limit === 'on' ? LIMIT[v.settings.bot_pace] ?? LIMIT.brisk : null;
    this.limit = limit;
    const turns = new Map();
    for (const seat of [0, 1, 2, 3]) {
      const s = v.seats[seat];
      if (!limit || !s?.player || s.away || !deciding(v, seat)) continue;
      const key = decisionKey(v, seat);
      const before = this.turns.get(seat);
      let since = before && before.key === key ? before.since : now;
      if (typeof v.waited === 'number') since = Math.min(since, now - v.waited * 1000);
      turns.set(seat, { key, since });
    }
    this.turns = turns;
    this.run();
  }

  /** Plates were drawn afresh: put the clocks back on them at once. */
  attach(plates) { this.plates = plates; this.tick(); }

  run() {
    const busy = this.turns.size > 0 || this.gone.size > 0;
    if (busy && !this.timer) this.timer = setInterval(() => this.tick(), 250);
    if (!busy && this.timer) { clearInterval(this.timer); this.timer = null; }
    this.tick();
  }

  tick() {
    const v = this.v;
    if (!v) return;
    const now = Date.now();
    for (const [seat, plate] of this.plates.entries()) {
      const el = plate.querySelector('.clocks');
      if (!el) continue;
      const away = v.seats[seat]?.away || v.status !== 'playing';
      const gone = away ? null : this.gone.get(seat);
      const turn = away ? null : this.turns.get(seat);
      let text = '';
      let kind = '';
      if (gone && now - gone.since >= HOLD) {
        kind = 'disconnected';
        text = t('Disconnected · bot in {time}', { time: clock(gone.until - now) });
      } else if (turn) {
        kind = 'turn';
        text = clock(turn.since + this.limit * 1000 - now);
      }
      if (el.dataset.kind !== kind) {
        el.dataset.kind = kind;
        el.hidden = !kind;
        el.title = kind === 'turn' ? t('Time left for this decision, then a bot makes it') : kind ? t('A bot covers this seat when the time runs out, unless they come back') : '';
      }
      if (el.textContent !== text) el.textContent = text;
    }
    const mine = v.you === null ? null : this.turns.get(v.you);
    if (mine && this.warned !== mine.key && mine.since + (this.limit - WARN_AT) * 1000 <= now
      && mine.since + this.limit * 1000 > now) {
      this.warned = mine.key;
      this.tell(t('{seconds} seconds left to decide, then a bot decides for you.', { seconds: WARN_AT }));
    }
  }
}

/** What changes whenever a seat's decision is made: the deal, the phase, the bids and cards. */
function decisionKey(v, seat) {
  return [seat, v.deal_no, v.phase, v.bids.length, v.tricks.length, v.trick.length, v.ready[seat]].join('/');
}

function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
