"""Why the rules refuse a command: each refusal is a sentence a player can act on.

The kinds map onto HTTP statuses at the edge (403, 409, 422), but the domain knows nothing of HTTP:
it only says whether the move was illegal, out of turn, not the caller's to make, or clashing
with the table as it is.
"""

from __future__ import annotations

from collections.abc import Sequence


class Refused(Exception):
    """A command the rules won't apply; nothing changes."""

    def __init__(
        self, reason: str, field: str | None = None, allowed: Sequence[str | int] | None = None
    ):
        super().__init__(reason)
        self.reason = reason
        self.field = field
        self.allowed = None if allowed is None else list(allowed)


class IllegalMove(Refused):
    """Against the rules: "you must follow hearts"."""


class NotYourTurn(Refused):
    """A legal kind of move, but someone else is deciding now."""


class NotAllowed(Refused):
    """Not the caller's to do: only the host may start, say."""


class Conflict(Refused):
    """Clashes with the table as it is: the seat is taken, the game has started."""
