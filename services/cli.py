"""The one `euchre` command: serve the tables, run workers, rebuild read models, migrate, an
auditor's export, replay and verify of a table's log, and the operator's commands
(services/ops.py)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import socket
import sys
import textwrap
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from infra.settings import Settings, SettingsError, described

if TYPE_CHECKING:
    from infra.eventstore import RecordedEvent
    from projections.heads import SignedHead

if TYPE_CHECKING:
    from infra.signing import Signer
    from services.supervisor import Supervisor


class Unusable(Exception):
    """Something the operator can fix, said in one sentence: the command exits 2, no trace."""


def _listen(host: str, port: int) -> socket.socket:
    """Bind the port before anything starts, so a taken one is reported before the embedded
    servers spin up, and nothing claims to be serving on a port it never got."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise Unusable(
            f"can't listen on {host}:{port} ({error.strerror or error}); stop whatever uses it, "
            "or pick another port with --port or EUCHRE_PORT"
        ) from None
    sock.listen(2048)
    return sock


def _announce_servers() -> None:
    """The embedded servers say where they are at INFO, and the supervisor what died and when
    it comes back; show just those lines (and not the worker's chatter about its own start and
    stop)."""
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    supervisor = logging.StreamHandler(sys.stdout)
    supervisor.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    for name, shown in (("infra.embedded", handler), ("services.supervisor", supervisor)):
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO)
        logger.addHandler(shown)
        logger.propagate = False  # once, whatever the app does to the root logger
    logging.getLogger("dramatiq").setLevel(logging.WARNING)


PRELOADED = [
    "alembic",
    "dramatiq",
    "litestar",
    "msgspec",
    "psycopg",
    "psycopg_pool",
    "redis",
    "sqlalchemy.ext.asyncio",
    "uvicorn",
]


def _api_only(args: argparse.Namespace, settings: Settings) -> int:
    if settings.database_url is None or settings.redis_url is None:
        raise Unusable(
            "set EUCHRE_DATABASE_URL and EUCHRE_REDIS_URL to the servers the service uses (API "
            "processes join a running service; `euchre serve` starts its own)"
        )
    return _serve(args, settings, bots=False)


def _serve(args: argparse.Namespace, settings: Settings, bots: bool = True) -> int:
    from infra.metrics_dir import shared_directory

    # First: a process's metrics go to the shared directory only if it is set before the
    # process first imports prometheus_client, and every process started from here inherits it.
    with shared_directory(settings.metrics):
        return _serving(args, settings, bots)


def _serving(args: argparse.Namespace, settings: Settings, bots: bool) -> int:
    import multiprocessing
    import os

    import msgspec

    from infra import embedded
    from services.supervisor import Child, Server, Supervisor, orphan_proof

    if args.processes < 1:
        raise Unusable(f"--processes must be 1 or more, not {args.processes}")
    host = args.host or settings.host
    port = settings.port if args.port is None else args.port
    # Made here if missing, before any API process starts: they all read the one file this
    # leaves, and a damaged one stops the start in one line rather than in every process.
    signer = _signer(settings)
    sock = _listen(host, port)
    port = sock.getsockname()[1]  # as asked, or the free one the system picked for 0
    _announce_servers()
    with sock, embedded.services(settings) as endpoints:
        joined = msgspec.structs.replace(
            settings, database_url=endpoints.database_url, redis_url=endpoints.redis_url
        )
        _logging(joined, "warning")
        _migrate_when_reachable(joined)
        # Children fork from a server process that has imported the libraries they use once,
        # so one restarted takes turns seconds sooner. Not our own modules: some keep state
        # made at import (a pool that knows its parent's pid), which must be the child's own.
        forks = multiprocessing.get_context("forkserver")
        forks.set_forkserver_preload(PRELOADED)
        me = os.getpid()

        def child(target: Callable[..., None], name: str, *args: object) -> Child:
            return Child(
                name,
                lambda: forks.Process(target=orphan_proof, args=(me, target, *args), name=name),
            )

        # The bots play in a worker process of their own, as `euchre worker` would. Further API
        # processes accept on the same listening socket, each connection going to whichever
        # takes it first: they share nothing but the database and Valkey, as API processes
        # behind a load balancer do (docs/scaling.md). Whatever dies is started again.
        watched: list[Child | Server] = [
            *([child(_work, "worker", joined, args.bot_threads, False)] if bots else []),
            *(child(_api, f"api-{n}", joined, sock, None) for n in range(1, args.processes)),
            *map(Server, endpoints.started),
        ]
        with _stopping(Supervisor(watched)):
            shown = f"[{host}]" if ":" in host else host
            _api(joined, sock, f"http://{shown}:{port}/", signer)
    return 0


def _signer(settings: Settings, rotate: bool = False) -> Signer:
    from infra.signing import KeyFileError, Signer

    path = settings.signing_keys_path()
    try:
        return Signer.rotate(path) if rotate else Signer.load(path)
    except KeyFileError as error:
        raise Unusable(str(error)) from None


def _api(
    settings: Settings, sock: socket.socket, url: str | None, signer: Signer | None = None
) -> None:
    """One API process serving `sock` until Ctrl-C or SIGTERM; the one given a `url` says so
    once it serves. A spawned one reads the key file itself: a key can't be pickled."""
    import signal

    from services.api.app import create_app, drain_streams
    from services.api.server import config as server_config
    from services.bots.runtime import BotSends

    _logging(settings, "warning")
    _tracing(settings, "api")
    if url is None:
        # A spawned one: the SIGTERM uvicorn re-raises once it has shut down ends the process
        # as an exit, not a kill, so its pool of password hashers is shut down with it.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    broker = settings.broker(settings.redis_url)
    with BotSends(
        broker, settings.bot_delay_scale, queue_type=settings.rabbitmq_queue_type
    ) as bots:
        app = create_app(
            settings.database_url,
            settings.redis_url,
            bots.scheduler,
            rate_limits=settings.rate_limits,
            secure_cookies=settings.secure_cookies,
            broker_url=broker,
            sign_heads=settings.signed_heads,
            stream_limits=settings.stream_limits,
            signer=signer or _signer(settings),
            metrics_allow=settings.metrics_allow if settings.metrics else None,
        )
        config = server_config(app, settings)  # timeouts and caps: services.api.server
        server = _draining()(config, url, lambda: drain_streams(app))
        # uvicorn re-raises the signal that stopped it once it has shut down cleanly; one
        # that comes before it has its handlers in place arrives as KeyboardInterrupt.
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[sock])
        _finish_quietly()
    _traced()


def _draining():
    import uvicorn

    class Draining(uvicorn.Server):
        """Says it serves once it does, if given a `url`: by then uvicorn has its signal
        handlers, so a Ctrl-C right after the line stops it cleanly. Stopping (SIGTERM, Ctrl-C)
        it first ends the event streams (`drain`), each asking its client to come back: uvicorn
        stops listening, lets requests under way finish and waits for every connection to
        close, and a stream closes only when it ends, so without this a process stopping for a
        deploy waited on the last page left open (docs/operations.md "Stopping")."""

        def __init__(
            self, config: uvicorn.Config, url: str | None, drain: Callable[[], None]
        ) -> None:
            super().__init__(config)
            self.url = url
            self.drain = drain

        async def startup(self, sockets=None) -> None:
            await super().startup(sockets)
            if self.started and self.url:
                print(f"Euchre Tables is serving on {self.url} (Ctrl-C stops it)", flush=True)

        async def shutdown(self, sockets=None) -> None:
            with contextlib.suppress(AttributeError):  # stopped before the app had started
                self.drain()
            await super().shutdown(sockets)

    return Draining


@contextlib.contextmanager
def _stopping(supervisor: Supervisor) -> Iterator[None]:
    """Stop the children on the way out, as Ctrl-C would, whatever state they are in: no more
    restarts, SIGTERM, then a kill if one lingers (the embedded servers stop after them)."""
    try:
        yield
    finally:
        supervisor.close()


def _finish_quietly() -> None:
    """Once the server has stopped, let the rest of shutdown (bots, then the embedded servers,
    each bounded by its own timeout) finish: a second Ctrl-C would only cut it short."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)


def _work(settings: Settings, threads: int, chatty: bool = True) -> None:
    """One worker process: bot turns (and maybe the sweeper) until SIGTERM or Ctrl-C.

    Not `chatty` under `euchre serve`, which shows only where its servers are: warnings and
    errors still show."""
    import signal

    # Before the slow imports: a Ctrl-C while they run stops the worker once it is ready, not
    # with a traceback.
    next_signal = _noting(signal.SIGTERM, signal.SIGINT)

    from infra import collector
    from services.bots.runtime import BotRuntime

    # Here, not in the parent: a spawned process starts with fresh logging.
    _logging(settings, "info" if chatty else "warning")
    _tracing(settings, "worker")
    _migrate_when_reachable(settings)
    broker = settings.broker_url or settings.redis_url
    with BotRuntime(
        settings.database_url,
        broker,
        settings.bot_delay_scale,
        threads=threads,
        presence_url=settings.redis_url,
        queue_type=settings.rabbitmq_queue_type,
    ):
        collector.settle()
        logging.getLogger("euchre.worker").info("worker ready: %d threads take bot turns", threads)
        next_signal()
    _traced()


def _noting(*signals: int) -> Callable[[], int]:
    """From now on `signals` are only noted, in this process's wakeup pipe; the function
    returned waits in the main thread for the next one noted (at once if one came already) and
    says which.

    Not a handler that sets an Event the main thread waits on: Python runs a handler only when
    the main thread next runs bytecode, so a signal landing just as the main thread blocks on
    the Event's lock (or handed by the kernel to another thread) left it blocked for good, and
    a worker now and then ignored its SIGTERM. Nor signals blocked and taken with sigwait:
    multiprocessing unblocks SIGTERM and SIGINT in a thread that starts its resource tracker.
    The C handler writes to the pipe from whichever thread the signal lands on, and a read
    can't miss what is already there."""
    import os
    import signal

    readable, writable = os.pipe()
    os.set_blocking(writable, False)
    signal.set_wakeup_fd(writable)
    for sig in signals:
        signal.signal(sig, lambda *_: None)
    return lambda: os.read(readable, 1)[0]


def _logging(settings: Settings, level: str) -> None:
    """This process's logs (infra/logs.py) at EUCHRE_LOG_LEVEL, else `level`, the command's."""
    import multiprocessing

    from infra import logs, outages

    name = multiprocessing.current_process().name
    process = "serve" if name == "MainProcess" else name
    broker = settings.broker_url or settings.redis_url
    probes = outages.probes(settings.database_url, settings.redis_url, broker)
    logs.configure(settings.log_level or level, settings.log_format, process, probes)  # type: ignore[arg-type]


def _migrate_when_reachable(settings: Settings) -> None:
    """Bring the schema up to date once the database answers: one line while it doesn't
    (infra/outages.py), not a traceback."""
    from infra import outages
    from infra.db import migrate

    assert settings.database_url is not None
    url = settings.database_url
    outages.reach("database", outages.probes(url, None, None)["database"])
    migrate(url)


def _tracing(settings: Settings, service: str) -> None:
    """Trace this process as `service` if EUCHRE_OTLP_ENDPOINT names a receiver."""
    if settings.otlp_endpoint is not None:
        from infra import tracing

        tracing.start(
            settings.otlp_endpoint, service, settings.trace_sample, settings.trace_statements
        )


def _traced() -> None:
    """Send the spans not sent yet, if tracing: a child process ends without exit hooks."""
    from infra import tracing

    tracing.stop()


def _worker(args: argparse.Namespace, settings: Settings) -> int:
    from infra.metrics_dir import shared_directory

    if settings.database_url is None or (settings.broker_url or settings.redis_url) is None:
        raise Unusable(
            "set EUCHRE_DATABASE_URL, and EUCHRE_BROKER_URL or EUCHRE_REDIS_URL, to the servers "
            "the service uses (workers join a running service; `euchre serve` has its own)"
        )
    if settings.worker_metrics_port is not None and not settings.metrics:
        raise Unusable(
            "EUCHRE_WORKER_METRICS_PORT serves metrics, which EUCHRE_METRICS=off turns off"
        )
    # The worker processes write their metrics to one directory, and this one serves them all
    # on the port set, if any (docs/operations.md "Metrics").
    with shared_directory(settings.metrics):
        from infra import metrics  # once the directory is set

        endpoint = None
        if settings.worker_metrics_port is not None:
            try:
                endpoint = metrics.serve(
                    settings.host, settings.worker_metrics_port, settings.metrics_allow
                )
            except OSError as error:
                raise Unusable(
                    f"can't serve metrics on {settings.host}:{settings.worker_metrics_port} "
                    f"({error.strerror or error}); pick another EUCHRE_WORKER_METRICS_PORT"
                ) from None
            # The port as bound: 0 asks the system for a free one, and this says which.
            host, port = endpoint.server_address[:2]
            print(f"worker metrics on http://{host}:{port}/metrics", flush=True)
        try:
            return _workers(args, settings)
        finally:
            if endpoint is not None:
                endpoint.shutdown()
                endpoint.server_close()


def _workers(args: argparse.Namespace, settings: Settings) -> int:
    import multiprocessing

    from infra.metrics_dir import process_gone

    if args.processes == 1:
        _work(settings, args.threads)
        return 0
    children = [
        multiprocessing.get_context("spawn").Process(
            target=_work, args=(settings, args.threads), name=f"worker-{n}"
        )
        for n in range(args.processes)
    ]
    import signal

    # A SIGTERM sent to this process alone (a supervisor's stop) reaches every worker; a
    # SIGCHLD has it look again at which are running, and it ends once none is.
    next_signal = _noting(signal.SIGTERM, signal.SIGINT, signal.SIGCHLD)
    for child in children:
        child.start()
    print(f"{args.processes} worker processes × {args.threads} threads", flush=True)
    while any(child.is_alive() for child in children):
        if next_signal() != signal.SIGCHLD:
            for child in children:
                child.terminate()
        for child in children:
            if child.exitcode is not None:
                process_gone(child.pid)
    return 0


def _rebuild(args: argparse.Namespace, settings: Settings) -> int:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from infra import embedded
    from infra.db import migrate
    from infra.eventstore import EventStore

    async def size(url: str) -> tuple[int, int]:
        store = await EventStore.open(url, size=1)
        try:
            return await store.size()
        finally:
            await store.close()

    with embedded.services(settings) as endpoints:
        url = endpoints.database_url
        migrate(url)
        # Two processes for two cores: the ratings and reviews, which read their own type of
        # event alone, beside the read models of the whole log, which show the bar.
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(1, mp_context=spawn) as beside:
            by_type = beside.submit(_rebuild_part, url, True)
            events, tables = asyncio.run(size(url))
            count = _rebuild_part(url, False, events)
            of_their_types = by_type.result()
    print(
        f"lobby, activity, ratings, reviews and the public log rebuilt from {count} events of "
        f"{tables} tables (ratings, reviews and the public log read {of_their_types} of them "
        "by type)"
    )
    return 0


def _rebuild_part(url: str, by_type: bool, bar: int | None = None) -> int:
    """Fold again the read models that follow one type of event (`by_type`), or those that
    read the whole log, with a progress bar out of `bar` events; how many events were read."""
    from tqdm import tqdm

    from infra.activity import Activity
    from infra.db import create_engine
    from infra.eventstore import EventStore
    from infra.follower import rebuild as fold_again
    from infra.lobby import Lobby
    from infra.ratings import Ratings
    from infra.reviews import Reviews
    from infra.transparency import PublicLog

    async def rebuild() -> int:
        engine = create_engine(url)
        store = await EventStore.open(url, size=4)
        reviews = Reviews(engine, store)
        try:
            if by_type:
                by_kind = [Ratings(engine, store), reviews, PublicLog(engine, store)]
                return await fold_again([model.follower for model in by_kind])
            followers = [Lobby(engine, store).follower, Activity(engine, store).follower]
            with tqdm(total=bar, desc="log", unit=" events", unit_scale=True) as progress:
                return await fold_again(followers, progress.update)
        finally:
            reviews.close()
            await store.close()
            await engine.dispose()

    return asyncio.run(rebuild())


class NotALog(Unusable):
    """An export whose lines can't be read one way only (a key given twice): a verdict on the
    log, so `verify` exits 1."""


def _lines(source: str, settings: Settings) -> list[dict]:
    """An export's lines, read strictly (a key given twice in a line is refused): from the
    file `source` (or stdin for -), else table `source`'s log read from the service's
    database."""
    from pathlib import Path

    from projections.lines import LineError, RepeatedKey, parse_ndjson

    if source == "-" or Path(source).is_file():
        text = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
        try:
            return parse_ndjson(text)
        except RepeatedKey as error:
            raise NotALog(f"line {error.line} of {source} {error.what}") from None
        except LineError as error:
            raise Unusable(
                f"line {error.line} of {source} {error.what}: is it a `euchre export`?"
            ) from None
    return _exported(source, settings)


def _exported(code: str, settings: Settings) -> list[dict]:
    import re

    from infra import embedded
    from infra.eventstore import EventStore
    from projections.audit import export

    if not re.fullmatch(r"[A-Z0-9-]{4,32}", code):
        raise Unusable(f"{code!r} is neither a file nor a table's code (4-32 of A-Z, 0-9, -)")

    async def read(url: str) -> list:
        store = await EventStore.open(url, size=1)
        try:
            return await store.read(code)
        finally:
            await store.close()

    with embedded.database(settings) as url:
        records = asyncio.run(read(url))
    if not records:
        raise Unusable(f"there is no table {code}")
    return export(code, records, _signed(settings, records[-1]))


def _signed(settings: Settings, last: RecordedEvent) -> SignedHead | None:
    """The last event's head, signed with the service's key where its key file is here (an
    export made elsewhere has no key to sign with, and makes none up)."""
    from infra.signing import Signer
    from projections.heads import sign_head

    path = settings.signing_keys_path()
    if not path.exists():
        return None
    signer = Signer.load(path)
    return sign_head(signer.sign, signer.key, last.stream, last.seq, last.hash)


def _export(args: argparse.Namespace, settings: Settings) -> int:
    from projections.audit import ndjson

    text = ndjson(_exported(args.code, settings))
    if args.output:
        with open(args.output, "wb") as out:
            out.write(text)
    else:
        sys.stdout.buffer.write(text)
    return 0


def _verify(args: argparse.Namespace, settings: Settings) -> int:
    import msgspec

    from infra.signing import verify as signed_by
    from projections.audit import verify
    from projections.heads import SignedHead, equivocation, parse_head

    if args.proof:
        return _check_proof(args.proof)
    if args.all:
        return _verify_all(settings)
    if args.source is None:
        raise Unusable("name an export file or a table's code, or give --all or --proof")
    try:
        heads = [parse_head(text) for head in args.head for text in _heads_in(head)]
    except (ValueError, msgspec.ValidationError) as error:
        raise Unusable(f"--head: {error}") from None
    try:
        lines = _lines(args.source, settings)
    except NotALog as error:
        print(textwrap.fill(f"Not verified: {error}", 88))
        return 1
    verdict = verify(lines, heads, signed_by)
    print(textwrap.fill(verdict.summary, 88))
    signed = [h for h in heads if isinstance(h, SignedHead)]
    ours = lines[0].get("signed_head") if lines else None
    if ours is not None:
        signed.append(msgspec.convert(ours, SignedHead))
    keys = sorted({h.key for h in signed})
    if keys:
        print(
            f"Heads signed by {', '.join(keys)}: check the service publishes "
            "these keys at /.well-known/euchre-keys."
        )
    if args.inclusion and verdict.ok:
        return _check_inclusion(args.inclusion, lines[1:])
    if verdict.code is not None and len(signed) > 1:
        proof = equivocation(verdict.code, lines[1:], signed, signed_by)
        if proof is not None:
            print(
                f"The service signed two heads of table {verdict.code} that no one log can "
                f"hold, at events {proof.heads[0].seq} and {proof.heads[1].seq}: the proof, "
                "which `euchre verify --proof FILE` checks, follows."
            )
            print(msgspec.json.encode(proof).decode())
            return 1
    return 0 if verdict.ok else 1


def _heads_in(given: str) -> list[str]:
    """The heads `--head` names: itself, or each line of the file it names (the web table's
    record downloads the heads a browser kept as one per line)."""
    from pathlib import Path

    if given.lstrip().startswith("{") or len(given) == 64:
        return [given]
    path = Path(given)
    if not path.is_file():
        raise ValueError(f"{given!r} is neither a hash, a signed head's JSON nor a file")
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _check_inclusion(source: str, body: list[dict]) -> int:
    """Whether the public log's answer in the file `source` (GET /api/transparency/games/
    {code}) includes this verified game's final head under a signed tree head."""
    from pathlib import Path

    import msgspec

    from infra.signing import verify as signed_by
    from projections.transparency import Inclusion, included

    try:
        inclusion = msgspec.json.decode(Path(source).read_bytes(), type=Inclusion)
    except (OSError, msgspec.DecodeError) as error:
        raise Unusable(f"{source} isn't an answer of /api/transparency/games: {error}") from None
    won = next(line for line in body if line["type"] == "GameWon")
    tree = inclusion.tree
    if (inclusion.seq, inclusion.hash) != (won["seq"], won["hash"]) or not included(
        inclusion, signed_by
    ):
        print(
            f"Not included: {source} doesn't prove that the tree of {tree.size} games signed "
            f"by {tree.key} holds this game's final head (event {won['seq']})."
        )
        return 1
    print(
        f"Included: table {inclusion.code}'s final head (event {won['seq']}) is game "
        f"{inclusion.index} of the public log's tree of {tree.size} games, root {tree.root}, "
        f"signed by {tree.key}."
    )
    return 0


def _check_proof(source: str) -> int:
    from pathlib import Path

    import msgspec

    from infra.signing import verify as signed_by
    from projections.heads import Proof, proves

    try:
        proof = msgspec.json.decode(Path(source).read_bytes(), type=Proof)
    except (OSError, msgspec.DecodeError) as error:
        raise Unusable(f"{source} isn't a proof `euchre verify` printed: {error}") from None
    early, late = proof.heads
    if proves(proof, signed_by):
        keys = early.key if early.key == late.key else f"{early.key} and {late.key}"
        print(
            f"Proved: heads of table {proof.code} at events {early.seq} and {late.seq} that no "
            f"one log can hold were signed by {keys}: if the service publishes those keys "
            "(/.well-known/euchre-keys), it showed two histories of the table."
        )
        return 0
    print("Not proved: the heads' signatures or the chain between them don't bear it out.")
    return 1


def _verify_all(settings: Settings) -> int:
    """Every finished game in the database, verified by a process per core, each reading its
    own share of the log, with a progress bar; each failure is named."""
    import multiprocessing
    import os
    import time

    from tqdm import tqdm

    from infra import embedded

    with embedded.services(settings) as endpoints:
        url = endpoints.database_url
        total, tables = asyncio.run(_log_size(url))
        n = os.cpu_count() or 1
        fork = multiprocessing.get_context("fork")
        read = fork.Value("q", 0)
        pool = fork.Pool(n, _verifier, (read,))
        try:
            shares = [pool.apply_async(_verify_share, (url, k, n)) for k in range(n)]
            with tqdm(total=total, desc="log", unit=" events", unit_scale=True) as bar:
                while not all(share.ready() for share in shares):
                    time.sleep(0.1)
                    bar.update(read.value - bar.n)
                bar.update(read.value - bar.n)
            results = [share.get() for share in shares]
        finally:
            pool.close()
            pool.join()
    games = sum(count for count, _ in results)
    failures = [failure for _, failed in results for failure in failed]
    for failure in failures:
        print(failure)
    print(
        f"{games - len(failures)} of {games} finished games verified "
        f"(the log holds {tables} tables, {total} events)"
    )
    return 1 if failures else 0


async def _log_size(url: str) -> tuple[int, int]:
    """Events and tables in the log."""
    from infra.eventstore import EventStore

    store = await EventStore.open(url, size=1)
    try:
        return await store.size()
    finally:
        await store.close()


_read = None  # a verifier process's count of events read, shared with the progress bar


def _verifier(read) -> None:
    """A verifying process: the parent's signal handlers (which stop embedded servers) are
    not its own."""
    import signal

    global _read
    _read = read
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _verify_share(url: str, k: int, n: int) -> tuple[int, list[str]]:
    """Verify the finished games in share `k` of `n`: how many, and each failure's summary."""
    from infra.eventstore import EventStore
    from projections.audit import export, over, verify

    async def check() -> tuple[int, list[str]]:
        store = await EventStore.open(url, size=1)
        games, failures = 0, []
        try:
            async for records in store.every_stream((k, n)):
                if over(records):  # not the last event: talk may follow it
                    games += 1
                    verdict = verify(export(records[0].stream, records))
                    if not verdict.ok:
                        failures.append(verdict.summary)
                with _read.get_lock():
                    _read.value += len(records)
        finally:
            await store.close()
        return games, failures

    return asyncio.run(check())


def _replay(args: argparse.Namespace, settings: Settings) -> int:
    from projections.audit import events_of, verify
    from projections.narrative import narrate

    lines = _lines(args.source, settings)
    verdict = verify(lines)
    if not verdict.ok:  # a story the rules don't agree with would mislead
        print(textwrap.fill(verdict.summary, 88), file=sys.stderr)
        return 1
    events = events_of(lines[1:])
    assert isinstance(events, list)  # a verified log decodes
    print("\n".join(narrate(events)))
    print()
    print(textwrap.fill(verdict.summary, 88))
    return 0


def _tournament(args: argparse.Namespace, settings: Settings) -> int:
    from services.bots import tournament

    return tournament.main(args.rest)


def _migrate(args: argparse.Namespace, settings: Settings) -> int:
    from infra import embedded
    from infra.db import migrate

    with embedded.services(settings) as endpoints:
        migrate(endpoints.database_url)
    print("database schema is up to date")
    return 0


def _keys(args: argparse.Namespace, settings: Settings) -> int:
    listed = _signer(settings, rotate=args.rotate).keys()
    print(f"signing keys in {settings.signing_keys_path()}, the current one first:")
    for key in listed:
        if key.current:
            print(f"  {key.key}  current since {key.since}")
        else:
            print(f"  {key.key}  retired, current from {key.since} until {key.until}")
    if args.rotate:
        print(
            textwrap.fill(
                "Restart every API process to sign with the new key: a running one keeps the "
                "key it started with. API processes on other machines need this file copied "
                "to them first.",
                88,
            )
        )
    return 0


def _environment() -> str:
    lines = [f"  {variable:<24} {text}" for variable, text in described()]
    return "environment (unset or empty means the default):\n" + "\n".join(lines)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("euchre-tables")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def parser() -> argparse.ArgumentParser:
    formatter = argparse.RawDescriptionHelpFormatter
    top = argparse.ArgumentParser(
        prog="euchre",
        description="Euchre Tables: the family's Euchre in a browser, against friends and bots.",
        epilog=_environment(),
        formatter_class=formatter,
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    top.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        help="the least a log line must be to be written (default EUCHRE_LOG_LEVEL, else each "
        "command's own: warning for serve and api, info for worker)",
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, text: str) -> argparse.ArgumentParser:
        return commands.add_parser(
            name,
            help=summary,
            description=textwrap.fill(text, 88),
            epilog=_environment(),
            formatter_class=formatter,
        )

    def listening(command: argparse.ArgumentParser) -> None:
        """Where API processes listen, and how many: `serve`'s and `api`'s alike."""
        command.add_argument(
            "--host", help="address to listen on (default EUCHRE_HOST or 127.0.0.1)"
        )
        command.add_argument(
            "--port",
            type=int,
            help="port to listen on (default EUCHRE_PORT or 8000); 0 takes a free one, named in "
            "the line that says where it serves",
        )
        command.add_argument(
            "--processes",
            type=int,
            default=1,
            help="API processes serving the port, one per core is the most that helps (default 1)",
        )

    serve = command(
        "serve",
        "serve the web table and the API, with bots",
        "Serve the web table and the HTTP API, with a bot worker (also a sweeper candidate) in a "
        "process of its own. PostgreSQL and Valkey are started from the data directory for any "
        "URL left unset, and the schema is brought up to date first.",
    )
    listening(serve)
    serve.add_argument(
        "--bot-threads", type=int, default=4, help="threads playing bot turns (default 4)"
    )
    serve.set_defaults(run=_serve)
    api = command(
        "api",
        "serve the web table and the API only, beside a running service",
        "Serve the web table and the HTTP API against the service's own PostgreSQL and Redis "
        "(EUCHRE_DATABASE_URL and EUCHRE_REDIS_URL, both needed: nothing embedded is started), "
        "with no bot worker: run as many as the load needs, on any machines, behind a load "
        "balancer, and `euchre worker` somewhere for the bots (docs/scaling.md).",
    )
    listening(api)
    api.set_defaults(run=_api_only)
    worker = command(
        "worker",
        "run more bot workers beside a running service",
        "Take bot turns from the queue of a running service; start as many as the load needs. "
        "Needs EUCHRE_DATABASE_URL, and EUCHRE_BROKER_URL or EUCHRE_REDIS_URL (the embedded "
        "servers are the serving process's own).",
    )
    worker.add_argument("--processes", type=int, default=1, help="worker processes (default 1)")
    worker.add_argument("--threads", type=int, default=4, help="threads per process (default 4)")
    worker.set_defaults(run=_worker)
    tournament = commands.add_parser(
        "tournament",
        add_help=False,
        help="duplicate games between two bot levels (euchre tournament --help)",
    )
    tournament.add_argument("rest", nargs=argparse.REMAINDER)
    tournament.set_defaults(run=_tournament)
    rebuild = command(
        "rebuild",
        "rebuild the read models from the log",
        "Drop the lobby, the activity model, the ratings and the hands' reviews and fold the "
        "whole event log into them again.",
    )
    rebuild.set_defaults(run=_rebuild)
    exporting = command(
        "export",
        "write a table's log for an auditor",
        "Write table CODE's log as NDJSON: a header line naming the format and its version, "
        "then every event as GET /api/tables/{code}/log serves it, each with its hash in the "
        "chain. Cards and the seed stay blank until the game is over (docs/audit.md).",
    )
    exporting.add_argument("code", metavar="CODE", help="the table's code")
    exporting.add_argument("-o", "--output", metavar="FILE", help="write here, not to stdout")
    exporting.set_defaults(run=_export)
    replaying = command(
        "replay",
        "tell a finished game hand by hand",
        "Fold a finished game's log through the rules and tell it hand by hand in plain words: "
        "the deal, the bids, the turned card's fate, every trick and who took it, the points "
        "and the score. The log is verified first.",
    )
    replaying.add_argument("source", metavar="FILE|CODE", help="an export (- for stdin) or a code")
    replaying.set_defaults(run=_replay)
    verifying = command(
        "verify",
        "check a finished game's log",
        "Check a finished game's log: the hash chain link by link, the revealed seed against "
        "the hash published with it, every deal against the seed's shuffle, every move against "
        "the rules, and every trick, hand and the game's end against what the rules make of "
        "the moves. Exits 0 with a summary, or 1 naming the first event that disagrees.",
    )
    verifying.add_argument(
        "source", metavar="FILE|CODE", nargs="?", help="an export (- for stdin) or a code"
    )
    verifying.add_argument(
        "--head",
        metavar="HEAD",
        action="append",
        default=[],
        help="a head kept from the game, which the log must hold: a hash, a signed head's "
        "JSON, or a file holding one; again for more. Two signed heads that fork give a proof",
    )
    verifying.add_argument(
        "--proof", metavar="FILE", help="check a proof of two forked heads instead"
    )
    verifying.add_argument(
        "--inclusion",
        metavar="FILE",
        help="also check that the public log includes the game: FILE holds the answer of "
        "GET /api/transparency/games/{code}",
    )
    verifying.add_argument(
        "--all", action="store_true", help="every finished game in the database, instead"
    )
    verifying.set_defaults(run=_verify)
    keys = command(
        "keys",
        "show the keys that sign the logs' heads, or rotate them",
        "Print where the signing key file is (EUCHRE_SIGNING_KEYS, or signing-keys.json in the "
        "data directory; made if missing) and every public key the service has signed with, "
        "the current one first: the list GET /.well-known/euchre-keys serves.",
    )
    keys.add_argument(
        "--rotate",
        action="store_true",
        help="make a new current key first; the old one stays listed, its private half dropped",
    )
    keys.set_defaults(run=_keys)
    upgrade = command(
        "migrate",
        "bring the database schema up to date",
        "Apply every migration the database lacks (serve and worker do this by themselves).",
    )
    upgrade.set_defaults(run=_migrate)
    from services import ops  # tables, players, tokens, backup, restore, status

    ops.add_commands(command)
    return top


def main(argv: list[str] | None = None) -> int:
    import msgspec

    from infra.embedded import DataDirInUse
    from services.ops import Refused

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["tournament"]:  # its own options, --help included
        return _tournament(argparse.Namespace(rest=argv[1:]), Settings())
    args = parser().parse_args(argv)
    try:
        settings = Settings.from_env()
        if args.log_level:
            settings = msgspec.structs.replace(settings, log_level=args.log_level)
        return args.run(args, settings)
    except SettingsError as error:
        problem = str(error)
    except DataDirInUse as error:
        problem = (
            f"the data directory {error.directory.parent} is in use: another {error.server} is "
            "serving it (is `euchre serve` already running there?); stop that one, or set "
            "EUCHRE_DATA_DIR to another directory"
        )
    except (Unusable, Refused) as error:
        problem = str(error)
    except KeyboardInterrupt:  # Ctrl-C while starting: everything started is stopped already
        return 130
    print(f"euchre {args.command}: {problem}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
