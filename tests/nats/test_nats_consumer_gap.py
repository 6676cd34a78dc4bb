"""A consumer that hands over later messages before earlier ones (a fetch answered but its reply lost, as when
the consumer's leader node is killed): the client reads the missing seqs from the stream and delivers every
message once, in order; a seq the stream no longer holds is a broken chain."""

from __future__ import annotations

import asyncio
from pathlib import Path

import brokers
import nats
from nats_helpers import Backend, NatsStudio
from studio_client import ChainBroken
from studio_client.jetstream import JetStreamFeedClient
from waiting import until

from streaming.nats_stream import stream_name

DURABLE = "backend-1"


def lose_a_fetch(
    urls: list[str], studio_id: str, key: str, count: int, delete: int | None = None
) -> list[int]:
    """Create the backend's consumer as the client does, pull `count` messages and drop them unacknowledged (they
    stay pending for the consumer's ack_wait); with `delete`, remove that seq from the stream too."""

    async def run() -> list[int]:
        nc = await nats.connect(servers=urls, connect_timeout=5)
        try:
            js = nc.jetstream(timeout=10)
            client = JetStreamFeedClient(urls, DURABLE, {studio_id: key})
            sub = await client._subscription(js, studio_id)
            msgs = await sub.fetch(count, timeout=5)
            if delete is not None:
                await js.delete_msg(stream_name(studio_id), delete)
            return [m.metadata.sequence.stream for m in msgs]
        finally:
            await nc.close()

    return asyncio.run(run())


def test_messages_a_lost_fetch_left_pending_are_read_from_the_stream_in_order(
    tmp_path: Path, broker: brokers.Broker
) -> None:
    studio = NatsStudio(tmp_path / "studio", broker.urls, tables=2)
    try:
        last = studio.settle(at_least=12)
        key = studio.studio.public_key_b64
        assert lose_a_fetch(broker.urls, "hall-a", key, 5) == [1, 2, 3, 4, 5]
        backend = Backend(broker.urls, {"hall-a": key}, durable=DURABLE)
        try:
            backend.wait_for("hall-a", last)
            assert backend.seqs("hall-a") == list(range(1, last + 1)), "each once, in order"
            assert backend.client.filled == 5
        finally:
            backend.stop()
    finally:
        studio.stop()


def test_a_seq_missing_from_the_stream_is_a_broken_chain(tmp_path: Path, broker: brokers.Broker) -> None:
    studio = NatsStudio(tmp_path / "studio", broker.urls, tables=2)
    try:
        studio.settle(at_least=12)
        key = studio.studio.public_key_b64
        lose_a_fetch(broker.urls, "hall-a", key, 5, delete=3)
        backend = Backend(broker.urls, {"hall-a": key}, durable=DURABLE)
        try:
            until(lambda: backend.error is not None, "the backend to stop at the missing seq")
            assert isinstance(backend.error, ChainBroken)
            assert "seq 3 is missing from the stream" in str(backend.error)
            assert backend.seqs("hall-a") == [1, 2], "nothing after the gap reaches the callback"
        finally:
            backend.stop()
    finally:
        studio.stop()
