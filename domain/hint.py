"""Hints (docs/euchre.md "Hints"): a person playing alone with bots may ask, on their own turn,
what the expert bot would do in their seat.

Only the asking is a rule here: who may ask and when, and the fact it leaves in the log
(`HintGiven`), which the ratings read (docs/ratings.md "Integrity": a hinted win isn't
credited). The advice itself is the expert's, worked out from the seat's own view
(domain/bots/hint.py), and never logged: it would show the seat's cards to whoever reads the
log. Like talk, a hint changes no decision, so a move decided on the view before it is still
current (domain/talk.py `aside`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import commands as cmd
from domain import events as ev
from domain.errors import Conflict, NotAllowed, NotYourTurn
from domain.phases import Evolve
from domain.state import State
from domain.talk import aside

# The decisions a hint answers: a bid, the dealer's discard, defending alone, a card.
HINTED = frozenset({"bid", "discard", "defend", "play"})
NOT_ALONE = "Hints are for games against bots only: another person plays at this table."


def alone_with_bots(s: State, seat: int) -> bool:
    """Whether every seat but `seat` is a bot's own (a person away still counts as a person)."""
    return all(x.player is None and x.bot is not None for n, x in enumerate(s.seats) if n != seat)


def ask(s: State, c: cmd.AskHint) -> list[ev.Event]:
    from domain.decider import deciding  # the decider dispatches to this module

    seat = s.seat_of(c.player)
    if seat is None:
        raise NotAllowed("Only a player seated at this table may ask for a hint, for their seat.")
    if s.status != "playing":
        raise Conflict("There is no hint to give: the game isn't under way.")
    if not alone_with_bots(s, seat):
        raise Conflict(NOT_ALONE)
    if s.seats[seat].away:
        raise Conflict("A bot is playing your seat while you're away: sit back down first.")
    if not any(d.seat == seat and d.kind in HINTED for d in deciding(s)):
        raise NotYourTurn("A hint is for your own turn to bid, discard or play: wait for it.")
    return [ev.HintGiven(seat=seat)]


COMMANDS: dict[type[cmd.Command], Callable[[State, Any], list[ev.Event]]] = {cmd.AskHint: ask}
EVOLVE: Evolve = {ev.HintGiven: aside}
