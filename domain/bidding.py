"""Bidding, both rounds (docs/euchre.md "Bidding: round one", "Bidding: round two", "Stick the
dealer", "Going alone", "Canadian loner", "No trump"): who may order, call, pass or go alone,
and what making trump does to the up card, the dealer's hand and who sits out."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.cards import NO_TRUMP, SUIT_NAMES, SUITS, TRUMPS, TrumpCode
from domain.defend import after_making
from domain.errors import IllegalMove
from domain.hands import with_card
from domain.phases import Evolve, PhaseRules, no_options
from domain.state import Bid, State, partner


def _turned(s: State) -> int:
    """The up card's suit: ordered in round one, barred in round two."""
    assert s.deal.up is not None
    return s.deal.up // 6


def must_alone(s: State, seat: int) -> bool:
    """The Canadian loner: the dealer's partner may order the card up only by going alone."""
    return (
        s.phase == "bid1"
        and s.settings.canadian == "on"
        and s.settings.alone == "on"
        and s.deal.dealer is not None
        and seat == partner(s.deal.dealer)
    )


def stuck(s: State, seat: int) -> bool:
    """Stick the dealer: everyone else passed twice, so the dealer must name trump."""
    return s.phase == "bid2" and seat == s.deal.dealer and s.settings.stick_dealer == "on"


def _alone_allowed(s: State, alone: bool) -> None:
    if alone and s.settings.alone != "on":
        raise IllegalMove("going alone is off at this table", field="alone", allowed=["false"])


def order(s: State, c: cmd.Order) -> ev.Event:
    _alone_allowed(s, c.alone)
    if must_alone(s, c.seat) and not c.alone:
        raise IllegalMove(
            "as the dealer's partner you may order it up only by going alone (Canadian loner)",
            field="alone",
            allowed=["true"],
        )
    return ev.TrumpOrdered(seat=c.seat, suit=SUITS[_turned(s)], alone=c.alone)


def _callable(s: State) -> list[TrumpCode]:
    """Round two's calls: the suits not turned down, and no trump when that rule is on."""
    turned = _turned(s)
    suits: list[TrumpCode] = [x for i, x in enumerate(SUITS) if i != turned]
    return [*suits, TRUMPS[NO_TRUMP]] if s.settings.no_trump == "on" else suits


def call(s: State, c: cmd.Call) -> ev.Event:
    _alone_allowed(s, c.alone)
    turned = _turned(s)
    if c.suit == TRUMPS[NO_TRUMP] and s.settings.no_trump != "on":
        raise IllegalMove(
            "no trump is off at this table (a house rule); call a suit",
            field="suit",
            allowed=_callable(s),
        )
    if c.suit not in TRUMPS:
        named = list(TRUMPS) if s.settings.no_trump == "on" else list(SUITS)
        raise IllegalMove(f"{c.suit!r} is not a suit", field="suit", allowed=named)
    if TRUMPS.index(c.suit) == turned:
        raise IllegalMove(
            f"{SUIT_NAMES[turned]} was turned down; call another suit",
            field="suit",
            allowed=_callable(s),
        )
    return ev.TrumpCalled(seat=c.seat, suit=c.suit, alone=c.alone)


def pass_bid(s: State, c: cmd.Pass) -> ev.Event:
    if stuck(s, c.seat):
        raise IllegalMove("the dealer must call trump (stick the dealer)")
    return ev.BidPassed(seat=c.seat, round=1 if s.phase == "bid1" else 2)


def _legal_one(s: State, seat: int) -> list[cmd.Command]:
    out: list[cmd.Command] = [cmd.Pass(seat=seat)]
    if not must_alone(s, seat):
        out.append(cmd.Order(seat=seat, alone=False))
    if s.settings.alone == "on":
        out.append(cmd.Order(seat=seat, alone=True))
    return out


def _legal_two(s: State, seat: int) -> list[cmd.Command]:
    out: list[cmd.Command] = [] if stuck(s, seat) else [cmd.Pass(seat=seat)]
    for suit in _callable(s):
        out.append(cmd.Call(seat=seat, suit=suit, alone=False))
        if s.settings.alone == "on":
            out.append(cmd.Call(seat=seat, suit=suit, alone=True))
    return out


def _order_options(s: State, orders: list[cmd.Order]) -> dict[str, Any]:
    alone = any(o.alone for o in orders)
    return {"alone": alone, "must_alone": alone and all(o.alone for o in orders)}


def _call_options(s: State, calls: list[cmd.Call]) -> dict[str, Any]:
    return {
        "suits": list(dict.fromkeys(c.suit for c in calls)),
        "alone": any(c.alone for c in calls),
    }


def _fallback_one(s: State, seat: int) -> cmd.Command:
    return cmd.Pass(seat=seat)


def _fallback_two(s: State, seat: int) -> cmd.Command:
    """A stuck dealer calls the first suit open, in S H D C order."""
    if stuck(s, seat):
        return cmd.Call(seat=seat, suit=_callable(s)[0])
    return cmd.Pass(seat=seat)


def _all_passed_once(s: State) -> ev.Event | None:
    return ev.UpCardTurnedDown(suit=SUITS[_turned(s)]) if len(s.deal.bids) == 4 else None


def _all_passed_twice(s: State) -> ev.Event | None:
    """Only without stick the dealer can the dealer pass too: the deal is thrown in."""
    return ev.HandThrownIn(deal_no=s.deal_no) if len(s.deal.bids) == 8 else None


def _passed(s: State, e: ev.BidPassed) -> State:
    d = s.deal
    pass_ = Bid(seat=e.seat, round=e.round, bid="pass")
    return replace(
        s,
        seq=s.seq + 1,
        turn=(e.seat + 1) % 4,
        deal=replace(d, bids=(*d.bids, pass_), moves=d.moves + 1),
    )


def _turned_down(s: State, e: ev.UpCardTurnedDown) -> State:
    assert s.deal.dealer is not None
    return replace(
        s,
        seq=s.seq + 1,
        phase="bid2",
        turn=(s.deal.dealer + 1) % 4,
        deal=replace(s.deal, kitty_state="down"),
    )


def _made(s: State, seat: int, suit: TrumpCode, alone: bool, round: int) -> State:
    """A lone maker's partner sits out. No trump is held as NO_TRUMP, the tables' index for
    it."""
    trump = TRUMPS.index(suit)
    bid = Bid(
        seat=seat, round=round, bid="order" if round == 1 else "call", suit=trump, alone=alone
    )
    d = s.deal
    made = replace(
        d,
        bids=(*d.bids, bid),
        trump=trump,
        maker=seat,
        alone=seat if alone else None,
        sitting=(partner(seat),) if alone else (),
        moves=d.moves + 1,
    )
    return replace(s, seq=s.seq + 1, deal=made)


def _ordered(s: State, e: ev.TrumpOrdered) -> State:
    """The dealer picks the up card up and must bury one, unless the dealer is sitting out."""
    s = _made(s, e.seat, e.suit, e.alone, 1)
    d = s.deal
    assert d.dealer is not None and d.up is not None
    if e.alone and e.seat == partner(d.dealer):
        return after_making(replace(s, deal=replace(d, kitty_state="out")))
    picked = replace(d, kitty_state="picked", hands=with_card(s, d.dealer, d.up))
    return replace(s, phase="discard", turn=d.dealer, deal=picked)


def _called(s: State, e: ev.TrumpCalled) -> State:
    return after_making(_made(s, e.seat, e.suit, e.alone, 2))


def _thrown_in(s: State, e: ev.HandThrownIn) -> State:
    return replace(s, seq=s.seq + 1, phase="deal", turn=None)


ROUND_ONE = PhaseRules(
    kind="bid",
    asking="to bid",
    what_now="order it up or pass",
    moves={cmd.Order: order, cmd.Pass: pass_bid},
    legal=_legal_one,
    options={cmd.Order: _order_options, cmd.Pass: no_options},
    fallback=_fallback_one,
    follows=(_all_passed_once,),
)
ROUND_TWO = PhaseRules(
    kind="bid",
    asking="to bid",
    what_now="call a suit or pass",
    moves={cmd.Call: call, cmd.Pass: pass_bid},
    legal=_legal_two,
    options={cmd.Call: _call_options, cmd.Pass: no_options},
    fallback=_fallback_two,
    follows=(_all_passed_twice,),
)
EVOLVE: Evolve = {
    ev.BidPassed: _passed,
    ev.UpCardTurnedDown: _turned_down,
    ev.TrumpOrdered: _ordered,
    ev.TrumpCalled: _called,
    ev.HandThrownIn: _thrown_in,
}
