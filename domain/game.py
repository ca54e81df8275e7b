"""Starting and stepping a game without a table service: for auditors, other engines and tests
(docs/euchre.md "Driving the engine")."""

from __future__ import annotations

from typing import Any

import msgspec

from domain import commands as cmd
from domain import events as ev
from domain.cards import INDEX, Code
from domain.decider import decide_and_fold
from domain.errors import IllegalMove
from domain.evolve import fold
from domain.state import State


class Deal(msgspec.Struct, frozen=True):
    """A hand to start from instead of the seed's shuffle: four hands of five cards by seat,
    the up card and the kitty's three, all 24 cards once. Later deals follow the seed."""

    dealer: int
    hands: list[list[Code]]
    up: Code
    kitty: list[Code]

    def checked(self) -> Deal:
        cards = [c for h in self.hands for c in h] + [self.up, *self.kitty]
        if not 0 <= self.dealer <= 3:
            raise IllegalMove("dealer must be 0, 1, 2 or 3", field="dealer")
        if len(self.hands) != 4 or any(len(h) != 5 for h in self.hands) or len(self.kitty) != 3:
            raise IllegalMove("a deal is four hands of five cards, an up card and a kitty of 3")
        if any(c not in INDEX for c in cards) or len(set(cards)) != len(INDEX):
            raise IllegalMove("a deal holds each of the 24 cards exactly once")
        return self


def apply(state: State, command: cmd.Command) -> tuple[State, list[ev.Event]]:
    """Decide and fold in one step: the new state and the events that made it."""
    events, after = decide_and_fold(state, command)
    return after, events


def opening(
    seed: str,
    settings: dict[str, Any] | None = None,
    code: str = "GAME",
    deal: Deal | None = None,
) -> list[ev.Event]:
    """The events that open a table with four bot seats and deal its first hand: the seed's
    shuffle, or `deal` (the seed then deals the hands after it)."""
    state = State()
    log: list[ev.Event] = []
    for command in (
        cmd.OpenTable(code=code, host="host", name="Host", seed=seed, settings=settings),
        cmd.LeaveSeat(player="host", seat=0),
        cmd.StartGame(player="host"),
    ):
        state, events = apply(state, command)
        log.extend(events)
    if deal is None:
        return log
    deal = deal.checked()
    *start, started, _ = log  # the seed's first deal and the first dealer it chose are replaced
    assert isinstance(started, ev.GameStarted)
    given = ev.HandDealt(
        deal_no=1, dealer=deal.dealer, hands=deal.hands, up=deal.up, kitty=deal.kitty
    )
    return [*start, ev.GameStarted(first_dealer=deal.dealer), given]


def new_game(
    seed: str,
    settings: dict[str, Any] | None = None,
    code: str = "GAME",
    deal: Deal | None = None,
) -> State:
    """A started game whose four seats are all bots, so hands follow one another without
    anyone saying they are ready; the first hand is dealt (from `deal` if given) and the
    caller moves for every seat."""
    return fold(opening(seed, settings, code, deal))
