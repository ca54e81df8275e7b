"""How long a bot thinks before each kind of decision, so people can follow the table.

Seconds at the brisk pace, about a second a card; relaxed doubles them, and the server-wide
`EUCHRE_BOT_DELAY_SCALE` multiplies everything (0 in tests). The first lead after a trick
waits a little longer, so the finished trick can be seen going to its winner.
"""

from __future__ import annotations

from domain import Decision, deciding
from domain.state import State

THINK_SECONDS = {
    "reveal": 0.0,
    "farmer": 1.2,
    "bid": 1.2,
    "discard": 1.0,
    "defend": 1.2,
    "play": 0.9,
    "ready": 0.0,
}
AFTER_TRICK_SECONDS = 0.8
PACES = {"brisk": 1.0, "relaxed": 2.0}
# Seconds (at scale 1) of the think time a searching level may spend on its search: the
# expert's slowest decisions in bench/bots.py take less.
SEARCH_SECONDS = {"expert": 0.5}


def bot_decisions(state: State) -> list[Decision]:
    """The decisions pending now that a bot makes: a bot's seat, or a person's it covers."""
    return [d for d in deciding(state) if state.seats[d.seat].is_bot]


def search_seconds(state: State, decision: Decision, scale: float) -> float:
    """How much of the think time goes to searching: the turn's message is sent that much
    early, and the move waits out whatever of it the search didn't use, so a bot that
    searches still moves on time, not late by its search."""
    level = state.seats[decision.seat].bot
    allowance = SEARCH_SECONDS.get(level, 0.0) if level is not None else 0.0
    return min(allowance * scale, think_seconds(state, decision, scale))


def think_seconds(state: State, decision: Decision, scale: float) -> float:
    seconds = THINK_SECONDS[decision.kind]
    if decision.kind == "play" and not state.deal.trick and state.deal.tricks:
        seconds += AFTER_TRICK_SECONDS
    return seconds * PACES[state.settings.bot_pace] * scale
