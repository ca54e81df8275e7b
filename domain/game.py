"""Starting and stepping a game without a table service: for auditors, other engines and tests."""

from __future__ import annotations

from domain import commands as cmd
from domain.decide import decide_and_fold
from domain.events import Event
from domain.evolve import evolve
from domain.state import State


def apply(state: State, command: cmd.Command) -> tuple[State, list[Event]]:
    """Decide and fold in one step: the new state and the events that made it."""
    events, after = decide_and_fold(state, command)
    return after, events


def opening(seed: str, settings: dict | None = None, code: str = "GAME") -> list[Event]:
    """The events that open a table with four bot seats and deal its first hand."""
    state, log = State(), []
    for command in (
        cmd.OpenTable(code=code, host="host", name="Host", seed=seed, settings=settings),
        cmd.LeaveSeat(player="host", seat=0),
        cmd.StartGame(player="host"),
    ):
        state, events = apply(state, command)
        log.extend(events)
    return log


def new_game(seed: str, settings: dict | None = None, code: str = "GAME") -> State:
    """A started game whose four seats are all bots, so hands follow one another without
    anyone saying they are ready; the first hand is dealt and the caller moves for every seat."""
    state = State()
    for e in opening(seed, settings, code):
        state = evolve(state, e)
    return state
