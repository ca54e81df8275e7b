"""What a worker has done with the messages sent to it: the positive signal a test waits for
where it would otherwise sleep and hope that a duplicate, had it been going to land, had."""

from __future__ import annotations

import asyncio
import threading
import time

import dramatiq


class Dealt(dramatiq.Middleware):
    """Messages to `actor` sent through the broker and those a worker has finished with
    (done, failed or skipped)."""

    def __init__(self, actor: str) -> None:
        self.actor = actor
        self.sent = 0
        self.dealt = 0
        self._lock = threading.Lock()

    def after_enqueue(self, broker, message, delay) -> None:
        if message.actor_name == self.actor:
            with self._lock:
                self.sent += 1

    def after_process_message(self, broker, message, *, result=None, exception=None) -> None:
        if message.actor_name == self.actor:
            with self._lock:
                self.dealt += 1

    after_skip_message = after_process_message

    async def all_dealt_with(self, within: float = 30) -> None:
        """Until every message sent since this was added has been dealt with."""
        assert self.sent, f"no {self.actor} was sent: nothing to wait for"
        deadline = time.monotonic() + within
        while self.dealt < self.sent:
            assert time.monotonic() < deadline, f"{self.dealt} of {self.sent} {self.actor} taken"
            await asyncio.sleep(0.02)
