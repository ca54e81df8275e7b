"""Turns at the password hashers, shared out by address so that a flood can't make a person wait.

An Argon2 hash takes a good fraction of a second of a core by design, and there are few hashing
processes. In one queue served in arrival order, twenty clients signing in at once put a
person's own sign-in 8 s behind theirs. Here:

- each address, and each account name, has at most a few hashes waiting or running; one more
  is refused at once (`Busy`, a 429), not queued for seconds;
- the queue as a whole is bounded too: once it is full, a request from an address that has
  been served less recently than some waiting one's takes that one's place (it is refused
  instead), and any other request is refused;
- a free hasher goes to the waiting request whose address was served longest ago, an address
  never served (or not for a long while) first. Addresses that keep asking are served in
  rotation, and a person arriving during a flood waits only for the hashes already running.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass

# Addresses whose last turn is remembered; forgetting the longest-ago one ranks it as never
# served, which is where it ranked already.
REMEMBERED = 10_000
UNKNOWN = "unknown address"


def seconds(n: int) -> str:
    """The unit after `n` in a detail, a word of its own so a translation can match it."""
    return "second" if n == 1 else "seconds"


class Busy(Exception):
    """Refused a turn: `detail` says which share was full; try again in `retry_after` s.
    `field` is the request's field at fault, if one is ("name" for an account's share)."""

    def __init__(self, detail: str, retry_after: int, field: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after = retry_after
        self.field = field


@dataclass(eq=False)
class _Waiting:
    address: str
    order: int
    granted: asyncio.Future[None]


class FairQueue:
    """`slots` turns at a time; per address and per account at most `per_address` and
    `per_account` waiting or running; at most `waiting` waiting in all."""

    def __init__(self, slots: int, per_address: int, per_account: int, waiting: int) -> None:
        self._slots = slots
        self._free = slots
        self._per_address = per_address
        self._per_account = per_account
        self._most_waiting = waiting
        self._waiting: list[_Waiting] = []
        self._addresses: Counter[str] = Counter()
        self._accounts: Counter[str] = Counter()
        self._served: OrderedDict[str, int] = OrderedDict()  # address -> its last turn's tick
        self._ticks = itertools.count()
        self._each = 0.5  # seconds a turn has lately taken, for Retry-After

    @contextlib.asynccontextmanager
    async def turn(self, address: str | None, account: str) -> AsyncIterator[None]:
        """Hold a turn for the block; Busy at once when a share is full."""
        address = address or UNKNOWN
        self._admit(address, account)
        self._addresses[address] += 1
        self._accounts[account] += 1
        try:
            if self._free and not self._waiting:
                self._free -= 1
                self._mark(address)
            else:
                await self._wait(address)
            started = time.monotonic()
            try:
                yield
            finally:
                self._each = 0.8 * self._each + 0.2 * (time.monotonic() - started)
                self._free += 1
                self._next()
        finally:
            for held, who in ((self._addresses, address), (self._accounts, account)):
                held[who] -= 1
                if not held[who]:
                    del held[who]

    def _admit(self, address: str, account: str) -> None:
        if self._addresses[address] >= self._per_address:
            raise self._busy(f"sign-ins from your address at once (at most {self._per_address})")
        if self._accounts[account] >= self._per_account:
            raise self._busy(
                f"sign-ins for this name at once (at most {self._per_account})", field="name"
            )
        if len(self._waiting) < self._most_waiting:
            return
        last = max(self._waiting, key=self._rank)
        if self._served.get(address, -1) >= self._served.get(last.address, -1):
            raise self._busy("sign-ins at once: every password checker is busy")
        self._waiting.remove(last)
        last.granted.set_exception(self._busy("sign-ins at once: your place was given to another"))

    async def _wait(self, address: str) -> None:
        entry = _Waiting(address, next(self._ticks), asyncio.get_running_loop().create_future())
        self._waiting.append(entry)
        try:
            await entry.granted
        except BaseException:
            if entry in self._waiting:
                self._waiting.remove(entry)
            elif not entry.granted.cancelled() and entry.granted.exception() is None:
                # Given the turn, but the caller is gone: pass it on.
                self._free += 1
                self._next()
            raise

    def _next(self) -> None:
        while self._free and self._waiting:
            entry = min(self._waiting, key=self._rank)
            self._waiting.remove(entry)
            if entry.granted.done():  # cancelled; its caller will find itself gone
                continue
            self._free -= 1
            self._mark(entry.address)
            entry.granted.set_result(None)

    def _rank(self, entry: _Waiting) -> tuple[int, int]:
        return self._served.get(entry.address, -1), entry.order

    def _mark(self, address: str) -> None:
        self._served[address] = next(self._ticks)
        self._served.move_to_end(address)
        if len(self._served) > REMEMBERED:
            self._served.popitem(last=False)

    def _busy(self, what: str, field: str | None = None) -> Busy:
        wait = min(60, max(1, math.ceil(self._each * (len(self._waiting) + 1) / self._slots)))
        detail = f"too many {what}; try again in {wait} {seconds(wait)}"
        return Busy(detail, wait, field)
