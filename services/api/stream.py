"""The event stream: each watcher's own view at once, then after every change, and the
table's talk (chat lines and reactions) in log order among the views.

One feed per table per process reads the log when the doorbell rings (or a short timer
fires, in case a ring was lost) and hands each stable state to every watcher, who turns it
into their own view. So a hundred browsers on one table cost one query per change. A chat
line or reaction is the same for everyone: the feed encodes it once and every watcher sends
those bytes; it makes no new view.

Who at a table has no stream open (`event: presence`) is no fact of the log: the feed reads
it from presence when a stream of someone signed in opens or closes anywhere (presence's
CHANGED notice), and at each poll in case a notice was lost, and sends it when it changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec
from litestar import Controller, Request, get
from litestar.background_tasks import BackgroundTask
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath
from litestar.response import Stream

from domain.codec import to_event
from domain.events import Event
from domain.seat_view import table_json, view_json
from domain.state import State
from domain.talk import SAID
from infra import metrics
from infra.doorbell import Carried, Doorbell, Wake
from infra.players import Player
from infra.presence import Presence
from infra.settings import StreamLimits
from projections import talk
from projections.replay import headed, heads_after, stable_after
from projections.talk import ChatLine, Said, shown
from services.api.auth import optional_player, token_digest
from services.api.bodies import Disconnected, Disconnection, table_code
from services.api.contract import OPTIONAL, READ, problems
from services.api.heads import Heads
from services.api.limits import _address, limited
from services.api.room import Room
from services.api.stream_limits import StreamGate, Ticket
from services.use_cases import Tables

SAID_TYPES = frozenset(kind.__name__ for kind in SAID)
KEEP_ALIVE = 15.0
POLL = 5.0
# Items (states and lines of talk) a feed keeps, so a stream resumed within them reads no log.
RECENT = 64
# A feed outlives its last watcher this long: a stream that reconnects (a page reloaded, a
# resume) finds it still reading, and a crowd opening and closing streams on one table doesn't
# start and stop a reader each time (each stopped mid-read cost a database connection).
LINGER = 10.0
TICKS = 5  # the feeds' clock ticks this many times in their shortest wait (poll or nudge)
BACKLOG = 32  # items a watcher may fall behind before it is resynced to the newest
STALL = StreamLimits().stall_seconds  # one write blocked this long drops its stream
TALK_KEPT = 200  # lines of talk a resumed stream is sent at most: as many as the page keeps
# Watchers handed an item in one turn of the loop. Each then writes its frame (a send each,
# about 25 us): 200 spectators handed one move at once held every other request back 5 ms.
SHARE = 32
# How a feed learnt of a move, for the move-to-view latency: from this process's own commit,
# from a ring that carried it, or from reading the log (a ring without it, or a poll).
VIA = {
    via: metrics.Gathered(metrics.move_to_view.labels(via)) for via in ("commit", "ring", "read")
}


log = logging.getLogger(__name__)
FRESH = metrics.streams_opened.labels("fresh")
RESUMED = metrics.streams_opened.labels("resumed")
_encode = msgspec.json.Encoder().encode
KEEP_ALIVE_FRAME = b": keep-alive\r\n\r\n"
# A process shutting down ends its streams with this (`Feeds.drain`): come back in a second,
# to whichever process takes the connection, and resume with Last-Event-ID as after any drop.
PARTING = b"retry: 1000\r\n\r\n"
HEADERS = {"Cache-Control": "no-cache", "Connection": "keep-alive", "X-Accel-Buffering": "no"}


def frame(event: str, data: bytes, seq: int | None = None) -> bytes:
    """One server-sent event. `data` is msgspec's JSON, which escapes every line break, so it
    is one line."""
    head = b"" if seq is None else b"id: %d\r\n" % seq
    return b"%bevent: %b\r\ndata: %b\r\n\r\n" % (head, event.encode(), data)


@dataclass(frozen=True, slots=True)
class Line:
    """A chat line or reaction as the stream sends it, encoded once for every watcher."""

    seq: int
    frame: bytes

    @classmethod
    def of(cls, said: Said, after: State, heads: Heads) -> Line:
        """`said`, with the signed head of its own event (`after` is the table after it)."""
        event = "chat" if isinstance(said, ChatLine) else "reaction"
        return cls(said.seq, frame(event, heads.spliced(_encode(said), after), said.seq))


@dataclass(frozen=True, slots=True)
class Notice:
    """A frame about the table that isn't in its log (who is disconnected): sent as it is."""

    frame: bytes


Logged = State | Line  # what the log holds: a state to show as a view, or a line of talk
Item = Logged | Notice  # what a watcher sends next


class Watcher:
    """One open stream's place in a feed: the items it has yet to send, at most BACKLOG.

    A watcher that falls that far behind (a stalled connection) is resynced: its backlog is
    dropped for the newest state. Each view is the whole table, so it misses no fact of the
    game, only the steps between (and the talk between, which the log keeps); and a slow
    reader can't make the server hold an ever longer queue.

    A reader whose client stopped reading waits in one write for as long as the client's
    socket stays full. Counted in the feed's nudges, a write that long is ended with the
    stream (`drop`): the client, if it ever reads again, reconnects and resumes at the table
    as it is then.
    """

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Item | None] = asyncio.Queue(BACKLOG)
        self.resyncs = 0
        self.quiet = False  # offered nothing since the feed's last nudge
        self.writing = True  # out of `next`: sending what it took (or its first frames)
        self.stuck = 0  # the feed's nudges since it last came back for an item
        self.task: asyncio.Task[Any] | None = None  # what sends this stream, to end it
        self.token: str | None = None  # the hash of the token it was opened with, if any

    def offer(self, item: Item, newest: State | None = None) -> None:
        """`newest`: the table after `item`, where that is not `item` itself."""
        self.quiet = False
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(item if newest is None else newest)
            self.resyncs += 1

    def nudge(self) -> None:
        """The feed's tick, every half keep-alive: a keep-alive (None) for a watcher offered
        nothing since the last tick, so no stream goes a whole keep-alive without a word."""
        if self.quiet and self.queue.empty():
            self.queue.put_nowait(None)
        self.quiet = True
        if self.writing:
            self.stuck += 1

    def part(self) -> None:
        """End the stream after what it is sending now, asking its client to come back: what it
        had yet to send the client gets on resuming, as the table is by then."""
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(Notice(PARTING))

    def drop(self) -> None:
        """End the stream where its write waits; its places and presence go with it."""
        if self.task is not None:
            self.task.cancel()
            self.task = None

    async def next(self) -> Item | None:
        """The next item, or None where a keep-alive is due.

        It waits in the reader's own task, with no timer of its own: `asyncio.wait_for`
        started a task for every item, and `asyncio.timeout` a timer and a context, and with
        thousands of streams open they were most of what each young garbage collection walked
        (docs/scaling.md). The feed's one tick stands in for all its watchers' timers.
        """
        self.writing, self.stuck = False, 0
        item = await self.queue.get()
        self.writing = True
        return item


_decode_runs = msgspec.json.Decoder(list[tuple[str, dict[str, Any], str]]).decode


def _talk(events: list[Event]) -> bool:
    return any(isinstance(e, SAID) for e in events)


class Feed:
    """The log reader for one table, alive while someone watches it.

    It keeps the last RECENT items (stable states and lines of talk), and for each state what
    its views share and each seat's view, once someone asked for it: a hundred spectators of
    one table cost one view per change, not a hundred, and the four seats' views one encoding
    of the table between them.
    """

    def __init__(self, code: str, state: State, heads: Heads) -> None:
        self.code = code
        self.heads = heads
        self.state = state
        self.recent: deque[Logged] = deque([state], maxlen=RECENT)
        self.watchers: set[Watcher] = set()
        self.task: asyncio.Task[None] | None = None
        self.left: float | None = None  # when its last watcher went, by the loop's clock
        self.due = 0.0  # when the feed's wait for a ring should end, by the loop's clock
        self._wake: Wake | None = None
        self._tables: dict[int, bytes] = {}  # `table_json` by seq
        self.presence: Notice | None = None  # who is disconnected, as last sent
        self.presence_due = True  # presence changed since the feed last read it
        self.gone: list[Disconnection] = []  # as last sent
        self._views: dict[int, dict[int | None, bytes]] = {}  # `view_json` by seq, then seat
        # By seq, when each recent state was committed (time.time()) and how the feed heard.
        self.committed_at: dict[int, tuple[float, Any]] = {}
        self._handing: deque[tuple[Item, State | None]] = deque()  # shown, not yet handed out
        self._hander: asyncio.Task[None] | None = None

    async def run(
        self,
        tables: Tables,
        doorbell: Doorbell,
        poll: float,
        keep_alive: float,
        stall: int,
        presence: Presence | None = None,
    ) -> None:
        """Read the log at each ring, and every `poll` seconds in case one was lost; nudge
        the watchers every half `keep_alive`, and drop those stuck in one write for more
        than `stall` nudges. Its waits end at `due` by the feeds' clock (Feeds._keep_time),
        give or take a tick."""
        clock = asyncio.get_running_loop().time
        code = self.code
        tick = keep_alive / 2
        nudge_at, poll_at = clock() + tick, clock() + poll
        async with doorbell.watch(self.code) as wake:
            self._wake = wake
            read = True
            while True:
                if read:
                    records = await tables.store.read(self.code, after_seq=self.state.seq)
                    # `committed` may have moved the feed on while the read was under way (the
                    # read starts where the feed was, so it leaves no gap).
                    seen = self._seen(records[0].seq) if records else 0
                    records = records[seen or 0 :]
                    # A batch always ends at a stable state, so the last one is the table now.
                    # Its commit's time is the log's (the database's clock): a ring lost and
                    # made up for by a poll counts the poll's wait.
                    at = records[-1].at.timestamp() if records else 0.0
                    self._show(shown(records, self.state), at, VIA["read"])
                    tables.remember(self.state)
                if self.presence_due and presence is not None:
                    self.presence_due = False
                    await self._read_presence(presence)
                self.due = min(poll_at, nudge_at)
                rung = await wake.wait()
                now = clock()
                if now >= nudge_at:
                    for watcher in self.watchers:
                        watcher.nudge()
                        if watcher.stuck > stall:
                            log.info("dropped a stream of %s: its client stopped reading", code)
                            watcher.drop()
                    nudge_at = now + tick
                # Rung for appends this process already handed over (`committed`), or for
                # appends the rings carried: no read.
                if rung:
                    read = wake.announced is None or wake.announced > self.state.seq
                    if read and wake.announced is not None and wake.carried:
                        self._follow(wake.carried)
                        tables.remember(self.state)
                        read = wake.announced > self.state.seq
                else:
                    read = now >= poll_at  # not if only the tick woke it
                    self.presence_due = self.presence_due or read
                if rung or read:
                    poll_at = now + poll

    async def _read_presence(self, presence: Presence) -> None:
        """Send who is disconnected, if that changed: the people seated at the game, not
        covered by a bot, with no stream open. A Redis that fails leaves it as it was."""
        state = self.state
        seated = {}
        if state.status == "playing":
            seated = {s.player: n for n, s in enumerate(state.seats) if s.player and not s.away}
        try:
            found = await presence.disconnected(self.code, seated) if seated else {}
        except Exception as error:  # presence never fails what it serves
            log.warning("could not read who is disconnected at %s: %r", self.code, error)
            return
        gone = sorted(Disconnection(seated[p], round(left, 1)) for p, left in found.items())
        if not gone and not self.gone:
            return  # nobody was disconnected, nor is now: nothing to send
        self.gone = gone
        self.presence = Notice(
            frame("presence", msgspec.json.encode(Disconnected(gone, presence.grace)))
        )
        for watcher in self.watchers:
            watcher.offer(self.presence, self.state)

    def presence_changed(self) -> None:
        """Someone's stream opened or closed somewhere: look again at once."""
        self.presence_due = True
        if self._wake is not None:
            self._wake.expire()

    def expire(self, now: float) -> None:
        if self._wake is not None and now >= self.due:
            self._wake.expire()

    def committed(self, after: State, events: list[Event]) -> None:
        """This process appended `events`, ending at `after`: show them without a read, if
        they follow on from what the feed has (else the read after the ring catches up). Talk
        is left to that read: a line is sent with the time the log gave it."""
        seen = self._seen(after.seq - len(events) + 1)
        if seen is None or seen >= len(events):
            return  # a gap, which the read after the ring fills, or nothing new
        events = events[seen:]
        if _talk(events):
            return
        # Each state shown goes with the hash its view's head is signed over: linked here from
        # the feed's own head, and checked against the one the log gave the last event.
        hashes = heads_after(self.state, events)
        if hashes is None:
            return
        if hashes[-1] != after.head[1]:
            # The chain this feed links from its head and the one the log gave the append
            # disagree: the read after the ring shows what the log holds, but one of the two
            # is wrong, and an operator should hear of it.
            log.error("the hash chain of %s disagrees with the log at %d", self.code, after.seq)
            metrics.chain_failures.labels("feed").inc()
            return
        # A command's events end at a stable state, `after`: shown as it is, shared with the
        # table's cache. Only the states before it are folded again, to find any stable one
        # among them; most moves are one event, and fold nothing twice.
        *before, _ = events
        self._show(
            ((s, None) for s in [*stable_after(before, self.state, hashes), after]),
            time.time(),
            VIA["commit"],
        )

    def _seen(self, first: int) -> int | None:
        """The one test of whether what the feed hears follows on from what it shows, however
        it heard (its own process's commit, a ring, a read): of events whose first has seq
        `first`, how many it shows already, or None where some before them are missing (the
        next read fills the gap)."""
        return None if first > self.state.seq + 1 else self.state.seq + 1 - first

    def _follow(self, carried: list[Carried]) -> None:
        """Show the events rings carried from another process's appends, as far as they follow
        on from the feed. Talk stops it, as in `committed`; a gap too, left to the read. The
        ring comes right after the commit: its arrival stands for the commit's time."""
        now = time.time()
        for first, runs in carried:
            seen = self._seen(first)
            if seen is None:
                return
            logged = _decode_runs(runs)[seen:]
            new = [to_event(type_, data) for type_, data, _ in logged]
            if _talk(new):
                return
            hashes = [hash_ for _, _, hash_ in logged]
            states = ((s, None) for s in stable_after(new, self.state, hashes))
            self._show(states, now, VIA["ring"])

    def _show(self, items: Iterable[tuple[State, Said | None]], at: float, via: Any) -> None:
        """`at`: when the items were committed (time.time()); `via`: how the feed heard."""
        for state, said in items:
            item: Logged = state if said is None else Line.of(said, state, self.heads)
            self.recent.append(item)
            if said is None:
                self.committed_at[state.seq] = (at, via)
            if len(self.committed_at) > 2 * RECENT:  # now and then, not at every item
                oldest = self.recent[0].seq
                for seq in [seq for seq in self.committed_at if seq < oldest]:
                    del self.committed_at[seq]
            if len(self._tables) > 2 * RECENT:
                oldest = self.recent[0].seq
                for seq in [seq for seq in self._tables if seq < oldest]:
                    del self._tables[seq]
                    self._views.pop(seq, None)
            self.state = state
            newest = None if said is None else state
            if self._hander is None and len(self.watchers) <= SHARE:
                for watcher in self.watchers:
                    watcher.offer(item, newest)
            else:
                self._handing.append((item, newest))
        if self._handing and self._hander is None:
            self._hander = asyncio.create_task(self._hand_out())

    async def _hand_out(self) -> None:
        """Hand the shown items to a crowd of watchers SHARE at a time, in order, a turn of
        the loop between: the requests that came in meanwhile are read between them, so a
        table's spectators slow its players by a share's sends, not by all of theirs."""
        try:
            while self._handing:
                item, newest = self._handing.popleft()
                watchers = list(self.watchers)
                for start in range(0, len(watchers), SHARE):
                    for watcher in watchers[start : start + SHARE]:
                        watcher.offer(item, newest)
                    await asyncio.sleep(0)
        finally:
            self._hander = None

    def since(self, seq: int) -> list[Logged] | None:
        """The items after `seq`, if this feed still holds them all."""
        if seq < self.recent[0].seq:
            return None
        return [s for s in self.recent if s.seq > seq]

    def view_json(self, state: State, seat: int | None) -> bytes:
        """`view(state, seat)` as JSON, kept while `state` is recent (or ahead of the feed: a
        move's own answer comes before the feed shows it)."""
        views = self._views.get(state.seq)
        data = None if views is None else views.get(seat)
        if data is not None:
            return data
        table = self._tables.get(state.seq)
        if table is None:
            # The head goes with what every seat's view shares: spliced in once a state.
            table = self.heads.spliced(table_json(state), state)
        data = view_json(state, seat, table)
        if state.seq >= self.recent[0].seq:
            self._tables[state.seq] = table
            self._views.setdefault(state.seq, {})[seat] = data
        return data


class Feeds:
    def __init__(
        self,
        tables: Tables,
        doorbell: Doorbell,
        heads: Heads,
        poll: float = POLL,
        keep_alive: float = KEEP_ALIVE,
        stall: float = STALL,
        presence: Presence | None = None,
    ) -> None:
        self.keep_alive = keep_alive
        self._presence = presence
        self._stall = max(1, math.ceil(stall / (keep_alive / 2)))  # in nudges
        self.heads = heads
        self._tables = tables
        self._doorbell = doorbell
        self._poll = poll
        self._feeds: dict[str, Feed] = {}
        self.draining = False
        # One clock for every feed's waits. A timer for each wait (`asyncio.timeout`) cost a
        # timer, a context and a handle at every move of every table: 2.8% of the API's CPU at
        # 500 tables (docs/scaling.md).
        self._tick = min(poll, keep_alive / 2) / TICKS
        self._clock: asyncio.Task[None] | None = None

    async def committed(self, after: State, events: list[Event], made: float) -> None:
        """A step after each commit in this process (use_cases.AfterCommit)."""
        feed = self._feeds.get(after.code)
        if feed is not None:
            feed.committed(after, events)

    def view_json(self, state: State, seat: int | None) -> bytes:
        """`view(state, seat)` as JSON: from its table's feed where this process has one, so a
        move's answer and the mover's own stream share one view."""
        feed = self._feeds.get(state.code)
        if feed is None:
            return view_json(state, seat, self.heads.spliced(table_json(state), state))
        return feed.view_json(state, seat)

    def presence_changed(self, codes: str | None) -> None:
        """Presence's CHANGED notice: the tables (codes, space-separated) where a stream of
        someone signed in opened or closed, or None where notices may have been missed."""
        wanted = self._feeds.keys() if codes is None else codes.split()
        for code in list(wanted):
            feed = self._feeds.get(code)
            if feed is not None:
                feed.presence_changed()

    def drain(self) -> None:
        """The process is shutting down: every stream ends, asking its client to come back in a
        second (to another process: this one no longer listens), and one opened from now on
        ends as soon as it has sent the table as it is. Without it a shutdown waited for every
        watcher to close its page."""
        self.draining = True
        for feed in self._feeds.values():
            for watcher in feed.watchers:
                watcher.part()

    def revoked(self, digest: str | None) -> None:
        """A token was revoked, or its player banned (infra/players.py REVOKED): the streams
        it opened here end, asking their clients to come back, which the token no longer
        lets them do. None (notices maybe missed) ends none: a stream is no request, and
        the next one its client makes is checked anew."""
        if digest is None:
            return
        for feed in self._feeds.values():
            for watcher in feed.watchers:
                if watcher.token == digest:
                    watcher.part()

    def watching(self, code: str) -> int:
        """How many streams in this process watch `code` now."""
        feed = self._feeds.get(code)
        return 0 if feed is None else len(feed.watchers)

    @contextlib.asynccontextmanager
    async def subscribe(self, code: str) -> AsyncIterator[tuple[Feed, Watcher]]:
        feed = self._feeds.get(code)
        if feed is None:
            state = await self._tables.load(code)
            # Streams opened together all await the load: the first back starts the feed.
            feed = self._feeds.get(code)
            if feed is None:
                feed = Feed(code, state, self.heads)
                self._feeds[code] = feed
                feed.task = asyncio.create_task(
                    feed.run(
                        self._tables,
                        self._doorbell,
                        self._poll,
                        self.keep_alive,
                        self._stall,
                        self._presence,
                    )
                )
                if self._clock is None:
                    self._clock = asyncio.create_task(self._keep_time())
        watcher = Watcher()
        feed.watchers.add(watcher)
        feed.left = None
        try:
            yield feed, watcher
        finally:
            feed.watchers.discard(watcher)
            if not feed.watchers:
                feed.left = asyncio.get_running_loop().time()

    async def _keep_time(self) -> None:
        """Every tick, end the wait of each feed whose time is up, and stop those nobody has
        watched for LINGER seconds; gone with the last feed."""
        clock = asyncio.get_running_loop().time
        while self._feeds:
            await asyncio.sleep(self._tick)
            now = clock()
            for code, feed in list(self._feeds.items()):
                if feed.left is not None and now - feed.left > LINGER:
                    del self._feeds[code]
                    if feed.task is not None:
                        feed.task.cancel()
                else:
                    feed.expire(now)
        self._clock = None


async def _talk_since(
    tables: Tables, heads: Heads, feed: Feed, code: str, after: int, current: State
) -> list[Item]:
    """The lines of talk after seq `after` up to `current`, the last TALK_KEPT of them: what a
    resumed stream can't learn from the view of the table now. From the feed where it still
    holds them all, else from the log's talk alone (a line's head is its own event's): a
    resume of a long game from its start read and decoded every move to find a few lines."""
    recent = feed.since(after) if current is feed.state else None
    if recent is not None:
        lines: list[Item] = [i for i in recent if isinstance(i, Line)]
    else:
        lines = []
        found = await tables.store.read_streams([code], SAID_TYPES, {code: after})
        for record in found[code]:
            event = to_event(record.type, record.data)
            if isinstance(event, SAID) and record.seq <= current.seq:
                line = talk.said(record.seq, record.at, event)
                lines.append(Line.of(line, headed(State(seq=record.seq, code=code), record), heads))
    return lines[-TALK_KEPT:]


def _message(feed: Feed, item: Item, player: Player | None) -> bytes:
    if isinstance(item, Line | Notice):
        return item.frame
    seat = None if player is None else item.seat_of(player.id)
    return frame("view", feed.view_json(item, seat), item.seq)


def last_event_id(raw: str | None) -> int | None:
    """`Last-Event-ID` as a seq, or None for a fresh start: anything but up to 18 ASCII digits
    (Unicode digits, thousands of them) is no id this service ever sent."""
    if raw is None or not 0 < len(raw) <= 18 or not raw.isascii() or not raw.isdigit():
        return None
    return int(raw)


@dataclass(frozen=True, slots=True)
class Watching:
    """What one stream reads from: the room, this process's feeds, and the caller's token
    (as REVOKED names it), by which a revoked sign-in ends the stream."""

    room: Room
    feeds: Feeds
    token: str | None


async def _events(
    watching: Watching, code: str, player: Player | None, last_id: int | None, ticket: Ticket
) -> AsyncIterator[bytes]:
    presence = watching.room.presence
    metrics.streams_open.inc()
    try:
        async with contextlib.AsyncExitStack() as stack:
            if presence is not None:
                who = (None, None) if player is None else (player.id, player.name)
                await stack.enter_async_context(presence.watching(code, *who))
            async for message in _watch(watching, code, player, last_id, ticket):
                yield message
    finally:
        metrics.streams_open.dec()
        ticket.release()


async def _watch(
    watching: Watching, code: str, player: Player | None, last_id: int | None, ticket: Ticket
) -> AsyncIterator[bytes]:
    room, feeds = watching.room, watching.feeds
    async with feeds.subscribe(code) as (feed, watcher):
        watcher.task = asyncio.current_task()
        watcher.token = watching.token
        current = feed.state
        if last_id is not None and last_id > current.seq:
            # Seen through another process, perhaps, whose feed is ahead of ours.
            current = await room.tables.load(code)
        sent: list[Item]
        if last_id is None or last_id > current.seq:
            sent = [current]  # a fresh stream, or an id from the future (a reset server, say)
            FRESH.inc()
        elif last_id == current.seq:
            sent = []
            RESUMED.inc()
        else:
            RESUMED.inc()
            # Resumed: the talk it missed, then the table as it is now; never the states
            # between, each a whole view of the table the last one makes old.
            talk = await _talk_since(room.tables, room.heads, feed, code, last_id, current)
            sent = [*talk, current]
        first = [_message(feed, item, player) for item in sent]
        if feed.presence is not None and feed.gone:
            first.append(feed.presence.frame)
        ticket.opened()
        for message in first:
            yield message
        if feeds.draining:
            yield PARTING
            return
        seq = current.seq
        while True:
            item = await watcher.next()
            if item is None:
                yield KEEP_ALIVE_FRAME
                continue
            if isinstance(item, Notice):
                yield item.frame
                if item.frame is PARTING:
                    return
                continue
            if item.seq > seq:
                seq = item.seq
                if player is not None and isinstance(item, State) and item.is_banned(player.id):
                    # Their last word from the table; the stream ends with it.
                    yield frame("banned", b'{"detail": "you were banned from this table"}')
                    return
                yield _message(feed, item, player)
                # Back here once the frame is sent. Talk is left out: it makes no new view.
                committed = feed.committed_at.get(seq) if isinstance(item, State) else None
                if committed is not None:
                    at, via = committed
                    via.observe(max(0.0, time.time() - at))


class StreamController(Controller):
    path = "/api/tables"
    tags = ["tables"]

    @get(
        "/{code:str}/events",
        dependencies={"player": Provide(optional_player)},
        guards=[limited("streams_per_anonymous_address", "streams_per_player")],
        security=OPTIONAL,
        media_type="text/event-stream",
        responses=problems(*READ, 403, 429),
    )
    async def events(
        self,
        request: Request,
        code: FromPath[str],
        player: NamedDependency[Player | None],
        room: NamedDependency[Room],
        feeds: NamedDependency[Feeds],
    ) -> Stream:
        """`event: view` with `id: <seq>` at once and after every change, and `event: chat`
        or `event: reaction` for each line of talk (`seq`, `player`, `name`, `seat`, `text`
        or `emoji`, `at`); resumed with Last-Event-ID, the talk after it and then the table as
        it is now (an id that is no seq starts afresh); a comment keeps it open, so it never
        goes 15 s without a word. A viewer banned meanwhile gets `event: banned` and the stream
        ends. 429 beyond the process's caps on streams (docs/operations.md)."""
        code = table_code(code)
        # The caps first: a refusal costs no read of the table, so a crowd refused again and
        # again can't keep the process busy loading it.
        gate: StreamGate = request.app.state.stream_gate
        address = None if player is not None else await _address(request)
        ticket = gate.admit(code, address, None if player is None else player.id)
        try:
            await ticket.wait_turn()  # its turn ends with its first frames (_watch)
            # 404, or 403 for who may not watch, before the stream opens; a person back from
            # away is back from here.
            await room.arrive(code, player)
        except BaseException:
            ticket.release()
            raise
        last_id = last_event_id(request.headers.get("last-event-id"))
        return Stream(
            _events(Watching(room, feeds, token_digest(request)), code, player, last_id, ticket),
            media_type="text/event-stream",
            headers=HEADERS,
            # Its places are given back here too, should the stream end before it began.
            background=BackgroundTask(ticket.release),
        )
