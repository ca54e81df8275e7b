"""The service's settings, read once from the environment into one typed object."""

import difflib
import ipaddress
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import msgspec
from limits import parse_many

from infra import keyvalue


class SettingsError(ValueError):
    """A variable holds a value the service cannot use; the message names it and what is allowed."""


class RateLimits(msgspec.Struct, frozen=True, kw_only=True):
    """How often one caller may do each costly or spammable thing, as `limits` expressions
    ("10/minute;60/hour": both hold); None turns that one off.

    Sized for people, and for the bots others write against the API: a family behind one
    address signs up a few guests and opens a few tables; a program playing at full speed
    makes a few moves a second (a game is about a hundred of a seat's moves). Sign-ins are
    counted before the password is checked, so they also bound the Argon2 work one name or
    address can cause.
    """

    sign_ins_per_name: str | None = "10/minute;60/hour"
    sign_ins_per_address: str | None = "30/minute;300/hour"
    sign_ups_per_address: str | None = "20/minute;200/hour"
    tables_per_address: str | None = "30/minute;300/hour"
    tables_per_player: str | None = "10/minute;60/hour"
    moves_per_player: str | None = "25/second;600/minute"
    # A burst of a few lines, then a line every few seconds; reactions are counted apart, so a
    # volley of them leaves chat free.
    chat_per_player: str | None = "5/10 seconds;20/minute"
    reactions_per_player: str | None = "8/10 seconds;30/minute"
    # Locks, bans, partners and mutes: a host deals with a troll or two, not hundreds (300 bans
    # in 5.8 s, and lock/unlock at 34 events a second, were seen without one).
    host_actions_per_player: str | None = "10/minute;60/hour"
    # Opening an event stream: a watcher opens one and keeps it for hours, reconnecting after
    # a dropped connection. 200 clients reopening as fast as they could (a resume each) kept
    # a core busy with nothing but opening streams.
    streams_per_anonymous_address: str | None = "10/minute;120/hour"
    streams_per_player: str | None = "30/minute;600/hour"


class StreamLimits(msgspec.Struct, frozen=True, kw_only=True):
    """How many event streams one API process holds open, and how long a stream's write may
    wait on a client that stopped reading; beyond a cap a stream is refused with 429.

    Anonymous streams are capped per table and in all; a signed-in person's per player, and
    never by the tables' caps, so a crowd of anonymous watchers can't keep a seated player off
    their own table. A family has a few tabs open from one address; a table's spectators
    rarely number more than a few dozen.
    """

    anonymous_per_table: int = 200
    anonymous: int = 2000
    per_address: int = 16  # anonymous streams from one client address
    per_player: int = 16  # a signed-in player's streams, any tables
    stall_seconds: float = 30.0  # one write blocked this long drops the stream


LOOPBACK = ("127.0.0.0/8", "::1/128")  # who may read the metrics, unless set


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the service reads from its environment.

    A URL left as None means "start the embedded server" (see `infra.embedded`), so a fresh
    checkout runs with nothing installed. The data directory defaults to `var` in the working
    directory: in a checkout that is git-ignored, easy to find, and removed with `rm -rf var`.
    """

    database_url: str | None = None
    redis_url: str | None = None
    broker_url: str | None = None
    bot_delay_scale: float = 1.0
    data_dir: Path = Path("var")
    host: str = "127.0.0.1"
    port: int = 8000
    rate_limits: RateLimits | None = RateLimits()
    stream_limits: StreamLimits = StreamLimits()
    secure_cookies: str = "auto"
    signed_heads: bool = True
    signing_keys: Path | None = None
    # The HTTP edge (services.api.server says why each holds): seconds, and connections.
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive_timeout: float = 75.0
    connections_per_address: int = 256
    max_connections: int = 10_000
    trusted_proxies: tuple[str, ...] = ()
    # None: each command's own (warning for `serve` and `api`, info for `worker`).
    log_level: str | None = None
    log_format: str = "auto"
    # Metrics (docs/operations.md "Metrics"): who may read them, and the worker's own port.
    metrics: bool = True
    metrics_allow: tuple[str, ...] = LOOPBACK
    worker_metrics_port: int | None = None
    # Tracing (infra/tracing.py): off unless an OTLP/HTTP receiver is named.
    otlp_endpoint: str | None = None
    # A trace in a hundred: enough to see where a move's time goes under load, for about 1 %
    # of the CPU a move costs; every trace costs about a third more (docs/operations.md
    # "What tracing costs").
    trace_sample: float = 0.01
    trace_statements: bool = False
    # RabbitMQ's queue type for the bots' queues (docs/operations.md "RabbitMQ queues").
    rabbitmq_queue_type: str = "classic"

    def broker(self, redis_url: str) -> str:
        """Where bot turns queue: the configured broker, else the Redis in use."""
        return self.broker_url or redis_url

    def signing_keys_path(self) -> Path:
        """The signing key file (infra.signing): the one named, else one in the data directory,
        so a checkout's service keeps its key beside its data."""
        return self.signing_keys or self.data_dir / "signing-keys.json"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "Settings":
        """Read the `EUCHRE_*` variables; one unset or empty takes the default.

        Empty counts as unset so a `.env` template with `EUCHRE_DATABASE_URL=` still means the
        embedded default. The data directory and the key file are made absolute here, so a
        later change of working directory cannot move the embedded servers' data or the key.
        """
        _refuse_unknown(environ)
        values = {}
        for variable, (field, parse, _) in _VARIABLES.items():
            text = environ.get(variable, "").strip()
            if text:
                values[field] = _parse(variable, text, parse)
        values["rate_limits"] = _rate_limits(environ)
        values["stream_limits"] = _stream_limits(environ)
        settings = cls(**values)
        keys = settings.signing_keys
        return msgspec.structs.replace(
            settings,
            data_dir=settings.data_dir.absolute(),
            signing_keys=None if keys is None else keys.absolute(),
        )


# Names the service never reads, kept for the test suite's and the benches' own knobs.
NOT_SETTINGS = ("EUCHRE_TEST_", "EUCHRE_BENCH_")


def known_variables() -> list[str]:
    """Every `EUCHRE_*` name the service reads."""
    return [
        *_VARIABLES,
        "EUCHRE_RATE_LIMITS",
        *(f"EUCHRE_LIMIT_{field.upper()}" for field in RateLimits.__struct_fields__),
        *(f"EUCHRE_STREAMS_{field.upper()}" for field in StreamLimits.__struct_fields__),
    ]


def _refuse_unknown(environ: Mapping[str, str]) -> None:
    """A misspelt setting is refused, not ignored: `EUCHRE_DATABSE_URL` silently meant the
    embedded database, and an operator found out only from where the data went."""
    known = known_variables()
    unknown = sorted(
        name
        for name in environ
        if name.startswith("EUCHRE_") and name not in known and not name.startswith(NOT_SETTINGS)
    )
    if not unknown:
        return
    said = []
    for name in unknown:
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        said.append(f"{name} (did you mean {close[0]}?)" if close else name)
    raise SettingsError(
        f"{', '.join(said)}: not {'a setting' if len(said) == 1 else 'settings'} the service "
        f"reads; `euchre --help` lists them (names starting {' or '.join(NOT_SETTINGS)} are "
        "left to the tests and benches)"
    )


def _parse(variable: str, text: str, parse: Callable[[str], object]) -> object:
    """Turn a parser's complaint into an error that names the variable and its value.

    A URL's value is left out of the message: it may carry a password.
    """
    try:
        return parse(text)
    except ValueError as error:
        shown = variable if variable.endswith("_URL") else f"{variable}={text!r}"
        raise SettingsError(f"{shown} is not allowed: {error}") from None


def _database_url(text: str) -> str:
    if not text.startswith(("postgresql://", "postgres://")):
        raise ValueError(
            "expected a libpq URL such as postgresql://user:password@host:5432/dbname or "
            "postgresql://user@/dbname?host=/run/postgresql; leave it unset for the embedded server"
        )
    return text


REDIS_FORMS = (
    "redis://host:6379/0, rediss://host:6379/0, unix:///path/to/socket or "
    "redis+sentinel://host:26379,host:26379/service"
)


def _names_redis(text: str) -> bool:
    """Whether `text` is a Redis URL; ValueError for a Sentinel URL missing a part."""
    if text.startswith(keyvalue.SENTINEL):
        keyvalue.sentinels(text)
        return True
    return text.startswith(("redis://", "rediss://", "unix://"))


def _redis_url(text: str) -> str:
    if not _names_redis(text):
        raise ValueError(f"expected {REDIS_FORMS}; leave it unset for the embedded server")
    return text


def _broker_url(text: str) -> str:
    if not text.startswith(("amqp://", "amqps://")) and not _names_redis(text):
        raise ValueError(
            f"expected amqp://user:password@host:5672/vhost for RabbitMQ, or a Redis URL "
            f"({REDIS_FORMS}); leave it unset to use EUCHRE_REDIS_URL's server"
        )
    return text


def _delay_scale(text: str) -> float:
    try:
        scale = float(text)
    except ValueError:
        scale = math.nan
    if not math.isfinite(scale) or scale < 0:
        raise ValueError("expected a number >= 0 (1 is the normal pace, 0 makes bots instant)")
    return scale


def _directory(text: str) -> Path:
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise ValueError("expected a directory (created if missing), but it is a file")
    return path


def _file(text: str) -> Path:
    path = Path(text).expanduser()
    if path.is_dir():
        raise ValueError("expected a file (created if missing), but it is a directory")
    return path


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or not 0 < seconds <= 3600:
        raise ValueError("expected a number of seconds, more than 0 and at most 3600")
    return seconds


def _count(text: str) -> int:
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= 1_000_000:
        raise ValueError("expected a whole number from 1 to 1000000")
    return int(text)


def _networks(text: str) -> tuple[str, ...]:
    """Addresses or CIDR blocks, comma-separated; each checked here, so a typo is an error at
    start rather than a proxy silently not trusted."""
    found = []
    for part in text.split(","):
        try:
            found.append(str(ipaddress.ip_network(part.strip(), strict=False)))
        except ValueError:
            raise ValueError(
                f"{part.strip()!r} is not an address or a CIDR block; expected e.g. "
                "10.0.0.5,10.1.0.0/16,::1"
            ) from None
    return tuple(found)


def _port(text: str) -> int:
    """0 asks the system for a free port as the server binds it; the server names the one it
    got as it starts (what the tests do, so no two servers race for a port)."""
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise ValueError("expected a TCP port number from 0 (a free one) to 65535")
    return int(text)


def _switch(text: str) -> bool:
    if text.lower() not in ("on", "off"):
        raise ValueError("expected on or off")
    return text.lower() == "on"


def _log_level(text: str) -> str:
    if text.lower() not in ("debug", "info", "warning", "error"):
        raise ValueError("expected debug, info, warning or error")
    return text.lower()


def _log_format(text: str) -> str:
    if text.lower() not in ("auto", "json", "text"):
        raise ValueError("expected auto (JSON unless on a terminal), json or text")
    return text.lower()


def _otlp_endpoint(text: str) -> str:
    if not text.startswith(("http://", "https://")):
        raise ValueError(
            "expected the base URL of an OTLP/HTTP receiver, such as http://collector:4318 "
            "(spans go to its /v1/traces); leave it unset for no tracing"
        )
    return text


def _fraction(text: str) -> float:
    try:
        fraction = float(text)
    except ValueError:
        fraction = math.nan
    if not 0 <= fraction <= 1:
        raise ValueError("expected a number from 0 to 1 (1: every trace, 0.01: one in a hundred)")
    return fraction


def _queue_type(text: str) -> str:
    if text.lower() not in ("classic", "quorum"):
        raise ValueError("expected classic or quorum")
    return text.lower()


def _secure(text: str) -> str:
    if text.lower() not in ("auto", "on", "off"):
        raise ValueError(
            "expected auto (Secure when the request came over HTTPS, as the proxy says), on or off"
        )
    return text.lower()


def _limit(text: str) -> str | None:
    if text.lower() == "off":
        return None
    try:
        parse_many(text)
    except ValueError:
        raise ValueError(
            "expected a rate such as 10/minute, 5 per 10 seconds or 10/minute;60/hour, or off"
        ) from None
    return text


def _rate_limits(environ: Mapping[str, str]) -> RateLimits | None:
    """EUCHRE_RATE_LIMITS=off turns every limit off; EUCHRE_LIMIT_<NAME> overrides one."""
    text = environ.get("EUCHRE_RATE_LIMITS", "").strip()
    if text and not _parse("EUCHRE_RATE_LIMITS", text, _switch):
        return None
    values = {}
    for field in RateLimits.__struct_fields__:
        variable = f"EUCHRE_LIMIT_{field.upper()}"
        text = environ.get(variable, "").strip()
        if text:
            values[field] = _parse(variable, text, _limit)
    return RateLimits(**values)


def _stream_limits(environ: Mapping[str, str]) -> StreamLimits:
    """EUCHRE_STREAMS_<NAME> overrides one of StreamLimits."""
    values: dict[str, object] = {}
    for field in StreamLimits.__struct_fields__:
        variable = f"EUCHRE_STREAMS_{field.upper()}"
        text = environ.get(variable, "").strip()
        if text:
            values[field] = _parse(variable, text, _seconds if field == "stall_seconds" else _count)
    return StreamLimits(**values)  # type: ignore[arg-type]


_VARIABLES: dict[str, tuple[str, Callable[[str], object], str]] = {
    "EUCHRE_DATABASE_URL": (
        "database_url",
        _database_url,
        "PostgreSQL to use (libpq URL); unset: an embedded server in the data directory",
    ),
    "EUCHRE_REDIS_URL": (
        "redis_url",
        _redis_url,
        "Redis or Valkey for the bots' queue; unset: an embedded Valkey in the data directory",
    ),
    "EUCHRE_BROKER_URL": (
        "broker_url",
        _broker_url,
        "the bots' queue: amqp:// for RabbitMQ or a Redis URL (default: EUCHRE_REDIS_URL's)",
    ),
    "EUCHRE_BOT_DELAY_SCALE": (
        "bot_delay_scale",
        _delay_scale,
        "multiplies the bots' think times (default 1; 0 makes bots instant)",
    ),
    "EUCHRE_DATA_DIR": (
        "data_dir",
        _directory,
        "where the embedded servers keep their data (default ./var)",
    ),
    "EUCHRE_SIGNING_KEYS": (
        "signing_keys",
        _file,
        "the file of the keys that sign the logs' heads (default: signing-keys.json in the "
        "data directory; made at first start)",
    ),
    "EUCHRE_HOST": ("host", str, "address `serve` listens on (default 127.0.0.1)"),
    "EUCHRE_PORT": (
        "port",
        _port,
        "port `serve` listens on (default 8000; 0 takes a free one, named in the start line)",
    ),
    "EUCHRE_HEADER_TIMEOUT": (
        "header_timeout",
        _seconds,
        "seconds a connection has to send a request's headers, from its start or from its "
        "first byte after a keep-alive wait (default 10)",
    ),
    "EUCHRE_BODY_TIMEOUT": (
        "body_timeout",
        _seconds,
        "seconds a request has to send the body its headers declared (default 30)",
    ),
    "EUCHRE_KEEP_ALIVE_TIMEOUT": (
        "keep_alive_timeout",
        _seconds,
        "seconds an idle keep-alive connection is kept (default 75)",
    ),
    "EUCHRE_CONNECTIONS_PER_ADDRESS": (
        "connections_per_address",
        _count,
        "open connections one client address may hold in each API process (default 256; a "
        "trusted proxy's are not counted)",
    ),
    "EUCHRE_MAX_CONNECTIONS": (
        "max_connections",
        _count,
        "open connections in all for each API process (default 10000, less if the process "
        "may not open that many files)",
    ),
    "EUCHRE_TRUSTED_PROXIES": (
        "trusted_proxies",
        _networks,
        "addresses or CIDR blocks of the proxies whose X-Forwarded-For and -Proto are believed, "
        "comma-separated (default none)",
    ),
    "EUCHRE_SIGNED_HEADS": (
        "signed_heads",
        _switch,
        "on (default): every view's head is signed (docs/audit.md); off only to measure its cost",
    ),
    "EUCHRE_LOG_LEVEL": (
        "log_level",
        _log_level,
        "debug, info (an access line per request), warning or error (default: warning for "
        "serve and api, info for worker)",
    ),
    "EUCHRE_LOG_FORMAT": (
        "log_format",
        _log_format,
        "auto (default: one JSON object a line unless on a terminal), json or text",
    ),
    "EUCHRE_METRICS": (
        "metrics",
        _switch,
        "on (default): every process keeps the Prometheus series and /metrics serves them; off: "
        "no metrics files and no /metrics",
    ),
    "EUCHRE_METRICS_ALLOW": (
        "metrics_allow",
        _networks,
        "addresses or CIDR blocks whose clients may read /metrics, comma-separated (default "
        "loopback: 127.0.0.0/8,::1)",
    ),
    "EUCHRE_WORKER_METRICS_PORT": (
        "worker_metrics_port",
        _port,
        "port on EUCHRE_HOST where `euchre worker` serves /metrics (default: none; 0 takes a "
        "free one, named on standard output; under `serve` the worker's metrics are in the API's "
        "/metrics)",
    ),
    "EUCHRE_OTLP_ENDPOINT": (
        "otlp_endpoint",
        _otlp_endpoint,
        "trace requests, bot turns and moves, sending spans over OTLP/HTTP to this receiver, "
        "e.g. http://collector:4318 (default: no tracing)",
    ),
    "EUCHRE_TRACE_SAMPLE": (
        "trace_sample",
        _fraction,
        "the fraction of requests and messages that start a trace, when tracing (default 0.01; "
        "1 traces every one, at about a third more CPU per move)",
    ),
    "EUCHRE_TRACE_STATEMENTS": (
        "trace_statements",
        _switch,
        "on: each SQL statement and Redis command is a span of its own in a trace, at a cost "
        "to every statement, traced or not (a quarter more CPU per move); off (default)",
    ),
    "EUCHRE_RABBITMQ_QUEUE_TYPE": (
        "rabbitmq_queue_type",
        _queue_type,
        "classic (default) or quorum: the type of the queues the bots' RabbitMQ broker "
        "declares; the same in every process",
    ),
    "EUCHRE_SECURE_COOKIES": (
        "secure_cookies",
        _secure,
        "auto (default): the sign-in cookie is Secure when the request came over HTTPS; on; off",
    ),
}


def described() -> list[tuple[str, str]]:
    """Each variable the service reads, with what it does: for `--help` and the docs."""
    return [(variable, text) for variable, (_, _, text) in _VARIABLES.items()] + [
        ("EUCHRE_RATE_LIMITS", "on (default) or off: every rate limit at once (off for benches)"),
        (
            "EUCHRE_LIMIT_<NAME>",
            "one limit's rate, e.g. EUCHRE_LIMIT_SIGN_UPS_PER_ADDRESS=20/minute, or off "
            "(names: " + ", ".join(f.upper() for f in RateLimits.__struct_fields__) + ")",
        ),
        (
            "EUCHRE_STREAMS_<NAME>",
            "one cap on the event streams a process holds, e.g. EUCHRE_STREAMS_PER_ADDRESS=16 "
            "(names: " + ", ".join(f.upper() for f in StreamLimits.__struct_fields__) + ")",
        ),
    ]
