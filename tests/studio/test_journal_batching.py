"""What carries records to the journal's writer in batches: a record's light future behaves as a Future, the
appends of other threads reach the writer in few messages and become durable though nobody waits on them, device
lines share a future and keep their place among the records, and fail with the writer, and the writer's commit
thread commits in order, together what waited, and stops at a failed commit."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import FIRST_COMPLETED, InvalidStateError, wait
from pathlib import Path
from typing import Any

import pytest
from thread_leaks import no_new_threads
from waiting import WAIT_S, until

from studio.journal import Journal, JournalClosed, verify_journal
from studio.journal_future import Handed, PendingRecord
from studio.journal_writer import CommitPipeline, Prepared, WriteFailed
from studio.keys import load_or_create_key


def pending() -> tuple[PendingRecord, list[int]]:
    released: list[int] = []
    return PendingRecord(lambda: released.append(1)), released


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

        def counted(batch: Handed) -> None:
            sent.append(len(batch.wires))
            put(batch)

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


@pytest.mark.parametrize("writer", ["process", "thread"])
def test_device_lines_share_a_future_and_keep_their_place_among_records(tmp_path: Path, writer: str) -> None:
    committed: list = []
    # a batch of 110 committed 7 records a transaction: a reply covers part of a batch, or parts of two
    j = Journal(
        tmp_path, load_or_create_key(tmp_path), on_commit=committed.extend, writer=writer, max_batch=7
    )
    try:

        async def callback() -> tuple[list, list]:
            lines, notes = [], []
            for i in range(100):
                lines.append(j.append_line("device_event", {"i": i}, table_id="t1", round_id="r1"))
                if i % 10 == 9:
                    notes.append(j.append("note", {"after": i}, table_id="t1"))
            return lines, notes

        lines, notes = asyncio.run(callback())
        assert len(set(lines)) == 1  # one loop callback, one batch: one future for its lines
        assert lines[0].result(WAIT_S) is None
        assert [f.result(WAIT_S).seq for f in notes] == [
            12 + 11 * k for k in range(10)
        ]  # after the key record
        j.flush()
        assert [c.seq for c in committed] == list(range(2, 112))
        assert [c.kind for c in committed[:11]] == ["device_event"] * 10 + ["note"]
        assert committed[0].body == '{"i":0}' and committed[0].round_id == "r1"
    finally:
        j.close()
    assert verify_journal(tmp_path).records == 111


def test_a_feed_message_ends_the_batch_of_the_lines_before_it(tmp_path: Path) -> None:
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    result_message = {
        "kind": "result",
        "table_id": "t1",
        "game": "european_roulette",
        "round_id": "r1",
        "round_number": 1,
        "version": 1,
        "result": {"number": "7"},
        "outcome": {},
        "reason": None,
        "source": {"type": "device", "device_id": "w1", "serial_number": "S1"},
        "commitment": None,
        "reveal": None,
    }
    try:

        async def callback() -> list:
            before = j.append_line("device_event", {"i": 1}, table_id="t1")
            result = j.append_feed(result_message)
            after = j.append_line("device_event", {"i": 2}, table_id="t1")
            return [before, result, after]

        before, result, after = asyncio.run(callback())
        assert before is not after
        assert before.result(WAIT_S) is None and after.result(WAIT_S) is None
        assert result.result(WAIT_S).seq == 3
    finally:
        j.close()
    assert verify_journal(tmp_path).records == 4


def test_lines_a_dead_writer_did_not_commit_fail_with_it(tmp_path: Path) -> None:
    import os
    import signal

    j = Journal(tmp_path, load_or_create_key(tmp_path))
    try:
        assert j.append_line("device_event", {"i": 0}, table_id="t1").result(WAIT_S) is None
        pid = j._sink.pid  # type: ignore[union-attr]
        os.kill(pid, signal.SIGSTOP)  # it takes nothing more: what follows is handed over, never committed
        try:
            lines = j.append_line("device_event", {"i": 1}, table_id="t1")
            j._release_held()  # handed to the stopped writer
        finally:
            os.kill(pid, signal.SIGKILL)
        with pytest.raises(JournalClosed, match="writer process ended"):
            lines.result(WAIT_S)
        with pytest.raises(JournalClosed):
            j.append_line("device_event", {"i": 2}, table_id="t1")
    finally:
        j.close()
    assert verify_journal(tmp_path).records == 2


def test_a_line_that_is_not_data_stops_the_journal_and_fails_the_lines_held_with_it(tmp_path: Path) -> None:
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    try:

        async def callback() -> tuple:
            held = j.append_line("device_event", {"i": 1}, table_id="t1")
            return held, j.append_line("device_event", {"i": object()}, table_id="t1")

        held, bad = asyncio.run(callback())
        with pytest.raises(TypeError):
            bad.result(WAIT_S)
        with pytest.raises(TypeError):  # held with it: never journaled
            held.result(WAIT_S)
        with pytest.raises(JournalClosed):
            j.append_line("device_event", {"i": 2}, table_id="t1")
    finally:
        j.close()
    assert verify_journal(tmp_path).records == 1
