"""Software twin of an overhead dice camera: realistic frames with ground truth, streamed as MJPEG over HTTP.

Two layers, like the other simulators:

* The pure core: :class:`DiceWorld` holds the dice in tray coordinates (one throw =
  one :class:`Throw`: final faces, positions, rotations, faults) and
  :func:`render` draws what a :class:`CameraView` sees of it at a moment of the throw
  (rolling with motion blur, or at rest). All randomness comes from a seeded
  ``random.Random`` / ``numpy.random.Generator`` passed in, so a seed gives the same
  pictures. :func:`random_throw` makes a throw with or without faults;
  :func:`render_still` is the short way to one frame and its truth.
* :class:`DiceCameraSimulator` runs a world in real time on threads of its own and
  serves each camera as ``multipart/x-mixed-replace`` MJPEG on 127.0.0.1 (the format
  of most IP cameras): ``http://127.0.0.1:<port>/stream.mjpg``. OpenCV's
  ``VideoCapture`` opens that URL, so the driver runs exactly the code it runs
  against a real camera. ``/snapshot.jpg`` serves the latest frame and ``/truth``
  the current throw's ground truth (JSON), for technicians and tests.

What a frame contains: a felt tray inside a wooden rim, dice of the configured
colours (rounded cubes, pips, a bevel on the edges, faint side faces from the
camera's perspective), soft shadows from one light, uneven light (gradient, hot
spot, vignette), white-balance and exposure drift, Gaussian sensor noise, slight
lens blur, JPEG compression; while rolling the dice tumble, tilt and are
motion-blurred. Faults on request: ``cocked`` (a die leaning at 18-40 degrees),
``outside`` (a die on the rim, outside the tray), ``missing`` (a die out of sight),
``stacked`` (a die resting on another).

Several cameras on one table see the same dice: simulators created with the same
``world`` option share one :class:`DiceWorld` (like python-can's virtual bus
channels), each with its own viewpoint, light and noise.

Quick start for a technician::

    python -m simulators.dice --colors red,blue --fps 10       # prints the stream URL
    python -m simulators.dice --write-dataset /tmp/set --frames 200 --colors white,white,white
"""

from __future__ import annotations

import argparse
import json
import math
import random
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Self

import cv2
import numpy as np

from .history import remember

# --------------------------------------------------------------------------- colours and geometry

#: die colour name -> (body BGR, pip BGR). Dice Duel uses red and blue, Sic Bo white.
DIE_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "white": ((226, 230, 232), (28, 26, 30)),
    "red": ((38, 34, 188), (236, 238, 240)),
    "blue": ((172, 86, 28), (236, 238, 240)),
    "yellow": ((40, 196, 228), (30, 28, 30)),
    "black": ((34, 32, 30), (232, 234, 236)),
}

FELT_COLOURS: dict[str, tuple[int, int, int]] = {
    "green": (52, 98, 30),
    "darkgreen": (40, 70, 24),
    "grey": (70, 70, 70),
}

FAULTS = ("cocked", "outside", "missing", "stacked")

#: pip centres on a face, in face units ([-0.5, 0.5]^2)
PIP_OFFSET = 0.25
PIP_RADIUS = 0.085
_D = PIP_OFFSET
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-_D, -_D), (_D, _D)),
    3: ((-_D, -_D), (0.0, 0.0), (_D, _D)),
    4: ((-_D, -_D), (_D, -_D), (-_D, _D), (_D, _D)),
    5: ((-_D, -_D), (_D, -_D), (0.0, 0.0), (-_D, _D), (_D, _D)),
    6: ((-_D, -_D), (-_D, 0.0), (-_D, _D), (_D, -_D), (_D, 0.0), (_D, _D)),
}

# unit cube faces: (centre, u axis, v axis) in die coordinates; the normal is the centre * 2
_FACES = {
    "top": ((0, 0, 0.5), (1, 0, 0), (0, 1, 0)),
    "bottom": ((0, 0, -0.5), (1, 0, 0), (0, -1, 0)),
    "east": ((0.5, 0, 0), (0, 1, 0), (0, 0, 1)),
    "west": ((-0.5, 0, 0), (0, -1, 0), (0, 0, 1)),
    "south": ((0, 0.5, 0), (-1, 0, 0), (0, 0, 1)),
    "north": ((0, -0.5, 0), (1, 0, 0), (0, 0, 1)),
}


def _rounded_square(half: float, radius: float, per_corner: int = 4) -> np.ndarray:
    pts = []
    for cx, cy, a0 in (
        (half - radius, half - radius, 0),
        (-half + radius, half - radius, 90),
        (-half + radius, -half + radius, 180),
        (half - radius, -half + radius, 270),
    ):
        for k in range(per_corner + 1):
            a = math.radians(a0 + 90 * k / per_corner)
            pts.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return np.array(pts, dtype=np.float64)


_OUTLINE = _rounded_square(0.5, 0.11)
_INSET = _rounded_square(0.44, 0.07)
_CIRCLE = np.array([(math.cos(a), math.sin(a)) for a in np.linspace(0, 2 * math.pi, 14, endpoint=False)])


def _rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)


def _rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], dtype=np.float64)


def _side_faces(top: int, rng: random.Random) -> dict[str, int]:
    """Numbers on the other faces of a standard die (opposite faces add up to 7)."""
    ring = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = rng.choice(ring)
    b = rng.choice([v for v in ring if v not in (a, 7 - a)])
    return {"top": top, "bottom": 7 - top, "east": a, "west": 7 - a, "south": b, "north": 7 - b}


# --------------------------------------------------------------------------- world and throws


@dataclass(frozen=True)
class Die:
    """One die at rest, in tray (world) units: the tray is `DiceWorld.size` wide and high."""

    face: int
    colour: str
    x: float
    y: float
    yaw: float  # radians
    tilt: float = 0.0  # radians; > 0 for a cocked die
    level: int = 0  # 0 on the felt, 1 on top of another die
    sides: tuple[tuple[str, int], ...] = ()
    fault: str | None = None  # "cocked", "outside", "stacked" for the die that carries the fault


@dataclass(frozen=True)
class Throw:
    """Where a throw ends: the dice at rest (a missing die is not in `dice`) and the truth."""

    dice: tuple[Die, ...]
    expected: int  # how many dice were thrown
    colours: tuple[str, ...]  # the colour of each die thrown
    faults: tuple[str, ...] = ()
    missing: tuple[tuple[str, int], ...] = ()  # (colour, face) of dice out of sight

    @property
    def faces(self) -> list[int]:
        return sorted(d.face for d in self.dice)

    @property
    def readable(self) -> bool:
        """True when a correct reader must certify this throw (no fault)."""
        return not self.faults


@dataclass(frozen=True)
class TrayGeometry:
    """The tray in world units; world units are camera-1 pixels at the default view."""

    width: float = 1280.0
    height: float = 720.0
    tray: tuple[float, float, float, float] = (110.0, 60.0, 1170.0, 660.0)  # x0, y0, x1, y1 of the felt
    die_size: float = 64.0

    def inside(self, x: float, y: float, margin: float = 0.0) -> bool:
        x0, y0, x1, y1 = self.tray
        return x0 + margin <= x <= x1 - margin and y0 + margin <= y <= y1 - margin

    @classmethod
    def for_frame(cls, width: int = 1280, height: int = 720, die_size: float | None = None) -> TrayGeometry:
        """The default tray layout for another frame size (the tray keeps its place, dice scale with width)."""
        fx, fy = width / 1280.0, height / 720.0
        return cls(
            float(width),
            float(height),
            (110.0 * fx, 60.0 * fy, 1170.0 * fx, 660.0 * fy),
            float(die_size) if die_size else 64.0 * fx,
        )


def calibration_document(
    g: TrayGeometry, view: CameraView | None = None, camera: str = "simulated"
) -> dict[str, Any]:
    """A calibration (recognition.dice.calibration.Calibration as JSON) for a camera of this tray.

    What a technician would measure: the tray's corners, the die size range (+-12 %), the camera
    height in die sizes. The die colours are left to the recognizer's defaults.
    """
    view = view or CameraView(width=int(g.width), height=int(g.height))
    x0, y0, x1, y1 = g.tray
    tray = cv2.transform(np.array([[(x0, y0), (x1, y0), (x1, y1), (x0, y1)]], np.float64), view.matrix(g))[0]
    s = g.die_size * view.scale
    return {
        "camera": camera,
        "version": 1,
        "frame_size": [view.width, view.height],
        "tray": [[round(float(x), 1), round(float(y), 1)] for x, y in tray],
        "die_size": [round(s * 0.88, 1), round(s * 1.12, 1)],
        "camera_height": view.height_dice,
        "note": "written by simulators.dice",
    }


def _square(x: float, y: float, yaw: float, size: float, scale: float = 1.0) -> np.ndarray:
    h = size * scale / 2
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([(x + c * u - s * v, y + s * u + c * v) for u, v in ((-h, -h), (h, -h), (h, h), (-h, h))])


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Separating-axis test of two convex quadrilaterals."""
    for poly in (a, b):
        for i in range(len(poly)):
            e = poly[(i + 1) % len(poly)] - poly[i]
            axis = np.array([-e[1], e[0]])
            pa, pb = a @ axis, b @ axis
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


def random_throw(
    rng: random.Random,
    geometry: TrayGeometry,
    colours: Sequence[str],
    *,
    faults: Sequence[str] = (),
    touching: float = 0.3,
    faces: Sequence[int] | None = None,
) -> Throw:
    """Random dice at rest: positions, rotations, faces; `touching` is the chance a die touches another.

    `faults` (names from :data:`FAULTS`) are applied to randomly chosen dice.
    """
    for name in faults:
        if name not in FAULTS:
            raise ValueError(f"unknown fault {name!r}; known: {', '.join(FAULTS)}")
    s = geometry.die_size
    n = len(colours)
    faces = list(faces) if faces is not None else [rng.randint(1, 6) for _ in range(n)]
    if len(faces) != n:
        raise ValueError("one face per die")
    placed: list[Die] = []
    squares: list[np.ndarray] = []
    order = list(range(n))
    special: dict[int, str] = {}
    for name in faults:
        free = [i for i in order if i not in special]
        if name == "stacked" and n < 2:
            raise ValueError("stacking needs two dice")
        special[rng.choice(free)] = name
    # a stacked die goes on another die, so place it last
    order.sort(key=lambda i: special.get(i) == "stacked")
    margin = s * 0.75
    for i in order:
        fault = special.get(i)
        colour = colours[i]
        sides = tuple(_side_faces(faces[i], rng).items())
        if fault == "missing":
            continue
        if fault == "stacked":
            base = rng.choice([d for d in placed if d.level == 0])
            die = Die(
                faces[i],
                colour,
                base.x + rng.uniform(-0.12, 0.12) * s,
                base.y + rng.uniform(-0.12, 0.12) * s,
                base.yaw + rng.uniform(0.2, 0.6) * rng.choice((-1, 1)),
                level=1,
                sides=sides,
                fault="stacked",
            )
            placed.append(die)
            continue
        for attempt in range(400):
            yaw = rng.uniform(0, math.pi / 2)
            tilt = math.radians(rng.uniform(18, 40)) if fault == "cocked" else 0.0
            if fault == "outside":
                x, y = _outside_spot(rng, geometry)
            elif placed and attempt < 200 and (rng.random() < touching or (tilt and rng.random() < 0.6)):
                other = rng.choice([d for d in placed if d.level == 0 and not d.tilt] or placed)
                if rng.random() < 0.5:
                    yaw = other.yaw
                theta = rng.uniform(0, 2 * math.pi)
                if rng.random() < 0.4 or tilt:  # edge to edge, side by side
                    theta = other.yaw + rng.choice((0, 1, 2, 3)) * math.pi / 2 + rng.uniform(-0.25, 0.25)
                if tilt:  # a cocked die leans on its neighbour: its raised side (+y) faces it
                    yaw = theta - math.pi / 2 + rng.uniform(-0.15, 0.15)
                x, y = _touch(
                    _footprint(other.x, other.y, other.yaw, other.tilt, s),
                    lambda px, py, yaw=yaw, tilt=tilt: _footprint(px, py, yaw, tilt, s),
                    (other.x, other.y),
                    theta,
                    s,
                    rng.uniform(0.0, 1.2),
                )
            else:
                x = rng.uniform(geometry.tray[0] + margin, geometry.tray[2] - margin)
                y = rng.uniform(geometry.tray[1] + margin, geometry.tray[3] - margin)
            sq = _footprint(x, y, yaw, tilt, s)
            if fault != "outside" and not all(geometry.inside(px, py, 2) for px, py in sq):
                continue
            if any(_overlap(sq, o) for o in squares):
                continue
            marked = fault if fault in ("cocked", "outside") else None
            placed.append(Die(faces[i], colour, x, y, yaw, tilt, 0, sides, marked))
            squares.append(sq)
            break
        else:
            raise RuntimeError("could not place the dice on the tray (tray too small?)")
    missing = tuple((colours[i], faces[i]) for i, f in special.items() if f == "missing")
    return Throw(
        dice=tuple(placed), expected=n, colours=tuple(colours), faults=tuple(faults), missing=missing
    )


def _footprint(x: float, y: float, yaw: float, tilt: float, s: float) -> np.ndarray:
    """The die's outline seen from straight above (convex), world units."""
    if not tilt:
        return _square(x, y, yaw, s)
    d = Die(1, "white", x, y, yaw, tilt)
    rot, t = _die_pose(d, s)
    cube = np.array([(a, b, c) for a in (-0.5, 0.5) for b in (-0.5, 0.5) for c in (-0.5, 0.5)]) * s
    pts = (cube @ rot.T + t)[:, :2]
    hull = cv2.convexHull(pts.astype(np.float32))[:, 0, :].astype(np.float64)
    return hull


def _touch(
    fixed: np.ndarray, shape: Any, centre: tuple[float, float], theta: float, s: float, gap: float
) -> tuple[float, float]:
    """Where a die whose outline at (x, y) is shape(x, y) just touches `fixed` in direction `theta`,
    then moved `gap` further."""
    lo, hi = 0.3 * s, 2.0 * s
    cx, cy = centre
    for _ in range(22):
        mid = (lo + hi) / 2
        if _overlap(fixed, shape(cx + mid * math.cos(theta), cy + mid * math.sin(theta))):
            lo = mid
        else:
            hi = mid
    d = hi + gap
    return cx + d * math.cos(theta), cy + d * math.sin(theta)


def _outside_spot(rng: random.Random, g: TrayGeometry) -> tuple[float, float]:
    x0, y0, x1, y1 = g.tray
    s = g.die_size
    side = rng.choice(("left", "right", "top", "bottom"))
    if side == "left" and x0 > 1.3 * s:
        return rng.uniform(0.7 * s, x0 - 0.75 * s), rng.uniform(y0, y1)
    if side == "right" and g.width - x1 > 1.3 * s:
        return rng.uniform(x1 + 0.75 * s, g.width - 0.7 * s), rng.uniform(y0, y1)
    if side == "top" and y0 > 1.3 * s:
        return rng.uniform(x0, x1), rng.uniform(0.7 * s, y0 - 0.75 * s)
    # bottom, or any side without room: straddle the rim beyond the felt
    return rng.uniform(x0 + s, x1 - s), min(g.height - 0.7 * s, y1 + 0.8 * s)


# --------------------------------------------------------------------------- cameras and rendering


@dataclass(frozen=True)
class CameraView:
    """How one camera sees the tray: output size, a similarity transform of the world, its height."""

    width: int = 1280
    height: int = 720
    rotation: float = 0.0  # degrees, about the frame centre
    scale: float = 1.0
    shift: tuple[float, float] = (0.0, 0.0)
    height_dice: float = 62.0  # camera height over the felt, in die sizes (perspective)

    def matrix(self, g: TrayGeometry) -> np.ndarray:
        """2x3 world -> image for points on the felt."""
        m = cv2.getRotationMatrix2D((g.width / 2, g.height / 2), self.rotation, self.scale)
        m[0, 2] += self.shift[0] + (self.width - g.width) / 2
        m[1, 2] += self.shift[1] + (self.height - g.height) / 2
        return m


@dataclass(frozen=True)
class Look:
    """The per-scene look: light, colours, noise (drawn once per throw, or per dataset frame)."""

    felt: tuple[int, int, int] = FELT_COLOURS["green"]
    light_dir: tuple[float, float, float] = (0.3, -0.4, 1.0)
    gradient: tuple[float, float] = (0.0, 0.0)  # relative change across the frame in x and y
    hot_spot: tuple[float, float, float, float] = (0.5, 0.5, 0.0, 0.4)  # x, y (relative), gain, radius
    vignette: float = 0.0
    exposure: float = 1.0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    noise: float = 3.0  # Gaussian sigma, grey levels
    blur: float = 0.6  # lens blur sigma, pixels
    shadow: float = 0.45
    texture_seed: int = 0


def random_look(rng: random.Random, *, hard: bool = True) -> Look:
    """Light and camera conditions; `hard` makes them as bad as a real studio on a bad day."""
    if not hard:
        return Look(texture_seed=rng.randrange(1 << 30))
    return Look(
        felt=rng.choice(list(FELT_COLOURS.values())),
        light_dir=(rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), 1.0),
        gradient=(rng.uniform(-0.35, 0.35), rng.uniform(-0.3, 0.3)),
        hot_spot=(
            rng.uniform(0.1, 0.9),
            rng.uniform(0.1, 0.9),
            rng.uniform(0.0, 0.3),
            rng.uniform(0.15, 0.5),
        ),
        vignette=rng.uniform(0.0, 0.35),
        exposure=rng.uniform(0.85, 1.1),
        white_balance=(rng.uniform(0.93, 1.07), 1.0, rng.uniform(0.93, 1.07)),
        noise=rng.uniform(1.5, 9.0),
        blur=rng.uniform(0.4, 1.1),
        shadow=rng.uniform(0.3, 0.6),
        texture_seed=rng.randrange(1 << 30),
    )


@dataclass(frozen=True)
class DieTruth:
    face: int
    color: str
    center: tuple[float, float]  # image pixels, the centre of the die's upper face
    fault: str | None = None


@dataclass(frozen=True)
class FrameTruth:
    """What a correct reader should say about one frame."""

    dice: tuple[DieTruth, ...]
    expected: int
    faults: tuple[str, ...]
    at_rest: bool
    tray: tuple[tuple[float, float], ...]  # the felt's corners in image pixels
    die_size: float  # image pixels

    @property
    def faces(self) -> list[int]:
        return sorted(d.face for d in self.dice)

    @property
    def readable(self) -> bool:
        return self.at_rest and not self.faults

    def as_json(self) -> dict[str, Any]:
        return {
            "faces": self.faces if self.readable else None,
            "dice": [
                {
                    "face": d.face,
                    "color": d.color,
                    "center": [round(d.center[0], 1), round(d.center[1], 1)],
                    **({"fault": d.fault} if d.fault else {}),
                }
                for d in self.dice
            ],
            "expected": self.expected,
            "faults": list(self.faults),
            "at_rest": self.at_rest,
            "tray": [[round(x, 1), round(y, 1)] for x, y in self.tray],
            "die_size": round(self.die_size, 1),
        }


_NOISE_BANK: list[np.ndarray] = []
_NOISE_PAD = 64
_NOISE_LOCK = threading.Lock()


def _noise_field(nrng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A (h, w, 3) float32 view of unit Gaussian noise: a random window of a few fields made once per process."""
    with _NOISE_LOCK:
        if (
            not _NOISE_BANK
            or _NOISE_BANK[0].shape[0] < h + _NOISE_PAD
            or _NOISE_BANK[0].shape[1] < w + _NOISE_PAD
        ):
            r = np.random.default_rng(12345)
            hh, ww = max(h, 720) + _NOISE_PAD, max(w, 1280) + _NOISE_PAD
            _NOISE_BANK[:] = [r.standard_normal((hh, ww, 3), dtype=np.float32) for _ in range(3)]
        bank = _NOISE_BANK[int(nrng.integers(len(_NOISE_BANK)))]
    y = int(nrng.integers(bank.shape[0] - h + 1))
    x = int(nrng.integers(bank.shape[1] - w + 1))
    return bank[y : y + h, x : x + w]


class _Background:
    """The static part of a camera's picture for one look: felt, rim, light field (cached per throw)."""

    def __init__(self, g: TrayGeometry, view: CameraView, look: Look) -> None:
        self.key = (g, view, look)
        w, h = view.width, view.height
        r = np.random.default_rng(look.texture_seed)
        m = view.matrix(g)
        # rim (wood) everywhere, felt inside the tray
        wood = np.array((38, 66, 104), np.float32)
        grain = cv2.resize(
            r.normal(0, 1, (h // 8 + 1, 6)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
        )
        x0, y0, x1, y1 = g.tray
        corners = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float64)
        self.tray = cv2.transform(corners[None], m)[0]
        felt_mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(felt_mask, [np.round(self.tray * 8).astype(np.int32)], 255, cv2.LINE_AA, shift=3)
        blotch = cv2.resize(
            r.normal(0, 1, (h // 40 + 2, w // 40 + 2)).astype(np.float32),
            (w, h),
            interpolation=cv2.INTER_CUBIC,
        )
        fine = _noise_field(r, h, w)[..., 0]
        a = felt_mask.astype(np.float32) * (1 / 255)
        # the rim casts a thin shadow line on the felt edge
        edge = cv2.GaussianBlur(255 - felt_mask, (0, 0), 3).astype(np.float32) * (0.5 / 255)
        felt_gain = (1 + 0.05 * blotch + 0.03 * fine) * (1 - edge) * a
        wood_gain = (1 + 0.12 * grain) * (1 - a)
        felt = np.array(look.felt, np.float32)
        img = np.empty((h, w, 3), np.float32)
        for c in range(3):
            img[..., c] = wood_gain * wood[c] + felt_gain * felt[c]
        self.image = np.clip(img, 0, 255).astype(np.uint8)
        # light field x white balance, one gain per pixel and channel
        yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
        xr, yr = xx / w, yy / h
        hx, hy, hg, hr = look.hot_spot
        field = (
            1
            + look.gradient[0] * (xr - 0.5) * 2
            + look.gradient[1] * (yr - 0.5) * 2
            + hg * np.exp(-((xr - hx) ** 2 + (yr - hy) ** 2) / (2 * hr * hr))
            - look.vignette * ((xr - 0.5) ** 2 + (yr - 0.5) ** 2) * 2
        )
        field = np.clip(field * look.exposure, 0.45, 1.3)
        small = np.stack([field * look.white_balance[c] for c in range(3)], axis=-1).astype(np.float32)
        self.gain = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _die_pose(d: Die, s: float) -> tuple[np.ndarray, np.ndarray]:
    rot = _rot_z(d.yaw) @ _rot_x(d.tilt)
    zc = s / 2 * (math.cos(d.tilt) + math.sin(d.tilt)) if d.tilt else s / 2
    zc += d.level * s
    return rot, np.array((d.x, d.y, zc))


class _Projector:
    def __init__(self, g: TrayGeometry, view: CameraView) -> None:
        self.m = view.matrix(g)
        self.cam = np.array((g.width / 2, g.height / 2, view.height_dice * g.die_size))

    def world_to_image(self, p: np.ndarray) -> np.ndarray:
        """Perspective from a camera above the tray centre, then the view's 2D transform. p: (N, 3)."""
        hz = self.cam[2]
        k = hz / (hz - p[:, 2])
        xy = self.cam[None, :2] + (p[:, :2] - self.cam[None, :2]) * k[:, None]
        return cv2.transform(xy[None].astype(np.float64), self.m)[0]


def render(
    world_dice: Sequence[Die],
    g: TrayGeometry,
    view: CameraView,
    look: Look,
    nrng: np.random.Generator,
    *,
    blur_vectors: Sequence[tuple[float, float]] | None = None,
    background: _Background | None = None,
    noise: bool = True,
) -> np.ndarray:
    """Draw the dice as `view` sees them under `look`; returns a uint8 BGR image.

    `blur_vectors` gives each die's motion during the exposure (image pixels): rolling dice are smeared.
    """
    clean = render_clean(world_dice, g, view, look, blur_vectors=blur_vectors, background=background)
    return with_noise(clean, look, nrng, noise=noise)


def render_clean(
    world_dice: Sequence[Die],
    g: TrayGeometry,
    view: CameraView,
    look: Look,
    *,
    blur_vectors: Sequence[tuple[float, float]] | None = None,
    background: _Background | None = None,
) -> np.ndarray:
    """`render`'s picture before the sensor's noise: float32 BGR, not yet clipped (a still scene's frames
    differ only by their noise: the camera simulator draws it once)."""
    bg = (
        background
        if background is not None and background.key == (g, view, look)
        else _Background(g, view, look)
    )
    img: np.ndarray = bg.image.copy()
    proj = _Projector(g, view)
    s = g.die_size
    light = np.array(look.light_dir, np.float64)
    light /= np.linalg.norm(light)
    h, w = img.shape[:2]
    # shadows first, each in its own box
    poses = [_die_pose(d, s) for d in world_dice]
    cube = np.array([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]) * s
    sigma = max(1.0, s * 0.09)
    for rot, t in poses:
        pts = cube @ rot.T + t
        floor = pts - (pts[:, 2:3] / light[2]) * light[None, :]
        floor[:, 2] = 0
        poly = proj.world_to_image(floor)
        pad = int(3 * sigma) + 2
        bx0, by0 = max(0, int(poly[:, 0].min()) - pad), max(0, int(poly[:, 1].min()) - pad)
        bx1, by1 = min(w, int(poly[:, 0].max()) + pad + 1), min(h, int(poly[:, 1].max()) + pad + 1)
        if bx1 <= bx0 or by1 <= by0:
            continue
        box = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        hull = cv2.convexHull(np.round((poly - (bx0, by0)) * 8).astype(np.int32))
        cv2.fillConvexPoly(box, hull, 255, cv2.LINE_AA, shift=3)
        sh = cv2.GaussianBlur(box, (0, 0), sigma).astype(np.float32) * (look.shadow / 255)
        region = img[by0:by1, bx0:bx1].astype(np.float32) * (1 - sh)[..., None]
        img[by0:by1, bx0:bx1] = region.astype(np.uint8)
    order = sorted(range(len(world_dice)), key=lambda i: poses[i][1][2])
    blur_vectors = blur_vectors or [(0.0, 0.0)] * len(world_dice)
    for i in order:
        d = world_dice[i]
        bv = blur_vectors[i]
        if abs(bv[0]) + abs(bv[1]) < 1.0:
            _draw_die(img, d, poses[i], proj, light, s)
        else:  # draw on a layer, smear it along its motion, composite
            layer = np.zeros(img.shape, np.float32)
            mask = np.zeros(img.shape[:2], np.float32)
            _draw_die(layer, d, poses[i], proj, light, s, mask)
            centre = proj.world_to_image(poses[i][1][None])[0]
            _smear(img, layer, mask, centre, bv, s)
    if look.blur > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), look.blur)
    out: np.ndarray = cv2.multiply(img.astype(np.float32), bg.gain)
    return out


def with_noise(clean: np.ndarray, look: Look, nrng: np.random.Generator, *, noise: bool = True) -> np.ndarray:
    """A frame of `render_clean`'s picture: the sensor's noise added, clipped, uint8 (`clean` is left as it is)."""
    h, w = clean.shape[:2]
    out = clean + _noise_field(nrng, h, w) * look.noise if noise and look.noise > 0 else clean.copy()
    np.clip(out, 0, 255, out=out)
    return out.astype(np.uint8)


def _draw_die(
    img: np.ndarray,
    d: Die,
    pose: tuple[np.ndarray, np.ndarray],
    proj: _Projector,
    light: np.ndarray,
    s: float,
    mask: np.ndarray | None = None,
) -> None:
    rot, t = pose
    body, pip = DIE_COLOURS[d.colour]
    sides = dict(d.sides) if d.sides else {"top": d.face}
    sides["top"] = d.face
    for name, (c0, u0, v0) in _FACES.items():
        c, u, v = np.array(c0, float), np.array(u0, float), np.array(v0, float)
        n_world = rot @ (c * 2)
        centre = rot @ (c * s) + t
        to_cam = proj.cam - centre
        if to_cam @ n_world <= 1e-6:
            continue
        shade = 0.5 + 0.5 * max(0.0, float(n_world @ light))
        uw, vw = rot @ u * s, rot @ v * s

        def to_img(
            uv: np.ndarray, centre: np.ndarray = centre, uw: np.ndarray = uw, vw: np.ndarray = vw
        ) -> np.ndarray:
            pts = centre[None, :] + uv[:, :1] * uw[None, :] + uv[:, 1:2] * vw[None, :]
            return np.round(proj.world_to_image(pts) * 8).astype(np.int32)

        outline, inset = to_img(_OUTLINE), to_img(_INSET)
        col = tuple(float(x) * shade for x in body)
        cv2.fillPoly(img, [outline], tuple(x * 0.72 for x in col), cv2.LINE_AA, shift=3)
        cv2.fillPoly(img, [inset], col, cv2.LINE_AA, shift=3)
        if mask is not None:
            cv2.fillPoly(mask, [outline], 1.0, cv2.LINE_AA, shift=3)
        value = sides.get(name)
        if value is None:
            continue
        pcol = tuple(float(x) * (0.55 + 0.45 * shade) for x in pip)
        for pu, pv in PIP_LAYOUT[value]:
            circ = _CIRCLE * PIP_RADIUS + np.array((pu, pv))
            cv2.fillPoly(img, [to_img(circ)], pcol, cv2.LINE_AA, shift=3)


def _smear(
    img: np.ndarray,
    layer: np.ndarray,
    mask: np.ndarray,
    centre: np.ndarray,
    vec: tuple[float, float],
    s: float,
) -> None:
    length = max(2, round(math.hypot(*vec)))
    pad = int(s * 1.2 + length)
    h, w = img.shape[:2]
    x0, y0 = max(0, int(centre[0]) - pad), max(0, int(centre[1]) - pad)
    x1, y1 = min(w, int(centre[0]) + pad), min(h, int(centre[1]) + pad)
    if x1 <= x0 or y1 <= y0:
        return
    both = np.dstack((layer[y0:y1, x0:x1], mask[y0:y1, x0:x1]))
    a = math.atan2(vec[1], vec[0])
    if length <= _SHORT_SMEAR:
        k = np.zeros((length * 2 + 1, length * 2 + 1), np.float32)
        cv2.line(
            k,
            (length - round(math.cos(a) * length / 2), length - round(math.sin(a) * length / 2)),
            (length + round(math.cos(a) * length / 2), length + round(math.sin(a) * length / 2)),
            1.0,
            1,
        )
        k /= k.sum()
        out = cv2.filter2D(both, -1, k, borderType=cv2.BORDER_CONSTANT)  # what leaves the frame is gone
    else:
        # a long smear: turned so that the motion runs along x, a box along x, turned back (a line kernel's
        # filter2D costs its length squared: 3-4x the time at 30-100 px). Turned on a square centred on the
        # die, so that none of it is turned out of a box the frame's edge cut
        cx, cy = int(centre[0]) - pad, int(centre[1]) - pad
        square = np.zeros((2 * pad, 2 * pad, 4), np.float32)
        square[y0 - cy : y1 - cy, x0 - cx : x1 - cx] = both
        turn = cv2.getRotationMatrix2D((float(centre[0] - cx), float(centre[1] - cy)), math.degrees(a), 1.0)
        size = (2 * pad, 2 * pad)
        along = cv2.warpAffine(square, turn, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        along = cv2.blur(along, (length + 1, 1), borderType=cv2.BORDER_CONSTANT)
        back = cv2.warpAffine(
            along, turn, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT
        )
        out = back[y0 - cy : y1 - cy, x0 - cx : x1 - cx]
    lay, m = out[..., :3], out[..., 3:]
    img[y0:y1, x0:x1] = np.clip(img[y0:y1, x0:x1] * (1 - m) + lay, 0, 255).astype(np.uint8)


#: motion blur up to this many pixels is a line kernel; longer ones are turned and boxed
_SHORT_SMEAR = 12


def frame_truth(throw: Throw, g: TrayGeometry, view: CameraView, *, at_rest: bool = True) -> FrameTruth:
    proj = _Projector(g, view)
    s = g.die_size
    dice = []
    for d in throw.dice:
        rot, t = _die_pose(d, s)
        top = rot @ np.array((0, 0, 0.5 * s)) + t
        cx, cy = proj.world_to_image(top[None])[0]
        dice.append(DieTruth(d.face, d.colour, (float(cx), float(cy)), d.fault))
    x0, y0, x1, y1 = g.tray
    tray = cv2.transform(np.array([[(x0, y0), (x1, y0), (x1, y1), (x0, y1)]], np.float64), view.matrix(g))[0]
    return FrameTruth(
        tuple(dice),
        throw.expected,
        throw.faults,
        at_rest,
        tuple((float(x), float(y)) for x, y in tray),
        s * view.scale,
    )


def render_still(
    rng: random.Random,
    *,
    colours: Sequence[str] = ("white", "white", "white"),
    faults: Sequence[str] = (),
    geometry: TrayGeometry | None = None,
    view: CameraView | None = None,
    hard: bool = True,
    touching: float = 0.3,
    jpeg_quality: int | None = None,
    faces: Sequence[int] | None = None,
) -> tuple[np.ndarray, FrameTruth]:
    """One frame of dice at rest and its truth: the unit of the accuracy benchmark and the tests."""
    g = geometry or TrayGeometry()
    view = view or CameraView(width=int(g.width), height=int(g.height))
    throw = random_throw(rng, g, colours, faults=faults, touching=touching, faces=faces)
    look = random_look(rng, hard=hard)
    img = render(throw.dice, g, view, look, np.random.default_rng(rng.randrange(1 << 30)))
    if jpeg_quality:
        _ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        assert decoded is not None  # our own JPEG
        img = decoded
    return img, frame_truth(throw, g, view)


# --------------------------------------------------------------------------- a throw in motion


@dataclass
class _Roll:
    throw: Throw
    started: float  # monotonic seconds
    duration: float
    starts: list[tuple[float, float, float]]  # per die: start x, y, yaw
    spins: list[float]
    seed: int


class DiceWorld:
    """The dice of one table, shared by its cameras: the current throw, rolling or at rest. Thread-safe.

    Time is the caller's monotonic clock; `speed` shortens the roll (a factor, like every simulator's).
    """

    def __init__(
        self,
        geometry: TrayGeometry,
        colours: Sequence[str],
        *,
        seed: int | None = None,
        speed: float = 1.0,
        roll_s: float = 2.0,
        touching: float = 0.3,
        hard: bool = True,
        fault_rate: float = 0.0,
    ) -> None:
        if not colours:
            raise ValueError("a dice world needs at least one die")
        for c in colours:
            if c not in DIE_COLOURS:
                raise ValueError(f"unknown die colour {c!r}; known: {', '.join(DIE_COLOURS)}")
        self.geometry = geometry
        self.colours = tuple(colours)
        self.speed = speed
        self.roll_s = roll_s
        self.touching = touching
        self.hard = hard
        self.fault_rate = fault_rate
        self.rng = random.Random(seed)
        self.looks: dict[int, Look] = {}
        self._lock = threading.Lock()
        self._roll: _Roll | None = None
        self._queued: tuple[Sequence[int] | None, Sequence[str]] | None = None
        self.throws = 0
        self.history: list[Throw] = []  # the last 50 throws, oldest first
        self.last_throw_at = -1e9
        self.rounds_thrown: dict[str, None] = {}  # the newest simulators.history.KEEP
        # the dice lie somewhere before the first throw
        first = random_throw(self.rng, geometry, self.colours, touching=touching)
        self._roll = _Roll(first, -1e9, 0.0, [], [], 0)

    def look(self, camera: int) -> Look:
        with self._lock:
            if camera not in self.looks:
                self.looks[camera] = random_look(self.rng, hard=self.hard)
            return self.looks[camera]

    def queue(self, faces: Sequence[int] | None = None, faults: Sequence[str] = ()) -> None:
        """What the next throw started by the table (table_event) will give: faces and/or faults."""
        with self._lock:
            self._queued = (faces, tuple(faults))

    def throw(
        self, now: float, faces: Sequence[int] | None = None, faults: Sequence[str] | None = None
    ) -> Throw:
        """Throw the dice now; returns where they will come to rest."""
        with self._lock:
            if faces is None and faults is None and self._queued is not None:
                faces, faults = self._queued
                self._queued = None
            if faults is None:
                faults = ()
                if self.fault_rate and self.rng.random() < self.fault_rate:
                    options = [f for f in FAULTS if f != "stacked" or len(self.colours) > 1]
                    faults = (self.rng.choice(options),)
            final = random_throw(
                self.rng, self.geometry, self.colours, faults=faults, touching=self.touching, faces=faces
            )
            g = self.geometry
            starts = []
            for _ in final.dice:
                x = self.rng.uniform(g.tray[0] + g.die_size, g.tray[2] - g.die_size)
                starts.append((x, g.tray[3] - g.die_size * 0.7, self.rng.uniform(0, 2 * math.pi)))
            spins = [self.rng.uniform(2, 6) * self.rng.choice((-1, 1)) for _ in final.dice]
            self._roll = _Roll(
                final, now, self.roll_s / self.speed, starts, spins, self.rng.randrange(1 << 30)
            )
            self.throws += 1
            self.last_throw_at = now
            self.history.append(final)
            del self.history[:-50]
            return final

    @property
    def current(self) -> Throw:
        with self._lock:
            assert self._roll is not None
            return self._roll.throw

    def at_rest(self, now: float) -> bool:
        with self._lock:
            r = self._roll
            return r is None or now >= r.started + r.duration

    def scene(self, now: float, exposure_s: float) -> tuple[list[Die], list[tuple[float, float]], bool]:
        """The dice as they are at `now`: positions (world), motion during the exposure, at rest?"""
        with self._lock:
            r = self._roll
        assert r is not None
        if now >= r.started + r.duration or not r.starts:
            return list(r.throw.dice), [(0.0, 0.0)] * len(r.throw.dice), True
        u = max(0.0, (now - r.started) / r.duration)
        rng = random.Random(r.seed + int(u * 12))  # the faces shown change a dozen times while rolling
        dice, blur = [], []
        s = self.geometry.die_size
        for d, (sx, sy, _), spin in zip(r.throw.dice, r.starts, r.spins):
            k = (1 - u) ** 2
            x = d.x + (sx - d.x) * k
            y = d.y + (sy - d.y) * k
            # speed (world units / s) times the exposure: the smear
            dk = 2 * (1 - u) / r.duration
            vx, vy = -(sx - d.x) * dk, -(sy - d.y) * dk
            yaw = d.yaw + spin * k
            if u < 0.8:
                tilt = rng.uniform(0.1, 0.7)
                face = rng.randint(1, 6)
                x = min(max(x, self.geometry.tray[0] + s), self.geometry.tray[2] - s)
                y = min(max(y, self.geometry.tray[1] + s), self.geometry.tray[3] - s)
                dice.append(Die(face, d.colour, x, y, yaw, tilt, 0, tuple(_side_faces(face, rng).items())))
            else:
                dice.append(replace(d, x=x, y=y, yaw=yaw))
            blur.append((vx * exposure_s, vy * exposure_s))
        return dice, blur, False


_WORLDS: dict[str, tuple[DiceWorld, int]] = {}
_WORLDS_LOCK = threading.Lock()


def _shared_world(name: str | None, make: Any) -> DiceWorld:
    if name is None:
        return make()
    with _WORLDS_LOCK:
        world, users = _WORLDS.get(name, (None, 0))
        if world is None:
            world = make()
        _WORLDS[name] = (world, users + 1)
        return world


def _release_world(name: str | None) -> None:
    if name is None:
        return
    with _WORLDS_LOCK:
        world, users = _WORLDS.get(name, (None, 0))
        if world is None:
            return
        if users <= 1:
            del _WORLDS[name]
        else:
            _WORLDS[name] = (world, users - 1)


def camera_view(camera: int, width: int, height: int) -> CameraView:
    """Camera 0 looks from the dealer's side; camera 1 from the opposite side, a little further away."""
    if camera == 0:
        return CameraView(width=width, height=height)
    return CameraView(
        width=width,
        height=height,
        rotation=(180.0 * camera + 4.0 * camera) % 360,
        scale=1.0 - 0.04 * camera,
        shift=(6.0 * camera, -4.0 * camera),
    )


# --------------------------------------------------------------------------- the camera on the network


class DiceCameraSimulator:
    """One camera of a dice world, streamed as MJPEG over HTTP on 127.0.0.1 (see the module documentation).

    Technician/test controls: :meth:`throw`, :meth:`truth`, :meth:`drop` (close every stream and refuse new
    ones for a while: a cable pulled), :meth:`freeze` (send the same picture: a stuck encoder).
    """

    def __init__(
        self,
        world: DiceWorld,
        *,
        camera: int = 0,
        fps: float = 10.0,
        width: int | None = None,
        height: int | None = None,
        jpeg_quality: int = 85,
        seed: int | None = None,
        throw_delay_s: float = 1.0,
        rethrow_on_hold: bool = True,
        rethrow_delay_s: float = 2.0,
        auto_throw_s: float | None = None,
        world_name: str | None = None,
    ) -> None:
        if fps <= 0:
            raise ValueError("fps must be positive")
        self.world = world
        self.camera = camera
        self.fps = fps
        g = world.geometry
        self.view = camera_view(camera, int(width or g.width), int(height or g.height))
        self.jpeg_quality = jpeg_quality
        self.nrng = np.random.default_rng(seed if seed is not None else None)
        self.throw_delay_s = throw_delay_s
        self.rethrow_on_hold = rethrow_on_hold
        self.rethrow_delay_s = rethrow_delay_s
        self.auto_throw_s = auto_throw_s
        self._world_name = world_name
        self._server: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self._clients: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._frame_ready = threading.Condition(self._lock)
        self._jpeg: bytes | None = None
        self._frame_no = 0
        self._stop = threading.Event()
        self._down_until = 0.0
        self._frozen_until = 0.0
        self._timers: list[threading.Timer] = []
        self._background: _Background | None = None
        self._still: tuple[Any, np.ndarray] | None = None  # a still scene's key and its picture before noise
        self.port: int | None = None
        self.frames_rendered = 0

    # -- life cycle ----------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the simulator is not started")
        return f"http://127.0.0.1:{self.port}/stream.mjpg"

    def start(self) -> DiceCameraSimulator:
        if self._server is not None:
            return self
        srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", 0))
        srv.listen(8)
        srv.settimeout(0.2)
        self._server = srv
        self.port = srv.getsockname()[1]
        self._render_once()
        for target, name in ((self._accept_loop, "accept"), (self._render_loop, "render")):
            t = threading.Thread(target=target, name=f"dice-sim:{self.port}:{name}", daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        for t in self._timers:
            t.cancel()
        with self._frame_ready:
            self._frame_ready.notify_all()
            clients = list(self._clients)
        for c in clients:
            _close(c)
        if self._server is not None:
            _close(self._server)
        waits: list[threading.Thread] = [*self._threads, *self._timers]
        for th in waits:
            if th is not threading.current_thread():
                th.join(5)
        _release_world(self._world_name)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- controls ------------------------------------------------------------------------------------

    def throw(self, faces: Sequence[int] | None = None, faults: Sequence[str] | None = None) -> FrameTruth:
        """Throw the dice now; returns the truth of where they come to rest, as this camera sees it."""
        final = self.world.throw(time.monotonic(), faces=faces, faults=faults)
        return frame_truth(final, self.world.geometry, self.view)

    def truth(self) -> FrameTruth:
        now = time.monotonic()
        return frame_truth(
            self.world.current, self.world.geometry, self.view, at_rest=self.world.at_rest(now)
        )

    def drop(self, seconds: float) -> None:
        """Close every stream now and refuse connections for `seconds` (a pulled cable, a rebooting camera)."""
        with self._frame_ready:
            self._down_until = time.monotonic() + seconds
            clients = list(self._clients)
        for c in clients:
            _close(c)

    def freeze(self, seconds: float) -> None:
        """Keep sending the very same picture for `seconds` (a stuck encoder)."""
        with self._frame_ready:
            self._frozen_until = time.monotonic() + seconds

    def table_event(self, what: str, data: dict[str, Any]) -> None:
        """Act as the dealer: throw when betting closes, throw again when the table holds for the dice.

        Called on the studio's event loop: only starts timers."""
        if what == "round" and data.get("transition") == "start_play":
            rid = str(data.get("round_id"))
            if rid in self.world.rounds_thrown:
                return  # the other camera of this table already threw
            remember(self.world.rounds_thrown, rid)
            self._later(self.throw_delay_s / self.world.speed, lambda: self.throw())
        elif what == "hold" and self.rethrow_on_hold and str(data.get("code", "")).startswith("dice_"):
            if time.monotonic() - self.world.last_throw_at < 1.0:
                return
            self.world.last_throw_at = time.monotonic()
            self._later(self.rethrow_delay_s / self.world.speed, lambda: self.throw(faults=()))

    def _later(self, delay: float, fn: Any) -> None:
        if self._stop.is_set():
            return
        t = threading.Timer(max(0.0, delay), lambda: None if self._stop.is_set() else fn())
        t.daemon = True
        self._timers = [x for x in self._timers if x.is_alive()] + [t]
        t.start()

    # -- rendering -------------------------------------------------------------------------------------

    def _render_once(self) -> None:
        now = time.monotonic()
        g = self.world.geometry
        look = self.world.look(self.camera)
        dice, blur, still = self.world.scene(now, exposure_s=0.5 / self.fps)
        k = (self.view.width / g.width) * self.view.scale
        blur = [(bx * k, by * k) for bx, by in blur]
        if self._background is None or self._background.key != (g, self.view, look):
            self._background = _Background(g, self.view, look)
        # dice at rest under the same light: the same picture, only the sensor's noise is new each frame
        key = (tuple(dice), g, self.view, look) if still else None
        if key is None or self._still is None or self._still[0] != key:
            clean = render_clean(dice, g, self.view, look, blur_vectors=blur, background=self._background)
            self._still = (key, clean) if key is not None else None
        else:
            clean = self._still[1]
        img = with_noise(clean, look, self.nrng)
        _ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        with self._frame_ready:
            if now < self._frozen_until and self._jpeg is not None:
                pass  # a stuck encoder repeats its last picture
            else:
                self._jpeg = buf.tobytes()
            self._frame_no += 1
            self.frames_rendered += 1
            self._frame_ready.notify_all()

    def _render_loop(self) -> None:
        period = 1.0 / self.fps
        due = time.monotonic()
        last_auto = time.monotonic()
        while not self._stop.is_set():
            due += period
            try:
                self._render_once()
            except Exception:  # pragma: no cover - a rendering bug must not kill the stream silently
                import logging

                logging.getLogger(__name__).exception("dice simulator: rendering failed")
            if self.auto_throw_s and time.monotonic() - last_auto >= self.auto_throw_s / self.world.speed:
                last_auto = time.monotonic()
                if self.camera == 0:
                    self.throw()
            delay = due - time.monotonic()
            if delay < 0:
                due = time.monotonic()
                delay = 0.0
            self._stop.wait(delay)

    # -- HTTP ---------------------------------------------------------------------------------------------

    def _accept_loop(self) -> None:
        assert self._server is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            if time.monotonic() < self._down_until:
                _close(conn)
                continue
            conn.settimeout(5.0)
            with self._frame_ready:
                self._clients.add(conn)
            t = threading.Thread(
                target=self._serve, args=(conn,), name=f"dice-sim:{self.port}:client", daemon=True
            )
            self._threads = [x for x in self._threads if x.is_alive()] + [t]
            t.start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            request = b""
            while b"\r\n\r\n" not in request and len(request) < 8192:
                chunk = conn.recv(1024)
                if not chunk:
                    return
                request += chunk
            line = request.split(b"\r\n", 1)[0].decode("latin-1")
            parts = line.split()
            path = parts[1] if len(parts) >= 2 else "/"
            if path.startswith("/stream"):
                self._stream(conn)
            elif path.startswith("/snapshot"):
                with self._frame_ready:
                    jpeg = self._jpeg or b""
                conn.sendall(
                    b"HTTP/1.0 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpeg)
                    + jpeg
                )
            elif path.startswith("/truth"):
                body = json.dumps(self.truth().as_json()).encode()
                conn.sendall(
                    b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                    % len(body)
                    + body
                )
            else:
                conn.sendall(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        except OSError:
            pass
        finally:
            with self._frame_ready:
                self._clients.discard(conn)
            _close(conn)

    def _stream(self, conn: socket.socket) -> None:
        conn.sendall(
            b"HTTP/1.0 200 OK\r\nCache-Control: no-cache\r\nConnection: close\r\n"
            b"Content-Type: multipart/x-mixed-replace; boundary=frame\r\n\r\n"
        )
        sent = -1
        while not self._stop.is_set():
            with self._frame_ready:
                while self._frame_no == sent and not self._stop.is_set() and conn in self._clients:
                    self._frame_ready.wait(0.5)
                if self._stop.is_set() or conn not in self._clients:
                    return
                sent, jpeg = self._frame_no, self._jpeg or b""
            conn.sendall(
                b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpeg)
                + jpeg
                + b"\r\n"
            )


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        s.close()
    except OSError:
        pass


def _dice_camera(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[DiceCameraSimulator, str]:
    """SIMULATORS factory. Options: colors (default 3 white), world (shared by a table's cameras), camera
    (0, 1: viewpoint), fps, width, height, die_size, jpeg_quality, hard, touching, roll_s, throw_delay_s,
    rethrow_on_hold, rethrow_delay_s, fault_rate, auto_throw_s."""
    colours = tuple(options.pop("colors", options.pop("colours", ("white", "white", "white"))))
    width = int(options.pop("width", 1280))
    height = int(options.pop("height", 720))
    g = TrayGeometry.for_frame(width, height, options.pop("die_size", None))
    world_name = options.pop("world", None)
    world_opts = {k: options.pop(k) for k in ("roll_s", "touching", "hard", "fault_rate") if k in options}
    world = _shared_world(world_name, lambda: DiceWorld(g, colours, seed=seed, speed=speed, **world_opts))
    camera = int(options.pop("camera", 0))
    sim = DiceCameraSimulator(
        world,
        camera=camera,
        seed=None if seed is None else seed + 1000 * (camera + 1),
        world_name=world_name,
        **options,
    )
    sim.start()
    return sim, sim.url


#: device kind -> factory, found by studio.simulated for tables whose device URL is "simulator"
SIMULATORS = {"dice-camera": _dice_camera}


# --------------------------------------------------------------------------- command line


def write_dataset(
    folder: Path,
    frames: int,
    *,
    colours: Sequence[str],
    faults: Sequence[str] = (),
    seed: int = 1,
    width: int = 1280,
    height: int = 720,
    hard: bool = True,
    touching: float = 0.3,
    jpeg_quality: int = 90,
) -> list[Path]:
    """Labelled frames for the accuracy runner: NAME.jpg + NAME.json (the truth) + calibration.json."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    g = TrayGeometry.for_frame(width, height)
    (folder / "calibration.json").write_text(json.dumps(calibration_document(g), indent=2))
    out = []
    for i in range(frames):
        img, truth = render_still(
            rng, colours=colours, faults=faults, geometry=g, hard=hard, touching=touching
        )
        name = f"dice-{i:05d}"
        cv2.imwrite(str(folder / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
        (folder / f"{name}.json").write_text(json.dumps(truth.as_json()))
        out.append(folder / f"{name}.jpg")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Dice camera simulator: MJPEG over HTTP, or a labelled dataset"
    )
    parser.add_argument("--colors", default="white,white,white", help="die colours, one per die")
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--throw-every", type=float, default=8.0, help="seconds between throws (0: never)")
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--write-dataset", metavar="DIR", help="write labelled frames instead of streaming")
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument(
        "--faults", default="", help="faults in every dataset frame: cocked,outside,missing,stacked"
    )
    args = parser.parse_args(argv)
    colours = [c.strip() for c in args.colors.split(",") if c.strip()]
    if args.write_dataset:
        paths = write_dataset(
            Path(args.write_dataset),
            args.frames,
            colours=colours,
            seed=args.seed or 1,
            faults=[f for f in args.faults.split(",") if f],
            width=args.width,
            height=args.height,
        )
        print(f"{len(paths)} frames in {args.write_dataset}")
        return
    sim, url = _dice_camera(
        seed=args.seed,
        colors=colours,
        fps=args.fps,
        width=args.width,
        height=args.height,
        auto_throw_s=args.throw_every or None,
        fault_rate=args.fault_rate,
    )
    print(url, flush=True)
    try:
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()


if __name__ == "__main__":
    main()
