"""Typed events that device drivers emit.

Drivers know their wire protocol and nothing about games: an event says what the
device reported, with the time we received it and the raw text, so that the
journal can keep it and a replay can reproduce it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field


def utcnow() -> datetime:
    return datetime.now(UTC)


class DeviceEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    device_id: str
    at: datetime = Field(default_factory=utcnow)


class DeviceConnected(DeviceEvent):
    kind: Literal["device_connected"] = "device_connected"
    port: str


class DeviceDisconnected(DeviceEvent):
    kind: Literal["device_disconnected"] = "device_disconnected"
    reason: str


class DeviceUnknownMessage(DeviceEvent):
    """A line the driver could not parse: logged and journaled, never fatal."""

    kind: Literal["device_unknown"] = "device_unknown"
    raw: str


# --- roulette wheels -------------------------------------------------------

Direction = Literal["clockwise", "counterclockwise"]


class WheelStatus(DeviceEvent):
    """A change in the wheel's reported state, game counter, warning flags or direction.

    Emitted on change only: the wheel repeats its status every 500 ms.
    `flags` is the SS2 warning bit field (1 no ball, 2 ball same direction as
    rotor, 4 sensor/motor fault, 8 failed launch).
    """

    kind: Literal["wheel_status"] = "wheel_status"
    state: int
    game_counter: int
    last_number: str | None
    flags: int
    speed_rpm: float
    direction: Direction
    raw: str


class WheelResult(DeviceEvent):
    """The wheel reported a winning pocket, once per game counter.

    `number` is the pocket label as printed on the layout: "0".."36", "00",
    "000", "0000" ("0" and "00" are different pockets).
    """

    kind: Literal["wheel_result"] = "wheel_result"
    game_counter: int
    number: str
    raw: str


class WheelFault(DeviceEvent):
    """An `*F <code>` report: unsolicited during play, or a self-test answer."""

    kind: Literal["wheel_fault"] = "wheel_fault"
    code: int
    description: str
    self_test: bool = False
    raw: str


class WheelReply(DeviceEvent):
    """A reply to a command (`*P OK`, `*T OK`, `*S 1.20`, `*W BUSY`, ...)."""

    kind: Literal["wheel_reply"] = "wheel_reply"
    command: str
    text: str
    raw: str


class WheelRestart(DeviceEvent):
    """The game counter dropped without a new game starting: the controller restarted."""

    kind: Literal["wheel_restart"] = "wheel_restart"
    previous_counter: int
    game_counter: int
    raw: str


# --- card shoes --------------------------------------------------------------


class CardDrawn(DeviceEvent):
    """One physical card read as it left the shoe (repeated reads of one card already folded into one).

    `card` is the card code from the deck vendor's table: rank A 2 3 4 5 6 7 8 9 T J Q K then suit
    S H D C ("AS", "TD", "9H"), "JK" for a joker; None when the payload is not in the table.
    `deck` is the deck or shoe identity the vendor table gives for the payload (to catch a card from
    another shoe), None if the table does not say. `special` marks the cut card.
    """

    kind: Literal["card_drawn"] = "card_drawn"
    card: str | None
    payload: str
    deck: str | None = None
    special: Literal["cut_card"] | None = None
    raw: str = ""


class CardUnreadable(DeviceEvent):
    """The shoe saw a card go by but could not read it: reported, never guessed."""

    kind: Literal["card_unreadable"] = "card_unreadable"
    reason: str
    raw: str = ""


WheelEvent = Union[WheelStatus, WheelResult, WheelFault, WheelReply, WheelRestart]

AnyDeviceEvent = Annotated[
    DeviceConnected
    | DeviceDisconnected
    | DeviceUnknownMessage
    | WheelStatus
    | WheelResult
    | WheelFault
    | WheelReply
    | WheelRestart
    | CardDrawn
    | CardUnreadable,
    Field(discriminator="kind"),
]
