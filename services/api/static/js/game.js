// The table during a game: plates, the trick, the rail, your hand and the dock of moves,
// banners and the result sheet. Each part redraws only when what it shows has changed.

import { TurnAlert } from './alert.js';
import { api } from './api.js';
import { Banners } from './banners.js';
import { cardShort, effectiveSuit } from './cards.js';
import { drawMoves, hintOffered, statusText } from './dock.js';
import { Center } from './center.js';
import { Clocks } from './clocks.js';
import { h, Parts, sleep } from './dom.js';
import { drawHand, handKey } from './hand.js';
import { t } from './i18n.js';
import { arrange, handSort, moveCard, setHandSort } from './handorder.js';
import { drawLeave, leaveKey } from './leave.js';
import { me } from './me.js';
import { go, StatusLine } from './nav.js';
import { drawPlate, plateKey } from './plates.js';
import { drawRail, railKey } from './rail.js';
import { drawRatingLine, ratingBox, settledRatings } from './ratings.js';
import { reorderHand } from './reorder.js';
import { drawReview, settledReview } from './review.js';
import { nameOf } from './seats.js';
import { answerStart } from './seed.js';
import { drawSheet, sheetKey } from './sheet.js';
import { callBanner, cannotPlay, claimedWords, defendBanner, outcomeWords, scoredWords } from './words.js';

const DEAL_HOLD = 1200;
// Offers that aren't the player's turn: dealing early is the host's option, and the seed the
// start asks for this page sends by itself.
const NOT_A_TURN = new Set(['deal', 'reveal', 'withhold']);
const TOLD_KEPT = 20; // lines the play-by-play keeps: it is heard as it grows, never reread

export class Game {
  constructor(ctx) {
    this.kind = 'game';
    this.ctx = ctx;
    this.parts = new Parts();
    this.status = new StatusLine('dock-status');
    this.status.fallback = () => this.drawStatus(true);
    this.status.moment = () => momentOf(this.v);
    this.v = null;
    this.alone = false;
    this.pending = false;
    this.hinting = false;
    this.hint = null; // the last hint asked for, and the moment it answers (momentOf)
    this.selected = new Set();
    this.sheetOpen = false;
    this.sheetPlanned = null;
    this.sheetClosedFor = null;
    this.lastDealt = null;
    this.dealOpensAt = 0;
    this.dealTimer = null;
    this.ratings = null;
    this.ratingsAsked = false;
    this.ratingsLate = false;
    this.reviews = new Map(); // hand_no: its review, or null once it was late
    this.gone = false;
    this.alert = new TurnAlert();

    this.plates = [0, 1, 2, 3].map(() => h('div.plate'));
    this.center = new Center(this);
    this.banners = new Banners((b) => this.bannerDue(b), (el) => this.placeBanner(el));
    this.railEl = h('aside.rail', { 'aria-label': t('Score, trump and tricks') });
    this.feltEl = h('section.felt', { 'aria-label': t('The table') }, this.plates, this.center.el, this.banners.el);
    this.movesEl = h('div.moves');
    this.handEl = h('div.hand', { role: 'group', 'aria-label': t('Your hand') });
    this.shown = []; // the hand in the order drawn
    reorderHand(this.handEl, { active: () => handSort() === 'mine', drop: (card, to, byKey) => this.moveCard(card, to, byKey) });
    this.sheetEl = h('div.sheet', { role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'sheet-title', onkeydown: (e) => this.keepTabInSheet(e) });
    this.sheetLayer = h('div.sheet-layer', { hidden: true, 'data-layer': '2' }, this.sheetEl);
    this.ratingEl = h('p.rating-line', { role: 'status', 'aria-live': 'polite' });
    this.reviewEl = h('section.review', { role: 'status', 'aria-live': 'polite' });
    // The play as a screen reader hears it: each card, each trick's winner, each hand's score.
    this.toldEl = h('div.sr-only', { role: 'log', 'aria-label': t('The play') });
    this.headingEl = h('h1.sr-only', { tabindex: '-1' }, t('The game at table {code}', { code: ctx.code }));
    // The clocks' word to the player whose time runs low.
    this.noticeEl = h('div.sr-only.turn-notice', { role: 'status', 'aria-live': 'polite' });
    this.clocks = new Clocks((text) => { this.noticeEl.textContent = text; });
    this.clocks.attach(this.plates);
    // "Leave table" goes with the bar's tools (on a phone, behind "⋯"): the board needs
    // every line of the screen's height, and leaving is rare.
    this.leaveEl = h('div.leave', { hidden: true });
    ctx.tools?.append(this.leaveEl);
    this.el = h('main.game', {},
      this.headingEl,
      this.toldEl,
      this.noticeEl,
      h('div.board', {}, this.feltEl, this.railEl),
      h('div.dock', {}, this.status.el, this.movesEl),
      this.handEl,
      this.sheetLayer);
    this.el.dataset.motion = 'idle';
  }

  destroy() {
    this.gone = true;
    this.leaveEl.remove();
    this.alert.stop();
    clearTimeout(this.dealTimer);
    this.clocks.destroy();
    this.center.cues.clear();
    this.banners.clear();
  }

  plateEl(seat) { return this.plates[seat]; }

  /** The stream's word on who is disconnected (clocks.js). */
  presence(frame, at) { this.clocks.disconnected(frame, at); }

  myTurnToPlay() { return !!this.v?.can?.play; }

  update(v) {
    const prev = this.v;
    this.v = v;
    // "Start without waiting" takes the place of "Next hand": hold it a moment so a double
    // click can't deal over someone still reading.
    if (v.can?.deal && !v.can?.ready && (!prev || prev.can?.ready)) {
      this.dealOpensAt = Date.now() + DEAL_HOLD;
      clearTimeout(this.dealTimer);
      this.dealTimer = setTimeout(() => { this.parts.forget('moves'); this.parts.forget('sheet'); this.draw(); }, DEAL_HOLD + 20);
    }
    if (!prev || prev.deal_no !== v.deal_no || prev.phase !== v.phase) {
      this.alone = false;
      this.selected.clear();
    }
    if (v.can?.reveal && !this.revealed) this.reveal(v);
    this.announce(prev, v);
    this.clocks.update(v);
    this.center.sync(v, prev);
    if (prev && v.claimed && !prev.claimed) this.tell(claimedWords(v, v.claimed));
    if (prev && v.hands.length > prev.hands.length && v.outcome) this.tell(scoredWords(v, v.outcome));
    if (v.status === 'over') this.followRatings(v);
    if (v.outcome && (v.phase === 'scored' || v.status === 'over')) this.followReview(v.code, v.outcome.hand_no);
    this.draw();
    this.planSheet();
  }

  /** The game's ratings, from the view when they are in it and from asking again until then. */
  followRatings(v) {
    if (v.ratings && v.ratings.status !== 'pending') this.ratings = v.ratings;
    if (this.ratings || this.ratingsAsked) return;
    this.ratingsAsked = true;
    settledRatings(v.code, () => !this.gone && !this.ratings).then((ratings) => {
      if (this.gone || this.ratings) return;
      this.ratings = ratings;
      this.ratingsLate = !ratings;
      this.draw();
    });
  }

  /** The review of the hand just scored, asked for until the worker has done it. */
  followReview(code, handNo) {
    if (this.reviews.has(handNo)) return;
    this.reviews.set(handNo, undefined);
    settledReview(code, handNo, () => !this.gone).then((review) => {
      if (this.gone) return;
      this.reviews.set(handNo, review);
      this.draw();
    });
  }

  /** Add a line to the play-by-play. */
  tell(text) {
    this.toldEl.append(h('p', {}, text));
    while (this.toldEl.childElementCount > TOLD_KEPT) this.toldEl.firstElementChild.remove();
  }

  // ---- banners

  announce(prev, v) {
    if (!prev) return;
    const sameDeal = prev.deal_no === v.deal_no;
    if (sameDeal && prev.maker === null && v.maker !== null) {
      const bid = [...v.bids].reverse().find((b) => b.bid !== 'pass');
      if (bid) this.banners.add({ ...callBanner(v, bid), deal: v.deal_no });
    }
    if (sameDeal && prev.defender === null && v.defender !== null) this.banners.add({ ...defendBanner(v), deal: v.deal_no });
    if (sameDeal && !prev.claimed && v.claimed) this.banners.add({ title: t('Claimed'), text: claimedWords(v, v.claimed), tone: 'call', deal: v.deal_no });
    if (v.hands.length > prev.hands.length && v.outcome) {
      const words = outcomeWords(v, v.outcome);
      // A euchre or a march is said once the last trick's cards have landed, never before.
      const banner = { title: words.banner, text: words.title, tone: v.outcome.how, hand: v.outcome.hand_no, deal: v.deal_no };
      if (words.banner) this.center.cues.idle().then(() => this.banners.add(banner));
    }
    if (v.deal_no > prev.deal_no && v.hand_no === prev.hand_no && prev.status === 'playing' && prev.phase !== 'scored') {
      this.banners.add({ title: t('Thrown in'), text: t('Everyone passed. The next dealer deals.'), tone: 'call', deal: v.deal_no });
    }
  }

  /** A banner sits just under the plate across the table: clear of every plate, so nobody's
   * name, cards or "Sitting out" is hidden while it shows. */
  placeBanner(el) {
    const across = this.plates.find((p) => p.classList.contains('at-top'));
    if (!across) return;
    const felt = this.feltEl.getBoundingClientRect();
    el.style.top = `${Math.round(across.getBoundingClientRect().bottom - felt.top + 8)}px`;
  }

  bannerDue(b) { return !this.gone && !this.sheetOpen && b.deal === this.v.deal_no; }

  // ---- drawing

  draw() {
    const v = this.v;
    if (!v) return;
    const host = !!me() && v.host === me()?.id;
    const mine = Object.keys(v.can || {}).some((k) => !NOT_A_TURN.has(k));
    // What the cards make (counts, turns, score, pips, your next move) waits until the table
    // has shown those cards: never a fact before the cards that make it, nor long after.
    const at = this.center.shownView();
    const settled = at !== null;
    const held = at !== v && !!v.can?.play;
    Object.assign(this.el.dataset, {
      motion: this.center.motion(),
      phase: v.phase,
      status: v.status,
      seq: String(v.seq),
      turn: mine && !held ? 'me' : v.turn !== null ? 'other' : 'none',
      you: v.you === null ? 'watching' : String(v.you),
      sheet: this.sheetOpen ? 'open' : 'closed',
      pending: this.pending ? 'yes' : 'no',
      trick: v.trick.map((p) => p.card).join(' '),
    });
    this.alert.update(mine && !held);
    for (const seat of [0, 1, 2, 3]) {
      if (settled && this.parts.changed(`plate${seat}`, plateKey(at, seat))) drawPlate(this.plates[seat], at, seat);
    }
    this.clocks.tick();
    if (this.parts.changed('leave', leaveKey(v))) drawLeave(this.leaveEl, v, this);
    // A plate that grew (a "Called" tag) must not grow under a banner showing below it.
    if (!this.banners.el.hidden) this.placeBanner(this.banners.el);
    if (settled && this.parts.changed('rail', railKey(at))) drawRail(this.railEl, at);
    const sort = handSort();
    if (at === v && this.parts.changed('moves', v.can, v.phase, v.status, v.up, v.you, v.dealer, this.alone, this.pending, this.selected.size, this.sheetOpen, host, v.seats[v.you ?? 0].away, v.again, sort, v.hand.length > 0, hintOffered(v), this.hinting)) {
      keepFocus(this.movesEl, () => drawMoves(this, v, host));
    }
    const dealt = this.lastDealt !== v.deal_no && ['farmer', 'bid1'].includes(v.phase) && v.bids.length === 0;
    this.shown = v.you === null ? [] : arrange(v);
    if (this.parts.changed('hand', handKey(v, this.shown, sort, this.selected, this.pending), held)) {
      keepFocus(this.handEl, () => drawHand(this.handEl, v, { cards: this.shown, sort, selected: this.selected, pending: this.pending, held, dealt, onCard: (c) => this.onCard(c) }));
      this.lastDealt = v.deal_no;
    }
    if (settled) this.drawStatus(false, at);
    // A refusal about a moment gone goes at once, even while the cards after it still land.
    else if (this.status.sticky && this.status.said !== momentOf(v)) this.status.say('', 'info');
    if (this.sheetOpen && this.parts.changed('sheet', sheetKey(v, host), this.pending, this.dealHeld())) this.drawSheetNow(host);
    if (v.status === 'over' && this.parts.changed('rating', this.ratings, this.ratingsLate, v.you)) {
      drawRatingLine(this.ratingEl, v, this.ratings, this.ratingsLate);
    }
    this.markHint();
    const review = v.outcome ? this.reviews.get(v.outcome.hand_no) : undefined;
    if (v.outcome && this.parts.changed('review', v.outcome.hand_no, review ?? null, review === null, v.you, v.seats.map((s) => s.name))) {
      drawReview(this.reviewEl, v, review, review === null);
    }
  }

  /** An option changed (options.js): redraw what it decides that styles alone don't. */
  redraw() {
    if (!this.v) return;
    this.draw();
    this.drawStatus(true);
  }

  /** The card or bid of the hint for this moment lit up; any other hint's light gone. */
  markHint() {
    for (const el of this.el.querySelectorAll('[data-hinted]')) el.removeAttribute('data-hinted');
    const hint = this.hint;
    if (!hint || hint.moment !== momentOf(this.v)) return;
    const { move, card } = hint;
    const where = card ? this.handEl.querySelector(`[data-card="${card}"]`)
      : this.movesEl.querySelector({
        order: '[data-move=order]',
        pass: '[data-move=pass]',
        call: `[data-move=call][data-suit="${move.suit}"]`,
        defend: move.alone ? '[data-move=defend-alone]' : '[data-move=defend]',
      }[move.type]);
    where?.setAttribute('data-hinted', 'yes');
  }

  /** Ask what the expert would do here: the words go on the status line until the moment
   * passes, and the card or bid is lit up. */
  async askHint() {
    const v = this.v;
    if (this.pending || this.hinting || !v) return;
    this.hinting = true;
    this.draw();
    try {
      const hint = await this.ctx.act(() => api.hint(v.code));
      this.hint = { ...hint, moment: momentOf(v) };
      if (momentOf(this.v) === this.hint.moment) this.status.say(t('Hint: {words}', { words: hint.words }), 'hint', 600000);
    } catch { /* the status line says why */ } finally {
      this.hinting = false;
      this.draw();
    }
  }

  drawStatus(force = false, at = this.v) {
    // A refusal or a hint is about the card or bid it answered: once another is made, it goes.
    if (this.status.sticky && !force && this.status.said === momentOf(this.v)) return;
    this.status.say(statusText(at), 'info');
  }

  // ---- acting

  /** The start asks for the seed this browser committed to: send it (or withhold, if this
   * browser no longer has it) at once, unpinned by `seq`, since the others answer meanwhile. */
  async reveal(v) {
    this.revealed = true;
    const move = await answerStart(v.code, v.can.reveal.commitment);
    await this.ctx.act(() => api.move(v.code, move), { quiet: true }).catch(() => {});
  }

  async send(move) {
    if (this.pending || !this.v) return;
    this.pending = true;
    this.draw();
    try {
      await this.ctx.act(() => api.move(this.v.code, { ...move, seq: this.v.seq }));
    } catch { /* the status line says why */ } finally {
      this.pending = false;
      this.draw();
    }
  }

  onCard(card) {
    const v = this.v;
    const can = v.can || {};
    if (this.pending) return;
    if (can.play && this.center.shownView() !== v) return; // the trick so far is still landing
    if (can.play) {
      if (can.play.cards.includes(card)) this.send({ type: 'play', card });
      else this.explain(card);
    } else if (can.discard) {
      // Picked, not yet buried: Bury sends it, and until then another card can be picked.
      this.selected = new Set(this.selected.has(card) ? [] : [card]);
      this.draw();
    } else if (can.farmer) {
      if (this.selected.has(card)) this.selected.delete(card);
      else if (this.selected.size < 3) this.selected.add(card);
      this.draw();
    } else if (v.turn !== null && v.turn !== v.you) {
      this.status.say(t('Wait for {name}.', { name: nameOf(v, v.turn) }), 'info', 2500);
    }
  }

  /** The suit sort or My order, for every table from now on. */
  toggleSort() {
    const sort = handSort() === 'mine' ? 'suit' : 'mine';
    setHandSort(sort);
    this.draw();
    this.status.say(sort === 'mine'
      ? t('Your hand is in your order: drag a card, or press Shift and an arrow key on it, to move it.')
      : t('Your hand is sorted by suit, trump first.'), 'info', 4000);
  }

  moveCard(card, to, byKey) {
    moveCard(this.v, this.shown, card, to);
    this.draw();
    if (!byKey) return;
    // Focus stays on the card moved, not on the place it left.
    this.handEl.querySelector(`[data-card="${card}"]`)?.focus();
    this.status.say(t('{card} moved to place {place} of {count}.', { card: cardShort(card), place: to + 1, count: this.shown.length }), 'info', 2500);
  }

  explain(card) {
    const v = this.v;
    const led = v.trick.length ? effectiveSuit(v.trick[0].card, v.trump) : null;
    this.status.say(cannotPlay(card, v.trump, led), 'error', 4000);
  }

  async playAgain() {
    if (this.pending) return;
    this.pending = true;
    this.draw();
    try {
      this.status.say(t('Opening a new table…'));
      // The server keeps everyone's seat for them and invites them; the bots come along.
      const fresh = await api.again(this.v.code);
      // Against bots alone there is nobody to wait for.
      if (fresh.seats.every((s, n) => n === fresh.you || s.bot)) await api.start(fresh.code);
      go(`/t/${fresh.code}`);
    } catch (err) {
      this.status.error(err);
    } finally {
      this.pending = false;
      this.draw();
    }
  }

  /** The host opened the next table: take the seat kept there for us. */
  async joinAgain() {
    const v = this.v;
    try {
      await api.sit(v.again, v.you);
      go(`/t/${v.again}`);
    } catch (err) {
      this.status.error(err);
    }
  }


  // ---- the result sheet

  sheetId(v) { return `${v.status === 'over' ? 'over' : 'hand'}:${v.hands.length}`; }

  planSheet() {
    const v = this.v;
    const due = v.phase === 'scored' || v.status === 'over';
    if (!due) {
      this.sheetPlanned = null;
      if (this.sheetOpen) this.closeSheet(false);
      return;
    }
    const id = this.sheetId(v);
    if (this.sheetOpen || this.sheetClosedFor === id || this.sheetPlanned === id) return;
    this.sheetPlanned = id;
    (async () => {
      // The last trick is seen to its winner, and the banners play, before the sheet opens.
      await this.center.cues.idle();
      await this.banners.idle();
      await sleep(v.status === 'over' ? 900 : 700);
      if (this.gone || this.sheetPlanned !== id || this.sheetId(this.v) !== id) return;
      this.openSheet();
    })();
  }

  openSheet() {
    if (this.sheetOpen) return;
    this.banners.clear();
    this.sheetOpen = true;
    this.sheetLayer.hidden = false;
    this.parts.forget('sheet');
    this.draw();
    this.sheetEl.querySelector('button.primary')?.focus({ preventScroll: true });
  }

  closeSheet(byHand = true) {
    const inside = this.sheetEl.contains(document.activeElement);
    if (byHand) this.sheetClosedFor = this.sheetId(this.v);
    this.sheetOpen = false;
    this.sheetLayer.hidden = true;
    this.draw();
    // Focus goes back to the button that opens the sheet again, or, the hand gone on, to the
    // game's heading: never to the page's body.
    if (inside) (this.movesEl.querySelector('[data-move=result]') || this.headingEl).focus({ preventScroll: true });
  }

  /** While the sheet is open, Tab goes round its controls: the table under it is out of reach. */
  keepTabInSheet(e) {
    if (e.key !== 'Tab') return;
    const controls = [...this.sheetEl.querySelectorAll('button, a[href], summary, input')]
      .filter((el) => !el.disabled && el.getClientRects().length);
    const [first, last] = [controls[0], controls.at(-1)];
    const to = e.shiftKey ? (document.activeElement === first ? last : null) : (document.activeElement === last ? first : null);
    if (!to) return;
    e.preventDefault();
    to.focus();
  }

  dealHeld() { return Date.now() < this.dealOpensAt; }

  drawSheetNow(host) {
    keepFocus(this.sheetEl, () => drawSheet(this.sheetEl, this.v, {
      host,
      rating: ratingBox(this.ratingEl),
      review: this.reviewEl,
      dealHeld: this.dealHeld() || this.pending,
      pending: this.pending,
      act: {
        ready: () => this.send({ type: 'ready' }),
        dealNow: () => this.send({ type: 'deal' }),
        close: () => this.closeSheet(),
        playAgain: () => this.playAgain(),
        joinAgain: () => this.joinAgain(),
      },
    }));
  }
}

/** Redraw a part and, if focus was inside it, put it back on the element with the same key. */
function keepFocus(el, redraw) {
  const active = document.activeElement;
  const inside = active && el.contains(active) && active !== el;
  const ident = inside ? (active.dataset.key || active.getAttribute('name') || active.dataset.card) : null;
  redraw();
  if (!ident) return;
  const again = el.querySelector(`[data-key="${CSS.escape(ident)}"], [name="${CSS.escape(ident)}"], [data-card="${CSS.escape(ident)}"]`);
  if (again && !again.disabled) again.focus({ preventScroll: true });
}

/** Where the hand stands: a bid, a card, a trick or a phase later is another moment. */
function momentOf(v) {
  return v ? [v.status, v.deal_no, v.phase, v.bids.length, v.taken.join(), v.trick.length].join('/') : '';
}
