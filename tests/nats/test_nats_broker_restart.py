"""The studio's feed on NATS JetStream, on one real nats-server: every committed message reaches the stream and a
backend exactly once, in order, also when the broker is SIGKILLed mid-stream and started again."""

from __future__ import annotations

import json
from pathlib import Path

import brokers
from nats_helpers import Backend, NatsStudio, stream_contents
from waiting import until

from studio.health import studio_health


def check_stream(urls: list[str], studio: NatsStudio, studio_id: str = "hall-a") -> None:
    """The stream holds the journal's feed: seq N at stream sequence N, under its message id, unchanged."""
    last = studio.last_seq
    held = stream_contents(urls, studio_id)
    assert [s for s, *_ in held] == list(range(1, last + 1))
    rows = dict(studio.studio.journal.read_after(0, last + 1))
    for seq, mid, data, subject in held:
        assert mid == f"{studio_id}:{seq}"
        assert data["seq"] == seq
        assert data == json.loads(rows[seq])  # the signed message, unchanged
        table = data["table_id"] or "_"
        assert subject == f"studio.{studio_id}.{table}.{data['kind']}"


def delivered_once(broker: brokers.Broker, studio: NatsStudio, backend: Backend) -> None:
    """Once the studio is idle: the backend had every seq exactly once, in order, and the stream holds them."""
    last = studio.settle()
    backend.wait_for("hall-a", last)
    assert backend.seqs("hall-a") == list(range(1, last + 1)), "every seq exactly once, in order"
    check_stream(broker.urls, studio)


def test_every_message_reaches_the_stream_and_the_backend(tmp_path: Path, broker: brokers.Broker) -> None:
    studio = NatsStudio(tmp_path / "studio", broker.urls)
    backend = Backend(broker.urls, {"hall-a": studio.studio.public_key_b64})
    try:
        until(lambda: studio.publisher_status.acked_seq >= 10, "10 messages on the stream")
        delivered_once(broker, studio, backend)
    finally:
        backend.stop()
        studio.stop()


def test_broker_killed_mid_stream_and_restarted(tmp_path: Path, broker: brokers.Broker) -> None:
    studio = NatsStudio(tmp_path / "studio", broker.urls)
    backend = Backend(broker.urls, {"hall-a": studio.studio.public_key_b64})
    try:
        backend.wait_for("hall-a", 5)
        node = broker.nodes[0]
        node.kill()
        before = studio.last_seq
        until(lambda: not studio.publisher_status.connected, "the publisher to see the broker gone")
        until(lambda: studio.last_seq >= before + 5, "the tables to go on certifying without NATS")
        node.start()
        until(
            lambda: studio.publisher_status.acked_seq >= before + 5, "the outbox to drain into the new broker"
        )
        delivered_once(broker, studio, backend)
    finally:
        backend.stop()
        studio.stop()


def test_a_second_journal_under_the_same_studio_id_is_refused(tmp_path: Path, broker: brokers.Broker) -> None:
    first = NatsStudio(tmp_path / "first", broker.urls)
    try:
        last = first.settle()
    finally:
        first.stop()
    held = stream_contents(broker.urls, "hall-a")
    # another data folder (another journal, another key) configured with the same studio id
    second = NatsStudio(tmp_path / "second", broker.urls)
    try:
        until(lambda: second.last_seq > len(held) + 3, "the second journal to pass the stream's end")
        until(
            lambda: "StreamMismatch" in (second.publisher_status.last_error or ""),
            "the publisher to refuse the stream",
        )
        assert second.publisher_status.acked_seq == 0
        health = second.on_loop(lambda: studio_health(second.studio))
        assert health.nats is not None and not health.nats.connected
    finally:
        second.stop()
    assert stream_contents(broker.urls, "hall-a") == held, "nothing of the second journal got in"
    assert len(held) >= last
