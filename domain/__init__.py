"""The family's Euchre as pure rules: a decider over immutable table state.

Drive it from outside like this (docs/euchre.md, "Driving the engine")::

    from domain import new_game, apply, legal, deciding, view
    state = new_game(seed="ab" * 32, settings={"farmers": "on"})
    while state.status == "playing":
        turn = deciding(state)[0]
        state, events = apply(state, legal(state, turn.seat)[0])
    print(state.score, state.winner)
"""

from domain.commands import Command, Move
from domain.decide import decide
from domain.errors import Conflict, IllegalMove, NotAllowed, NotYourTurn, Refused
from domain.events import AnyEvent, Event
from domain.evolve import evolve, fold
from domain.game import apply, new_game, opening
from domain.legal import can, legal
from domain.state import State
from domain.turns import Decision, deciding, fallback
from domain.view import View, view

__all__ = [
    "AnyEvent",
    "Command",
    "Conflict",
    "Decision",
    "Event",
    "IllegalMove",
    "Move",
    "NotAllowed",
    "NotYourTurn",
    "Refused",
    "State",
    "View",
    "apply",
    "can",
    "decide",
    "deciding",
    "evolve",
    "fallback",
    "fold",
    "legal",
    "new_game",
    "opening",
    "view",
]
