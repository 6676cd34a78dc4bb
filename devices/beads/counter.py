"""The ``serial-bead-counter`` driver: Fan Tan's bead counter on a serial line.

The counter (a camera over the dealer's tray with its own counting firmware, or a counting plate) sends one
line per count, ASCII, CR LF:

* ``COUNT <n>`` (also ``COUNT=<n>``, ``COUNT:<n>``): it counted ``n`` beads -> :class:`BeadCount`;
* ``NOREAD``, ``NO READ``, ``ERR`` or ``ERROR`` (optionally followed by text): it could not count ->
  :class:`BeadCountUnreadable`;
* any other line (a banner, a status report) -> :class:`DeviceUnknownMessage`.

It takes no commands. The dealer counts again (the counter sends a new ``COUNT``) when asked to; which count
makes the result is the game's business (recognition/fan_tan.py), not the driver's.
"""

from __future__ import annotations

import re
from typing import Any

from ..events import DeviceEvent, DeviceUnknownMessage, utcnow
from ..serial_line import SerialLineDriver
from .events import BeadCount, BeadCountUnreadable

__all__ = ["DRIVERS", "BeadCounterDriver", "classify_counter_line"]

_COUNT = re.compile(r"COUNT\s*[:= ]\s*(?P<n>[0-9]{1,6})", re.IGNORECASE)
_NO_READ = ("NOREAD", "NO READ", "ERR", "ERROR")


def classify_counter_line(line: str) -> tuple[str, Any]:
    """One counter line -> ("count", n) | ("unreadable", reason) | ("unknown", line). Pure."""
    text = line.strip()
    m = _COUNT.fullmatch(text)
    if m:
        return "count", int(m["n"])
    upper = text.upper()
    if any(upper == w or upper.startswith(w + " ") for w in _NO_READ):
        return "unreadable", f"the bead counter could not count ({text!r})"
    return "unknown", text


class BeadCounterDriver(SerialLineDriver):
    """A bead counter sending ``COUNT <n>`` lines (module docstring); options of SerialLineDriver."""

    kind = "serial-bead-counter"
    family = "bead-counter"
    baudrate = 9600

    def __init__(self, device_id: str, url: str, on_event: Any, **options: Any) -> None:
        super().__init__(device_id, url, on_event, **options)
        self.counts = {"counts": 0, "unreadable": 0}

    def handle_line(self, line: str) -> list[DeviceEvent]:
        at = utcnow()
        what, value = classify_counter_line(line)
        if what == "count":
            self.counts["counts"] += 1
            return [BeadCount(device_id=self.device_id, at=at, count=value, raw=line)]
        if what == "unreadable":
            self.counts["unreadable"] += 1
            return [BeadCountUnreadable(device_id=self.device_id, at=at, reason=value, raw=line)]
        return [DeviceUnknownMessage(device_id=self.device_id, at=at, raw=line)]

    def send(self, command: str) -> None:
        raise ValueError(f"{self.device_id}: the bead counter takes no commands (got {command!r})")

    def device_info(self) -> dict[str, Any]:
        return dict(self.counts)


DRIVERS = {BeadCounterDriver.kind: BeadCounterDriver}
