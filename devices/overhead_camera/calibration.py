"""The overhead camera's calibration: where the wheel is in the picture and its number order.

A technician sets it once per camera mount (docs/roulette.md, "Calibrating the camera"):

* ``center`` [x, y] and ``radius``: the wheel's centre and the outer edge of the ball track
  (the bowl's wall), in pixels of the camera's frame. Every other circle is a fraction of
  ``radius`` (``zones``), the same for every wheel of one make.
* ``preset`` ("european" or "american") or ``order`` + ``colors``: the pocket labels in the
  order they pass under a fixed point when the rotor turns clockwise **as the camera sees
  it**, and each pocket's colour ("red", "black", "green"). ``clockwise = false`` for a
  camera that sees the wheel mirrored (through a mirror or flipped by the camera itself).
* ``pocket_offset_deg``: the angle between the middle of a pocket and the middle of its
  coloured number segment, as measured by the calibration tool with a ball in a known
  pocket (0 on wheels whose number ring is aligned with the pockets).

The rotor's angle is found in every frame from the coloured number ring (the one green
segment of a single-zero wheel, the two opposite green segments of a double-zero wheel
told apart by their neighbours' colours), so no marker on the rotor is needed.

This module knows wheels, not games: it repeats the two standard number orders because
``devices`` imports nothing from ``recognition`` (a test checks they agree).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AMERICAN_ORDER",
    "EUROPEAN_ORDER",
    "PRESETS",
    "RED_NUMBERS",
    "WheelCalibration",
    "Zones",
    "calibration_from_options",
]

EUROPEAN_ORDER = (
    "0",
    "32",
    "15",
    "19",
    "4",
    "21",
    "2",
    "25",
    "17",
    "34",
    "6",
    "27",
    "13",
    "36",
    "11",
    "30",
    "8",
    "23",
    "10",
    "5",
    "24",
    "16",
    "33",
    "1",
    "20",
    "14",
    "31",
    "9",
    "22",
    "18",
    "29",
    "7",
    "28",
    "12",
    "35",
    "3",
    "26",
)
AMERICAN_ORDER = (
    "0",
    "28",
    "9",
    "26",
    "30",
    "11",
    "7",
    "20",
    "32",
    "17",
    "5",
    "22",
    "34",
    "15",
    "3",
    "24",
    "36",
    "13",
    "1",
    "00",
    "27",
    "10",
    "25",
    "29",
    "12",
    "8",
    "19",
    "31",
    "18",
    "6",
    "21",
    "33",
    "16",
    "4",
    "23",
    "35",
    "14",
    "2",
)
RED_NUMBERS = frozenset(str(n) for n in (1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36))
COLORS = ("red", "black", "green")


def _colors(order: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        "green" if p in ("0", "00", "000", "0000") else "red" if p in RED_NUMBERS else "black" for p in order
    )


PRESETS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "european": (EUROPEAN_ORDER, _colors(EUROPEAN_ORDER)),
    "american": (AMERICAN_ORDER, _colors(AMERICAN_ORDER)),
}


@dataclass(frozen=True)
class Zones:
    """Radii as fractions of the ball track's outer radius (defaults: a common 32-inch wheel)."""

    track: tuple[float, float] = (0.80, 1.0)  # the ball track in the stator, where the ball circles
    number_ring: tuple[float, float] = (0.60, 0.70)  # the rotor's coloured number segments
    pockets: tuple[float, float] = (0.45, 0.60)  # the pockets, where the balls come to rest
    ball_diameter: float = 0.0525  # a 21 mm ball on a wheel whose track is 40 cm in radius

    def __post_init__(self) -> None:
        for name in ("track", "number_ring", "pockets"):
            lo, hi = getattr(self, name)
            if not 0 < lo < hi <= 1.2:
                raise ValueError(
                    f"zones.{name} is [inner, outer] with 0 < inner < outer <= 1.2, not {[lo, hi]}"
                )
        if not (self.pockets[1] <= self.number_ring[0] and self.number_ring[1] <= self.track[0]):
            raise ValueError("zones must go outwards: pockets, number ring, track")
        if not 0.01 <= self.ball_diameter <= 0.2:
            raise ValueError(
                f"zones.ball_diameter is a fraction of the radius (0.01-0.2), not {self.ball_diameter}"
            )


@dataclass(frozen=True)
class WheelCalibration:
    center: tuple[float, float]
    radius: float
    order: tuple[str, ...] = EUROPEAN_ORDER
    colors: tuple[str, ...] = field(default_factory=lambda: _colors(EUROPEAN_ORDER))
    clockwise: bool = True
    pocket_offset_deg: float = 0.0
    zones: Zones = field(default_factory=Zones)

    def __post_init__(self) -> None:
        if self.radius < 20:
            raise ValueError(
                f"radius is the ball track's outer radius in pixels (at least 20), not {self.radius}"
            )
        if len(self.order) < 3 or len(set(self.order)) != len(self.order):
            raise ValueError("order lists each pocket label once, in wheel order")
        if len(self.colors) != len(self.order) or any(c not in COLORS for c in self.colors):
            raise ValueError(f"colors gives one of {', '.join(COLORS)} per pocket of order")
        if "green" not in self.colors:
            raise ValueError("a wheel needs at least one green pocket: the rotor's angle is found from it")
        if not -180 <= self.pocket_offset_deg <= 180:
            raise ValueError("pocket_offset_deg is -180..180")

    @property
    def pockets(self) -> int:
        return len(self.order)

    @property
    def step_deg(self) -> float:
        return 360.0 / len(self.order)

    def px(self, fraction: float) -> float:
        """A fraction of the radius in pixels."""
        return fraction * self.radius


def calibration_from_options(options: Mapping[str, Any]) -> WheelCalibration:
    """The driver's ``calibration`` option (a TOML table) -> :class:`WheelCalibration`, or ValueError."""
    if not isinstance(options, Mapping):
        raise ValueError('calibration is a table: center = [x, y], radius = r, preset = "european", ...')
    known = {"center", "radius", "preset", "order", "colors", "clockwise", "pocket_offset_deg", "zones"}
    unknown = set(options) - known
    if unknown:
        raise ValueError(
            f"calibration: unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}"
        )
    try:
        cx, cy = (float(v) for v in options["center"])
        radius = float(options["radius"])
    except KeyError as exc:
        raise ValueError(
            f"calibration needs {exc.args[0]!r} (run the calibration tool: docs/roulette.md)"
        ) from None
    except (TypeError, ValueError):
        raise ValueError("calibration: center is [x, y] and radius a number of pixels") from None
    preset = options.get("preset", "european" if "order" not in options else None)
    if preset is not None:
        if preset not in PRESETS:
            raise ValueError(f"calibration: preset {preset!r} unknown; known: {', '.join(PRESETS)}")
        order, colors = PRESETS[preset]
    else:
        order = tuple(str(p) for p in options["order"])
        colors = tuple(options.get("colors") or _colors(order))
    if "order" in options and preset is not None and "preset" in options:
        raise ValueError("calibration: give a preset or an order, not both")
    zones_opt = dict(options.get("zones") or {})
    zone_keys = {"track", "number_ring", "pockets", "ball_diameter"}
    if set(zones_opt) - zone_keys:
        raise ValueError(f"calibration.zones: unknown key(s) {', '.join(sorted(set(zones_opt) - zone_keys))}")
    zone_values: dict[str, Any] = {
        k: (tuple(float(x) for x in v) if k != "ball_diameter" else float(v)) for k, v in zones_opt.items()
    }
    zones = Zones(**zone_values)
    clockwise = options.get("clockwise", True)
    if not isinstance(clockwise, bool):
        raise ValueError("calibration: clockwise is true or false")
    return WheelCalibration(
        center=(cx, cy),
        radius=radius,
        order=order,
        colors=colors,
        clockwise=clockwise,
        pocket_offset_deg=float(options.get("pocket_offset_deg", 0.0)),
        zones=zones,
    )
