"""How many event streams one process holds open: anonymous ones per table and in all, and
each client's (per address when anonymous, per player when signed in); 429 beyond.

A stream costs the process for as long as it is open (a watcher, its presence, its share of
every view and keep-alive), and an anonymous one costs its opener nothing: 4,000 of them on
one table slowed every other request and stalled the loop as they closed. The counts are the
process's own, taken when the stream is admitted and given back once when it ends, so a
balancer spreading streams over processes spreads the caps with them.

Signed-in people are capped per player only, never by a table's anonymous cap: spectators
filling a table can't keep its seated players off their own stream.

Opening a stream is the costly moment (the table read, the talk a resume missed, the first
view), and a crowd refused together comes back together when its Retry-After runs out: 200
resumes at once queued a second of work ahead of everyone else's requests. At most OPENING
streams open at a time; the rest wait their turn, so a burst slows the crowd, not the table.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter

from infra.settings import StreamLimits
from services.api.problems import Problem

# A stream frees its place when it closes, which may be any moment: a short wait, and the web
# client's own back-off (1 s doubling to 15 s) is about as long. Each refusal adds up to as
# long again at random: 800 clients refused together and told the same 10 s came back together
# every 10 s, and each wave held the bystanders' requests back 20 ms.
RETRY_SECONDS = 10
OPENING = 8


class Ticket:
    """One admitted stream's places in the counts and its turn to open; `opened` ends the
    turn and `release` gives everything back, each once."""

    def __init__(
        self,
        counts: Counter[tuple[str, str]],
        places: list[tuple[str, str]],
        turn: asyncio.Semaphore,
    ) -> None:
        self._counts = counts
        self._places = places
        self._turn: asyncio.Semaphore | None = None
        self._turns = turn

    async def wait_turn(self) -> None:
        await self._turns.acquire()
        self._turn = self._turns

    def opened(self) -> None:
        if self._turn is not None:
            self._turn.release()
            self._turn = None

    def release(self) -> None:
        self.opened()
        for place in self._places:
            self._counts[place] -= 1
            if self._counts[place] <= 0:
                del self._counts[place]
        self._places = []


class StreamGate:
    def __init__(self, limits: StreamLimits) -> None:
        self.limits = limits
        self._counts: Counter[tuple[str, str]] = Counter()
        self._turns = asyncio.Semaphore(OPENING)

    def admit(self, code: str, address: str | None, player: str | None) -> Ticket:
        """A place for one more stream of table `code`, or Problem 429 naming the cap."""
        limits = self.limits
        caps: list[tuple[tuple[str, str], int, str]]
        if player is not None:
            caps = [(("player", player), limits.per_player, "streams open by you")]
        else:
            caps = [
                (("table", code), limits.anonymous_per_table, "anonymous streams of this table"),
                (("anonymous", ""), limits.anonymous, "anonymous streams on this server"),
            ]
            if address is not None:
                caps.append((("address", address), limits.per_address, "streams from your address"))
        for place, cap, what in caps:
            if self._counts[place] >= cap:
                raise self._refusal(what, cap, player is None)
        for place, _, _ in caps:
            self._counts[place] += 1
        return Ticket(self._counts, [place for place, _, _ in caps], self._turns)

    @staticmethod
    def _refusal(what: str, cap: int, anonymous: bool) -> Problem:
        wait = RETRY_SECONDS + random.randrange(RETRY_SECONDS + 1)
        detail = f"too many {what} (at most {cap}); close one or try again in {wait} seconds"
        if anonymous:
            detail = f"{detail}; signed-in players are counted apart"
        return Problem(429, detail, headers={"Retry-After": str(wait)})
