"""Pure spin analysis: runs of turning in one direction, spin validity, the segment at rest. No I/O.

A spin is followed as one number, the wheel's **clockwise travel** in turns since it
last stood still (an encoder gives it from its count; a pointer reader from the
segments it saw go by). :class:`RunTracker` cuts that path into **runs**, stretches
in one direction, with hysteresis: the wheel must come back ``tolerance`` turns from
its furthest point before a reversal counts (a flapper rocking the wheel back on a
pin is not a reversal).

:func:`check_spin` applies a :class:`SpinRule`: the last run must be in the required
direction and at least ``min_turns`` long; with ``counter_start`` a run the other way
of at least ``counter_min_turns`` must come before it (the seed's Wheel of Fortune:
"counterclockwise, then clockwise ... at least 3 full spins clockwise", L2471).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal

__all__ = ["PointerPath", "Run", "RunTracker", "SpinCheck", "SpinRule", "check_spin", "fmt_turns"]

CW: Final = "clockwise"
CCW: Final = "counterclockwise"


@dataclass(frozen=True)
class Run:
    direction: Literal["clockwise", "counterclockwise"]
    turns: Fraction


class RunTracker:
    """Clockwise travel values in, runs out (see the module docstring)."""

    def __init__(self, start: Fraction, tolerance: Fraction) -> None:
        if tolerance <= 0:
            raise ValueError("the reversal tolerance must be positive")
        self.start = Fraction(start)
        self.tolerance = Fraction(tolerance)
        self.closed: list[Run] = []
        self._run_start = self.start
        self._extreme = self.start
        self._dir = 0
        self.last = self.start

    def feed(self, travel: Fraction) -> None:
        x = Fraction(travel)
        self.last = x
        if self._dir == 0:
            if abs(x - self._run_start) >= self.tolerance:
                self._dir = 1 if x > self._run_start else -1
                self._extreme = x
        elif (x - self._extreme) * self._dir > 0:
            self._extreme = x
        elif abs(x - self._extreme) >= self.tolerance:
            self.closed.append(Run(CW if self._dir > 0 else CCW, abs(self._extreme - self._run_start)))
            self._run_start = self._extreme
            self._dir = -self._dir
            self._extreme = x

    @property
    def started(self) -> bool:
        return self._dir != 0 or bool(self.closed)

    def runs(self) -> list[Run]:
        out = list(self.closed)
        if self._dir != 0:
            out.append(Run(CW if self._dir > 0 else CCW, abs(self._extreme - self._run_start)))
        return out


@dataclass(frozen=True)
class SpinRule:
    direction: Literal["clockwise", "counterclockwise", "either"] = "either"
    min_turns: Fraction = Fraction(2)
    counter_start: bool = False
    counter_min_turns: Fraction = Fraction(1, 20)

    def describe(self) -> str:
        way = "" if self.direction == "either" else f" {self.direction}"
        text = f"at least {fmt_turns(self.min_turns)} full turns{way}"
        if self.counter_start:
            text += " after a swing the other way"
        return text


@dataclass(frozen=True)
class SpinCheck:
    ok: bool
    code: str | None = None
    message: str = ""
    turns: Fraction = Fraction(0)
    direction: str | None = None


def check_spin(runs: list[Run], rule: SpinRule) -> SpinCheck:
    """Is this spin valid? The code of a failed check is ``weak_spin``, ``wrong_direction`` or
    ``no_counter_start`` (each voids the round so that it is spun again)."""
    if not runs:
        return SpinCheck(False, "weak_spin", "The wheel did not turn: it must be spun again.")
    main = runs[-1]
    if rule.direction != "either" and main.direction != rule.direction:
        return SpinCheck(
            False,
            "wrong_direction",
            f"The wheel turned {main.direction} ({fmt_turns(main.turns)} turns) at the end of the spin; "
            f"it must turn {rule.direction}. The spin does not count and is repeated.",
            main.turns,
            main.direction,
        )
    if main.turns < rule.min_turns:
        return SpinCheck(
            False,
            "weak_spin",
            f"The wheel made {fmt_turns(main.turns)} turns {main.direction}: a valid spin makes "
            f"{rule.describe()}. The spin does not count and is repeated.",
            main.turns,
            main.direction,
        )
    if rule.counter_start:
        before = [r for r in runs[:-1] if r.direction != main.direction and r.turns >= rule.counter_min_turns]
        if not before:
            return SpinCheck(
                False,
                "no_counter_start",
                f"The wheel was not first swung {_other(main.direction)} before the spin "
                f"{main.direction}; "
                "the spin does not count and is repeated.",
                main.turns,
                main.direction,
            )
    return SpinCheck(True, None, "", main.turns, main.direction)


def _other(direction: str) -> str:
    return CCW if direction == CW else CW


def fmt_turns(turns: Fraction) -> str:
    """Turns with two decimals, as a string (feed messages carry no floats)."""
    hundredths = round(Fraction(turns) * 100)
    sign = "-" if hundredths < 0 else ""
    hundredths = abs(hundredths)
    return f"{sign}{hundredths // 100}.{hundredths % 100:02d}"


class PointerPath:
    """The clockwise travel from the segments a pointer reader saw go by, and whether it can be trusted.

    Between two reads the wheel is taken to have moved the short way round; a step of more than
    ``max_step`` segments means reads were missed and the travel (so the turn count) is unknown.
    """

    def __init__(self, segments: int, start_index: int, max_step: int) -> None:
        self.n = segments
        self.index = start_index
        self.max_step = max_step
        self.steps = 0  # signed segments, index-wise
        self.broken: str | None = None

    def see(self, index: int) -> Fraction:
        d = (index - self.index) % self.n
        if d > self.n // 2:
            d -= self.n
        if abs(d) > self.max_step and self.broken is None:
            self.broken = (
                f"the pointer reader jumped {abs(d)} segments between two reads (from {self.index} to "
                f"{index}): reads were missed, so the turns cannot be counted"
            )
        self.steps += d
        self.index = index
        return self.travel

    @property
    def travel(self) -> Fraction:
        # clockwise rotation moves the pointer down the numbering
        return Fraction(-self.steps, self.n)
