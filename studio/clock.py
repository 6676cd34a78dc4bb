"""The studio's clock against its time source: an SNTP query (RFC 4330) to the configured time server, so the
offset between the times the journal writes and the time a video archive or a regulator keeps is measured,
journaled (`clock_check`) and shown (/v1/health, /metrics) rather than assumed.

offset = ((T2 - T1) + (T3 - T4)) / 2 and delay = (T4 - T1) - (T3 - T2), with T1 our send time, T2 the server's
receive time, T3 its transmit time and T4 our receive time. A positive offset: the server is ahead of us.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator

    from prometheus_client.core import Metric

    from .journal import Journal

log = logging.getLogger(__name__)

NTP_EPOCH = 2_208_988_800  # seconds from 1900-01-01 to 1970-01-01
PACKET = struct.Struct("!B B b b 11I")


def _to_ntp(t: float) -> tuple[int, int]:
    t += NTP_EPOCH
    return int(t), int((t % 1) * 2**32)


def _from_ntp(seconds: int, fraction: int) -> float:
    return seconds - NTP_EPOCH + fraction / 2**32


@dataclass(frozen=True)
class ClockCheck:
    server: str
    offset: float  # seconds; positive: the server is ahead of the studio
    delay: float  # round trip, seconds
    stratum: int
    checked_at: float  # the studio's time (Unix seconds)

    def as_dict(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "offset_ms": round(self.offset * 1000, 3),
            "delay_ms": round(self.delay * 1000, 3),
            "stratum": self.stratum,
        }


def parse_server(value: str) -> tuple[str, int]:
    """The configuration's "host" or "host:port" as (host, port); ValueError saying what is wrong."""
    host, _, port = value.rpartition(":") if ":" in value else (value, "", "123")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{value!r} is not a time server: give host or host:port (port 1-65535)")
    return host, int(port)


def query(server: str, port: int = 123, timeout: float = 2.0, clock: Any = time.time) -> ClockCheck:
    """One SNTP exchange; OSError or ValueError when the server does not answer as one."""
    t1 = clock()
    request = bytearray(48)
    request[0] = 0x1B  # LI 0, version 3, mode 3 (client)
    struct.pack_into("!II", request, 40, *_to_ntp(t1))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(timeout)
        sock.sendto(bytes(request), (server, port))
        data, _ = sock.recvfrom(512)
    t4 = clock()
    if len(data) < 48:
        raise ValueError(f"{server}: a reply of {len(data)} bytes is not SNTP")
    first, stratum = data[0], data[1]
    if first & 0x07 not in (4, 5) or stratum == 0:
        raise ValueError(
            f"{server}: not a server's reply (mode {first & 7}, stratum {stratum}: kiss-of-death)"
        )
    originate = struct.unpack_from("!II", data, 24)
    if originate != _to_ntp(t1):
        raise ValueError(f"{server}: the reply is not to our request")
    t2 = _from_ntp(*struct.unpack_from("!II", data, 32))
    t3 = _from_ntp(*struct.unpack_from("!II", data, 40))
    return ClockCheck(server, ((t2 - t1) + (t3 - t4)) / 2, (t4 - t1) - (t3 - t2), stratum, t4)


class ClockWatch:
    """Every `every` seconds: ask the time server, journal the offset, keep the latest for health and metrics."""

    def __init__(self, server: str | None, journal: Journal, every: float) -> None:
        """`server`: "host" or "host:port" (the configuration's `time_server`); None: nothing is measured."""
        self.server: str | None = None
        self.port = 123
        if server:
            self.server, self.port = parse_server(server)
        self.journal = journal
        self.every = every
        self.last: ClockCheck | None = None
        self.last_error: str | None = None
        self._task: asyncio.Task[None] | None = None

    def check_now(self) -> ClockCheck | None:
        if self.server is None:
            return None
        try:
            found = query(self.server, self.port)
        except (OSError, ValueError) as exc:
            self.last_error = f"{self.server}: {exc}"
            self.journal.append("clock_check", {"server": self.server, "error": str(exc)})
            log.warning("clock check: %s", self.last_error)
            return None
        self.last, self.last_error = found, None
        self.journal.append("clock_check", found.as_dict())
        return found

    def view(self) -> dict[str, Any] | None:
        if self.server is None:
            return None
        out: dict[str, Any] = {"server": self.server, "error": self.last_error}
        if self.last is not None:
            out |= self.last.as_dict() | {"age_s": round(time.time() - self.last.checked_at, 1)}
        return out

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.server is not None:
            self._task = loop.create_task(self._run(), name="studio-clock-check")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        while True:
            try:
                await asyncio.to_thread(self.check_now)
            except Exception:
                log.exception("clock check failed")
            await asyncio.sleep(self.every)


class ClockCollector(Collector):
    """/metrics: the latest offset and round trip to the time server."""

    def __init__(self, watch: ClockWatch) -> None:
        self.watch = watch

    def collect(self) -> Iterator[Metric]:
        last = self.watch.last
        if self.watch.server is None or last is None:
            return
        offset = GaugeMetricFamily(
            "studio_clock_offset_seconds", "the time server minus the studio's clock", labels=["server"]
        )
        offset.add_metric([last.server], last.offset)
        delay = GaugeMetricFamily(
            "studio_clock_delay_seconds", "round trip to the time server", labels=["server"]
        )
        delay.add_metric([last.server], last.delay)
        yield from (offset, delay)
