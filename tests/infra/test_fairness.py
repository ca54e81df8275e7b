"""Turns at the password hashers: the address served longest ago goes next, a fresh one first;
each address's and name's share, and the queue, are bounded, and past them a request is
refused at once (or, from a fresher address, takes the place of the most served)."""

from __future__ import annotations

import asyncio

import pytest

from infra.fairness import Busy, FairQueue

pytestmark = pytest.mark.anyio


class Turns:
    """Sign-ins through a FairQueue of one slot, each holding its turn until let go."""

    def __init__(self, waiting: int = 8) -> None:
        self.queue = FairQueue(slots=1, per_address=2, per_account=2, waiting=waiting)
        self.served: list[str] = []
        self.tasks: list[asyncio.Task] = []
        self.holds: list[asyncio.Event] = []

    async def ask(self, address: str, account: str | None = None) -> asyncio.Event:
        done = asyncio.Event()
        self.holds.append(done)

        async def turn() -> None:
            async with self.queue.turn(address, account or address):
                self.served.append(address)
                await done.wait()

        self.tasks.append(asyncio.create_task(turn()))
        await asyncio.sleep(0)  # admitted, or refused, at once
        return done

    async def serve_all(self) -> None:
        """Let every turn go, one after another; each refusal is kept as its task's result."""
        for event in self.holds:
            event.set()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def test_a_fresh_address_goes_before_the_addresses_that_keep_asking():
    turns = Turns()
    for address in ("a", "b", "c"):  # each served once already
        await turns.ask(address)
        await turns.serve_all()
    for address in ("a", "b", "c", "a", "b", "person"):
        await turns.ask(address)
    await turns.serve_all()
    # a was checking as the person came; then the person; then round-robin, longest ago first.
    assert turns.served[3:] == ["a", "person", "b", "c", "a", "b"]


async def test_past_a_share_a_request_is_refused_at_once():
    turns = Turns()
    await turns.ask("a", "grace")
    await turns.ask("a", "alan")
    with pytest.raises(Busy, match="from your address") as refused:
        await turns.queue.turn("a", "ada").__aenter__()
    assert refused.value.retry_after >= 1 and refused.value.field is None
    await turns.ask("b", "grace")
    with pytest.raises(Busy, match="for this name") as refused:
        await turns.queue.turn("c", "grace").__aenter__()
    assert refused.value.field == "name"
    await turns.serve_all()


async def test_a_full_queue_gives_a_fresher_address_the_place_of_the_most_served():
    turns = Turns(waiting=2)
    for address in ("a", "b"):
        await turns.ask(address)
        await turns.serve_all()
    await turns.ask("c")  # checking
    await turns.ask("a")
    await turns.ask("b")  # b served later than a: the most recently served of those waiting
    with pytest.raises(Busy, match="every password checker is busy"):
        await turns.queue.turn("b", "another").__aenter__()
    await turns.ask("person")  # never served: takes b's place
    evicted = turns.tasks[-2]
    with pytest.raises(Busy, match="your place was given"):
        await evicted
    await turns.serve_all()
    assert turns.served[2:] == ["c", "person", "a"]
