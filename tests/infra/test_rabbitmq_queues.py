"""RabbitMQ's queue type by setting (docs/operations.md "RabbitMQ queues"), against a real
RabbitMQ: with `quorum`, every queue Dramatiq declares (the queue, its delay queue, its
dead-letter queue) is a quorum queue, and a message and a delayed one still come through."""

from __future__ import annotations

import subprocess
import threading
from urllib.parse import unquote, urlsplit

import dramatiq
import pytest

from infra.broker import make_broker

QUEUE = "bots"


def queue_types(url: str) -> dict[str, str]:
    """Each queue of the URL's vhost with its type, as RabbitMQ itself says."""
    vhost = unquote(urlsplit(url).path[1:])
    listed = subprocess.run(
        ["rabbitmqctl", "list_queues", "-q", "--no-table-headers", "-p", vhost, "name", "type"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    return dict(line.split("\t") for line in listed.splitlines() if line.strip())


@pytest.mark.parametrize("kind", ["quorum", "classic"])
def test_declared_queues_are_of_the_set_type_and_messages_come_through(
    rabbitmq_url: str, kind: str
) -> None:
    broker = make_broker(rabbitmq_url, queue_type=kind)
    came: list[str] = []
    both = threading.Event()

    def take(text: str) -> None:
        came.append(text)
        if len(came) == 2:
            both.set()

    dramatiq.actor(take, broker=broker, actor_name="take", queue_name=QUEUE)
    worker = dramatiq.Worker(broker, worker_threads=1, worker_timeout=100)
    worker.start()
    try:
        message = dramatiq.Message(
            queue_name=QUEUE, actor_name="take", args=("now",), kwargs={}, options={}
        )
        broker.enqueue(message)
        broker.enqueue(message.copy(args=("later",)), delay=300)
        assert both.wait(30), f"only {came} came through"
    finally:
        worker.stop()
        broker.close()
    assert came == ["now", "later"]
    assert queue_types(rabbitmq_url) == {
        QUEUE: kind,
        f"{QUEUE}.DQ": kind,
        f"{QUEUE}.XQ": kind,
    }
