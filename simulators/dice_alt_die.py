"""The dice of :mod:`simulators.dice_alt`: a die's look (body, pips, edges, translucency, marbling), its pose
on the table (flat or cocked on an edge), and how it is drawn through the camera: each visible face is
painted flat in its own square (body, pips, glare) and warped into the picture by the face's perspective
homography, shaded by the light; its shadow falls on the table first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .dice_alt_scene import Camera, noise

#: die colour name -> body BGR
BODY_COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (236, 238, 240),
    "ivory": (196, 222, 234),
    "black": (36, 34, 34),
    "red": (40, 40, 196),
    "blue": (190, 92, 32),
    "green": (70, 150, 40),
    "yellow": (40, 205, 235),
    "orange": (30, 125, 235),
    "purple": (140, 50, 110),
    "pink": (175, 130, 240),
    "teal": (150, 145, 30),
}
PIP_COLOURS: dict[str, tuple[int, int, int]] = {
    "black": (25, 25, 28),
    "white": (240, 240, 240),
    "gold": (40, 170, 215),
    "red": (35, 30, 185),
    "blue": (170, 70, 20),
}

#: pip centres in face units ([0, 1]^2), per face
_A, _B = 0.27, 0.73
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((_A, _A), (_B, _B)),
    3: ((_A, _A), (0.5, 0.5), (_B, _B)),
    4: ((_A, _A), (_B, _A), (_A, _B), (_B, _B)),
    5: ((_A, _A), (_B, _A), (0.5, 0.5), (_A, _B), (_B, _B)),
    6: ((_A, _A), (_A, 0.5), (_A, _B), (_B, _A), (_B, 0.5), (_B, _B)),
}

#: cube faces in die coordinates: outward normal, and the face's u and v directions
_FACES = (
    ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
    ((0, 0, -1), (1, 0, 0), (0, -1, 0)),
    ((1, 0, 0), (0, 1, 0), (0, 0, -1)),
    ((-1, 0, 0), (0, -1, 0), (0, 0, -1)),
    ((0, 1, 0), (-1, 0, 0), (0, 0, -1)),
    ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
)
TEXTURE = 128


@dataclass(frozen=True)
class DieLook:
    name: str = "white"
    body: tuple[int, int, int] = BODY_COLOURS["white"]
    pip: tuple[int, int, int] = PIP_COLOURS["black"]
    pip_shape: str = "round"  # "round" | "square"
    pip_style: str = "flat"  # "flat" | "engraved" (a shaded hollow)
    pip_radius: float = 0.09  # of a side
    rounding: float = 0.12  # corner radius of a face, of a side (0: sharp edges)
    alpha: float = 1.0  # < 1: translucent body
    marble: tuple[int, int, int] | None = None  # the second colour of a marbled body
    glare: float = 0.0  # strength of a specular highlight on the upper face


@dataclass(frozen=True)
class Pose:
    face: int  # the face up (for a cocked die, the face most up)
    x: float
    y: float
    yaw: float
    tilt: float = 0.0  # radians about the die's own x axis; > 0 for a cocked die
    values: tuple[int, ...] = field(default=(1, 6, 2, 5, 3, 4))  # value of each of _FACES
    turns: tuple[int, ...] = (0, 0, 0, 0, 0, 0)  # quarter turns of each face's pips

    @property
    def cocked(self) -> bool:
        return self.tilt > 1e-6

    def rotation(self) -> np.ndarray:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
        ct, st = math.cos(self.tilt), math.sin(self.tilt)
        rx = np.array([[1, 0, 0], [0, ct, -st], [0, st, ct]])
        return rz @ rx

    def centre(self) -> np.ndarray:
        """The die's centre: its lowest corner or edge on the table."""
        rot = self.rotation()
        corners = np.array([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
        return np.array([self.x, self.y, -float((corners @ rot.T)[:, 2].min())])

    def corners(self) -> np.ndarray:
        rot = self.rotation()
        corners = np.array([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
        return corners @ rot.T + self.centre()

    def face_quad(self, index: int) -> np.ndarray:
        """The corners of face `index` of _FACES in world coordinates, in texture order."""
        n, u, v = (np.array(a, np.float64) for a in _FACES[index])
        local = [0.5 * n + (a - 0.5) * u + (b - 0.5) * v for a, b in ((0, 0), (1, 0), (1, 1), (0, 1))]
        return np.array(local) @ self.rotation().T + self.centre()

    def normal(self, index: int) -> np.ndarray:
        return self.rotation() @ np.array(_FACES[index][0], np.float64)


def die_values(rng: np.random.Generator, top: int) -> tuple[int, ...]:
    """The values of the six faces of _FACES for a die showing `top`: opposite faces add up to 7, and 1, 2, 3
    go anticlockwise round their corner as on a Western die."""
    sides = [v for v in (1, 2, 3, 4, 5, 6) if v not in (top, 7 - top)]
    a = int(rng.choice(sides))
    b = next(v for v in sides if v not in (a, 7 - a))
    values = [top, 7 - top, a, 7 - a, b, 7 - b]
    normals = {values[i]: np.array(_FACES[i][0], np.float64) for i in range(6)}
    if float(np.dot(np.cross(normals[1], normals[2]), normals[3])) < 0:
        values[4], values[5] = values[5], values[4]
    return tuple(values)


def _rounded_mask(radius: float, inset: float) -> np.ndarray:
    """A face's silhouette in its texture: a square `inset` (of a side) in from the edges, corners rounded."""
    t = TEXTURE
    big = np.zeros((t * 4, t * 4), np.uint8)
    lo, hi = inset * t * 4, (1 - inset) * t * 4 - 1
    r = max(0.0, radius * t * 4)
    if r < 1:
        cv2.rectangle(big, (int(lo), int(lo)), (int(hi), int(hi)), 255, -1)
    else:
        cv2.rectangle(big, (int(lo + r), int(lo)), (int(hi - r), int(hi)), 255, -1)
        cv2.rectangle(big, (int(lo), int(lo + r)), (int(hi), int(hi - r)), 255, -1)
        for cx, cy in ((lo + r, lo + r), (hi - r, lo + r), (lo + r, hi - r), (hi - r, hi - r)):
            cv2.circle(big, (int(cx), int(cy)), int(r), 255, -1, cv2.LINE_AA)
    return cv2.resize(big, (t, t), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


def face_texture(
    look: DieLook, value: int, turns: int, rng: np.random.Generator, glare: bool
) -> tuple[np.ndarray, np.ndarray]:
    """One face painted flat: (TEXTURE, TEXTURE, 3) float BGR, and where its pips are (0-1)."""
    t = TEXTURE
    tex: np.ndarray = np.empty((t, t, 3), np.float32)
    tex[:] = np.array(look.body, np.float32)
    if look.marble is not None:
        swirl = np.sin(6 * noise(rng, t, t, t / 3) + 3 * noise(rng, t, t, t / 8))
        mix = np.clip(swirl * 1.5, 0, 1)[..., None]
        tex = tex * (1 - mix) + np.array(look.marble, np.float32) * mix
    s = 4  # draw the pips 4x larger, then shrink: smooth edges
    pips = np.zeros((t * s, t * s), np.uint8)
    r = look.pip_radius * t * s
    for px, py in PIPS[value]:
        for _ in range(turns % 4):
            px, py = 1 - py, px
        cx, cy = px * t * s, py * t * s
        if look.pip_shape == "square":
            cv2.rectangle(pips, (int(cx - r), int(cy - r)), (int(cx + r), int(cy + r)), 255, -1)
        else:
            cv2.circle(pips, (int(cx), int(cy)), int(r), 255, -1, cv2.LINE_AA)
    mask = cv2.resize(pips, (t, t), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255
    pip = np.array(look.pip, np.float32)
    if look.pip_style == "engraved":
        # a hollow: its upper edge in shadow, its lower edge catching the light
        shade = np.roll(mask, int(t * 0.015) + 1, axis=0) - np.roll(mask, -int(t * 0.015) - 1, axis=0)
        pip_img = pip * (1 - 0.35 * np.clip(-shade, 0, 1)) + 60 * np.clip(shade, 0, 1)
        tex = tex * (1 - mask) + pip_img * mask
    else:
        tex = tex * (1 - mask) + pip * mask
    if glare and look.glare > 0:
        gx, gy = rng.uniform(0.2, 0.8, 2) * t
        ys, xs = np.mgrid[0:t, 0:t].astype(np.float32)
        blob = np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * (t * rng.uniform(0.08, 0.2)) ** 2))
        tex = tex + (255 - tex) * (look.glare * blob)[..., None]
    return tex, mask[..., 0]


def draw_shadow(
    img: np.ndarray, pose: Pose, camera: Camera, light: np.ndarray, strength: float, softness: float
) -> None:
    """Darken the table where the die hides the light (a soft-edged shadow)."""
    pts = pose.corners()
    floor = pts - (pts[:, 2:3] / light[2]) * light[None, :]
    floor[:, 2] = 0
    poly = camera.project(floor)
    side = float(np.linalg.norm(camera.project(pose.face_quad(0))[0] - camera.project(pose.face_quad(0))[1]))
    sigma = max(0.8, side * softness)
    pad = int(3 * sigma) + 2
    h, w = img.shape[:2]
    x0, y0 = max(0, int(poly[:, 0].min()) - pad), max(0, int(poly[:, 1].min()) - pad)
    x1, y1 = min(w, int(poly[:, 0].max()) + pad + 1), min(h, int(poly[:, 1].max()) + pad + 1)
    if x1 <= x0 or y1 <= y0:
        return
    box = np.zeros((y1 - y0, x1 - x0), np.uint8)
    hull = cv2.convexHull(np.round((poly - (x0, y0)) * 8).astype(np.int32))
    cv2.fillConvexPoly(box, hull, 255, cv2.LINE_AA, shift=3)
    dark = cv2.GaussianBlur(box.astype(np.float32) / 255, (0, 0), sigma) * strength
    img[y0:y1, x0:x1] *= (1 - dark)[..., None]


def _paste(img: np.ndarray, tex: np.ndarray, alpha: np.ndarray, quad: np.ndarray) -> None:
    """Warp a face's texture (and its alpha) onto the quadrilateral `quad` of the picture."""
    h, w = img.shape[:2]
    x0, y0 = max(0, math.floor(quad[:, 0].min()) - 1), max(0, math.floor(quad[:, 1].min()) - 1)
    x1, y1 = min(w, math.ceil(quad[:, 0].max()) + 2), min(h, math.ceil(quad[:, 1].max()) + 2)
    if x1 <= x0 or y1 <= y0:
        return
    t = TEXTURE
    src = np.array([(0, 0), (t, 0), (t, t), (0, t)], np.float32)
    m = cv2.getPerspectiveTransform(src, (quad - (x0, y0)).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(tex, m, size, flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR, borderValue=0)[..., None]
    img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - a) + warped * a


def draw_die(
    img: np.ndarray,
    pose: Pose,
    look: DieLook,
    camera: Camera,
    light: np.ndarray,
    ambient: float,
    rng: np.random.Generator,
) -> None:
    """Draw the faces of one die the camera sees (a convex body: they never overlap each other)."""
    eye = camera.position
    inset = look.rounding * 0.35
    face_mask = _rounded_mask(look.rounding, inset)
    edge_mask = _rounded_mask(look.rounding * 0.6, 0.0)
    for i in range(6):
        quad = pose.face_quad(i)
        n = pose.normal(i)
        if float(np.dot(n, eye - quad.mean(axis=0))) <= 0:
            continue  # faces away from the camera
        shade = ambient + (1 - ambient) * max(0.0, float(np.dot(n, light)))
        projected = camera.project(quad)
        if look.rounding > 0 and look.alpha >= 1:  # the rounded edge round the face, darker than the face
            edge = np.empty((TEXTURE, TEXTURE, 3), np.float32)
            edge[:] = np.array(look.body, np.float32) * shade * 0.8
            _paste(img, edge, edge_mask, projected)
        is_up = i == int(np.argmax([pose.normal(k)[2] for k in range(6)]))
        tex, pips = face_texture(look, pose.values[i], pose.turns[i], rng, glare=is_up)
        # a translucent body lets the table through, its painted pips do not
        alpha = face_mask * (look.alpha + (1 - look.alpha) * pips)
        _paste(img, tex * shade, alpha, projected)
