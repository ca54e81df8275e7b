"""A spectator's attack on a game still running, from its public log alone (issue: secrets
leaked from the live log): for every field the log blanks, try every value it could hold and
see whether anything published (the line's hash in the chain, its seal) gives one away.

Against a version 1 log the chain's hash covers the hidden value, so the buried card falls in
24 tries; against version 2 nothing published depends on a hidden value but the seal, whose
256-bit nonce the spectator can't know until the game is over.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import datetime
from itertools import combinations, permutations
from pathlib import Path

import msgspec
from log_kit import recorded

from domain import events as ev
from domain.cards import CODES
from domain.codec import to_event
from infra.eventstore import RecordedEvent
from projections.audit import LINE_FIELDS, log_lines

HERE = Path(__file__).parent
NINES_AND_TENS = [c for c in CODES if c[0] in "9T"]


def canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def candidates(line: dict, known: dict) -> Iterator[dict]:
    """Every value the blanked fields of `line` could hold, as a spectator sees it: any card
    for a buried one; for a farmer's swap, three of the eight 9s and 10s (in the order the
    rules write them) for any three other cards; for a deal, the real hands (more than a
    spectator knows) with any order of the cards left for the kitty."""
    if line["type"] == "CardBuried":
        for card in CODES:
            yield {"card": card}
    elif line["type"] == "FarmerSwapped":
        for gave in combinations(NINES_AND_TENS, 3):
            rest = [c for c in CODES if c not in gave]
            for got in permutations(rest, 3):
                yield {"gave": list(gave), "got": list(got)}
    elif line["type"] == "HandDealt":
        hands = known[line["seq"]]["hands"]
        left = [c for c in CODES if c != line["up"] and all(c not in h for h in hands)]
        for kitty in permutations(left, 3):
            yield {"hands": hands, "kitty": list(kitty)}


def recovered(live: list[dict], code: str, known: dict) -> dict[int, list[dict]]:
    """By seq, each blanked line's candidates that something published matches: the chain's
    hash with the candidate in place, or the seal as a plain hash of the candidate."""
    found: dict[int, list[dict]] = {}
    previous = bytes(32)
    for line in live:
        if line["type"] in ("CardBuried", "FarmerSwapped", "HandDealt"):
            data = {k: v for k, v in line.items() if k not in LINE_FIELDS}
            for guess in candidates(line, known):
                body = {"data": {**data, **guess}, "seq": line["seq"], "stream": code}
                chained = hashlib.sha256(previous + canonical({**body, "type": line["type"]}))
                plain = hashlib.sha256(canonical(guess)).hexdigest()
                if chained.hexdigest() == line["hash"] or plain == line.get("seal"):
                    found.setdefault(line["seq"], []).append(guess)
        previous = bytes.fromhex(line["hash"])
    return found


def spectators_log(records: list[RecordedEvent]) -> list[dict]:
    """The log as anyone may read it at the last moment before the game ends, when the most
    cards have been played: every line but the last, secrets null."""
    until = next(n for n, r in enumerate(records) if r.type == "GameWon")
    return log_lines(records[:until])


def stored(line: dict) -> RecordedEvent:
    """An exported line as a store would hand it back."""
    data = {k: v for k, v in line.items() if k not in LINE_FIELDS}
    at = datetime.fromisoformat(line["at"])
    return RecordedEvent(
        "GOLDEN", line["seq"], line["seq"], line["type"], data, None, at, 0, line["hash"]
    )


def golden_events(name: str) -> list[ev.Event]:
    """The events of a golden game (tests/domain/golden), in order."""
    path = HERE.parent / "domain" / "golden" / f"{name}.jsonl"
    rows = [msgspec.json.decode(row) for row in path.read_text().splitlines()]
    return [to_event(e.pop("type"), e) for row in rows if (e := row.get("event")) is not None]


def test_nothing_hidden_is_recovered_from_a_running_version_2_log():
    records = recorded("GOLDEN", golden_events("all_on"))
    live = spectators_log(records)
    assert {"CardBuried", "FarmerSwapped", "HandDealt"} <= {line["type"] for line in live}
    assert all(line["card"] is None for line in live if line["type"] == "CardBuried")
    known = {r.seq: r.data for r in records}
    assert recovered(live, "GOLDEN", known) == {}


def test_the_same_attack_on_a_running_version_1_log_recovers_every_buried_card():
    """tests/projections/v1/all_on.ndjson: a game the server logged before seals existed."""
    text = (HERE / "v1" / "all_on.ndjson").read_text()
    lines = [stored(json.loads(line)) for line in text.splitlines()[1:]]
    live = spectators_log(lines)
    known = {line.seq: line.data for line in lines}
    found = recovered(live, "GOLDEN", known)
    buried = [line for line in lines if line.type == "CardBuried"]
    assert buried and all(found[b.seq] == [{"card": b.data["card"]}] for b in buried)
    swapped = next(line for line in lines if line.type == "FarmerSwapped")
    assert found[swapped.seq] == [{"gave": swapped.data["gave"], "got": swapped.data["got"]}]
