"""What a bead counter reports (devices/beads/counter.py). Neutral: no game rules here."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..events import DeviceEvent


class BeadCount(DeviceEvent):
    """The counter counted the beads the dealer separated with the cup: `count` beads (at least 1)."""

    kind: Literal["bead_count"] = "bead_count"
    count: int = Field(ge=0)
    raw: str = ""


class BeadCountUnreadable(DeviceEvent):
    """The counter could not count the beads (beads on top of one another, a hand in the view)."""

    kind: Literal["bead_count_unreadable"] = "bead_count_unreadable"
    reason: str
    raw: str = ""
