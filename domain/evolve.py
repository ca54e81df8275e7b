"""`evolve(state, event) -> state`: how each fact changes a table. No checks: events are facts.

Every handler returns a new State with `seq` moved on by one, so a fold of the log's events
gives the live state and its `seq` equals the log's last one.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain import events as ev
from domain.cards import INDEX, SUITS, is_farmers_hand
from domain.state import Bid, Outcome, Seat, State, Trick, partner, team


def _seat(state: State, n: int, seat: Seat) -> tuple[Seat, ...]:
    seats = list(state.seats)
    seats[n] = seat
    return tuple(seats)


def _table_opened(s: State, e: ev.TableOpened) -> State:
    return replace(
        s,
        seq=s.seq + 1,
        code=e.code,
        host=e.host,
        settings=e.settings,
        bots=e.bots,
        seed=e.seed,
        seed_hash=e.seed_hash,
    )


def _seat_taken(s: State, e: ev.SeatTaken) -> State:
    old = s.seats[e.seat]
    if s.status == "waiting":
        seat = Seat(player=e.player, name=e.name, registered=e.registered)
    else:  # back from away: the covering bot steps aside
        seat = Seat(player=e.player, name=e.name, bot=old.bot, registered=e.registered)
    ready = s.ready
    if s.phase == "scored" and old.is_bot:
        ready = _set(ready, e.seat, False)
    return replace(s, seq=s.seq + 1, seats=_seat(s, e.seat, seat), ready=ready)


def _seat_left(s: State, e: ev.SeatLeft) -> State:
    if s.status == "waiting":
        return replace(s, seq=s.seq + 1, seats=_seat(s, e.seat, Seat()))
    old = s.seats[e.seat]
    seat = replace(old, away=True, bot=old.bot or s.bots)
    return replace(
        s, seq=s.seq + 1, seats=_seat(s, e.seat, seat), ready=_set(s.ready, e.seat, True)
    )


def _bot_seated(s: State, e: ev.BotSeated) -> State:
    return replace(s, seq=s.seq + 1, seats=_seat(s, e.seat, Seat(bot=e.level)))


def _bot_removed(s: State, e: ev.BotRemoved) -> State:
    return replace(s, seq=s.seq + 1, seats=_seat(s, e.seat, Seat()))


def _settings_changed(s: State, e: ev.SettingsChanged) -> State:
    return replace(s, seq=s.seq + 1, settings=e.settings)


def _game_started(s: State, e: ev.GameStarted) -> State:
    return replace(s, seq=s.seq + 1, status="playing", first_dealer=e.first_dealer, phase="deal")


def _hand_dealt(s: State, e: ev.HandDealt) -> State:
    hands = [0, 0, 0, 0]
    for seat, cards in enumerate(e.hands):
        for code in cards:
            hands[seat] |= 1 << INDEX[code]
    farmers: tuple[int, ...] = ()
    if s.settings.farmers == "on":
        order = [(e.dealer + k) % 4 for k in range(1, 5)]
        farmers = tuple(n for n in order if is_farmers_hand(hands[n]))
    first = (e.dealer + 1) % 4
    return replace(
        s,
        seq=s.seq + 1,
        deal_no=e.deal_no,
        dealer=e.dealer,
        hands=tuple(hands),
        up=INDEX[e.up],
        kitty=tuple(INDEX[c] for c in e.kitty),
        kitty_state="up",
        phase="farmer" if farmers else "bid1",
        turn=farmers[0] if farmers else first,
        asked=farmers,
        trump=None,
        maker=None,
        alone=None,
        defender=None,
        sitting=(),
        bids=(),
        buried=None,
        trick=(),
        leader=None,
        tricks=(),
        taken=(0, 0),
        moves=0,
        ready=(False, False, False, False),
    )


def _after_farmer(s: State, **changes) -> State:
    rest = s.asked[1:]
    if rest:
        return replace(s, seq=s.seq + 1, asked=rest, turn=rest[0], moves=s.moves + 1, **changes)
    return replace(
        s,
        seq=s.seq + 1,
        asked=(),
        phase="bid1",
        turn=(s.dealer + 1) % 4,
        moves=s.moves + 1,
        **changes,
    )


def _farmer_swapped(s: State, e: ev.FarmerSwapped) -> State:
    gave = [INDEX[c] for c in e.gave]
    got = [INDEX[c] for c in e.got]
    hand = s.hands[e.seat]
    for c in gave:
        hand &= ~(1 << c)
    for c in got:
        hand |= 1 << c
    hands = list(s.hands)
    hands[e.seat] = hand
    kitty = tuple(c for c in s.kitty if c not in got) + tuple(gave)
    return _after_farmer(s, hands=tuple(hands), kitty=kitty)


def _farmer_kept(s: State, e: ev.FarmerKept) -> State:
    return _after_farmer(s)


def _bid_passed(s: State, e: ev.BidPassed) -> State:
    return replace(
        s,
        seq=s.seq + 1,
        bids=(*s.bids, Bid(seat=e.seat, round=e.round, bid="pass")),
        turn=(e.seat + 1) % 4,
        moves=s.moves + 1,
    )


def _up_card_turned_down(s: State, e: ev.UpCardTurnedDown) -> State:
    return replace(s, seq=s.seq + 1, phase="bid2", kitty_state="down", turn=(s.dealer + 1) % 4)


def _to_play(s: State) -> dict:
    """Who leads: the seat left of the dealer, or the next one playing if it sits out."""
    leader = (s.dealer + 1) % 4
    while leader in s.sitting:
        leader = (leader + 1) % 4
    return {"phase": "play", "turn": leader, "leader": leader, "asked": ()}


def _after_making(s: State) -> dict:
    """A lone call with defending alone on asks each defender in turn from the dealer's left."""
    if s.alone is not None and s.settings.defend_alone == "on":
        defenders = tuple(
            n for n in ((s.dealer + k) % 4 for k in range(1, 5)) if team(n) != team(s.maker)
        )
        return {"phase": "defend", "turn": defenders[0], "asked": defenders}
    return _to_play(s)


def _made(s: State, seat: int, suit: str, alone: bool, round: int, **changes) -> State:
    trump = SUITS.index(suit)
    bid = Bid(
        seat=seat, round=round, bid="order" if round == 1 else "call", suit=trump, alone=alone
    )
    return replace(
        s,
        seq=s.seq + 1,
        bids=(*s.bids, bid),
        trump=trump,
        maker=seat,
        alone=seat if alone else None,
        sitting=(partner(seat),) if alone else (),
        moves=s.moves + 1,
        **changes,
    )


def _trump_ordered(s: State, e: ev.TrumpOrdered) -> State:
    s = _made(s, e.seat, e.suit, e.alone, 1)
    if e.alone and e.seat == partner(s.dealer):
        return replace(s, kitty_state="out", **_after_making(s))
    hands = list(s.hands)
    hands[s.dealer] |= 1 << s.up
    return replace(s, kitty_state="picked", hands=tuple(hands), phase="discard", turn=s.dealer)


def _trump_called(s: State, e: ev.TrumpCalled) -> State:
    s = _made(s, e.seat, e.suit, e.alone, 2)
    return replace(s, **_after_making(s))


def _card_buried(s: State, e: ev.CardBuried) -> State:
    card = INDEX[e.card]
    hands = list(s.hands)
    hands[e.seat] &= ~(1 << card)
    s = replace(s, seq=s.seq + 1, hands=tuple(hands), buried=card, moves=s.moves + 1)
    return replace(s, **_after_making(s))


def _defence_chosen(s: State, e: ev.DefenceChosen) -> State:
    s = replace(s, seq=s.seq + 1, moves=s.moves + 1)
    if e.alone:
        s = replace(s, defender=e.seat, sitting=(*s.sitting, partner(e.seat)))
        return replace(s, **_to_play(s))
    rest = s.asked[1:]
    if rest:
        return replace(s, asked=rest, turn=rest[0])
    return replace(s, **_to_play(s))


def _card_played(s: State, e: ev.CardPlayed) -> State:
    card = INDEX[e.card]
    hands = list(s.hands)
    hands[e.seat] &= ~(1 << card)
    nxt = (e.seat + 1) % 4
    while nxt in s.sitting:
        nxt = (nxt + 1) % 4
    return replace(
        s,
        seq=s.seq + 1,
        hands=tuple(hands),
        trick=(*s.trick, (e.seat, card)),
        turn=nxt,
        moves=s.moves + 1,
    )


def _trick_taken(s: State, e: ev.TrickTaken) -> State:
    taken = list(s.taken)
    taken[team(e.winner)] += 1
    trick = Trick(leader=s.leader, cards=s.trick, winner=e.winner)
    return replace(
        s,
        seq=s.seq + 1,
        tricks=(*s.tricks, trick),
        taken=tuple(taken),
        trick=(),
        leader=e.winner,
        turn=e.winner,
    )


def _hand_scored(s: State, e: ev.HandScored) -> State:
    outcome = Outcome(
        hand_no=s.hand_no,
        deal_no=s.deal_no,
        maker=e.maker,
        trump=SUITS.index(e.trump),
        alone=e.alone,
        defender=e.defender,
        tricks=e.tricks,
        how=e.how,
        team=e.team,
        points=e.points,
        score=tuple(e.score),
    )
    ready = tuple(seat.is_bot for seat in s.seats)
    return replace(
        s,
        seq=s.seq + 1,
        score=tuple(e.score),
        outcome=outcome,
        history=(*s.history, outcome),
        phase="scored",
        turn=None,
        leader=None,
        ready=ready,
    )


def _hand_thrown_in(s: State, e: ev.HandThrownIn) -> State:
    return replace(s, seq=s.seq + 1, phase="deal", turn=None)


def _player_ready(s: State, e: ev.PlayerReady) -> State:
    return replace(s, seq=s.seq + 1, ready=_set(s.ready, e.seat, True))


def _game_won(s: State, e: ev.GameWon) -> State:
    return replace(s, seq=s.seq + 1, status="over", phase="over", winner=e.team, turn=None)


def _set(flags: tuple[bool, ...], n: int, value: bool) -> tuple[bool, ...]:
    out = list(flags)
    out[n] = value
    return tuple(out)


_HANDLERS = {
    ev.TableOpened: _table_opened,
    ev.SeatTaken: _seat_taken,
    ev.SeatLeft: _seat_left,
    ev.BotSeated: _bot_seated,
    ev.BotRemoved: _bot_removed,
    ev.SettingsChanged: _settings_changed,
    ev.GameStarted: _game_started,
    ev.HandDealt: _hand_dealt,
    ev.FarmerSwapped: _farmer_swapped,
    ev.FarmerKept: _farmer_kept,
    ev.BidPassed: _bid_passed,
    ev.UpCardTurnedDown: _up_card_turned_down,
    ev.TrumpOrdered: _trump_ordered,
    ev.TrumpCalled: _trump_called,
    ev.CardBuried: _card_buried,
    ev.DefenceChosen: _defence_chosen,
    ev.CardPlayed: _card_played,
    ev.TrickTaken: _trick_taken,
    ev.HandScored: _hand_scored,
    ev.HandThrownIn: _hand_thrown_in,
    ev.PlayerReady: _player_ready,
    ev.GameWon: _game_won,
}
assert set(_HANDLERS) == set(ev.EVENT_TYPES.values())


def evolve(state: State, event: ev.Event) -> State:
    return _HANDLERS[type(event)](state, event)


def fold(events, state: State | None = None) -> State:
    """The state after `events`, from an empty table (or from `state`)."""
    s = State() if state is None else state
    for e in events:
        s = _HANDLERS[type(e)](s, e)
    return s
