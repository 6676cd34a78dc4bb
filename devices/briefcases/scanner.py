"""The ``serial-briefcase-scanner`` driver: a barcode scanner at the studio's briefcases (Deal or No Deal Live).

Each briefcase holds a number card (1..``cases``, 16 by default) printed with a barcode; when the dealer's
assistant opens a briefcase the card is shown to the scanner. The scanner speaks the serial barcode reader's
line protocol (devices/balls/reader.py, the same parser): one code per line; its no-read message
(``NOREAD``, ``ERR`` ...) -> :class:`BriefcaseUnreadable`; any other line -> :class:`DeviceUnknownMessage`.

A code matching ``tag_pattern`` (default ``CASE`` and the number, ``CASE07``, or the bare number) is the card
with that number -> :class:`BriefcaseRead` (``number`` None for a number outside 1..``cases``). The same code
again within ``fold_s`` seconds of its last read is the same card scanned twice and is dropped.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from typing import Any

from ..balls.reader import DEFAULT_NO_READ, classify_reader_line
from ..events import DeviceEvent, DeviceUnknownMessage, utcnow
from ..serial_line import SerialLineDriver
from .events import BriefcaseRead, BriefcaseUnreadable

__all__ = ["DEFAULT_CASE_PATTERN", "DRIVERS", "BriefcaseScannerDriver"]

DEFAULT_CASE_PATTERN = r"(?:CASE[-_ ]?)?(?P<tag>[0-9]{1,3})"


class BriefcaseScannerDriver(SerialLineDriver):
    """Options: ``cases`` (16), ``tag_pattern`` (a regex with a group ``tag``: the card's number),
    ``fold_s`` (1.0), ``no_read``, plus every option of SerialLineDriver."""

    kind = "serial-briefcase-scanner"
    family = "briefcase-scanner"
    baudrate = 9600

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: Any,
        *,
        cases: int = 16,
        tag_pattern: str = DEFAULT_CASE_PATTERN,
        fold_s: float = 1.0,
        no_read: Iterable[str] = DEFAULT_NO_READ,
        **options: Any,
    ) -> None:
        super().__init__(device_id, url, on_event, **options)
        if isinstance(cases, bool) or not isinstance(cases, int) or cases < 1:
            raise ValueError(f"cases is the number of briefcases, at least 1, not {cases!r}")
        if fold_s < 0:
            raise ValueError("fold_s cannot be negative")
        try:
            self.tag_pattern = re.compile(tag_pattern, re.IGNORECASE)
        except re.error as exc:
            raise ValueError(f"tag_pattern {tag_pattern!r} is not a regular expression: {exc}") from None
        if "tag" not in self.tag_pattern.groupindex:
            raise ValueError("tag_pattern needs a named group (?P<tag>...) holding the card's number")
        self.cases, self.fold_s, self.no_read = cases, float(fold_s), tuple(no_read)
        self._last: dict[str, float] = {}
        self.counts = {"reads": 0, "unknown": 0, "folded": 0, "unreadable": 0}

    def on_connected(self) -> None:
        self._last.clear()

    def handle_line(self, line: str) -> list[DeviceEvent]:
        at = utcnow()
        what, text = classify_reader_line(line, self.tag_pattern, self.no_read)
        if what == "unreadable":
            self.counts["unreadable"] += 1
            return [BriefcaseUnreadable(device_id=self.device_id, at=at, reason=text, raw=line)]
        if what != "tag":
            return [DeviceUnknownMessage(device_id=self.device_id, at=at, raw=line)]
        now = time.monotonic()
        last, self._last[text] = self._last.get(text), now
        if last is not None and now - last <= self.fold_s:
            self.counts["folded"] += 1
            return []
        number = int(text)
        self.counts["reads"] += 1
        if not 1 <= number <= self.cases:
            self.counts["unknown"] += 1
        known = number if 1 <= number <= self.cases else None
        return [BriefcaseRead(device_id=self.device_id, at=at, tag=line.strip(), number=known, raw=line)]

    def send(self, command: str) -> None:
        raise ValueError(f"{self.device_id}: the briefcase scanner takes no commands (got {command!r})")

    def device_info(self) -> dict[str, Any]:
        return {"cases": self.cases, **self.counts}


DRIVERS = {BriefcaseScannerDriver.kind: BriefcaseScannerDriver}
