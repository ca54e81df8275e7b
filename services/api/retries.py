"""`Idempotency-Key` on moves: a retry gets the first answer, not a 409 for a move made twice.

A client that lost the answer to a move can't tell whether it was made. Sending it again with
the same key returns what the first attempt answered (status and body) for a day, from
whichever API process takes the retry. The same key with a different request is refused:
replaying another move's answer would hide that this one was never made.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable

from litestar import Response

from domain.errors import Refused
from infra.idempotency import Replies, Reply
from services.api.problems import Problem, from_refusal, problem_response
from services.use_cases import NoSuchTable

HEADER = "Idempotency-Key"
KEY = re.compile(r"^[\x21-\x7e]{1,200}$")
# Answers that say nothing about the move itself: a retry should be tried afresh.
NOT_KEPT = {401, 429}


def fingerprint(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()


def _replay(reply: Reply, request: str, replayed: bool) -> Response:
    if reply.fingerprint != request:
        raise Problem(
            422,
            f"this {HEADER} was used for a different request; send a new key with a new move",
            field=HEADER,
        )
    headers = {"Idempotent-Replayed": "true"} if replayed else {}
    return Response(
        reply.body, status_code=reply.status, media_type=reply.media_type, headers=headers
    )


async def once(
    replies: Replies,
    player_id: str,
    key: str,
    request: str,
    answer: Callable[[], Awaitable[Response]],
) -> Response:
    """`answer()`, or the answer already given to `key` for the same `request` fingerprint."""
    if not KEY.match(key):
        raise Problem(
            422, f"{HEADER} is 1-200 visible ASCII characters, such as a UUID", field=HEADER
        )
    first = await replies.first(player_id, key)
    if first is not None:
        return _replay(first, request, replayed=True)
    try:
        response = await answer()
    except Refused as error:
        response = problem_response(from_refusal(error))
    except NoSuchTable as error:
        response = problem_response(Problem(404, f"there is no table {error.code}", field="code"))
    except Problem as error:
        if error.status in NOT_KEPT:
            raise
        response = problem_response(error)
    if response.status_code in NOT_KEPT or response.status_code >= 500:
        return response
    reply = Reply(request, response.status_code, str(response.media_type), response.content)
    kept = await replies.keep(player_id, key, reply)
    return _replay(kept, request, replayed=kept != reply)
