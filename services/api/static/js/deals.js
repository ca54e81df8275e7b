// A finished game's log (GET /api/tables/{code}/log) read as its deals, each with what
// happened in it in order: the cards dealt, the bids, the call, the tricks and the points, and
// who went away or came back meanwhile. Talk and readiness aren't the cards' story: they are
// passed over. The event types and their fields are domain/events.py's.

/** The log's deals, in order; nothing after the game was won belongs to one. */
export function readDeals(lines) {
  const deals = [];
  let deal = null;
  let trick = [];
  let scored = 0;
  for (const e of lines) {
    if (e.type === 'GameWon') break;
    if (e.type === 'HandDealt') {
      deal = {
        no: e.deal_no, dealer: e.dealer, hands: e.hands, up: e.up, kitty: e.kitty,
        from: e.seq, to: e.seq,
        bids: [], call: null, defence: null, buried: null, tricks: [], result: null, hand: null, asides: [],
      };
      deals.push(deal);
      trick = [];
      continue;
    }
    if (!deal) continue; // before the first deal: people sitting down
    deal.to = e.seq;
    switch (e.type) {
      case 'BidPassed':
        deal.bids.push({ seat: e.seat, bid: 'pass', round: e.round });
        break;
      case 'UpCardTurnedDown':
        deal.bids.push({ down: e.suit });
        break;
      case 'TrumpOrdered':
      case 'TrumpCalled': {
        const bid = { seat: e.seat, bid: e.type === 'TrumpOrdered' ? 'order' : 'call', suit: e.suit, alone: e.alone };
        deal.bids.push(bid);
        deal.call = bid;
        break;
      }
      case 'FarmerSwapped':
        deal.bids.push({ seat: e.seat, swapped: e.gave, got: e.got });
        break;
      case 'FarmerKept':
        deal.bids.push({ seat: e.seat, kept: true });
        break;
      case 'CardBuried':
        deal.buried = { seat: e.seat, card: e.card };
        break;
      case 'DefenceChosen':
        deal.defence = { seat: e.seat, alone: e.alone };
        break;
      case 'CardPlayed':
        trick.push({ seat: e.seat, card: e.card });
        break;
      case 'TrickTaken':
        deal.tricks.push({ cards: trick, winner: e.winner });
        trick = [];
        break;
      case 'HandScored':
        scored += 1;
        deal.hand = scored;
        deal.result = e;
        break;
      case 'HandThrownIn':
        deal.result = e;
        break;
      case 'PlayerWentAway':
      case 'PlayerCameBack':
      case 'SeatLeft':
      case 'HintGiven':
        deal.asides.push({ seat: e.seat, what: e.type, reason: e.reason });
        break;
      case 'PlayerBanned':
        if (e.seat !== null) deal.asides.push({ seat: e.seat, what: e.type });
        break;
    }
  }
  return deals;
}

/** The deal an event of the log falls in, if any. */
export const dealOf = (deals, seq) => deals.find((d) => d.from <= seq && seq <= d.to) ?? null;
