"""The fast paths of issue 2 (winning number -> feed latency) keep the old behaviour.

* canonical JSON without the Python value walk gives the same bytes and refuses the same values;
* the journal queues what one event-loop callback appends as one batch (one transaction), and a
  caller that blocks on the loop's own thread does not deadlock;
* one shared thread reads every pty-backed serial driver, and is gone once the last one stops.
"""
from __future__ import annotations

import asyncio
import json
import math
import os
import queue
import re
import select
import sqlite3
import threading
import time
import tty
from pathlib import Path
from typing import Any, Iterator

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from devices.events import DeviceConnected, DeviceDisconnected, DeviceEvent, DeviceUnknownMessage
from devices.serial_line import SerialLineDriver
from streaming.canonical import (
    _check_json_value, canonical_json, sign_message, sign_message_text, verify_message,
)
from studio.journal import Journal, check_feed_message, rfc3339, utcnow, verify_journal


@pytest.fixture(autouse=True)
def no_thread_left() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 3.0
    while True:
        left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert not left, f"threads left running: {[t.name for t in left]}"


# --- canonical JSON -------------------------------------------------------------------------


def reference_canonical_json(obj: Any) -> bytes:
    """The implementation before the fast path: walk every value, then dump."""
    _check_json_value(obj, "")
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


ROULETTE_LIKE = {
    "kind": "result", "table_id": "roulette-1", "game": "european_roulette", "round_id": "r-1", "round_number": 7,
    "version": 1, "result": {"number": "17"},
    "outcome": {"number": "17", "colour": "black", "bets": [{"bet": f"split-{i}", "wins": i % 2 == 0, "pays": 17}
                                                            for i in range(40)]},
    "reason": None, "source": {"device_id": "roulette-1/cammegh-ss2", "game_counter": 12},
    "commitment": None, "reveal": None, "occurred_at": "2026-11-29T12:00:00.000000Z",
}

SAME_BYTES = [
    ROULETTE_LIKE,
    {"b": 1, "a": [1, 2.5, -0.0, 1e16, None, True, False], "c": {"z": "zéro 😀", "y": "\u2028\x00\"\\"}},
    {"tuple": (1, (2, 3)), "nested": [(), {}, [[]]]},  # tuples are written as lists
    {"big": 2**70, "neg": -(2**63)},
    [1, "two", {"three": 3}],
    "text", 5, None, True, 1.5,
]


@pytest.mark.parametrize("value", SAME_BYTES, ids=range(len(SAME_BYTES)))
def test_canonical_json_gives_the_bytes_of_the_value_walk(value: Any) -> None:
    assert canonical_json(value) == reference_canonical_json(value)


@pytest.mark.parametrize("bad, exc, where", [
    ({1: "int key at the top of a flat object"}, TypeError, "$"),
    ({"a": [{"b": {1: "int key"}}]}, TypeError, ".a[0].b"),
    ({"a": {None: 1}}, TypeError, ".a"),
    ({"a": {True: 1}}, TypeError, ".a"),
    ({"a": {1.5: 1}}, TypeError, ".a"),
    ({"deep": [[{"x": {2: 3, 4: 5}}]]}, TypeError, ".deep[0][0].x"),
    ({"a": [1, math.nan]}, ValueError, ".a[1]"),
    ({"a": {"b": -math.inf}}, ValueError, ".a.b"),
    ({"a": {1, 2}}, TypeError, ".a"),
    ({"a": b"bytes"}, TypeError, ".a"),
])
def test_canonical_json_refuses_what_the_walk_refuses_and_names_the_place(bad: Any, exc: type, where: str) -> None:
    with pytest.raises(exc, match=re.escape(f"at {where} ")):
        canonical_json(bad)
    with pytest.raises(exc):
        reference_canonical_json(bad)


def test_canonical_json_refuses_lone_surrogates() -> None:
    with pytest.raises(ValueError):
        canonical_json({"a": "\ud800"})


def test_sign_message_text_returns_the_canonical_bytes_of_the_signed_message() -> None:
    key = Ed25519PrivateKey.generate()
    message = dict(ROULETTE_LIKE, seq=1, prev_hash="0" * 64, hash="stale", signature="stale")
    signed, text = sign_message_text(message, key)
    assert text == canonical_json(signed) == reference_canonical_json(signed)
    assert signed == sign_message(message, key)  # Ed25519 is deterministic
    verify_message(signed, key.public_key())
    assert message["hash"] == "stale"  # the input is not changed


# --- journal ----------------------------------------------------------------------------------


def feed_message(i: int) -> dict[str, Any]:
    return dict(ROULETTE_LIKE, round_id=f"r-{i}", round_number=i, occurred_at=rfc3339(utcnow()))


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[tuple[Journal, list[list[Any]]]]:
    batches: list[list[Any]] = []
    j = Journal(tmp_path, Ed25519PrivateKey.generate(), on_commit=batches.append)
    try:
        yield j, batches
    finally:
        j.close()


def test_one_loop_callback_is_one_commit_and_the_result_comes_last(journal: tuple[Journal, list]) -> None:
    j, batches = journal

    async def callback() -> list[Any]:
        # what Table.device_event does for a winning number: the event, two round steps, the result
        futures = [j.append("device_event", {"n": 1}, table_id="t"),
                   j.append("round_state", {"state": "result_pending"}, table_id="t", round_id="r-1"),
                   j.append("round_state", {"state": "certified"}, table_id="t", round_id="r-1")]
        message = feed_message(1)
        check_feed_message(message)
        futures.append(j.append_feed(message, checked=True))
        return [await asyncio.wrap_future(f) for f in futures]

    committed = asyncio.run(callback())
    assert [c.kind for c in committed] == ["device_event", "round_state", "round_state", "result"]
    assert [c.seq for c in committed] == [2, 3, 4, 5]  # record 1 names the key
    j.flush()  # on_commit runs after the futures resolve
    assert [[c.kind for c in b] for b in batches] == [["device_event", "round_state", "round_state", "result"]]
    assert verify_journal(j.path.parent).ok


def test_waiting_on_the_loop_thread_does_not_deadlock(journal: tuple[Journal, list]) -> None:
    j, _ = journal

    async def blocking() -> Any:
        first = j.append("note", {"i": 1}).result(timeout=10)  # blocks the loop: must not wait for it
        j.append("note", {"i": 2})
        j.flush(timeout=10)  # the same, through a barrier
        return first

    assert asyncio.run(blocking()).seq == 2
    with sqlite3.connect(j.path) as db:
        assert db.execute("SELECT COUNT(*) FROM records WHERE kind = 'note'").fetchone() == (2,)


def test_records_from_another_thread_stay_after_what_the_loop_appended(journal: tuple[Journal, list]) -> None:
    j, _ = journal

    async def main() -> None:
        j.append("note", {"who": "loop"})  # held until the next loop iteration ...
        done = threading.Event()

        def other() -> None:
            j.append("note", {"who": "thread"})  # ... but queued before this one
            done.set()

        threading.Thread(target=other).start()
        assert await asyncio.to_thread(done.wait, 10)

    asyncio.run(main())
    j.flush()
    with sqlite3.connect(j.path) as db:
        bodies = [json.loads(b) for (b,) in db.execute("SELECT body FROM records WHERE kind = 'note' ORDER BY seq")]
    assert bodies == [{"who": "loop"}, {"who": "thread"}]


def test_a_large_batch_is_stored_in_order_and_verifies(journal: tuple[Journal, list]) -> None:
    j, batches = journal

    async def burst() -> None:
        for i in range(1200):  # more than one multi-row INSERT
            j.append("round_state", {"i": i}, table_id="t", round_id=f"r-{i % 7}",
                     round_projection={"round_id": f"r-{i % 7}", "table_id": "t", "round_number": i % 7,
                                       "state": "betting_open", "i": i})
        j.append_feed(feed_message(1))

    asyncio.run(burst())
    j.flush()
    assert sum(len(b) for b in batches) == 1201
    report = verify_journal(j.path.parent)
    assert report.ok and report.records == 1202 and report.feed_messages == 1
    # the rounds projection keeps the last state appended for each round
    assert [j.get_round(f"r-{k}")["i"] for k in range(7)] == [max(i for i in range(1200) if i % 7 == k)
                                                              for k in range(7)]


def test_append_feed_still_refuses_an_invalid_message_unless_told_it_was_checked(journal: tuple[Journal, list]) -> None:
    j, _ = journal
    with pytest.raises(ValueError, match="floating-point"):
        j.append_feed(dict(feed_message(1), result={"number": 1.5}))
    assert j.append_feed(feed_message(2), checked=True).result(10).feed_seq == 1


# --- the shared serial reader ------------------------------------------------------------------


class LineDriver(SerialLineDriver):
    kind = "test-lines"

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.threads: set[str] = set()

    def handle_line(self, line: str) -> list[DeviceEvent]:
        self.threads.add(threading.current_thread().name)
        return [DeviceUnknownMessage(device_id=self.device_id, raw=line)]


class Pty:
    def __init__(self) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        os.close(slave)

    def close(self) -> None:
        os.close(self.master)


def wait_for(q: queue.Queue, predicate: Any, timeout: float = 10.0) -> DeviceEvent:
    deadline = time.monotonic() + timeout
    while True:
        event = q.get(timeout=max(0.01, deadline - time.monotonic()))
        if predicate(event):
            return event


def test_one_thread_reads_every_pty_driver_and_ends_with_the_last() -> None:
    ptys = [Pty() for _ in range(3)]
    queues = [queue.Queue() for _ in ptys]
    drivers = [LineDriver(f"d{i}", p.path, q.put) for i, (p, q) in enumerate(zip(ptys, queues))]
    try:
        for d in drivers:
            d.start()
        for q in queues:
            wait_for(q, lambda e: isinstance(e, DeviceConnected))
        for i, p in enumerate(ptys):
            os.write(p.master, f"hello {i}\r\nsecond ".encode())
            os.write(p.master, f"half {i}\n".encode())
        for i, q in enumerate(queues):
            lines = [wait_for(q, lambda e: isinstance(e, DeviceUnknownMessage)).raw for _ in range(2)]
            assert lines == [f"hello {i}", f"second half {i}"]
        assert all(d.threads == {"serial-reader"} for d in drivers)
        assert [t.name for t in threading.enumerate()].count("serial-reader") == 1
        assert all(d.health()["counters"]["lines"] == 2 for d in drivers)
        drivers[0].stop()
        os.write(ptys[1].master, b"still here\r\n")
        assert wait_for(queues[1], lambda e: isinstance(e, DeviceUnknownMessage)).raw == "still here"
    finally:
        for d in drivers:
            d.stop()
        for p in ptys:
            p.close()
    deadline = time.monotonic() + 3
    while any(t.name == "serial-reader" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(t.name == "serial-reader" for t in threading.enumerate())


def test_shared_reader_reconnects_times_out_partial_lines_and_can_be_stopped_from_on_event() -> None:
    pty = Pty()
    events: queue.Queue = queue.Queue()
    stop_now = threading.Event()
    box: list[LineDriver] = []

    def on_event(event: DeviceEvent) -> None:
        events.put(event)
        if isinstance(event, DeviceUnknownMessage) and event.raw == "stop" and not stop_now.is_set():
            stop_now.set()
            box[0].stop()  # on the shared reader thread: must not wait for itself

    driver = LineDriver("d", pty.path, on_event, partial_line_timeout=0.2, silence_timeout=0.5,
                        reconnect_min=0.05, reconnect_max=0.2)
    box.append(driver)
    try:
        driver.start()
        wait_for(events, lambda e: isinstance(e, DeviceConnected))
        os.write(pty.master, b"torn")
        os.write(pty.master, b"\r\n")
        assert wait_for(events, lambda e: isinstance(e, DeviceUnknownMessage)).raw == "torn"
        os.write(pty.master, b"no end")
        lost = wait_for(events, lambda e: isinstance(e, DeviceDisconnected))
        assert "no data" in lost.reason and driver.health()["counters"]["partial_lines_dropped"] == 1
        os.write(pty.master, b"back\r\n")
        wait_for(events, lambda e: isinstance(e, DeviceConnected))  # talking again
        assert wait_for(events, lambda e: isinstance(e, DeviceUnknownMessage)).raw == "back"
        os.write(pty.master, b"stop\r\n")
        wait_for(events, lambda e: isinstance(e, DeviceDisconnected) and e.reason == "stopped")
    finally:
        driver.stop()
        pty.close()
