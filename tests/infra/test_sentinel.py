"""Redis with Sentinel, for real: a primary, its replica and three Sentinels (Valkey's own
server in Sentinel mode, from the embedded wheel). The service's clients and its bot-turn
broker, given a `redis+sentinel://` URL, find the primary, and after it is killed find the
replica the Sentinels promoted, without being told."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import dramatiq
import pytest
import redis

from infra import keyvalue
from infra.broker import RungRedisBroker, make_broker
from infra.embedded.valkey import VALKEY_SERVER

SERVICE = "euchre"
# A primary silent this long is down for a Sentinel (a second, where a real deployment over a
# network would say a few): the test waits out a failover, not a timeout.
DOWN_AFTER_MS = 1000


@dataclass
class Node:
    process: subprocess.Popen
    port: int

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(directory: Path, name: str, *argv: str, config: str | None = None) -> Node:
    """A Valkey on a free port; another port if one was taken between choosing and binding."""
    directory.mkdir(parents=True, exist_ok=True)
    for _ in range(5):
        port = _free_port()
        command = [str(VALKEY_SERVER)]
        if config is not None:
            path = directory / f"{name}.conf"
            path.write_text(f"port {port}\nbind 127.0.0.1\ndir {directory}\n{config}")
            command += [str(path), "--sentinel"]
        else:
            command += ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory)]
            command += ["--save", "", "--appendonly", "no", "--dbfilename", f"{name}.rdb"]
        log = open(directory / f"{name}.log", "w")  # noqa: SIM115 (the process keeps it)
        node = Node(subprocess.Popen([*command, *argv], stdout=log, stderr=log), port)
        deadline = time.monotonic() + 10
        while node.process.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(redis.ConnectionError), node.client() as client:
                if client.ping():
                    return node
            time.sleep(0.05)
        node.process.kill()
        node.process.wait()
    raise RuntimeError(f"{name} did not start: {(directory / f'{name}.log').read_text()}")


@dataclass
class SentinelSet:
    primary: Node
    replica: Node
    sentinels: list[Node]

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)
        return f"redis+sentinel://{hosts}/{SERVICE}"

    def primary_port(self) -> int:
        with self.sentinels[0].client() as asked:
            _, port = asked.sentinel_get_master_addr_by_name(SERVICE)
        return int(port)


def _wait(what: str, ready, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(redis.RedisError, dramatiq.errors.BrokerConnectionError):
            if ready():
                return
        assert time.monotonic() < deadline, f"{what} within {timeout} s"
        time.sleep(0.1)


@pytest.fixture
def sentinel_set(tmp_path: Path) -> Iterator[SentinelSet]:
    nodes: list[Node] = []
    try:
        primary = _start(tmp_path, "primary")
        nodes.append(primary)
        replica = _start(tmp_path, "replica", "--replicaof", "127.0.0.1", str(primary.port))
        nodes.append(replica)
        config = (
            f"sentinel monitor {SERVICE} 127.0.0.1 {primary.port} 2\n"
            f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
            f"sentinel failover-timeout {SERVICE} 10000\n"
        )
        sentinels = []
        for n in range(3):
            sentinels.append(_start(tmp_path, f"sentinel-{n}", config=config))
            nodes.append(sentinels[-1])
        found = SentinelSet(primary, replica, sentinels)

        def known() -> bool:
            """The replica in sync, and each Sentinel knowing it and the other two."""
            with replica.client() as copying:
                if copying.info("replication")["master_link_status"] != "up":
                    return False
            for sentinel in sentinels:
                with sentinel.client() as asked:
                    if (
                        not asked.sentinel_slaves(SERVICE)
                        or len(asked.sentinel_sentinels(SERVICE)) < 2
                    ):
                        return False
            return True

        _wait("the Sentinels find the replica and each other", known)
        yield found
    finally:
        for node in nodes:
            node.process.kill()
            node.process.wait()


def test_the_clients_and_the_broker_follow_the_primary_through_a_failover(
    sentinel_set: SentinelSet,
):
    url = sentinel_set.url
    assert sentinel_set.primary_port() == sentinel_set.primary.port
    namespace = f"test-{uuid.uuid4().hex}"
    broker = make_broker(url, namespace=namespace)
    assert isinstance(broker, RungRedisBroker)
    broker.declare_queue("q")
    consumer = broker.consume("q", prefetch=1, timeout=100)

    def sent(n: int) -> None:
        message = dramatiq.Message(queue_name="q", actor_name="a", args=(n,), kwargs={}, options={})
        broker.enqueue(message)

    def taken(n: int) -> None:
        deadline = time.monotonic() + 10
        while True:
            message = next(consumer)
            if message is not None:
                assert message.args == (n,)
                consumer.ack(message)
                return
            assert time.monotonic() < deadline, f"message {n} was never taken"

    sent(1)
    taken(1)
    blocking = keyvalue.client(url, socket_timeout=2)
    blocking.set("before", "kept")

    async def through() -> float:
        client = keyvalue.connect(url, socket_timeout=2)
        try:
            await client.set("async-before", "kept")
            # Both writes on the replica before the primary goes: replication is asynchronous,
            # and what the old primary had not passed on is lost with it.
            assert await client.wait(1, 1000) == 1
            sentinel_set.primary.process.kill()
            killed = time.monotonic()
            while True:
                try:
                    await client.set("after", "written")
                    break
                except (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError):
                    assert time.monotonic() - killed < 30, "no primary 30 s after the kill"
                    await asyncio.sleep(0.1)
            back = time.monotonic() - killed
            assert await client.get("async-before") == b"kept"
            return back
        finally:
            await client.aclose()

    back = asyncio.run(through())
    assert sentinel_set.primary_port() == sentinel_set.replica.port
    print(f"writes back {back:.1f} s after the primary was killed")
    assert back > DOWN_AFTER_MS / 1000  # it was down, and the client waited out the failover
    # The blocking client and the broker, opened before, find the new primary too.
    _wait("the blocking client reaches the new primary", lambda: blocking.get("before") == b"kept")
    assert blocking.get("after") == b"written"
    _wait("a bot turn is sent to the new primary", lambda: sent(2) is None)
    taken(2)
    blocking.close()
    consumer.close()
    broker.close()
