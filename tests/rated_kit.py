"""Finished games for the ratings' tests in every folder: played by the rules from a seed,
with registered people, guests and bots, and appended to a log as the service would."""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Sequence

from domain import commands as cmd
from domain import deciding, legal
from domain import events as ev
from domain.codec import to_record
from domain.events import Level
from domain.game import apply
from domain.state import State
from infra.eventstore import EventStore, NewEvent
from projections.ratings import Rating, rate
from projections.ratings import game_of as facts_of

SEED = "5e" * 32
# (player, registered) by seat; None: a bot of the table's level
People = Sequence[tuple[str, bool] | None]


def finished_game(
    code: str,
    seed: int,
    people: People,
    bots: Level = "medium",
    leaver: int | None = None,
    settings: dict | None = None,
) -> list[ev.Event]:
    """A game played to its end with random legal moves, under the house rules `settings`; the
    person in seat `leaver` stands up at a random moment. The first person is the host; each
    person gives a seed of their own for the deals."""
    host = next(n for n, p in enumerate(people) if p is not None)
    player, registered = people[host]
    rng = random.Random(seed)
    state, events = State(), []
    commands: list[cmd.Command] = [
        cmd.OpenTable(
            code=code,
            host=player,
            name=player.title(),
            seed=SEED,
            seat=host,
            bots=bots,
            registered=registered,
            contribution=contribution(code, player),
            settings=settings,
        )
    ]
    for n, p in enumerate(people):
        if p is not None and n != host:
            given = contribution(code, p[0])
            sit = cmd.TakeSeat(
                player=p[0], name=p[0].title(), seat=n, registered=p[1], contribution=given
            )
            commands.append(sit)
    commands.append(cmd.StartGame(player=player))
    for command in commands:
        state, new = apply(state, command)
        events += new
    leaves = rng.randrange(1, 300)
    while state.status == "playing":
        if leaver is not None and len(events) >= leaves and not state.seats[leaver].away:
            command = cmd.LeaveSeat(player=state.seats[leaver].player, seat=leaver)
        else:
            d = rng.choice(deciding(state))
            command = rng.choice(legal(state, d.seat))
        state, new = apply(state, command)
        events += new
    return events


def committed_game(code: str, seed: int, seeds: dict[str, str], reveal: set[str]) -> list[ev.Event]:
    """A game whose people (the first the host, in seat 0; the rest in seats 1, 2, ...) sat
    down with commitments to `seeds` (player -> seed); at the start those in `reveal`
    reveal theirs and the others withhold; played out with random legal moves."""
    host, *guests = seeds
    pledged = {p: hashlib.sha256(bytes.fromhex(s)).hexdigest() for p, s in seeds.items()}
    commands: list[cmd.Command] = [
        cmd.OpenTable(code=code, host=host, name=host.title(), seed=SEED, commitment=pledged[host])
    ]
    for n, player in enumerate(guests, start=1):
        commands.append(
            cmd.TakeSeat(player=player, name=player.title(), seat=n, commitment=pledged[player])
        )
    commands.append(cmd.StartGame(player=host))
    for n, player in enumerate(seeds):
        answer = cmd.Reveal(seat=n, seed=seeds[player]) if player in reveal else None
        commands.append(answer or cmd.Withhold(seat=n))
    state, events = State(), []
    for command in commands:
        state, new = apply(state, command)
        events += new
    rng = random.Random(seed)
    while state.status == "playing":
        d = rng.choice(deciding(state))
        state, new = apply(state, rng.choice(legal(state, d.seat)))
        events += new
    return events


def contribution(code: str, player: str) -> str:
    """The seed a person gives at table `code`: any 64 hex digits will do."""
    return hashlib.sha256(f"{code}/{player}".encode()).hexdigest()


async def append_game(store: EventStore, code: str, events: list[ev.Event]) -> None:
    await store.append(code, 0, [NewEvent(*to_record(e)) for e in events])


def log_game(database_url: str, code: str, events: list[ev.Event]) -> None:
    """Append a game's events to the log of the database at `database_url`, from sync code."""

    async def go() -> None:
        store = await EventStore.open(database_url, size=1)
        try:
            await append_game(store, code, events)
        finally:
            await store.close()

    asyncio.run(go())


def rated_in_order(games: Sequence[list[ev.Event]]) -> dict[str, Rating]:
    """Every registered player's rating after `games` rated one after another: what the
    ratings follower must arrive at, however it was woken."""
    known: dict[str, Rating] = {}
    for events in games:
        for seat in rate(facts_of(events), known) or []:
            if seat.after is not None and seat.player is not None:
                known[seat.player] = seat.after
    return known
