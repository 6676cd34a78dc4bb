"""Software twin of an overhead roulette camera: rendered frames of a wheel with its ball(s), streamed over TCP.

Two layers, like the other simulators:

* The pure core. :func:`render` draws what the camera sees for a :class:`Scene` (the
  rotor at an angle, balls resting in named pockets or anywhere in the bowl) and returns
  the frame and its truth; :class:`SpinPlan` is the choreography of one spin (the ball(s)
  at rest, launched into the track, slowing down for a known number of revolutions,
  dropping into known pockets, the rotor turning all along) and gives the scene at any
  time. All randomness comes from a seeded ``random.Random`` / ``numpy.random.Generator``.
* :class:`RouletteCameraSimulator` plays spins in real time (``speed`` compresses the
  choreography) and serves the frames as a *frame stream* on 127.0.0.1 (the format the
  driver reads, ``devices/camera/frames.py``): ``tcp://127.0.0.1:<port>``. With a
  table it follows the rounds (``table_event``): each round that opens gets a spin; with a
  wheel simulator linked (:meth:`RouletteCameraSimulator.link_wheel`) the wheel is told
  the first ball's pocket, so wheel and camera agree unless a test says otherwise.

What a frame holds: a dark table, the wooden bowl rim, the polished ball track, the apron
with eight metal deflectors, the rotor (number ring in red/black/green with white
numerals and gold separators, pockets with silver frets, a wooden cone and a metal turret),
white balls with a highlight and a shadow, motion blur on a fast ball, uneven light (a
gradient and a vignette), sensor noise, a slight lens blur. Geometry as fractions of the
ball track's outer radius (the defaults of ``devices/overhead_camera/calibration.py``).

This module imports nothing else of ours but the frame transport (``devices.camera.frames``): it
repeats the standard number orders.

Quick start::

    python -m simulators.roulette_camera --frame /tmp/wheel.png --pockets 17,17 --rotor 40
    python -m simulators.roulette_camera --serve --fps 30          # prints the stream URL
"""

from __future__ import annotations

import argparse
import math
import random
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Self

import cv2
import numpy as np

from devices.camera.frames import pack_frame

from .abilities import FollowsWheel, ForcesNumber

__all__ = [
    "AMERICAN_ORDER",
    "EUROPEAN_ORDER",
    "SIMULATORS",
    "BallPose",
    "Renderer",
    "RouletteCameraSimulator",
    "Scene",
    "SpinPlan",
    "View",
    "render",
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
_RED = {str(n) for n in (1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36)}
ORDERS = {"european": EUROPEAN_ORDER, "american": AMERICAN_ORDER}

# radii, as fractions of the ball track's outer radius
TRACK = (0.80, 1.0)
APRON = (0.70, 0.80)
NUMBER_RING = (0.60, 0.70)
POCKETS = (0.45, 0.60)
RIM_OUTER = 1.12
BALL_DIAMETER = 0.0525
TRACK_LANE = 0.905  # where a ball runs in the track


def _wire_frame(image: np.ndarray, seq: int, time_us: int, jpeg_quality: int | None) -> bytes:
    """One frame of the stream: raw BGR, or JPEG when ``jpeg_quality`` is given."""
    if jpeg_quality is None:
        return pack_frame(image, seq, timestamp_us=time_us)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return pack_frame(image, seq, encoded=buf.tobytes(), timestamp_us=time_us)


def pocket_color(label: str) -> str:
    return "green" if label in ("0", "00") else "red" if label in _RED else "black"


# ---------------------------------------------------------------------------------------------
# The scene
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """Where the wheel is in the picture and how the picture looks."""

    width: int = 1280
    height: int = 720
    center: tuple[float, float] | None = None  # default: the middle of the frame
    radius: float | None = None  # the ball track's outer radius in pixels; default 0.42 x height
    wheel: str = "european"
    clockwise: bool = True  # False: the camera sees the wheel mirrored
    pocket_offset_deg: float = 0.0  # number ring turned against the pockets (a wheel to calibrate)
    light: float = 0.25  # strength of the light gradient and vignette (0: flat)
    noise: float = 4.0  # sensor noise, grey levels (standard deviation)
    blur: bool = True  # a slight lens blur

    @property
    def c(self) -> tuple[float, float]:
        return self.center if self.center is not None else (self.width / 2, self.height / 2)

    @property
    def r(self) -> float:
        return self.radius if self.radius is not None else 0.42 * self.height

    @property
    def order(self) -> tuple[str, ...]:
        return ORDERS[self.wheel]

    def calibration(self) -> dict[str, Any]:
        """The driver's ``calibration`` option for this view (what a technician would measure)."""
        cx, cy = self.c
        return {
            "center": [round(cx, 2), round(cy, 2)],
            "radius": round(self.r, 2),
            "preset": self.wheel,
            "clockwise": self.clockwise,
            "pocket_offset_deg": self.pocket_offset_deg,
        }


@dataclass(frozen=True)
class BallPose:
    """One ball: at rest in a pocket (``pocket``), or anywhere (``angle_deg`` in the picture, ``radius_frac``)."""

    pocket: str | None = None
    depth: float = 0.5  # in the pocket, from its inner (0) to its outer (1) end
    across: float = 0.5  # in the pocket, from its first (0) to its second (1) fret
    angle_deg: float | None = None
    radius_frac: float | None = None
    blur_deg: float = 0.0  # how far the ball moves round during the exposure (motion blur)


@dataclass(frozen=True)
class Scene:
    rotor_deg: float
    balls: tuple[BallPose, ...] = ()


def pocket_angle(view: View, rotor_deg: float, label: str, across: float = 0.5) -> float:
    """The picture angle of a point ``across`` a pocket (0.5: its middle) for a rotor angle.

    ``rotor_deg`` is where pocket ``order[0]`` begins, in the rotor's direction; the number
    ring is turned ``view.pocket_offset_deg`` further (0 on an aligned wheel)."""
    step = 360.0 / len(view.order)
    k = view.order.index(label)
    d = 1.0 if view.clockwise else -1.0
    return (d * (rotor_deg + (k + across) * step)) % 360.0


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


class Renderer:
    """Draws scenes for one view; the static parts are drawn once."""

    def __init__(self, view: View = View(), seed: int | None = None) -> None:
        self.view = view
        self._np = np.random.default_rng(seed)
        w, h = view.width, view.height
        cx, cy = view.c
        R = view.r
        self._background = self._stator(w, h, cx, cy, R)
        size = math.ceil(2 * NUMBER_RING[1] * R) + 4
        self._tex_size = size
        self._rotor = self._rotor_texture(size, R)
        yy, xx = np.mgrid[0:size, 0:size]
        half = (size - 1) / 2
        self._disc = (np.hypot(xx - half, yy - half) <= NUMBER_RING[1] * R).astype(np.uint8)
        # where the rotor's square lands in the frame (clipped)
        self._ox, self._oy = round(cx - half), round(cy - half)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        d = np.hypot(xx - cx, yy - cy) / max(w, h)
        gain = 1.0 + view.light * (0.35 * (xx / w - 0.5) - 0.25 * (yy / h - 0.5)) - view.light * 0.9 * d**2
        self._gain = np.clip(np.dstack([gain] * 3) * 200, 0, 255).astype(np.uint8)
        self._noise: list[tuple[np.ndarray, np.ndarray]] = []
        if view.noise > 0:
            for _ in range(4):
                n = self._np.normal(0, view.noise, (h, w, 3))
                self._noise.append(
                    (np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8))
                )

    # -- static parts --------------------------------------------------------------------

    @staticmethod
    def _stator(w: int, h: int, cx: float, cy: float, R: float) -> np.ndarray:
        img = np.empty((h, w, 3), np.uint8)
        img[:] = (38, 52, 30)  # the table's felt
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        rf = np.hypot(xx - cx, yy - cy) / R
        ang = np.arctan2(yy - cy, xx - cx)
        grain = (np.sin(ang * 90 + rf * 40) * 6).astype(np.float32)

        def paint(mask: np.ndarray, bgr: tuple[int, int, int], shade: np.ndarray | float = 0.0) -> None:
            for ch in range(3):
                layer = img[..., ch]
                layer[mask] = np.clip(
                    bgr[ch] + (shade[mask] if isinstance(shade, np.ndarray) else shade), 0, 255
                ).astype(np.uint8)

        paint((rf >= TRACK[1]) & (rf < RIM_OUTER), (30, 55, 95), grain)  # the bowl's wooden rim
        paint((rf >= TRACK[0]) & (rf < TRACK[1]), (70, 110, 150), grain + 25 * (rf - 0.9))  # polished track
        paint((rf >= APRON[0]) & (rf < APRON[0] + 0.1), (40, 70, 105), grain * 0.5)  # the apron
        cv2.circle(img, (round(cx), round(cy)), round(TRACK[0] * R), (25, 45, 70), 2, cv2.LINE_AA)
        cv2.circle(img, (round(cx), round(cy)), round(RIM_OUTER * R), (20, 30, 40), 3, cv2.LINE_AA)
        for k in range(8):  # metal deflectors on the apron, not as bright as a ball
            a = math.radians(22.5 + 45 * k)
            rm = (APRON[0] + APRON[1]) / 2 * R
            px, py = cx + rm * math.cos(a), cy + rm * math.sin(a)
            t = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
            pts = np.array([(0.03 * R, 0), (0, 0.012 * R), (-0.03 * R, 0), (0, -0.012 * R)]) @ t.T + (px, py)
            cv2.fillConvexPoly(
                img, np.round(pts * 16).astype(np.int32), (140, 145, 150), cv2.LINE_AA, shift=4
            )
            cv2.polylines(
                img, [np.round(pts * 16).astype(np.int32)], True, (90, 95, 100), 1, cv2.LINE_AA, shift=4
            )
        return img

    def _rotor_texture(self, size: int, R: float) -> np.ndarray:
        v = self.view
        tex = np.zeros((size, size, 3), np.uint8)
        half = (size - 1) / 2
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        rf = np.hypot(xx - half, yy - half) / R
        ang = (np.degrees(np.arctan2(yy - half, xx - half))) % 360.0
        d = 1.0 if v.clockwise else -1.0
        order = v.order
        n = len(order)
        step = 360.0 / n
        # the cone and turret
        cone = rf < POCKETS[0]
        shade = (70 + 60 * (rf / POCKETS[0])).astype(np.float32)
        tex[cone] = (
            np.stack([shade * 0.45, shade * 0.75, shade * 1.1], axis=-1)[cone].clip(0, 255).astype(np.uint8)
        )
        c = (round(half), round(half))
        cv2.circle(tex, c, int(0.09 * R), (120, 125, 135), -1, cv2.LINE_AA)
        cv2.circle(tex, c, int(0.04 * R), (150, 155, 165), -1, cv2.LINE_AA)
        for k in range(4):
            a = math.radians(45 + 90 * k)
            spoke = (round(half + 0.3 * R * math.cos(a)), round(half + 0.3 * R * math.sin(a)))
            cv2.line(tex, c, spoke, (130, 135, 145), max(2, int(0.018 * R)), cv2.LINE_AA)
            cv2.circle(tex, spoke, max(2, int(0.02 * R)), (150, 155, 160), -1, cv2.LINE_AA)
        # the pockets: dark wood, silver frets
        rel = (d * ang) % 360.0  # angle in rotor direction
        pockets = (rf >= POCKETS[0]) & (rf < POCKETS[1])
        seg_shade = (np.floor(rel / step) % 2) * 8
        floor = np.stack([30 + seg_shade, 45 + seg_shade, 70 + seg_shade + 30 * (rf - 0.5)], axis=-1)
        tex[pockets] = floor[pockets].clip(0, 255).astype(np.uint8)
        ring = (rf >= NUMBER_RING[0]) & (rf < NUMBER_RING[1])
        # the number ring: offset against the pockets by pocket_offset_deg
        seg = np.floor(((rel - v.pocket_offset_deg) % 360.0) / step).astype(int) % n
        palette = {"red": (30, 30, 175), "black": (28, 28, 28), "green": (40, 130, 25)}
        colours = np.array([palette[pocket_color(p)] for p in order], np.uint8)
        tex[ring] = colours[seg][ring]
        for k in range(n):
            a = math.radians(d * k * step)  # the silver fret between two pockets
            p1 = (half + POCKETS[0] * R * math.cos(a), half + POCKETS[0] * R * math.sin(a))
            p2 = (half + POCKETS[1] * R * math.cos(a), half + POCKETS[1] * R * math.sin(a))
            cv2.line(
                tex,
                (round(p1[0] * 16), round(p1[1] * 16)),
                (round(p2[0] * 16), round(p2[1] * 16)),
                (150, 150, 160),
                max(2, int(0.006 * R)),
                cv2.LINE_AA,
                shift=4,
            )
            a = math.radians(d * (k * step + v.pocket_offset_deg))
            p1 = (half + NUMBER_RING[0] * R * math.cos(a), half + NUMBER_RING[0] * R * math.sin(a))
            p2 = (half + NUMBER_RING[1] * R * math.cos(a), half + NUMBER_RING[1] * R * math.sin(a))
            cv2.line(
                tex,
                (round(p1[0] * 16), round(p1[1] * 16)),
                (round(p2[0] * 16), round(p2[1] * 16)),
                (60, 160, 200),
                1,
                cv2.LINE_AA,
                shift=4,
            )
        for rr in (POCKETS[0], POCKETS[1], NUMBER_RING[1]):
            cv2.circle(
                tex,
                c,
                round(rr * R),
                (60, 150, 190) if rr != POCKETS[0] else (120, 125, 130),
                max(1, int(0.005 * R)),
                cv2.LINE_AA,
            )
        # white numerals, upright towards the centre
        mid = (NUMBER_RING[0] + NUMBER_RING[1]) / 2
        font_h = 0.032 * R
        scale = font_h / 22.0
        for k, label in enumerate(order):
            a = d * ((k + 0.5) * step + v.pocket_offset_deg)
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
            patch = np.zeros((th + 6, tw + 6), np.uint8)
            cv2.putText(patch, label, (3, th + 2), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, 1, cv2.LINE_AA)
            px = half + mid * R * math.cos(math.radians(a))
            py = half + mid * R * math.sin(math.radians(a))
            m = cv2.getRotationMatrix2D(((tw + 6) / 2, (th + 6) / 2), -(a + 90), 1.0)
            m[0, 2] += px - (tw + 6) / 2
            m[1, 2] += py - (th + 6) / 2
            glyph = cv2.warpAffine(patch, m, (size, size))
            tex[glyph > 100] = (235, 235, 235)
        return tex

    # -- one frame ----------------------------------------------------------------------

    def render(self, scene: Scene, rng: random.Random | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        v = self.view
        frame = self._background.copy()
        size = self._tex_size
        half = (size - 1) / 2
        d = 1.0 if v.clockwise else -1.0
        m = cv2.getRotationMatrix2D((half, half), -d * scene.rotor_deg, 1.0)
        rotor = cv2.warpAffine(self._rotor, m, (size, size), flags=cv2.INTER_LINEAR)
        x0, y0 = self._ox, self._oy
        fx0, fy0 = max(0, x0), max(0, y0)
        fx1, fy1 = min(v.width, x0 + size), min(v.height, y0 + size)
        if fx1 > fx0 and fy1 > fy0:
            sub = frame[fy0:fy1, fx0:fx1]
            tex = rotor[fy0 - y0 : fy1 - y0, fx0 - x0 : fx1 - x0]
            disc = self._disc[fy0 - y0 : fy1 - y0, fx0 - x0 : fx1 - x0]
            np.copyto(sub, tex, where=disc[..., None].astype(bool))
        truth_balls = []
        for ball in scene.balls:
            x, y, rf, angle = self._place(ball, scene.rotor_deg)
            self._draw_ball(frame, x, y, ball.blur_deg)
            truth_balls.append({"pocket": ball.pocket, "x": x, "y": y, "radius_frac": rf, "angle_deg": angle})
        if v.light:
            frame = cv2.multiply(frame, self._gain, scale=1 / 200)
        if v.blur:
            frame = cv2.GaussianBlur(frame, (3, 3), 0.7)
        if self._noise:
            r = rng or random
            pos, neg = self._noise[r.randrange(len(self._noise))]
            frame = cv2.subtract(cv2.add(frame, pos), neg)
        return frame, {"rotor_deg": scene.rotor_deg % 360.0, "balls": truth_balls}

    def _place(self, ball: BallPose, rotor_deg: float) -> tuple[float, float, float, float]:
        v = self.view
        cx, cy = v.c
        if ball.pocket is not None:
            # the ball's centre sits a radius in from each end of the pocket
            rb = BALL_DIAMETER / 2
            rf = POCKETS[0] + rb + 0.004 + (POCKETS[1] - POCKETS[0] - 2 * rb - 0.008) * ball.depth
            half_w = math.degrees(rb * 1.05 / rf)  # keep the ball clear of the frets
            step = 360.0 / len(v.order)
            lo, hi = half_w / step, 1 - half_w / step
            across = lo + (hi - lo) * ball.across
            angle = pocket_angle(v, rotor_deg, ball.pocket, across)
        else:
            if ball.angle_deg is None:
                raise ValueError("a ball is in a pocket or at an angle")
            angle = ball.angle_deg % 360.0
            rf = ball.radius_frac if ball.radius_frac is not None else TRACK_LANE
        a = math.radians(angle)
        return cx + rf * v.r * math.cos(a), cy + rf * v.r * math.sin(a), rf, angle

    def _draw_ball(self, frame: np.ndarray, x: float, y: float, blur_deg: float) -> None:
        v = self.view
        r = BALL_DIAMETER / 2 * v.r
        cx, cy = v.c
        # shadow, away from the light
        _disc(frame, x + 0.35 * r, y + 0.45 * r, r, (15, 20, 25))
        if abs(blur_deg) < 0.5:
            _ball(frame, x, y, r)
            return
        # motion blur: the average of the ball drawn along the arc it covers during the exposure
        rr = math.hypot(x - cx, y - cy)
        a0 = math.atan2(y - cy, x - cx)
        k = max(3, min(12, int(abs(blur_deg) * rr * math.pi / 180 / 2) + 2))
        pts = [
            (
                cx + rr * math.cos(a0 - math.radians(blur_deg) * i / (k - 1)),
                cy + rr * math.sin(a0 - math.radians(blur_deg) * i / (k - 1)),
            )
            for i in range(k)
        ]
        x0 = max(0, int(min(p[0] for p in pts) - r - 2))
        y0 = max(0, int(min(p[1] for p in pts) - r - 2))
        x1 = min(frame.shape[1], int(max(p[0] for p in pts) + r + 3))
        y1 = min(frame.shape[0], int(max(p[1] for p in pts) + r + 3))
        if x1 <= x0 or y1 <= y0:
            return
        patch = frame[y0:y1, x0:x1]
        acc = np.zeros(patch.shape, np.float32)
        for px, py in pts:
            copy = patch.copy()
            _ball(copy, px - x0, py - y0, r)
            acc += copy
        patch[:] = (acc / k).astype(np.uint8)


def _disc(img: np.ndarray, x: float, y: float, r: float, colour: tuple[int, int, int]) -> None:
    s = 16
    cv2.circle(img, (round(x * s), round(y * s)), round(r * s), colour, -1, cv2.LINE_AA, shift=4)


def _ball(img: np.ndarray, x: float, y: float, r: float) -> None:
    """A white ball lit from the top left: a grey rim, a white body, a highlight."""
    _disc(img, x, y, r, (190, 195, 200))
    _disc(img, x, y, 0.82 * r, (238, 240, 242))
    _disc(img, x - 0.3 * r, y - 0.3 * r, 0.3 * r, (255, 255, 255))


def render(
    scene: Scene, view: View = View(), *, seed: int | None = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """One frame of a scene and its truth (the short way; keep a :class:`Renderer` for many frames)."""
    return Renderer(view, seed=seed).render(scene, random.Random(seed))


# ---------------------------------------------------------------------------------------------
# A spin, as a function of time
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpinPlan:
    """One spin's choreography; :meth:`scene` gives the picture at time ``t`` (seconds from its start).

    Before ``launch_s`` the balls rest in ``before`` (or are out of sight); at ``launch_s`` they
    are fired into the track (``launch_gap_s`` apart, rising for ``rise_s``), run
    ``revolutions[i]`` turns round it against the rotor while slowing down over ``track_s``,
    fall for ``drop_s`` and come to rest in ``pockets[i]``. Two balls may share a pocket (one
    in front of the other). Each ball's path is planned backwards from where its pocket will be
    when it lands, so two balls launched together keep the angle between their pockets all
    round the track (two balls bound for one pocket run together, as they would). A camera
    following a ball counts ``floor(revolutions)`` turns (give n + 0.5 for n: the last half
    turn is the margin for its first and last frames).
    """

    pockets: tuple[str, ...]
    revolutions: tuple[float, ...] = (8.5,)
    before: tuple[str, ...] = ()
    rotor_rpm: float = 15.0
    rotor_start_deg: float = 0.0
    rotor_clockwise: bool = True
    launch_s: float = 1.0
    launch_gap_s: float = 0.0
    track_s: float = 6.0
    drop_s: float = 1.5
    end_speed_dps: float = 150.0  # the ball's speed (degrees/s) when it leaves the track
    rise_s: float = 0.1  # from the pocket up into the track

    def __post_init__(self) -> None:
        if not 1 <= len(self.pockets) <= 2:
            raise ValueError("a spin has one or two balls")
        if len(self.revolutions) < len(self.pockets):
            object.__setattr__(self, "revolutions", tuple(self.revolutions) * len(self.pockets))

    @property
    def duration(self) -> float:
        return (
            self.launch_s
            + (len(self.pockets) - 1) * self.launch_gap_s
            + self.rise_s
            + self.track_s
            + self.drop_s
        )

    def rotor(self, t: float) -> float:
        sign = 1.0 if self.rotor_clockwise else -1.0
        return (self.rotor_start_deg + sign * self.rotor_rpm * 6.0 * t) % 360.0

    def scene(self, t: float, view: View, exposure_s: float = 0.001) -> Scene:
        rotor = self.rotor(t)
        balls: list[BallPose] = []
        for i, pocket in enumerate(self.pockets):
            balls += self._ball(i, pocket, t, rotor, view, exposure_s)
        return Scene(rotor_deg=rotor, balls=tuple(balls))

    def _ball(
        self, i: int, pocket: str, t: float, rotor: float, view: View, exposure_s: float
    ) -> list[BallPose]:
        depth = (0.22, 0.78)[i] if self.pockets.count(pocket) == 2 else 0.5
        launch = self.launch_s + i * self.launch_gap_s
        if t < launch:
            if i < len(self.before):
                before_depth = (0.22, 0.78)[i] if self.before.count(self.before[i]) == 2 else 0.5
                return [BallPose(pocket=self.before[i], depth=before_depth)]
            return []
        d = 1.0 if view.clockwise else -1.0
        w_rot = (
            d * (1.0 if self.rotor_clockwise else -1.0) * self.rotor_rpm * 6.0
        )  # the rotor, in the picture
        ball_dir = -1.0 if w_rot > 0 else 1.0  # a thrown ball runs against the rotor
        revs = self.revolutions[i]
        T, w_end, rise, drop = self.track_s, self.end_speed_dps, self.rise_s, self.drop_s
        w0 = 2 * 360.0 * revs / T - w_end
        alpha = (w0 - w_end) / T
        # planned backwards from where the pocket will be when the ball lands in it: during the
        # fall the ball's speed blends from its own to the rotor's
        landing = launch + rise + T + drop
        target = pocket_angle(view, self.rotor(landing), pocket, 0.5)
        exit_angle = target - drop * (ball_dir * w_end + w_rot) / 2
        start = exit_angle - ball_dir * 360.0 * revs
        tt = t - launch
        if tt < rise:  # fired out of the pocket up into the track
            f = tt / rise
            return [
                BallPose(
                    angle_deg=start - ball_dir * w0 * (rise - tt),
                    radius_frac=POCKETS[1] + (TRACK_LANE - POCKETS[1]) * f,
                    blur_deg=ball_dir * w0 * exposure_s,
                )
            ]
        tt -= rise
        if tt < T:  # round the track, slowing down: `revs` turns from here
            travelled = w0 * tt - 0.5 * alpha * tt * tt
            speed = w0 - alpha * tt
            return [
                BallPose(
                    angle_deg=start + ball_dir * travelled,
                    radius_frac=TRACK_LANE,
                    blur_deg=ball_dir * speed * exposure_s,
                )
            ]
        td = tt - T
        if td < drop:  # down over the apron onto the rotor, a bounce, into the pocket
            f = td / drop
            angle = exit_angle + drop * (ball_dir * w_end * (f - f * f / 2) + w_rot * f * f / 2)
            rb = BALL_DIAMETER / 2
            pocket_rf = POCKETS[0] + rb + 0.004 + (POCKETS[1] - POCKETS[0] - 2 * rb - 0.008) * depth
            rf = (
                TRACK_LANE
                + (pocket_rf - TRACK_LANE) * min(1.0, 1.6 * f)
                + 0.05 * math.sin(math.pi * f) * (f > 0.6)
            )
            return [BallPose(angle_deg=angle, radius_frac=rf)]
        return [BallPose(pocket=pocket, depth=depth)]


# ---------------------------------------------------------------------------------------------
# Real time
# ---------------------------------------------------------------------------------------------


class RouletteCameraSimulator(FollowsWheel):
    """Plays spins in real time and serves the frames on a local TCP port (one or more clients).

    ``speed`` compresses each spin's choreography (not the frame rate). With a table
    (``table_event``) every round that opens gets a spin ``launch_after_s`` later; without
    one, :meth:`spin` starts one at once. The pockets of the next spins can be set with
    :meth:`force_next` (else they are drawn with the seeded generator).
    """

    def __init__(
        self,
        *,
        speed: float = 1.0,
        seed: int | None = None,
        width: int = 1280,
        height: int = 720,
        fps: float = 30.0,
        jpeg_quality: int | None = None,
        wheel: str = "european",
        clockwise: bool = True,
        balls: int = 1,
        revolutions: float = 8.5,
        rotor_rpm: float = 15.0,
        launch_after_s: float = 7.0,
        track_s: float = 6.0,
        drop_s: float = 1.5,
        launch_gap_s: float = 0.0,
        follow_table: bool = True,
        noise: float = 4.0,
        light: float = 0.25,
        exposure_s: float = 0.001,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        if speed <= 0 or fps <= 0:
            raise ValueError("speed and fps must be positive")
        if balls not in (1, 2):
            raise ValueError("balls is 1 or 2")
        self.speed = float(speed)
        self.fps = float(fps)
        self.jpeg_quality = jpeg_quality
        self.view = View(
            width=width, height=height, wheel=wheel, clockwise=clockwise, noise=noise, light=light
        )
        self.balls = balls
        self.revolutions = float(revolutions)
        self.rotor_rpm = float(rotor_rpm)
        self.launch_after_s = float(launch_after_s)
        self.track_s, self.drop_s, self.launch_gap_s = float(track_s), float(drop_s), float(launch_gap_s)
        self.follow_table = follow_table
        self.exposure_s = float(
            exposure_s
        )  # a roulette camera's short shutter (a ball blurs 1 degree at most)
        self._rng = random.Random(seed)
        self._renderer = Renderer(self.view, seed=seed)
        self._lock = threading.RLock()
        self._forced: deque[tuple[tuple[str, ...], str | None, float | None]] = deque()
        self._wheel: ForcesNumber | None = None
        order = self.view.order
        self._rest: tuple[str, ...] = tuple(self._rng.choice(order) for _ in range(balls))
        self._plan: SpinPlan | None = None
        self._plan_t0 = 0.0  # sim time the plan started
        self._rotor_t0 = 0.0
        self._rotor_deg0 = self._rng.uniform(0, 360)
        self._t0 = time.monotonic()
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind((host, port))
        self._server.listen(4)
        self._server.settimeout(0.2)
        self.host, self.port = self._server.getsockname()[:2]
        self._clients: list[socket.socket] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.frames_sent = 0
        self.last_truth: dict[str, Any] = {}
        self.spins: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"tcp://{self.host}:{self.port}"

    def calibration(self) -> dict[str, Any]:
        return self.view.calibration()

    # -- control ----------------------------------------------------------------------------

    def link_wheel(self, wheel: ForcesNumber) -> None:
        """Tell this wheel simulator the first ball's pocket of every spin (simulators.abilities)."""
        self._wheel = wheel

    def force_next(
        self, pockets: Sequence[str], *, wheel_number: str | None = None, revolutions: float | None = None
    ) -> None:
        """The next spin's pockets (one per ball); ``wheel_number``: what the linked wheel is told instead
        of the first ball's pocket (a disagreement); ``revolutions``: a short spin, say."""
        pockets = tuple(str(p) for p in pockets)
        if len(pockets) != self.balls or any(p not in self.view.order for p in pockets):
            raise ValueError(f"give {self.balls} pocket(s) of the {self.view.wheel} wheel")
        with self._lock:
            self._forced.append((pockets, wheel_number, revolutions))

    def spin(self, delay_s: float = 0.0) -> SpinPlan:
        """Start a spin ``delay_s`` (real seconds) from now."""
        with self._lock:
            if self._forced:
                pockets, wheel_number, revs = self._forced.popleft()
            else:
                pockets = tuple(self._rng.choice(self.view.order) for _ in range(self.balls))
                wheel_number, revs = None, None
            now = self._sim_time()
            rotor_now = self._rotor_at(now)
            revs = self.revolutions if revs is None else float(revs)
            plan = SpinPlan(
                pockets=pockets,
                revolutions=(revs, revs),
                before=self._rest,
                rotor_rpm=self.rotor_rpm,
                rotor_start_deg=rotor_now,
                launch_s=delay_s * self.speed,
                launch_gap_s=self.launch_gap_s,
                track_s=self.track_s,
                drop_s=self.drop_s,
            )
            self._plan, self._plan_t0 = plan, now
            self._rest = pockets
            self.spins.append({"pockets": list(pockets), "revolutions": revs, "wheel_number": wheel_number})
            wheel = self._wheel
        if wheel is not None:
            wheel.force_next_number(wheel_number if wheel_number is not None else pockets[0])
        return plan

    def table_event(self, what: str, data: dict[str, Any]) -> None:
        """Follow the table (called on its event loop: never blocks): a round opened -> a spin."""
        if self.follow_table and what == "round" and data.get("transition") == "open_round":
            self.spin(delay_s=self.launch_after_s / self.speed)

    # -- life cycle ---------------------------------------------------------------------------

    def start(self) -> None:
        if self._threads:
            return
        self._stop.clear()
        for target, name in (
            (self._accept, "roulette-camera-sim-accept"),
            (self._stream, "roulette-camera-sim"),
        ):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            if t is not threading.current_thread():
                t.join(timeout=5)
        self._threads = []
        with self._lock:
            clients, self._clients = self._clients, []
        for c in clients:
            try:
                c.close()
            except OSError:
                pass
        try:
            self._server.close()
        except OSError:
            pass

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- frames -----------------------------------------------------------------------------

    def _sim_time(self) -> float:
        return (time.monotonic() - self._t0) * self.speed

    def _rotor_at(self, t: float) -> float:
        return (self._rotor_deg0 + self.rotor_rpm * 6.0 * t) % 360.0

    def scene_now(self) -> tuple[Scene, float]:
        t = self._sim_time()
        with self._lock:
            plan, t0 = self._plan, self._plan_t0
            rest = self._rest
        if plan is not None and t - t0 < plan.duration + 1.0:
            return plan.scene(t - t0, self.view, exposure_s=self.speed * self.exposure_s), t
        rotor = self._rotor_at(t)
        balls = tuple(
            BallPose(pocket=p, depth=((0.22, 0.78)[i] if rest.count(p) == 2 else 0.5))
            for i, p in enumerate(rest)
        )
        return Scene(rotor_deg=rotor, balls=balls), t

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn.settimeout(2.0)
            with self._lock:
                self._clients.append(conn)

    def _stream(self) -> None:
        interval = 1.0 / self.fps
        next_at = time.monotonic()
        seq = 0
        rng = random.Random(self._rng.random())
        while not self._stop.is_set():
            now = time.monotonic()
            if now < next_at:
                self._stop.wait(next_at - now)
                continue
            next_at = max(next_at + interval, now)
            with self._lock:
                clients = list(self._clients)
            if not clients:
                continue
            exposed = time.monotonic()  # the frame's time is when its scene was taken, as a camera stamps it
            scene, t = self.scene_now()
            frame, truth = self._renderer.render(scene, rng)
            truth["t"] = t
            self.last_truth = truth
            data = _wire_frame(frame, seq, int(exposed * 1e6), self.jpeg_quality)
            seq += 1
            for c in clients:
                try:
                    c.sendall(data)
                    self.frames_sent += 1
                except OSError:
                    with self._lock:
                        if c in self._clients:
                            self._clients.remove(c)
                    try:
                        c.close()
                    except OSError:
                        pass

    def drop_clients(self) -> None:
        """Cut every client's connection (a camera cable pulled; the driver reconnects)."""
        with self._lock:
            clients, self._clients = self._clients, []
        for c in clients:
            try:
                c.shutdown(socket.SHUT_RDWR)
                c.close()
            except OSError:
                pass


def _factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[RouletteCameraSimulator, str]:
    sim = RouletteCameraSimulator(speed=speed, seed=seed, **options)
    return sim, sim.url


#: device kind -> factory, found by studio.simulated for devices whose URL is "simulator"
SIMULATORS: dict[str, Callable[..., tuple[Any, str]]] = {"roulette-camera": _factory}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Overhead roulette camera simulator")
    parser.add_argument("--frame", help="write one frame to this file and exit")
    parser.add_argument("--pockets", default="17", help="resting balls' pockets, comma-separated")
    parser.add_argument("--rotor", type=float, default=0.0, help="rotor angle, degrees")
    parser.add_argument("--wheel", default="european", choices=sorted(ORDERS))
    parser.add_argument("--serve", action="store_true", help="serve a spin every few seconds")
    parser.add_argument("--fps", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    if args.frame:
        view = View(wheel=args.wheel)
        pockets = [p for p in args.pockets.split(",") if p]
        balls = tuple(
            BallPose(pocket=p, depth=((0.22, 0.78)[i] if pockets.count(p) == 2 else 0.5))
            for i, p in enumerate(pockets)
        )
        frame, truth = render(Scene(args.rotor, balls), view, seed=args.seed)
        cv2.imwrite(args.frame, frame)
        print({"calibration": view.calibration(), "truth": truth})
        return
    sim = RouletteCameraSimulator(seed=args.seed, fps=args.fps, wheel=args.wheel, follow_table=False)
    with sim:
        print(sim.url, sim.calibration(), flush=True)
        try:
            while True:
                sim.spin(delay_s=1.0)
                time.sleep(sim.track_s + sim.drop_s + 4.0)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
