// The middle of the table: the trick (cards arriving one by one, a finished trick swept to
// its winner before the next lead), each seat's bid while bidding and the hand's bids kept in a
// corner after, the turned card, and the last trick on demand. Each card and trick is told to
// the game's play-by-play as its view arrives.
//
// The stream sends a view after every change; the trick on screen follows the views through
// a queue of cues, so a card played and a trick taken in one update still both show.

import { fill, h, Parts, withSuits } from './dom.js';
import { cardFace } from './cards.js';
import { t } from './i18n.js';
import { keycap } from './keys.js';
import { animate, Cues, offsetTo, pause } from './motion.js';
import { nameOf, POSITIONS, positionOf } from './seats.js';
import { bidWords, playedWords, tookWords, trickWords } from './words.js';

const copy = (x) => ({ deal: x.deal, done: x.done, cards: x.cards.map((p) => ({ ...p })) });

export class Center {
  constructor(game) {
    this.game = game;
    this.parts = new Parts();
    this.cues = new Cues();
    this.cues.hurry = () => game.myTurnToPlay();
    this.cues.onSkip = () => this.showAsIs();
    this.cues.onchange = (busy) => {
      game.el.dataset.motion = this.motion();
      if (!busy) game.draw(); // what waited for the cards to land
    };
    this.generation = 0;
    this.decided = null; // the trick on the table with its winner marked, until it is swept
    this.slots = Object.fromEntries(POSITIONS.map((p) => [p, h(`div.slot.at-${p}`)]));
    this.bubbles = Object.fromEntries(POSITIONS.map((p) => [p, h(`div.bubble.at-${p}`, { hidden: true })]));
    this.deck = h('div.deck');
    this.keptBids = h('section.kept-bids', { 'aria-label': t('Bids this hand'), hidden: true });
    this.peeking = false;
    this.peekButton = h('button.peek-toggle', {
      type: 'button', 'data-key': 'L', 'aria-pressed': 'false', hidden: true,
      title: t('Show the trick before this one, who played each card and who took it'),
      onclick: () => this.peek(!this.peeking),
    }, t('Last trick'), keycap('L'));
    this.peekEl = h('div.last-trick', { role: 'group', 'aria-label': t('The last trick'), hidden: true, onclick: () => this.peek(false) });
    this.peekSaid = h('p.sr-only', { role: 'status' });
    this.el = h('div.center', {},
      h('div.slots', {}, Object.values(this.slots)),
      this.deck,
      h('div.bubbles', {}, Object.values(this.bubbles)),
      this.keptBids,
      this.peekEl,
      this.peekButton,
      this.peekSaid);
    this.shown = null;
    this.planned = null;
  }

  /** The view as the table shows it, for the panels round it (plates, rail, status): the view
   * itself once every card it holds is down; while a finished trick is marked and swept with
   * the next one already begun, the view as that trick left it, its winner to lead; null
   * while cards are still landing (the panels wait for them). */
  shownView() {
    const v = this.v;
    if (!this.cues.busy) return v;
    const trick = this.decided;
    if (!trick) return null;
    if (!this.cues.queue.length) return v;
    if (v.deal_no !== this.shown.deal || v.tricks.length !== this.shown.done + 1) return null;
    const ahead = (seat) => v.trick.filter((p) => p.seat === seat).length;
    return { ...v, trick: [], leader: trick.winner, turn: trick.winner, counts: v.counts.map((n, seat) => n + ahead(seat)), can: {} };
  }

  /** `data-motion`: busy while cards land, shown while a decided trick is swept, else idle. */
  motion() { return !this.cues.busy ? 'idle' : this.shownView() ? 'shown' : 'busy'; }

  get v() { return this.game.v; }

  /** Bring the table in line with a new view, queueing what changed as cues. */
  sync(v, prev) {
    const now = { deal: v.deal_no, done: v.tricks.length, cards: v.trick.map((p) => ({ ...p })) };
    const plan = this.planned;
    if (!prev || !plan || plan.deal !== now.deal || now.done < plan.done) {
      // A first look, a new deal or a new game: the table as it is.
      this.planned = copy(now);
      this.showAsIs();
    } else {
      const played = (p) => {
        plan.cards.push({ ...p });
        this.cues.add((speed) => this.playCue(p, speed));
        this.game.tell(playedWords(v, p));
      };
      while (plan.done < now.done) {
        const trick = v.tricks[plan.done];
        const keep = plan.done === now.done - 1 && handOver(v);
        for (const p of trick.cards) if (!plan.cards.some((x) => x.seat === p.seat)) played(p);
        this.cues.add((speed) => this.sweepCue(trick, speed, keep), { held: true });
        this.game.tell(tookWords(v, plan.done));
        plan.done += 1;
        plan.cards = [];
      }
      for (const p of now.cards) if (!plan.cards.some((x) => x.seat === p.seat)) played(p);
    }
    this.drawDeck(v, prev);
    this.drawBids(v);
    this.drawKeptBids(v);
    this.drawPeek();
  }

  showAsIs() {
    this.cues.clear();
    this.generation += 1;
    this.decided = null;
    this.shown = copy(this.planned);
    for (const slot of Object.values(this.slots)) slot.replaceChildren();
    const kept = !this.shown.cards.length && handOver(this.v) ? this.v.tricks.at(-1) : null;
    for (const p of kept ? kept.cards : this.shown.cards) {
      this.slotOf(p.seat).append(this.face(p, kept && p.seat === kept.winner ? 'winning' : ''));
    }
  }

  slotOf(seat) { return this.slots[positionOf(this.v, seat)]; }

  face(p, cls = '') { return cardFace(p.card, { trump: this.v.trump, cls, attrs: { 'data-seat': p.seat } }); }

  async playCue(p, speed) {
    // A card lands once the banner over the table has gone, so no lead is played under it.
    await this.game.banners.idle();
    const gen = this.generation;
    const el = this.face(p);
    const slot = this.slotOf(p.seat);
    slot.replaceChildren(el);
    this.shown.cards.push({ ...p });
    this.peek(false); // play goes on: the table shows it
    const plate = this.game.plateEl(p.seat);
    await animate(el, [
      { transform: `${offsetTo(el, plate)} scale(.55)`, opacity: 0.2 },
      { transform: 'none', opacity: 1 },
    ], 420, speed);
    if (gen !== this.generation) return;
    el.getAnimations?.().forEach((a) => a.cancel());
  }

  /** The winner's card marked a while, then the trick swept to them; the hand's last trick
   * (`keep`) stays where it fell instead, to look back at until the next deal. */
  async sweepCue(trick, speed, keep = false) {
    const gen = this.generation;
    const cards = [...this.el.querySelectorAll('.slot .card')];
    const winner = cards.find((c) => Number(c.dataset.seat) === trick.winner);
    winner?.classList.add('winning');
    this.el.dataset.sweeping = 'yes';
    // Decided: the panels catch up with the cards now, not once the trick has gone.
    this.decided = trick;
    this.game.draw();
    await pause(900, speed);
    if (keep) delete this.el.dataset.sweeping;
    if (gen !== this.generation) return;
    if (keep) {
      this.decided = null;
      this.shown.done += 1;
      this.shown.cards = [];
      this.drawPeek();
      return;
    }
    const plate = this.game.plateEl(trick.winner);
    await Promise.all(cards.map((c) => animate(c, [
      { transform: 'none', opacity: 1 },
      { transform: `${offsetTo(c, plate)} scale(.45)`, opacity: 0 },
    ], 460, speed, 'cubic-bezier(.5,0,.8,.4)')));
    delete this.el.dataset.sweeping;
    if (gen !== this.generation) return;
    for (const slot of Object.values(this.slots)) slot.replaceChildren();
    this.decided = null;
    this.shown.done += 1;
    this.shown.cards = [];
    this.drawPeek();
  }

  drawDeck(v, prev) {
    const bidding = ['farmer', 'bid1', 'bid2'].includes(v.phase);
    const key = [v.deal_no, bidding ? v.kitty_state : null, bidding ? v.up : null];
    if (!this.parts.changed('deck', key)) return;
    // The dealer picks the turned card up: it flies from the middle to the dealer.
    const upEl = this.deck.querySelector('.card[data-card]');
    if (upEl && prev && prev.deal_no === v.deal_no && prev.kitty_state === 'up' && v.kitty_state === 'picked') {
      const box = upEl.getBoundingClientRect();
      const ghost = upEl.cloneNode(true);
      Object.assign(ghost.style, { position: 'fixed', left: `${box.left}px`, top: `${box.top}px`, width: `${box.width}px`, height: `${box.height}px`, margin: '0', zIndex: 30 });
      document.body.append(ghost);
      const plate = this.game.plateEl(v.dealer);
      animate(ghost, [{ transform: 'none', opacity: 1 }, { transform: `${offsetTo(ghost, plate)} scale(.5)`, opacity: 0 }], 650, 1)
        .then(() => ghost.remove());
      setTimeout(() => ghost.remove(), 1500);
    }
    if (!bidding) { this.deck.replaceChildren(); this.deck.hidden = true; return; }
    this.deck.hidden = false;
    const kitty = h('div.kitty', { role: 'group', 'aria-label': t('The kitty') }, [0, 1, 2].map(() => cardFace(null)));
    const up = v.kitty_state === 'up'
      ? cardFace(v.up, { cls: 'up-card' })
      : h('div.turned-down', {}, cardFace(null), h('span.caption', {}, withSuits(t('{suit} turned down', { suit: `{${v.up[1]}}` }))));
    fill(this.deck, kitty, up);
  }

  drawBids(v) {
    const phases = ['bid1', 'bid2', 'discard', 'defend'];
    const showing = phases.includes(v.phase);
    const round = v.phase === 'bid1' ? 1 : v.phase === 'bid2' ? 2 : (v.bids.at(-1)?.round ?? 1);
    const bids = showing ? v.bids.filter((b) => b.round === round) : [];
    const thinking = showing && (v.phase === 'bid1' || v.phase === 'bid2') ? v.turn : null;
    if (!this.parts.changed('bids', bids, thinking, v.you)) return;
    for (const seat of [0, 1, 2, 3]) {
      const el = this.bubbles[positionOf(v, seat)];
      const bid = bids.filter((b) => b.seat === seat).at(-1);
      if (bid) {
        el.hidden = false;
        el.dataset.bid = bid.bid;
        fill(el, withSuits(bidWords(bid, v.dealer)));
      } else if (thinking === seat && seat !== v.you) {
        el.hidden = false;
        el.dataset.bid = 'thinking';
        fill(el, h('span.dots', { role: 'img', 'aria-label': 'thinking' }, h('i'), h('i'), h('i')));
      } else {
        el.hidden = true;
        delete el.dataset.bid;
        el.replaceChildren();
      }
    }
  }

  /** The hand's bids, kept in a corner of the felt from the first bid until the next deal:
   * each seat's, in the order they were made. */
  drawKeptBids(v) {
    const bids = v.bids;
    if (!this.parts.changed('kept-bids', v.deal_no, bids, v.you, v.seats.map((s) => s.name))) return;
    this.keptBids.hidden = !bids.length;
    const order = [1, 2, 3, 4].map((n) => ((v.dealer ?? 0) + n) % 4);
    fill(this.keptBids,
      h('h2.kept-title', {}, t('Bids')),
      h('ul', {}, order.filter((seat) => bids.some((b) => b.seat === seat)).map((seat) => h('li', { 'data-seat': seat },
        h('span.who', {}, v.you === seat ? t('You') : nameOf(v, seat)),
        h('span.said', {}, bids.filter((b) => b.seat === seat).map((b, n) => h('span', { 'data-bid': b.bid }, n ? ', ' : '', withSuits(bidWords(b, v.dealer)))))))));
  }

  /** The last trick swept from the table, while one has been this deal. */
  lastTrick() {
    const v = this.v;
    if (!this.shown || this.shown.deal !== v.deal_no || !this.shown.done) return null;
    return v.tricks[this.shown.done - 1] ?? null;
  }

  /** Show or hide the last trick over the middle of the felt, said to a screen reader. */
  peek(on) {
    const trick = on ? this.lastTrick() : null;
    if (!trick && !this.peeking) return;
    this.peeking = !!trick;
    this.drawPeek();
    if (trick) this.peekSaid.textContent = t('Last trick: {trick}', { trick: trickWords(this.v, trick) });
  }

  drawPeek() {
    const v = this.v;
    const trick = this.lastTrick();
    this.peekButton.hidden = !trick;
    if (!trick) this.peeking = false;
    this.peekButton.setAttribute('aria-pressed', String(this.peeking));
    this.el.dataset.peek = this.peeking ? 'yes' : 'no';
    this.peekEl.hidden = !this.peeking;
    if (!this.peeking) { this.peekEl.replaceChildren(); return; }
    fill(this.peekEl,
      trick.cards.map((p) => h(`div.peek-card.at-${positionOf(v, p.seat)}`, { 'data-seat': p.seat },
        this.face(p, p.seat === trick.winner ? 'winning' : ''),
        h('span.peek-who', {}, v.you === p.seat ? t('You') : nameOf(v, p.seat)))),
      h('p.peek-took', {}, v.you === trick.winner ? t('Last trick: you took it') : t('Last trick: {name} took it', { name: nameOf(v, trick.winner) })));
  }
}

/** The hand is scored (or the game won): its tricks are all played. */
function handOver(v) { return v.phase === 'scored' || v.status === 'over'; }
