"""The one `euchre` command: serve the tables, rebuild read models, run migrations."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from infra.settings import Settings, SettingsError


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from infra import embedded
    from infra.db import migrate
    from services.api.app import create_app
    from services.bots.runtime import BotRuntime

    host = args.host or settings.host
    port = args.port or settings.port
    with embedded.services(settings) as endpoints:
        migrate(endpoints.database_url)
        bots = BotRuntime(
            endpoints.database_url,
            endpoints.redis_url,
            settings.bot_delay_scale,
            threads=args.bot_threads,
        )
        with bots:
            app = create_app(endpoints.database_url, endpoints.redis_url, bots.scheduler)
            print(
                f"Euchre Tables is serving on http://{host}:{port}/ (Ctrl-C stops it)", flush=True
            )
            uvicorn.run(app, host=host, port=port, log_level="warning")
            _finish_quietly()
    return 0


def _finish_quietly() -> None:
    """Once the server has stopped, let the rest of shutdown (bots, then the embedded servers,
    each bounded by its own timeout) finish: a second Ctrl-C would only cut it short."""
    import signal

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)


def _work(settings: Settings, threads: int) -> None:
    """One worker process: bot turns (and maybe the sweeper) until SIGTERM or Ctrl-C."""
    import signal
    import threading

    from infra.db import migrate
    from services.bots.runtime import BotRuntime

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    migrate(settings.database_url)
    with BotRuntime(
        settings.database_url, settings.redis_url, settings.bot_delay_scale, threads=threads
    ):
        stop.wait()


def _worker(args: argparse.Namespace, settings: Settings) -> int:
    import multiprocessing

    if settings.database_url is None or settings.redis_url is None:
        print(
            "euchre worker: set EUCHRE_DATABASE_URL and EUCHRE_REDIS_URL to the servers the "
            "service uses (workers join a running service; `euchre serve` has its own)",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(processName)s %(message)s")
    if args.processes == 1:
        _work(settings, args.threads)
        return 0
    children = [
        multiprocessing.get_context("spawn").Process(
            target=_work, args=(settings, args.threads), name=f"worker-{n}"
        )
        for n in range(args.processes)
    ]
    for child in children:
        child.start()
    print(f"{args.processes} worker processes × {args.threads} threads", flush=True)
    for child in children:
        child.join()
    return 0


def _rebuild(args: argparse.Namespace, settings: Settings) -> int:
    from infra import embedded
    from infra.activity import Activity
    from infra.db import create_engine, migrate
    from infra.eventstore import EventStore
    from infra.lobby import Lobby

    async def rebuild(url: str) -> int:
        engine = create_engine(url)
        store = EventStore(engine)
        try:
            count = await Lobby(engine, store).rebuild()
            await Activity(engine, store).rebuild()
            return count
        finally:
            await engine.dispose()

    with embedded.services(settings) as endpoints:
        migrate(endpoints.database_url)
        count = asyncio.run(rebuild(endpoints.database_url))
    print(f"lobby and activity rebuilt from {count} events")
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


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="euchre", description="Euchre Tables")
    commands = top.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the web table and the API")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8000)")
    serve.add_argument("--bot-threads", type=int, default=4, help="bot worker threads (4)")
    serve.set_defaults(run=_serve)
    worker = commands.add_parser("worker", help="run bot workers against a running service")
    worker.add_argument("--processes", type=int, default=1, help="worker processes (1)")
    worker.add_argument("--threads", type=int, default=4, help="threads per process (4)")
    worker.set_defaults(run=_worker)
    tournament = commands.add_parser(
        "tournament", add_help=False, help="duplicate games between two bot levels: A B --games N"
    )
    tournament.add_argument("rest", nargs=argparse.REMAINDER)
    tournament.set_defaults(run=_tournament)
    rebuild = commands.add_parser(
        "rebuild", help="drop the read models and rebuild them from the log"
    )
    rebuild.set_defaults(run=_rebuild)
    upgrade = commands.add_parser("migrate", help="bring the database schema up to date")
    upgrade.set_defaults(run=_migrate)
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["tournament"]:  # its own options, --help included
        return _tournament(argparse.Namespace(rest=argv[1:]), Settings())
    args = parser().parse_args(argv)
    try:
        settings = Settings.from_env()
    except SettingsError as error:
        print(f"euchre: {error}", file=sys.stderr)
        return 2
    return args.run(args, settings)


if __name__ == "__main__":
    sys.exit(main())
