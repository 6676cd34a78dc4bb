"""CammeghSS2Driver / SerialLineDriver over real ports: ptys, a TCP socket, loop:// and spy://."""

from __future__ import annotations

import os
import random
import socket
import threading
import time
from datetime import UTC, datetime

import pytest
from waiting import WAIT_S, until

from devices.base import DeviceNotConnected
from devices.events import (
    DeviceConnected,
    DeviceDisconnected,
    DeviceUnknownMessage,
    WheelReply,
    WheelResult,
    WheelStatus,
    WheelWarning,
)
from devices.registry import driver_class
from devices.roulette.cammegh_ss2 import FLAG_WARNINGS, PHASES, CammeghSS2Driver

STATE = {phase: n for n, phase in PHASES.items()}


def state(e) -> int:
    """The SS2 state a neutral status was mapped from."""
    return STATE[e.phase]


def flags(e) -> int:
    """The SS2 warning flags a neutral status was mapped from."""
    return sum(int(bit) for bit, code in FLAG_WARNINGS if code in e.warnings)


FAST = {"reconnect_min": 0.02, "reconnect_max": 0.2}


def start(url, events, **options) -> CammeghSS2Driver:
    driver = CammeghSS2Driver("wheel-1", url, events, **{**FAST, **options})
    driver.start()
    return driver


@pytest.fixture
def drivers():
    made: list[CammeghSS2Driver] = []
    yield made
    for d in made:
        d.stop()


def driver_threads(driver) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == driver.thread_name]


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


# -- basic flow over a pty ---------------------------------------------------------------------


def test_registry_builds_this_driver():
    assert driver_class("cammegh-ss2") is CammeghSS2Driver
    assert CammeghSS2Driver.kind == "cammegh-ss2" and CammeghSS2Driver.baudrate == 9600


def test_events_flow_from_a_pty(make_wheel, events, drivers, capture_bytes):
    wheel = make_wheel()
    drivers.append(d := start(wheel.path, events))
    connected = events.wait_kind("device_connected")
    assert connected.port == wheel.path and d.connected
    # the first game of the capture (L1-L85), in awkward chunks
    first_game = b"\r\n".join(capture_bytes.split(b"\r\n")[:85]) + b"\r\n"
    for i in range(0, len(first_game), 37):
        wheel.write(first_game[i : i + 37])
    result = events.wait_kind("wheel_result")
    assert (result.game_counter, result.number, result.raw) == (11, "27", "27")
    status = events.wait_kind("wheel_status", phase="winning_number")
    assert status.game_counter == 11 and status.last_number == "27"
    seen = [(e.kind, state(e) if isinstance(e, WheelStatus) else None) for e in events.seen]
    assert seen[:3] == [("device_connected", None), ("wheel_reply", None), ("wheel_reply", None)]
    assert [s for k, s in seen if k == "wheel_status"] == [1, 2, 2, 3, 4, 5]
    assert all(e.at.tzinfo is not None for e in events.seen)

    h = d.health()
    assert h["connected"] is True and h["url"] == wheel.path and h["kind"] == "cammegh-ss2"
    assert h["last_line"] == "*X;5;011;27;0;136;1"
    assert datetime.fromisoformat(h["last_line_at"]).utcoffset().total_seconds() == 0
    assert h["counters"]["lines"] == 85 and h["counters"]["unknown_lines"] == 0
    assert (h["device"]["state"], h["device"]["game_counter"], h["device"]["flags"]) == (5, 11, 0)


def test_thread_is_a_daemon_named_after_the_device(make_wheel, events, drivers):
    wheel = make_wheel()
    drivers.append(d := start(wheel.path, events))
    events.wait_kind("device_connected")
    (thread,) = driver_threads(d)
    assert thread.name == "cammegh-ss2:wheel-1" and thread.daemon


def test_commands_write_the_exact_bytes(make_wheel, events, drivers):
    wheel = make_wheel()
    drivers.append(d := start(wheel.path, events))
    events.wait_kind("device_connected")
    d.power(True)
    d.power(False)
    d.reset()
    d.start_game()
    d.start_game("clockwise")
    d.start_game("counterclockwise")
    d.set_mode(1159)
    d.self_test()
    d.poll_status()
    d.send("*T S")
    expected = b"*P 1\r\n*P 0\r\n*R\r\n*K\r\n*u 1\r\n*u 3\r\n*o 1159\r\n*F\r\n*X\r\n*T S\r\n"
    assert wheel.read_exactly(len(expected)) == expected
    assert wheel.read_available() == b""
    assert d.health()["counters"]["commands_sent"] == 10


def test_bad_commands_are_refused_before_writing(make_wheel, events, drivers):
    wheel = make_wheel()
    drivers.append(d := start(wheel.path, events))
    events.wait_kind("device_connected")
    for bad in ["*P 1\r\n", "*P\n1", "*P é"]:
        with pytest.raises(ValueError):
            d.send(bad)
    with pytest.raises(ValueError):
        d.start_game("sideways")  # type: ignore[arg-type]
    for mode in [-1, 65536, "1159", True]:
        with pytest.raises(ValueError):
            d.set_mode(mode)  # type: ignore[arg-type]
    assert wheel.read_available() == b""


def test_poll_status_is_rate_limited(make_wheel, events, drivers):
    wheel = make_wheel()
    drivers.append(d := start(wheel.path, events))
    events.wait_kind("device_connected")
    t0 = time.monotonic()
    for _ in range(3):
        d.poll_status()
    assert time.monotonic() - t0 >= 0.2  # 3 polls, >= 100 ms apart
    assert wheel.read_exactly(12) == b"*X\r\n" * 3


def test_the_wheels_count_of_rim_reports_comes_through_the_port_and_a_poll_voids_it(
    make_wheel, events, drivers
):
    def line(state: int) -> bytes:
        return f"*X;{state};011;34;0;150;1\r\n".encode()

    wheel = make_wheel()
    drivers.append(d := start(wheel.path, events))
    events.wait_kind("device_connected")
    wheel.write(line(5) + line(2) + line(3) * 4 + line(4))  # all in one write: read in one go, one time
    nmb = events.wait_kind("wheel_status", phase="no_more_bets")
    assert (nmb.previous_phase_reports, nmb.report_period_ms) == (4, 500)
    d.poll_status()
    assert wheel.read_exactly(4) == b"*X\r\n"
    wheel.write(line(4) + line(5) + line(2) + line(3) * 3 + line(4))  # the first line answers the poll
    assert events.wait_kind("wheel_status", phase="winning_number").previous_phase_reports is None
    assert events.wait_kind("wheel_status", phase="no_more_bets").previous_phase_reports == 3


def test_self_test_answers_are_marked(make_wheel, events, drivers):
    wheel = make_wheel()
    drivers.append(d := start(wheel.path, events))
    events.wait_kind("device_connected")
    d.self_test()
    assert wheel.read_exactly(4) == b"*F\r\n"
    assert d.health()["device"]["self_test_pending"] is True
    wheel.write(b"*F 21\r\n*F 22\r\n*X;6;017; 0;0;000;0\r\n*F 4\r\n")
    faults = [events.wait_kind("wheel_warning") for _ in range(3)]
    assert [(int(f.vendor_code), f.self_test) for f in faults] == [(21, True), (22, True), (4, False)]


def test_send_when_down_raises(events, tmp_path):
    d = CammeghSS2Driver("wheel-1", str(tmp_path / "absent"), events, **FAST)
    with pytest.raises(DeviceNotConnected):
        d.send("*P 1")
    d.start()
    try:
        events.wait_kind("device_disconnected")
        with pytest.raises(DeviceNotConnected):
            d.power(True)
        with pytest.raises(DeviceNotConnected):
            d.self_test()
        assert d.health()["device"]["self_test_pending"] is False  # a failed send leaves no mark
    finally:
        d.stop()
    with pytest.raises(DeviceNotConnected):
        d.send("*P 1")


# -- garbage and callback errors -------------------------------------------------------------


def test_garbage_over_a_pty_is_counted_and_valid_lines_still_arrive(make_wheel, events, drivers):
    wheel = make_wheel()
    drivers.append(d := start(wheel.path, events, max_line=64))
    events.wait_kind("device_connected")
    rng = random.Random(5)
    wheel.write(rng.randbytes(3000))
    wheel.write(b"A" * 500)  # a long line with no newline
    wheel.write(b"\r\n\xff\xfeno\r\n*X;4;01")  # non-ASCII line, then a half status line
    wheel.write(b"\r\n*X;4;011;34;0;136;1\r\n")
    status = events.wait_kind("wheel_status")
    assert (state(status), status.game_counter) == (4, 11)
    unknown = [e for e in events.seen if isinstance(e, DeviceUnknownMessage)]
    assert "\ufffd\ufffdno" in [e.raw for e in unknown]
    assert "*X;4;01" in [e.raw for e in unknown]
    c = d.health()["counters"]
    assert c["garbage_bytes"] >= 500 and c["overlong_lines"] >= 1 and c["decode_errors"] >= 1
    assert c["unknown_lines"] == len(unknown)
    assert d.connected


def test_a_silent_partial_line_is_dropped(make_wheel, events, drivers):
    wheel = make_wheel()
    drivers.append(d := start(wheel.path, events, partial_line_timeout=0.15))
    events.wait_kind("device_connected")
    wheel.write(b"*X;4;01")  # torn by a wheel reset, say
    deadline = time.monotonic() + WAIT_S
    while d.health()["counters"]["partial_lines_dropped"] == 0:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    wheel.write(b"*X;4;011;34;0;136;1\r\n")
    status = events.wait_kind("wheel_status")
    assert status.raw == "*X;4;011;34;0;136;1"
    assert d.health()["counters"]["garbage_bytes"] == 7


def test_exceptions_in_on_event_and_handle_line_are_counted_not_fatal(make_wheel, events):
    class Flaky(CammeghSS2Driver):
        def handle_line(self, line):
            if line == "boom":
                raise RuntimeError("parser bug")
            return super().handle_line(line)

    calls = []

    def sink(event):
        calls.append(event)
        if isinstance(event, WheelReply):
            raise RuntimeError("consumer bug")
        events(event)

    wheel = make_wheel()
    d = Flaky("wheel-1", wheel.path, sink, **FAST)
    d.start()
    try:
        events.wait_kind("device_connected")
        wheel.write(b"*P OK\r\nboom\r\n*X;4;011;34;0;136;1\r\n")
        events.wait_kind("wheel_status")
        unknown = [e for e in events.seen if isinstance(e, DeviceUnknownMessage)]
        assert [e.raw for e in unknown] == ["boom"]  # the line is still journaled
        c = d.health()["counters"]
        assert (c["handler_errors"], c["callback_errors"]) == (1, 1)
        assert driver_threads(d) and d.connected
    finally:
        d.stop()


# -- losing and finding the port ---------------------------------------------------------------


def test_unplug_and_replug_through_a_symlink(make_wheel, events, drivers, tmp_path):
    link = tmp_path / "wheel"
    first = make_wheel()
    link.symlink_to(first.path)
    drivers.append(d := start(str(link), events))
    assert events.wait_kind("device_connected").port == str(link)
    first.write(b"*X;4;011;34;0;136;1\r\n")
    events.wait_kind("wheel_status")

    # unplug: the by-id link goes away (as udev does) and the port dies under the reader.
    # The link goes first so that the driver cannot reopen a /dev/pts/N that another
    # test or process gets next (pty numbers are reused at once).
    link.unlink()
    first.unplug()
    gone = events.wait_kind("device_disconnected")
    assert "read failed" in gone.reason
    assert not d.connected
    with pytest.raises(DeviceNotConnected):
        d.send("*X")
    until(lambda: d.health()["counters"]["open_failures"] >= 2, "failed reopen attempts")
    assert [e.kind for e in events.drain()].count("device_disconnected") == 0  # reported once, counted

    second = make_wheel()  # plug the wheel back in: the link points at a new pty
    tmp = tmp_path / "wheel.new"
    tmp.symlink_to(second.path)
    os.replace(tmp, link)
    events.wait_kind("device_connected")
    second.write(b"*X;4;011;34;0;140;1\r\n27\r\n*X;5;011;27;0;136;1\r\n")
    again = events.wait_kind("wheel_status")  # re-emitted after the reconnect
    assert (state(again), again.game_counter) == (4, 11)
    assert events.wait_kind("wheel_result").number == "27"
    d.power(True)
    assert second.read_exactly(6) == b"*P 1\r\n"
    h = d.health()
    assert h["connected"] and h["counters"]["reconnects"] == 1 and h["counters"]["disconnects"] == 1


def test_missing_port_is_reported_once_then_found(events, drivers, make_wheel, tmp_path):
    link = tmp_path / "ttyWheel"
    drivers.append(d := start(str(link), events))
    down = events.wait_kind("device_disconnected")
    assert "cannot open" in down.reason
    until(lambda: d.health()["counters"]["open_failures"] >= 2, "a second failed open")
    assert not [e for e in events.drain() if isinstance(e, DeviceDisconnected)]
    wheel = make_wheel()
    link.symlink_to(wheel.path)
    events.wait_kind("device_connected")
    assert d.health()["counters"]["reconnects"] == 0  # first successful connection


def test_backoff_grows_to_the_maximum(events, tmp_path):
    d = CammeghSS2Driver("wheel-1", str(tmp_path / "absent"), events, reconnect_min=0.01, reconnect_max=0.08)
    d.start()
    try:
        deadline = time.monotonic() + WAIT_S
        while d.health()["counters"]["open_failures"] < 6:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert d.health()["reconnect_delay"] == 0.08
    finally:
        d.stop()


def test_socket_url_against_a_local_tcp_server(events, drivers, capture_bytes):
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(WAIT_S)
    port = server.getsockname()[1]
    try:
        drivers.append(d := start(f"socket://127.0.0.1:{port}", events))
        conn, _ = server.accept()
        with conn:
            events.wait_kind("device_connected")
            conn.sendall(capture_bytes)
            assert events.wait_kind("wheel_status", phase="closed").game_counter == 17
            assert [e.number for e in events.seen if isinstance(e, WheelResult)] == [
                "27",
                "16",
                "6",
                "3",
                "10",
                "0",
            ]
            d.power(False)
            conn.settimeout(WAIT_S)
            assert conn.recv(100) == b"*P 0\r\n"
        # the server hangs up: the driver notices and dials again
        assert "socket disconnected" in events.wait_kind("device_disconnected").reason
        conn2, _ = server.accept()
        with conn2:
            events.wait_kind("device_connected")
            conn2.sendall(b"*P OK\r\n")
            assert events.wait_kind("wheel_reply").text == "OK"
    finally:
        server.close()


def test_loop_url_reads_back_what_it_sends(events, drivers):
    drivers.append(d := start("loop://", events))
    events.wait_kind("device_connected")
    d.power(True)
    echo = events.wait_kind("wheel_reply")
    assert (echo.command, echo.text, echo.raw) == ("P", "1", "*P 1")


def test_spy_url_writes_a_wire_trace(make_wheel, events, drivers, tmp_path):
    wheel = make_wheel()
    trace = tmp_path / "trace.txt"
    drivers.append(d := start(f"spy://{wheel.path}?file={trace}", events))
    events.wait_kind("device_connected")
    d.reset()
    assert wheel.read_exactly(4) == b"*R\r\n"
    wheel.write(b"*R OK\r\n")
    events.wait_kind("wheel_reply")
    d.stop()
    text = trace.read_text()
    assert "TX   0000  2A 52 0D 0A" in text  # what we sent, as hex
    assert "R OK" in text and " RX " in text  # what the wheel sent


# -- stopping ---------------------------------------------------------------------------------------


def test_stop_is_idempotent_joins_the_thread_and_leaks_nothing(make_wheel, events):
    wheel = make_wheel()
    fds_before = open_fds()
    d = CammeghSS2Driver("wheel-1", wheel.path, events, **FAST)
    d.stop()  # before start: fine
    d.start()
    d.start()  # twice: still one thread
    events.wait_kind("device_connected")
    assert len(driver_threads(d)) == 1
    assert open_fds() > fds_before  # the port is open
    d.stop()
    d.stop()
    assert driver_threads(d) == []
    assert not d.connected
    assert events.wait_kind("device_disconnected").reason == "stopped"
    assert open_fds() == fds_before
    with pytest.raises(DeviceNotConnected):
        d.send("*X")


def test_stop_while_the_port_is_missing_is_prompt(events, tmp_path):
    d = CammeghSS2Driver("wheel-1", str(tmp_path / "absent"), events, reconnect_min=600, reconnect_max=600)
    d.start()
    events.wait_kind("device_disconnected")
    t0 = time.monotonic()
    d.stop()
    assert time.monotonic() - t0 < WAIT_S  # not the 600 s backoff
    assert driver_threads(d) == []


def test_stop_from_inside_the_callback_does_not_deadlock(make_wheel, events):
    wheel = make_wheel()
    box: dict = {}

    def sink(event):
        events(event)
        if isinstance(event, WheelStatus):
            box["driver"].stop()

    d = box["driver"] = CammeghSS2Driver("wheel-1", wheel.path, sink, **FAST)
    d.start()
    events.wait_kind("device_connected")
    wheel.write(b"*X;4;011;34;0;136;1\r\n")
    events.wait_kind("device_disconnected")
    deadline = time.monotonic() + WAIT_S
    while driver_threads(d):
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_context_manager_starts_and_stops(make_wheel, events):
    wheel = make_wheel()
    with CammeghSS2Driver("wheel-1", wheel.path, events, **FAST) as d:
        events.wait_kind("device_connected")
        wheel.write(b"*F 4\r\n")
        assert isinstance(events.wait_kind("wheel_warning"), WheelWarning)
    assert driver_threads(d) == [] and not d.connected


def test_events_are_stamped_in_utc(make_wheel, events, drivers):
    wheel = make_wheel()
    before = datetime.now(UTC)
    drivers.append(start(wheel.path, events))
    event = events.wait_kind("device_connected")
    assert isinstance(event, DeviceConnected)
    assert event.at.utcoffset().total_seconds() == 0 and event.at >= before


def test_a_silent_wheel_is_reported_lost_and_found_again(tmp_path):
    """Mains power off leaves the serial line open but silent: the driver must notice."""
    import os as _os
    import queue as _queue
    import tty as _tty

    from devices.events import DeviceConnected, DeviceDisconnected, WheelStatus
    from devices.roulette.cammegh_ss2 import CammeghSS2Driver

    master, slave = _os.openpty()
    _tty.setraw(master)
    _tty.setraw(slave)
    events: _queue.Queue = _queue.Queue()
    driver = CammeghSS2Driver("w1", _os.ttyname(slave), events.put, silence_timeout=0.3)
    driver.start()
    try:

        def next_of(kind, timeout=WAIT_S):
            import time as _t

            deadline = _t.monotonic() + timeout
            while _t.monotonic() < deadline:
                try:
                    e = events.get(timeout=0.05)
                except _queue.Empty:
                    continue
                if isinstance(e, kind):
                    return e
            raise AssertionError(f"no {kind.__name__}")

        next_of(DeviceConnected)
        _os.write(master, b"*X;2;011;27;0;150;0\r\n")
        assert state(next_of(WheelStatus)) == 2
        lost = next_of(DeviceDisconnected)  # nothing more is written: silence
        assert "no data" in lost.reason and driver.health()["silent"]
        _os.write(master, b"*X;6;001;  ;0;000;0\r\n")
        assert next_of(DeviceConnected).port == driver.url
        assert state(next_of(WheelStatus)) == 6
        assert not driver.health()["silent"] and driver.health()["counters"]["silences"] == 1
    finally:
        driver.stop()
        _os.close(master)
        _os.close(slave)


def test_keep_powered_switches_an_idle_wheel_on_when_the_link_comes_up():
    import os as _os
    import queue as _queue
    import time as _time
    import tty as _tty

    from devices.roulette.cammegh_ss2 import CammeghSS2Driver

    for keep, expected in ((True, b"*P 1\r\n"), (False, b"")):
        master, slave = _os.openpty()
        _tty.setraw(master)
        _tty.setraw(slave)
        events: _queue.Queue = _queue.Queue()
        driver = CammeghSS2Driver("w1", _os.ttyname(slave), events.put, keep_powered=keep)
        driver.start()
        try:
            deadline = _time.monotonic() + 3
            while not driver.connected and _time.monotonic() < deadline:
                _time.sleep(0.01)
            _os.write(master, b"*X;6;001;  ;0;000;0\r\n*X;6;001;  ;0;000;0\r\n")
            _os.set_blocking(master, False)
            got = b""
            deadline = _time.monotonic() + (1.0 if keep else 0.3)
            while _time.monotonic() < deadline and len(got) < len(expected or b"x"):
                try:
                    got += _os.read(master, 64)
                except BlockingIOError:
                    _time.sleep(0.01)
            assert got == expected  # once, not once per idle status line
        finally:
            driver.stop()
            _os.close(master)
            _os.close(slave)
