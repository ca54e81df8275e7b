"""The one `euchre` command: serve the tables, rebuild read models, run migrations."""

from __future__ import annotations

import argparse
import asyncio
import sys

from infra.settings import Settings, SettingsError


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from infra import embedded
    from infra.db import migrate
    from services.api.app import create_app

    host = args.host or settings.host
    port = args.port or settings.port
    with embedded.services(settings) as endpoints:
        migrate(endpoints.database_url)
        app = create_app(endpoints.database_url, endpoints.redis_url)
        print(f"Euchre Tables is serving on http://{host}:{port}/ (Ctrl-C stops it)", flush=True)
        uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0


def _rebuild(args: argparse.Namespace, settings: Settings) -> int:
    from infra import embedded
    from infra.db import create_engine, migrate
    from infra.eventstore import EventStore
    from infra.lobby import Lobby

    async def rebuild(url: str) -> int:
        engine = create_engine(url)
        try:
            return await Lobby(engine, EventStore(engine)).rebuild()
        finally:
            await engine.dispose()

    with embedded.services(settings) as endpoints:
        migrate(endpoints.database_url)
        count = asyncio.run(rebuild(endpoints.database_url))
    print(f"lobby rebuilt from {count} events")
    return 0


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
    serve.set_defaults(run=_serve)
    rebuild = commands.add_parser("rebuild", help="drop the lobby and rebuild it from the log")
    rebuild.set_defaults(run=_rebuild)
    upgrade = commands.add_parser("migrate", help="bring the database schema up to date")
    upgrade.set_defaults(run=_migrate)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        settings = Settings.from_env()
    except SettingsError as error:
        print(f"euchre: {error}", file=sys.stderr)
        return 2
    return args.run(args, settings)


if __name__ == "__main__":
    sys.exit(main())
