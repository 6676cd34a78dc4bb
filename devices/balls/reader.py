"""Ball readers at the chute: an RFID reader on a serial line (this module) or a camera
(:mod:`.camera_reader`), both turning what they read into :class:`BallRead` /
:class:`BallUnreadable` through the same pure :class:`TagReader`.

Serial reader protocol (the common "tag per line" mode of RFID readers; the
patterns are options, so a reader with another format is configuration, not code):

* a line matching ``tag_pattern`` (default: an optional ``TAG:``/``TAG ``/``TAG=``
  prefix, then 1-64 letters, digits, ``-`` or ``_``) -> the group ``tag`` is the tag;
* a line equal to one of ``no_read`` (default ``NOREAD``, ``NO READ``, ``ERR``,
  ``ERROR``, case-insensitive; ``ERR <text>`` too) -> :class:`BallUnreadable`;
* a line holding bytes that are not printable ASCII (line noise, a torn frame)
  -> :class:`BallUnreadable` ("garbled");
* any other line (a banner, a status report) -> :class:`DeviceUnknownMessage`.

Folding: an RFID reader repeats the tag for as long as the ball is in its field,
and a camera sees the code in every frame, so a tag read again no later than
``fold_s`` seconds after it was LAST read is the same ball and is dropped (the
window slides). A ball presented again later (a re-read the dealer asked for)
is reported again.
"""

from __future__ import annotations

import re
import string
import time
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ..abilities import ReadsBalls
from ..events import DeviceEvent, DeviceUnknownMessage, utcnow
from ..serial_line import SerialLineDriver
from .ballset import BallSet, ball_set_from_option
from .events import BallRead, BallUnreadable

__all__ = [
    "DEFAULT_NO_READ",
    "DEFAULT_TAG_PATTERN",
    "DRIVERS",
    "SerialBallReaderDriver",
    "TagReader",
    "classify_reader_line",
]

DEFAULT_TAG_PATTERN = r"(?:TAG[:= ]\s*)?(?P<tag>[0-9A-Za-z_-]{1,64})"
DEFAULT_NO_READ = ("NOREAD", "NO READ", "ERR", "ERROR")
_PRINTABLE = set(string.printable) - set("\t\n\r\x0b\x0c")


class TagReader:
    """Tags in (with their receive times), ball events out. Pure: the caller passes the clocks."""

    def __init__(self, device_id: str, ball_set: BallSet, *, fold_s: float = 1.0) -> None:
        if fold_s < 0:
            raise ValueError("fold_s cannot be negative")
        self.device_id = device_id
        self.ball_set = ball_set
        self.fold_s = float(fold_s)
        self._last: dict[str, float] = {}
        self.counts = {"reads": 0, "unknown": 0, "folded": 0, "unreadable": 0}

    def tag(self, tag: str, *, now: float, at: datetime, raw: str = "") -> BallRead | None:
        """A tag read at ``now`` (monotonic seconds): the event, or None when it folds into the last read."""
        key = self.ball_set.normalise(tag)
        last = self._last.get(key)
        self._last[key] = now
        if len(self._last) > 256:
            self._last = {k: t for k, t in self._last.items() if now - t <= self.fold_s}
        if last is not None and now - last <= self.fold_s:
            self.counts["folded"] += 1
            return None
        ball = self.ball_set.lookup(key)
        self.counts["reads"] += 1
        if ball is None:
            self.counts["unknown"] += 1
        return BallRead(
            device_id=self.device_id,
            at=at,
            tag=key,
            ball=ball.label if ball else None,
            color=ball.color if ball else None,
            raw=raw or tag,
        )

    def unreadable(self, reason: str, *, at: datetime, raw: str = "") -> BallUnreadable:
        self.counts["unreadable"] += 1
        return BallUnreadable(device_id=self.device_id, at=at, reason=reason, raw=raw)

    def forget(self) -> None:
        """After a reconnect: a ball read before it is not folded into one read after it."""
        self._last.clear()


def classify_reader_line(
    line: str, tag_pattern: re.Pattern[str], no_read: Iterable[str] = DEFAULT_NO_READ
) -> tuple[str, str]:
    """One reader line -> ("tag", tag) | ("unreadable", reason) | ("unknown", line). Pure."""
    text = line.strip()
    if not text or not set(text) <= _PRINTABLE:
        return "unreadable", "garbled line from the reader (not printable ASCII)"
    upper = text.upper()
    for word in no_read:
        w = word.upper()
        if upper == w or upper.startswith(w + " "):
            return "unreadable", f"the reader reported a no-read ({text!r})"
    m = tag_pattern.fullmatch(text)
    if m:
        return "tag", m.group("tag")
    return "unknown", text


class SerialBallReaderDriver(SerialLineDriver, ReadsBalls):
    """The ``serial-ball-reader`` driver: an RFID reader sending one tag per line.

    Options: ``ball_set`` ("1-48", a .toml path or an inline table; default 0-99 with tags
    BALL000..), ``tag_format`` (for a numbered ``ball_set``), ``fold_s`` (1.0), ``tag_pattern``
    (a regex with a group ``tag``), ``no_read`` (list of no-read messages), plus every option of
    :class:`devices.serial_line.SerialLineDriver` (``baudrate`` 9600 by default, ...).
    """

    kind = "serial-ball-reader"
    baudrate = 9600

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: Any,
        *,
        ball_set: Any = None,
        tag_format: str | None = None,
        fold_s: float = 1.0,
        tag_pattern: str = DEFAULT_TAG_PATTERN,
        no_read: Iterable[str] = DEFAULT_NO_READ,
        **options: Any,
    ) -> None:
        super().__init__(device_id, url, on_event, **options)
        self.ball_set = ball_set_from_option(ball_set, tag_format=tag_format)
        self.reader = TagReader(device_id, self.ball_set, fold_s=fold_s)
        try:
            self.tag_pattern = re.compile(tag_pattern)
        except re.error as exc:
            raise ValueError(f"tag_pattern {tag_pattern!r} is not a regular expression: {exc}") from None
        if "tag" not in self.tag_pattern.groupindex:
            raise ValueError("tag_pattern needs a named group (?P<tag>...)")
        self.no_read = tuple(no_read)

    def on_connected(self) -> None:
        self.reader.forget()

    def handle_line(self, line: str) -> list[DeviceEvent]:
        at = utcnow()
        what, text = classify_reader_line(line, self.tag_pattern, self.no_read)
        if what == "tag":
            event = self.reader.tag(text, now=time.monotonic(), at=at, raw=line)
            return [event] if event is not None else []
        if what == "unreadable":
            return [self.reader.unreadable(text, at=at, raw=line)]
        return [DeviceUnknownMessage(device_id=self.device_id, at=at, raw=line)]

    def device_info(self) -> dict[str, Any]:
        return {"ball_set": self.ball_set.name, "balls": len(self.ball_set), **self.reader.counts}


DRIVERS = {SerialBallReaderDriver.kind: SerialBallReaderDriver}
