"""Every error as RFC 9457 problem+json: status, title, a detail a person can act on, and
where it helps the `field` at fault and what is `allowed` there.

One body shape (`ProblemBody`) for every status, so the OpenAPI document can name it once and
clients parse errors one way. A failure nobody foresaw is logged under a request id that the
answer names, so a report from a user leads straight to the traceback. The title and detail
are said in the asker's language where the server has it (services/api/problem_words.py).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import msgspec
import psycopg
import psycopg_pool
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from redis.exceptions import ConnectionError as BrokerDown
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from domain.errors import Conflict, IllegalMove, NotAllowed, NotYourTurn, Refused
from infra import logs
from services.api import problem_words
from services.use_cases import NoSuchTable

MEDIA_TYPE = "application/problem+json"
TITLES = {
    400: "Bad request",
    401: "Sign in first",
    403: "Not yours to do",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Request body too large",
    415: "Unsupported media type",
    422: "Not allowed by the rules",
    429: "Too many requests",
    500: "Server error",
    503: "Service unavailable",
}
log = logging.getLogger("euchre.api")


class ProblemBody(msgspec.Struct, omit_defaults=True):
    """An error, as RFC 9457 problem details."""

    type: str
    status: int
    title: str
    detail: str
    field: str | None = None
    allowed: list[Any] | None = None
    legal: dict[str, dict[str, Any]] | None = None
    request_id: str | None = None


class Problem(Exception):
    def __init__(
        self,
        status: int,
        detail: str,
        field: str | None = None,
        allowed: list[Any] | None = None,
        headers: dict[str, str] | None = None,
        request_id: str | None = None,
        legal: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.field = field
        self.allowed = allowed
        self.headers = headers or {}
        self.request_id = request_id
        self.legal = legal

    def body(self) -> ProblemBody:
        return ProblemBody(
            type="about:blank",
            status=self.status,
            title=TITLES.get(self.status, "Error"),
            detail=self.detail,
            field=self.field,
            allowed=self.allowed,
            legal=self.legal,
            request_id=self.request_id,
        )


def said(problem: Problem, accept: str | None) -> tuple[ProblemBody, dict[str, str]]:
    """The problem's body and headers in the language an Accept-Language of `accept` asks for,
    saying which, and that the answer depends on it."""
    body = problem.body()
    headers = dict(problem.headers)
    code = problem_words.language(accept)
    body = msgspec.structs.replace(
        body,
        title=problem_words.translated(body.title, code),
        detail=problem_words.translated(body.detail, code),
    )
    headers["Content-Language"] = code
    vary = [v for v in (headers.get("Vary"), "Accept-Language") if v]
    headers["Vary"] = ", ".join(vary)
    return body, headers


def problem_response(problem: Problem, request: Request | None = None) -> Response:
    """The problem as an answer: in English, or in the language `request` asks for."""
    body, headers = (
        (problem.body(), problem.headers)
        if request is None
        else said(problem, request.headers.get("accept-language"))
    )
    return Response(
        content=msgspec.json.encode(body),
        status_code=problem.status,
        media_type=MEDIA_TYPE,
        headers=headers,
    )


_REFUSAL_STATUS = {NotAllowed: 403, NotYourTurn: 409, Conflict: 409, IllegalMove: 422}


def from_refusal(error: Refused) -> Problem:
    status = next(code for kind, code in _REFUSAL_STATUS.items() if isinstance(error, kind))
    return Problem(status, error.reason, error.field, error.allowed)


CLIENT_GONE = "client disconnected prematurely"  # what litestar says when the body is cut off
# Said instead of litestar's own details, which only repeat the status ("Not Found").
OWN_WORDS = {
    404: "there is nothing at this address",
    405: "this address doesn't take that method",
    413: "the body is larger than this service accepts",
}


def _on_problem(request: Request, error: Problem) -> Response:
    return problem_response(error, request)


def _on_refused(request: Request, error: Refused) -> Response:
    return problem_response(from_refusal(error), request)


def _on_no_table(request: Request, error: NoSuchTable) -> Response:
    detail = f"there is no table {error.code}"
    return problem_response(Problem(404, detail, field="code"), request)


def _on_validation(request: Request, error: ValidationException) -> Response:
    """litestar's own checks of path and query parameters, named by field. Bodies are checked
    by `services.api.decoding`, so a complaint about `data` can only mean there was none."""
    extra = error.extra if isinstance(error.extra, list) else []
    first = extra[0] if extra else {}
    field = first.get("key") if isinstance(first, dict) else None
    if field == "data":
        return problem_response(Problem(400, "the body is empty; send a JSON object"), request)
    message = first.get("message") if isinstance(first, dict) else None
    if message:  # msgspec's words, begun in lower case as a body's refusal has them
        message = f"{message[0].lower()}{message[1:]}"
    detail = f"{field}: {message}" if field and message else (message or error.detail)
    return problem_response(Problem(422 if field else 400, detail, field=field), request)


def _on_http(request: Request, error: HTTPException) -> Response:
    if error.detail == CLIENT_GONE:
        # Nobody is left to answer; nothing went wrong on our side.
        log.info("%s %s: %s", request.method, request.url.path, error.detail)
        return problem_response(Problem(400, "the request ended before its body did"), request)
    if error.status_code >= 500:
        return _on_unexpected(request, error)
    detail = OWN_WORDS.get(error.status_code)
    return problem_response(
        Problem(error.status_code, detail or error.detail, headers=dict(error.headers or {})),
        request,
    )


# The database or broker not answering is an outage to wait out, not a bug: 503.
# The event store talks psycopg directly, everything else goes through SQLAlchemy.
UNAVAILABLE = (
    OperationalError,
    InterfaceError,
    PoolTimeout,
    psycopg.OperationalError,
    psycopg.InterfaceError,
    psycopg_pool.PoolTimeout,
    BrokerDown,
    ConnectionError,
)


def _on_unexpected(request: Request, error: Exception) -> Response:
    if isinstance(error, UNAVAILABLE):
        log.warning("request failed, a backing service is down: %r", error)
        detail = "the service can't reach its database or broker just now; try again shortly"
        return problem_response(Problem(503, detail, headers={"Retry-After": "5"}), request)
    # The access log's id for the request (services/api/access.py), which the answer's
    # X-Request-ID carries: the one a player quotes is the one in the logs.
    request_id = logs.bound().get("request_id") or uuid.uuid4().hex
    log.error(
        "request %s failed: %s %s", request_id, request.method, request.url.path, exc_info=error
    )
    detail = f"something went wrong on our side; quote request id {request_id} when reporting it"
    return problem_response(Problem(500, detail, request_id=request_id), request)


EXCEPTION_HANDLERS = {
    Problem: _on_problem,
    Refused: _on_refused,
    NoSuchTable: _on_no_table,
    ValidationException: _on_validation,
    HTTPException: _on_http,
    Exception: _on_unexpected,
}
