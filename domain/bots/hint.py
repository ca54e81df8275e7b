"""A hint's advice (domain/hint.py): what the expert would do in a seat, and why, in words.

The move is the expert's own (`choose(view, "expert", rng)`), from the seat's view alone, as
every bot decides: the advice can't know a card the seat doesn't. The reason reads the same
view through a few templates (the trumps, bowers and off-suit aces held, the trick on the
table, whether the partner is winning it, whether a card still out can beat the one played)
and says no more than those facts: the expert weighs far more deals than a sentence can say,
so where it keeps a card or passes, the words give the plain fact that stands behind it.
"""

from __future__ import annotations

import random

import msgspec

from domain import commands as cmd
from domain.bots import choose
from domain.bots.known import Known
from domain.bots.memory import Memory
from domain.bots.strength import TRUMP_MASK, power, strength
from domain.cards import (
    FOLLOWS,
    INDEX,
    POWER,
    RANKS,
    SUIT_MASK,
    SUIT_NAMES,
    SUITS,
    Code,
    cards_of,
    left_bower,
    rank,
    right_bower,
    suit,
)
from domain.seat_view import View

RANK_NAMES = dict(zip(RANKS, ("nine", "ten", "jack", "queen", "king", "ace"), strict=True))
NUMBERS = ("no", "one", "two", "three", "four", "five", "six")
ACE = RANKS.index("A")


class Advice(msgspec.Struct, frozen=True):
    """`move`: the expert's, for the seat; `card`: the card it plays or buries, if any, to
    show; `words`: why, in a player's words."""

    move: cmd.Command
    card: Code | None
    words: str


def advise(v: View, rng: random.Random) -> Advice:
    """The expert's move for the seat whose view this is, and the reason for it."""
    move = choose(v, "expert", rng)
    k = Known(v)
    card: Code | None = None
    match move:
        case cmd.Play(card=card):
            words = _play(k, INDEX[card])
        case cmd.Discard(card=card):
            words = _bury(k, INDEX[card])
        case cmd.Order(alone=alone):
            words = _bid(k, k.turned, alone)
        case cmd.Call(suit=code, alone=alone):
            words = _bid(k, SUITS.index(code), alone)
        case cmd.Pass():
            words = _pass(k)
        case cmd.Defend(alone=alone):
            words = _defend(k, alone)
        case _:
            raise ValueError("a hint answers a bid, a discard, defending alone or a card")
    return Advice(move=move, card=card, words=words)


# -- words -----------------------------------------------------------------------------------


def name(c: int, trump: int | None = None) -> str:
    """The card as a player says it: "the right bower", "the ace of spades"."""
    if trump is not None and trump < 4:
        if c == right_bower(trump):
            return "the right bower"
        if c == left_bower(trump):
            return "the left bower"
    return f"the {RANK_NAMES[RANKS[rank(c)]]} of {SUIT_NAMES[suit(c)]}"


def _holding(hand: int, t: int) -> str:
    """The trumps, bowers and off-suit aces in `hand` with `t` as trump, in words."""
    trumps = hand & TRUMP_MASK[t]
    n = trumps.bit_count()
    bowers = [b for b, c in (("right", right_bower(t)), ("left", left_bower(t))) if hand >> c & 1]
    said = f"{NUMBERS[n]} trump{'' if n == 1 else 's'}"
    if len(bowers) == 2:
        said += ", both bowers among them,"
    elif bowers:
        said += f", the {bowers[0]} bower," if n == 1 else f", the {bowers[0]} bower among them,"
    aces = sum(rank(c) == ACE for c in cards_of(hand & ~trumps))
    return f"{said} and {NUMBERS[aces]} off-suit ace{'s' if aces > 1 else ''}"


# -- bidding ---------------------------------------------------------------------------------


def _bid_hand(k: Known) -> int:
    """The hand the bid is judged on: the dealer ordering up picks the up card up."""
    if k.phase == "bid1" and k.me == k.dealer:
        return k.hand | 1 << k.up
    return k.hand


def _bid(k: Known, t: int, alone: bool) -> str:
    how = "Order up" if k.phase == "bid1" else "Call"
    what = f"{how} {SUIT_NAMES[t]}{' and go alone' if alone else ''}"
    picked = "with the up card " if _bid_hand(k) != k.hand else ""
    return f"{what}: {picked}you'd hold {_holding(_bid_hand(k), t)}."


def _pass(k: Known) -> str:
    if k.phase == "bid1":
        t = k.turned
        return (
            f"Pass: with {SUIT_NAMES[t]} as trump you'd hold {_holding(_bid_hand(k), t)}: "
            "not enough to order it up."
        )
    offered = [SUITS.index(code) for code in k.can["call"]["suits"]]
    best = max(offered, key=lambda s: strength(k.hand, s))
    return (
        f"Pass: even {SUIT_NAMES[best]}, your best suit to call, gives you "
        f"{_holding(k.hand, best)}: not enough to call it."
    )


def _defend(k: Known, alone: bool) -> str:
    held = _holding(k.hand, k.trump)
    if alone:
        return f"Defend alone: you hold {held}, enough to face the loner without your partner."
    return f"Don't defend alone: {held} is better played with your partner beside you."


# -- the discard -----------------------------------------------------------------------------


def _bury(k: Known, c: int) -> str:
    t = k.trump
    six = k.cards("discard")
    led = FOLLOWS[t][c]
    if led != t and not six & ~(1 << c) & SUIT_MASK[t][led]:
        return (
            f"Bury {name(c, t)}: it leaves you out of {SUIT_NAMES[led]}, "
            "so you can trump that suit when it's led."
        )
    if all(power(c, t) <= power(o, t) for o in cards_of(six & ~TRUMP_MASK[t])) and led != t:
        return f"Bury {name(c, t)}: it's your weakest card outside trump."
    return f"Bury {name(c, t)}: the cards you keep are worth more to you in this hand."


# -- card play -------------------------------------------------------------------------------


def _play(k: Known, c: int) -> str:
    t = k.trump
    options = k.cards("play")
    mem = Memory(k, full=True)
    if options == 1 << c:
        if k.hand == 1 << c:
            return f"Play {name(c, t)}: it's your last card."
        led = FOLLOWS[t][k.trick[0][1]]
        what = "trump" if led == t else SUIT_NAMES[led][:-1]
        return f"Play {name(c, t)}: you must follow suit, and it's the only {what} you have."
    if not k.trick:
        return _lead(k, mem, c)
    return _follow(k, mem, c, options)


def _lead(k: Known, mem: Memory, c: int) -> str:
    t = k.trump
    s = FOLLOWS[t][c]
    boss = mem.is_boss(c)
    if s == t:
        if c == right_bower(t):
            return "Lead the right bower: it draws out trump and can't lose."
        if boss:
            return f"Lead {name(c, t)}: it's the highest trump left, so it draws trump and wins."
        return f"Lead {name(c, t)}: leading trump draws out the other side's trumps."
    if boss:
        return (
            f"Lead {name(c, t)}: it's the highest {SUIT_NAMES[s][:-1]} left, so it wins "
            "unless someone is out of the suit and trumps it."
        )
    return f"Lead {name(c, t)}: it keeps your stronger cards for later tricks."


def _follow(k: Known, mem: Memory, c: int, options: int) -> str:
    t = k.trump
    led = FOLLOWS[t][k.trick[0][1]]
    p = POWER[t][led]
    seat, best = max(k.trick, key=lambda sc: p[sc[1]])
    playing = name(c, t)
    winners = [o for o in cards_of(options) if p[o] > p[best]]
    if p[c] > p[best]:
        after = [s for s in k.still_to_play() if not k.ours(s)]
        sure = not after or mem.holds(c, led, after)
        lowest = c == min(winners, key=lambda o: p[o])
        ruff = FOLLOWS[t][c] == t and led != t
        how = (
            f"Trump in with {playing}: you're out of {SUIT_NAMES[led]}"
            if ruff
            else f"Play {playing}: it beats {name(best, t)}"
        )
        if sure:
            tail = (
                "nobody still to play can beat it"
                if after
                else "only your partner plays after you"
                if k.still_to_play()
                else "you play last"
            )
            return f"{how}, and {tail}." + (" It's the cheapest card that wins." if lowest else "")
        return f"{how} and takes the trick so far."
    low = all(power(c, t) <= power(o, t) for o in cards_of(options))
    if k.ours(seat):
        return (
            f"Your partner is winning the trick with {name(best, t)}: keep your good cards "
            f"and play {playing}."
        )
    if not winners:
        what = "your lowest card" if low else "a card you won't miss"
        return f"You can't beat {name(best, t)}: play {what}, {playing}."
    return f"Play {playing} and hold your winners back: they're worth more in later tricks."
