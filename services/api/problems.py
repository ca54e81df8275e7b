"""Every error as RFC 9457 problem+json: status, title, a detail a person can act on, and
where it helps the `field` at fault and what is `allowed` there."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from domain.errors import Conflict, IllegalMove, NotAllowed, NotYourTurn, Refused
from services.tables import NoSuchTable

MEDIA_TYPE = "application/problem+json"
TITLES = {
    400: "Bad request",
    401: "Sign in first",
    403: "Not yours to do",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    422: "Not allowed by the rules",
    500: "Server error",
    503: "Service unavailable",
}


class Problem(Exception):
    def __init__(
        self,
        status: int,
        detail: str,
        field: str | None = None,
        allowed: list[Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.field = field
        self.allowed = allowed
        self.headers = headers or {}


def problem_response(problem: Problem) -> Response:
    body: dict[str, Any] = {
        "type": "about:blank",
        "status": problem.status,
        "title": TITLES.get(problem.status, "Error"),
        "detail": problem.detail,
    }
    if problem.field is not None:
        body["field"] = problem.field
    if problem.allowed is not None:
        body["allowed"] = problem.allowed
    return Response(
        content=msgspec.json.encode(body),
        status_code=problem.status,
        media_type=MEDIA_TYPE,
        headers=problem.headers,
    )


_REFUSAL_STATUS = {NotAllowed: 403, NotYourTurn: 409, Conflict: 409, IllegalMove: 422}


def from_refusal(error: Refused) -> Problem:
    status = next(code for kind, code in _REFUSAL_STATUS.items() if isinstance(error, kind))
    return Problem(status, error.reason, error.field, error.allowed)


def _on_problem(_: Request, error: Problem) -> Response:
    return problem_response(error)


def _on_refused(_: Request, error: Refused) -> Response:
    return problem_response(from_refusal(error))


def _on_no_table(_: Request, error: NoSuchTable) -> Response:
    return problem_response(Problem(404, f"there is no table {error.code}", field="code"))


def _on_validation(_: Request, error: ValidationException) -> Response:
    """litestar's own validation of bodies and parameters, named by field."""
    extra = error.extra if isinstance(error.extra, list) else []
    first = extra[0] if extra else {}
    field = first.get("key") if isinstance(first, dict) else None
    message = first.get("message") if isinstance(first, dict) else None
    detail = f"{field}: {message}" if field and message else (message or error.detail)
    return problem_response(Problem(422 if field else 400, detail, field=field))


def _on_http(_: Request, error: HTTPException) -> Response:
    return problem_response(
        Problem(error.status_code, error.detail, headers=dict(error.headers or {}))
    )


EXCEPTION_HANDLERS = {
    Problem: _on_problem,
    Refused: _on_refused,
    NoSuchTable: _on_no_table,
    ValidationException: _on_validation,
    HTTPException: _on_http,
}
