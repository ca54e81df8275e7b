"""The family's Euchre as pure rules: a decider over immutable table state.

Drive it from outside like this (docs/euchre.md, "Driving the engine")::

    from domain import new_game, apply, legal, deciding, view
    state = new_game(seed="ab" * 32, settings={"farmers": "on"})
    while state.status == "playing":
        turn = deciding(state)[0]
        state, events = apply(state, legal(state, turn.seat)[0])
    print(state.score, state.winner)

Each rule has one module (the page's "Where each rule lives"): lifecycle, away, room, dealing,
farmer, bidding, discard, defend, tricks, scoring; decider dispatches on the phase to them.
"""

from domain.commands import Command, Move
from domain.decider import can, decide, deciding, fallback, legal
from domain.errors import Conflict, IllegalMove, NotAllowed, NotYourTurn, Refused
from domain.events import LEVELS, AnyEvent, Event, Level
from domain.evolve import evolve, fold
from domain.game import Deal, apply, new_game, opening
from domain.house_rules import HouseRules
from domain.phases import Decision
from domain.seat_view import View, view
from domain.state import Phase, State

__all__ = [
    "LEVELS",
    "AnyEvent",
    "Command",
    "Conflict",
    "Deal",
    "Decision",
    "Event",
    "HouseRules",
    "IllegalMove",
    "Level",
    "Move",
    "NotAllowed",
    "NotYourTurn",
    "Phase",
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
