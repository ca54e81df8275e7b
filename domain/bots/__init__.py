"""The bots: `choose(view, level, rng)` is a seat's next move, decided from its view alone.

Pure: no IO, no clock, and randomness only from the `rng` passed in, so a seeded game plays
the same every time and the secrecy contract (scramble what the seat can't see; the move
doesn't change) holds. Every move is one of the options in `view.can`, by construction.

Levels: "easy" (a beginner: calls trump on little, plays each trick on its own, sometimes
any card), "medium" (sound bidding and play from its hand, the trick on the table and who
has shown out) and "hard" (medium's method with every card gone counted, bidding bars and
loners fitted by simulation, the score read, a few measured refinements in play, and, with
two or three cards left, a search: it deals the unseen cards out many ways, plays each deal
out perfectly and overrules the rules' card when another scores clearly better; search.py)
and "expert" (every bid, discard and card by that search over deals weighed by what the
bidding said; expert.py).
"""

from __future__ import annotations

import random

from domain import commands as cmd
from domain.bots import bidding, easy, expert, play
from domain.bots.discard import bury, bury_for_void
from domain.bots.known import Known
from domain.cards import CODES
from domain.events import LEVELS, Level
from domain.seat_view import View

# level -> (how it bids, how it plays); a level missing here fails its first move in the tests.
_PLAYS_AS: dict[Level, tuple[str, str]] = {
    "easy": ("easy", "easy"),
    "medium": ("medium", "medium"),
    "hard": ("hard", "hard"),
    "expert": ("expert", "expert"),
}


def choose(v: View, level: str, rng: random.Random) -> cmd.Command:
    """The move `level` makes for the seat whose view this is.

    Raises ValueError for an unknown level, or when the seat has nothing to decide.
    """
    if level not in _PLAYS_AS:
        raise ValueError(f"no bot level {level!r}; the levels are {', '.join(LEVELS)}")
    bids, plays = _PLAYS_AS[level]
    can = v.can
    seat = v.you
    if seat is None:
        raise ValueError("a spectator has nothing to decide")
    if "ready" in can:
        return cmd.Ready(seat=seat)  # never "deal": starting the next hand is a person's call
    if "withhold" in can:
        return cmd.Withhold(seat=seat)  # a person's seed is theirs alone to reveal
    if not can or "deal" in can:
        raise ValueError("this seat has nothing to decide")
    k = Known(v)
    if "play" in can:
        if plays == "easy":
            card = easy.choose_card(k, rng)
        elif plays == "expert":
            card = expert.choose_card(k, rng)
        else:
            card = play.choose_card(k, plays, rng)
        return cmd.Play(seat=seat, card=CODES[card])
    if "order" in can:
        if bids == "easy":
            order, alone = easy.round_one(k)
        elif bids == "expert":
            order, alone = expert.round_one(k, rng)
        else:
            order, alone = bidding.round_one(k, bidding.STYLES[bids])
        return cmd.Order(seat=seat, alone=alone) if order else cmd.Pass(seat=seat)
    if "call" in can:
        if bids == "easy":
            suit, alone = easy.round_two(k)
        elif bids == "expert":
            suit, alone = expert.round_two(k, rng)
        else:
            suit, alone = bidding.round_two(k, bidding.STYLES[bids])
        return cmd.Pass(seat=seat) if suit is None else cmd.Call(seat=seat, suit=suit, alone=alone)
    if "discard" in can:
        hand = k.cards("discard")
        if bids == "expert":
            card = expert.discard(k, rng)
        else:
            card = {"easy": easy.bury, "medium": bury, "hard": bury_for_void}[bids](hand, k.trump)
        return cmd.Discard(seat=seat, card=CODES[card])
    if "defend" in can:
        if bids == "expert":
            return cmd.Defend(seat=seat, alone=expert.defend_alone(k, rng))
        return cmd.Defend(seat=seat, alone=bidding.defend_alone(k, bids))
    if "farmer" in can:
        cards = bidding.farmer_swap(k, "hard" if bids == "expert" else bids, rng)
        return cmd.Farmer(seat=seat, cards=[CODES[c] for c in sorted(cards)])
    raise ValueError(f"no bot knows how to answer {sorted(can)}")


__all__ = ["LEVELS", "choose"]
