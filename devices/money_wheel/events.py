"""Typed events of money-wheel sensors: an angle encoder read over Modbus, and a pointer reader.

Drivers report what the sensor says, with the time we received it and the raw
data behind it; they know nothing of segments' labels, layouts or games. Which
physical segment a position means, whether a spin is valid and what it pays is
decided in ``recognition/money_wheel``.

Encoder counts. ``count`` is the driver's continuous count since it connected:
the device's raw counter unwrapped (never jumps when the 16- or 32-bit register
wraps), so ``count`` differences are exact travel in counts, with their sign.
``position`` is the angle within the turn in counts (0 .. counts_per_turn - 1)
measured from the encoder's index pulse; it is None while the encoder has not
seen its index since power-up (an incremental encoder does not know where it is
until then). Which way the counts go (clockwise or counterclockwise) and where
segment 0 is are the wheel's calibration, not the driver's business.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..events import DeviceConnected, DeviceDisconnected, DeviceEvent, DeviceUnknownMessage

__all__ = [
    "ENCODER_EVENT_KINDS",
    "POINTER_EVENT_KINDS",
    "AnyMoneyWheelDeviceEvent",
    "EncoderFault",
    "EncoderSample",
    "EncoderZeroMark",
    "MoneyWheelEvent",
    "PointerRead",
    "PointerUnreadable",
    "WheelAtRest",
]


class EncoderSample(DeviceEvent):
    """Where the wheel is, emitted when it starts moving, at each reversal, at most every
    ``sample_interval`` while it moves, and as a heartbeat every ``heartbeat_s`` while it is still.

    * ``count``: continuous count since the driver connected (see the module docstring);
    * ``position``: counts from the index pulse, 0 .. counts_per_turn - 1; None before the first index;
    * ``index_count``: the device's index-pulse counter (16 bits, wraps);
    * ``velocity``: counts per second, signed, measured by the driver over its last polls;
    * ``moving``: False for a heartbeat of a still wheel;
    * ``reversal``: this sample is the turning point where the wheel changed direction.
    """

    kind: Literal["wheel_encoder_sample"] = "wheel_encoder_sample"
    count: int
    position: int | None
    counts_per_turn: int = Field(gt=0)
    index_count: int
    velocity: int
    moving: bool
    reversal: bool = False
    raw: str = ""


class EncoderFault(DeviceEvent):
    """The encoder cannot be trusted right now.

    ``code``: ``index_drift`` (the counts between two index pulses are not a whole turn: counts were
    lost, or the encoder slips on its shaft), ``device_fault`` (the device's status register is not 0),
    ``tracking_lost`` (the count moved more than half its register range between two polls).
    """

    kind: Literal["wheel_encoder_fault"] = "wheel_encoder_fault"
    code: str
    description: str
    raw: str = ""


class EncoderZeroMark(DeviceEvent):
    """A technician asked (command ``mark_zero``) for the position of the segment now under the pointer.

    The calibration procedure: bring the marked segment (segment 0 of the layout) under the pointer,
    send ``mark_zero``; this event carries the position to use as the wheel's ``zero_offset``.
    """

    kind: Literal["wheel_encoder_zero_mark"] = "wheel_encoder_zero_mark"
    position: int | None
    count: int
    counts_per_turn: int = Field(gt=0)
    raw: str = ""


class WheelAtRest(DeviceEvent):
    """The wheel has not moved for ``still_ms``: emitted once per stop.

    From an encoder (``sensor`` = "encoder"): the ``count``/``position`` it stopped at (moving less
    than the driver's ``rest_tolerance`` counts for ``still_ms``). From a pointer reader (``sensor`` =
    "pointer"): the same read for ``still_ms`` (``tag``/``segment_index``, or both None when the reader
    could not read anything; ``other_tag``/``other_index`` when it saw two tags: a segment boundary).
    """

    kind: Literal["wheel_at_rest"] = "wheel_at_rest"
    sensor: Literal["encoder", "pointer"]
    still_ms: int
    count: int | None = None
    position: int | None = None
    counts_per_turn: int | None = None
    tag: str | None = None
    segment_index: int | None = None
    other_tag: str | None = None
    other_index: int | None = None
    raw: str = ""


class PointerRead(DeviceEvent):
    """The pointer reader read the tag of the segment under the pointer (emitted when the read changes).

    ``segment_index`` is the tag's segment from the configured tag table (None: a tag the table does
    not know). ``other_tag``/``other_index``: the reader saw a second tag at once, the pointer is on
    the boundary between two segments.
    """

    kind: Literal["wheel_pointer_read"] = "wheel_pointer_read"
    tag: str
    segment_index: int | None
    other_tag: str | None = None
    other_index: int | None = None
    raw: str = ""


class PointerUnreadable(DeviceEvent):
    """The reader reported that it could not read the segment under the pointer (emitted on change)."""

    kind: Literal["wheel_pointer_unreadable"] = "wheel_pointer_unreadable"
    reason: str
    raw: str = ""


MoneyWheelEvent = (
    EncoderSample | EncoderFault | EncoderZeroMark | WheelAtRest | PointerRead | PointerUnreadable
)

#: everything a money-wheel driver emits, for parsing journaled events back
AnyMoneyWheelDeviceEvent = Annotated[
    EncoderSample
    | EncoderFault
    | EncoderZeroMark
    | WheelAtRest
    | PointerRead
    | PointerUnreadable
    | DeviceConnected
    | DeviceDisconnected
    | DeviceUnknownMessage,
    Field(discriminator="kind"),
]

ENCODER_EVENT_KINDS = frozenset({"wheel_encoder_sample", "wheel_encoder_fault", "wheel_encoder_zero_mark"})
POINTER_EVENT_KINDS = frozenset({"wheel_pointer_read", "wheel_pointer_unreadable"})
