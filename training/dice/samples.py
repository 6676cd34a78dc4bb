"""Training samples for the two networks, cut from the photos and renders of :mod:`training.dice.data`.

The detector's sample: a square window of a picture, scaled so its dice are 8-40 pixels, turned by
quarter turns (and a little more), mirrored, with light, colour, blur and noise changed; its targets are
CenterNet maps at stride 4. The classifier's sample: the crop the reader would cut round a die (the centre
and size a little off, as a detector gives them), labelled with its face, or "reject" for a die that is
not flat, a window beside a die or none.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import cv2
import numpy as np

from recognition.dice.classifier import crop_die
from recognition.dice.detector import CHANNELS, STRIDE, WORK_DIE

from .data import REJECT, Box

#: the die sides (input pixels) the detector is trained on: from half to two and a half times WORK_DIE, so
#: the first look (a fixed 256 pixels across) measures dice of 3 to 15 % of the frame
SIDES = (8.0, 40.0)

Scene = tuple[np.ndarray, list[Box]]


def _light(img: np.ndarray, rng: random.Random) -> np.ndarray:
    """Light, white balance, colour, blur and noise changed (uint8 in, uint8 out)."""
    x = img.astype(np.float32)
    if rng.random() < 0.3:  # another hue for felt and dice alike
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = (hsv[..., 0].astype(np.int32) + rng.randrange(180)) % 180
        x = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(np.float32)
    if rng.random() < 0.15:
        x[:] = x.mean(2, keepdims=True)
    gain = np.array([rng.uniform(0.85, 1.15) for _ in range(3)], np.float32) * rng.uniform(0.65, 1.3)
    m = x.mean()
    x = (x - m) * rng.uniform(0.7, 1.3) + m
    x *= gain
    if rng.random() < 0.35:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.1))
    x += (
        np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(0, 7), x.shape).astype(np.float32)
    )
    return np.clip(x, 0, 255).astype(np.uint8)


def _side(b: Box) -> float:
    return math.sqrt(b.w * b.h)


def detector_sample(scene: Scene, rng: random.Random, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(input (3, size, size) float32, targets (CHANNELS + 2, size/4, size/4)) from one scene.

    Targets: heatmaps (2), log box size (2), offset (2), face (1: 0-5, -1 none), regression mask (1),
    face mask (1) - the last two say where the box and face losses apply."""
    img, boxes = scene
    med = float(np.median([_side(b) for b in boxes])) if boxes else 40.0
    f = math.exp(rng.uniform(math.log(SIDES[0]), math.log(SIDES[1]))) / med
    k = rng.randrange(4)
    ang = k * 90 + rng.uniform(-8, 8)
    if boxes and rng.random() < 0.6:
        b = rng.choice(boxes)
        px, py = b.cx + rng.uniform(-1, 1) * size / f / 3, b.cy + rng.uniform(-1, 1) * size / f / 3
    else:
        px, py = rng.uniform(0, img.shape[1]), rng.uniform(0, img.shape[0])
    m = np.asarray(cv2.getRotationMatrix2D((px, py), ang, f), np.float64)
    m[0, 2] += size / 2 - px
    m[1, 2] += size / 2 - py
    flip = rng.random() < 0.5
    if flip:
        m[0] = -m[0]
        m[0, 2] += size
    # a small copy first, so the warp averages as a camera would (no aliasing of fine grain)
    if f < 0.7:
        pre = cv2.resize(img, None, fx=f * 1.4, fy=f * 1.4, interpolation=cv2.INTER_AREA)
        m[:, :2] /= f * 1.4
        src = pre
    else:
        src = img
    out = cv2.warpAffine(src, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if src is not img:
        m[:, :2] *= f * 1.4
    out = _light(out, rng)
    g = size // STRIDE
    t = np.zeros((CHANNELS + 2, g, g), np.float32)
    t[6] = -1
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    swap = k % 2 == 1
    for b in boxes:
        cx, cy = m @ np.array([b.cx, b.cy, 1.0])
        gx, gy = cx / STRIDE, cy / STRIDE
        if not (-1 <= gx <= g and -1 <= gy <= g):
            continue
        bw, bh = (b.h, b.w) if swap else (b.w, b.h)
        bw, bh = bw * f, bh * f
        sigma = max(0.6, math.sqrt(bw * bh) / STRIDE / 5)
        t[b.kind] = np.maximum(t[b.kind], np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2)))
        ix, iy = int(gx), int(gy)
        if not (0 <= ix < g and 0 <= iy < g):
            continue
        t[b.kind, iy, ix] = 1.0
        t[2, iy, ix] = math.log(bw / WORK_DIE)
        t[3, iy, ix] = math.log(bh / WORK_DIE)
        t[4, iy, ix] = gx - ix
        t[5, iy, ix] = gy - iy
        t[12, iy, ix] = 1
        if b.kind == 0 and b.face:
            t[6, max(0, iy - 1) : iy + 2, max(0, ix - 1) : ix + 2] = b.face - 1
            t[13, max(0, iy - 1) : iy + 2, max(0, ix - 1) : ix + 2] = 1
    x = out.astype(np.float32).transpose(2, 0, 1) * (1 / 255.0) - 0.5
    return x, t


def classifier_samples(scene: Scene, rng: random.Random, per_die: int = 1) -> list[tuple[np.ndarray, int]]:
    """Crops of one scene as the reader cuts them, labelled: each die (its box a little off) and a few
    windows that are no clean face (beside a die, on the background)."""
    img, boxes = scene
    out = []
    sides = [max(b.w, b.h) for b in boxes]
    for b in boxes:
        for _ in range(per_die):
            j = 0.07 * max(b.w, b.h)
            c = (b.cx + rng.gauss(0, j), b.cy + rng.gauss(0, j))
            s = (b.w * rng.uniform(0.88, 1.12), b.h * rng.uniform(0.88, 1.12))
            out.append((cut(img, c, s, rng), REJECT if b.kind else b.face - 1))
        if rng.random() < 0.5:  # a window half off the die: what a detector's stray peak would give
            a = rng.uniform(0, 2 * math.pi)
            d = max(b.w, b.h) * rng.uniform(0.55, 0.9)
            c = (b.cx + d * math.cos(a), b.cy + d * math.sin(a))
            if _clear(c, boxes, 0.45):
                out.append((cut(img, c, (b.w, b.h), rng), REJECT))
    for _ in range(2 if boxes else 1):
        side = rng.choice(sides) if sides else rng.uniform(20, 80)
        c = (rng.uniform(0, img.shape[1]), rng.uniform(0, img.shape[0]))
        if _clear(c, boxes, 0.8):
            out.append((cut(img, c, (side, side), rng), REJECT))
    return out


def cut(img: np.ndarray, c: tuple[float, float], size: tuple[float, float], rng: random.Random) -> np.ndarray:
    """The classifier's crop at c, the light changed on a window round it only (cheap); half the crops
    turned by up to 30 degrees (a die lies at any angle, the quarter turns of training see only four), the
    box grown as a turned die's box grows (by the square root of its growth: the die's own angle in the
    box is unknown)."""
    side = int(2 * max(size)) + 4
    win = cv2.getRectSubPix(img, (side, side), (float(c[0]), float(c[1])))
    mid = ((side - 1) / 2, (side - 1) / 2)
    if rng.random() < 0.5:
        a = rng.uniform(-30, 30)
        m = cv2.getRotationMatrix2D(mid, a, 1.0)
        win = cv2.warpAffine(win, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        grow = math.sqrt(abs(math.cos(math.radians(a))) + abs(math.sin(math.radians(a))))
        size = (size[0] * grow, size[1] * grow)
    return crop_die(_light(win, rng), mid, size)


def _clear(c: tuple[float, float], boxes: Sequence[Box], share: float) -> bool:
    return all(math.hypot(c[0] - b.cx, c[1] - b.cy) > share * max(b.w, b.h) for b in boxes)
