"""A frozen copy of recognition/dice/pips.py as it was before its rewrite: bench/dice_pips.py's baseline.

The classical reader of a die's upper face: count the pips and check they sit as a die's pips sit.

Pure: one die crop (from :mod:`recognition.dice.find`) in, a face or None out. Pips are blobs of one
size that contrast with the die's body (dark on light dice, light on dark or coloured ones: both are
tried); their centres must match a face's layout (1-6; both diagonals of 2 and 3, both ways of 6)
after a similarity fit, at the pip spacing real dice have. Blobs near the crop's rim that the fitted
face leaves out are a side face's pips (a slanted camera sees them) and are let go; a blob inside
the face that the layout does not explain makes the face unreadable, never another number.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np

from recognition.dice.find import CROP, CROP_MARGIN

SIDE = CROP / CROP_MARGIN  # the die's side in crop pixels
_U = np.array(
    [
        [(0, 0)],
        [(-1, -1), (1, 1)],
        [(-1, -1), (0, 0), (1, 1)],
        [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)],
        [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
    ],
    dtype=object,
)
#: each face's pip pattern (pip offset 1) in every orientation a die shows it
LAYOUTS: dict[int, list[np.ndarray]] = {}
for _n, _pts in enumerate(_U, start=1):
    _p = np.array(_pts, dtype=np.float64)
    LAYOUTS[_n] = [_p, _p[:, ::-1] * np.array([1.0, -1.0])] if _n in (2, 3, 6) else [_p]
_PERMS = {n: np.array(list(itertools.permutations(range(n))), dtype=np.intp) for n in range(1, 7)}

#: the pip offset from the face's middle, in die sides, that real dice have (0.25-0.3)
PITCH = (0.15, 0.4)
#: the worst a pip may lie off its fitted place, in die sides
MAX_RESIDUAL = 0.075
#: the most a 2's or 3's diagonal may turn against the die's outline, degrees (4, 5, 6 may turn freely:
#: a round die's outline does not say its turn, and their patterns are their own)
MAX_TURN = 25.0
#: a spot left out of the face must lie this far from its middle along an axis, in die sides
OFF_FACE = 0.45
#: the most spots looked at (the nearest the crop's middle)
MAX_SPOTS = 9
#: the longest a pip seen face-on may be drawn out (a side face's pips, seen slanted, are more)
MAX_ELONGATION = 1.6


@dataclass(frozen=True)
class PipReading:
    face: int | None
    pips: tuple[tuple[float, float], ...]  # crop pixels
    residual: float  # die sides; 1.0 when nothing fitted
    contrast: float  # grey levels between the body and the pips
    reason: str = ""  # why no face, in words
    off_face: int = 0  # spots beside the face (a side face's pips, which a slanted view or a tilt shows)


def _blobs(
    grey: np.ndarray, inside: np.ndarray, dark: bool
) -> tuple[list[tuple[float, float, float]], float]:
    """The pip-like spots (x, y, area) and the contrast."""
    body = float(np.median(grey[inside > 0]))
    vals = grey[inside > 0]
    extreme = float(np.percentile(vals, 3 if dark else 97))
    contrast = abs(body - extreme)
    if contrast < 30:
        return [], contrast
    bar = (body + extreme) / 2
    sel = ((grey < bar) if dark else (grey > bar)).astype(np.uint8) & (inside > 0).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(sel, connectivity=4)
    a_min, a_max = 0.006 * SIDE**2, 0.11 * SIDE**2
    out = []
    for i in range(1, n):
        x, y, bw, bh, a = stats[i]
        if not a_min <= a <= a_max or a < 0.45 * bw * bh:
            continue
        if _elongation(labels[y : y + bh, x : x + bw] == i) > MAX_ELONGATION:
            continue  # a side face's pip, foreshortened by the camera's slant
        out.append((float(cents[i][0]), float(cents[i][1]), float(a)))
    return out, contrast


def _elongation(blob: np.ndarray) -> float:
    """The ratio of a blob's long axis to its short one (from its second moments)."""
    m = cv2.moments(blob.astype(np.uint8), binaryImage=True)
    a, b, c = m["mu20"], m["mu02"], m["mu11"]
    root = np.sqrt(((a - b) / 2) ** 2 + c**2)
    lo = (a + b) / 2 - root
    return float(np.sqrt(((a + b) / 2 + root) / lo)) if lo > 1e-6 else 99.0


def _fit(q: np.ndarray, face: int) -> tuple[float, np.ndarray, float]:
    """The best similarity fit of points q (die sides, about their centroid) to the face: residual, map, pitch."""
    best = (1.0, np.eye(2), 0.0)
    if face == 1:
        return (float(np.hypot(*q[0])) * 0.0, np.eye(2), 0.0)
    for lay in LAYOUTS[face]:
        perms = _PERMS[face]
        p = q[perms]  # (P, n, 2)
        # complex similarity: q ~ z * lay, z = sum(conj(lay) q) / sum |lay|^2
        lz = lay[:, 0] + 1j * lay[:, 1]
        pz = p[..., 0] + 1j * p[..., 1]
        z = (pz * np.conj(lz)).sum(1) / (np.abs(lz) ** 2).sum()
        res = np.abs(pz - z[:, None] * lz).max(1)
        # the crop is upright with the die's outline: the pattern may turn only a little
        if face in (2, 3):  # any two or three points in a row fit a turned diagonal: the outline says which
            res = np.where(np.abs(np.angle(z)) <= np.radians(MAX_TURN), res, 1.0)
        i = int(np.argmin(res))
        if res[i] < best[0]:
            zi = z[i]
            best = (float(res[i]), np.array([[zi.real, -zi.imag], [zi.imag, zi.real]]), float(abs(zi)))
    return best


def count_pips(crop: np.ndarray, mask: np.ndarray | None = None) -> PipReading:
    """Read the upper face in a die crop (BGR, CROP x CROP); None with a reason when it cannot be read."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    yy, xx = np.mgrid[0:CROP, 0:CROP]
    r = np.hypot(xx - CROP / 2 + 0.5, yy - CROP / 2 + 0.5) / SIDE
    inside = (r < 0.62).astype(np.uint8)
    if mask is not None:
        # the die's own pixels only: the felt round a dark die is lighter than its pips
        inside &= cv2.erode((mask > 0).astype(np.uint8), np.ones((3, 3), np.uint8))
    if mask is not None and (mask[r < 0.45] > 0).mean() < 0.7:
        return PipReading(None, (), 1.0, 0.0, "no die body")
    results = []
    for dark in (True, False):
        blobs, contrast = _blobs(grey, inside, dark)
        results.append((_layout(blobs, contrast), dark))
    good = [res for res, _ in results if res.face is not None]
    if len(good) == 2 and good[0].face != good[1].face:
        return PipReading(None, (), 1.0, 0.0, "dark and light spots read differently")
    if good:
        return min(good, key=lambda g: g.residual)
    return max((res for res, _ in results), key=lambda g: len(g.pips))


def _layout(blobs: list[tuple[float, float, float]], contrast: float) -> PipReading:
    if not blobs:
        return PipReading(None, (), 1.0, contrast, "no pips")
    c0 = np.array([CROP / 2, CROP / 2])
    blobs = sorted(blobs, key=lambda b: np.hypot(b[0] - c0[0], b[1] - c0[1]))[:MAX_SPOTS]
    pts = np.array([(x, y) for x, y, _ in blobs])
    areas = np.array([a for *_, a in blobs])
    # the largest set of spots that is a face, every other spot lying off that face (a side face's pips)
    for keep in range(min(len(pts), 6), 0, -1):
        for idx_t in itertools.combinations(range(len(pts)), keep):
            idx = np.array(idx_t)
            mid = pts[idx].mean(0)
            if np.hypot(*(mid - c0)) / SIDE > 0.3:
                continue
            if keep > 1 and areas[idx].max() > 3.0 * areas[idx].min():
                continue
            if keep == 1 and areas[idx[0]] < 0.008 * SIDE**2:
                continue
            q = (pts[idx] - mid) / SIDE
            res, rot, pitch = _fit(q, keep)
            if keep == 1:
                rot, pitch = np.eye(2) * 0.28, 0.28
            if res > MAX_RESIDUAL or not PITCH[0] <= pitch <= PITCH[1]:
                continue
            rest = np.setdiff1d(np.arange(len(pts)), idx)
            if len(rest):
                # the others in the face's own frame: off the face means beyond its edge
                u = ((pts[rest] - mid) / SIDE) @ np.linalg.inv(rot).T * pitch
                if np.abs(u).max(1).min() < OFF_FACE:
                    continue
            return PipReading(keep, tuple(map(tuple, pts[idx])), res, contrast, off_face=len(rest))
    return PipReading(None, tuple(map(tuple, pts)), 1.0, contrast, f"{len(pts)} spots in no die's pattern")
