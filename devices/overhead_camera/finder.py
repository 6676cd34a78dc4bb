"""Find the rotor's angle and the balls in one overhead frame of a roulette wheel. Pure.

:meth:`BallFinder.read` takes a BGR frame and returns a :class:`Reading`; nothing here
does I/O or keeps time. Each step prefers "I cannot tell" to a guess:

1. **Rotor angle.** The rotor's number ring is sampled on two circles just inside its
   edges (the white numerals sit in the middle), 1440 samples each; every sample is
   classified red, black, green or unknown. The calibrated colour sequence is slid round
   the ring by circular cross-correlation (an FFT, so every offset at once); the best
   offset is the rotor's angle. It is trusted only when most samples agree (``min_quality``)
   and no other offset comes close (``min_margin``, in pockets' worth of samples): on a
   single-zero wheel red and black alternate, so only the green zero pins the angle; on a
   double-zero wheel the two greens are told apart because their neighbours' colours differ.
2. **Balls.** Inside the calibrated circle, only where a ball can be (the pockets and the
   ball track with the apron between it and the rotor; not the numerals nor the turret),
   pixels brighter than ``white_threshold`` in every channel form blobs. A round blob (or
   one drawn out a little by motion blur) of about a ball's area is a ball; a blob about
   twice as long as wide and of about two balls' area is two touching balls (two balls in
   one pocket lie one behind the other), split across its long axis; anything else is
   reported as a blob the finder cannot count, never guessed.
3. **Pocket.** A ball in the pocket ring lies in the pocket whose sector (from the rotor's
   angle and the calibrated order) holds its centre; a centre within ``fret_margin`` of a
   sector's edge is on a fret and gets no pocket.

Angles are degrees in the picture, measured from the +x axis towards +y (clockwise on the
screen). The cost is a few milliseconds for a 1280x720 frame (bench/roulette_camera.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .calibration import WheelCalibration

__all__ = ["Ball", "BallFinder", "Reading", "classify_colors", "find_wheel"]

_COLOR_INDEX = {"red": 0, "black": 1, "green": 2}


@dataclass(frozen=True)
class Ball:
    x: float
    y: float
    radius_frac: float  # distance from the centre / the calibrated radius
    angle_deg: float  # picture angle of the centre
    zone: str  # "pockets", "track" or "between" (apron, number ring edge, turret edge)
    pocket: str | None  # in the pockets and not on a fret
    on_fret: bool = False
    merged: int = 1  # balls in the blob this one was split from


@dataclass(frozen=True)
class Reading:
    rotor_deg: float | None  # where segment 0 of the number ring begins (rotor direction); None: not found
    quality: int  # percent of classified ring samples that agree with the calibrated colours
    margin: float  # how far (pockets' worth of samples) the best offset beats any other
    balls: tuple[Ball, ...]
    blob_problem: str | None = None  # a blob that is not a whole number of balls

    @property
    def pockets(self) -> list[str | None]:
        return [b.pocket for b in self.balls if b.zone == "pockets"]


def classify_colors(pixels: np.ndarray) -> np.ndarray:
    """BGR pixels (..., 3) -> 0 red, 1 black, 2 green, -1 unknown (white numerals, gold, glare)."""
    p = pixels.astype(np.int16)
    b, g, r = p[..., 0], p[..., 1], p[..., 2]
    hi = np.maximum(np.maximum(b, g), r)
    lo = np.minimum(np.minimum(b, g), r)
    out = np.full(b.shape, -1, dtype=np.int8)
    out[(hi < 85) & (hi - lo < 45)] = 1
    # by ratios, which an uneven light keeps: a wheel's red and green are saturated, its wood is not
    out[(r > 70) & (r >= 2 * g) & (r * 10 >= 18 * b)] = 0
    out[(g > 55) & (g * 10 >= 16 * r) & (g * 10 >= 11 * b)] = 2
    return out


class BallFinder:
    """One calibrated camera's frame reader (the precomputed masks follow the frame size)."""

    def __init__(
        self,
        calibration: WheelCalibration,
        *,
        white_threshold: int = 185,
        samples: int = 1440,
        min_quality: float = 0.75,
        min_margin: float = 1.0,
        fret_margin: float = 0.12,
    ) -> None:
        if not 50 <= white_threshold <= 254:
            raise ValueError("white_threshold is 50-254")
        if samples < 8 * calibration.pockets:
            raise ValueError("need at least 8 ring samples per pocket")
        if not 0 <= fret_margin < 0.5:
            raise ValueError("fret_margin is a fraction of a pocket, 0-0.5")
        self.calib = calibration
        self.white_threshold = int(white_threshold)
        self.samples = int(samples)
        self.min_quality = float(min_quality)
        self.min_margin = float(min_margin)
        self.fret_margin = float(fret_margin)
        self._dir = 1.0 if calibration.clockwise else -1.0
        self._shape: tuple[int, int] | None = None
        z = calibration.zones
        #: a lit ball's blob: its disc less the shaded rim, as rendered and as seen on real wheels
        self.ball_area = math.pi * (0.5 * z.ball_diameter * calibration.radius) ** 2 * 0.8
        n, m = calibration.pockets, self.samples
        segment = (np.arange(m) * n) // m
        colors = np.array([_COLOR_INDEX[c] for c in calibration.colors])[segment]
        self._template = [np.conj(np.fft.rfft((colors == c).astype(np.float32))) for c in range(3)]

    # -- geometry, once per frame size ------------------------------------------------------

    def _prepare(self, shape: tuple[int, int]) -> None:
        h, w = shape
        c = self.calib
        cx, cy = c.center
        R, z = c.radius, c.zones
        reach = R * max(1.02, z.track[1] + 0.02)
        self._x0, self._y0 = max(0, int(cx - reach)), max(0, int(cy - reach))
        self._x1, self._y1 = min(w, int(cx + reach) + 1), min(h, int(cy + reach) + 1)
        if self._x1 - self._x0 < 8 or self._y1 - self._y0 < 8:
            raise ValueError(
                f"the calibrated wheel (centre {c.center}, radius {R}) is not inside a {w}x{h} frame"
            )
        yy, xx = np.mgrid[self._y0 : self._y1, self._x0 : self._x1].astype(np.float32)
        rf = np.hypot(xx - cx, yy - cy) / R
        pockets = (rf >= z.pockets[0]) & (rf <= z.pockets[1] + 0.005)
        outside = (rf >= z.number_ring[1] + 0.005) & (rf <= z.track[1])
        self._mask = ((pockets | outside) * 255).astype(np.uint8)
        m = self.samples
        angles = self._dir * np.arange(m) * (2 * np.pi / m)
        lo, hi = z.number_ring
        width = hi - lo
        xs, ys = [], []
        for frac in (lo + 0.15 * width, hi - 0.15 * width):
            xs.append(np.clip(np.rint(cx + frac * R * np.cos(angles)), 0, w - 1).astype(np.intp))
            ys.append(np.clip(np.rint(cy + frac * R * np.sin(angles)), 0, h - 1).astype(np.intp))
        self._sx, self._sy = np.stack(xs), np.stack(ys)
        self._shape = shape

    # -- reading ------------------------------------------------------------------------------

    def read(self, image: np.ndarray) -> Reading:
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError("a frame is an HxWx3 uint8 BGR image (the number ring's colours are needed)")
        shape = image.shape[:2]
        if shape != self._shape:
            self._prepare(shape)
        rotor, quality, margin = self._rotor(image)
        balls, problem = self._balls(image, rotor)
        return Reading(
            rotor_deg=rotor, quality=quality, margin=margin, balls=tuple(balls), blob_problem=problem
        )

    def _rotor(self, image: np.ndarray) -> tuple[float | None, int, float]:
        m, n = self.samples, self.calib.pockets
        classes = classify_colors(image[self._sy, self._sx])  # (2, m)
        known = int((classes >= 0).sum())
        if known < 0.3 * classes.size:
            return None, 0, 0.0
        score = np.zeros(m, dtype=np.float64)
        for c in range(3):
            obs = (classes == c).sum(axis=0).astype(np.float32)
            score += np.fft.irfft(np.fft.rfft(obs) * self._template[c], n=m)
        best = int(np.argmax(score))
        top = float(score[best])
        guard = math.ceil(0.6 * m / n)
        idx = (np.arange(m) - best) % m
        others = score[(idx > guard) & (idx < m - guard)]
        second = float(others.max()) if others.size else 0.0
        quality = top / known
        margin = (top - second) / (classes.shape[0] * m / n)
        if quality < self.min_quality or margin < self.min_margin:
            return None, round(100 * quality), margin
        left, right = score[(best - 1) % m], score[(best + 1) % m]
        denom = left - 2 * top + right
        shift = 0.5 * (left - right) / denom if denom < 0 else 0.0
        return float(((best + shift) * 360.0 / m) % 360.0), round(100 * quality), float(margin)

    def _balls(self, image: np.ndarray, rotor: float | None) -> tuple[list[Ball], str | None]:
        roi = image[self._y0 : self._y1, self._x0 : self._x1]
        t = self.white_threshold
        white = cv2.inRange(roi, (t, t, t), (255, 255, 255))
        cv2.bitwise_and(white, self._mask, dst=white)
        # outlines, then each blob's own pixels (contours are ~40x faster than labelling the whole mask)
        contours, _ = cv2.findContours(white, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        balls: list[Ball] = []
        problem = None
        area1 = self.ball_area
        for contour in contours:
            x, y, w, h = cv2.boundingRect(contour)
            if w * h < 0.3 * area1:
                continue  # glare, a speck of noise
            blob = np.zeros((h, w), np.uint8)
            cv2.drawContours(blob, [contour], -1, 255, -1, offset=(-x, -y))
            cv2.bitwise_and(blob, white[y : y + h, x : x + w], dst=blob)
            iy, ix = np.nonzero(blob)
            ratio = ix.size / area1
            if ratio < 0.3:
                continue  # the sliver of a ball passing behind the mask's edge
            xs = ix.astype(np.float64) + x
            ys = iy.astype(np.float64) + y
            # one ball (round, or a little drawn out by motion blur) or two touching balls (twice as
            # long as wide): the blob's elongation decides, its area must agree
            elongation = _elongation(xs, ys)
            if elongation < 1.8 and ratio <= 2.2:
                centres = [(float(xs.mean()), float(ys.mean()))]
            elif 1.8 <= elongation <= 3.2 and 1.2 <= ratio <= 3.0:
                centres = _split_two(xs, ys)
            else:
                problem = (
                    f"a bright blob of {ratio:.1f} balls' area, {elongation:.1f} times as long as wide, "
                    f"at ({xs.mean() + self._x0:.0f}, {ys.mean() + self._y0:.0f})"
                )
                continue
            for bx, by in centres:
                balls.append(self._ball(bx + self._x0, by + self._y0, rotor, len(centres)))
        balls.sort(key=lambda b: (b.zone != "pockets", b.angle_deg))
        return balls, problem

    def _ball(self, x: float, y: float, rotor: float | None, merged: int) -> Ball:
        c = self.calib
        dx, dy = x - c.center[0], y - c.center[1]
        rf = math.hypot(dx, dy) / c.radius
        angle = math.degrees(math.atan2(dy, dx)) % 360.0
        z = c.zones
        if rf >= z.track[0] - 0.01:
            zone = "track"
        elif z.pockets[0] <= rf <= z.pockets[1]:
            zone = "pockets"
        else:
            zone = "between"
        pocket, on_fret = None, False
        if zone == "pockets" and rotor is not None:
            # the pockets begin pocket_offset_deg before the number segments, in the rotor's direction
            rel = (self._dir * angle - rotor + c.pocket_offset_deg) % 360.0
            k = rel / c.step_deg
            idx = int(k) % c.pockets
            frac = k - int(k)
            if frac < self.fret_margin or frac > 1 - self.fret_margin:
                on_fret = True
            else:
                pocket = c.order[idx]
        return Ball(
            x=x,
            y=y,
            radius_frac=rf,
            angle_deg=angle,
            zone=zone,
            pocket=pocket,
            on_fret=on_fret,
            merged=merged,
        )

    def pocket_center(
        self, rotor_deg: float, label: str, radius_frac: float | None = None
    ) -> tuple[float, float]:
        """Where the middle of a pocket is in the picture for a rotor angle (calibration checks, tests)."""
        c = self.calib
        k = c.order.index(label)
        rel = rotor_deg - c.pocket_offset_deg + (k + 0.5) * c.step_deg
        a = math.radians(self._dir * rel)
        rf = radius_frac if radius_frac is not None else sum(c.zones.pockets) / 2
        return c.center[0] + rf * c.radius * math.cos(a), c.center[1] + rf * c.radius * math.sin(a)


def _elongation(xs: np.ndarray, ys: np.ndarray) -> float:
    """Length over width of a blob (the square root of its covariance's eigenvalue ratio).

    A disc gives 1; a ball smeared over its own radius 1.15; two touching balls 2.24.
    """
    if xs.size < 3:
        return 1.0
    dx, dy = xs - xs.mean(), ys - ys.mean()
    a, b, c = float(np.mean(dx * dx)), float(np.mean(dx * dy)), float(np.mean(dy * dy))
    half_trace, det = (a + c) / 2, a * c - b * b
    root = math.sqrt(max(half_trace * half_trace - det, 0.0))
    big, small = half_trace + root, max(half_trace - root, 1e-9)
    return math.sqrt(big / small) if small > 1e-6 else 99.0


def _split_two(xs: np.ndarray, ys: np.ndarray) -> list[tuple[float, float]]:
    """Two touching balls: cut the blob across its long axis, one centre per half."""
    mx, my = xs.mean(), ys.mean()
    dx, dy = xs - mx, ys - my
    cov = np.array([[np.mean(dx * dx), np.mean(dx * dy)], [np.mean(dx * dy), np.mean(dy * dy)]])
    _, vecs = np.linalg.eigh(cov)
    axis = vecs[:, 1]
    side = dx * axis[0] + dy * axis[1] >= 0
    if side.all() or not side.any():
        return [(float(mx), float(my))]
    return [
        (float(xs[~side].mean()), float(ys[~side].mean())),
        (float(xs[side].mean()), float(ys[side].mean())),
    ]


def find_wheel(image: np.ndarray, *, ring_mid: float = 0.65) -> tuple[float, float, float]:
    """Suggest (centre x, centre y, radius) from the red segments of the number ring (calibration tool).

    A circle is fitted (least squares) to the red pixels, which lie on the ring whatever the
    rotor's angle; pixels far from the fitted ring (other red things) are dropped and the fit
    repeated. The ring's middle is ``ring_mid`` of the track's radius (0.65 on the default zones).
    Needs the wheel seen from above.
    """
    if image.ndim != 3:
        raise ValueError("a colour frame is needed")
    red = classify_colors(image) == 0
    ys, xs = np.nonzero(red)
    if xs.size < 200:
        raise ValueError("no number ring found (too few red pixels)")
    x, y = xs.astype(np.float64), ys.astype(np.float64)
    keep = np.ones(x.size, bool)
    cx = cy = r = 0.0
    for _ in range(4):
        xk, yk = x[keep], y[keep]
        if xk.size < 100:
            raise ValueError("no number ring found (the red pixels do not lie on a circle)")
        a = np.column_stack([xk, yk, np.ones_like(xk)])
        b = -(xk * xk + yk * yk)
        (d, e, f), *_ = np.linalg.lstsq(a, b, rcond=None)
        cx, cy = -d / 2, -e / 2
        r = math.sqrt(max(cx * cx + cy * cy - f, 1.0))
        keep = np.abs(np.hypot(x - cx, y - cy) - r) < 0.12 * r
    return float(cx), float(cy), float(r / ring_mid)
