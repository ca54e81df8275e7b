"""The operator's commands of `euchre` (docs/operations.md "Commands"): list and close tables,
ban and unban players, list and revoke their tokens, back up and restore the database, and
see the queues and the workers.

Each prints a table for a person, or with `--json` one JSON document whose field names stay
put for scripts. A table is closed through the rules, as an event in its log (domain/
closing.py), so its view, its watchers' streams and `verify --all` all agree with it.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from infra.settings import Settings

if TYPE_CHECKING:  # imported where used: `euchre` starts without the broker's libraries
    from infra.broker import QueueDepth
    from infra.players import TokenInfo

Command = Callable[[str, str, str], argparse.ArgumentParser]
STATUSES = ("waiting", "playing", "over")
WHO = "a registered name, a player's id, or the name of the one guest going by it"


class Refused(Exception):
    """What the operator asked can't be done, in one sentence: `euchre` exits 2."""


# -- output -----------------------------------------------------------------------------------


def _shown(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(map(_shown, value)) or "-"
    return str(value)


def _table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """Rows as aligned columns under their names (a line saying so when there are none)."""
    if not rows:
        return "(none)"
    cells = [[_shown(row[c]) for c in columns] for row in rows]
    widths = [max(len(c), *(len(line[n]) for line in cells)) for n, c in enumerate(columns)]
    lines = [columns, *cells]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def _say(args: argparse.Namespace, answer: msgspec.Struct, text: Callable[[], str]) -> None:
    if args.json:
        sys.stdout.write(msgspec.json.encode(answer).decode() + "\n")
    else:
        print(text())


# -- tables -----------------------------------------------------------------------------------


class TableRow(msgspec.Struct, frozen=True):
    code: str
    status: str  # waiting, playing or over
    closed: str | None  # the house's reason, if it closed the table
    events: int
    opened_at: datetime
    last_event_at: datetime


class TableList(msgspec.Struct, frozen=True):
    tables: list[TableRow]


# One pass over the log, grouped by table: an operator's look, not a request's. A table is over
# once won or closed, playing once started.
TABLES_SQL = """
SELECT code, status, closed, events, opened_at, last_event_at FROM (
    SELECT stream AS code,
           CASE WHEN bool_or(type IN ('GameWon', 'TableClosed')) THEN 'over'
                WHEN bool_or(type = 'GameStarted') THEN 'playing'
                ELSE 'waiting' END AS status,
           max(data->>'reason') FILTER (WHERE type = 'TableClosed') AS closed,
           count(*) AS events, min(at) AS opened_at, max(at) AS last_event_at
    FROM events GROUP BY stream
) AS tables
WHERE %(status)s::text IS NULL OR status = %(status)s
ORDER BY last_event_at DESC, code
LIMIT %(limit)s
"""


def _tables_list(args: argparse.Namespace, settings: Settings) -> int:
    import psycopg
    from psycopg.rows import dict_row

    from infra import embedded
    from infra.db import conninfo

    if args.limit < 1:
        raise Refused(f"--limit must be 1 or more, not {args.limit}")
    with embedded.database(settings) as url, psycopg.connect(conninfo(url)) as conn:
        found = conn.cursor(row_factory=dict_row).execute(
            TABLES_SQL, {"status": args.status, "limit": args.limit}
        )
        rows = [TableRow(**row) for row in found]
    columns = ["code", "status", "closed", "events", "opened_at", "last_event_at"]
    _say(
        args,
        TableList(rows),
        lambda: _table([msgspec.structs.asdict(r) for r in rows], columns),
    )
    return 0


class Closed(msgspec.Struct, frozen=True):
    code: str
    status: str
    closed: str
    seq: int  # the TableClosed event's


def _tables_close(args: argparse.Namespace, settings: Settings) -> int:
    from domain import commands as cmd
    from domain.errors import Refused as RulesRefused
    from infra import embedded
    from infra.eventstore import EventStore
    from services.use_cases import NoSuchTable, Tables

    async def close(url: str) -> Closed:
        store = await EventStore.open(url, size=1)
        try:
            state = await Tables(store).execute(args.code, cmd.CloseTable(reason=args.reason))
        except NoSuchTable:
            raise Refused(f"there is no table {args.code}") from None
        except RulesRefused as error:
            raise Refused(f"table {args.code} can't be closed: {error.reason}") from None
        finally:
            await store.close()
        assert state.closed is not None
        return Closed(state.code, state.status, state.closed, state.seq)

    with embedded.database(settings) as url:
        done = asyncio.run(close(url))
    _say(args, done, lambda: f"table {done.code} is closed (event {done.seq}): {done.closed}")
    return 0


# -- players and tokens -----------------------------------------------------------------------


class PlayerRow(msgspec.Struct, frozen=True):
    id: str
    name: str
    registered: bool
    banned: str | None  # the reason, while banned


class TokenList(msgspec.Struct, frozen=True):
    player: PlayerRow
    tokens: list[TokenInfo]


class Revoked(msgspec.Struct, frozen=True):
    player: PlayerRow
    revoked: list[str]  # the ids of the tokens revoked


@contextmanager
def _players(settings: Settings) -> Iterator[Callable[[Any], Any]]:
    """Run coroutines on the service's players: `run(lambda players: coroutine)`."""
    from infra import embedded
    from infra.db import create_engine
    from infra.players import Players

    with embedded.database(settings) as url:

        def run(work: Callable[[Players], Any]) -> Any:
            async def go() -> Any:
                engine = create_engine(url)
                try:
                    return await work(Players(engine))
                finally:
                    await engine.dispose()

            return asyncio.run(go())

        yield run


async def _one(players: Any, name: str) -> PlayerRow:
    """The player `name` means (a registered name, an id, or the one guest by that name)."""
    found = await players.named(name)
    if not found:
        raise Refused(f"there is no player {name!r} (give a registered name, a guest's or an id)")
    if len(found) > 1:
        ids = ", ".join(p.id for p in found)
        raise Refused(f"{len(found)} guests go by {name!r}: name one by its id ({ids})")
    player = found[0]
    reason = await players.banned(player.id)
    return PlayerRow(player.id, player.name, player.registered, reason)


def _ban(args: argparse.Namespace, settings: Settings) -> int:
    reason = args.reason.strip() if args.reason is not None else None
    if reason is not None and (not reason or not reason.isprintable()):
        raise Refused("--reason must be some text on one line: the player is told it")

    async def ban(players: Any) -> PlayerRow:
        player = await _one(players, args.name)
        await players.ban(player.id, reason)
        return msgspec.structs.replace(player, banned=reason)

    with _players(settings) as run:
        player = run(ban)
    said = f"banned from the site: {reason}" if reason else "no longer banned"
    _say(args, player, lambda: f"{player.name} ({player.id}) is {said}")
    return 0


def _tokens_list(args: argparse.Namespace, settings: Settings) -> int:
    async def listed(players: Any) -> TokenList:
        player = await _one(players, args.name)
        return TokenList(player, await players.tokens_of(player.id))

    with _players(settings) as run:
        answer = run(listed)
    columns = ["id", "created_at", "last_used_at"]
    _say(
        args,
        answer,
        lambda: (
            f"tokens of {answer.player.name} ({answer.player.id}):\n"
            + _table([msgspec.structs.asdict(t) for t in answer.tokens], columns)
        ),
    )
    return 0


def _tokens_revoke(args: argparse.Namespace, settings: Settings) -> int:
    token_id = None if args.all else args.token_id
    if token_id is not None and not re.fullmatch(r"[0-9a-f]{6,64}", token_id):
        raise Refused(f"{token_id!r} isn't a token id: `euchre tokens list` shows them")

    async def revoke(players: Any) -> Revoked:
        player = await _one(players, args.name)
        return Revoked(player, await players.revoke_tokens(player.id, token_id))

    with _players(settings) as run:
        answer = run(revoke)
    if token_id is not None and not answer.revoked:
        raise Refused(f"{answer.player.name} has no token {token_id}")
    _say(
        args,
        answer,
        lambda: (
            f"revoked {len(answer.revoked)} token(s) of {answer.player.name}: "
            + _shown(answer.revoked)
        ),
    )
    return 0


# -- backup and restore -----------------------------------------------------------------------


class Backup(msgspec.Struct, frozen=True):
    file: str
    bytes: int
    server_version: str
    tool: str  # the pg_dump or pg_restore run
    tables: int
    events: int


def _server(url: str) -> tuple[str, int, int]:
    """The server's version, major version and how many relations the database holds
    outside the system's schemas (0: empty)."""
    import psycopg

    from infra.db import conninfo

    try:
        with psycopg.connect(conninfo(url), connect_timeout=10) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
            number = conn.execute("SHOW server_version_num").fetchone()[0]
            relations = conn.execute(
                "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') "
                "AND n.nspname NOT LIKE 'pg\\_toast%%' AND c.relkind IN ('r', 'p', 'v', 'm', 'S')"
            ).fetchone()[0]
    except psycopg.OperationalError as error:
        raise Refused(f"can't reach the database: {str(error).strip()}") from None
    return version, int(number) // 10000, relations


def _size(url: str) -> tuple[int, int]:
    """Tables and events in the database's log."""
    import psycopg

    from infra.db import conninfo

    with psycopg.connect(conninfo(url)) as conn:
        row = conn.execute("SELECT count(DISTINCT stream), count(*) FROM events").fetchone()
    return row[0], row[1]


def _tool(name: str, major: int) -> str:
    """The `name` (pg_dump, pg_restore) of PostgreSQL `major`: the embedded package's, the
    system's (/usr/lib/postgresql/*/bin) or the one on PATH, whichever is that version. A dump
    by another version's tool is refused rather than risked: an older one can't read a newer
    server, and a newer one writes archives an older pg_restore can't read."""
    from infra.embedded.postgres import POSTGRES_BIN

    places = [POSTGRES_BIN / name, *sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))]
    on_path = shutil.which(name)
    if on_path is not None:
        places.append(Path(on_path))
    seen = []
    for place in places:
        if not place.is_file():
            continue
        said = subprocess.run(
            [str(place), "--version"], capture_output=True, text=True, check=False
        ).stdout
        found = re.search(r"(\d+)(?:\.\d+)?", said)
        if found is None:
            continue
        if int(found.group(1)) == major:
            return str(place)
        seen.append(f"{place} ({found.group(1)})")
    others = f"; found only {', '.join(seen)}" if seen else ""
    raise Refused(
        f"no {name} of PostgreSQL {major}, the server's version{others}: install that "
        f"version's client tools (postgresql-client-{major})"
    )


def _backup(args: argparse.Namespace, settings: Settings) -> int:
    from infra import embedded
    from infra.db import conninfo

    target = Path(args.file)
    if not target.parent.is_dir():
        raise Refused(f"there is no directory {target.parent} to write {target.name} in")
    with embedded.database(settings) as url:
        version, major, _ = _server(url)
        tool = _tool("pg_dump", major)
        done = subprocess.run(
            [
                tool,
                "--format=custom",
                "--no-owner",
                "--no-privileges",
                "-f",
                str(target),
                "-d",
                conninfo(url),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise Refused(f"pg_dump failed: {done.stderr.strip()}")
        tables, events = _size(url)
    answer = Backup(str(target), target.stat().st_size, version, tool, tables, events)
    _say(
        args,
        answer,
        lambda: (
            f"backed up {tables} tables ({events} events) to {target}, "
            f"{answer.bytes} bytes, with {tool}"
        ),
    )
    return 0


def _restore(args: argparse.Namespace, settings: Settings) -> int:
    from infra.db import conninfo

    source = Path(args.file)
    if not source.is_file():
        raise Refused(f"there is no backup {source}")
    url = args.database_url
    version, major, relations = _server(url)
    if relations and not args.force:
        raise Refused(
            f"the database at {_safe(url)} isn't empty ({relations} tables and other relations): "
            "restore into a fresh one, or give --force to replace what is there"
        )
    tool = _tool("pg_restore", major)
    command = [tool, "--no-owner", "--no-privileges", "--exit-on-error", "-d", conninfo(url)]
    if relations:
        command += ["--clean", "--if-exists"]
    done = subprocess.run([*command, str(source)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise Refused(f"pg_restore failed: {done.stderr.strip()}")
    tables, events = _size(url)
    answer = Backup(str(source), source.stat().st_size, version, tool, tables, events)
    _say(
        args,
        answer,
        lambda: (
            f"restored {tables} tables ({events} events) from {source} into {_safe(url)}; "
            "check them with `euchre verify --all` against it"
        ),
    )
    return 0


def _safe(url: str) -> str:
    """A URL fit to print: without its password."""
    from infra.db import parse

    return parse(url).render_as_string(hide_password=True)


# -- queues and workers -----------------------------------------------------------------------


class Status(msgspec.Struct, frozen=True):
    broker: str  # redis or rabbitmq
    queues: list[QueueDepth]
    workers_alive: int
    workers: list[str]  # host:pid of each worker that beat within the heartbeat's TTL


def _status(args: argparse.Namespace, settings: Settings) -> int:
    import pika.exceptions
    import redis.exceptions

    from infra import embedded, heartbeat, keyvalue
    from infra.broker import AMQP, queue_depths

    if settings.redis_url is None:
        raise Refused(
            "set EUCHRE_REDIS_URL (and EUCHRE_BROKER_URL, if the queues are elsewhere) to the "
            "servers the service uses"
        )
    broker = settings.broker(settings.redis_url)

    async def workers(database_url: str) -> list[str]:
        client = keyvalue.connect(settings.redis_url or "")
        try:
            return await heartbeat.living(client, heartbeat.namespace(database_url))
        finally:
            await client.aclose()

    try:
        kind = "rabbitmq" if broker.startswith(AMQP) else "redis"
        queues = queue_depths(broker, args.namespace)
        with embedded.database(settings) as url:
            alive = asyncio.run(workers(url))
    except (OSError, redis.exceptions.RedisError, pika.exceptions.AMQPError) as error:
        raise Refused(f"can't reach the broker or Redis: {type(error).__name__} {error}") from None
    answer = Status(kind, queues, len(alive), alive)
    columns = ["queue", "ready", "delayed", "unacked", "dead", "consumers"]
    _say(
        args,
        answer,
        lambda: (
            f"queues on {kind}:\n"
            + _table([msgspec.structs.asdict(q) for q in queues], columns)
            + f"\n\nworkers alive: {len(alive)}"
            + "".join(f"\n  {worker}" for worker in alive)
        ),
    )
    return 0


# -- the parser -------------------------------------------------------------------------------


def add_commands(command: Command) -> None:
    """The operator's commands, on `euchre`'s parser (`command` makes one)."""

    def json_option(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--json", action="store_true", help="one JSON document, for scripts, not a table"
        )

    def actions(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
        return parser.add_subparsers(
            dest="action", required=True, metavar="ACTION", help="what to do (ACTION --help)"
        )

    tables = actions(
        command(
            "tables",
            "list tables, or close one",
            "List the tables in the log, newest activity first, or close one: closing appends "
            "TableClosed to its log, so its watchers see it closed at once, nothing more is "
            "allowed at it, and the game, unfinished, is never rated.",
        )
    )
    listing = tables.add_parser("list", help="the tables, newest activity first")
    listing.add_argument("--status", choices=STATUSES, help="only tables in this state")
    listing.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    json_option(listing)
    listing.set_defaults(run=_tables_list)
    closing = tables.add_parser("close", help="close a table for a reason of the house's")
    closing.add_argument("code", metavar="CODE", help="the table's code")
    closing.add_argument("--reason", required=True, help="why, shown to everyone at the table")
    json_option(closing)
    closing.set_defaults(run=_tables_close)

    players = actions(
        command(
            "players",
            "ban or unban a player site-wide",
            "Ban a player from the whole site, or lift the ban. A banned player's tokens stop "
            "working in every API process at once (401/403 naming the reason), and they can't "
            "sign in. NAME is a registered name, a player's id, or a guest's name if only one "
            "guest goes by it.",
        )
    )
    banning = players.add_parser("ban", help="ban a player site-wide")
    banning.add_argument("name", metavar="NAME", help=WHO)
    banning.add_argument("--reason", required=True, help="why, told to the player")
    json_option(banning)
    banning.set_defaults(run=_ban)
    unbanning = players.add_parser("unban", help="lift a player's ban")
    unbanning.add_argument("name", metavar="NAME", help=WHO)
    json_option(unbanning)
    unbanning.set_defaults(run=_ban, reason=None)

    tokens = actions(
        command(
            "tokens",
            "list or revoke a player's tokens",
            "List a player's sign-in tokens (an id, when made, when last used: never the "
            "token itself, which isn't kept), or revoke one or all of them: a revoked token "
            "stops working in every API process at once.",
        )
    )
    token_list = tokens.add_parser("list", help="a player's tokens")
    token_list.add_argument("name", metavar="NAME", help=WHO)
    json_option(token_list)
    token_list.set_defaults(run=_tokens_list)
    revoking = tokens.add_parser("revoke", help="revoke one of a player's tokens, or all")
    revoking.add_argument("name", metavar="NAME", help=WHO)
    which = revoking.add_mutually_exclusive_group(required=True)
    which.add_argument("token_id", metavar="TOKEN_ID", nargs="?", help="an id `list` showed")
    which.add_argument("--all", action="store_true", help="every token of the player")
    json_option(revoking)
    revoking.set_defaults(run=_tokens_revoke)

    backup = command(
        "backup",
        "back the database up to a file",
        "Write the whole database to FILE with pg_dump's custom format, by the pg_dump of the "
        "server's own major version (the embedded package's or the system's; refused if "
        "neither is). `euchre restore` reads it back.",
    )
    backup.add_argument("file", metavar="FILE", help="the backup to write")
    json_option(backup)
    backup.set_defaults(run=_backup)
    restore = command(
        "restore",
        "restore a backup into a fresh database",
        "Restore a backup `euchre backup` wrote into the database at --database-url, which "
        "must be empty (a fresh CREATE DATABASE) unless --force replaces what is there. Then "
        "check it: EUCHRE_DATABASE_URL=URL euchre verify --all.",
    )
    restore.add_argument("file", metavar="FILE", help="a backup `euchre backup` wrote")
    restore.add_argument("--database-url", required=True, metavar="URL", help="where to restore")
    restore.add_argument(
        "--force", action="store_true", help="drop and replace what the database holds"
    )
    json_option(restore)
    restore.set_defaults(run=_restore)

    status = command(
        "status",
        "show the queues' depth and the workers alive",
        "How many messages wait in each queue (bot turns, ratings, reviews) on the broker, and "
        "which bot workers beat within the last 15 s. Needs EUCHRE_REDIS_URL (and "
        "EUCHRE_BROKER_URL where the queues are on RabbitMQ).",
    )
    status.add_argument(
        "--namespace", default="euchre", help="the queues' Redis namespace (default euchre)"
    )
    json_option(status)
    status.set_defaults(run=_status)
