"""Floods on a serial line: socket:// is read in chunks, garbage holds the device, a port is opened once.

Real transports: a TCP server on 127.0.0.1 behind ``socket://``, ptys for the device paths.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import tty
from collections.abc import Iterator

import pytest
from event_log import EventLog
from waiting import WAIT_S, until

from devices.roulette.cammegh_ss2 import CammeghSS2Driver
from devices.serial_line import PORT_IN_USE

#: a status line of the SS2 (§3.1 of the protocol notes); the spin number makes every line new
_LINE = "*X;2;{:03d};27;0;150;0\r\n"


def _status_lines(total_bytes: int) -> bytes:
    out = bytearray()
    n = 0
    while len(out) < total_bytes:
        out += _LINE.format(n % 256 + 1).encode()
        n += 1
    return bytes(out)


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, str]]:
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    try:
        yield master, os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


def test_socket_url_is_read_in_chunks(events: EventLog) -> None:
    """256 KiB of valid lines over socket:// arrive whole, many bytes per read (pyserial's socket handler says
    at most one byte is waiting: a read per byte took a minute for this)."""
    payload = _status_lines(256 * 1024)
    lines = payload.count(b"\n")
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    sent = threading.Event()

    connected = threading.Event()

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            # pyserial empties the socket as it opens it: what came before the open would be lost
            connected.wait(WAIT_S)
            conn.sendall(payload)
            sent.set()
            conn.recv(1)  # keep the link up until the driver closes it

    threading.Thread(target=serve, daemon=True).start()
    driver = CammeghSS2Driver("w1", f"socket://127.0.0.1:{port}", events, silence_timeout=None)
    driver.start()
    try:
        events.wait_kind("device_connected")
        started = time.monotonic()
        connected.set()
        until(lambda: driver.health()["counters"]["lines"] >= lines, what=f"{lines} lines over socket://")
        elapsed = time.monotonic() - started
        counters = driver.health()["counters"]
        assert counters["bytes_in"] == len(payload)
        assert counters["unknown_lines"] == 0
        # a read per byte would be ~270,000 reads; chunks of what has come are a few hundred at most
        assert counters["bytes_in"] / counters["reads"] >= 64, counters
        assert elapsed < WAIT_S
        assert sent.is_set()
    finally:
        driver.stop()
        server.close()


def test_garbage_and_a_flood_without_newline_hold_the_device_and_it_recovers(
    events: EventLog, pty_pair: tuple[int, str]
) -> None:
    master, path = pty_pair
    driver = CammeghSS2Driver("w1", path, events, silence_timeout=None, garbage_timeout=0.5)
    driver.start()
    try:
        events.wait_kind("device_connected")
        os.write(master, b"*X;2;011;27;0;150;0\r\n")
        events.wait_kind("wheel_status")
        flood_done = threading.Event()
        most_pending = [0]

        def flood() -> None:
            # 2,000 lines no parser knows, then 20 MiB with no newline
            garbage = b"".join(b"\x07~#garbage %d ##\r\n" % i for i in range(2000))
            os.write(master, garbage)
            chunk = b"\xff" * 65536
            for _ in range(20 * 16):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(master, view) :]
                most_pending[0] = max(most_pending[0], driver._framer.pending)
            flood_done.set()

        started = time.monotonic()
        writer = threading.Thread(target=flood, daemon=True)
        writer.start()
        lost = events.wait_kind("device_disconnected")
        assert "device sends garbage" in lost.reason, lost.reason
        assert time.monotonic() - started >= 0.5  # not before the bound
        assert driver.health()["garbage"] and driver.health()["last_error"] == lost.reason
        until(flood_done.is_set, what="the 20 MiB flood written")
        writer.join()
        # the framer never held more than one line's worth: memory stays bounded
        assert most_pending[0] <= driver._framer.max_line
        # every byte of it thrown away but the last line's worth, still pending: once the reader has caught up
        # with the writer (on a loaded machine the pty's buffer may still hold the end of the flood)
        counters = until(
            lambda: (
                (c := driver.health()["counters"])["garbage_bytes"]
                >= 20 * 1024 * 1024 - driver._framer.max_line
                and c
            ),
            what="the flood read and counted as garbage",
        )
        assert counters["overlong_lines"] >= 1
        assert counters["garbage_spells"] == 1  # reported once, not on every chunk
        assert driver.running and driver.connected

        # valid lines again: the device is back (as after a reconnect), its status reported anew
        os.write(master, b"\r\n*X;3;012;27;0;150;0\r\n")
        back = events.wait_kind("device_connected")
        assert back.port == path
        status = events.wait_kind("wheel_status")
        assert status.game_counter == 12
        assert not driver.health()["garbage"]
    finally:
        driver.stop()


def test_valid_lines_among_garbage_keep_the_device_up(events: EventLog, pty_pair: tuple[int, str]) -> None:
    """Unknown lines mixed with valid ones are a working device (noise), not a garbage spell."""
    master, path = pty_pair
    driver = CammeghSS2Driver("w1", path, events, silence_timeout=None, garbage_timeout=0.3)
    driver.start()
    try:
        events.wait_kind("device_connected")
        started = time.monotonic()
        n = 0
        while time.monotonic() - started < 1.0:  # three bounds' worth of noise with valid lines in it
            os.write(master, b"noise\r\n" + _LINE.format(n % 256 + 1).encode())
            n += 1
            time.sleep(0.02)
        until(lambda: driver.health()["counters"]["lines"] >= 2 * n, what="every line read")
        assert not [e for e in events.drain() if e.kind == "device_disconnected"]
        assert driver.health()["counters"]["garbage_spells"] == 0
    finally:
        driver.stop()


def test_a_second_driver_on_the_same_port_is_refused_and_the_first_keeps_reading(
    pty_pair: tuple[int, str],
) -> None:
    master, path = pty_pair
    first_events, second_events = EventLog(), EventLog()
    first = CammeghSS2Driver("w1", path, first_events, silence_timeout=None)
    first.start()
    second = CammeghSS2Driver("w1-again", path, second_events, silence_timeout=None)
    try:
        first_events.wait_kind("device_connected")
        second.start()
        refused = second_events.wait_kind("device_disconnected")
        assert PORT_IN_USE in refused.reason and path in refused.reason, refused.reason
        assert not second.connected
        os.write(master, b"*X;2;011;27;0;150;0\r\n")
        assert first_events.wait_kind("wheel_status").game_counter == 11
        assert first.connected
    finally:
        second.stop()
        first.stop()
