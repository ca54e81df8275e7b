"""The event lines' schema and page (projections/event_schema.py), made from the event types:
every real line of every type fits the schema and passes check_line (projections/lines.py), a
line changed as a forger might change it is refused by both, only the secrets may be null, and
docs/events.md is what the types say today.

The schema is checked with jsonschema_rs, the validator schemathesis installs.
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from log_kit import recorded

from domain import apply, can, deciding, legal
from domain import commands as cmd
from domain import events as ev
from domain.errors import IllegalMove
from domain.events import EVENT_TYPES, AnyEvent
from domain.sealing import SECRET_FIELDS
from domain.state import State
from projections.audit import export, ndjson
from projections.event_schema import REGENERATE, WHILE_RUNNING, event_fields_markdown, event_schema
from projections.lines import check_line

PAGE = Path(__file__).resolve().parents[2] / "docs" / "events.md"
LINE_FIELDS = ("seq", "type", "at", "hash")  # a line's own members (docs/audit.md)
SEED = "5e" * 32
# Four bots or people, every house rule that makes an event of its own on.
RULES = {"farmers": "on", "defend_alone": "on", "stick_dealer": "off", "canadian": "on"}


def seed_of(label: str) -> str:
    return hashlib.sha256(label.encode()).hexdigest()


def played(state: State, log: list[ev.Event], *commands: cmd.Command) -> State:
    for command in commands:
        state, events = apply(state, command)
        log.extend(events)
    return state


def played_out(state: State, log: list[ev.Event], rng: random.Random) -> State:
    """Random legal moves to the game's end, passing and keeping a farmer's hand more often
    than chance would, so hands thrown in and farmers kept come up; and the rest of a hand
    claimed whenever the rules would take it (`legal` never lists a claim)."""
    while state.status == "playing":
        seat = rng.choice(deciding(state)).seat
        if "claim" in can(state, seat):
            try:
                state = played(state, log, cmd.Claim(seat=seat))
                continue
            except IllegalMove:
                pass
        moves = legal(state, seat)
        quiet = [m for m in moves if m in (cmd.Pass(seat=seat), cmd.Farmer(seat=seat, cards=[]))]
        state = played(state, log, rng.choice(quiet if quiet and rng.random() < 0.8 else moves))
    return state


def pledged(label: str) -> str:
    """The commitment to `seed_of(label)`: the SHA-256 of its 32 bytes."""
    return hashlib.sha256(bytes.fromhex(seed_of(label))).hexdigest()


def tour() -> Iterator[tuple[str, list[ev.Event]]]:
    """Logs that hold every event type between them: a table of people through the room's
    every move, a game played to its end and play again offered; the table that follows, with
    seats kept; a game ended as stalled; and bots' games till a farmer has swapped and kept
    and a hand was thrown in."""
    rng = random.Random(2026)
    log: list[ev.Event] = []
    state = played(
        State(),
        log,
        cmd.OpenTable(code="TOUR", host="p0", name="P0", seed=SEED, contribution=seed_of("p0")),
        cmd.TakeSeat(player="p1", name="P1", seat=1, registered=True, commitment=pledged("p1")),
        cmd.TakeSeat(player="p2", name="P2", seat=2),
        cmd.LeaveSeat(player="p2", seat=2),
        cmd.TakeSeat(player="p2", name="P2", seat=2, commitment=pledged("p2")),
        cmd.SeatBot(player="p0", seat=3, level="hard"),
        cmd.LeaveSeat(player="p0", seat=3),
        cmd.ChoosePartner(player="p0", seat=1),
        cmd.ChangeSettings(player="p0", settings=RULES),
        cmd.LockTable(player="p0"),
        cmd.UnlockTable(player="p0"),
        cmd.BanPlayer(player="p0", banned="troll"),
        cmd.TakeSeat(player="p3", name="P3", seat=3),
        cmd.BanPlayer(player="p0", banned="p3"),
        cmd.Say(player="p1", name="P1", text="good luck"),
        cmd.React(player="p2", name="P2", emoji="👍"),
        cmd.Mute(player="p0", target="p2", name="P2"),
        cmd.Unmute(player="p0", target="p2"),
        cmd.StartGame(player="p0"),
    )
    seat = state.seat_of("p1")
    assert seat is not None
    other = state.seat_of("p2")
    assert other is not None
    state = played(
        state,
        log,
        cmd.Reveal(seat=seat, seed=seed_of("p1")),
        cmd.Withhold(seat=other),
        cmd.MarkAway(seat=seat, reason="gone"),
        cmd.ComeBack(player="p1"),
    )
    state = played_out(state, log, rng)
    played(state, log, cmd.OfferRematch(player="p0", code="TOUR2"))
    yield "TOUR", log
    again: list[ev.Event] = []
    played(
        State(),
        again,
        cmd.OpenTable(code="TOUR2", host="p0", name="P0", seed=seed_of("TOUR2")),
        cmd.HoldSeats(player="p0", players=[None, "p1", "p2", None]),
    )
    yield "TOUR2", again
    stalled: list[ev.Event] = []
    state = played(
        State(),
        stalled,
        cmd.OpenTable(code="STALLED", host="p0", name="P0", seed=seed_of("STALLED")),
        cmd.StartGame(player="p0"),
    )
    while all(d.seat != 0 for d in deciding(state)):
        state = played(state, stalled, legal(state, deciding(state)[0].seat)[0])
    played(state, stalled, cmd.AskHint(player="p0"), cmd.EndStalled(seat=0))
    yield "STALLED", stalled
    closed: list[ev.Event] = []
    played(
        State(),
        closed,
        cmd.OpenTable(code="SHUT", host="p0", name="P0", seed=seed_of("SHUT")),
        cmd.StartGame(player="p0"),
        cmd.CloseTable(reason="closed for the night"),
    )
    yield "SHUT", closed
    rare = {"FarmerSwapped", "FarmerKept", "HandThrownIn"}
    for n in range(500):
        if not rare:
            return
        bots: list[ev.Event] = []
        state = played(
            State(),
            bots,
            cmd.OpenTable(code=f"B{n}", host="h", name="H", seed=seed_of(str(n)), settings=RULES),
            cmd.LeaveSeat(player="h", seat=0),
            cmd.StartGame(player="h"),
        )
        played_out(state, bots, rng)
        rare -= {type(e).__name__ for e in bots}
        yield f"B{n}", bots
    raise AssertionError(f"500 games and never {rare}: make the tour find them another way")


def exported(code: str, events: list[ev.Event]) -> list[dict[str, Any]]:
    """The event lines of the log's export, as an auditor's file decodes."""
    text = ndjson(export(code, recorded(code, events)))
    return [msgspec.json.decode(line) for line in text.splitlines()[1:]]


@pytest.fixture(scope="module")
def lines() -> dict[str, list[dict[str, Any]]]:
    """Real event lines by type: from each log of the tour as exported once it is over, and as
    exported while it ran (its first half, secrets null)."""
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in EVENT_TYPES}
    for code, log in tour():
        for line in exported(code, log) + exported(code, log[: len(log) // 2]):
            out[line["type"]].append(line)
    return out


@pytest.fixture(scope="module")
def one(lines) -> dict[str, dict[str, Any]]:
    """One real line of each type, its secrets shown, its optional fields all there where some
    line has them."""
    return {
        name: max(found, key=lambda line: (sum(v is not None for v in line.values()), len(line)))
        for name, found in lines.items()
    }


@pytest.fixture(scope="module")
def jsonschema_rs():
    return pytest.importorskip(
        "jsonschema_rs", reason="no JSON Schema validator installed (schemathesis brings one)"
    )


@pytest.fixture(scope="module")
def valid(jsonschema_rs):
    """Whether a line fits the schema, formats (the date-time of `at`) checked too."""
    validator = jsonschema_rs.Draft202012Validator(event_schema(), validate_formats=True)
    return validator.is_valid


def refused_by_both(line: dict[str, Any], valid, naming: str) -> None:
    """The schema refuses the line, and check_line refuses it naming `naming`."""
    assert not valid(line), line
    said = check_line(line)
    assert said is not None and naming in said, (line, said)


def mutated(line: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(line)
    out.update(changes)
    return out


def wrong_values(value: Any) -> list[Any]:
    """Values of the wrong JSON type for a field holding `value`: a bool where an integer
    belongs (Python's bool is an int, JSON's isn't), a string for a number, and so on."""
    if isinstance(value, bool):
        return [0, "true"]
    if isinstance(value, int):
        return [True, str(value), value + 0.5]
    if isinstance(value, str):
        return [1, [value]]
    if isinstance(value, list):
        return [{}, "x"]
    if isinstance(value, dict):
        return [[], "x"]
    return [{}]


def allows_null(annotation: Any) -> bool:
    try:
        msgspec.convert(None, annotation)
    except msgspec.ValidationError:
        return False
    return True


def test_the_schema_is_a_draft_2020_12_json_schema(jsonschema_rs):
    schema = event_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert jsonschema_rs.meta.is_valid(schema)
    assert "$id" not in schema and "HouseRules" in schema["$defs"]
    assert [s["$ref"].rsplit("/", 1)[1] for s in schema["oneOf"]] == [
        kind.__name__ for kind in AnyEvent.__args__
    ]


def test_the_tour_has_real_lines_of_every_type_with_secrets_shown_and_blanked(lines):
    assert [name for name, found in lines.items() if not found] == []
    for name, secrets in SECRET_FIELDS.items():
        for field in secrets:
            held = [line[field] for line in lines[name]]
            assert None in held and any(v is not None for v in held), (name, field)


def test_every_real_line_of_every_type_fits_the_schema(lines, valid):
    for found in lines.values():
        for line in found:
            assert valid(line), line


def test_every_real_line_of_every_type_passes_check_line(lines):
    for found in lines.values():
        for line in found:
            assert check_line(line) is None, (line, check_line(line))


def test_a_line_with_a_field_its_type_lacks_is_refused_naming_it(one, valid):
    for line in one.values():
        refused_by_both(mutated(line, forged="AS"), valid, '"forged"')


def test_a_line_missing_a_required_field_is_refused_and_an_optional_one_may_be_absent(one, valid):
    for name, line in one.items():
        fields = {f.name: f.required for f in msgspec.structs.fields(EVENT_TYPES[name])}
        for field, required in {**dict.fromkeys(("seq", "at", "hash"), True), **fields}.items():
            cut = {k: v for k, v in line.items() if k != field}
            if required:
                refused_by_both(cut, valid, f"`{field}`")
            else:
                assert valid(cut) and check_line(cut) is None, (name, field)


def test_a_line_with_a_value_of_the_wrong_json_type_is_refused_naming_the_field(one, valid):
    for line in one.values():
        for field, value in line.items():
            if field != "type":
                for wrong in wrong_values(value):
                    refused_by_both(mutated(line, **{field: wrong}), valid, f"`{field}`")


def test_the_lines_own_members_are_checked_as_the_audit_page_describes_them(one, valid):
    line = one["CardPlayed"]
    for field, wrong in [
        ("seq", 0),
        ("at", "2026-12-01T00:00:00"),  # no offset: whose midnight?
        ("at", "yesterday"),
        ("hash", line["hash"].upper()),
        ("hash", line["hash"][:-1]),
    ]:
        refused_by_both(mutated(line, **{field: wrong}), valid, f"`{field}`")


def test_a_line_of_no_event_type_is_refused(one, valid):
    refused_by_both(mutated(one["CardPlayed"], type="CardForged"), valid, '"CardForged"')
    refused_by_both({k: v for k, v in one["CardPlayed"].items() if k != "type"}, valid, "null")


def test_null_is_allowed_for_the_secrets_while_a_game_runs_and_for_no_other_field(one, valid):
    schema = event_schema()["$defs"]
    for name, line in one.items():
        for field in msgspec.structs.fields(EVENT_TYPES[name]):
            if field.name not in line or allows_null(field.type):
                continue
            blank = mutated(line, **{field.name: None})
            if field.name in SECRET_FIELDS.get(name, ()):
                assert valid(blank) and check_line(blank) is None, (name, field.name)
                assert WHILE_RUNNING in schema[name]["properties"][field.name]["description"]
            else:
                refused_by_both(blank, valid, f"`{field.name}`")


def test_a_line_of_each_type_has_exactly_the_members_the_schema_lists(one):
    schema = event_schema()["$defs"]
    for name, line in one.items():
        fields = msgspec.structs.fields(EVENT_TYPES[name])
        assert set(schema[name]["properties"]) == {*LINE_FIELDS, *(f.name for f in fields)}
        assert schema[name]["required"] == [*LINE_FIELDS, *(f.name for f in fields if f.required)]
        assert schema[name]["additionalProperties"] is False
        assert set(line) <= set(schema[name]["properties"])


def test_docs_events_md_is_the_page_the_event_types_make():
    assert PAGE.read_text(encoding="utf-8") == event_fields_markdown(), (
        f"docs/events.md is out of date with domain/events.py: regenerate it with\n{REGENERATE}"
    )


def test_the_page_tells_each_field_of_each_type_in_words():
    page = event_fields_markdown()
    for name, kind in EVENT_TYPES.items():
        assert f"\n## {name}\n" in page
        for field in msgspec.structs.fields(kind):
            assert f"\n| `{field.name}` | " in page, (name, field.name)
    assert "| `hands` | list of lists of card codes; null while the game runs" in page
    assert "| `bots` | one of easy, medium, hard, expert | yes |" in page
    assert "| `seat` | null or integer | yes |" in page
    assert "| `contribution` | null or string | no (default null) |" in page
    assert "| `alone` | true or false | yes |" in page


def test_the_page_takes_a_fields_meaning_from_its_docstring_or_leaves_it_blank():
    page = event_fields_markdown()
    assert "| `code` | string | yes | At game over the host opened table `code` to play" in page
    card_played = page.split("\n## CardPlayed\n")[1].split("\n## ")[0]
    assert "| `card` | card code | yes |  |" in card_played
