"""Cammegh SS2 (Slingshot 2 / Slingshot TT) roulette wheel: parser, tracker, driver.

Spec: shared/protocols/cammegh-ss2.md (section numbers below refer to it).
Layers, each usable on its own:

* :func:`parse_line` - one framed line -> one typed, immutable message
  (:class:`Status`, :class:`WinningNumber`, :class:`Fault`, :class:`Bonus`,
  :class:`Calibration`, :class:`SensorReport`, :class:`Reply`, :class:`Echo`,
  :class:`Unknown`). Pure.
* :class:`SS2Tracker` - messages -> the vendor-neutral wheel events of :mod:`devices.events`
  (status on change, one result per game, warnings, replies, restarts), through the tables
  :data:`PHASES` (states), :data:`FLAG_WARNINGS` (warning flags) and :data:`FAULT_WARNINGS`
  (``*F`` codes). Pure: no I/O, no clock; the caller passes the receive time.
* :func:`iter_capture_events` - framer + parser + tracker over raw bytes, no port
  (``studio replay``, tests).
* :class:`CammeghSS2Driver` - the serial driver (9600 8N1) on top of
  :class:`devices.serial_line.SerialLineDriver`; it maps the neutral wheel commands
  (:data:`devices.events.START_SPIN`, ...) onto SS2 commands (:data:`COMMANDS`).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import IntFlag
from typing import Any

from ..abilities import SelfTests
from ..events import (
    ACKNOWLEDGE_VOID,
    RESET,
    SELF_TEST,
    SET_MODE,
    START_SPIN,
    DeviceEvent,
    DeviceUnknownMessage,
    Direction,
    WheelPhase,
    WheelReply,
    WheelRestart,
    WheelResult,
    WheelStatus,
    WheelWarning,
    WheelWarningCode,
    utcnow,
)
from ..framing import DEFAULT_MAX_LINE, LineFramer
from ..serial_line import SerialLineDriver

__all__ = [
    "COMMANDS",
    "FAULT_CODES",
    "FAULT_WARNINGS",
    "FLAG_WARNINGS",
    "PHASES",
    "Bonus",
    "Calibration",
    "CammeghSS2Driver",
    "Echo",
    "Fault",
    "Flags",
    "Impossible",
    "Message",
    "Reply",
    "SS2Tracker",
    "SensorReport",
    "Status",
    "Unknown",
    "WinningNumber",
    "iter_capture_events",
    "normalise_number",
    "parse_line",
    "ss2_command",
    "warnings_of",
]

log = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# Typed messages
# ---------------------------------------------------------------------------


class Flags(IntFlag):
    """Warning flags, field 5 of ``*X`` (§6). Bits combine: ``A`` = 8 + 2."""

    NO_BALL = 1  # ball not detected in the wheel
    BALL_SAME_DIRECTION = 2  # ball turning with the rotor in state 3 (miss-spin)
    COMPONENT_FAULT = 4  # sensor broken on/off, or motor/encoder fault
    LAUNCH_RETRY = 8  # failed ball launch, controller retrying


def flag_names(flags: int) -> list[str]:
    return [f.name for f in Flags if flags & f.value]  # type: ignore[misc]


FAULT_CODES: dict[int, str] = {
    0: "no errors detected",
    1: "hardware fault",
    2: "no ball detected",
    3: "no ball position detected",
    4: "detected ball direction is not correct",
    5: "motor is not driving the wheel correctly",
    6: "encoder has failed (or wheel not calibrated)",
    7: "could not play a game clockwise (no air jets or no calibration)",
    8: "could not play a game anti-clockwise (no air jets or no calibration)",
    11: "sensor 1 broken on (stuck on)",
    12: "sensor 2 broken on (stuck on)",
    13: "sensor 3 broken on (stuck on)",
    21: "sensor 1 broken off (cannot see ball)",
    22: "sensor 2 broken off (cannot see ball)",
    23: "sensor 3 broken off (cannot see ball)",
    100: "test has timed out",
}


def describe_fault(code: int) -> str:
    return FAULT_CODES.get(code, f"undefined fault code {code}")


# -- the SS2 onto the vendor-neutral wheel events ------------------------------------------

#: SS2 state (§5.1) -> neutral phase
PHASES: dict[int, WheelPhase] = {
    1: "starting",
    2: "spin_started",
    3: "ball_in_rim",
    4: "no_more_bets",
    5: "winning_number",
    6: "closed",
    7: "ball_out_of_track",
}

#: SS2 warning flag (§6) -> neutral standing warning, in the order WheelStatus.warnings lists them
FLAG_WARNINGS: tuple[tuple[Flags, WheelWarningCode], ...] = (
    (Flags.NO_BALL, "no_ball"),
    (Flags.BALL_SAME_DIRECTION, "ball_with_rotor"),
    (Flags.COMPONENT_FAULT, "component_fault"),
    (Flags.LAUNCH_RETRY, "launch_retry"),
)

#: SS2 ``*F`` code (§3.4) -> neutral warning code; a code not listed is "unknown_fault"
FAULT_WARNINGS: dict[int, WheelWarningCode] = {
    0: "ok",
    1: "hardware_fault",
    2: "no_ball",
    3: "no_ball_position",
    4: "wrong_ball_direction",
    5: "motor_fault",
    6: "encoder_fault",
    7: "cannot_spin_clockwise",
    8: "cannot_spin_counterclockwise",
    11: "sensor_stuck_on",
    12: "sensor_stuck_on",
    13: "sensor_stuck_on",
    21: "sensor_blind",
    22: "sensor_blind",
    23: "sensor_blind",
    100: "self_test_timeout",
}

#: operating-mode bit (§4.2): the wheel waits for a start command (``*K``, ``*u``) before each game
MODE_MANUAL_START = 2

#: neutral wheel command -> SS2 command (§4); "set_mode <n>" is ``*o <n>``
COMMANDS: dict[str, str] = {
    SELF_TEST: "*F",
    START_SPIN: "*K",
    f"{START_SPIN} clockwise": "*u 1",
    f"{START_SPIN} counterclockwise": "*u 3",
    ACKNOWLEDGE_VOID: "*R",
    RESET: "*R",
}


def warnings_of(flags: int) -> tuple[WheelWarningCode, ...]:
    """The neutral standing warnings of an SS2 flag field, in FLAG_WARNINGS order."""
    return tuple(code for bit, code in FLAG_WARNINGS if flags & bit)


def ss2_command(command: str) -> str:
    """The SS2 command for a neutral wheel command; an SS2 command (``*...``) passes unchanged.

    Raises ValueError for anything else, so a neutral command the driver does not know never
    reaches the wheel as text it would misread.
    """
    if command.startswith("*"):
        return command
    if command in COMMANDS:
        return COMMANDS[command]
    name, _, mode = command.partition(" ")
    if name == SET_MODE and mode.isascii() and mode.isdigit() and 0 <= int(mode) <= 65535:
        return f"*o {int(mode)}"
    raise ValueError(f"the SS2 driver knows no command {command!r}")


@dataclass(frozen=True, slots=True)
class Status:
    """``*X;<state>;<spin>;<num>;<flags>;<speed>;<dir>`` (§3.1)."""

    raw: str
    state: int
    game_counter: int
    number: str | None  # pocket label ("0", "00", "17", "000"), None for "  " (no result yet)
    flags: Flags
    speed_rpm: float
    direction: Direction


@dataclass(frozen=True, slots=True)
class WinningNumber:
    """The bare winning-number line (§3.2), e.g. ``" 6"`` -> ``"6"``."""

    raw: str
    number: str


@dataclass(frozen=True, slots=True)
class Fault:
    """``*F <code>`` (§3.4): unsolicited during play, or a self-test answer."""

    raw: str
    code: int
    description: str


@dataclass(frozen=True, slots=True)
class Bonus:
    """``*Y;k;nnn[;dd]`` bonus number (§3.3); ``value`` 999 means licence expired."""

    raw: str
    index: int
    value: int
    days_left: int | None

    @property
    def expired(self) -> bool:
        return self.value == 999


@dataclass(frozen=True, slots=True)
class Calibration:
    """``*C OK ...`` / ``*C BALL ...`` / ``*C FAIL ...`` sensor calibration progress (§3.5)."""

    raw: str
    outcome: str  # "OK", "BALL" or "FAIL"
    text: str  # everything after "*C "


@dataclass(frozen=True, slots=True)
class SensorReport:
    """``*bs n`` (sensor n saw the ball) / ``*bn nn`` (ball in pocket nn), after ``*I 4`` (§3.7)."""

    raw: str
    kind: str  # "bs" or "bn"
    value: int


@dataclass(frozen=True, slots=True)
class Reply:
    """A reply to a command: ``*P OK``, ``*S 1.20``, ``*W BUSY``, ``T OK``, ...

    ``command`` is the command letter the reply belongs to; ``*Z OK`` and the
    misprinted ``T OK`` are both normalised to command ``"T"`` (§10), the raw
    text keeps what was received.
    """

    raw: str
    command: str
    text: str


@dataclass(frozen=True, slots=True)
class Echo:
    """A host command seen in the received stream (``*P 1`` in the capture, §8.2.1)."""

    raw: str
    command: str
    args: str


@dataclass(frozen=True, slots=True)
class Unknown:
    raw: str
    reason: str


@dataclass(frozen=True, slots=True)
class Impossible:
    """A well-formed line with a value the protocol never sends (a spin number above 256): the
    wheel (or the line) is faulty, and nothing it says in that line may become a game's event."""

    raw: str
    reason: str


Message = (
    Status | WinningNumber | Fault | Bonus | Calibration | SensorReport | Reply | Echo | Unknown | Impossible
)


# ---------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------

# §9.7, with [0-9] instead of \d so that non-ASCII digits never match.
_STATUS = re.compile(r"\*X;([1-7]);([0-9]{3});(  | [0-9]|[0-9]{2}|000|0000);([0-9A-Fa-f]);([0-9]{3});([01])")
# §9.21
_WINNING = re.compile(r" [0-9]|[0-9]{2}|000|0000")
_BONUS = re.compile(r"\*Y;([1-6]);([0-9]{3})(?:;([0-9]{2}))?")
_SENSOR = re.compile(r"\*b([sn]) ?([0-9]{1,2})")
_FAULT_CODE = re.compile(r"[0-9]{1,3}")
_CALIBRATION = re.compile(r"(OK|BALL|FAIL)\b.*")

_DIRECTIONS: dict[str, Direction] = {"0": "clockwise", "1": "counterclockwise"}


def normalise_number(field: str) -> str:
    """Pocket label from the 2-4 character wire form; raises ValueError if not a pocket.

    ``" 0"`` -> ``"0"``, ``"00"`` -> ``"00"`` (a different pocket), ``" 6"`` -> ``"6"``,
    ``"36"`` -> ``"36"``, ``"000"``/``"0000"`` unchanged. ``"06"`` or ``"37"`` are not
    sent by the wheel (1-9 are space-padded, 37+ do not exist) and are rejected, so
    a garbled line is reported as unknown rather than as a wrong result.
    """
    if field in ("00", "000", "0000"):
        return field
    if len(field) == 2 and field[0] == " " and field[1] in "0123456789":
        return field[1]
    if len(field) == 2 and field.isascii() and field.isdigit() and 10 <= int(field) <= 36:
        return field
    raise ValueError(f"not a pocket: {field!r}")


def _p(
    reply: str | None = None, echo: str | None = None
) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    return (re.compile(reply) if reply is not None else None, re.compile(echo) if echo is not None else None)


# command letter -> (reply pattern, echo pattern) for the text after "*<letter> " (§3.8, §4).
# The reply pattern is tried first. Where the reply is byte-identical to the command
# (``*o 1157``, ``*I 4``, ``*T d 15``) the line is classed as a reply.
_COMMANDS: dict[str, tuple[re.Pattern[str] | None, re.Pattern[str] | None]] = {
    "P": _p(r"OK", r"[01]"),
    "R": _p(r"OK", r""),
    "S": _p(r".+", r""),
    "V": _p(r".+", r""),
    "v": _p(r".+", r""),
    "X": _p(None, r""),
    "K": _p(r"CAM|OK", r""),
    "u": _p(r"OK", r"[0-9]"),
    "I": _p(r"[04]", None),
    "l": _p(r"[04]", None),  # the guide's I/l glyph is ambiguous (§4.1)
    "A": _p(r"-?[0-9]+", r""),
    "d": _p(r"OK|g .+", r"g|s [0-9]+ [0-9]+"),
    "o": _p(r"[0-9]+", r""),
    "T": _p(r"OK|[a-z](?: .+)?", r"[A-Z]"),
    "Z": _p(r"OK", None),
    "w": _p(r".+", r""),
    "W": _p(r".+", r""),
    "M": _p(r".+", r""),
    "s": _p(r"t [0-9]+|e .+|r [0-9]+ .+", r"t|e|r [0-9]+"),
    "i": _p(r"all pockets ?= ?.*|[0-9]+ ?= ?.*|stored", r"a [0-9]+|g [0-9]+|s [0-9]+ [0-9]+|f"),
    "j": _p(r"OK", r"[0-9]+(?: [0-9]+)*"),
    "O": _p(r".+", r""),
    "q": _p(r"OK", r"[01]"),
    "y": _p(r"[0-9]{1,3}|R .+|A OK\([0-9]+\)", r"|R|A .+"),
}
# ``*T f`` (save to flash) is a command whose reply is ``*T OK``; a bare lower-case
# setter letter is otherwise not sent, so "f" alone is an echo.
_T_ECHO_ONLY = {"f"}


def _status(text: str) -> Status | Unknown | Impossible:
    m = _STATUS.fullmatch(text)
    if m is None:
        return Unknown(raw=text, reason="malformed status line")
    state, spin, num, flags, speed, direction = m.groups()
    if int(spin) > COUNTER_MAX:
        return Impossible(raw=text, reason=f"spin number {spin} (the range is 1-{COUNTER_MAX}, §7.4)")
    if num == "  ":
        number = None
    else:
        try:
            number = normalise_number(num)
        except ValueError:
            return Unknown(raw=text, reason=f"status line with invalid winning number {num!r}")
    return Status(
        raw=text,
        state=int(state),
        game_counter=int(spin),
        number=number,
        flags=Flags(int(flags, 16)),
        speed_rpm=int(speed) / 10,
        direction=_DIRECTIONS[direction],
    )


def parse_line(line: str) -> Message:
    """Parse one line from the wheel (terminator and trailing blanks may be present).

    Never raises: anything not recognised comes back as :class:`Unknown`.
    """
    text = line.rstrip()  # leading spaces matter (" 6"), trailing ones never do (§9.3)
    if not text:
        return Unknown(raw=line, reason="empty line")
    if text[0] != "*":
        if _WINNING.fullmatch(text):
            try:
                return WinningNumber(raw=text, number=normalise_number(text))
            except ValueError:
                return Unknown(raw=text, reason=f"invalid winning number {text!r}")
        if text == "T OK":  # misprint in the guide for *T c / *T s replies (§10)
            return Reply(raw=text, command="T", text="OK")
        return Unknown(raw=text, reason="unrecognised line")
    if text.startswith("*X;"):
        return _status(text)
    if text.startswith("*Y;"):
        m = _BONUS.fullmatch(text)
        if m is None:
            return Unknown(raw=text, reason="malformed bonus line")
        k, value, days = m.groups()
        return Bonus(raw=text, index=int(k), value=int(value), days_left=int(days) if days else None)
    if text.startswith("*b"):
        m = _SENSOR.fullmatch(text)
        if m is None:
            return Unknown(raw=text, reason="malformed sensor report")
        return SensorReport(raw=text, kind="b" + m.group(1), value=int(m.group(2)))

    letter, rest = text[1:2], text[2:]
    if rest and rest[0] != " ":
        return Unknown(raw=text, reason="unrecognised line")
    arg = rest[1:]
    if letter == "F":
        if arg == "":
            return Echo(raw=text, command="F", args="")
        if arg == "BUSY":
            return Reply(raw=text, command="F", text="BUSY")
        if _FAULT_CODE.fullmatch(arg):
            code = int(arg)
            return Fault(raw=text, code=code, description=describe_fault(code))
        return Unknown(raw=text, reason="malformed fault line")
    if letter == "C":
        if arg == "":
            return Echo(raw=text, command="C", args="")
        m = _CALIBRATION.fullmatch(arg)
        if m is None:
            return Unknown(raw=text, reason="malformed calibration line")
        return Calibration(raw=text, outcome=m.group(1), text=arg)
    patterns = _COMMANDS.get(letter)
    if patterns is None:
        return Unknown(raw=text, reason="unknown command letter")
    reply, echo = patterns
    if letter == "T" and arg in _T_ECHO_ONLY:
        return Echo(raw=text, command="T", args=arg)
    if reply is not None and reply.fullmatch(arg):
        return Reply(raw=text, command="T" if letter == "Z" else letter, text=arg)
    if echo is not None and echo.fullmatch(arg):
        return Echo(raw=text, command=letter, args=arg)
    return Unknown(raw=text, reason=f"unexpected text after *{letter}")


# ---------------------------------------------------------------------------
# Tracker
# ---------------------------------------------------------------------------

#: the guide allows a self-test up to 5 minutes; after this the pending mark expires
SELF_TEST_WINDOW = timedelta(minutes=6)
#: automatic status output: one report every 500 ms of the wheel's own clock (§3.1)
AUTO_STATUS_MS = 500
COUNTER_MAX = 256


def _is_wrap(previous: int, current: int) -> bool:
    """256 -> 1 (and, tolerated, 256 -> 0) is the next game, not a restart (§9.17)."""
    return previous == COUNTER_MAX and current in (0, 1)


class SS2Tracker:
    """Turns parsed SS2 messages into device events. Pure: no I/O, no clock.

    * :class:`WheelStatus` only when state, game counter, flags or direction change
      (the wheel repeats its status every 500 ms; speed and field 4 alone do not count).
      After :meth:`link_reset` (a reconnect) the next status is emitted again.
    * :class:`WheelResult` once per game: from the winning-number line or from the
      first state-5 status, whichever comes first (§9.14-16). A game ends when the
      game counter changes or the wheel leaves state 5, so two games in a row with
      the same number are both reported, and so is a game whose counter repeats
      (the guide's examples keep the counter across 5 -> 2, §7.4).
    * :class:`WheelRestart` when the counter drops, except the 256 -> 1/0 wrap (§9.17).
    * :class:`WheelFault` for ``*F <code>``; ``self_test`` is True while a self-test
      the tracker was told about (:meth:`self_test_requested`, or an ``*F`` echo in
      the stream) is being answered, and always for ``*F 0`` (§9.22).
    * :class:`WheelReply` for replies and command echoes (the echo's arguments are
      the ``text``), and for ``*C``/``*Y``/``*bs``/``*bn`` lines, whose command is
      ``"C"``, ``"Y"``, ``"bs"``, ``"bn"``.
    * :class:`WheelWarning` ``hardware_fault`` for a line with an impossible value (:class:`Impossible`: a
      spin number above 256), once until a valid status; the status is then unknown
      (as after a reconnect), so no result is tied to a game number the wheel did not give.
    * :class:`DeviceUnknownMessage` for anything else.

    A winning-number line received before any status line on the current link
    (first line after connect or reconnect) has no known game counter: reporting
    it with an older counter could credit the wrong game if games went by while
    the link was down. It is therefore held and tied to the counter of the NEXT
    status line, provided that line is in state 5 and shows the same number in
    field 4 (which is what the wheel sends right after the line, §3.2). If the
    next status does not confirm it, the line is reported as unknown and logged;
    a state-5 status still yields the result on its own.
    """

    def __init__(self, device_id: str) -> None:
        self.device_id = device_id
        # persistent across link resets
        self._counter: int | None = None  # last known game counter
        self._last_state: int | None = None
        self._result_number: str | None = None  # result already reported for the current game
        self._self_test_since: datetime | None = None
        self._self_test_answering = False
        # per link
        self._status: Status | None = None
        self._status_key: tuple[int, int, int, str] | None = None
        self._pending: WinningNumber | None = None
        self._impossible: str | None = None  # the impossible value reported since the last valid status
        # the wheel's clock: reports in the current state since its first one; None when that start is unknown
        self._phase_state: int | None = None
        self._phase_reports: int | None = None
        self._polled = 0  # reports still to come that may answer a poll
        # device info, for health()
        self.firmware_version: str | None = None
        self.firmware_full: str | None = None
        self.coprocessor_version: str | None = None
        self.mode: int | None = None
        self.stats: dict[str, int] = {
            "results": 0,
            "restarts": 0,
            "wraps": 0,  # with restarts, lets a consumer build a unique game id (§9.18)
            "faults": 0,
            "unknown": 0,
            "result_conflicts": 0,
            "orphan_numbers": 0,
            "impossible_values": 0,
        }

    # -- inputs besides messages ---------------------------------------------
    def link_reset(self) -> None:
        """The link was (re)opened: re-emit the next status, forget a held number."""
        self._status = None
        self._status_key = None
        self._pending = None
        self._phase_state = self._phase_reports = None

    def poll_sent(self) -> None:
        """The host asked for a status (``*X``): its answer is a report off the wheel's 500 ms clock.

        The answer comes within the next two reports (ms against 500 ms): the states they fall in get no count.
        """
        self._phase_reports = None
        self._polled = 2

    def self_test_requested(self, at: datetime) -> None:
        """The host sent ``*F``: the ``*F <code>`` lines that follow answer it."""
        self._self_test_since = at
        self._self_test_answering = False

    def self_test_cancelled(self) -> None:
        self._self_test_since = None
        self._self_test_answering = False

    @property
    def self_test_pending(self) -> bool:
        return self._self_test_since is not None

    @property
    def status(self) -> Status | None:
        return self._status

    @property
    def game_counter(self) -> int | None:
        return self._counter

    # -- main entry ------------------------------------------------------------
    def feed(self, message: Message, at: datetime) -> list[DeviceEvent]:
        if self._self_test_since is not None:
            if at - self._self_test_since > SELF_TEST_WINDOW:
                self.self_test_cancelled()
            elif self._self_test_answering and not isinstance(message, Fault):
                self.self_test_cancelled()  # the burst of answer lines is over
        if isinstance(message, Status):
            return self._on_status(message, at)
        if isinstance(message, WinningNumber):
            return self._on_number(message, at)
        if isinstance(message, Fault):
            return self._on_fault(message, at)
        if isinstance(message, Reply):
            self._note_reply(message)
            if message.command == "F":  # *F BUSY: the self-test was refused
                self.self_test_cancelled()
            return [self._reply(message.command, message.text, message.raw, at)]
        if isinstance(message, Echo):
            if message.command == "F" and message.args == "":
                self.self_test_requested(at)
            elif message.command == "X":
                self.poll_sent()
            return [self._reply(message.command, message.args, message.raw, at)]
        if isinstance(message, Calibration):
            return [self._reply("C", message.text, message.raw, at)]
        if isinstance(message, Bonus):
            return [self._reply("Y", message.raw[3:], message.raw, at)]
        if isinstance(message, SensorReport):
            return [self._reply(message.kind, str(message.value), message.raw, at)]
        if isinstance(message, Impossible):
            return self._on_impossible(message, at)
        self.stats["unknown"] += 1
        return [DeviceUnknownMessage(device_id=self.device_id, at=at, raw=message.raw)]

    # -- handlers --------------------------------------------------------------
    def _on_impossible(self, m: Impossible, at: datetime) -> list[DeviceEvent]:
        self.stats["impossible_values"] += 1
        self._status = None  # what the wheel's state is, is unknown now
        self._status_key = None
        self._phase_state = self._phase_reports = None
        log.warning("%s: impossible value from the wheel: %s in %r", self.device_id, m.reason, m.raw)
        if self._impossible == m.reason:
            return []  # the wheel repeats its status twice a second: one fault until it makes sense again
        self._impossible = m.reason
        return [
            WheelWarning(
                device_id=self.device_id,
                at=at,
                code="hardware_fault",
                description=f"impossible value from the wheel: {m.reason}",
                raw=m.raw,
            )
        ]

    def _on_status(self, s: Status, at: datetime) -> list[DeviceEvent]:
        self._impossible = None
        events: list[DeviceEvent] = []
        previous = self._counter
        if previous is not None and s.game_counter != previous:
            if s.game_counter < previous and not _is_wrap(previous, s.game_counter):
                self.stats["restarts"] += 1
                log.warning(
                    "%s: game counter dropped %d -> %d: controller restart?",
                    self.device_id,
                    previous,
                    s.game_counter,
                )
                events.append(
                    WheelRestart(
                        device_id=self.device_id,
                        at=at,
                        previous_counter=previous,
                        game_counter=s.game_counter,
                        raw=s.raw,
                    )
                )
            elif _is_wrap(previous, s.game_counter):
                self.stats["wraps"] += 1
            self._result_number = None  # a new game
        elif self._last_state == 5 and s.state != 5:
            self._result_number = None  # left state 5 with the same counter: still a new game
        self._counter = s.game_counter
        self._last_state = s.state
        self._status = s
        previous_phase_reports = self._count_report(s.state)

        key = (s.state, s.game_counter, int(s.flags), s.direction)
        if key != self._status_key:
            self._status_key = key
            if s.flags:
                log.warning(
                    "%s: warning flags %s in %s", self.device_id, "+".join(flag_names(s.flags)), s.raw
                )
            events.append(
                WheelStatus(
                    device_id=self.device_id,
                    at=at,
                    phase=PHASES[s.state],
                    game_counter=s.game_counter,
                    last_number=s.number,
                    warnings=warnings_of(s.flags),
                    speed_rpm=s.speed_rpm,
                    direction=s.direction,
                    raw=s.raw,
                    previous_phase_reports=previous_phase_reports,
                    report_period_ms=AUTO_STATUS_MS if previous_phase_reports else None,
                )
            )

        pending, self._pending = self._pending, None
        if pending is not None:
            if s.state == 5 and s.number == pending.number:
                if self._result_number is None:
                    events.append(self._result(s.game_counter, pending.number, pending.raw, at))
                elif self._result_number != pending.number:
                    self._conflict(pending.number, pending.raw)
                # else: this game's result was already reported before the reconnect
            else:
                self.stats["orphan_numbers"] += 1
                log.warning(
                    "%s: winning-number line %r not confirmed by the next status %r; reported as unknown",
                    self.device_id,
                    pending.raw,
                    s.raw,
                )
                events.append(DeviceUnknownMessage(device_id=self.device_id, at=at, raw=pending.raw))

        if s.state == 5 and s.number is not None:
            if self._result_number is None:
                events.append(self._result(s.game_counter, s.number, s.raw, at))
            elif self._result_number != s.number:
                self._conflict(s.number, s.raw)
        return events

    def _on_number(self, n: WinningNumber, at: datetime) -> list[DeviceEvent]:
        if self._status is None or self._counter is None:
            # no status on this link yet: wait for the next status line (see class doc)
            if self._pending is not None:
                self.stats["orphan_numbers"] += 1
                old = self._pending
                self._pending = n
                return [DeviceUnknownMessage(device_id=self.device_id, at=at, raw=old.raw)]
            self._pending = n
            return []
        if self._result_number is None:
            return [self._result(self._counter, n.number, n.raw, at)]
        if self._result_number != n.number:
            self._conflict(n.number, n.raw)
        return []  # the same game's result again: once per game

    def _on_fault(self, f: Fault, at: datetime) -> list[DeviceEvent]:
        self.stats["faults"] += 1
        self_test = f.code == 0 or self._self_test_since is not None
        if self_test:
            if f.code == 0:
                self.self_test_cancelled()  # "*F 0" is the whole answer
            else:
                self._self_test_answering = True
        else:
            log.warning("%s: fault %d (%s)", self.device_id, f.code, f.description)
        return [
            WheelWarning(
                device_id=self.device_id,
                at=at,
                code=FAULT_WARNINGS.get(f.code, "unknown_fault"),
                vendor_code=str(f.code),
                description=f.description,
                self_test=self_test,
                raw=f.raw,
            )
        ]

    # -- helpers ---------------------------------------------------------------
    def _count_report(self, state: int) -> int | None:
        """Count a report in its state; on a change of state, the reports the wheel sent in the one it left.

        Only a state whose first report we read has a count: not the one the link came up in, nor one
        cut by an impossible line. A report lost to line noise only lowers a count, so the wheel's clock
        never says a phase was longer than it was. A poll's answer would raise it: it voids the count.
        """
        polled, self._polled = self._polled > 0, max(0, self._polled - 1)
        if state == self._phase_state:
            if self._phase_reports is not None:
                self._phase_reports = None if polled else self._phase_reports + 1
            return None
        known, left = self._phase_state is not None, self._phase_reports
        self._phase_state, self._phase_reports = state, (1 if known and not polled else None)
        return left

    def _result(self, counter: int, number: str, raw: str, at: datetime) -> WheelResult:
        self._result_number = number
        self.stats["results"] += 1
        return WheelResult(device_id=self.device_id, at=at, game_counter=counter, number=number, raw=raw)

    def _conflict(self, number: str, raw: str) -> None:
        self.stats["result_conflicts"] += 1
        log.warning(
            "%s: game %s already reported %r, now %r (%r); keeping the first",
            self.device_id,
            self._counter,
            self._result_number,
            number,
            raw,
        )

    def _reply(self, command: str, text: str, raw: str, at: datetime) -> WheelReply:
        return WheelReply(device_id=self.device_id, at=at, command=command, text=text, raw=raw)

    def _note_reply(self, r: Reply) -> None:
        if r.command == "S":
            self.firmware_version = r.text
        elif r.command == "V":
            self.firmware_full = r.text
        elif r.command == "v":
            self.coprocessor_version = r.text
        elif r.command == "o":
            self.mode = int(r.text)

    def snapshot(self) -> dict[str, Any]:
        s = self._status
        return {
            # neutral, for the console's wheel family (docs/console.md)
            "phase": PHASES[s.state] if s else None,
            "warnings": list(warnings_of(s.flags)) if s else [],
            "manual_start": None if self.mode is None else bool(self.mode & MODE_MANUAL_START),
            # the SS2's own, for the technician's wheel page
            "state": s.state if s else None,
            "game_counter": self._counter,
            "last_number": s.number if s else None,
            "flags": int(s.flags) if s else None,
            "flag_names": flag_names(s.flags) if s else [],
            "speed_rpm": s.speed_rpm if s else None,
            "direction": s.direction if s else None,
            "firmware_version": self.firmware_version,
            "firmware_full": self.firmware_full,
            "coprocessor_version": self.coprocessor_version,
            "mode": self.mode,
            "self_test_pending": self.self_test_pending,
            **self.stats,
        }


# ---------------------------------------------------------------------------
# Replay without a port
# ---------------------------------------------------------------------------


def iter_capture_events(
    chunks: Iterable[bytes],
    device_id: str,
    *,
    clock: Callable[[], datetime] = utcnow,
    max_line: int = DEFAULT_MAX_LINE,
) -> Iterator[DeviceEvent]:
    """Framer + parser + tracker over raw received bytes (a capture file, a replay).

    ``clock`` stamps each line (the capture has no timestamps); pass a fixed
    clock for reproducible output. Lines the driver would journal as unknown are
    yielded as :class:`DeviceUnknownMessage`.
    """
    framer = LineFramer(max_line=max_line)
    tracker = SS2Tracker(device_id)
    for chunk in chunks:
        for line in framer.feed(chunk):
            yield from tracker.feed(parse_line(line), clock())


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


class CammeghSS2Driver(SerialLineDriver, SelfTests):
    """Cammegh SS2 wheel controller on serial port 1 (9600 8N1, no flow control)."""

    kind = "cammegh-ss2"
    family = "roulette-wheel"
    #: the wheel's own self-test (§9.8; it answers BUSY unless the wheel is stopped)
    self_test_command = "*F"
    baudrate = 9600
    #: minimum spacing of ``*X`` polls (§3.1, §9.24)
    poll_interval = 0.1
    #: the time between ball_in_rim and no_more_bets gives the ball's revolutions: stamp lines when they are read
    #: off the port, never when a busy event loop gets to them
    timed_reads = True

    def __init__(
        self, device_id: str, url: str, on_event: Callable[[DeviceEvent], None], **options: Any
    ) -> None:
        # With automatic status (mode bit 128, the usual setting) the wheel reports every 500 ms even when idle,
        # so six missed reports mean it lost power or the cable; set None for a polled wheel.
        options.setdefault("silence_timeout", 3.0)
        #: power an idle wheel on (``*P 1``) whenever the link comes up and finds it in state 6: for tables
        #: that run unattended, so that a wheel recovers by itself after a mains cut
        self.keep_powered = bool(options.pop("keep_powered", False))
        super().__init__(device_id, url, on_event, **options)
        self._fresh_link = False
        self.tracker = SS2Tracker(device_id)
        self._tracker_lock = threading.Lock()
        self._poll_lock = threading.Lock()
        self._last_poll: float | None = None

    # -- SerialLineDriver hooks ----------------------------------------------
    def handle_line(self, line: str) -> list[DeviceEvent]:
        message = parse_line(line)
        if isinstance(message, Unknown):
            log.info("%s: unknown line %r (%s)", self.device_id, message.raw, message.reason)
        with self._tracker_lock:
            events = self.tracker.feed(message, utcnow())
        if isinstance(message, Status) and self._fresh_link:
            self._fresh_link = False
            if self.keep_powered and message.state == 6:
                log.info("%s: wheel idle after the link came up; powering it on", self.device_id)
                try:
                    self.send("*P 1")
                except Exception as exc:  # noqa: BLE001 - a failed power-on is logged; the link stays up
                    log.warning("%s: could not power the wheel on: %s", self.device_id, exc)
        return events

    def on_connected(self) -> None:
        self._fresh_link = True
        with self._tracker_lock:
            self.tracker.link_reset()

    def device_info(self) -> dict[str, Any]:
        with self._tracker_lock:
            return self.tracker.snapshot()

    # -- commands ----------------------------------------------------------------
    def send(self, command: str) -> None:
        """Send a neutral wheel command (:data:`COMMANDS`) or any SS2 command.

        ``*X`` is spaced >= 100 ms and ``*F`` marks a self-test.
        """
        command = ss2_command(command)
        if command == "*X":
            with self._poll_lock:
                if self._last_poll is not None:
                    wait = self._last_poll + self.poll_interval - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                with self._tracker_lock:
                    self.tracker.poll_sent()  # (before the answer can come)
                super().send(command)
                self._last_poll = time.monotonic()
            return
        if command == "*F":
            with self._tracker_lock:
                self.tracker.self_test_requested(utcnow())
            try:
                super().send(command)
            except Exception:
                with self._tracker_lock:
                    self.tracker.self_test_cancelled()
                raise
            return
        super().send(command)

    def power(self, on: bool) -> None:
        """``*P 1`` starts the wheel (state 1), ``*P 0`` stops it (state 6)."""
        self.send("*P 1" if on else "*P 0")

    def reset(self) -> None:
        """``*R``: reset to state 1; also acknowledges a void game after a miss-spin."""
        self.send("*R")

    def start_game(self, direction: Direction | None = None) -> None:
        """Start a game: ``*K`` (no direction), ``*u 1`` clockwise, ``*u 3`` counterclockwise."""
        if direction is None:
            self.send("*K")
        elif direction == "clockwise":
            self.send("*u 1")
        elif direction == "counterclockwise":
            self.send("*u 3")
        else:
            raise ValueError(f"direction must be 'clockwise', 'counterclockwise' or None, not {direction!r}")

    def set_mode(self, mode: int) -> None:
        """``*o <mode>``: the operating mode, a sum of option bits (e.g. 1159)."""
        if isinstance(mode, bool) or not isinstance(mode, int) or not 0 <= mode <= 65535:
            raise ValueError(f"mode must be an int in 0..65535, not {mode!r}")
        self.send(f"*o {mode}")

    def self_test(self) -> None:
        """``*F``: self-test (idle wheel only, up to 5 min); answers come as WheelFault(self_test=True)."""
        self.send("*F")

    def poll_status(self) -> None:
        """``*X``: ask for one status line; blocks as needed to keep polls >= 100 ms apart."""
        self.send("*X")


DRIVERS = {"cammegh-ss2": CammeghSS2Driver}
REPLAYERS = {"cammegh-ss2": iter_capture_events}
