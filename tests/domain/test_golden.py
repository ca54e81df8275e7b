"""Golden games: seeded whole games replayed command by command must make exactly the same events.

The files are written by golden/make.py (see there for the format and when to regenerate).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import msgspec
import pytest

from domain import State, decide, evolve, fold
from domain import commands as cmd
from domain import events as ev
from domain.cards import CODES
from domain.shuffle import dealt

GOLDEN = Path(__file__).parent / "golden"
FILES = sorted(GOLDEN.glob("*.jsonl"))

AnyCommand = (
    cmd.OpenTable
    | cmd.TakeSeat
    | cmd.LeaveSeat
    | cmd.SeatBot
    | cmd.ChangeSettings
    | cmd.StartGame
    | cmd.Farmer
    | cmd.Order
    | cmd.Call
    | cmd.Pass
    | cmd.Discard
    | cmd.Defend
    | cmd.Play
    | cmd.Ready
    | cmd.DealNow
)


class Game(msgspec.Struct):
    name: str
    seed: str
    settings: dict
    moves: str


class Final(msgspec.Struct):
    score: list[int]
    winner: int | None
    seq: int


class Golden(msgspec.Struct):
    header: Game
    steps: list[tuple[cmd.Command, list[bytes]]]  # each command and its events' raw JSON
    final: Final

    @property
    def events(self) -> list[ev.Event]:
        return [msgspec.json.decode(raw, type=ev.AnyEvent) for _, es in self.steps for raw in es]


def load(path: Path) -> Golden:
    raw_lines = path.read_bytes().splitlines()
    header = msgspec.json.decode(raw_lines[0], type=dict[str, Game])["game"]
    final = msgspec.json.decode(raw_lines[-1], type=dict[str, Final])["final"]
    steps: list[tuple[cmd.Command, list[bytes]]] = []
    for line in raw_lines[1:-1]:
        item = msgspec.json.decode(line, type=dict[str, msgspec.Raw])
        ((kind, body),) = item.items()
        if kind == "command":
            steps.append((msgspec.json.decode(body, type=AnyCommand), []))
        else:
            assert kind == "event", kind
            steps[-1][1].append(bytes(body))
    return Golden(header=header, steps=steps, final=final)


def test_there_are_golden_games():
    """§ Driving the engine: at least the four golden games are on file."""
    assert {p.stem for p in FILES} >= {"all_on", "throw_in", "people", "fallback"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_replaying_the_commands_makes_exactly_the_recorded_events(path):
    """§ Driving the engine: decide turns each recorded command into exactly the recorded events."""
    game = load(path)
    state = State()
    for n, (command, recorded) in enumerate(game.steps):
        made = decide(state, command)
        assert [msgspec.json.encode(e) for e in made] == recorded, f"command {n}: {command}"
        for e in made:
            state = evolve(state, e)
    assert list(state.score) == game.final.score
    assert state.winner == game.final.winner
    assert state.seq == game.final.seq
    assert state.status == "over"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_folding_the_recorded_events_gives_the_final_score(path):
    """§ Winning: the log alone, folded from an empty table, ends on the recorded score."""
    game = load(path)
    state = fold(game.events)
    assert list(state.score) == game.final.score
    assert state.winner == game.final.winner and state.seq == game.final.seq
    won = game.events[-1]
    assert isinstance(won, ev.GameWon) and won.score == game.final.score


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_an_auditor_can_check_every_deal_against_the_revealed_seed(path):
    """§ The shuffle: the seed's hash was published; every deal re-derives from the seed."""
    game = load(path)
    events = game.events
    opened = events[0]
    assert isinstance(opened, ev.TableOpened) and opened.seed == game.header.seed
    assert opened.seed_hash == hashlib.sha256(bytes.fromhex(game.header.seed)).hexdigest()
    deals = [e for e in events if isinstance(e, ev.HandDealt)]
    assert deals
    for d in deals:
        hands, up, kitty = dealt(game.header.seed, d.deal_no, d.dealer)
        assert d.hands == [[CODES[c] for c in h] for h in hands]
        assert d.up == CODES[up] and d.kitty == [CODES[c] for c in kitty]


def test_the_golden_games_show_what_they_are_for():
    """§ House rules: all rules on shows a farmer, loners and a lone defence; stick the dealer
    off shows a throw-in; the people's game waits for ready and the host deals now."""
    everything = load(GOLDEN / "all_on.jsonl").events
    assert load(GOLDEN / "all_on.jsonl").header.settings == {
        k: "on" for k in ("stick_dealer", "alone", "defend_alone", "farmers", "canadian")
    }
    assert any(isinstance(e, ev.FarmerSwapped | ev.FarmerKept) for e in everything)
    assert any(isinstance(e, ev.DefenceChosen) and e.alone for e in everything)
    assert any(isinstance(e, ev.TrumpOrdered | ev.TrumpCalled) and e.alone for e in everything)

    throw_in = load(GOLDEN / "throw_in.jsonl")
    assert throw_in.header.settings == {"stick_dealer": "off"}
    assert any(isinstance(e, ev.HandThrownIn) for e in throw_in.events)

    people = load(GOLDEN / "people.jsonl")
    commands = [c for c, _ in people.steps]
    assert any(isinstance(c, cmd.Ready) for c in commands)
    assert any(isinstance(c, cmd.DealNow) for c in commands)
    assert any(isinstance(c, cmd.LeaveSeat) for c in commands)


def test_each_recorded_event_decodes_and_encodes_back_to_the_same_bytes():
    """§ Driving the engine: the log's JSON round-trips through the event union exactly."""
    for path in FILES:
        for _, recorded in load(path).steps:
            for raw in recorded:
                assert msgspec.json.encode(msgspec.json.decode(raw, type=ev.AnyEvent)) == raw
