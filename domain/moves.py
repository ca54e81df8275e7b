"""Deciding a seat's move: check it against the rules and say which event it makes.

Each function takes the state and a command whose seat is known to be deciding now, and
returns the move's own event; what follows from it (a trick taken, a hand scored) is added
by `decide`. A refusal is a sentence for the player and leaves the state untouched.
"""

from __future__ import annotations

from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES, FOLLOWS, INDEX, NO_TRUMP, SUITS, is_farmers_hand
from domain.errors import IllegalMove
from domain.play import playable
from domain.state import State, partner

SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")


def must_alone(s: State, seat: int) -> bool:
    """The Canadian loner: the dealer's partner may order the card up only by going alone."""
    return (
        s.phase == "bid1"
        and s.settings.canadian == "on"
        and s.settings.alone == "on"
        and seat == partner(s.dealer)
    )


def stuck(s: State, seat: int) -> bool:
    """Stick the dealer: everyone else passed twice, so the dealer must name trump."""
    return s.phase == "bid2" and seat == s.dealer and s.settings.stick_dealer == "on"


def _card(s: State, seat: int, code: str) -> int:
    card = INDEX.get(code)
    if card is None:
        raise IllegalMove(f"{code!r} is not a card", field="card", allowed=list(CODES))
    if not s.hands[seat] >> card & 1:
        raise IllegalMove(f"you don't hold {code}", field="card")
    return card


def _alone_allowed(s: State, alone: bool) -> None:
    if alone and s.settings.alone != "on":
        raise IllegalMove("going alone is off at this table", field="alone", allowed=["false"])


def farmer(s: State, c: cmd.Farmer) -> ev.Event:
    if not c.cards:
        return ev.FarmerKept(seat=c.seat)
    cards = {_card(s, c.seat, code) for code in c.cards}
    if len(c.cards) != 3 or len(cards) != 3:
        raise IllegalMove(
            "swap exactly three different cards, or none to keep your hand", field="cards"
        )
    if not is_farmers_hand(s.hands[c.seat]):
        raise IllegalMove("only a hand of five 9s and 10s may swap", field="cards")
    got = list(s.kitty[:3])
    return ev.FarmerSwapped(
        seat=c.seat, gave=[CODES[x] for x in sorted(cards)], got=[CODES[x] for x in got]
    )


def order(s: State, c: cmd.Order) -> ev.Event:
    _alone_allowed(s, c.alone)
    if must_alone(s, c.seat) and not c.alone:
        raise IllegalMove(
            "as the dealer's partner you may order it up only by going alone (Canadian loner)",
            field="alone",
            allowed=["true"],
        )
    return ev.TrumpOrdered(seat=c.seat, suit=SUITS[s.up // 6], alone=c.alone)


def call(s: State, c: cmd.Call) -> ev.Event:
    _alone_allowed(s, c.alone)
    turned = s.up // 6
    if len(c.suit) != 1 or c.suit not in SUITS:
        raise IllegalMove(f"{c.suit!r} is not a suit", field="suit", allowed=list(SUITS))
    if SUITS.index(c.suit) == turned:
        raise IllegalMove(
            f"{SUIT_NAMES[turned]} was turned down; call another suit",
            field="suit",
            allowed=[x for x in SUITS if x != SUITS[turned]],
        )
    return ev.TrumpCalled(seat=c.seat, suit=c.suit, alone=c.alone)


def pass_bid(s: State, c: cmd.Pass) -> ev.Event:
    if stuck(s, c.seat):
        raise IllegalMove("the dealer must call trump (stick the dealer)")
    return ev.BidPassed(seat=c.seat, round=1 if s.phase == "bid1" else 2)


def discard(s: State, c: cmd.Discard) -> ev.Event:
    card = _card(s, c.seat, c.card)
    return ev.CardBuried(seat=c.seat, card=CODES[card])


def defend(s: State, c: cmd.Defend) -> ev.Event:
    return ev.DefenceChosen(seat=c.seat, alone=c.alone)


def play(s: State, c: cmd.Play) -> ev.Event:
    card = _card(s, c.seat, c.card)
    if not playable(s.hands[c.seat], s.trick, s.trump) >> card & 1:
        t = NO_TRUMP if s.trump is None else s.trump
        led = FOLLOWS[t][s.trick[0][1]]
        name = "trump" if led == t else SUIT_NAMES[led]
        raise IllegalMove(f"you must follow {name}", field="card")
    return ev.CardPlayed(seat=c.seat, card=CODES[card])


MOVES = {
    cmd.Farmer: ("farmer", farmer),
    cmd.Order: ("bid1", order),
    cmd.Pass: ("bid", pass_bid),
    cmd.Call: ("bid2", call),
    cmd.Discard: ("discard", discard),
    cmd.Defend: ("defend", defend),
    cmd.Play: ("play", play),
}
