"""Typed events of ball draw machines (lototrons) and ball readers.

A machine driver reports what the PLC's registers say (:class:`MachineStatus`,
:class:`BallReleased`); a reader driver reports what it read at the chute
(:class:`BallRead`, :class:`BallUnreadable`). Neither knows any game: which balls
a game uses, how many it draws and what is wrong with a draw is decided in
``recognition/balls``. Every event carries the time we received it (``at``) and
the raw data behind it, so the journal can keep it and a replay can reproduce it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..events import DeviceConnected, DeviceDisconnected, DeviceEvent, DeviceUnknownMessage

__all__ = [
    "MACHINE_EVENT_KINDS",
    "READER_EVENT_KINDS",
    "AnyBallDeviceEvent",
    "BallEvent",
    "BallRead",
    "BallReleased",
    "BallUnreadable",
    "MachineStatus",
]


class MachineStatus(DeviceEvent):
    """What the machine's PLC reports, emitted when any field changes.

    While the machine is busy (blower running, gate open, a ball in the chute, or a
    command sent in the last ``command_watch_s`` seconds) the driver repeats it every
    ``heartbeat_s`` seconds even when nothing changed (``repeated`` = True), so a judge
    that measures time by event times learns that time went by (a jammed ball).

    * ``state``: the state name from the register map ("idle", "mixing", "releasing",
      "fault", ...) or ``"unknown-<code>"``; ``state_code`` the raw value.
    * ``balls_released``: the PLC's release counter (16 bits, wraps at 65536);
      ``balls_in_machine``: the PLC's ball count when the map has one.
    * ``fault_code``: 0 when there is no fault; ``fault`` its description.
    * ``raw``: the registers read, e.g. ``"di[0]=1,0,0 ir[0]=1,17,0,31"``.
    """

    kind: Literal["ball_machine_status"] = "ball_machine_status"
    state: str
    state_code: int
    blower: bool
    gate: bool
    ball_in_chute: bool | None
    balls_released: int
    balls_in_machine: int | None = None
    fault_code: int = 0
    fault: str | None = None
    repeated: bool = False
    raw: str = ""


class BallReleased(DeviceEvent):
    """The PLC's release counter went up by ``count`` since the previous poll.

    One ``release_ball`` command releases one ball: a ``count`` of 2 or more means
    balls went out together. ``total`` is the counter after the change. The first poll
    after a (re)connect only sets the baseline: balls released while the driver was
    blind show as the difference the judge sees between two :class:`MachineStatus`.
    """

    kind: Literal["ball_released"] = "ball_released"
    count: int = Field(ge=1)
    total: int
    raw: str = ""


class BallRead(DeviceEvent):
    """A ball identified at the chute (RFID tag line, or a code read by the camera).

    ``ball`` is the ball's label from the configured ball-set table ("7", "48"); None
    when the tag is not in the table (an unknown tag: a foreign ball or a corrupt tag).
    ``color`` is the table's colour for the ball, None if the table gives none.
    Repeated reads of one ball sitting in the reader's field are folded into one.
    """

    kind: Literal["ball_read"] = "ball_read"
    tag: str
    ball: str | None
    color: str | None = None
    raw: str = ""


class BallUnreadable(DeviceEvent):
    """The reader saw something it could not read (its no-read message, a garbled line)."""

    kind: Literal["ball_unreadable"] = "ball_unreadable"
    reason: str
    raw: str = ""


BallEvent = MachineStatus | BallReleased | BallRead | BallUnreadable

#: everything a ball-machine or ball-reader driver emits, for parsing journaled events back
AnyBallDeviceEvent = Annotated[
    MachineStatus
    | BallReleased
    | BallRead
    | BallUnreadable
    | DeviceConnected
    | DeviceDisconnected
    | DeviceUnknownMessage,
    Field(discriminator="kind"),
]

MACHINE_EVENT_KINDS = frozenset({"ball_machine_status", "ball_released"})
READER_EVENT_KINDS = frozenset({"ball_read", "ball_unreadable"})
