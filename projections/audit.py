"""A table's log as an auditor takes it away (the export), and the auditor's check of it
(docs/audit.md): the hash chain link by link, the server seed against its commitment, every
deal against the seed's shuffle, every move against the rules' legal moves, and every derived
event (tricks taken, hands scored or thrown in, the game won) against what the rules make of
the moves. Pure: lines in, a verdict out.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

import msgspec

from domain import commands as cmd
from domain import events as ev
from domain.chain import GENESIS, canonical, link
from domain.codec import to_event
from domain.decider import consequence, decide, deciding, legal
from domain.errors import Refused
from domain.evolve import evolve
from domain.sealing import SECRET_FIELDS, VERSION, seal
from domain.shuffle import seed_bytes
from domain.state import State
from projections.heads import SignedHead, Verify, held
from projections.lines import check_line
from projections.log import LINE_FIELDS, public_line

FORMAT = "euchre-log"
# Every format version this checker knows (domain/sealing.py VERSION is the one written now).
VERSIONS = (1, 2)
# Facts about the table and its people: not the rules' to derive, and none moves a card.
PEOPLE_EVENTS = frozenset(
    cls.__name__
    for cls in (
        ev.SeatTaken,
        ev.SeatLeft,
        ev.BotSeated,
        ev.BotRemoved,
        ev.SettingsChanged,
        ev.PlayerWentAway,
        ev.PlayerCameBack,
        ev.TableLocked,
        ev.TableUnlocked,
        ev.PlayerBanned,
        ev.SeatsSwapped,
        ev.SeatsHeld,
        ev.RematchOffered,
        ev.ChatSaid,
        ev.ReactionShown,
        ev.PlayerMuted,
        ev.PlayerUnmuted,
        ev.HintGiven,
    )
)


class Stored(Protocol):
    """A logged event as a store returns it."""

    @property
    def stream(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def data(self) -> dict[str, Any]: ...
    @property
    def hash(self) -> str: ...


class Header(msgspec.Struct, frozen=True, omit_defaults=True):
    format: str
    version: int
    code: str
    complete: bool  # the game is over: nothing is blanked
    events: int
    head: str  # the last event's hash, hex
    signed_head: SignedHead | None = None  # the same, signed by the service that exported it


def over(records: Sequence[Any]) -> bool:
    """Whether the log holds the game's end: then nothing in it is blanked."""
    return any(r.type == "GameWon" for r in records)


def version(records: Sequence[Any]) -> int:
    """The log's format version, as its TableOpened says (version 1 logs don't say)."""
    return records[0].data.get("version", 1) if records else VERSION


def log_lines(records: Sequence[Any]) -> list[dict[str, Any]]:
    """Every event's line, as GET /api/tables/{code}/log serves them: secrets blank until
    the game is over, each with its hash."""
    ended = over(records)
    return [public_line(r, ended) for r in records]


def export(
    code: str, records: Sequence[Any], signed: SignedHead | None = None
) -> list[dict[str, Any]]:
    """The header line, then the log's lines; `signed` is the last event's signed head."""
    head = records[-1].hash if records else ""
    header = Header(FORMAT, version(records), code, over(records), len(records), head, signed)
    return [msgspec.to_builtins(header), *log_lines(records)]


def ndjson(lines: Iterable[dict[str, Any]]) -> bytes:
    """Lines as a file holds them: one JSON object each, newline-terminated."""
    return b"".join(msgspec.json.encode(line) + b"\n" for line in lines)


class Problem(msgspec.Struct, frozen=True):
    seq: int | None  # the first event that disagrees; None: the file as a whole
    what: str


class Verdict(msgspec.Struct, frozen=True):
    ok: bool
    code: str | None
    summary: str  # one paragraph, in words
    events: int
    head: str | None
    problem: Problem | None = None


def verify(
    lines: Iterable[dict[str, Any]],
    heads: Sequence[SignedHead | str] = (),
    signed_by: Verify | None = None,
) -> Verdict:
    """Check an exported log; `heads` are heads kept from the game (bare hashes or signed
    heads, projections/heads.py), each of which the log must still hold. `signed_by` checks a
    signed head's signature (Ed25519 isn't the rules' business); without it, none is
    checked."""
    lines = list(lines)
    code: str | None = None
    body = lines[1:]

    def failed(seq: int | None, what: str) -> Verdict:
        if seq is None:
            where = "the file" if code is None else f"the file of table {code}"
        else:
            where = f"table {code}'s event {seq}"
        summary = f"Not verified: {where} {what}."
        return Verdict(False, code, summary, len(body), None, Problem(seq, what))

    if not lines or lines[0].get("format") != FORMAT:
        return failed(None, f"must begin with the {FORMAT} header")
    try:
        header = msgspec.convert(lines[0], Header)
    except msgspec.ValidationError as error:
        return failed(None, f"has a header that isn't valid: {error}")
    code = header.code
    if header.version not in VERSIONS:
        known = " or ".join(map(str, VERSIONS))
        return failed(None, f"is format version {header.version}, not {known}")
    if not header.complete:
        return failed(None, "is of a game that isn't over: its cards stay blank until then")
    if header.events != len(body):
        return failed(None, f"holds {len(body)} events, not the {header.events} its header says")
    chain = _chain(code, body)
    if isinstance(chain, Problem):
        return failed(chain.seq, chain.what)
    if header.head != chain:
        return failed(None, "has a header whose head isn't the last event's hash")
    ours = header.signed_head
    if ours is not None and (ours.code, ours.seq, ours.hash) != (code, len(body), chain):
        return failed(None, "has a header whose signed head isn't of its last event")
    for kept in [*heads, *([] if ours is None else [ours])]:
        if isinstance(kept, SignedHead) and signed_by is not None and not kept.signed(signed_by):
            return failed(None, f"is held against a head of seq {kept.seq} signed by no key")
        if isinstance(kept, SignedHead) and kept.code != code:
            return failed(None, f"is held against a head kept from table {kept.code}")
        wrong = held(body, kept)
        if wrong is not None:
            return failed(None, wrong)
    decoded = events_of(body)
    if isinstance(decoded, Problem):
        return failed(decoded.seq, decoded.what)
    opened = decoded[0] if decoded else None
    if isinstance(opened, ev.TableOpened) and opened.version != header.version:
        return failed(1, f"opens a version {opened.version} log; its header says {header.version}")
    played = _replayed(decoded)
    if isinstance(played, Problem):
        return failed(played.seq, played.what)
    state, counts = played
    deals = sum(isinstance(e, ev.HandDealt) for e in decoded)
    summary = _summary(code, len(body), chain, state, counts, deals)
    return Verdict(True, code, summary, len(body), chain)


def _chain(code: str, body: list[dict[str, Any]]) -> str | Problem:
    """The log's head, if every line's seq follows the last and its hash covers its contents
    and the hash before it."""
    previous = GENESIS
    for n, line in enumerate(body, start=1):
        seq = line.get("seq")
        if seq != n:
            return Problem(
                seq if isinstance(seq, int) else None,
                f"is in place {n}: an event is missing, added or moved",
            )
        data = {k: v for k, v in line.items() if k not in LINE_FIELDS}
        try:
            stored = bytes.fromhex(line["hash"])
            expected = link(previous, canonical(code, n, line["type"], data))
        except (KeyError, TypeError, ValueError):
            return Problem(n, "has no hash, type or data the chain can read")
        if stored != expected:
            return Problem(
                n, "was changed: its hash doesn't cover its contents and the hash before it"
            )
        previous = stored
    return previous.hex()


def events_of(body: list[dict[str, Any]]) -> list[ev.Event] | Problem:
    """The events of an export's lines (after its header), each line first checked to hold
    exactly its type's fields, each of its type (projections/lines.py)."""
    out = []
    for line in body:
        wrong = check_line(line)
        if wrong is not None:
            return Problem(line.get("seq"), f"isn't a valid event: {wrong}")
        data = {k: v for k, v in line.items() if k not in LINE_FIELDS}
        try:
            out.append(to_event(line["type"], data))
        except msgspec.ValidationError as error:
            return Problem(line["seq"], f"isn't a valid {line['type']}: {error}")
    return out


def _replayed(events: list[ev.Event]) -> tuple[State, Counter[str]] | Problem:
    """Fold the events through the rules, checking each as it comes: the state at the end, and
    how many events of each type the rules derived."""
    if not events or not isinstance(events[0], ev.TableOpened):
        return Problem(1, "should be TableOpened: every log begins with it")
    opened = events[0]
    try:
        committed = hashlib.sha256(seed_bytes(opened.seed)).hexdigest()
    except ValueError:
        return Problem(1, "reveals a seed that isn't 64 lowercase hex digits")
    if committed != opened.seed_hash:
        return Problem(1, "reveals a seed that doesn't hash to the seed_hash published with it")
    unsealed = _unsealed(opened, events)
    if unsealed is not None:
        return unsealed
    state = evolve(State(), opened)
    derived: Counter[str] = Counter()
    for seq, e in enumerate(events[1:], start=2):
        due = consequence(state)
        kind = type(e).__name__
        if due is not None:
            if e != due:
                return Problem(seq, f"should be {_said(due)} by the rules, not {_said(e)}")
            derived[kind] += 1
        elif isinstance(e, ev.GameStarted | ev.StartCalled):
            started = _started(state, e)
            if started is not None:
                return Problem(seq, started)
        elif kind not in PEOPLE_EVENTS and not _allowed(state, e):
            # A deal the host called for is still the seed's: say which it should be.
            moves = list(_moves(state, None))
            deals = [m for m in moves if isinstance(m, ev.HandDealt)]
            if isinstance(e, ev.HandDealt) and deals:
                return Problem(seq, f"should be {_said(deals[0])} by the seed, not {_said(e)}")
            said = "not a legal move" if moves else "but nobody has a move here"
            return Problem(seq, f"is {_said(e)}, {said}")
        state = evolve(state, e)
    if state.status != "over":
        return Problem(len(events), "is the last, but the game isn't over")
    if (due := consequence(state)) is not None:
        return Problem(len(events), f"is the last, but the rules make {_said(due)} next")
    return state, derived


def _unsealed(opened: ev.TableOpened, events: list[ev.Event]) -> Problem | None:
    """The first event whose revealed secrets don't match the seal logged with them (a
    version 1 log has no seals, and may have none)."""
    for seq, e in enumerate(events, start=1):
        fields = SECRET_FIELDS.get(type(e).__name__)
        if fields is None or isinstance(e, ev.TableOpened):
            continue
        logged: str | None = getattr(e, "seal")  # noqa: B009 (each secret type has one)
        if opened.version < 2:
            if logged is not None:
                return Problem(seq, "has a seal, which a version 1 log has nowhere")
            continue
        secret = {name: getattr(e, name) for name in fields}
        if logged != seal(opened.seed, seq, secret):
            return Problem(seq, "reveals secrets that don't match the seal logged with them")
    return None


def _started(state: State, e: ev.GameStarted | ev.StartCalled) -> str | None:
    """A game starts once, as the host's start makes it: the people who committed to seeds
    are asked for them, or, where none did, it starts with the seeds given openly and the
    first dealer the game's seed chooses."""
    if state.status != "waiting":
        return "starts a game that has started already"
    made = decide(state, cmd.StartGame(player=state.host or ""))
    expected = next(x for x in made if isinstance(x, ev.GameStarted | ev.StartCalled))
    if not isinstance(e, ev.GameStarted) or not isinstance(expected, ev.GameStarted):
        return None if e == expected else f"should be {_said(expected)}, not {_said(e)}"
    if e.contributions != expected.contributions:
        return f"names the seats' seeds {e.contributions}; they gave {expected.contributions}"
    if e.first_dealer != expected.first_dealer:
        dealer = expected.first_dealer
        return f"names seat {e.first_dealer} the first dealer; the seed's is seat {dealer}"
    return None


def _allowed(state: State, e: ev.Event) -> bool:
    """Whether `e` is the first event of a move the rules allow now. A seed revealed is
    the one move the rules can't list (the seed is its player's secret): it is made again
    from the event; so is a game ended as stalled, which only the service's clock decides
    (that the seat was a person's, present and deciding is the rules' to check), and a
    claim, which `legal` never lists (the rules judge it when it is made)."""
    again: cmd.Command | None = None
    if isinstance(e, ev.SeedRevealed):
        again = cmd.Reveal(seat=e.seat, seed=e.seed)
    elif isinstance(e, ev.GameAbandoned):
        again = cmd.EndStalled(seat=e.seat)
    elif isinstance(e, ev.TricksClaimed):
        again = cmd.Claim(seat=e.seat)
    if again is not None:
        try:
            return decide(state, again)[0] == e
        except Refused:
            return False
    return any(m == e for m in _moves(state, getattr(e, "seat", None)))


def _moves(state: State, seat: int | None) -> Iterator[ev.Event]:
    """The first event of each move the rules allow now (to `seat`, if given), one at a time:
    most checks stop at the first."""
    for d in deciding(state):
        if seat is None or d.seat == seat:
            for move in legal(state, d.seat):
                yield decide(state, move)[0]


def _said(e: ev.Event) -> str:
    data = msgspec.to_builtins(e)
    kind = data.pop("type")
    fields = ", ".join(f"{k}={v}" for k, v in data.items())
    return f"{kind}({fields})"


def _summary(
    code: str, events: int, head: str, state: State, derived: Counter[str], deals: int
) -> str:
    team = state.winner
    score = f"{state.score[0]}–{state.score[1]}"
    stalled = "" if state.stalled is None else f", seat {state.stalled} having stalled it"
    sealed = (
        " Every hidden card revealed at the end matches the seal logged with it."
        if state.version >= 2
        else ""
    )
    return (
        f"Verified: table {code}'s {events} events chain unbroken from the first to the head "
        f"{head}. The server seed revealed at the end hashes to the commitment published when "
        f"the table opened, and each of the {deals} deals is the seed's shuffle.{sealed} Every "
        f"move was one the rules allowed at its turn, and every derived event follows from the "
        f"moves: {derived['TrickTaken']} tricks taken, {derived['HandScored']} hands scored, "
        f"{derived['HandThrownIn']} thrown in, and the game won by team {team} "
        f"(seats {team} and {(team or 0) + 2}), {score}{stalled}."
    )
