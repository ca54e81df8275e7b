"""How the API is served over HTTP: uvicorn, with the edge protections `euchre serve` needs on
its own, since nothing is in front of it by default (a proxy, where there is one, adds its own).

uvicorn alone waits forever for a request's headers and body, and a connection that never sends
a byte is never timed out: 2,000 half-sent requests were held for as long as the client liked,
and one client's 20,000 idle connections used up the process's file descriptors, so the health
check failed for everyone. The protocol here is uvicorn's httptools one with:

- a header timeout (nginx's client_header_timeout, HAProxy's timeout http-request): a request's
  headers must all arrive within `header_timeout` of the connection opening, or of the first
  byte after a keep-alive wait; else a 408 (if it had begun) and the connection is closed. Nor
  may they run past `HEAD_BYTES` (nginx's default header buffers hold 32 KiB): 431, closed.
- a body timeout: the body the headers declared must arrive within `body_timeout` of them
  (nginx counts between reads; a whole-body bound also stops a body dripped a byte at a time,
  and this API's bodies are a few hundred bytes);
- the keep-alive wait, longer than a balancer's or browser's own (the side that closes first
  must not be the server, or a request sent just then is lost);
- a cap on open connections per client address (nginx's limit_conn): one more is answered 429
  and closed at once, so one address can't hold the process's file descriptors;
- a cap in all (HAProxy's maxconn), below the file-descriptor limit (raised to its hard limit
  at start, so the cap is what binds): a new connection past it resets the oldest one still
  sending its headers, else the oldest idle keep-alive, so an attacker spread over many
  addresses can't lock a well-behaved newcomer out; only when every connection is serving a
  request (a stream, say) is the newcomer answered 503.

Caps and timeouts are per process: with `--processes N` each API process has its own.
A trusted proxy's connections aren't capped by address (they carry many clients; the proxy
limits those itself), and only a trusted proxy's X-Forwarded-For is believed: uvicorn's
forwarded_allow_ips is otherwise 127.0.0.1, so any local client could choose the address the
rate limits count.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import ipaddress
import logging
import resource
import socket
import struct
from collections import OrderedDict
from typing import Any, ClassVar

import msgspec
import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from infra.settings import Settings
from services.api.problems import MEDIA_TYPE, Problem

log = logging.getLogger(__name__)

HEAD_BYTES = 32 * 1024
DRAIN_SECONDS = 10  # the most a stopping API process takes (docs/operations.md "Stopping")
# Descriptors kept for what isn't a client: the database and Redis pools, the listening socket,
# log files, the bots' broker.
RESERVED_FDS = 256
LINGER_NOT = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() resets
# A stream's connection lost without a close is closed within 2 x LOST_AFTER s of the loss
# (docs/euchre.md "Away and back" promises 15; then the 20 s grace runs): within LOST_AFTER of
# the first frame or probe that goes unanswered, and a probe follows LOST_IDLE s of silence.
STREAM_PATH_END = "/events"
LOST_IDLE = 3
LOST_PROBE_EVERY = 1
LOST_AFTER = 6


def _answer(status: str, problem: Problem, *extra: bytes) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection: written before closing it, with no
    request read (or none finished), so it can't go through the app."""
    body = msgspec.json.encode(problem.body())
    head = [
        b"HTTP/1.1 " + status.encode(),
        b"content-type: " + MEDIA_TYPE.encode(),
        b"content-length: %d" % len(body),
        b"connection: close",
        *extra,
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def answers(settings: Settings) -> dict[int, bytes]:
    return {
        408: _answer(
            "408 Request Timeout",
            Problem(
                408,
                f"the request didn't arrive in time (headers within "
                f"{settings.header_timeout:g} s, a body within {settings.body_timeout:g} s)",
            ),
        ),
        429: _answer(
            "429 Too Many Requests",
            Problem(
                429,
                f"too many open connections from your address (at most "
                f"{settings.connections_per_address}); close some and try again",
            ),
            b"retry-after: 5",
        ),
        431: _answer(
            "431 Request Header Fields Too Large",
            Problem(431, f"the request's headers may take at most {HEAD_BYTES} bytes"),
        ),
        503: _answer(
            "503 Service Unavailable",
            Problem(503, "the server is at its connection limit; try again shortly"),
            b"retry-after: 5",
        ),
    }


class Phase(enum.Enum):
    HEAD = "waiting for a request's headers"
    BODY = "reading a request's body"
    BUSY = "serving a request"
    IDLE = "keep-alive, between requests"


class Ledger:
    """One process's open connections: how many from each address, and which may be closed
    to make room, oldest first (dicts keep insertion order)."""

    def __init__(self, settings: Settings, max_connections: int) -> None:
        self.per_address = settings.connections_per_address
        self.max_connections = max_connections
        self.trusted = [ipaddress.ip_network(n) for n in settings.trusted_proxies]
        self.open: set[EdgeProtocol] = set()
        self.by_address: dict[str, int] = {}
        # OrderedDicts, not dicts: finding a dict's first key walks past every slot deleted
        # before it, and under churn the oldest are deleted at the front all the time.
        self.heading: OrderedDict[EdgeProtocol, None] = OrderedDict()
        self.idle: OrderedDict[EdgeProtocol, None] = OrderedDict()

    def _trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted)

    def admit(self, conn: EdgeProtocol) -> int | None:
        """None if `conn` may stay, else the status to answer it with."""
        count = self.by_address.get(conn.address, 0)
        if count >= self.per_address and not self._trusted(conn.address):
            return 429
        if len(self.open) >= self.max_connections:
            victim = next(iter(self.heading), None) or next(iter(self.idle), None)
            if victim is None:
                return 503
            victim.evict()
        self.open.add(conn)
        self.by_address[conn.address] = count + 1
        return None

    def drop(self, conn: EdgeProtocol) -> None:
        if conn not in self.open:
            return
        self.open.discard(conn)
        self.heading.pop(conn, None)
        self.idle.pop(conn, None)
        left = self.by_address[conn.address] - 1
        if left:
            self.by_address[conn.address] = left
        else:
            del self.by_address[conn.address]

    def moved(self, conn: EdgeProtocol, phase: Phase) -> None:
        if conn not in self.open:
            return
        self.heading.pop(conn, None)
        self.idle.pop(conn, None)
        if phase is Phase.HEAD:
            self.heading[conn] = None
        elif phase is Phase.IDLE:
            self.idle[conn] = None


class EdgeProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, following each connection's phase to bound the time spent
    in each and to know which may be closed to make room. A timer is armed only when a phase
    outlasts the bytes at hand, so a request that comes in one read costs none."""

    ledger: ClassVar[Ledger]
    answers: ClassVar[dict[int, bytes]]
    header_timeout: ClassVar[float]
    body_timeout: ClassVar[float]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.address = ""
        self.phase = Phase.HEAD
        self.since = 0.0  # when the phase began
        self.began: float | None = None  # a request's first byte came, its headers haven't
        self.head_bytes = 0
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self.address = self.client[0] if self.client else ""
        refused = self.ledger.admit(self)
        if refused is not None:
            self.refuse(refused)
            return
        self.enter(Phase.HEAD)
        self.watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self.ledger.drop(self)
        self.stop_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        heading = self.phase is Phase.HEAD
        super().data_received(data)
        if self.transport.is_closing():
            return
        if heading and self.phase is Phase.HEAD:
            self.head_bytes += len(data)
            if self.head_bytes > HEAD_BYTES:
                self.refuse(431)
                return
        self.watch()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        now = self.loop.time()
        self.began = now
        if self.phase is Phase.IDLE:
            self.enter(Phase.HEAD, now)

    def on_headers_complete(self) -> None:
        self.began = None
        super().on_headers_complete()
        if self.scope["path"].endswith(STREAM_PATH_END):
            self.watch_for_loss()
        self.enter(Phase.BODY)

    def watch_for_loss(self) -> None:
        """Close this connection soon after its client is lost without a word: a stream is
        how a player is seen at the table, and one whose network went (a phone out of range, a
        laptop shut) sends no FIN, so without this the stream stays open for the kernel's 15
        minutes of retransmissions and nobody is shown disconnected. The kernel probes after
        `LOST_IDLE` s of silence from the client, and closes the connection once anything it
        sent (probe, frame or keep-alive) has gone `LOST_AFTER` s unacknowledged; a client
        that is there answers the probes in its kernel, unseen by the app. (Six seconds of a
        network's silence is long: a phone that comes back later reconnects, as on a reload.)"""
        sock = self.transport.get_extra_info("socket")
        if sock is None:
            return
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, LOST_IDLE)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, LOST_PROBE_EVERY)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, LOST_AFTER * 1000)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        # A response may finish before its request's body did (a refusal): then the
        # connection is between requests once the body is in.
        self.enter(Phase.IDLE if self.cycle.response_complete else Phase.BUSY)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.transport.is_closing() or self.phase is not Phase.BUSY:
            return
        if self.began is not None:  # the next request has begun, pipelined
            self._unset_keepalive_if_required()
            self.enter(Phase.HEAD, self.began)
        elif self.timeout_keep_alive_task is not None:  # else a pipelined one was started
            self.enter(Phase.IDLE)
        self.watch()

    def enter(self, phase: Phase, since: float | None = None) -> None:
        self.stop_timer()
        self.phase = phase
        self.since = self.loop.time() if since is None else since
        if phase is Phase.HEAD:
            self.head_bytes = 0
        self.ledger.moved(self, phase)

    def watch(self) -> None:
        """Arm the bound of the phase the connection is left in, if it has none yet."""
        if self.phase is Phase.IDLE:
            if self.timeout_keep_alive_task is None:
                self.timeout_keep_alive_task = self.loop.call_later(
                    self.timeout_keep_alive, self.timeout_keep_alive_handler
                )
            return
        if self.timer is not None or self.phase is Phase.BUSY:
            return
        bound = self.header_timeout if self.phase is Phase.HEAD else self.body_timeout
        self.timer = self.loop.call_at(self.since + bound, self.late)

    def stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def late(self) -> None:
        self.timer = None
        if self.transport.is_closing():
            return
        if self.phase is Phase.HEAD and self.began is None:  # not a byte of a request yet
            self.reset()
        elif self.phase in (Phase.HEAD, Phase.BODY):
            self.refuse(408)

    def refuse(self, status: int) -> None:
        # While headers are awaited, the cycle (if any) is the last request's, long answered.
        if self.phase is Phase.HEAD or not self.cycle.response_started:
            self.transport.write(self.answers[status])
        self.close()

    def evict(self) -> None:
        self.reset()

    def close(self) -> None:
        self.ledger.drop(self)
        self.stop_timer()
        self._unset_keepalive_if_required()
        self.transport.close()

    def reset(self) -> None:
        """Close with nothing to say, by a reset rather than the FIN handshake (nginx's
        reset_timedout_connection): no TIME_WAIT is left behind for each connection a slow client
        wasted, and the kernel does a third of the work."""
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_NOT)
        self.ledger.drop(self)
        self.stop_timer()
        self._unset_keepalive_if_required()
        self.transport.abort()


def _open_files() -> int:
    """Raise this process's open-file limit to its hard limit, so the connection cap, not the
    descriptor table, is what binds; the limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError) as error:
            log.warning("the open-file limit stays at %d: %s", soft, error)
    return soft


def protocol(settings: Settings) -> type[EdgeProtocol]:
    """An EdgeProtocol class of its own for one server, holding its process's ledger."""
    limit = _open_files()
    cap = settings.max_connections
    if limit != resource.RLIM_INFINITY and cap > limit - RESERVED_FDS:
        cap = max(1, limit - RESERVED_FDS)
        log.warning(
            "EUCHRE_MAX_CONNECTIONS=%d is more than this process may open (%d files, %d kept "
            "for the rest): %d it is",
            settings.max_connections,
            limit,
            RESERVED_FDS,
            cap,
        )
    return type(
        "Edge",
        (EdgeProtocol,),
        {
            "ledger": Ledger(settings, cap),
            "answers": answers(settings),
            "header_timeout": settings.header_timeout,
            "body_timeout": settings.body_timeout,
        },
    )


def config(app: Any, settings: Settings) -> uvicorn.Config:
    """The uvicorn configuration `euchre serve` runs each API process with."""
    trusted = list(settings.trusted_proxies)
    return uvicorn.Config(
        app,
        # Logging is infra/logs.py's, the access log services/api/access.py's: uvicorn's own
        # configuration would give its loggers handlers and formats of their own.
        log_config=None,
        log_level=None,
        access_log=False,
        http=protocol(settings),
        ws="none",
        timeout_keep_alive=settings.keep_alive_timeout,  # type: ignore[arg-type]
        # Stopping: streams end at once (Feeds.drain) and requests under way finish; whatever
        # is left after this long is cut off, so a deploy never waits on a stuck request.
        timeout_graceful_shutdown=DRAIN_SECONDS,
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or None,
    )
