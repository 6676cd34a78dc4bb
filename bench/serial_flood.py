"""Benchmark: how fast a serial driver takes in a flood of valid lines, on a pty and on socket://.

The real SS2 driver (devices/roulette/cammegh_ss2.py on devices/serial_line.py) reads ``--mib`` MiB of status
lines written as fast as the transport takes them: once from a pty (the shared ``serial-reader`` thread,
``os.read``), once from a TCP server on 127.0.0.1 behind ``socket://`` (the driver's own thread, pyserial's
socket handler). The time runs from the first byte written to the last line counted by the driver (framing,
parsing and tracking included; events go to a list). Printed side by side: MB/s, lines/s, bytes per read.

    .venv/bin/python bench/serial_flood.py [--mib 4] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import threading
import time
import tty
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.machine import MachineLoad
from devices.roulette.cammegh_ss2 import CammeghSS2Driver


def payload(total: int) -> bytes:
    out = bytearray()
    n = 0
    while len(out) < total:
        out += b"*X;2;%03d;27;0;150;0\r\n" % (n % 256 + 1)
        n += 1
    return bytes(out)


def _wait_lines(driver: CammeghSS2Driver, lines: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while driver.health()["counters"]["lines"] < lines:
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out: {driver.health()['counters']}")
        time.sleep(0.002)


def _wait_connected(events: list[Any]) -> None:
    while not any(e.kind == "device_connected" for e in events):
        time.sleep(0.005)


def run_pty(data: bytes, timeout: float) -> dict[str, float]:
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    events: list[Any] = []
    driver = CammeghSS2Driver("bench", os.ttyname(slave), events.append, silence_timeout=None)
    driver.start()
    try:
        _wait_connected(events)
        started = time.perf_counter()

        def write() -> None:
            view = memoryview(data)
            while view:
                view = view[os.write(master, view[:65536]) :]

        threading.Thread(target=write, daemon=True).start()
        _wait_lines(driver, data.count(b"\n"), timeout)
        return _figures(driver, data, time.perf_counter() - started)
    finally:
        driver.stop()
        os.close(master)
        os.close(slave)


def run_socket(data: bytes, timeout: float) -> dict[str, float]:
    server = socket.create_server(("127.0.0.1", 0))
    go = threading.Event()

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            go.wait()  # pyserial empties the socket as it opens: send once the driver is connected
            conn.sendall(data)
            conn.recv(1)

    threading.Thread(target=serve, daemon=True).start()
    events: list[Any] = []
    driver = CammeghSS2Driver(
        "bench", f"socket://127.0.0.1:{server.getsockname()[1]}", events.append, silence_timeout=None
    )
    driver.start()
    try:
        _wait_connected(events)
        started = time.perf_counter()
        go.set()
        _wait_lines(driver, data.count(b"\n"), timeout)
        return _figures(driver, data, time.perf_counter() - started)
    finally:
        driver.stop()
        server.close()


def _figures(driver: CammeghSS2Driver, data: bytes, seconds: float) -> dict[str, float]:
    c = driver.health()["counters"]
    return {
        "s": seconds,
        "MB/s": len(data) / seconds / 1e6,
        "lines/s": data.count(b"\n") / seconds,
        "bytes/read": c["bytes_in"] / c["reads"] if c.get("reads") else float("nan"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mib", type=float, default=4.0, help="MiB of status lines per run (default 4)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600.0, help="give up on a run after this many seconds")
    args = ap.parse_args()
    data = payload(int(args.mib * 1024 * 1024))
    results: dict[str, list[dict[str, float]]] = {"pty": [], "socket://": []}
    load = MachineLoad()
    for _ in range(args.runs):
        results["pty"].append(run_pty(data, args.timeout))
        results["socket://"].append(run_socket(data, args.timeout))
    load.stop()
    lines = data.count(b"\n")
    print(f"{len(data):,} bytes, {lines:,} lines per run, {args.runs} runs (medians)")
    print(f"{'':12}{'pty':>14}{'socket://':>14}")
    for key in ("s", "MB/s", "lines/s", "bytes/read"):
        row = [statistics.median(r[key] for r in results[t]) for t in ("pty", "socket://")]
        print(f"{key:12}" + "".join(f"{v:>14,.2f}" for v in row))
    print(load.summary())


if __name__ == "__main__":
    main()
