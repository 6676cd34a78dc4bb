"""The stage of :mod:`simulators.dice_alt`: a pinhole camera over a table, the table's surface (cloth, wood,
leather, felt, card, with a rim around the tray), and what the camera does to the picture (light fall-off,
vignetting, glare, blur, sensor noise, JPEG).

Lengths on the table are in die sides (a die is 1 x 1 x 1); the table is the plane z = 0, z up. Everything
here is pure: randomness comes from the generators passed in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: surface kinds and the colours (BGR) each may take
SURFACE_COLOURS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "cloth": ((150, 70, 25), (45, 35, 150), (55, 115, 40), (40, 38, 36), (115, 45, 85), (150, 175, 195)),
    "wood": ((95, 150, 195), (60, 105, 150), (45, 75, 115), (120, 175, 215)),
    "leather": ((40, 70, 110), (30, 30, 34), (80, 130, 180), (35, 45, 90)),
    "felt": ((110, 80, 30), (60, 40, 120), (40, 90, 70), (90, 90, 90), (70, 30, 60)),
    "card": ((205, 208, 210), (175, 180, 182), (225, 228, 230)),
}


@dataclass(frozen=True)
class Camera:
    """A pinhole camera looking at the table's origin from `distance` (die sides), its view tipped `pitch`
    degrees from straight down and turned `roll` degrees about its axis; `focal` in pixels."""

    width: int
    height: int
    focal: float
    distance: float
    pitch: float = 0.0
    roll: float = 0.0

    @property
    def position(self) -> np.ndarray:
        p = math.radians(self.pitch)
        return np.array([0.0, -self.distance * math.sin(p), self.distance * math.cos(p)])

    def rotation(self) -> np.ndarray:
        """World -> camera rotation (camera x right, y down, z forward)."""
        forward = -self.position / np.linalg.norm(self.position)
        right0 = np.array([1.0, 0.0, 0.0])
        down0 = np.cross(forward, right0)
        r = math.radians(self.roll)
        right = math.cos(r) * right0 + math.sin(r) * down0
        down = np.cross(forward, right)
        return np.stack([right, down, forward])

    def project(self, pts: np.ndarray) -> np.ndarray:
        """(N, 3) world points -> (N, 2) image points."""
        cam = (np.asarray(pts, np.float64) - self.position) @ self.rotation().T
        z = np.maximum(cam[:, 2:3], 1e-6)
        return cam[:, :2] / z * self.focal + (self.width / 2, self.height / 2)

    def table_homography(self) -> np.ndarray:
        """3x3 table plane (x, y, 1) -> image pixels."""
        k = np.array([[self.focal, 0, self.width / 2], [0, self.focal, self.height / 2], [0, 0, 1]])
        rot = self.rotation()
        t = -rot @ self.position
        return k @ np.column_stack([rot[:, 0], rot[:, 1], t])

    def to_table(self, image_pts: np.ndarray) -> np.ndarray:
        """Image points -> the table points they see."""
        pts = np.asarray(image_pts, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.table_homography())).reshape(-1, 2)

    def visible(self, inset: float = 0.0) -> np.ndarray:
        """The table quadrilateral the frame shows, its edges `inset` (fraction of the frame) inside."""
        w, h = self.width, self.height
        dx, dy = w * inset, h * inset
        return self.to_table(np.array([(dx, dy), (w - dx, dy), (w - dx, h - dy), (dx, h - dy)]))


def noise(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Smooth noise in [-1, 1] of about `cell` pixels' grain."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    small = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _pattern(kind: str, rng: np.random.Generator, h: int, w: int, unit: float) -> np.ndarray:
    """A brightness pattern (1 = the colour as given) of a surface kind; `unit` is a die side in pixels."""
    ys, xs = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    fine = noise(rng, h, w, max(1.5, unit * 0.04))
    if kind == "cloth":
        weave = np.sin(xs * (2 * math.pi / max(2.0, unit * 0.08))) * np.sin(
            ys * (2 * math.pi / max(2.0, unit * 0.08))
        )
        return 1 + 0.06 * noise(rng, h, w, unit * 2) + 0.05 * fine + 0.04 * weave
    if kind == "wood":
        along = ys if rng.random() < 0.5 else xs
        warp = 2.5 * noise(rng, h, w, unit * 3) + 0.6 * noise(rng, h, w, unit * 0.5)
        grain = (np.sin(along * (2 * math.pi / (unit * rng.uniform(0.25, 0.6))) + warp) * 0.5 + 0.5) ** 3
        return 1.08 - 0.3 * grain + 0.04 * fine
    if kind == "leather":
        creases = (np.abs(noise(rng, h, w, max(2.0, unit * 0.12))) < 0.08).astype(np.float32)
        return (
            1
            + 0.1 * noise(rng, h, w, unit * 1.5)
            + 0.04 * fine
            - 0.12 * cv2.GaussianBlur(creases, (0, 0), 0.8)
        )
    if kind == "felt":
        return 1 + 0.03 * noise(rng, h, w, unit * 3) + 0.035 * fine
    return 1 + 0.015 * noise(rng, h, w, unit * 4) + 0.01 * fine  # card


def surface_image(
    camera: Camera,
    rng: np.random.Generator,
    *,
    felt: tuple[str, tuple[int, int, int]],
    rim: tuple[str, tuple[int, int, int]],
    tray: tuple[float, float] | None,
    rim_width: float,
) -> np.ndarray:
    """The table as the camera sees it (float32 BGR): the felt inside the tray (half sizes `tray`, None: it
    fills the view), the rim `rim_width` wide around it, a dark table beyond."""
    quad = camera.visible()
    x0, y0 = quad.min(axis=0) - 0.5
    x1, y1 = quad.max(axis=0) + 0.5
    ppu = camera.focal / camera.distance  # pixels per die side near the middle
    ppu = min(ppu, 1800 / max(x1 - x0, y1 - y0))  # a steep camera sees far: keep the canvas bounded
    cw, ch = int((x1 - x0) * ppu) + 1, int((y1 - y0) * ppu) + 1
    canvas = np.empty((ch, cw, 3), np.float32)
    felt_kind, felt_colour = felt
    canvas[:] = np.array(felt_colour, np.float32)
    canvas *= _pattern(felt_kind, rng, ch, cw, ppu)[..., None]
    if tray is not None:
        rim_kind, rim_colour = rim
        tx, ty = tray
        signs = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], np.float64)

        def outside_of(half: np.ndarray) -> np.ndarray:
            mask = np.full((ch, cw), 255, np.uint8)
            corners = np.round((signs * half - (x0, y0)) * ppu * 8).astype(np.int32)
            cv2.fillConvexPoly(mask, corners, 0, cv2.LINE_AA, shift=3)
            return mask

        outside = outside_of(np.array([tx, ty]))
        beyond = outside_of(np.array([tx + rim_width, ty + rim_width]))
        rimmed = np.array(rim_colour, np.float32) * _pattern(rim_kind, rng, ch, cw, ppu)[..., None]
        rimmed[beyond > 0] *= 0.3
        a = outside.astype(np.float32)[..., None] / 255
        # the rim stands a little over the felt: a soft dark line along its foot
        foot = cv2.GaussianBlur(outside.astype(np.float32) / 255, (0, 0), max(1.0, ppu * 0.08))
        canvas *= (1 - 0.35 * np.clip(foot - a[..., 0], 0, 1) * 2)[..., None]
        canvas = canvas * (1 - a) + rimmed * a
    place = np.array([[1 / ppu, 0, x0], [0, 1 / ppu, y0], [0, 0, 1]])
    m = camera.table_homography() @ place
    return cv2.warpPerspective(
        canvas, m, (camera.width, camera.height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def tray_outline(camera: Camera, tray: tuple[float, float] | None) -> list[tuple[float, float]] | None:
    """The tray's corners in image pixels, or None when the felt fills the view."""
    if tray is None:
        return None
    tx, ty = tray
    pts = camera.project(np.array([(-tx, -ty, 0), (tx, -ty, 0), (tx, ty, 0), (-tx, ty, 0)], np.float64))
    return [(round(float(x), 1), round(float(y), 1)) for x, y in pts]


@dataclass(frozen=True)
class Optics:
    """What the light and the camera do to the whole picture."""

    falloff: tuple[float, float] = (0.0, 0.0)  # relative brightness change across the frame, x and y
    vignette: float = 0.0
    glare: tuple[float, float, float, float] = (0.5, 0.5, 0.0, 0.2)  # x, y (relative), strength, radius
    blur: float = 0.0  # Gaussian sigma, pixels
    motion: float = 0.0  # length of a straight motion smear, pixels
    motion_angle: float = 0.0
    noise: float = 0.0  # sensor noise sigma, grey levels
    jpeg: int | None = None  # JPEG quality the picture went through


def finish(img: np.ndarray, optics: Optics, rng: np.random.Generator) -> np.ndarray:
    """Light fall-off, vignette, glare, blur, noise and JPEG over a float BGR picture -> uint8 BGR."""
    h, w = img.shape[:2]
    u = np.arange(w, dtype=np.float32)[None, :] / w - 0.5
    v = np.arange(h, dtype=np.float32)[:, None] / h - 0.5
    gain = 1 + optics.falloff[0] * u + optics.falloff[1] * v
    gain *= 1 - optics.vignette * (u * u + v * v) * 2
    gx, gy, strength, radius = optics.glare
    if strength > 0:
        d2 = ((u + 0.5 - gx) * w / h) ** 2 + (v + 0.5 - gy) ** 2
        img = img + 255 * strength * np.exp(-d2 / (2 * radius * radius))[..., None]
    img = img * gain[..., None]
    if optics.motion >= 1.5:
        n = round(optics.motion) | 1
        kernel = np.zeros((n, n), np.float32)
        c = n // 2
        dx, dy = math.cos(optics.motion_angle) * c, math.sin(optics.motion_angle) * c
        cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0)
        img = cv2.filter2D(img, -1, kernel / kernel.sum())
    if optics.blur > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), optics.blur)
    if optics.noise > 0:
        img = img + rng.normal(0, optics.noise, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if optics.jpeg:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(optics.jpeg)])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
