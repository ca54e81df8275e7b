"""A histogram observed once per watcher is gathered in the process and written once a second
(infra/metrics.py `Gathered`): what it writes is what observing each value would have."""

from __future__ import annotations

import asyncio
import random

from prometheus_client import CollectorRegistry, Histogram

from infra import metrics


def _samples(registry: CollectorRegistry, via: str) -> dict[tuple[str, str], float]:
    return {
        (sample.name, sample.labels.get("le", "")): sample.value
        for family in registry.collect()
        for sample in family.samples
        if sample.labels.get("via") == via and not sample.name.endswith("_created")
    }


def test_a_seconds_observations_are_written_as_each_would_have_been():
    registry = CollectorRegistry()
    latency = Histogram("latency_seconds", "", ["via"], buckets=metrics.FAST, registry=registry)
    rng = random.Random(3)
    # On the bounds, between them, and past the last.
    values = [*metrics.FAST, *(rng.uniform(0, 12) for _ in range(500)), 0.0, 99.0]

    async def observe() -> None:
        gathered = metrics.Gathered(latency.labels("gathered"))
        for value in values:
            gathered.observe(value)
            latency.labels("each").observe(value)
        assert _samples(registry, "gathered")[("latency_seconds_count", "")] == 0
        await asyncio.sleep(metrics.Gathered.EVERY + 0.2)
        # The next observation sets the next write.
        gathered.observe(0.003)
        latency.labels("each").observe(0.003)
        await asyncio.sleep(metrics.Gathered.EVERY + 0.2)

    asyncio.run(observe())
    each, gathered = _samples(registry, "each"), _samples(registry, "gathered")
    assert each[("latency_seconds_count", "")] == len(values) + 1
    total = ("latency_seconds_sum", "")
    assert abs(gathered.pop(total) - each.pop(total)) < 1e-6  # added in another order
    assert gathered == each  # every bucket and the count


def test_a_write_left_on_a_closed_loop_is_made_up_on_the_next():
    """A test's server stops with a write still to come on its loop: the next server's first
    observation sets a write of its own, and it carries both."""
    registry = CollectorRegistry()
    latency = Histogram("latency_seconds", "", ["via"], buckets=metrics.FAST, registry=registry)
    gathered = metrics.Gathered(latency.labels("gathered"))

    async def observe(value: float, wait: float) -> None:
        gathered.observe(value)
        await asyncio.sleep(wait)

    asyncio.run(observe(0.002, 0))  # its loop closes before the write
    asyncio.run(observe(0.2, metrics.Gathered.EVERY + 0.2))
    assert _samples(registry, "gathered")[("latency_seconds_count", "")] == 2
