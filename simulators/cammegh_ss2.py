"""Software twin of a Cammegh SS2 (Slingshot 2) automated roulette wheel controller.

It speaks the controller's serial protocol byte for byte, as specified in
``shared/protocols/cammegh-ss2.md`` and as a real wheel shows it in
``shared/fixtures/cammegh-ss2-capture.log``. It imports nothing from the studio:
a driver under test sees nothing but bytes on a serial line.

Two layers:

* :class:`SS2Model` is the pure core: no clock, no I/O, no threads. Each call to
  :meth:`SS2Model.tick` is one 500 ms status period and returns the byte lines the
  wheel sends in it; :meth:`SS2Model.command` takes one received command line and
  returns the reply lines. All randomness comes from one seeded ``random.Random``,
  so the same seed and the same calls give the same bytes.
* :class:`SS2Simulator` runs a model in real time (or faster, ``speed``) on a thread
  of its own against a pty master file descriptor or a pyserial-like object.

Quick start for a technician (prints the port to give the driver)::

    python -m simulators.cammegh_ss2 --speed 1

Choices where the spec leaves a gap (each marked *inference* in the code):

* The default operating mode is 133 (1 reverse + 4 NMB speed change + 128 automatic
  status), the behaviour of the capture (5 -> 2 directly, so no 1024), not the
  factory 1157. The default games-per-hour limit is 120, not the guide's 60: with
  60 the capture's 31-38 s cycles would be impossible (spec §8.2.6).
* The spin number goes up on the first state-1 or state-2 report after a game that
  produced a result (5 -> 2 normally, 5 -> 1 with mode 1024, 6 -> 1 when the table
  was closed in state 5), so a finished game's number is never reused. A voided
  game (miss-spin, no ball, power-off before the result) keeps its number.
* In manual-start mode (bit 2) the wheel waits in state 5 (state 1 with mode 1024,
  or after ``*P 1``) until ``*u 1``, ``*u 3`` or ``*K``.
* ``*P 0`` in any running state slows the rotor at ~25 units per report, showing the
  current state, and reports state 6 once the speed is below 10 (capture L446-462).
* ``*R`` while the table is closed (state 6) only answers ``*R OK``: it does not open
  the table. ``*R`` in state 3 after a miss-spin, or in state 7, re-spins from
  state 2 with the same spin number; in any other running state it restarts at state 1.
* State 7 (ball not in the track, ``*T g`` 32) is left with ``*R`` (re-spin) or ``*P 0``.
  Without ``*T g`` 32 the same fault shows as a failed launch (flag 8 in state 2).
* A re-spin reverses the rotor again when mode bit 1 is set (it is a new launch).
* ``*W``/``*M`` list layout: ``*W <total>`` then one ``*W <pocket> <count>`` per pocket.
* Not simulated: ``*w``, ``*s``, ``*C``, ``*I``, ``*i``, ``*j``, ``*d``, ``*y`` and the
  ``*Y`` bonus lines; they are ignored like any unknown command.
"""

from __future__ import annotations

import argparse
import collections
import errno
import fcntl
import math
import os
import random
import select
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, Self

from .abilities import ForcesNumber
from .ptys import open_pty_pair

TICK_SECONDS = 0.5
CRLF = b"\r\n"
POCKET_COUNTS = (37, 38, 39, 40)

#: fault names accepted by :meth:`SS2Model.inject`
FAULTS = (
    "launch_retry",
    "miss_spin",
    "no_ball",
    "sensor_fault",
    "ball_not_in_track",
    "power_loss",
    "garbage",
    "repeat_result",
)

# Warning flags, field 5 of *X (spec §6).
FLAG_NO_BALL = 1
FLAG_SAME_DIRECTION = 2
FLAG_SENSOR = 4
FLAG_LAUNCH = 8

# Operating-mode bits the model honours (spec §4.2).
MODE_REVERSE = 1
MODE_MANUAL_START = 2
MODE_NMB_SPEED_CHANGE = 4
MODE_NO_WINNING_LINE = 16
MODE_AUTO_STATUS = 128
MODE_FAULT_OUTPUT = 256
MODE_DELAY_IN_STATE1 = 1024
MODE_DELAY_IN_STATE2 = 2048

# *T g game-mode bits (spec §4.4).
GAME_STOP_AFTER_MISFIRE = 8
GAME_DIRECTION_CONTROL = 16
GAME_STATE7 = 32

DEFAULT_MODE = MODE_REVERSE + MODE_NMB_SPEED_CHANGE + MODE_AUTO_STATUS  # 133, the capture's behaviour

FIRMWARE = "2.52"
VERSION_STRING = "SS2 Controller V2.52 (simulated)"
COPROCESSOR_STRING = "FPGA 1.3 COP 1.1 (simulated)"

# *T settings: letter -> default values. Floats are rpm with one decimal.
_T_DEFAULTS: dict[str, tuple[Any, ...]] = {
    "d": (15,),
    "c": (0,),
    "p": (50,),
    "q": (800,),
    "k": (1900,),
    "i": (10,),
    "j": (0, 0, 0, 0),
    "r": (28000, 32000),
    "s": (14.0, 17.5),
    "t": (4000,),
    "n": (2920,),
    "m": (1.5,),
    "h": (120,),  # inference: the capture's cycle needs more than the guide's 60
    "z": (37,),
    "g": (0,),
    "o": (0,),
    "w": (0,),
}
_T_FLOAT = {"s", "m", "o"}
_T_SET_REPLY = {"c": b"T OK", "s": b"T OK", "z": b"*Z OK"}  # the guide's printed misprints, kept


def pocket_labels(pockets: int) -> tuple[str, ...]:
    """Pocket labels of a wheel: "0".."36", then "00", "000", "0000" as the count asks."""
    if pockets not in POCKET_COUNTS:
        raise ValueError(f"pockets must be one of {POCKET_COUNTS}, not {pockets!r}")
    return tuple(str(n) for n in range(37)) + ("00", "000", "0000")[: pockets - 37]


def wire_number(label: str | None) -> str:
    """A label as the wheel writes it: two characters, space-padded; "  " for none."""
    return "  " if label is None else label.rjust(2)


@dataclass(slots=True)
class _Frame:
    """One 500 ms status period, planned ahead."""

    state: int
    speed: int
    direction: int
    flags: int = 0
    result: str | None = None  # winning number revealed with this frame
    before: tuple[bytes, ...] = ()  # extra lines sent before the status line (*F ...)


class SS2Model:
    """Pure, clock-free model of one SS2 controller on serial port 1.

    Drive it with :meth:`tick` (one call = 500 ms) and :meth:`command`; both return
    the complete byte lines (ending ``\\r\\n``) the wheel sends.

    The model starts initialised and idle (state 6, table closed); ``*P 1`` opens it.
    ``spin`` and ``last_result`` set the counter and the last result shown, as in the
    capture (``SS2Model(seed, spin=11, last_result="34")`` then ``*P 1``).
    """

    # the controller's state, (re)set by _reset_controller
    _spin: int
    _last: str | None
    _game_done: bool
    _queue: collections.deque[_Frame]
    _hw_faults: tuple[int, ...]
    _rotor_turns: float

    def __init__(
        self,
        seed: int | None = None,
        *,
        pockets: int = 37,
        mode: int = DEFAULT_MODE,
        spin: int = 1,
        last_result: str | None = None,
        echo_commands: bool = False,
        games_per_hour: int = 120,
        bias: Mapping[str, float] | None = None,
    ) -> None:
        """`bias`: pocket -> relative weight (others 1), a wheel that favours pockets, for the bias watch's
        tests; None: every pocket equally likely."""
        if not 1 <= spin <= 256:
            raise ValueError("spin must be 1..256")
        if games_per_hour < 1:
            raise ValueError("games_per_hour must be at least 1")
        last_result = (last_result or "").strip() or None  # " 6" and "6" both mean pocket 6
        self._rng = random.Random(seed)
        self._labels = pocket_labels(pockets)
        self._bias = {str(k): float(v) for k, v in (bias or {}).items()}
        if set(self._bias) - set(self._labels) or any(not w > 0 for w in self._bias.values()):
            raise ValueError("bias is pocket -> a positive weight, for pockets of this wheel")
        self._settings: dict[str, tuple[Any, ...]] = dict(_T_DEFAULTS, z=(pockets,), h=(int(games_per_hour),))
        self._flash = dict(self._settings)  # what *T f saved; restored at mains power-up
        if last_result is not None:
            self._check_label(last_result)
        self.mode = int(mode)
        self.echo_commands = echo_commands
        self._status_on = True  # *q 1 / *q 0
        self._wins: collections.Counter[str] = collections.Counter()
        self._misses: collections.Counter[str] = collections.Counter()
        self._forced: collections.deque[str] = collections.deque()
        self._pending: dict[str, dict[str, Any]] = {}
        self._reset_controller(spin, last_result)
        self._mains = True
        self._boot_ticks = 0
        self._tick_no = 0

    # ----------------------------------------------------------- observation

    @property
    def state(self) -> int:
        return self._state

    @property
    def spin(self) -> int:
        return self._spin

    @property
    def last_result(self) -> str | None:
        return self._last

    @property
    def speed(self) -> int:
        return self._speed

    @property
    def direction(self) -> int:
        return self._direction

    @property
    def flags(self) -> int:
        return self._flags

    @property
    def pockets(self) -> int:
        return len(self._labels)

    @property
    def mains_on(self) -> bool:
        return self._mains

    @property
    def labels(self) -> tuple[str, ...]:
        return self._labels

    def snapshot(self) -> dict[str, Any]:
        return {
            "state": self._state,
            "spin": self._spin,
            "last_result": self._last,
            "speed": self._speed,
            "direction": self._direction,
            "flags": self._flags,
            "mode": self.mode,
            "pockets": self.pockets,
            "mains_on": self._mains,
            "booting": self._boot_ticks > 0,
            "phase": self._phase,
        }

    def status_line(self) -> bytes:
        """The ``*X`` report for the current status, with its terminator."""
        return (
            f"*X;{self._state};{self._spin:03d};{wire_number(self._last)};"
            f"{self._flags:X};{min(max(self._speed, 0), 999):03d};{self._direction}"
        ).encode("ascii") + CRLF

    # ------------------------------------------------------------ test hooks

    def force_next_number(self, label: str | int) -> None:
        """Queue the winning number of the next undecided game ("17", " 6", "00", 17)."""
        text = str(label).strip()
        self._check_label(text)
        self._forced.append(text)

    def inject(self, fault: str, **options: Any) -> None:
        """Arrange a fault (see :data:`FAULTS`).

        * ``launch_retry`` (``reports=`` 3-6): at the next launch, flag 8 in state 2 for
          that many reports, then the ball launches (state 3); with ``*T g`` 8 the wheel
          stops instead (state 6).
        * ``miss_spin``: in the current or next state 3, flag 2 after a few reports,
          held until ``*R`` (re-spin from state 2, same spin number); with ``*T g`` 8 the
          wheel stops (state 6).
        * ``no_ball`` (``stop_after=`` 150 reports = 75 s): in the current or next state 4,
          flag 1 persists and the wheel then stops by itself (state 6), no result.
        * ``sensor_fault`` (``codes=`` (21,)): now; flag 4, unsolicited ``*F <code>``
          lines when mode bit 256 is set, then the wheel stops (state 6, flag 4 kept
          until ``*F`` or ``*P 1``); ``*F`` in state 6 reports the codes.
        * ``ball_not_in_track``: at the next launch, state 7 when ``*T g`` 32 is set
          (until ``*R`` or ``*P 0``), otherwise a failed launch as ``launch_retry``.
        * ``power_loss``: the same as :meth:`power_loss`.
        * ``garbage``: the next report is preceded by a line of random non-ASCII bytes
          and a torn (truncated) status line.
        * ``repeat_result``: the next game's number equals the last one.
        """
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        if fault == "power_loss":
            self.power_loss()
            return
        if fault == "sensor_fault":
            codes = tuple(int(c) for c in options.get("codes", (21,)))
            if not codes or any(c <= 0 for c in codes):
                raise ValueError("sensor_fault codes must be positive *F codes")
            options = {"codes": codes}
        self._pending[fault] = dict(options)

    def power_loss(self) -> None:
        """Mains off: the controller stops sending and answering at once."""
        self._mains = False
        self._boot_ticks = 0
        self._queue.clear()
        self._phase = "off"

    def restore_power(self) -> None:
        """Mains on: a few silent ticks of initialisation, then idle in state 6 with
        spin 001, no last result and the ``*T`` values last saved with ``*T f``."""
        if self._mains:
            return
        self._mains = True
        self._boot_ticks = self._rng.randint(4, 8)
        self._phase = "booting"

    # ------------------------------------------------------------------ time

    def tick(self) -> list[bytes]:
        """Advance one 500 ms status period; return the lines sent in it."""
        self._tick_no += 1
        if not self._mains:
            return []
        if self._boot_ticks:
            self._boot_ticks -= 1
            if self._boot_ticks:
                return []
            self._settings = dict(self._flash)
            self._labels = pocket_labels(self._settings["z"][0])
            self._pending.clear()
            self._reset_controller(1, None)
        out: list[bytes] = []
        self._apply_immediate_faults()
        if not self._queue:
            self._plan_next()
        frame = self._queue.popleft()
        self._rotor_turns += frame.speed / 10 / 60 * TICK_SECONDS
        if "garbage" in self._pending:
            del self._pending["garbage"]
            out.extend(self._garbage_lines(frame))
        if frame.state in (1, 2) and self._game_done:
            self._spin = self._spin % 256 + 1
            self._game_done = False
        out.extend(frame.before)
        if frame.result is not None:
            self._last = frame.result
            self._game_done = True
            self._wins[frame.result] += 1
            if not self.mode & MODE_NO_WINNING_LINE:
                out.append(wire_number(frame.result).encode("ascii") + CRLF)
        self._state, self._speed, self._direction, self._flags = (
            frame.state,
            frame.speed,
            frame.direction,
            frame.flags,
        )
        if self.mode & MODE_AUTO_STATUS and self._status_on:
            out.append(self.status_line())
        return out

    # -------------------------------------------------------------- commands

    def command(self, line: str) -> list[bytes]:
        """Handle one received command line (terminator optional); return the replies."""
        if not self._mains or self._boot_ticks:
            return []  # no power, or initialising: no response (spec §1.2)
        text = line.strip("\r\n\t ")
        if not text:
            return []
        out: list[bytes] = []
        if self.echo_commands:
            out.append(text.encode("ascii", "replace") + CRLF)
        if not text.startswith("*") or len(text) < 2:
            return out
        parts = text[1:].split()
        name, args = parts[0], parts[1:]
        handler = getattr(self, "_cmd_" + _COMMAND_NAMES.get(name, ""), None)
        if handler is not None:
            out.extend(handler(args))
        return out

    def _cmd_power(self, args: list[str]) -> list[bytes]:
        if args == ["0"]:
            if self._phase not in ("idle", "halting"):
                self._halt()
            return [b"*P OK" + CRLF]
        if args == ["1"]:
            if self._phase in ("idle", "halting"):
                self._hw_faults = ()
                self._queue.clear()
                self._phase = "spinup"
            return [b"*P OK" + CRLF]
        return []

    def _cmd_reset(self, args: list[str]) -> list[bytes]:
        if args:
            return []
        if self._phase in ("miss_hold", "lost_hold"):
            self._queue.clear()
            self._phase = "stop"  # void acknowledged: re-spin from state 2, same spin number
        elif self._phase not in ("idle", "halting"):
            self._queue.clear()
            self._phase = "spinup"
        return [b"*R OK" + CRLF]

    def _cmd_poll(self, args: list[str]) -> list[bytes]:
        return [self.status_line()] if self._status_on and not args else []

    def _cmd_firmware(self, args: list[str]) -> list[bytes]:
        return [f"*S {FIRMWARE}".encode() + CRLF]

    def _cmd_version(self, args: list[str]) -> list[bytes]:
        return [f"*V {VERSION_STRING}".encode() + CRLF]

    def _cmd_coprocessor(self, args: list[str]) -> list[bytes]:
        return [f"*v {COPROCESSOR_STRING}".encode() + CRLF]

    def _cmd_key(self, args: list[str]) -> list[bytes]:
        if self._start_waiting_game(None):
            return [b"*K OK" + CRLF]
        return [b"*K CAM" + CRLF]

    def _cmd_user_start(self, args: list[str]) -> list[bytes]:
        if args not in (["1"], ["3"]):
            return []
        self._start_waiting_game(0 if args == ["1"] else 1)
        return [b"*u OK" + CRLF]

    def _cmd_mode(self, args: list[str]) -> list[bytes]:
        if not args:
            return [f"*o {self.mode}".encode() + CRLF]
        if len(args) != 1 or not args[0].isdigit():
            return []
        self.mode = int(args[0])
        return [f"*o {self.mode}".encode() + CRLF]

    def _cmd_status_output(self, args: list[str]) -> list[bytes]:
        if args not in (["0"], ["1"]):
            return []
        self._status_on = args == ["1"]
        return [b"*q OK" + CRLF]

    def _cmd_self_test(self, args: list[str]) -> list[bytes]:
        if self._state != 6 or self._speed or self._phase not in ("idle", "halting"):
            return [b"*F BUSY" + CRLF]
        codes = self._hw_faults or (0,)
        self._hw_faults = ()
        return [f"*F {code}".encode() + CRLF for code in codes]

    def _cmd_statistics(self, args: list[str], letter: str = "W") -> list[bytes]:
        if self._state not in (5, 6):
            return [f"*{letter} BUSY".encode() + CRLF]
        counts = self._wins if letter == "W" else self._misses
        lines = [f"*{letter} {sum(counts.values())}".encode() + CRLF]
        lines += [f"*{letter} {label} {counts[label]}".encode() + CRLF for label in self._labels]
        return lines

    def _cmd_misses(self, args: list[str]) -> list[bytes]:
        return self._cmd_statistics(args, "M")

    def _cmd_position(self, args: list[str]) -> list[bytes]:
        pocket = int(self._rotor_turns % 1 * self.pockets)
        return [f"*A {pocket}".encode() + CRLF]

    def _cmd_setup_summary(self, args: list[str]) -> list[bytes]:
        return [f"*O {self._state} 1 {self._settings['h'][0]} {self.mode}".encode() + CRLF]

    def _cmd_setup(self, args: list[str]) -> list[bytes]:
        if not args or len(args[0]) != 1:
            return []
        letter, values = args[0], args[1:]
        if letter == "f" and not values:
            self._flash = dict(self._settings)
            return [b"*T OK" + CRLF]
        low = letter.lower()
        if low not in _T_DEFAULTS:
            return []
        if letter.isupper():
            if values:
                return []
            return [f"*T {low} {self._format_setting(low)}".encode() + CRLF]
        parsed = self._parse_setting(low, values)
        if parsed is None:
            return []  # malformed or out of range: ignored
        if low == "c" and parsed == (20000,):
            parsed = (int(self._rotor_turns % 1 * 9999),)  # take the current wheel position
        self._settings[low] = parsed
        if low == "z":
            self._labels = pocket_labels(parsed[0])
        if low == "m":
            return [f"*T m {self._format_setting('m')}".encode() + CRLF]
        return [_T_SET_REPLY.get(low, b"*T OK") + CRLF]

    def _parse_setting(self, letter: str, values: list[str]) -> tuple[Any, ...] | None:
        if len(values) != len(_T_DEFAULTS[letter]):
            return None
        try:
            parsed = tuple(float(v) if letter in _T_FLOAT else int(v) for v in values)
        except ValueError:
            return None
        if any(v < 0 or math.isnan(v) for v in parsed):
            return None
        if letter == "s" and not (0 < parsed[0] <= parsed[1] < 100):
            return None
        if letter == "z" and parsed[0] not in POCKET_COUNTS:
            return None
        if letter == "h" and parsed[0] == 0:
            return None
        if letter == "t" and parsed[0] > 9999:
            return None
        return parsed

    def _format_setting(self, letter: str) -> str:
        values = self._settings[letter]
        return " ".join(f"{v:.1f}" if letter in _T_FLOAT else str(v) for v in values)

    # ------------------------------------------------------------- internals

    def _check_label(self, label: str) -> None:
        if label not in self._labels:
            raise ValueError(f"{label!r} is not a pocket of this {self.pockets}-pocket wheel")

    def _reset_controller(self, spin: int, last: str | None) -> None:
        """Controller state as after initialisation: idle, nothing planned."""
        self._spin = spin
        self._last = last
        self._game_done = False  # a result was shown for the current spin number
        self._state, self._speed, self._direction, self._flags = 6, 0, 0, 0
        self._queue = collections.deque()
        self._phase = "idle"  # what to plan when the queue runs dry
        self._segment = "idle"  # what the queued frames are
        self._hw_faults = ()
        self._requested_direction: int | None = None
        self._last_release: int | None = None  # tick the wheel last left its games-per-hour wait
        self._target = 0  # this game's rotor speed (rpm x 10)
        self._rotor_turns = 0.0

    def _noisy(self, nominal: int) -> int:
        jitter = max(-5, min(5, round(self._rng.gauss(0, 1.6))))
        return max(0, min(999, nominal + jitter))

    def _draw_game_speed(self) -> int:
        low, high = self._settings["s"]
        return round(self._rng.uniform(low * 10, high * 10))

    def _nmb_shift(self) -> int:
        """*T n moves the NMB point: lower -> earlier NMB, longer state 4 (inference: ~60 units per report)."""
        return round((2920 - self._settings["n"][0]) / 60)

    def _gph_length(self, natural: int) -> int:
        """Length of the games-per-hour wait point: at least one cycle between releases."""
        length = natural
        if self._last_release is not None:
            cycle = math.ceil(3600 / self._settings["h"][0] / TICK_SECONDS)
            length = max(length, cycle - (self._tick_no - self._last_release))
        self._last_release = self._tick_no + length
        return length

    def _choose_direction(self) -> int:
        requested, self._requested_direction = self._requested_direction, None
        control = self._settings["g"][0] & GAME_DIRECTION_CONTROL
        if control and self.mode & MODE_REVERSE and requested is not None:
            return requested
        if self.mode & MODE_REVERSE:
            return 1 - self._direction
        return 1 if control else 0

    def _start_waiting_game(self, direction: int | None) -> bool:
        if self._phase != "wait_start":
            return False
        self._requested_direction = direction
        self._queue.clear()
        self._phase = "stop"
        return True

    def _emit(
        self, state: int, speed: int, flags: int = 0, direction: int | None = None, **extra: Any
    ) -> None:
        d = self._direction if direction is None else direction
        self._queue.append(_Frame(state, speed, d, flags, **extra))

    def _queued_speed(self) -> int:
        return self._queue[-1].speed if self._queue else self._speed

    def _slow_down(self, speed: int) -> list[int]:
        """Rotor speeds while braking: about 25 units per report, ending at 0."""
        speeds = []
        while speed > 0:
            if speed < 10:
                speed = 0
            else:
                nxt = speed - round(self._rng.uniform(19, 31))
                speed = nxt if nxt >= 0 else self._rng.randint(0, min(6, speed - 1))
            speeds.append(speed)
        return speeds

    def _halt(self, flags: int = 0, before: tuple[bytes, ...] = ()) -> None:
        """Stop the wheel: keep showing the current state while slowing, state 6 below 10."""
        self._queue.clear()
        state, direction = self._state, self._direction
        idle_flags = FLAG_SENSOR if self._hw_faults else 0
        for speed in self._slow_down(self._speed):
            if speed >= 10:
                self._emit(state, speed, flags, direction, before=before)
            else:
                self._emit(6, speed, idle_flags, direction, before=before)
            before = ()
        if before:  # already stopped: the fault lines go with the first idle report
            self._emit(6, 0, idle_flags, direction, before=before)
        self._phase = self._segment = "halting"

    def _apply_immediate_faults(self) -> None:
        if "sensor_fault" in self._pending:
            codes = self._pending.pop("sensor_fault")["codes"]
            self._hw_faults = codes
            if self._phase not in ("idle", "halting"):
                before = (
                    tuple(f"*F {c}".encode() + CRLF for c in codes) if self.mode & MODE_FAULT_OUTPUT else ()
                )
                self._halt(FLAG_SENSOR, before)
        if "miss_spin" in self._pending and self._segment == "rim":
            self._queue.clear()
            self._plan_rim()
        if "no_ball" in self._pending and self._segment == "nmb":
            self._queue.clear()
            self._plan_nmb()

    def _plan_next(self) -> None:
        if self._phase == "halting":
            self._phase = "idle"
        getattr(self, "_plan_" + self._phase)()

    # Each planner queues frames, and names the segment it queued and the next phase.

    def _plan_idle(self) -> None:
        self._segment = "idle"
        self._emit(6, 0, FLAG_SENSOR if self._hw_faults else 0)

    def _plan_spinup(self, natural: int | None = None) -> None:
        """State 1: after *P 1 / *R ~17 reports, from a low speed if the rotor was still."""
        rng = self._rng
        self._segment = "spinup"
        if natural is None:
            count = rng.randint(16, 18)
            self._target = self._draw_game_speed()
        else:  # the games-per-hour wait of mode 1024
            count = self._gph_length(natural)
        if self._speed < 10:
            self._emit(1, rng.randint(40, 70))
            count -= 1
        for _ in range(count):
            self._emit(1, self._noisy(self._target))
        self._phase = "wait_start" if self.mode & MODE_MANUAL_START else "stop"

    def _plan_stop(self) -> None:
        """State 2, first part: old speed, braking ~25/report, 3-4 reports of 000."""
        rng = self._rng
        self._segment = "stop"
        old = self._target or self._speed
        count = rng.randint(1, 8)
        if self.mode & MODE_DELAY_IN_STATE2 and not self.mode & MODE_DELAY_IN_STATE1:
            count = self._gph_length(count)
        for _ in range(count):
            self._emit(2, self._noisy(old))
        for speed in self._slow_down(self._queued_speed()):
            self._emit(2, speed)
        for _ in range(rng.randint(2, 3)):
            self._emit(2, 0)
        self._phase = "launch"

    def _plan_launch(self) -> None:
        """State 2, second part: restart in the new direction and fire the ball."""
        rng = self._rng
        self._segment = "launch"
        direction = self._choose_direction()
        self._target = self._draw_game_speed()
        self._emit(2, rng.randint(37, 80), direction=direction)
        # the second line is near the game speed, at most ~35 below it (capture: 0-33 below)
        self._emit(2, max(0, self._target - min(35, round(abs(rng.gauss(0, 12))))), direction=direction)
        lost = self._pending.pop("ball_not_in_track", None)
        if lost is not None and self._settings["g"][0] & GAME_STATE7:
            self._phase = "lost_hold"
            return
        retry = self._pending.pop("launch_retry", None)
        if lost is not None and retry is None:
            retry = lost
        if retry is None:
            self._phase = "rim"
            return
        self._misses[rng.choice(self._labels)] += 1
        for _ in range(int(retry.get("reports", rng.randint(3, 6)))):
            self._emit(2, self._noisy(self._target), FLAG_LAUNCH, direction)
        self._phase = "stop_after_misfire" if self._settings["g"][0] & GAME_STOP_AFTER_MISFIRE else "rim"

    def _plan_stop_after_misfire(self) -> None:
        """The wheel stops by itself (*T g 8 after a misfire, or no ball for 75 s): state 6."""
        self._halt(self._flags)

    def _plan_rim(self) -> None:
        """State 3: 14-16 reports at the game speed; a miss-spin shows flag 2."""
        rng = self._rng
        self._segment = "rim"
        if self._pending.pop("miss_spin", None) is not None:
            self._misses[rng.choice(self._labels)] += 1
            for _ in range(rng.randint(2, 4)):
                self._emit(3, self._noisy(self._target))
            if self._settings["g"][0] & GAME_STOP_AFTER_MISFIRE:
                for _ in range(rng.randint(2, 3)):
                    self._emit(3, self._noisy(self._target), FLAG_SAME_DIRECTION)
                self._phase = "stop_after_misfire"
            else:
                self._phase = "miss_hold"
            return
        for _ in range(max(4, rng.randint(14, 16) - self._nmb_shift())):
            self._emit(3, self._noisy(self._target))
        self._phase = "nmb"

    def _plan_miss_hold(self) -> None:
        """State 3 with flag 2 until the host acknowledges the void game with *R."""
        self._segment = "miss_hold"
        self._emit(3, self._noisy(self._target), FLAG_SAME_DIRECTION)

    def _plan_lost_hold(self) -> None:
        """State 7 (ball not detected in the track) until *R or *P 0."""
        self._segment = "lost_hold"
        self._emit(7, self._noisy(self._target))

    def _plan_nmb(self) -> None:
        """State 4: 34-43 reports, the speed changed by up to +-*T m at NMB (mode bit 4)."""
        rng = self._rng
        if self._segment != "nmb" and self.mode & MODE_NMB_SPEED_CHANGE:
            change = self._settings["m"][0] * 10
            self._target = max(0, round(self._target + rng.uniform(-change, change)))
        self._segment = "nmb"
        no_ball = self._pending.pop("no_ball", None)
        if no_ball is not None:
            for _ in range(rng.randint(0, 3)):
                self._emit(4, self._noisy(self._target))
            for _ in range(int(no_ball.get("stop_after", 150))):
                self._emit(4, self._noisy(self._target), FLAG_NO_BALL)
            self._phase = "stop_after_misfire"  # the wheel stops by itself
            return
        for _ in range(max(8, rng.randint(34, 43) + self._nmb_shift())):
            self._emit(4, self._noisy(self._target))
        self._phase = "result"

    def _plan_result(self) -> None:
        """State 5: the winning number, then 2-3 reports (or the games-per-hour wait)."""
        rng = self._rng
        self._segment = "result"
        while self._forced and self._forced[0] not in self._labels:
            self._forced.popleft()  # no longer a pocket after a *T z change
        if self._forced:
            label = self._forced.popleft()
            self._pending.pop("repeat_result", None)
        elif "repeat_result" in self._pending and self._last is not None:
            del self._pending["repeat_result"]
            label = self._last
        elif self._bias:
            label = rng.choices(self._labels, weights=[self._bias.get(p, 1.0) for p in self._labels])[0]
        else:
            label = self._labels[rng.randrange(len(self._labels))]
        if self.mode & MODE_DELAY_IN_STATE1:
            # two rotor revolutions at the current speed
            count = max(2, math.ceil(2 / max(self._target / 10, 1) * 60 / TICK_SECONDS))
            self._phase = "gph_spinup"
        else:
            count = rng.randint(2, 3)
            if not self.mode & MODE_DELAY_IN_STATE2:
                count = self._gph_length(count)
            self._phase = "wait_start" if self.mode & MODE_MANUAL_START else "stop"
        self._emit(5, self._noisy(self._target), result=label)
        for _ in range(count - 1):
            self._emit(5, self._noisy(self._target))

    def _plan_gph_spinup(self) -> None:
        self._plan_spinup(natural=self._rng.randint(4, 6))

    def _plan_wait_start(self) -> None:
        """Manual start (mode bit 2): hold the current state until *u / *K."""
        self._segment = "wait_start"
        self._emit(self._state, self._noisy(self._target))

    def _garbage_lines(self, frame: _Frame) -> list[bytes]:
        rng = self._rng
        alphabet = bytes(b for b in range(256) if b >= 0x80 or (b < 0x20 and b not in (0x0A, 0x0D)))
        junk = bytes(rng.choice(alphabet) for _ in range(rng.randint(6, 20)))
        status = (
            f"*X;{frame.state};{self._spin:03d};{wire_number(self._last)};{frame.flags:X};"
            f"{frame.speed:03d};{frame.direction}"
        ).encode("ascii")
        torn = status[: rng.randint(3, len(status) - 3)]
        return [junk + CRLF, torn + CRLF]


_COMMAND_NAMES = {
    "P": "power",
    "R": "reset",
    "X": "poll",
    "S": "firmware",
    "V": "version",
    "v": "coprocessor",
    "K": "key",
    "u": "user_start",
    "o": "mode",
    "q": "status_output",
    "F": "self_test",
    "W": "statistics",
    "M": "misses",
    "A": "position",
    "O": "setup_summary",
    "T": "setup",
}


# ---------------------------------------------------------------- real time


class SerialLike(Protocol):
    def write(self, data: bytes) -> int | None: ...

    def read(self, size: int = 1) -> bytes: ...


class SS2Simulator(ForcesNumber):
    """Runs an :class:`SS2Model` in real time on its own thread against a byte stream.

    ``port`` is a file descriptor (a pty master from :func:`open_pty_pair` or
    ``os.openpty()``; it is switched to non-blocking) or a pyserial-like object with
    ``write()``/``read()`` (and ideally ``in_waiting``; give it a ``write_timeout`` if
    its peer may stop reading). ``speed`` divides the 500 ms tick (``speed=100`` ->
    5 ms). Commands are read from the same stream, split on ``\\r``, ``\\n`` or both.

    Output never blocks: while nobody has the pty slave open it is dropped (as a real
    UART would), and when the reader falls behind at most ``max_buffer`` bytes are kept
    (oldest whole lines dropped first; ``dropped_bytes`` counts them).
    """

    #: plays no dealer's part (studio.simulated.Simulator)
    table_event: Callable[[str, dict[str, Any]], None] | None = None

    def __init__(
        self,
        port: int | SerialLike,
        *,
        speed: float = 1.0,
        model: SS2Model | None = None,
        max_buffer: int = 16384,
        owns_port: bool = False,
        **model_options: Any,
    ) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        if model is not None and model_options:
            raise TypeError("pass either model= or model options, not both")
        self.model = model if model is not None else SS2Model(**model_options)
        self.speed = float(speed)
        self.max_buffer = max_buffer
        self.slave_path: str | None = None
        self.dropped_bytes = 0
        self._port = port
        self._fd = port if isinstance(port, int) else None
        self._owns_port = owns_port
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._out = bytearray()
        self._in = bytearray()
        self._peer = True  # False while nobody has the pty slave open
        if self._fd is not None:
            flags = fcntl.fcntl(self._fd, fcntl.F_GETFL)
            fcntl.fcntl(self._fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)

    @classmethod
    def on_pty(cls, *, speed: float = 1.0, **options: Any) -> SS2Simulator:
        """A simulator on a fresh raw pty it owns; the driver opens ``slave_path``."""
        master, path = open_pty_pair()
        sim = cls(master, speed=speed, owns_port=True, **options)
        sim.slave_path = path
        return sim

    # ------------------------------------------------------------- lifecycle

    def start(self) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("simulator was stopped and its port closed")
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="ss2-simulator", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread and wait for it; closes the port if the simulator owns it. Idempotent."""
        self._stop.set()
        # the caller's pyserial-like port has these optional members of pyserial's API or not (SerialLike)
        for name in ("cancel_read", "cancel_write"):
            cancel = getattr(self._port, name, None)
            if callable(cancel):
                try:
                    cancel()
                except Exception:  # noqa: BLE001, S110 - a port closed under us: stopping goes on anyway
                    pass
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        self._thread = None
        if self._owns_port and not self._closed:
            self._closed = True
            if self._fd is not None:
                os.close(self._fd)
            else:
                close = getattr(self._port, "close", None)
                if callable(close):
                    close()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------ thread-safe test hooks

    def inject(self, fault: str, **options: Any) -> None:
        with self._lock:
            self.model.inject(fault, **options)

    def force_next_number(self, label: str | int) -> None:
        with self._lock:
            self.model.force_next_number(label)

    def power_loss(self) -> None:
        with self._lock:
            self.model.power_loss()

    def restore_power(self) -> None:
        with self._lock:
            self.model.restore_power()

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return self.model.snapshot()

    # ------------------------------------------------------------------ loop

    def _run(self) -> None:
        interval = TICK_SECONDS / self.speed
        next_tick = time.monotonic() + interval
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                if now >= next_tick:
                    with self._lock:
                        lines = self.model.tick()
                    self._queue_output(lines)
                    # A late tick is not made up for: a real wheel's reports are never closer together than its
                    # cadence, and a burst of catch-up reports read at one instant would shrink the spin the
                    # driver times (a starved machine then voids valid spins for too few revolutions). Late by
                    # less than a tick, the pace holds; later, the wheel's time slows with the machine.
                    next_tick = max(next_tick + interval, now + interval / 2)
                self._flush()
                self._wait_and_read(max(0.0, next_tick - time.monotonic()))
        except Exception:  # a broken port ends the thread; stop() still works
            if not self._stop.is_set():
                raise

    def _wait_and_read(self, timeout: float) -> None:
        fd = self._fd
        if fd is None:
            self._read_serial(timeout)
            return
        if not self._peer:  # nobody on the slave side: look again every 50 ms at most
            if self._stop.wait(min(timeout, 0.05)):
                return
            self._read_fd(fd)
            return
        writers = [fd] if self._out else []
        readable, _writable, _ = select.select([fd], writers, [], min(timeout, 0.05))
        if readable:
            self._read_fd(fd)

    def _read_fd(self, fd: int) -> None:
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            self._peer = True
            return
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            self._peer = False  # slave side closed
            self.dropped_bytes += len(self._out)
            self._out.clear()
            return
        self._peer = True
        self._received(data)

    def _read_serial(self, timeout: float) -> None:
        port = self._port
        assert not isinstance(port, int), "a file descriptor is read by _read_fd"
        waiting = getattr(port, "in_waiting", None)  # an optional member of a pyserial-like port (SerialLike)
        if waiting is None:
            data = port.read(4096)  # relies on the object's own read timeout
        elif waiting:
            data = port.read(waiting)
        else:
            self._stop.wait(min(timeout, 0.005))
            return
        if data:
            self._received(bytes(data))

    def _received(self, data: bytes) -> None:
        self._in += data
        while True:
            cut = min((i for i in (self._in.find(b"\r"), self._in.find(b"\n")) if i >= 0), default=-1)
            if cut < 0:
                break
            line = bytes(self._in[:cut])
            del self._in[: cut + 1]
            if line:
                with self._lock:
                    replies = self.model.command(line.decode("ascii", "replace"))
                self._queue_output(replies)
        if len(self._in) > 1024:  # no terminator in sight: line noise
            self._in.clear()

    def _queue_output(self, lines: list[bytes]) -> None:
        if not lines:
            return
        data = b"".join(lines)
        if self._fd is not None and not self._peer:
            self.dropped_bytes += len(data)
            return
        self._out += data
        excess = len(self._out) - self.max_buffer
        if excess > 0:
            cut = self._out.find(b"\n", excess - 1) + 1 or len(self._out)
            self.dropped_bytes += cut
            del self._out[:cut]
        self._flush()

    def _flush(self) -> None:
        while self._out:
            try:
                port = self._port
                if isinstance(port, int):  # the file descriptor, self._fd
                    written = os.write(port, self._out)
                else:
                    if getattr(port, "out_waiting", 0) > self.max_buffer:
                        return
                    result = port.write(bytes(self._out))
                    written = len(self._out) if result is None else result
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno != errno.EIO:
                    raise
                self._peer = False
                self.dropped_bytes += len(self._out)
                self._out.clear()
                return
            except Exception:  # noqa: BLE001 - e.g. a serial write timeout: this output is lost
                self.dropped_bytes += len(self._out)
                self._out.clear()
                return
            if not written:
                return
            del self._out[:written]


@contextmanager
def ss2_pty(*, speed: float = 1.0, **options: Any) -> Iterator[str]:
    """Start a simulator on a fresh pty and yield the slave path a driver opens."""
    with SS2Simulator.on_pty(speed=speed, **options) as sim:
        yield sim.slave_path  # type: ignore[misc]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Cammegh SS2 wheel simulator on a pty")
    parser.add_argument("--speed", type=float, default=1.0, help="time factor (1 = real 500 ms ticks)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--pockets", type=int, default=37, choices=POCKET_COUNTS)
    parser.add_argument("--mode", type=int, default=DEFAULT_MODE)
    parser.add_argument("--open", action="store_true", help="open the table at once (*P 1)")
    args = parser.parse_args(argv)
    sim = SS2Simulator.on_pty(speed=args.speed, seed=args.seed, pockets=args.pockets, mode=args.mode)
    if args.open:
        sim.model.command("*P 1")
    with sim:
        print(sim.slave_path, flush=True)
        try:
            while sim.running:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()


def _simulator_on_pty(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[SS2Simulator, str]:
    sim = SS2Simulator.on_pty(speed=speed, seed=seed, **options)
    assert sim.slave_path is not None
    return sim, sim.slave_path


#: device kind -> factory, found by studio.simulated for tables whose device URL is "simulator"
SIMULATORS = {"cammegh-ss2": _simulator_on_pty}
