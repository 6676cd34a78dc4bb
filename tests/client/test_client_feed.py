"""The client library against a real studio: verified typed results, the key pinned, resuming after a
disconnect and after a restart of the backend with no gap and no duplicate, a forked chain refused."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from client_studio import FEED_TOKEN, ServedStudio, run, wheel_table
from studio_client import (
    ChainBroken,
    Checkpoint,
    FeedClient,
    FeedRefused,
    FileSeqStore,
    MemorySeqStore,
    Message,
    Position,
    Result,
)
from waiting import until


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedStudio]:
    studio = ServedStudio(
        tmp_path_factory.mktemp("client-feed") / "data", [wheel_table()], checkpoint_seconds=0.2
    )
    yield studio
    studio.stop()


def read(
    client: FeedClient, done: Callable[[list[Message]], bool], got: list[Message] | None = None
) -> list[Message]:
    """Run `client` until `done(messages so far)`."""
    messages: list[Message] = [] if got is None else got

    def on_message(message: Message) -> None:
        messages.append(message)
        if done(messages):
            client.stop()

    run(client.run(on_message))
    return messages


def results(messages: list[Message]) -> int:
    return sum(isinstance(m, Result) for m in messages)


def test_results_arrive_verified_typed_and_the_key_is_fetched_and_pinned(served: ServedStudio) -> None:
    store = MemorySeqStore()
    client = FeedClient(served.url, FEED_TOKEN, store=store, backoff=0.05)
    got = read(client, lambda ms: results(ms) >= 2 and any(isinstance(m, Checkpoint) for m in ms))
    assert [m.seq for m in got] == list(range(1, len(got) + 1))
    first = next(m for m in got if isinstance(m, Result))
    assert first.table_id == "t1" and 0 <= int(first.result["number"]) <= 36
    assert store.position.public_key == served.studio.public_key_b64
    assert store.position.last_seq == got[-1].seq and store.position.last_hash == got[-1].hash
    checkpoint = [m for m in got if isinstance(m, Checkpoint)][-1]
    assert store.position.head_journal_seq == checkpoint.head.journal_seq


def test_resume_after_a_disconnect_and_a_restart_has_no_gap_and_no_duplicate(
    served: ServedStudio, tmp_path: Path
) -> None:
    store = FileSeqStore(tmp_path / "position.json")
    first = read(FeedClient(served.url, FEED_TOKEN, store=store, backoff=0.05), lambda ms: results(ms) >= 2)
    saved = json.loads((tmp_path / "position.json").read_text())
    assert saved["last_seq"] == first[-1].seq and saved["public_key"] == served.studio.public_key_b64

    # a backend started again from its file; its connection cut under it after a few messages
    client = FeedClient(served.url, FEED_TOKEN, store=FileSeqStore(tmp_path / "position.json"), backoff=0.05)
    second: list[Message] = []

    def cut_once(ms: list[Message]) -> bool:
        if len(ms) == 3 and client.connection is not None and client.connections == 1:
            client.connection.transport.abort()
        return client.connections >= 2 and results(ms) >= 4

    read(client, cut_once, second)
    assert client.connections >= 2
    seqs = [m.seq for m in first + second]
    assert seqs == list(range(1, len(seqs) + 1))  # every message once, in order, across both runs
    assert FileSeqStore(tmp_path / "position.json").load().last_seq == seqs[-1]


def test_a_callback_that_fails_does_not_advance_the_position(served: ServedStudio) -> None:
    store = MemorySeqStore()
    client = FeedClient(served.url, FEED_TOKEN, store=store, backoff=0.05)

    def on_message(message: Message) -> None:
        if message.seq == 3:
            raise RuntimeError("the backend's database is down")

    with pytest.raises(RuntimeError):
        run(client.run(on_message))
    assert store.position.last_seq == 2


def test_a_stored_hash_the_studio_does_not_have_is_a_broken_chain(served: ServedStudio) -> None:
    # a backend whose seq 1 was another studio's (or a forged one): the studio's seq 2 does not chain on it.
    # The studio must have a seq 2 to send (this test may be the module's first, the studio just started).
    journal = served.studio.journal

    def two_on_the_feed() -> bool:
        journal.flush()
        return len(journal.read_after(0, 2)) >= 2

    until(two_on_the_feed, "two messages on the feed")
    store = MemorySeqStore(Position(last_seq=1, last_hash="ab" * 32, public_key=served.studio.public_key_b64))
    with pytest.raises(ChainBroken, match="prev_hash"):
        run(FeedClient(served.url, FEED_TOKEN, store=store, backoff=0.05).run(lambda m: None))


def test_a_wrong_token_is_refused_without_retrying(served: ServedStudio) -> None:
    client = FeedClient(served.url, "not-the-token-at-all", public_key=served.studio.public_key_b64)
    with pytest.raises(FeedRefused) as refused:
        run(client.run(lambda m: None))
    assert refused.value.status == 403 and client.connections == 0


def test_the_client_rides_out_a_studio_restart_with_no_gap(tmp_path: Path) -> None:
    first = ServedStudio(tmp_path / "data", [wheel_table()])
    client = FeedClient(first.url, FEED_TOKEN, backoff=0.05, backoff_max=0.2)
    got: list[Message] = []
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=lambda: loop.run_until_complete(client.run(got.append)), daemon=True)
    thread.start()
    second: ServedStudio | None = None
    try:
        until(lambda: results(got) >= 2, "two results from the first studio")
        first.stop()  # closes the feed (1012) after its shutdown voids and last checkpoint
        second = ServedStudio(tmp_path / "data", [wheel_table()], port=first.port)
        before = len(got)
        until(
            lambda: client.connections >= 2 and results(got[before:]) >= 1, "a result from the second studio"
        )
    finally:
        loop.call_soon_threadsafe(client.stop)
        thread.join(60)
        if second is not None:
            second.stop()
    assert not thread.is_alive()
    loop.close()
    seqs = [m.seq for m in got]
    assert seqs == list(range(1, len(seqs) + 1))
    assert any(isinstance(m, Checkpoint) for m in got)  # the first studio's last one, at its shutdown
