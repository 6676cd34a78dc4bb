"""What a briefcase scanner reports (devices/briefcases/scanner.py). Neutral: no game rules here."""

from __future__ import annotations

from typing import Literal

from ..events import DeviceEvent


class BriefcaseRead(DeviceEvent):
    """The number card of an opened briefcase was read: `number` (1..the scanner's `cases`), None when the
    code is not one of the set's cards (a foreign or damaged card)."""

    kind: Literal["briefcase_read"] = "briefcase_read"
    tag: str
    number: int | None
    raw: str = ""


class BriefcaseUnreadable(DeviceEvent):
    """The scanner could not read the card (its no-read message, a garbled line)."""

    kind: Literal["briefcase_unreadable"] = "briefcase_unreadable"
    reason: str
    raw: str = ""
