"""Pointer reader of a money wheel: reads the tag (RFID or barcode) on the segment under the pointer
and reports it over a serial line (driver kind ``wheel-pointer``).

Line protocol of the reference reader (one ASCII line per read, CR LF or LF)::

    TAG S17          the tag of the segment under the pointer
    TAG S17 S18      two tags in view at once: the pointer is on the boundary between two segments
    NOREAD           the reader sees no readable tag (a gap, a dirty or damaged tag)

The reader sends a line whenever the read changes and repeats the current read at
least every ``rest_ms / 2`` (every 100 ms for the reference reader), so that a
steady read tells the wheel has stopped. Anything else, and any line holding bytes that are not printable
ASCII (line noise: it changes neither the read nor the time it has been steady), is journaled as
:class:`DeviceUnknownMessage`.

Which tag is on which segment is the wheel's tag table (option ``tags``: a list of
tags by segment index, or a table tag -> index; default: ``tag_format`` = "S{index:02d}"
for ``segments`` = 54 segments). The index is the physical segment: which label it
carries is the game layout's business (recognition/money_wheel).

Layers: :class:`TagTable` and :class:`PointerTracker` are pure (lines and clock values in,
events out); :class:`PointerReaderDriver` is a :class:`devices.serial_line.SerialLineDriver`
(reconnect with backoff, silence watchdog, ``spy://`` traces).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ..abilities import ReadsWheelPointer
from ..events import DeviceEvent, DeviceUnknownMessage, utcnow
from ..serial_line import SerialLineDriver
from .events import PointerRead, PointerUnreadable, WheelAtRest

__all__ = ["DRIVERS", "PointerReaderDriver", "PointerTracker", "TagTable"]


class TagTable:
    """Tag -> physical segment index."""

    def __init__(self, tags: Any = None, *, segments: int = 54, tag_format: str = "S{index:02d}") -> None:
        if tags is None:
            if segments < 2:
                raise ValueError("a wheel has at least 2 segments")
            try:
                tags = [tag_format.format(index=i) for i in range(segments)]
            except (KeyError, IndexError, ValueError) as exc:
                raise ValueError(f"tag_format {tag_format!r} must contain {{index}}: {exc}") from None
        if isinstance(tags, Mapping):
            table = {str(t): int(i) for t, i in tags.items()}
        elif isinstance(tags, Sequence) and not isinstance(tags, str):
            table = {}
            for i, t in enumerate(tags):
                if str(t) in table:
                    raise ValueError(f"tag {t!r} is on two segments ({table[str(t)]} and {i})")
                table[str(t)] = i
        else:
            raise ValueError("tags must be a list of tags by segment index or a table tag -> index")
        if any(not t or " " in t for t in table):
            raise ValueError("a tag is a non-empty word without spaces")
        if any(i < 0 for i in table.values()):
            raise ValueError("segment indexes start at 0")
        self.table = table
        self.segments = max(table.values()) + 1 if table else 0

    def index(self, tag: str) -> int | None:
        return self.table.get(tag)


class PointerTracker:
    """Reader lines in, pointer events out. Pure: the caller passes the monotonic and wall clocks."""

    def __init__(self, device_id: str, tags: TagTable, *, rest_ms: int = 1500) -> None:
        if rest_ms < 1:
            raise ValueError("rest_ms must be at least 1")
        self.device_id = device_id
        self.tags = tags
        self.rest_ms = int(rest_ms)
        self._key: tuple[str, ...] | None = None  # () = NOREAD
        self._since = 0.0
        self._rested = False
        self.last: DeviceEvent | None = None

    def reset(self) -> None:
        self._key = None
        self._rested = False

    def handle_line(self, line: str, now: float, at: datetime) -> list[DeviceEvent]:
        # line noise: it neither moves the pointer nor ends (or starts) a rest
        if not (line.isascii() and line.isprintable()):
            return [DeviceUnknownMessage(device_id=self.device_id, at=at, raw=line)]
        words = line.split()
        if not words:
            return []
        head = words[0].upper()
        if head == "TAG" and len(words) in (2, 3):
            key: tuple[str, ...] = tuple(words[1:])
        elif head in ("NOREAD", "NR") and len(words) == 1:
            key = ()
        else:
            return [DeviceUnknownMessage(device_id=self.device_id, at=at, raw=line)]
        out: list[DeviceEvent] = []
        if key != self._key:
            self._key, self._since, self._rested = key, now, False
            if key:
                other = key[1] if len(key) > 1 else None
                self.last = PointerRead(
                    device_id=self.device_id,
                    at=at,
                    tag=key[0],
                    segment_index=self.tags.index(key[0]),
                    other_tag=other,
                    other_index=self.tags.index(other) if other else None,
                    raw=line,
                )
            else:
                self.last = PointerUnreadable(
                    device_id=self.device_id, at=at, reason="the reader sees no tag", raw=line
                )
            out.append(self.last)
        elif not self._rested and (now - self._since) * 1000 >= self.rest_ms:
            self._rested = True
            other = key[1] if len(key) > 1 else None
            out.append(
                WheelAtRest(
                    device_id=self.device_id,
                    at=at,
                    sensor="pointer",
                    still_ms=round((now - self._since) * 1000),
                    tag=key[0] if key else None,
                    segment_index=self.tags.index(key[0]) if key else None,
                    other_tag=other,
                    other_index=self.tags.index(other) if other else None,
                    raw=line,
                )
            )
        return out


class PointerReaderDriver(SerialLineDriver, ReadsWheelPointer):
    """The ``wheel-pointer`` driver. Options: ``tags`` / ``segments`` / ``tag_format`` (the tag table),
    ``rest_ms`` (a read steady this long means the wheel stopped; 1500: long enough for the last, slowest
    segment of a spin), ``silence_timeout`` (1 s: a reader that stops repeating is reported lost), and the
    SerialLineDriver options (baudrate, reconnect, ...)."""

    kind = "wheel-pointer"
    baudrate = 115200
    #: a read steady for rest_ms means the wheel stopped: time reads off the port, not when a busy loop gets there
    timed_reads = True

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: Any,
        *,
        tags: Any = None,
        segments: int = 54,
        tag_format: str = "S{index:02d}",
        rest_ms: int = 1500,
        silence_timeout: float | None = 1.0,
        **options: Any,
    ) -> None:
        super().__init__(device_id, url, on_event, silence_timeout=silence_timeout, **options)
        self.tag_table = TagTable(tags, segments=segments, tag_format=tag_format)
        self.tracker = PointerTracker(device_id, self.tag_table, rest_ms=rest_ms)

    def on_connected(self) -> None:
        self.tracker.reset()

    def handle_line(self, line: str) -> list[DeviceEvent]:
        return self.tracker.handle_line(line, time.monotonic(), utcnow())

    def device_info(self) -> dict[str, Any]:
        last = self.tracker.last
        return {
            "segments": self.tag_table.segments,
            "rest_ms": self.tracker.rest_ms,
            "last_read": last.model_dump(mode="json") if last is not None else None,
        }


DRIVERS = {PointerReaderDriver.kind: PointerReaderDriver}
