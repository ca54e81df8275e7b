"""The table before and around the game (docs/euchre.md "Seats and the start", "House rules"):
opening it, seats, bots, house rules and the start, and what each does to the table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain import commands as cmd
from domain import events as ev
from domain.away import covered, uncovered
from domain.errors import Conflict, IllegalMove, NotAllowed
from domain.events import LEVELS
from domain.house_rules import house_rules_from
from domain.phases import Evolve
from domain.rematch import kept_for, unheld
from domain.sealing import VERSION
from domain.shuffle import first_dealer, game_seed, seed_bytes, seed_hash
from domain.state import Seat, State, seats_with


def _seat_number(seat: int) -> None:
    if not 0 <= seat <= 3:
        raise IllegalMove("seat must be 0, 1, 2 or 3", field="seat", allowed=["0", "1", "2", "3"])


def _level(level: str) -> None:
    if level not in LEVELS:
        raise IllegalMove(
            f"bots must be one of {', '.join(LEVELS)}", field="level", allowed=list(LEVELS)
        )


def _host_before_start(s: State, player: str, what: str) -> None:
    if player != s.host:
        raise NotAllowed(f"only the host may {what}")
    if s.status != "waiting":
        raise Conflict(f"the game has started; it's too late to {what}")


def open_table(s: State, c: cmd.OpenTable) -> list[ev.Event]:
    if s.seq:
        raise Conflict(f"table {s.code} is already open")
    _seat_number(c.seat)
    _level(c.bots)
    settings = house_rules_from(c.settings)
    try:
        digest = seed_hash(c.seed)
    except ValueError as e:
        raise IllegalMove(str(e), field="seed") from e
    _given(c.contribution, c.commitment)
    return [
        ev.TableOpened(
            code=c.code,
            host=c.host,
            settings=settings,
            bots=c.bots,
            seed=c.seed,
            seed_hash=digest,
            version=VERSION,
        ),
        ev.SeatTaken(
            seat=c.seat,
            player=c.host,
            name=c.name,
            registered=c.registered,
            contribution=c.contribution,
            commitment=c.commitment,
        ),
    ]


def _given(seed: str | None, commitment: str | None) -> None:
    """A seed of the player's own, given openly or as a commitment to reveal at the start:
    64 lowercase hex digits either way, and not both."""
    for value, field in ((seed, "seed"), (commitment, "commitment")):
        if value is not None:
            try:
                seed_bytes(value)
            except ValueError as e:
                raise IllegalMove(
                    f"your {field} must be 64 lowercase hex digits", field=field
                ) from e
    if seed is not None and commitment is not None:
        raise IllegalMove("give your seed or a commitment to it, not both", field="commitment")


def take_seat(s: State, c: cmd.TakeSeat) -> list[ev.Event]:
    _seat_number(c.seat)
    seat = s.seats[c.seat]
    if s.is_banned(c.player):
        raise NotAllowed("you were banned from this table")
    if s.locked and s.seat_of(c.player) is None:
        raise NotAllowed("the table is locked: nobody new may sit down")
    if s.status == "over":
        raise Conflict("the game is over")
    kept_for(s, c.seat, c.player)
    _given(c.contribution, c.commitment)
    if s.status == "playing":
        if seat.player == c.player and seat.away:
            return [
                ev.SeatTaken(seat=c.seat, player=c.player, name=c.name, registered=c.registered)
            ]
        raise Conflict(f"seat {c.seat} is taken; during a game you can only return to your own")
    if seat.player == c.player:
        raise Conflict(f"you already sit in seat {c.seat}")
    if seat.player is not None or seat.bot is not None:
        raise Conflict(f"seat {c.seat} is taken")
    moved = s.seat_of(c.player)
    out: list[ev.Event] = [] if moved is None else [ev.SeatLeft(seat=moved, player=c.player)]
    taken = ev.SeatTaken(
        seat=c.seat,
        player=c.player,
        name=c.name,
        registered=c.registered,
        contribution=c.contribution,
        commitment=c.commitment,
    )
    return [*out, taken]


def leave_seat(s: State, c: cmd.LeaveSeat) -> list[ev.Event]:
    """A player stands up; before the start the host may also take a bot out of its seat."""
    _seat_number(c.seat)
    seat = s.seats[c.seat]
    if seat.player is None and seat.bot is not None:
        _host_before_start(s, c.player, "take a bot out of its seat")
        return [ev.BotRemoved(seat=c.seat)]
    if seat.player != c.player:
        raise NotAllowed(f"seat {c.seat} isn't yours")
    if seat.away:
        raise Conflict("you have already left; a bot is covering your seat")
    if s.status == "over":
        raise Conflict("the game is over")
    return [ev.SeatLeft(seat=c.seat, player=c.player)]


def seat_bot(s: State, c: cmd.SeatBot) -> list[ev.Event]:
    _seat_number(c.seat)
    _level(c.level)
    _host_before_start(s, c.player, "seat a bot")
    if s.seats[c.seat].player is not None:
        raise Conflict(f"seat {c.seat} is taken by {s.seats[c.seat].name}")
    return [ev.BotSeated(seat=c.seat, level=c.level)]


def change_settings(s: State, c: cmd.ChangeSettings) -> list[ev.Event]:
    _host_before_start(s, c.player, "change the house rules")
    return [ev.SettingsChanged(settings=house_rules_from(c.settings, base=s.settings))]


def start_game(s: State, c: cmd.StartGame) -> list[ev.Event]:
    """Empty seats get bots; then the people who committed to seeds are asked for them
    (domain/reveal.py), or, where nobody did, the game starts at once."""
    _host_before_start(s, c.player, "start the game")
    bots: list[ev.Event] = [
        ev.BotSeated(seat=n, level=s.bots)
        for n, seat in enumerate(s.seats)
        if seat.player is None and seat.bot is None
    ]
    asked = [n for n, seat in enumerate(s.seats) if seat.player and seat.commitment]
    return [*bots, ev.StartCalled(asked=asked) if asked else started(s)]


def started(s: State) -> ev.GameStarted:
    """The start: the seeds the people seated gave, in seat order, and the first dealer the
    game's seed chooses."""
    given = [seat.contribution if seat.player is not None else None for seat in s.seats]
    contributions = given if any(given) else None
    dealer = first_dealer(game_seed(s.seed, contributions))
    return ev.GameStarted(first_dealer=dealer, contributions=contributions)


TABLE_COMMANDS: dict[type[cmd.Command], Callable[[State, Any], list[ev.Event]]] = {
    cmd.OpenTable: open_table,
    cmd.TakeSeat: take_seat,
    cmd.LeaveSeat: leave_seat,
    cmd.SeatBot: seat_bot,
    cmd.ChangeSettings: change_settings,
    cmd.StartGame: start_game,
}


def _opened(s: State, e: ev.TableOpened) -> State:
    return replace(
        s,
        seq=s.seq + 1,
        code=e.code,
        host=e.host,
        settings=e.settings,
        bots=e.bots,
        seed=e.seed,
        seed_hash=e.seed_hash,
        version=e.version,
    )


def _taken(s: State, e: ev.SeatTaken) -> State:
    """During a game this is a player sitting back down in their own seat: back from away,
    however they went."""
    if s.status == "waiting":
        seat = Seat(
            player=e.player,
            name=e.name,
            registered=e.registered,
            contribution=e.contribution,
            commitment=e.commitment,
        )
        seats = seats_with(s, e.seat, seat)
        return replace(s, seq=s.seq + 1, seats=seats, held=unheld(s, e.seat))
    back = replace(s.seats[e.seat], name=e.name, registered=e.registered, away=False, left=False)
    return uncovered(s, e.seat, back)


def _left(s: State, e: ev.SeatLeft) -> State:
    """During a game the player chose to go: the bot keeps the seat till they sit down again."""
    if s.status == "waiting":
        return replace(s, seq=s.seq + 1, seats=seats_with(s, e.seat, Seat()))
    return covered(s, e.seat, left=True)


def _bot_seated(s: State, e: ev.BotSeated) -> State:
    seats = seats_with(s, e.seat, Seat(bot=e.level))
    return replace(s, seq=s.seq + 1, seats=seats, held=unheld(s, e.seat))


def _bot_removed(s: State, e: ev.BotRemoved) -> State:
    return replace(s, seq=s.seq + 1, seats=seats_with(s, e.seat, Seat()))


def _rules_changed(s: State, e: ev.SettingsChanged) -> State:
    return replace(s, seq=s.seq + 1, settings=e.settings)


def _started(s: State, e: ev.GameStarted) -> State:
    return replace(
        s,
        seq=s.seq + 1,
        status="playing",
        first_dealer=e.first_dealer,
        deal_seed=game_seed(s.seed, e.contributions),
        phase="deal",
        held=(None, None, None, None),
    )


EVOLVE: Evolve = {
    ev.TableOpened: _opened,
    ev.SeatTaken: _taken,
    ev.SeatLeft: _left,
    ev.BotSeated: _bot_seated,
    ev.BotRemoved: _bot_removed,
    ev.SettingsChanged: _rules_changed,
    ev.GameStarted: _started,
}
