"""The studio's clock against a time server: a real SNTP server on loopback (UDP) whose clock runs 2.5 s ahead;
the offset measured, journaled, on /v1/health (degraded past the limit) and on /metrics; a server that does
not answer is said so."""

from __future__ import annotations

import json
import socket
import sqlite3
import struct
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from served import Served, wheel_table
from waiting import until

from studio.clock import NTP_EPOCH, ClockWatch, parse_server, query
from studio.config import parse_config
from studio.service import Studio

SKEW = 2.5


class SntpServer:
    """A minimal SNTP server (mode 4, stratum 2) whose clock is `skew` seconds ahead of ours."""

    def __init__(self, skew: float, reply: bool = True) -> None:
        self.skew, self.reply = skew, reply
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.asked = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    @staticmethod
    def _ntp(t: float) -> bytes:
        t += NTP_EPOCH
        return struct.pack("!II", int(t), int((t % 1) * 2**32))

    def _run(self) -> None:
        while True:
            try:
                data, peer = self.sock.recvfrom(512)
            except OSError:
                return
            self.asked += 1
            received = time.time() + self.skew
            if not self.reply:
                continue
            out = bytearray(48)
            out[0], out[1] = 0x1C, 2  # version 3, mode 4 (server); stratum 2
            out[24:32] = data[40:48]  # originate: the client's transmit time
            out[32:40] = self._ntp(received)
            out[40:48] = self._ntp(time.time() + self.skew)
            self.sock.sendto(bytes(out), peer)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def sntp() -> Iterator[SntpServer]:
    server = SntpServer(SKEW)
    yield server
    server.close()


def test_the_offset_to_a_server_ahead_of_us_is_measured(sntp: SntpServer) -> None:
    found = query("127.0.0.1", sntp.port)
    assert found.offset == pytest.approx(SKEW, abs=0.05) and 0 <= found.delay < 1 and found.stratum == 2


def test_a_server_that_does_not_answer_or_a_bad_address_is_said_so() -> None:
    silent = SntpServer(0, reply=False)
    try:
        with pytest.raises(OSError):
            query("127.0.0.1", silent.port, timeout=0.3)
    finally:
        silent.close()
    for bad in ("", "host:0", "host:99999", "host:x"):
        with pytest.raises(ValueError):
            parse_server(bad)
    assert parse_server("ntp.example") == ("ntp.example", 123)
    assert ClockWatch(None, None, 1).view() is None  # type: ignore[arg-type]


def test_the_studio_journals_and_shows_its_clock(tmp_path, sntp: SntpServer) -> None:
    cfg = parse_config(
        {
            "studio": {
                "data_dir": str(tmp_path / "data"),
                "time_server": f"127.0.0.1:{sntp.port}",
                "clock_check_seconds": 0.2,
                "clock_max_offset_ms": 1000,
            },
            "consumers": [{"name": "t", "token": "clock-test-token-0123"}],
            "tables": [wheel_table("w1")],
        }
    )
    with pytest.raises(ValueError):
        parse_config({"studio": {"time_server": "host:99999"}, "consumers": [], "tables": []})
    served = Served(Studio(cfg))
    try:
        until(lambda: sntp.asked >= 2, "two clock checks")
        health = httpx.get(f"{served.url}/v1/health").json()
        assert health["clock"]["offset_ms"] == pytest.approx(SKEW * 1000, abs=50)
        assert health["status"] == "degraded"
        assert any("ms off its time server" in p for p in health["problems"])
        metrics = httpx.get(f"{served.url}/metrics").text
        line = next(m for m in metrics.splitlines() if m.startswith("studio_clock_offset_seconds"))
        assert float(line.split()[-1]) == pytest.approx(SKEW, abs=0.05)
        served.studio.journal.flush()
        db = sqlite3.connect(f"file:{served.studio.journal.path}?mode=ro", uri=True)
        checks = [json.loads(b) for (b,) in db.execute("SELECT body FROM records WHERE kind = 'clock_check'")]
        db.close()
        assert checks and all(c["offset_ms"] == pytest.approx(SKEW * 1000, abs=50) for c in checks)
    finally:
        served.stop()
