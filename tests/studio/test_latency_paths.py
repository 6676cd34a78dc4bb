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
import sqlite3
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from thread_leaks import no_new_threads  # tests/ is on sys.path (tests/conftest.py)
from waiting import WAIT_S

from devices.events import DeviceConnected, DeviceDisconnected, DeviceEvent, DeviceUnknownMessage
from devices.serial_line import SerialLineDriver
from streaming.canonical import (
    _check_json_value,
    canonical_json,
    sign_message,
    sign_message_text,
    verify_message,
)
from studio.journal import Journal, check_feed_message, rfc3339, utcnow, verify_journal


@pytest.fixture(autouse=True)
def no_thread_left() -> Iterator[None]:
    with no_new_threads():
        yield


# --- canonical JSON -------------------------------------------------------------------------


def reference_canonical_json(obj: Any) -> bytes:
    """The implementation before the fast path: walk every value, then dump."""
    _check_json_value(obj, "")
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode(
        "utf-8"
    )


ROULETTE_LIKE = {
    "kind": "result",
    "table_id": "roulette-1",
    "game": "european_roulette",
    "round_id": "r-1",
    "round_number": 7,
    "version": 1,
    "result": {"number": "17"},
    "outcome": {
        "number": "17",
        "colour": "black",
        "bets": [{"bet": f"split-{i}", "wins": i % 2 == 0, "pays": 17} for i in range(40)],
    },
    "reason": None,
    "source": {"device_id": "roulette-1/cammegh-ss2", "game_counter": 12},
    "commitment": None,
    "reveal": None,
    "occurred_at": "2026-11-29T12:00:00.000000Z",
}

SAME_BYTES = [
    ROULETTE_LIKE,
    {"b": 1, "a": [1, 2.5, -0.0, 1e16, None, True, False], "c": {"z": "zéro 😀", "y": '\u2028\x00"\\'}},
    {"tuple": (1, (2, 3)), "nested": [(), {}, [[]]]},  # tuples are written as lists
    {"big": 2**70, "neg": -(2**63)},
    [1, "two", {"three": 3}],
    "text",
    5,
    None,
    True,
    1.5,
]


@pytest.mark.parametrize("value", SAME_BYTES, ids=range(len(SAME_BYTES)))
def test_canonical_json_gives_the_bytes_of_the_value_walk(value: Any) -> None:
    assert canonical_json(value) == reference_canonical_json(value)


@pytest.mark.parametrize(
    "bad, exc, where",
    [
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
    ],
)
def test_canonical_json_refuses_what_the_walk_refuses_and_names_the_place(
    bad: Any, exc: type, where: str
) -> None:
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
        futures = [
            j.append("device_event", {"n": 1}, table_id="t"),
            j.append("round_state", {"state": "result_pending"}, table_id="t", round_id="r-1"),
            j.append("round_state", {"state": "certified"}, table_id="t", round_id="r-1"),
        ]
        message = feed_message(1)
        check_feed_message(message)
        futures.append(j.append_feed(message, checked=True))
        return [await asyncio.wrap_future(f) for f in futures]

    committed = asyncio.run(callback())
    assert [c.kind for c in committed] == ["device_event", "round_state", "round_state", "result"]
    assert [c.seq for c in committed] == [2, 3, 4, 5]  # record 1 names the key
    j.flush()  # on_commit runs after the futures resolve
    assert [[c.kind for c in b] for b in batches] == [
        ["device_event", "round_state", "round_state", "result"]
    ]
    assert verify_journal(j.path.parent).ok


def test_a_result_goes_to_the_writer_at_once_and_what_follows_it_in_a_later_batch(
    journal: tuple[Journal, list],
) -> None:
    j, batches = journal

    async def callback() -> bool:
        j.append("round_state", {"state": "certified"}, table_id="t", round_id="r-1")
        message = feed_message(1)
        check_feed_message(message)
        result = j.append_feed(message, checked=True)
        after = j.append("note", {"after": "the result"}, table_id="t")
        deadline = time.monotonic() + WAIT_S
        while not result.done() and time.monotonic() < deadline:  # the loop is blocked: no next iteration
            time.sleep(0.005)  # noqa: ASYNC251 - blocking the loop is the point
        durable_within_the_callback = result.done()
        await asyncio.wrap_future(after)
        return durable_within_the_callback

    assert asyncio.run(callback())
    j.flush()
    assert [[c.kind for c in b] for b in batches] == [["round_state", "result"], ["note"]]


def test_waiting_on_the_loop_thread_does_not_deadlock(journal: tuple[Journal, list]) -> None:
    j, _ = journal

    async def blocking() -> Any:
        first = j.append("note", {"i": 1}).result(timeout=WAIT_S)  # blocks the loop: must not wait for it
        j.append("note", {"i": 2})
        j.flush(timeout=WAIT_S)  # the same, through a barrier
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
        bodies = [
            json.loads(b) for (b,) in db.execute("SELECT body FROM records WHERE kind = 'note' ORDER BY seq")
        ]
    assert bodies == [{"who": "loop"}, {"who": "thread"}]


def test_a_large_batch_is_stored_in_order_and_verifies(journal: tuple[Journal, list]) -> None:
    j, batches = journal

    async def burst() -> None:
        for i in range(1200):  # more than one multi-row INSERT
            j.append(
                "round_state",
                {"i": i},
                table_id="t",
                round_id=f"r-{i % 7}",
                round_projection={
                    "round_id": f"r-{i % 7}",
                    "table_id": "t",
                    "round_number": i % 7,
                    "state": "betting_open",
                    "i": i,
                },
            )
        j.append_feed(feed_message(1))

    asyncio.run(burst())
    j.flush()
    assert sum(len(b) for b in batches) == 1201
    report = verify_journal(j.path.parent)
    assert report.ok and report.records == 1202 and report.feed_messages == 1
    # the rounds projection keeps the last state appended for each round
    assert [j.get_round(f"r-{k}")["i"] for k in range(7)] == [
        max(i for i in range(1200) if i % 7 == k) for k in range(7)
    ]


def test_append_feed_still_refuses_an_invalid_message_unless_told_it_was_checked(
    journal: tuple[Journal, list],
) -> None:
    j, _ = journal
    with pytest.raises(ValueError, match="floating-point"):
        j.append_feed(dict(feed_message(1), result={"number": 1.5}))
    assert j.append_feed(feed_message(2), checked=True).result(10).feed_seq == 1


def full_feed_check(message: dict[str, Any]) -> None:
    """check_feed_message before its fast path: the schema (with its Python portability walk), then canonical JSON."""
    from pydantic import ValidationError

    from streaming.messages import FeedMessage
    from studio.journal import _PLACEHOLDERS

    probe = {"occurred_at": rfc3339(utcnow()), **message, **_PLACEHOLDERS}
    try:
        FeedMessage.model_validate(probe)
        canonical_json(probe)
    except (ValidationError, TypeError) as exc:
        raise ValueError(str(exc)) from None


REVEAL = {"extras": {"side": 3}, "nonce": "ab" * 16}
FEED_CASES = [
    {},
    {"result": {"number": 1.5}},
    {"outcome": {"bets": [{"pays": 2**53}]}},
    {"outcome": {"bets": [{"pays": 2**53 - 1}]}},
    {"outcome": {"bets": [-(2**53)]}},
    {"source": {"ms": 1e16}},
    {"source": {"text": "1.5e16 and 12345678901234567"}},
    {"outcome": {"nan": float("nan")}},
    {"outcome": {1: "int key"}},
    {"outcome": {"deep": {2: "int key"}}},
    {"outcome": {"t": (1, 2.0)}},
    {"outcome": {"odd": object()}},
    {"version": 1.0},
    {"version": 1.5},
    {"reveal": REVEAL},
    {"reveal": dict(REVEAL, extras={"side": 0.5})},
    {"reveal": dict(REVEAL, extras={"big": 2**60})},
    {"outcome": {"flag": True, "none": None, "neg": -7, "s": '\\"0.5\\'}},
    {"result": None},
    {"kind": "void", "reason": {"code": "x", "message": "y"}, "result": None, "outcome": None},
    {
        "kind": "decision_window",
        "result": None,
        "outcome": None,
        "window": "w",
        "seat": "1",
        "hand": 1,
        "allowed": ["hit"],
        "default": "hit",
        "detail": {"total": 1.5},
        "deadline": "2026-11-29T12:00:00.000000Z",
    },
    {
        "kind": "decision_window",
        "result": None,
        "outcome": None,
        "window": "w",
        "seat": "1",
        "hand": 1,
        "allowed": ["hit"],
        "default": "hit",
        "detail": {"total": 15},
        "deadline": "2026-11-29T12:00:00.000000Z",
    },
]


@pytest.mark.parametrize("change", FEED_CASES, ids=range(len(FEED_CASES)))
def test_check_feed_message_accepts_and_refuses_what_the_full_check_does(change: dict[str, Any]) -> None:
    message = dict(ROULETTE_LIKE, **change)
    try:
        full_feed_check(message)
    except ValueError as exc:
        with pytest.raises(ValueError) as got:
            check_feed_message(message)
        assert str(exc).splitlines()[-1].split("[")[0].strip() in str(got.value)  # the full check's words
    else:
        check_feed_message(message)


def test_check_feed_message_takes_its_fast_path_for_a_plain_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path skips the schema's Python walk of the free-form values; the placeholders for what the writer
    fills in (hash, prev_hash) once held 64 zeros, a "long number" that sent every message down the slow path."""
    from streaming import messages

    walked: list[str] = []
    walk = messages._check_portable

    def counting(value: Any, path: str) -> None:
        walked.append(path)
        walk(value, path)

    monkeypatch.setattr(messages, "_check_portable", counting)
    check_feed_message(dict(ROULETTE_LIKE))
    assert walked and all("." not in p and "[" not in p for p in walked), (
        walked
    )  # top-level (emptied) values only
    walked.clear()
    with pytest.raises(ValueError, match="floating-point"):
        check_feed_message(dict(ROULETTE_LIKE, outcome={"bets": [{"pays": 1.5}]}))
    assert any(p.startswith("outcome.") for p in walked)  # a refusal is the full check's, with its words


def test_round_state_and_its_projection_share_one_text_and_read_back_without_the_step_keys(
    tmp_path: Path,
) -> None:
    from studio.config import build_game
    from studio.rounds import Round
    from studio.table import Table

    j = Journal(tmp_path, Ed25519PrivateKey.generate())
    try:
        table = Table("roulette-1", build_game("european_roulette", {}), j)
        r = Round(
            round_id="r-1",
            table_id="roulette-1",
            game="european_roulette",
            round_number=1,
            opened_at=utcnow(),
        )
        table.round = r
        table.lifecycle.step(r.close_betting(), "close_betting", by="dealer")
        table.lifecycle.step(table.round.start_play(), "start_play")
        table.lifecycle.take_result(
            {"number": 17}, {"type": "device", "device_id": "roulette-1/ss2", "game_counter": 4}
        )
        j.flush()
        assert table.round.state.value == "certified"
        assert j.get_round("r-1") == j.last_round("roulette-1") == table.round.projection()
        assert Round.model_validate(j.get_round("r-1")) == table.round
        steps = [rec["data"] for rec in j.round_records("r-1") if rec["kind"] == "round_state"]
        assert [(d["transition"], d.get("by"), d["state"]) for d in steps] == [
            ("close_betting", "dealer", "betting_closed"),
            ("start_play", None, "in_play"),
            ("result_pending", None, "result_pending"),
            ("certify", None, "certified"),
        ]
        assert {k: v for k, v in steps[-1].items() if k != "transition"} == table.round.projection()
        db = sqlite3.connect(tmp_path / "journal.sqlite3")
        try:
            (stored,) = db.execute("SELECT body FROM rounds WHERE round_id = 'r-1'").fetchone()
            (last,) = db.execute(
                "SELECT body FROM records WHERE kind = 'round_state' ORDER BY seq DESC"
            ).fetchone()
        finally:
            db.close()
        assert stored == last  # one serialisation for both
        # a projection given as its own value is stored as itself
        j.append(
            "round_state",
            {"transition": "x"},
            round_projection=dict(table.round.projection(), round_id="r-2"),
        )
        j.flush()
        assert j.get_round("r-2") == dict(table.round.projection(), round_id="r-2")
    finally:
        j.close()
    assert verify_journal(tmp_path).ok


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
    deadline = time.monotonic() + WAIT_S
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

    driver = LineDriver(
        "d",
        pty.path,
        on_event,
        partial_line_timeout=0.2,
        silence_timeout=0.5,
        reconnect_min=0.05,
        reconnect_max=0.2,
    )
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


# --- serial ports read on the event loop (read_on_loop) -----------------------------------------------


def test_ports_read_on_the_loop_reconnect_time_out_partial_lines_and_stop_from_the_loop() -> None:
    pty, other = Pty(), Pty()
    events: asyncio.Queue = asyncio.Queue()
    threads: set[str] = set()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        box: list[LineDriver] = []

        def on_event(event: DeviceEvent) -> None:  # from the loop (lines) or the driver's thread (connects)
            threads.add("loop" if asyncio._get_running_loop() is loop else threading.current_thread().name)
            loop.call_soon_threadsafe(events.put_nowait, event)
            if isinstance(event, DeviceUnknownMessage) and event.raw == "stop":
                box[0].stop()  # on the loop: must neither deadlock nor leave the port registered

        async def next_event(predicate: Any) -> DeviceEvent:
            while True:
                event = await asyncio.wait_for(events.get(), 10)
                if predicate(event):
                    return event

        driver = LineDriver(
            "d",
            pty.path,
            on_event,
            partial_line_timeout=0.2,
            silence_timeout=0.5,
            reconnect_min=0.05,
            reconnect_max=0.2,
        )
        box.append(driver)
        driver.read_on_loop(loop)
        driver.start()
        second = LineDriver("d2", other.path, lambda e: None)
        second.read_on_loop(loop)
        second.start()
        try:
            await next_event(lambda e: isinstance(e, DeviceConnected))
            os.write(pty.master, b"torn")
            await asyncio.sleep(0.05)
            os.write(pty.master, b"\r\nnext\n")
            assert (await next_event(lambda e: isinstance(e, DeviceUnknownMessage))).raw == "torn"
            assert (await next_event(lambda e: isinstance(e, DeviceUnknownMessage))).raw == "next"
            assert driver.threads == {threading.current_thread().name}  # handle_line ran on the loop
            assert not any(t.name == "serial-reader" for t in threading.enumerate())
            os.write(pty.master, b"no end")
            lost = await next_event(lambda e: isinstance(e, DeviceDisconnected))
            assert "no data" in lost.reason and driver.health()["counters"]["partial_lines_dropped"] == 1
            os.write(pty.master, b"back\r\n")
            await next_event(lambda e: isinstance(e, DeviceConnected))  # talking again
            assert (await next_event(lambda e: isinstance(e, DeviceUnknownMessage))).raw == "back"
            fd = driver._link.fd  # type: ignore[union-attr]
            os.write(pty.master, b"stop\r\n")
            await next_event(lambda e: isinstance(e, DeviceDisconnected) and e.reason == "stopped")
            assert not driver.connected and driver._link is None
            assert fd not in loop._selector.get_map()  # type: ignore[attr-defined]
            assert second.connected  # the other port is still read
        finally:
            await asyncio.to_thread(second.stop)  # from another thread while the loop runs
            driver.stop()
        assert not loop._selector.get_map().keys() & {fd}  # type: ignore[attr-defined]

    try:
        asyncio.run(main())
    finally:
        pty.close()
        other.close()
    assert "loop" in threads


def test_a_port_read_on_the_loop_reports_its_vanished_device_and_stops_cleanly() -> None:
    pty = Pty()
    got: queue.Queue[DeviceEvent] = queue.Queue()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        driver = LineDriver("d", pty.path, got.put, reconnect_min=0.05, reconnect_max=0.1)
        driver.read_on_loop(loop)
        driver.start()
        try:
            await asyncio.to_thread(wait_for, got, lambda e: isinstance(e, DeviceConnected))
            os.write(pty.master, b"one\r\n")
            assert (
                await asyncio.to_thread(wait_for, got, lambda e: isinstance(e, DeviceUnknownMessage))
            ).raw == "one"
            os.close(pty.master)  # the pty goes away: EIO on the slave, then it cannot be opened
            pty.master = -1
            lost = await asyncio.to_thread(wait_for, got, lambda e: isinstance(e, DeviceDisconnected))
            assert "read failed" in lost.reason
            assert driver.health()["counters"]["disconnects"] == 1
        finally:
            await asyncio.to_thread(driver.stop)

    try:
        asyncio.run(main())
    finally:
        if pty.master >= 0:
            pty.close()
