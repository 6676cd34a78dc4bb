"""What every money-wheel game shares: the layout, the table's wheel settings, results, payouts. Pure.

A money-wheel result is the segment under the pointer::

    {"segment": "5", "index": 17}                         # label, and the physical segment it was read on
    {"segment": "7", "index": 6, "color": "red"}          # games that bet on colours
    {"segment": "5", "index": 17, "multipliers": [2, 7]}  # games that carry multipliers between spins

``index`` (0 .. N-1, clockwise from the marked segment 0) is evidence: which physical
segment the sensor saw; it may be null in an auditor's re-check. The label decides
the outcome. ``color`` comes from the table's layout (the seeds give no colour maps);
when it is missing the game's default colour of the label is used. ``multipliers``
are those in force before this spin (Dream Catcher's 2x/7x, Monopoly's Chance
multipliers); the outcome gives ``next_multipliers``, those in force after it.

Payouts are net odds to 1 (the stake comes back on top): an ``int`` when whole, else
an exact fraction in a string ("7/2"). Feed messages carry no floats.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from recognition import equipment
from recognition.game import BaseGame
from recognition.payouts import as_fraction, payout

from .calibration import Calibration, Layout, spread
from .spin import SpinRule

__all__ = [
    "COMMON_SETTINGS",
    "MoneyWheelGame",
    "WheelSettings",
    "as_fraction",
    "payout",
    "read_fraction",
    "won",
]


#: settings every money-wheel table takes (the [tables] settings of the studio configuration)
COMMON_SETTINGS = (
    "layout",
    "colors",
    "calibration",
    "direction",
    "min_turns",
    "counter_start",
    "counter_min_turns",
    "boundary_margin",
    "reversal_tolerance",
    "sensors",
    "max_pointer_step",
    "carry_after_void",
    "multipliers",
)


def won(bet: str, type_: str, pays: int | Fraction, **more: Any) -> dict[str, Any]:
    return {"bet": bet, "type": type_, "payout": payout(pays), **more}


def read_fraction(value: Any, what: str, *, minimum: Fraction | None = None) -> Fraction:
    """A setting that is a number: an int, a float written in TOML (read by its decimal text) or "a/b"."""
    if isinstance(value, bool):
        raise ValueError(f"{what} is a number, not {value!r}")
    try:
        f = Fraction(str(value)) if isinstance(value, float) else Fraction(value)
    except (ValueError, TypeError, ZeroDivisionError):
        raise ValueError(f"{what} is a number (or 'a/b'), not {value!r}") from None
    if minimum is not None and f < minimum:
        raise ValueError(f"{what} must be at least {minimum}, not {value!r}")
    return f


@dataclass(frozen=True)
class WheelSettings:
    """A table's wheel: layout, calibration, spin rule and sensor handling (parsed from the table settings)."""

    layout: Layout
    calibration: Calibration
    rule: SpinRule
    #: a pointer closer than this to a boundary (in segments) holds the round
    boundary_margin: Fraction = Fraction(1, 20)
    #: the wheel must come back this many turns before a reversal counts
    reversal_tolerance: Fraction = Fraction(1, 72)
    #: "auto" (the sensors whose events the judge has seen) or the sensors that must agree
    sensors: frozenset[str] | Literal["auto"] = "auto"
    #: a pointer read more than this many segments from the previous one breaks the turn count
    max_pointer_step: int = 6
    #: keep carried multipliers after a voided spin (default: a void returns the bets, so they end)
    carry_after_void: bool = False
    #: multipliers in force when the table starts without a journal (normally restored from it)
    multipliers: tuple[int, ...] = ()
    game: dict[str, Any] = field(default_factory=dict)


class MoneyWheelGame(BaseGame):
    """Defaults for the money wheels: dealer-paced, read by a wheel encoder and/or a pointer reader."""

    pacing = "dealer"
    device_kinds: tuple[str, ...] = ("wheel-encoder", "wheel-pointer")
    name = ""
    #: the segments per label, in the order bets are listed
    segment_counts: tuple[tuple[str, int], ...] = ()
    #: True where the seed gives these counts: a table's layout must keep them
    counts_from_seed: bool = True
    #: the default order of the labels around the wheel (None: spread evenly); the seeds give none
    default_order: tuple[str, ...] | None = None
    #: label -> default colour (games that bet on colours); None: colours are not part of the result
    default_colors: dict[str, str] | None = None
    colors: tuple[str, ...] = ()
    #: Dream Catcher / Monopoly: multipliers carry from one spin to the next
    carries_multipliers: bool = False
    #: the values a carried multiplier may take (None: any whole number >= 2)
    multiplier_values: tuple[int, ...] | None = None
    spin_rule = SpinRule()
    #: game-specific settings (draw tables, ...) besides COMMON_SETTINGS
    extra_settings: tuple[str, ...] = ()
    example = "{'segment': '5', 'index': 17}"

    # -- layout -------------------------------------------------------------------------------

    @property
    def segments(self) -> int:
        return sum(n for _, n in self.segment_counts)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label for label, _ in self.segment_counts)

    def default_layout(self) -> Layout:
        order = list(self.default_order) if self.default_order is not None else spread(self.segment_counts)
        return Layout.build(order, self.default_colors)

    def equipment_reading(
        self, result: Mapping[str, Any], source: Mapping[str, Any]
    ) -> list[tuple[str, str]]:
        out = [("label", str(result["segment"]))] if result.get("segment") is not None else []
        if isinstance(result.get("index"), int):
            out.append(("segment", str(result["index"])))
        return out

    def equipment_odds(self, quantity: str, settings: Mapping[str, Any]) -> Mapping[str, float] | None:
        if quantity == "segment":
            return equipment.uniform(str(i) for i in range(self.segments))
        if quantity == "label":
            return equipment.weighted(self.layout_from(settings).counts())
        return None

    def layout_from(self, settings: Mapping[str, Any]) -> Layout:
        colors = settings.get("colors")
        if colors is not None and not isinstance(colors, Mapping):
            raise ValueError("colors is a table label -> colour")
        merged = {**(self.default_colors or {}), **{str(k): v for k, v in (colors or {}).items()}}
        value = settings.get("layout")
        layout = self.default_layout() if value is None else None
        if layout is None:
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
                raise ValueError(f"layout is a list of the {self.segments} labels clockwise from segment 0")
            layout = Layout.build(value, merged if self.default_colors is not None else None)
        elif colors:
            layout = Layout.build([{"label": s.label} for s in layout.segments], merged)
        self.check_layout(layout)
        return layout

    def check_layout(self, layout: Layout) -> None:
        if layout.size != self.segments:
            raise ValueError(
                f"a {self.name} wheel has {self.segments} segments; the layout lists {layout.size}"
            )
        unknown = sorted({s.label for s in layout.segments} - set(self.labels))
        if unknown:
            raise ValueError(
                f"layout: {', '.join(map(repr, unknown))} is not a {self.name} segment "
                f"(segments: {', '.join(self.labels)})"
            )
        if self.counts_from_seed:
            want = dict(self.segment_counts)
            got = layout.counts()
            wrong = [
                f"{label}: {got.get(label, 0)} instead of {n}"
                for label, n in want.items()
                if got.get(label, 0) != n
            ]
            if wrong:
                raise ValueError(
                    f"layout: the seed gives a {self.name} wheel other counts: {'; '.join(wrong)}"
                )
        if self.default_colors is not None:
            bad = [s.index for s in layout.segments if s.color not in self.colors]
            if bad:
                raise ValueError(
                    f"layout: segment(s) {bad[:5]} have no colour among {', '.join(self.colors)}"
                )

    # -- settings and judge ---------------------------------------------------------------------

    def wheel_settings(self, settings: Mapping[str, Any]) -> WheelSettings:
        settings = dict(settings)
        unknown = sorted(set(settings) - set(COMMON_SETTINGS) - set(self.extra_settings))
        if unknown:
            raise ValueError(
                f"unknown {self.game_id} setting(s): {', '.join(unknown)} "
                f"(known: {', '.join(COMMON_SETTINGS + self.extra_settings)})"
            )
        layout = self.layout_from(settings)
        cal = Calibration.from_settings(layout.size, settings.get("calibration"))
        base = self.spin_rule
        direction = settings.get("direction", base.direction)
        if direction not in ("clockwise", "counterclockwise", "either"):
            raise ValueError(f"direction is 'clockwise', 'counterclockwise' or 'either', not {direction!r}")
        counter_start = settings.get("counter_start", base.counter_start)
        if not isinstance(counter_start, bool):
            raise ValueError("counter_start is true or false")
        rule = SpinRule(
            direction=direction,
            min_turns=read_fraction(
                settings.get("min_turns", base.min_turns), "min_turns", minimum=Fraction(0)
            ),
            counter_start=counter_start,
            counter_min_turns=read_fraction(
                settings.get("counter_min_turns", base.counter_min_turns),
                "counter_min_turns",
                minimum=Fraction(0),
            ),
        )
        margin = read_fraction(
            settings.get("boundary_margin", Fraction(1, 20)), "boundary_margin", minimum=Fraction(0)
        )
        if margin >= Fraction(1, 2):
            raise ValueError("boundary_margin is a fraction of a segment below 1/2")
        tol = read_fraction(settings.get("reversal_tolerance", Fraction(1, 72)), "reversal_tolerance")
        if not 0 < tol < 1:
            raise ValueError("reversal_tolerance is a fraction of a turn, more than 0 and less than 1")
        sensors: Any = settings.get("sensors", "auto")
        if sensors != "auto":
            if (
                isinstance(sensors, str)
                or not isinstance(sensors, Sequence)
                or not sensors
                or not set(sensors) <= {"encoder", "pointer"}
            ):
                raise ValueError("sensors is 'auto' or a list of 'encoder' and/or 'pointer'")
            sensors = frozenset(sensors)
        step = settings.get("max_pointer_step", max(2, layout.size // 8))
        if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step < layout.size // 2:
            raise ValueError(f"max_pointer_step is a whole number of segments, 1 to {layout.size // 2 - 1}")
        carry = settings.get("carry_after_void", False)
        if not isinstance(carry, bool):
            raise ValueError("carry_after_void is true or false")
        multipliers = (
            tuple(self.read_multipliers(settings["multipliers"])) if "multipliers" in settings else ()
        )
        game = {k: settings[k] for k in self.extra_settings if k in settings}
        return WheelSettings(layout, cal, rule, margin, tol, sensors, step, carry, multipliers, game)

    def new_judge(self, **settings: Any) -> Any:
        from .judge import MoneyWheelJudge

        return MoneyWheelJudge(self, self.wheel_settings(settings))

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any] | None:
        return None

    # -- results ----------------------------------------------------------------------------------

    def read_label(self, value: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ValueError(f"a {self.name} segment is one of {', '.join(self.labels)}, not {value!r}")
        text = str(value)
        if text not in self.labels:
            lowered = {label.lower(): label for label in self.labels}
            if text.lower() in lowered:
                return lowered[text.lower()]
            raise ValueError(f"{value!r} is not a {self.name} segment: one of {', '.join(self.labels)}")
        return text

    def read_multipliers(self, value: Any) -> list[int]:
        if not self.carries_multipliers:
            raise ValueError(f"{self.name} carries no multipliers between spins")
        if value is None:
            return []
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise ValueError(f"multipliers is a list of whole numbers such as [2, 7], not {value!r}")
        out = []
        for m in value:
            if isinstance(m, bool) or not isinstance(m, int) or m < 2:
                raise ValueError(f"a carried multiplier is a whole number >= 2, not {m!r}")
            if self.multiplier_values is not None and m not in self.multiplier_values:
                raise ValueError(
                    f"{m} is not a {self.name} multiplier ({', '.join(map(str, self.multiplier_values))})"
                )
            out.append(m)
        return out

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(result, Mapping):
            raise ValueError(f"a {self.name} result is an object like {self.example}, not {result!r}")
        allowed = (
            {"segment", "index"}
            | ({"color"} if self.default_colors is not None else set())
            | ({"multipliers"} if self.carries_multipliers else set())
        )
        unknown = sorted(set(result) - allowed)
        if unknown:
            raise ValueError(
                f"a {self.name} result has no {', '.join(map(repr, unknown))} "
                f"(it has {', '.join(sorted(allowed))})"
            )
        if "segment" not in result:
            raise ValueError(f"a {self.name} result needs 'segment': {self.example}")
        label = self.read_label(result["segment"])
        index = result.get("index")
        if index is not None and (
            isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < self.segments
        ):
            raise ValueError(f"index is the physical segment 0..{self.segments - 1} (or null), not {index!r}")
        out: dict[str, Any] = {"segment": label, "index": index}
        if self.default_colors is not None:
            color = result.get("color")
            if color is None:
                color = self.default_colors.get(label)
            if color not in self.colors:
                raise ValueError(f"color is one of {', '.join(self.colors)}, not {color!r}")
            out["color"] = color
        if self.carries_multipliers:
            out["multipliers"] = self.read_multipliers(result.get("multipliers", []))
        return out

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        canonical = self.validate_result(result)
        return {**canonical, **self.settle(canonical, extras)}

    def settle(self, result: dict[str, Any], extras: dict[str, Any] | None) -> dict[str, Any]:
        """The game-specific part of the outcome (``winning_bets`` and more) of a canonical result."""
        raise NotImplementedError

    def bet_spots(self) -> list[dict[str, Any]]:
        """Every bet spot with its payout (for the docs and the backends)."""
        raise NotImplementedError


def product(values: Sequence[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def read_draw_table(value: Any, what: str, *, minimum: int = 1) -> list[tuple[int, int]]:
    """A computer draw's table: a list of whole numbers (equally likely) or a table value -> integer weight."""
    if isinstance(value, Mapping):
        items = []
        for k, w in value.items():
            try:
                v = int(str(k))
            except ValueError:
                raise ValueError(f"{what}: {k!r} is not a whole number") from None
            if isinstance(w, bool) or not isinstance(w, int) or w < 0:
                raise ValueError(f"{what}: the weight of {k} is a whole number >= 0, not {w!r}")
            items.append((v, w))
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        items = []
        for v in value:
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"{what}: {v!r} is not a whole number")
            items.append((v, 1))
    else:
        raise ValueError(f"{what} is a list of whole numbers or a table value -> weight, not {value!r}")
    if not items or sum(w for _, w in items) <= 0:
        raise ValueError(f"{what} is empty")
    bad = [v for v, _ in items if v < minimum]
    if bad:
        raise ValueError(f"{what}: {bad[0]} is below {minimum}")
    return items


def draw(rng: random.Random, table: Sequence[tuple[int, int]]) -> int:
    """One value of a draw table, with the weights, using only ``rng``."""
    total = sum(w for _, w in table)
    pick = rng.randrange(total)
    for value, weight in table:
        if pick < weight:
            return value
        pick -= weight
    raise AssertionError("unreachable")


def need_extras(extras: Mapping[str, Any] | None, key: str, game: str) -> Any:
    """A committed draw the outcome cannot do without (an outcome without it would be wrong money)."""
    if not extras or key not in extras:
        raise ValueError(
            f"a {game} outcome needs the round's committed extras ({key!r}); "
            'studio evaluate takes them as "extras" in the item'
        )
    return extras[key]
