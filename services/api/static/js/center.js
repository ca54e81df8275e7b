// The middle of the table: the trick (cards arriving one by one, a finished trick swept to
// its winner before the next lead), each seat's bid while bidding, and the turned card. Each card
// and trick is told to the game's play-by-play as its view arrives.
//
// The stream sends a view after every change; the trick on screen follows the views through
// a queue of cues, so a card played and a trick taken in one update still both show.

import { fill, h, Parts, withSuits } from './dom.js';
import { cardFace } from './cards.js';
import { animate, Cues, offsetTo, pause } from './motion.js';
import { POSITIONS, positionOf } from './seats.js';
import { bidWords, playedWords, tookWords } from './words.js';

const copy = (x) => ({ deal: x.deal, done: x.done, cards: x.cards.map((p) => ({ ...p })) });

export class Center {
  constructor(game) {
    this.game = game;
    this.parts = new Parts();
    this.cues = new Cues();
    this.cues.hurry = () => game.myTurnToPlay();
    this.cues.onSkip = () => this.showAsIs();
    this.cues.onchange = (busy) => {
      game.el.dataset.motion = busy ? 'busy' : 'idle';
      if (!busy) game.draw(); // what waited for the cards to land
    };
    this.generation = 0;
    this.slots = Object.fromEntries(POSITIONS.map((p) => [p, h(`div.slot.at-${p}`)]));
    this.bubbles = Object.fromEntries(POSITIONS.map((p) => [p, h(`div.bubble.at-${p}`, { hidden: true })]));
    this.deck = h('div.deck');
    this.el = h('div.center', {},
      h('div.slots', {}, Object.values(this.slots)),
      this.deck,
      h('div.bubbles', {}, Object.values(this.bubbles)));
    this.shown = null;
    this.planned = null;
  }

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
  }

  showAsIs() {
    this.cues.clear();
    this.generation += 1;
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
    await pause(900, speed);
    if (keep) delete this.el.dataset.sweeping;
    if (gen !== this.generation || keep) return;
    const plate = this.game.plateEl(trick.winner);
    await Promise.all(cards.map((c) => animate(c, [
      { transform: 'none', opacity: 1 },
      { transform: `${offsetTo(c, plate)} scale(.45)`, opacity: 0 },
    ], 460, speed, 'cubic-bezier(.5,0,.8,.4)')));
    delete this.el.dataset.sweeping;
    if (gen !== this.generation) return;
    for (const slot of Object.values(this.slots)) slot.replaceChildren();
    this.shown.done += 1;
    this.shown.cards = [];
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
    const kitty = h('div.kitty', { role: 'group', 'aria-label': 'The kitty' }, [0, 1, 2].map(() => cardFace(null)));
    const up = v.kitty_state === 'up'
      ? cardFace(v.up, { cls: 'up-card' })
      : h('div.turned-down', {}, cardFace(null), h('span.caption', {}, withSuits(`{${v.up[1]}} turned down`)));
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
}

/** The hand is scored (or the game won): its tricks are all played. */
function handOver(v) { return v.phase === 'scored' || v.status === 'over'; }
