"""A three-node JetStream cluster, stream replicas 3: one node (the stream's leader) SIGKILLed and brought back
while ten tables certify; publishing goes on, nothing is lost or doubled. Two studios on the cluster, one backend
reading both, and no message of one studio accepted with the other's key."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import brokers
import nats
from nats_helpers import Backend, NatsStudio, stream_contents
from studio_client import BadSignature
from waiting import until

from streaming.nats_stream import EXPECTED_LAST_SEQ, MSG_ID, stream_name


def stream_leader(urls: list[str], studio_id: str) -> str:
    async def ask() -> str:
        nc = await nats.connect(servers=urls, connect_timeout=5)
        try:
            info = await nc.jetstream(timeout=10).stream_info(stream_name(studio_id))
            assert info.cluster is not None
            return str(info.cluster.leader)
        finally:
            await nc.close()

    return asyncio.run(ask())


def test_a_node_of_three_killed_and_brought_back(tmp_path: Path, cluster: brokers.Broker) -> None:
    studio = NatsStudio(tmp_path / "studio", cluster.urls, tables=10, replicas=3, speed=100)
    backend = Backend(cluster.urls, {"hall-a": studio.studio.public_key_b64})
    try:
        backend.wait_for("hall-a", 10)
        leader = stream_leader(cluster.urls, "hall-a")
        node = next(n for n in cluster.nodes if n.name == leader)
        node.kill()
        at_kill = studio.publisher_status.acked_seq
        until(lambda: studio.publisher_status.acked_seq >= at_kill + 20, "publishing to go on with two nodes")
        node.start()
        cluster.wait_ready()
        back = studio.publisher_status.acked_seq
        until(
            lambda: studio.publisher_status.acked_seq >= back + 10, "publishing to go on with the node back"
        )
        last = studio.settle()
        backend.wait_for("hall-a", last)
        assert backend.seqs("hall-a") == list(range(1, last + 1)), "nothing lost or doubled"
        held = stream_contents(cluster.urls, "hall-a")
        assert [d["seq"] for _, _, d, _ in held] == list(range(1, last + 1))
        assert [s for s, *_ in held] == list(range(1, last + 1))
    finally:
        backend.stop()
        studio.stop()


def inject(urls: list[str], studio_id: str, subject: str, data: bytes, last: int) -> None:
    """Publish `data` into a studio's stream as if it were the studio's next message (someone with the right to
    publish there, or a studio misconfigured with another's id)."""

    async def send() -> None:
        nc = await nats.connect(servers=urls, connect_timeout=5)
        try:
            headers = {MSG_ID: f"{studio_id}:{last + 1}", EXPECTED_LAST_SEQ: str(last)}
            await nc.jetstream(timeout=10).publish(subject, data, headers=headers)
        finally:
            await nc.close()

    asyncio.run(send())


def test_two_studios_one_backend_each_with_its_own_key(tmp_path: Path, cluster: brokers.Broker) -> None:
    a = NatsStudio(tmp_path / "a", cluster.urls, name="hall-a", tables=2, replicas=3)
    b = NatsStudio(tmp_path / "b", cluster.urls, name="hall-b", tables=2, replicas=3)
    keys = {"hall-a": a.studio.public_key_b64, "hall-b": b.studio.public_key_b64}
    assert keys["hall-a"] != keys["hall-b"]
    backend = Backend(cluster.urls, keys)
    try:
        last_a = a.settle()
        until(lambda: b.last_seq > last_a + 5, "hall-b to pass hall-a's last seq")
        last_b = b.settle()
        backend.wait_for("hall-a", last_a)
        backend.wait_for("hall-b", last_b)
        assert backend.seqs("hall-a") == list(range(1, last_a + 1))
        assert backend.seqs("hall-b") == list(range(1, last_b + 1))
    finally:
        backend.stop()
    a.stop()  # each publishes its shutdown checkpoint too
    b.stop()
    last_a = len(stream_contents(cluster.urls, "hall-a"))
    # hall-b's own message with hall-a's next seq, unchanged (signed by hall-b), put on hall-a's stream
    data = stream_contents(cluster.urls, "hall-b")[last_a][2]
    assert data["seq"] == last_a + 1
    table = data["table_id"] or "_"
    inject(cluster.urls, "hall-a", f"studio.hall-a.{table}.{data['kind']}", json.dumps(data).encode(), last_a)
    swapped = {"hall-a": keys["hall-b"], "hall-b": keys["hall-a"]}
    # the backend goes on from where it was: hall-b's message on hall-a's stream is checked with hall-a's key
    again = Backend(cluster.urls, keys, durable="backend-2")
    try:
        until(lambda: again.error is not None, "the backend to refuse the message")
        assert isinstance(again.error, BadSignature)
        assert again.seqs("hall-a") == list(range(1, last_a + 1))
    finally:
        again.stop()
    # and a backend that was given the keys the wrong way round accepts nothing
    wrong = Backend(cluster.urls, swapped, durable="backend-3")
    try:
        until(lambda: wrong.error is not None, "the backend to refuse the first message")
        assert isinstance(wrong.error, BadSignature)
        assert wrong.got == []
    finally:
        wrong.stop()
