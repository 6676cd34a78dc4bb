"""What carries records to the journal's writer in batches: a record's light future behaves as a Future, the
appends of other threads reach the writer in few messages and become durable though nobody waits on them, and
the writer's commit thread commits in order, together what waited, and stops at a failed commit."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import FIRST_COMPLETED, InvalidStateError, wait
from pathlib import Path
from typing import Any

import pytest
from thread_leaks import no_new_threads
from waiting import WAIT_S, until

from studio.journal import Journal, verify_journal
from studio.journal_future import PendingRecord
from studio.journal_writer import CommitPipeline, Prepared, WriteFailed
from studio.keys import load_or_create_key


def pending() -> tuple[PendingRecord, list[int]]:
    released: list[int] = []
    return PendingRecord(None, lambda: released.append(1)), released


def test_a_record_nobody_waited_on_resolves_and_then_reads_as_done() -> None:
    f, released = pending()
    assert not f.done()
    f.set_result("committed")
    assert f.done() and f.result() == "committed" and not released  # nothing held to release
    assert f.exception() is None
    with pytest.raises(InvalidStateError):
        f.set_result("twice")


def test_a_waiter_on_another_thread_is_woken_by_the_result() -> None:
    f, released = pending()
    got: list[Any] = []
    waiter = threading.Thread(target=lambda: got.append(f.result(WAIT_S)))
    waiter.start()
    until(lambda: "_condition" in f.__dict__, "the waiter to wait")
    f.set_result(7)
    waiter.join(WAIT_S)
    assert got == [7] and released  # waiting released the held records first


def test_callbacks_wait_and_asyncio_see_it_as_a_future() -> None:
    f, _ = pending()
    seen: list[Any] = []
    f.add_done_callback(lambda done: seen.append(done.result()))

    async def awaited() -> Any:
        return await asyncio.wrap_future(f)

    loop = asyncio.new_event_loop()
    try:
        task = loop.create_task(awaited())
        loop.call_soon(f.set_result, "durable")
        assert loop.run_until_complete(task) == "durable"
    finally:
        loop.close()
    assert seen == ["durable"]
    g, _ = pending()
    threading.Timer(0.01, g.set_exception, (OSError("disk full"),)).start()
    done, _ = wait([g], timeout=WAIT_S, return_when=FIRST_COMPLETED)
    assert done == {g}
    with pytest.raises(OSError, match="disk full"):
        g.result()


@pytest.mark.parametrize("writer", ["process", "thread"])
def test_appends_off_the_loop_go_in_few_messages_and_become_durable_unwaited(
    tmp_path: Path, writer: str
) -> None:
    committed: list = []
    with no_new_threads():  # the journal-flusher ends with the journal
        j = Journal(tmp_path, load_or_create_key(tmp_path), on_commit=committed.extend, writer=writer)
        sent: list[int] = []
        put = j._sink.put

        def counted(items: list[PendingRecord]) -> None:
            sent.append(len(items))
            put(items)

        j._sink.put = counted  # type: ignore[method-assign]
        try:
            futures = [j.append("device_event", {"i": i}, table_id="t1") for i in range(3000)]
            until(lambda: len(committed) == 3000, "every record durable, though nobody waits")
            assert all(f.done() for f in futures)
            assert [c.seq for c in committed] == list(range(2, 3002))  # in order, after the key record
            assert sum(sent) == 3000 and len(sent) <= 300  # batches (tens of records), not a message a record
        finally:
            j.close()
    assert verify_journal(tmp_path).records == 3001


def test_a_wait_on_a_held_record_sends_it_at_once(tmp_path: Path) -> None:
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    try:
        for i in range(50):
            assert j.append("device_event", {"i": i}, table_id="t1").result(WAIT_S).seq == i + 2
    finally:
        j.close()


class FakeWriter:
    """BatchWriter.commit: records each call; the first waits for `go`, the one named by `fail_on` fails."""

    def __init__(self, fail_on: int | None = None) -> None:
        self.calls: list[list[Prepared]] = []
        self.go = threading.Event()
        self.fail_on = fail_on

    def commit(self, prepared: list[Prepared]) -> None:
        self.calls.append(prepared)
        if len(self.calls) == 1:
            assert self.go.wait(WAIT_S)
        if len(self.calls) == self.fail_on:
            raise OSError("disk full")


def batch(*seqs: int) -> Prepared:
    return Prepared([], [], [(s, None, "{}") for s in seqs])


def test_what_waits_for_the_disk_is_committed_together_and_replied_in_order() -> None:
    writer = FakeWriter()
    replies: list[list] = []
    pipeline = CommitPipeline(writer, replies.append, lambda exc: None)  # type: ignore[arg-type]
    pipeline.put(batch(1))
    until(lambda: writer.calls, "the first commit to start")
    pipeline.put(batch(2))
    pipeline.put(batch(3, 4))
    writer.go.set()
    pipeline.close()
    assert len(writer.calls) == 2 and len(writer.calls[1]) == 2  # 2 and 3-4: one transaction
    assert [[d[0] for d in r] for r in replies] == [[1], [2, 3, 4]]


def test_a_failed_commit_replies_nothing_of_it_and_stops_the_pipeline() -> None:
    writer = FakeWriter(fail_on=2)
    replies: list[list] = []
    failures: list[BaseException] = []
    pipeline = CommitPipeline(writer, replies.append, failures.append)  # type: ignore[arg-type]
    pipeline.put(batch(1))
    until(lambda: writer.calls, "the first commit to start")
    pipeline.put(batch(2))
    writer.go.set()
    until(lambda: failures, "the failure")
    with pytest.raises(WriteFailed):
        pipeline.put(batch(3))
    with pytest.raises(WriteFailed):
        pipeline.close()
    assert [[d[0] for d in r] for r in replies] == [[1]]  # 2 failed, 3 was never committed
    assert isinstance(failures[0], OSError) and len(writer.calls) == 2


def test_a_result_at_an_idle_writer_is_committed_on_its_own_thread_and_a_busy_one_keeps_the_order() -> None:
    writer = FakeWriter()
    writer.go.set()
    threads: list[str] = []
    go = threading.Event()
    commit = writer.commit

    def recording(prepared: list[Prepared]) -> None:
        threads.append(threading.current_thread().name)
        if len(threads) == 2:
            assert go.wait(WAIT_S)
        commit(prepared)

    writer.commit = recording  # type: ignore[method-assign]
    replies: list[list] = []
    pipeline = CommitPipeline(writer, replies.append, lambda exc: None)  # type: ignore[arg-type]
    pipeline.put(batch(1), inline=True)  # idle: here
    pipeline.put(batch(2))  # to the thread, which waits for `go`
    until(lambda: len(threads) == 2, "the thread's commit to start")
    pipeline.put(batch(3), inline=True)  # busy: behind 2, on the thread
    go.set()
    pipeline.close()
    assert threads == [threading.current_thread().name, "journal-commit", "journal-commit"]
    assert [[d[0] for d in r] for r in replies] == [[1], [2], [3]]


@pytest.mark.parametrize("writer", ["process", "thread"])
def test_a_cancelled_wait_for_a_record_leaves_the_journal_working(tmp_path: Path, writer: str) -> None:
    j = Journal(tmp_path, load_or_create_key(tmp_path), writer=writer)
    try:

        async def append_and_cancel() -> None:
            # held until the loop's next iteration: not yet durable when its waiter gives up
            f = j.append("device_event", {"i": 1}, table_id="t1")
            assert f.cancel()
            await asyncio.sleep(0)

        asyncio.run(append_and_cancel())
        # the record was made durable all the same, and the writer's replies still resolve what follows
        assert j.append("device_event", {"i": 2}, table_id="t1").result(WAIT_S).seq == 3
    finally:
        j.close()
    assert verify_journal(tmp_path).records == 3
