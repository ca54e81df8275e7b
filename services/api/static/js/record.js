// A finished game's record, for a player or an auditor: who sat where and how it ended, a replay
// to step through hand by hand and trick by trick, every deal from the log (each seat's cards, the bids, the call, every trick, the points and the
// review of the cards that cost tricks), what
// the server's check of the log found, the final head to keep and the log to take away
// (docs/audit.md). A game still running has no record yet: its cards stay blank in the log
// until the end, so the page says so and asks for none of it.

import { api } from './api.js';
import { cardFace, miniCard, sortHand } from './cards.js';
import { dealOf, readDeals } from './deals.js';
import { keptHeads } from './heads.js';
import { copyText, fill, h, withSuits } from './dom.js';
import { t, tn, tParts } from './i18n.js';
import { keycap } from './keys.js';
import { bar, missingPage, noTablePage } from './nav.js';
import { reviewList } from './review.js';
import { levelName, ruleChips } from './rules.js';
import { nameOf, POSITIONS, teamName, teamOf } from './seats.js';
import { bidWords, pointsWords, spoken, trickWords, TRICKS } from './words.js';

const HOW = { made: t('Made'), march: t('March'), euchre: t('Euchred') };

const ASIDES = {
  PlayerWentAway: (name, a) => (a.reason === 'timeout' ? t('{name} ran out of time: a bot played for them.', { name })
    : t('{name} stopped answering: a bot played for them.', { name })),
  PlayerCameBack: (name) => t('{name} came back to their seat.', { name }),
  SeatLeft: (name) => t('{name} left the table: a bot played for them.', { name }),
  PlayerBanned: (name) => t('{name} was banned by the host: a bot played for them.', { name }),
  HintGiven: (name) => t('{name} asked for a hint.', { name }),
};

export function mountRecord(root, code) {
  root.dataset.view = 'loading';
  let gone = false;
  const body = h('div.page', {}, h('p.boot', {}, t('Fetching the game’s record…')));
  fill(root, bar(h('span.table-code', {}, tParts('Table {code}', { code: h('strong', { 'data-code': code }, code) }))), body);
  const failed = (err) => {
    if (gone) return;
    root.dataset.view = 'missing';
    fill(body, err.status === 404 ? noTablePage(code)
      : missingPage(t('That record can’t be shown'), err.message));
  };
  // A record that can't be drawn says so, as one that can't be fetched does, rather than
  // leaving the page at "Fetching" with the error in the console alone.
  api.table(code).then(async (v) => {
    if (gone) return;
    if (v.status !== 'over') {
      fill(body, notYet(code));
      root.dataset.view = 'record-pending';
      return;
    }
    // The reviews are the record's extra: without them it still shows everything else.
    const reviews = api.reviews(code).catch(() => null);
    const [lines, verdict, reviewed] = await Promise.all([api.log(code), api.verify(code), reviews]);
    if (gone) return;
    fill(body, record(v, lines, verdict, reviewed?.hands ?? null));
    root.dataset.view = 'record';
  }).catch((err) => {
    console.error(err);
    failed(err);
  });
  return () => { gone = true; };
}

function notYet(code) {
  return h('main.missing.record-pending', {},
    h('h1', {}, t('The record opens when the game is over')),
    h('p', {}, t('Until the last hand is scored the record keeps everyone’s cards face down, so nobody learns one early. At game over this page shows every deal card by card, the fair play check, and the record to download.')),
    h('a.button.primary', { href: `#/t/${encodeURIComponent(code)}` }, t('Back to the table')));
}

function record(v, lines, verdict, reviews) {
  // Told by names, as to someone watching, whoever reads it: a record has no "us".
  const told = { ...v, you: null };
  const deals = readDeals(lines);
  const wrong = verdict.problem?.seq ? dealOf(deals, verdict.problem.seq) : null;
  return h('main.record', { 'data-code': v.code },
    h('div.record-top', {}, game(v, told), audit(v, lines, verdict, wrong)),
    deals.length ? replay(told, deals) : null,
    h('section.record-deals', { 'aria-labelledby': 'deals-title' },
      h('h2', { id: 'deals-title' }, tn('Hand by hand: {count} deal', 'Hand by hand: {count} deals', deals.length)),
      deals.map((d) => deal(told, d, d === wrong, reviews))));
}

// The replay's steps: each deal's bidding, then each of its tricks. Its keys work while focus
// is inside it, so the arrows still scroll the rest of the page.
const REPLAY_KEYS = { ArrowLeft: 'trick-back', ArrowRight: 'trick-on', ArrowUp: 'hand-back', ArrowDown: 'hand-on', Home: 'first', End: 'last' };

/** The game again, one step at a time: the table seen from above (seat 0 at the bottom), each
 * seat's bids or its card in the trick, the winner marked, and where the hand stands. */
function replay(told, deals) {
  const steps = deals.flatMap((d) => [{ d, t: -1 }, ...d.tricks.map((_, n) => ({ d, t: n }))]);
  let at = 0;
  const board = h('div.replay-board');
  const side = h('div.replay-side');
  const where = h('p.replay-where');
  const said = h('p.sr-only', { role: 'status' });
  // Never disabled, only marked so: the button pressed keeps focus, and with it the keys.
  const button = (label, act, glyph) => h('button.small', { type: 'button', name: act, onclick: () => step(act) },
    label, keycap(glyph));
  const controls = h('div.replay-controls', { role: 'group', 'aria-label': t('Step through the game') },
    button(t('Previous hand'), 'hand-back', '↑'),
    button(t('Previous trick'), 'trick-back', '←'),
    button(t('Next trick'), 'trick-on', '→'),
    button(t('Next hand'), 'hand-on', '↓'));
  const el = h('section.card-panel.replay', {
    'aria-labelledby': 'replay-title',
    onkeydown: (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || !REPLAY_KEYS[e.key]) return;
      e.preventDefault();
      step(REPLAY_KEYS[e.key]);
    },
  },
  h('h2', { id: 'replay-title' }, t('Replay')),
  h('p.hint', {}, t('Step through the game hand by hand and trick by trick: the buttons, or the arrow keys once one of them has focus (Home and End for the first and last step).')),
  where, h('div.replay-table', {}, board, side), controls, said);

  function step(act) {
    const s = steps[at];
    const starts = steps.map((x, n) => (x.t === -1 ? n : -1)).filter((n) => n >= 0);
    const target = {
      'trick-back': at - 1,
      'trick-on': at + 1,
      'hand-back': s.t > -1 ? steps.indexOf(steps.find((x) => x.d === s.d)) : starts.filter((n) => n < at).at(-1),
      'hand-on': starts.find((n) => n > at),
      first: 0,
      last: steps.length - 1,
    }[act];
    if (target === undefined || target < 0 || target >= steps.length) return;
    at = target;
    draw(true);
  }

  function draw(tell) {
    const { d, t: n } = steps[at];
    const trump = d.call?.suit ?? null;
    const trick = n >= 0 ? d.tricks[n] : null;
    el.dataset.deal = d.no;
    el.dataset.trick = n + 1;
    const head = d.hand ? t('Deal {deal}, hand {hand}', { deal: d.no, hand: d.hand }) : t('Deal {deal}', { deal: d.no });
    const part = trick ? t('trick {number} of {count}', { number: n + 1, count: d.tricks.length }) : t('the bidding');
    fill(where, h('strong', {}, head), ` · ${part}`);
    fill(board, [0, 1, 2, 3].map((seat) => {
      const p = trick?.cards.find((c) => c.seat === seat);
      const bids = d.bids.filter((b) => b.seat === seat && b.bid);
      return h(`div.replay-seat.at-${POSITIONS[seat]}`, { 'data-seat': seat },
        h('span.who', {}, nameOf(told, seat), seat === d.dealer ? h('span.tag', {}, t('dealer')) : null),
        trick
          ? (p ? cardFace(p.card, { trump, cls: p.seat === trick.winner ? 'winning' : '', attrs: { 'data-seat': seat } }) : h('span.sat-out', {}, trick.cards.length < 4 ? t('sits out') : ''))
          : h('span.replay-bids', {}, bids.map((b, n) => h('span', { 'data-bid': b.bid }, n ? ', ' : '', withSuits(bidWords(b, d.dealer))))));
    }),
    trick ? null : h('div.replay-up', {}, miniCard(d.up), h('small', {}, t('turned up'))));
    const taken = (team) => d.tricks.slice(0, n + 1).filter((x) => x.winner % 2 === team).length;
    fill(side,
      h('h3', {}, t('Bids')),
      h('p.replay-call', {}, withSuits(callLine(told, d))),
      h('ol.replay-bid-list', {}, d.bids.filter((b) => b.bid).map((b) => h('li', { 'data-seat': b.seat, 'data-bid': b.bid },
        h('span.who', {}, nameOf(told, b.seat)), ' ', withSuits(bidWords(b, d.dealer))))),
      trick ? h('p.replay-taken', {}, t('Tricks: {us} {ours}, {them} {theirs}', { us: teamName(told, 0), ours: taken(0), them: teamName(told, 1), theirs: taken(1) })) : null,
      trick && n === d.tricks.length - 1 ? outcome(told, d) : null);
    const none = { 'trick-back': at === 0, 'hand-back': at === 0, 'trick-on': at === steps.length - 1, 'hand-on': !steps.slice(at + 1).some((x) => x.t === -1) };
    for (const [name, off] of Object.entries(none)) controls.querySelector(`[name=${name}]`).setAttribute('aria-disabled', String(off));
    if (!tell) return;
    const bids = d.bids.filter((b) => b.bid).map((b) => t('{name}: {bid}', { name: nameOf(told, b.seat), bid: bidWords(b, d.dealer) }));
    said.textContent = spoken(trick
      ? t('{head}, {part}: {trick}', { head, part, trick: trickWords(told, trick, trump) })
      : t('{head}, {part}: {call} Bids: {bids}.', { head, part, call: callLine(told, d), bids: bids.join(', ') }));
  }

  draw(false);
  return el;
}

function game(v, told) {
  const chips = ruleChips(v.settings);
  return h('section.card-panel.record-game', { 'aria-labelledby': 'record-title' },
    h('span.kicker', {}, t('Game record')),
    h('h1', { id: 'record-title' }, t('Table {code}', { code: v.code })),
    h('p.winners', {}, t('{winners} beat {losers}, {score}–{other}.', { winners: teamName(told, v.winner), losers: teamName(told, 1 - v.winner), score: v.score[v.winner], other: v.score[1 - v.winner] })),
    h('div.record-teams', {}, [0, 1].map((team) => h('section.record-team', { 'data-team': team, class: team === v.winner ? 'won' : null, 'aria-label': teamName(told, team) },
      h('p.team-line', {}, side(v, team) ? h('span', {}, side(v, team)) : null, h('strong', {}, team === v.winner ? t('Won') : t('Lost')), h('b.team-score', {}, String(v.score[team]))),
      h('ul.team-seats', {}, [team, team + 2].map((seat) => sitter(v, told, seat)))))),
    h('p.record-rules', {}, chips.length ? tParts('House rules: {rules}', { rules: chips.map((c) => h('span.chip', {}, c)) }) : t('House rules: the usual ones.')),
    h('a.button', { href: `#/t/${encodeURIComponent(v.code)}` }, t('The table as it ended')),
    forAuditors(t('Seat numbers, for auditors'), [
      h('p', {}, t('The log numbers the seats 0 to 3, clockwise; seats 0 and 2 are partners against 1 and 3.')),
      h('ul.seat-numbers', {}, [0, 1, 2, 3].map((seat) => h('li', { 'data-seat': seat }, tParts('Seat {number}: {name}', { number: seat, name: h('strong', {}, nameOf(told, seat)) })))),
    ]));
}

/** A side as the viewer knows it: theirs and the other, when they played in this game. */
function side(v, team) {
  if (v.you === null || v.you === undefined) return null;
  return teamOf(v.you) === team ? t('You & partner') : t('Opponents');
}

/** What a player needn't read, folded away for whoever audits the game under `summary`; `open`
 * when something in it needs everyone's eyes. */
function forAuditors(summary, content, open = false) {
  return h('details.for-auditors', { open }, h('summary', {}, summary), content);
}

function sitter(v, told, seat) {
  const s = v.seats[seat];
  const person = !!s.player;
  const tags = person
    ? [s.registered ? t('registered') : t('guest'), s.away ? t('a {level} bot finished for them', { level: levelName(s.bot) }) : null]
    : [t('{level} bot', { level: levelName(s.bot) })];
  return h('li', { 'data-seat': seat },
    h('span.who', {}, nameOf(told, seat), v.you === seat ? h('span.you', {}, ' ', t('(you)')) : null),
    tags.filter(Boolean).map((tag) => h('span.tag', { class: person ? null : 'bot' }, tag)));
}

function audit(v, lines, verdict, wrong) {
  const bad = verdict.problem?.seq ? lines.find((e) => e.seq === verdict.problem.seq) : null;
  const copy = h('button.small', { type: 'button', name: 'copy-head', onclick: async () => {
    const ok = await copyText(v.head);
    copy.textContent = ok ? t('Copied!') : t('Select and copy it above');
  } }, t('Copy'));
  return h('section.card-panel.record-audit', { 'aria-labelledby': 'audit-title', 'data-verified': verdict.ok ? 'yes' : 'no' },
    h('h2', { id: 'audit-title' }, t('Fair play check')),
    h('p.verdict', {}, h('span.verdict-mark', { 'aria-hidden': 'true' }, verdict.ok ? '✓' : '✗'),
      h('strong', {}, verdict.ok ? t('This game’s record checks out') : t('This game’s record fails its check'))),
    h('p.verdict-plain', {}, verdict.ok
      ? t('Every deal, bid and card below is as it was played: nothing in the record was changed afterwards.')
      : wrong ? t('Something in the stored record was changed or put out of order after it was played, in deal {deal} (marked below): it may not be the game as played.', { deal: wrong.no })
        : t('Something in the stored record was changed or put out of order after it was played: it may not be the game as played.')),
    forAuditors(t('Details, for auditors'), [
      h('p.verdict-words', {}, verdict.summary),
      bad ? h('p.verdict-problem', { 'data-seq': bad.seq },
        wrong ? t('Event {seq} is the log’s {type} in deal {deal}, marked below.', { seq: bad.seq, type: bad.type, deal: wrong.no })
          : t('Event {seq} is the log’s {type}.', { seq: bad.seq, type: bad.type })) : null,
      h('h3', {}, t('The final head')),
      h('p', {}, t('Keep this: if the stored log is ever edited, it won’t end here. It is the hash of the log’s last event, and each event’s hash covers the one before, so no line can change without changing it.')),
      verdict.ok ? null : h('p.verdict-problem', {}, t('This log failed the check, so its head proves nothing: compare it with one kept when the game ended.')),
      h('div.head-row', {}, h('code.head', {}, v.head), copy),
      h('h3', {}, t('The log')),
      h('p', {}, tParts('Every event of the game with its hash, after a header line: anyone can check it with {command}, or in any language from the project’s audit notes.', { command: h('code', {}, `euchre verify ${v.code}.ndjson --head HASH`) })),
      h('a.button.primary', { href: api.exportUrl(v.code), download: `${v.code}.ndjson` }, t('Download the log')),
      keptList(v),
    ], !verdict.ok));
}

/** The signed heads this browser was shown during the game, to keep or hand to `verify`. */
function keptList(v) {
  const heads = keptHeads(v.code);
  if (!heads.length) return null;
  const command = h('code', {}, `euchre verify ${v.code}.ndjson --head ${v.code}-heads.ndjson`);
  const file = URL.createObjectURL(new Blob([heads.map((x) => JSON.stringify(x)).join('\n') + '\n'], { type: 'application/x-ndjson' }));
  return h('section.kept-heads', {},
    h('h3', {}, t('Heads this browser was shown')),
    h('p', {}, heads.length === 1
      ? tParts('The service signed this one as it showed you the game: it says what its log held at that moment. Keep it: if the log is ever shown otherwise, {command} finds the difference and prints a proof anyone can check.', { command })
      : tParts('The service signed each of these as it showed you the game: each says what its log held at that moment. Keep them: if the log is ever shown otherwise, {command} finds the difference and prints a proof anyone can check.', { command })),
    h('ul.head-list', {}, heads.map((x) => h('li', { 'data-seq': x.seq }, tParts('Event {seq}: {hash}', { seq: x.seq, hash: h('code', {}, `${x.hash.slice(0, 16)}…`) })))),
    h('a.button', { href: file, download: `${v.code}-heads.ndjson`, name: 'kept-heads' }, tn('Download this head', 'Download these heads', heads.length)));
}

function deal(told, d, wrong, reviews) {
  const r = d.result;
  const trump = d.call?.suit ?? null;
  const id = `deal-${d.no}`;
  const how = r ? r.how ?? 'thrown' : null;
  return h('section.card-panel.deal', { 'aria-labelledby': id, 'data-deal': d.no, 'data-how': how, 'data-wrong': wrong ? 'yes' : null },
    h('header.deal-head', {},
      h('span.kicker', {}, t('Deal {deal}', { deal: d.no })),
      h('h3', { id }, d.hand ? t('Hand {number}', { number: d.hand }) : r ? t('Thrown in') : t('Unfinished')),
      h('p', {}, withSuits(callLine(told, d))),
      wrong ? h('p.verdict-problem', {}, t('Something in this deal was changed or put out of order after it was played: see the fair play check above.')) : null),
    h('div.deal-grid', {}, dealt(told, d, trump), bidding(told, d, trump), tricks(told, d, trump)),
    outcome(told, d),
    d.hand ? review(told, d, reviews) : null);
}

function review(told, d, reviews) {
  const found = reviews?.find((r) => r.hand_no === d.hand);
  return h('div.deal-review', {},
    h('h4', {}, t('The review')),
    found ? reviewList(told, found)
      : h('p.hint', {}, reviews ? t('Not reviewed yet: the review comes a moment after the game. Open the record again shortly.') : t('The review couldn’t be fetched.')));
}

function callLine(told, d) {
  const dealer = t('{name} deals.', { name: nameOf(told, d.dealer) });
  const c = d.call;
  if (!c) return t('{dealer} Nobody calls trump.', { dealer });
  const values = { name: nameOf(told, c.seat), suit: `{${c.suit}}` };
  const called = c.bid === 'call'
    ? (c.alone ? t('{name} calls {suit} and goes alone.', values) : t('{name} calls {suit}.', values))
    : c.seat === d.dealer
      ? (c.alone ? t('{name} picks up {suit} and goes alone.', values) : t('{name} picks up {suit}.', values))
      : (c.alone ? t('{name} orders up {suit} and goes alone.', values) : t('{name} orders up {suit}.', values));
  const defence = d.defence?.alone ? t('{name} defends alone.', { name: nameOf(told, d.defence.seat) }) : null;
  return [dealer, called, defence].filter(Boolean).join(' ');
}

function dealt(told, d, trump) {
  // Whoever played no card sat out: the partner of a lone hand, or of a lone defender.
  const out = [0, 1, 2, 3].filter((seat) => d.tricks.length && !d.tricks[0].cards.some((c) => c.seat === seat));
  return h('div.dealt', {},
    h('h4', {}, t('The deal')),
    h('ul.dealt-hands', {}, [0, 1, 2, 3].map((seat) => h('li', { 'data-seat': seat },
      h('span.who', {}, nameOf(told, seat),
        seat === d.dealer ? h('span.tag', {}, t('dealer')) : null,
        out.includes(seat) ? h('span.tag', {}, t('sat out')) : null),
      // Sorted as the table sorts a hand (trump first), so a hand reads as its player saw it.
      h('span.cards', {}, sortHand(d.hands[seat], trump).map((c) => miniCard(c, trump)))))),
    h('p.turned', {}, h('span', {}, t('Turned up')), miniCard(d.up, trump),
      h('span', {}, t('under it')), h('span.cards', {}, d.kitty.map((c) => miniCard(c, trump)))));
}

function bidding(told, d, trump) {
  const name = (seat) => h('span.who', {}, nameOf(told, seat));
  const cards = (list) => h('span.cards', {}, list.map((c) => miniCard(c, trump)));
  const line = (b) => {
    if (b.down) return tParts('The {card} is turned down: {suit} can’t be trump', { card: miniCard(d.up), suit: withSuits(`{${b.down}}`) });
    if (b.kept) return tParts('{name} keeps a farmer’s hand', { name: name(b.seat) });
    if (b.swapped) return tParts('{name} swaps a farmer’s hand: {gave} for {got} from the kitty', { name: name(b.seat), gave: cards(b.swapped), got: cards(b.got) });
    return [name(b.seat), h('span.bid', {}, withSuits(bidWords(b, d.dealer)))];
  };
  return h('div.bidding', {},
    h('h4', {}, t('Bidding')),
    h('ol.bids', {},
      d.bids.map((b) => h('li', { 'data-round': b.round ?? null }, line(b))),
      d.buried ? h('li.buried', {}, tParts('{name} picks up the {card} and buries {buried}', { name: name(d.buried.seat), card: miniCard(d.up, trump), buried: miniCard(d.buried.card, trump) })) : null,
      d.defence ? h('li', {}, d.defence.alone ? tParts('{name} defends alone', { name: name(d.defence.seat) })
        : tParts('{name} defends with a partner', { name: name(d.defence.seat) })) : null),
    d.asides.length ? h('ul.asides', {}, d.asides.map((a) => h('li', {}, ASIDES[a.what](nameOf(told, a.seat), a)))) : null);
}

function tricks(told, d, trump) {
  return h('div.tricks-played', {},
    h('h4', {}, t('Tricks')),
    d.tricks.length ? h('ol.tricks', {}, d.tricks.map((trick, n) => h('li.trick', { 'data-winner': trick.winner },
      h('span.trick-no', {}, t('Trick {number}', { number: n + 1 })),
      h('ol.trick-cards', {}, trick.cards.map((c) => h('li', { 'data-seat': c.seat, class: c.seat === trick.winner ? 'won' : null },
        h('span.who', {}, nameOf(told, c.seat)), miniCard(c.card, trump)))),
      h('span.took', {}, t('{name} takes it', { name: nameOf(told, trick.winner) }))))) : h('p.empty', {}, t('None: the cards were thrown in.')));
}

function outcome(told, d) {
  const r = d.result;
  // Only a log that failed its check can leave a deal without an end.
  if (!r) return null;
  if (r.type === 'HandThrownIn') {
    return h('p.deal-result', { 'data-how': 'thrown' }, h('strong.how', {}, t('Thrown in')), ' ', t('Everyone passed twice: nothing scores, and the deal passes to the left.'));
  }
  const team = r.alone === null;
  const values = { team: teamName(told, r.maker % 2), name: team ? null : nameOf(told, r.alone), took: TRICKS[r.tricks] };
  const said = {
    made: team ? t('{team} made it with {took}', values) : t('{name}, alone, made it with {took}', values),
    march: team ? t('{team} took all five tricks', values) : t('{name}, alone, took all five tricks', values),
    euchre: team ? t('{team} were euchred, taking {took}', values) : t('{name}, alone, was euchred, taking {took}', values),
  }[r.how];
  return h('p.deal-result', { 'data-how': r.how, 'data-team': r.team },
    h('strong.how', {}, HOW[r.how]),
    ' ', t('{said}: {points}.', { said, points: pointsWords(told, r) }), ' ',
    h('span.running', {}, t('Score: {us} {ours}, {them} {theirs}.', { us: teamName(told, 0), ours: r.score[0], them: teamName(told, 1), theirs: r.score[1] })));
}
