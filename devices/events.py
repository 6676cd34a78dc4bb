"""Typed events that device drivers emit.

Drivers know their wire protocol and nothing about games: an event says what the
device reported, with the time we received it and the raw text, so that the
journal can keep it and a replay can reproduce it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)


def utcnow() -> datetime:
    return datetime.now(UTC)


class DeviceEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    device_id: str
    at: datetime = Field(default_factory=utcnow)
    #: what the event is: every event class narrows it to a literal of its own (the discriminator of the
    #: unions the journal and the judges read), so a reader of any event may ask for its kind. Declared
    #: after `at` so that a dump keeps its order: device_id, at, kind, then the event's own fields
    kind: str


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
# Vendor-neutral: every wheel driver (devices/roulette/) maps its protocol onto these events, and the
# overhead camera (devices/overhead_camera/, a second source of winning numbers) speaks the same ones, so
# the judges and the console know no wire protocol and no camera, and a second wheel vendor is one driver
# module. Which source an event comes from is its device id, `<table>/<role>`, never its type.

Direction = Literal["clockwise", "counterclockwise"]

WheelPhase = Literal[
    "starting",  # the wheel is getting up to speed; no game
    "spin_started",  # a game is open: bets are taken while the wheel launches the ball
    "ball_in_rim",  # the ball runs in the rim (last bets)
    "no_more_bets",  # the ball is about to drop: betting is over
    "winning_number",  # the ball lies in a pocket; the wheel shows the number
    "closed",  # the wheel is stopped (table closed, or stopped by itself)
    "ball_out_of_track",  # the ball is not in the ball track: it must be put back before a re-spin
]
"""Where a wheel is in its cycle. A game goes spin_started -> ball_in_rim -> no_more_bets ->
winning_number; back to spin_started with the same game number from ball_in_rim, while betting
is open, is the wheel relaunching the ball."""

WHEEL_PHASES: tuple[WheelPhase, ...] = (
    "starting",
    "spin_started",
    "ball_in_rim",
    "no_more_bets",
    "winning_number",
    "closed",
    "ball_out_of_track",
)

WheelWarningCode = Literal[
    # standing warnings, reported with the phase (WheelStatus.warnings)
    "no_ball",  # the wheel does not see the ball
    "ball_with_rotor",  # the ball turns the same way as the rotor: a miss-spin
    "component_fault",  # a sensor, the motor or the encoder is faulty
    "launch_retry",  # a ball launch failed; the wheel is launching again
    # one-off reports (WheelWarning): unsolicited faults and self-test answers
    "ok",  # a self-test found nothing wrong
    "hardware_fault",
    "no_ball_position",  # the wheel cannot tell where the ball is
    "wrong_ball_direction",
    "motor_fault",
    "encoder_fault",  # the encoder failed, or the wheel is not calibrated
    "cannot_spin_clockwise",
    "cannot_spin_counterclockwise",
    "sensor_stuck_on",
    "sensor_blind",
    "self_test_timeout",
    "unknown_fault",  # a code the driver's table does not know (the vendor code says which)
    # a source that reads the wheel from a picture (an overhead camera) cannot give a reading it trusts;
    # it says so once per problem, and its next winning number clears it ("no_ball" too: none in sight)
    "rotor_not_found",  # the rotor's number ring is not where the calibration puts it
    "ball_on_fret",  # a ball lies on a fret between two pockets
    "ball_count",  # something in the pockets is not a whole number of balls
]


class WheelStatus(DeviceEvent):
    """A change in the wheel's phase, game number, standing warnings or direction.

    Emitted on change only (a wheel may repeat its status twice a second). `game_counter` is the
    wheel's own game number (it counts 1..256 and wraps: 256 is followed by 1 or 0). `warnings` are
    the standing warnings in a fixed order (`no_ball`, `ball_with_rotor`, `component_fault`,
    `launch_retry`); `last_number` the number the wheel shows, None when none. `raw` is the line
    received, for the journal.

    The wheel's own clock, for a wheel that reports at a fixed period (automatic status every 500 ms):
    `previous_phase_reports` is how many reports it sent in the phase it has just left, counted from that
    phase's first report with none missed and no poll in between, and `report_period_ms` that period.
    So the previous phase's first report came ``previous_phase_reports x report_period_ms`` of the wheel's
    time before this one, however late we read either. None (and left out of the dump) when not known:
    the phase did not change, the link came up within it, or a poll added reports of our own.
    """

    kind: Literal["wheel_status"] = "wheel_status"
    phase: WheelPhase
    game_counter: int
    last_number: str | None = None
    warnings: tuple[WheelWarningCode, ...] = ()
    speed_rpm: float | None = None
    direction: Direction | None = None
    raw: str = ""
    previous_phase_reports: int | None = Field(default=None, ge=1)
    report_period_ms: int | None = Field(default=None, ge=1)

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data: dict[str, object] = handler(self)
        for name in ("previous_phase_reports", "report_period_ms"):
            if data.get(name) is None:
                data.pop(name, None)  # a wheel that gives no clock keeps the journal shape it always had
        return data


#: the evidence fields of a WheelResult: left out of its dump when the source gives none (a wheel's own
#: result keeps the journal shape it always had)
_RESULT_EVIDENCE = ("numbers", "rotor_angle_cdeg", "quality", "settled_ms", "frames")


class WheelResult(DeviceEvent):
    """A winning pocket: the wheel's number (once per game number), or a reading of the balls at rest by
    another source of numbers (an overhead camera, emitted once per settled reading and again only when it
    changes).

    `number` is the pocket label as printed on the layout: "0".."36", "00", "000", "0000" ("0" and "00"
    are different pockets). `game_counter` is the wheel's own game number; None from a source that does
    not count games. `numbers`: every ball's pocket, in the wheel's order, when the source sees more than
    one ball (two balls in one pocket give the label twice; `number` is one of them); `pockets` gives
    them for one ball or several.

    Evidence, when the source reads pictures (None otherwise): `rotor_angle_cdeg`, the rotor's angle when
    read in hundredths of a degree (0-35999); `quality`, how well the number ring matched its calibrated
    colours, in percent; `settled_ms`, how long the reading had held; `frames`, over how many frames.
    `image`: the frame it was read from as JPEG bytes, for the dealer's screen and the technician;
    excluded from every dump, and so from the journal (a journal of frames would be gigabytes a day).
    """

    kind: Literal["wheel_result"] = "wheel_result"
    game_counter: int | None = None
    number: str
    numbers: tuple[str, ...] = ()
    rotor_angle_cdeg: int | None = Field(None, ge=0, lt=36000)
    quality: int | None = Field(None, ge=0, le=100)
    settled_ms: int | None = Field(None, ge=0)
    frames: int | None = Field(None, ge=1)
    image: bytes | None = Field(default=None, exclude=True, repr=False)
    raw: str = ""

    @model_validator(mode="after")
    def _number_among_numbers(self) -> WheelResult:
        if self.numbers and self.number not in self.numbers:
            raise ValueError(f"number {self.number!r} is not among the balls' numbers {list(self.numbers)}")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data: dict[str, object] = handler(self)
        for name in _RESULT_EVIDENCE:
            if data.get(name) in (None, (), []):
                data.pop(name, None)
        return data

    @property
    def pockets(self) -> tuple[str, ...]:
        """The pocket of every ball the source saw (one for a wheel's own result)."""
        return self.numbers or (self.number,)


class WheelWarning(DeviceEvent):
    """A fault the wheel reported once (not a standing warning): unsolicited, or a self-test answer.

    `code` is neutral (`ok` is a self-test that found nothing); `vendor_code` the wheel's own code
    and `description` its meaning, for the technician.
    """

    kind: Literal["wheel_warning"] = "wheel_warning"
    code: WheelWarningCode
    vendor_code: str = ""
    description: str = ""
    self_test: bool = False
    raw: str = ""


class WheelReply(DeviceEvent):
    """A reply to a command (the wheel's own words: `command` and `text` as the driver splits them)."""

    kind: Literal["wheel_reply"] = "wheel_reply"
    command: str
    text: str
    raw: str = ""


class WheelRestart(DeviceEvent):
    """The game number dropped without a new game starting: the wheel's controller restarted."""

    kind: Literal["wheel_restart"] = "wheel_restart"
    previous_counter: int
    game_counter: int
    raw: str = ""


class BallLaunched(DeviceEvent):
    """A ball was launched into the ball track (`balls`: how many were seen in the track)."""

    kind: Literal["ball_launched"] = "ball_launched"
    balls: int = Field(1, ge=0)
    raw: str = ""


class BallDropped(DeviceEvent):
    """Every ball left the ball track towards the pockets: the end of a spin (its start is BallLaunched).

    `revolutions`: the whole turns each ball made round the track (against the stator, where the track
    is), in the order the balls entered it. `complete`: the source followed every ball from its launch to
    its drop without a gap (no frame missed, no ball lost or confused with another); when False the counts
    are lower bounds at best and a judge must not rely on them. `balls`: the most balls seen in the track;
    `frames`: how many pictures the spin was followed over (0 from a source that does not read pictures).
    """

    kind: Literal["ball_dropped"] = "ball_dropped"
    balls: int = Field(1, ge=0)
    revolutions: tuple[int, ...] = ()
    complete: bool = True
    frames: int = Field(0, ge=0)
    raw: str = ""


#: the commands a roulette judge or the console sends to a wheel (`SendCommand.command`, a dealer's
#: action); every wheel driver's `send` maps them onto its protocol and passes its own commands through.
#: "start_spin" may name a direction ("start_spin clockwise"); "set_mode <n>" sets the wheel's
#: operating mode (a number the vendor defines).
START_SPIN = "start_spin"
ACKNOWLEDGE_VOID = "acknowledge_void"  # acknowledge a void game (the wheel may wait for it after a miss-spin)
SELF_TEST = "self_test"  # answered by WheelWarning(self_test=True) events
RESET = "reset"  # back to the start of a game (a re-spin once the ball is back in the track)
SET_MODE = "set_mode"
START_SPIN_COMMANDS = (START_SPIN, f"{START_SPIN} clockwise", f"{START_SPIN} counterclockwise")


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


WheelEvent = WheelStatus | WheelResult | WheelWarning | WheelReply | WheelRestart | BallLaunched | BallDropped
"""What a source of a wheel's events (a wheel driver, an overhead camera) emits besides connects,
disconnects and unknown lines."""

AnyDeviceEvent = Annotated[
    DeviceConnected
    | DeviceDisconnected
    | DeviceUnknownMessage
    | WheelStatus
    | WheelResult
    | WheelWarning
    | WheelReply
    | WheelRestart
    | BallLaunched
    | BallDropped
    | CardDrawn
    | CardUnreadable,
    Field(discriminator="kind"),
]
