"""The technician's calibration tool for the overhead roulette camera.

With the wheel stopped (or turning) and **one ball resting in a known pocket**, take a frame
from the camera and run::

    python -m devices.overhead_camera.calibrate frame.png --preset european --known-pocket 0

It finds the wheel (its centre and the track's radius, from the red segments of the number
ring), the rotor's angle, and the offset between the pockets and their number segments
(``pocket_offset_deg``), then reads the frame back with that calibration and prints the
``calibration`` table for the driver's options. It refuses (exit 1) when the read-back does
not give the known pocket. Check the zones (``zones``) against the picture it writes with
``--draw``: the circles must sit on the track, the number ring and the pockets.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import cv2
import numpy as np

from .calibration import PRESETS, calibration_from_options
from .finder import BallFinder, find_wheel

__all__ = ["draw_calibration", "main", "suggest_calibration"]


def suggest_calibration(
    image: np.ndarray,
    *,
    preset: str = "european",
    known_pocket: str | None = None,
    clockwise: bool = True,
    ring_mid: float = 0.65,
) -> dict[str, Any]:
    """A ``calibration`` table for this frame, or ValueError saying what could not be found."""
    if preset not in PRESETS:
        raise ValueError(f"preset {preset!r} unknown; known: {', '.join(PRESETS)}")
    cx, cy, radius = find_wheel(image, ring_mid=ring_mid)
    options: dict[str, Any] = {
        "center": [round(cx, 1), round(cy, 1)],
        "radius": round(radius, 1),
        "preset": preset,
        "clockwise": clockwise,
        "pocket_offset_deg": 0.0,
    }
    finder = BallFinder(calibration_from_options(options))
    reading = finder.read(image)
    if reading.rotor_deg is None:
        raise ValueError(
            f"the rotor's number ring was not recognised (match {reading.quality}%, margin "
            f"{reading.margin:.1f}): check the preset, clockwise and the light"
        )
    if known_pocket is None:
        return options
    order = PRESETS[preset][0]
    if known_pocket not in order:
        raise ValueError(f"{known_pocket!r} is not a pocket of the {preset} wheel")
    balls = [b for b in reading.balls if b.zone == "pockets"]
    if len(balls) != 1:
        raise ValueError(f"put exactly one ball in pocket {known_pocket}: {len(balls)} seen in the pockets")
    step = 360.0 / len(order)
    direction = 1.0 if clockwise else -1.0
    beta = direction * balls[0].angle_deg  # the ball, in the rotor's direction
    k = order.index(known_pocket)
    # the cell holding the ball has its middle at rotor - offset + (k + 0.5) step
    offset = ((reading.rotor_deg + (k + 0.5) * step - beta + 180.0) % 360.0) - 180.0
    if abs(offset) > step / 2:
        raise ValueError(
            f"the ball is {offset:.1f} degrees from where pocket {known_pocket}'s number says: "
            "is it really in that pocket?"
        )
    options["pocket_offset_deg"] = round(offset, 2)
    check = BallFinder(calibration_from_options(options)).read(image)
    got = [b.pocket for b in check.balls if b.zone == "pockets"]
    if got != [known_pocket]:
        raise ValueError(f"the calibrated camera reads {got}, not [{known_pocket!r}]")
    return options


def draw_calibration(image: np.ndarray, options: dict[str, Any]) -> np.ndarray:
    """The frame with the calibrated circles drawn on it, for the technician to check."""
    calib = calibration_from_options(options)
    out = image.copy()
    c = (round(calib.center[0]), round(calib.center[1]))
    z = calib.zones
    circles = ((z.track, (255, 255, 0)), (z.number_ring, (0, 255, 255)), (z.pockets, (255, 0, 255)))
    for frac, colour in [(f, colour) for zone, colour in circles for f in zone]:
        cv2.circle(out, c, round(frac * calib.radius), colour, 1, cv2.LINE_AA)
    reading = BallFinder(calib).read(image)
    if reading.rotor_deg is not None:
        finder = BallFinder(calib)
        for label in calib.order:
            x, y = finder.pocket_center(reading.rotor_deg, label)
            cv2.putText(
                out, label, (int(x) - 6, int(y) + 4), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 255, 0), 1, cv2.LINE_AA
            )
    for b in reading.balls:
        cv2.circle(out, (round(b.x), round(b.y)), 12, (0, 0, 255), 1, cv2.LINE_AA)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Calibrate the overhead roulette camera from one frame")
    parser.add_argument("frame", help="a picture from the camera (png, jpg)")
    parser.add_argument("--preset", default="european", choices=sorted(PRESETS))
    parser.add_argument("--known-pocket", help="the pocket the single ball lies in")
    parser.add_argument("--mirrored", action="store_true", help="the camera sees the wheel mirrored")
    parser.add_argument("--draw", help="write the frame with the calibration drawn on it to this file")
    args = parser.parse_args(argv)
    image = cv2.imread(args.frame, cv2.IMREAD_COLOR)
    if image is None:
        print(f"cannot read {args.frame}", file=sys.stderr)
        return 2
    try:
        options = suggest_calibration(
            image, preset=args.preset, known_pocket=args.known_pocket, clockwise=not args.mirrored
        )
    except ValueError as exc:
        print(f"calibration failed: {exc}", file=sys.stderr)
        return 1
    if args.draw:
        cv2.imwrite(args.draw, draw_calibration(image, options))
    print("[tables.devices.options.calibration]")
    for key, value in options.items():
        print(f"{key} = {json.dumps(value)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
