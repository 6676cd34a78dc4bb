"""The classical reader of a die's upper face: find the pips as spots, fit a face's layout, check the rest.

Pure: one die crop (from :mod:`recognition.dice.find`) in, a face or None out.

* **The die.** Its outline is the mask's rectangle (else the crop's middle square): its side sets every
  length below (so a 25-pixel die and a 90-pixel one are read alike), its turn the turn a 2's or 3's
  diagonal may have.
* **Spots.** A pip differs from the body round it, whatever the colours: dark on light, light on dark, red
  on blue, on a marbled body. The body round each pixel is the median over a window a pip and a half
  wide (wider than a pip, narrower than a marble's swirl); a pixel's spot strength is its Lab distance
  from it (a and b counted twice: coloured pips on coloured dice differ in hue more than in lightness).
  Each local peak grows to the pixels above half its height; a spot is kept when its size is a pip's,
  it is round (not drawn out, filling its ellipse) and it stands clear of the noise.
* **Layout.** The largest set of alike spots (size and strength within 2.5:1, one colour) that a face
  1-6 fits (a similarity fit, both diagonals of 2 and 3, both ways of 6) within 0.075 of a side, at the
  pip spacing real dice have, its middle near the die's (a 1's nearer), no pip by the patch's rim, wins;
  every other spot must lie beyond the fitted face's edge (a side face's pips, which a slanted camera or
  a tilt shows; drawn-out ones are no spots at all) or be far fainter than the pips.
* **Empty places.** Every place of the 3x3 grid the face leaves empty must look like the body: a pip the
  spot finder missed (glare, blur) would otherwise turn a 3 into a 2 or a 5 into a 4. A 2 or 3 turned
  against the outline (a slanted die's outline need not say its face's turn) must also leave empty the
  places where a 4's or 6's other pips would lie; a 1 reads only on a face its mask covers whole.
  Wrong readings are worse than none: whatever does not fit returns None with the reason.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from .find import CROP, CROP_MARGIN

SIDE = CROP / CROP_MARGIN  # the die's side in crop pixels, as the finder cuts it
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
#: each layout as complex points, their conjugates and the sum of their squared lengths (`_fit`'s terms)
_LAYOUT_Z = {
    n: [(z, np.conj(z), (np.abs(z) ** 2).sum()) for z in (lay[:, 0] + 1j * lay[:, 1] for lay in lays)]
    for n, lays in LAYOUTS.items()
}
_GRID = np.array([(u, v) for v in (-1, 0, 1) for u in (-1, 0, 1)], dtype=np.float64)
#: the places beyond the 3x3 grid where a 4's, 5's or 6's other pips lie when a 2 or a 3 is two or three of
#: its pips (a 4's side, a 6's column) seen turned
_WIDE = np.array([(u, v) for v in range(-3, 4) for u in range(-3, 4) if max(abs(u), abs(v)) > 1], np.float64)

#: the pip offset from the face's middle, in die sides, that real dice have (0.25-0.3)
PITCH = (0.13, 0.4)
#: the pip offset assumed for a 1 (whose spacing nothing shows), in die sides
ONE_PITCH = 0.27
#: the worst a pip may lie off its fitted place, in die sides
MAX_RESIDUAL = 0.075
#: the most a 2's or 3's diagonal may turn against the die's outline, degrees (4, 5, 6 may turn freely),
#: unless the places a 4's, 5's or 6's other pips would take on the die are empty too (a slanted or
#: turned die's outline need not say its face's turn)
MAX_TURN = 25.0
#: a spot left out of the face must lie this far from its middle along an axis, in die sides
OFF_FACE = 0.45
#: the farthest the face's middle may lie from the die's middle, in die sides
MAX_OFF_CENTRE = 0.3
#: a spot this near the die's middle (in die sides) lies on its upper face, where no side face shows: one
#: alike the pips of a 2 or 3 and left out of it is a pip of the face (any two pips fit a 2: two
#: adjacent pips of a 4 fit a small turned one)
INNER = 0.45
#: the least a pip's middle lies inside the die's patch, in die sides (a flat die's lie 0.2 in and more;
#: pips by the patch's rim are a side face's)
RIM = 0.1
#: the same for a 1, whose pip alone says where its face lies
ONE_OFF_CENTRE = 0.25
#: the most spots looked at (the nearest the die's middle)
MAX_SPOTS = 9
#: the longest a pip seen face-on may be drawn out (a side face's pips, seen slanted, are more)
MAX_ELONGATION = 1.7
#: a pip's area, in die areas (a pip's diameter is 0.13-0.25 of the side)
PIP_AREA = (0.006, 0.07)
#: the least spot strength (Lab distance from the body round it) a pip has
LEAST_STRENGTH = 24.0
#: spots fainter than this share of the pips' own strength are no pips (a scratch, grain, a marble's vein)
FAINT = 0.4
#: how alike in size and strength a turned 2's or 3's pips must be
ALIKE = 1.8
#: an empty place's strength (over a pip's disc) must be below this share of the faintest pip's
EMPTY = 0.4


@dataclass(frozen=True)
class PipReading:
    face: int | None
    pips: tuple[tuple[float, float], ...]  # crop pixels
    residual: float  # die sides; 1.0 when nothing fitted
    contrast: float  # the pips' strength: Lab distance from the body round them
    reason: str = ""  # why no face, in words
    off_face: int = 0  # spots beside the face (a side face's pips, which a slanted view or a tilt shows)


@dataclass(frozen=True)
class _Spot:
    x: float
    y: float
    area: float
    strength: float
    colour: np.ndarray  # mean Lab


def count_pips(crop: np.ndarray, mask: np.ndarray | None = None) -> PipReading:
    """Read the upper face in a die crop (BGR, CROP x CROP); None with a reason when it cannot be read."""
    size = crop.shape[0]
    centre, side, turn = np.array([size / 2 - 0.5, size / 2 - 0.5]), size / CROP_MARGIN, 0.0
    yy, xx = np.mgrid[0:size, 0:size]
    die: np.ndarray = np.ones((size, size), np.uint8)
    if mask is not None:
        die = (mask > 0).astype(np.uint8)
        if die[np.hypot(xx - centre[0], yy - centre[1]) < 0.45 * side].mean() < 0.7:
            return PipReading(None, (), 1.0, 0.0, "no die body")
        centre, side, turn = _outline(die, centre, side)
        # the die's own pixels only: the felt round a dark die differs from it as much as its pips
        die = cv2.erode(die, np.ones((3, 3), np.uint8))
    # and within its square's corners (a neighbour's patch joined to this one is no part of it)
    inside: np.ndarray = die & (np.hypot(xx - centre[0], yy - centre[1]) < 0.72 * side).astype(np.uint8)
    strength, lab, body = _strength(crop, inside, side)
    spots = _spots(strength, lab, inside, side)
    # whether the mask covers the die's face (white dice on light wood differ little from it)
    ct, st = np.cos(np.radians(turn)), np.sin(np.radians(turn))
    du, dv = (xx - centre[0]) * ct + (yy - centre[1]) * st, (yy - centre[1]) * ct - (xx - centre[0]) * st
    near = (np.abs(du) < 0.4 * side) & (np.abs(dv) < 0.4 * side)  # the face's middle, turned as the die
    whole = bool(inside[near].mean() > 0.9) if near.any() else False
    return _layout(spots, (lab, body), inside, centre, side, turn, whole)


def _outline(die: np.ndarray, centre: np.ndarray, side: float) -> tuple[np.ndarray, float, float]:
    """The die's middle, side and turn (degrees, -45..45) from its mask; the crop's when it says nothing."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(die)
    if n < 2:
        return centre, side, 0.0
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    pts = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.float32)
    (cx, cy), (w, h), ang = cv2.minAreaRect(pts)
    s = float(np.sqrt(w * h))
    if not 0.7 * side <= s <= 1.15 * side:  # a patch joined to a neighbour's, or cut short: the crop's own
        return centre, side, 0.0
    return np.array([cx, cy]), s, float((ang + 45) % 90 - 45)


def _strength(crop: np.ndarray, inside: np.ndarray, side: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pixel's Lab distance from the body round it (float32), the crop in Lab and the body (float32).

    The body round a pixel is the median of a window about a pip and a half wide, the pixels far from
    the die's own median (its pips, most likely) and beyond the die taken as that median first: a 6's
    pips would otherwise fill half the window between them."""
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)
    filled = lab.copy()
    sel = inside > 0
    if sel.any():
        px = lab[sel]
        med = np.partition(px, len(px) // 2, axis=0)[len(px) // 2]  # the median, per channel
        d0 = _distance(lab.astype(np.float32) - med.astype(np.float32))
        body_d = d0[sel]
        far = d0 > max(
            LEAST_STRENGTH,
            2.0 * float(np.partition(body_d, int(0.8 * (len(body_d) - 1)))[int(0.8 * (len(body_d) - 1))]),
        )
        filled[~sel | far] = med.astype(np.uint8)  # the rim is body, not felt
    k = max(5, int(0.4 * side) | 1)
    body = cv2.medianBlur(filled, k).astype(np.float32)
    dist = cv2.GaussianBlur(_distance(lab.astype(np.float32) - body), (0, 0), max(0.6, side * 0.02))
    return dist * sel, lab, body


def _distance(d: np.ndarray) -> np.ndarray:
    """The length of Lab differences (..., 3), a and b counted twice (OpenCV's L runs 0-255)."""
    return np.sqrt(d[..., 0] ** 2 + 4.0 * (d[..., 1] ** 2 + d[..., 2] ** 2))


def _spots(strength: np.ndarray, lab: np.ndarray, inside: np.ndarray, side: float) -> list[_Spot]:
    """Round, pip-sized spots: each local peak grown to the pixels above half its height."""
    peaks = (strength >= cv2.dilate(strength, np.ones((3, 3), np.uint8))) & (strength >= LEAST_STRENGTH)
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-strength[ys, xs])
    taken = np.zeros(strength.shape, bool)
    out: list[_Spot] = []
    a_min, a_max = PIP_AREA[0] * side**2, PIP_AREA[1] * side**2
    for i in order[:40]:
        y, x = int(ys[i]), int(xs[i])
        if taken[y, x]:
            continue
        v = float(strength[y, x])
        _, labels = cv2.connectedComponents((strength > 0.5 * v).astype(np.uint8), connectivity=4)
        blob = labels == labels[y, x]
        taken |= blob
        a = float(blob.sum())
        if not a_min <= a <= a_max:
            continue
        m = cv2.moments(blob.astype(np.uint8), binaryImage=True)
        mu20, mu02, mu11 = m["mu20"] / a, m["mu02"] / a, m["mu11"] / a
        root = np.sqrt(((mu20 - mu02) / 2) ** 2 + mu11**2)
        hi, lo = (mu20 + mu02) / 2 + root, (mu20 + mu02) / 2 - root
        if lo <= 1e-6 or np.sqrt(hi / lo) > MAX_ELONGATION:
            continue  # a side face's pip, foreshortened by the camera's slant; a scratch; an edge
        if a < 0.6 * 4 * np.pi * np.sqrt(hi * lo):  # less than 0.6 of its ellipse: a ragged vein, not a pip
            continue
        if cv2.erode(inside, np.ones((3, 3), np.uint8))[blob].mean() < 0.7:
            continue  # cut by the die's edge: the body's rim or a side face, not a whole pip
        out.append(
            _Spot(m["m10"] / m["m00"], m["m01"] / m["m00"], a, v, lab[blob].astype(np.float64).mean(0))
        )
    return out


def _fit(q: np.ndarray, face: int, turn: float) -> tuple[float, complex, bool]:
    """The best similarity fit of points q (die sides, about their centroid) to the face: residual, map,
    and whether a 2's or 3's diagonal lies turned against the outline (beyond MAX_TURN).

    The map z takes the layout (pip offset 1) to the points: q ~ z * layout, |z| the pip offset."""
    best: tuple[float, complex, bool] = (1.0, 0j, False)
    pz = (q[:, 0] + 1j * q[:, 1])[_PERMS[face]]  # (P, n): the points in every order
    for lz, lz_conj, lz_norm in _LAYOUT_Z[face]:
        z = (pz * lz_conj).sum(1) / lz_norm
        res = np.abs(pz - z[:, None] * lz).max(1)
        turned = np.zeros(len(z), bool)
        if face in (2, 3):  # any two or three points in a row fit a turned diagonal
            turned = np.abs((np.degrees(np.angle(z)) - turn + 45) % 90 - 45) > MAX_TURN
            res = res + turned * 1e-3  # the outline's way first, when both fit
        i = int(np.argmin(res))
        if res[i] < best[0]:
            best = (float(res[i]), complex(z[i]), bool(turned[i]))
    return best


def _layout(
    spots: list[_Spot],
    colours_of: tuple[np.ndarray, np.ndarray],
    inside: np.ndarray,
    centre: np.ndarray,
    side: float,
    turn: float,
    whole: bool,
) -> PipReading:
    if not spots:
        return PipReading(None, (), 1.0, 0.0, "no pips")
    spots = sorted(spots, key=lambda s: np.hypot(s.x - centre[0], s.y - centre[1]))[:MAX_SPOTS]
    pts = np.array([(s.x, s.y) for s in spots])
    areas = np.array([s.area for s in spots])
    power = np.array([s.strength for s in spots])
    colours = np.array([s.colour for s in spots])
    seen = tuple((float(s.x), float(s.y)) for s in spots)
    depth = cv2.distanceTransform(np.pad(inside, 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
    deep = [float(depth[min(len(depth) - 1, round(s.y)), min(len(depth) - 1, round(s.x))]) for s in spots]
    # the checks of a set that need no fit, in plain floats (a set is 1-6 spots: numpy's cost per call is
    # most of their time), computed as numpy computes them; each only rejects, so their order is free
    xs, ys = [float(s.x) for s in spots], [float(s.y) for s in spots]
    area_of, power_of = [float(a) for a in areas], [float(v) for v in power]
    lab_of = [tuple(float(c) for c in s.colour) for s in spots]
    cx, cy, rim = float(centre[0]), float(centre[1]), RIM * side
    # the largest set of alike spots that is a face, every other spot off that face or far fainter
    for keep in range(min(len(pts), 6), 0, -1):
        off_centre = ONE_OFF_CENTRE if keep == 1 else MAX_OFF_CENTRE
        for idx_t in itertools.combinations(range(len(pts)), keep):
            a = [area_of[i] for i in idx_t]
            if max(a) > 2.5 * min(a):
                continue
            v = [power_of[i] for i in idx_t]
            weakest = min(v)
            if max(v) > 2.5 * weakest:
                continue
            if min(deep[i] for i in idx_t) < rim:
                continue  # a pip on the die's rim is a side face's (a flat die's lie 0.25-0.3 in)
            mx, my = sum(xs[i] for i in idx_t) / keep, sum(ys[i] for i in idx_t) / keep
            if np.hypot(mx - cx, my - cy) / side > off_centre:
                continue
            if keep > 1 and _spread_of([lab_of[i] for i in idx_t]) > max(30.0, 0.6 * weakest):
                continue  # pips of one die share a colour: a glint or a vein beside them is no pip
            idx = np.array(idx_t)
            mid = np.array([mx, my])
            q = (pts[idx] - mid) / side
            if keep == 1:
                res, z, turned = 0.0, ONE_PITCH * np.exp(1j * np.radians(turn)), False
            else:
                res, z, turned = _fit(q, keep, turn)
            if res > MAX_RESIDUAL or not PITCH[0] <= abs(z) <= PITCH[1]:
                continue
            rest = np.array([i for i in range(len(pts)) if i not in idx_t], dtype=np.intp)
            faint = power[rest] < FAINT * power[idx].min()
            if len(rest):
                # the others in the face's own frame: off the face means beyond its edge
                w = ((pts[rest] - mid) / side) @ np.array([[z.real, z.imag], [-z.imag, z.real]]).T / abs(z)
                if not np.all((np.abs(w).max(1) >= OFF_FACE) | faint):
                    continue
                alike = (areas[rest] <= 2.5 * areas[idx].min()) & (2.5 * areas[rest] >= areas[idx].max())
                inner = np.hypot(*(pts[rest] - centre).T) < INNER * side
                if keep in (2, 3) and np.any(alike & inner & ~faint):
                    continue
            empty = _empty_places(idx, z, mid, colours_of, inside, side, pts, colours[idx], turned)
            if empty is None:
                continue  # the face's places run off the die: it cannot be checked
            if empty > EMPTY:
                continue  # a pip where the face has none: a face with a pip the spot finder missed
            if turned and (
                areas[idx].max() > ALIKE * areas[idx].min() or power[idx].max() > ALIKE * power[idx].min()
            ):
                continue  # a turned pair or row: a side face's pip beside a pip is unlike it
            if keep == 1 and not whole:
                continue  # a 1's pip must stand alone on a face seen whole (a 2's other pip may lie beyond)
            return PipReading(
                keep,
                tuple((float(x), float(y)) for x, y in pts[idx]),
                res,
                float(np.median(power[idx])),
                off_face=int(np.sum(~faint)) if len(rest) else 0,
            )
    return PipReading(None, seen, 1.0, float(np.median(power)), f"{len(pts)} spots in no die's pattern")


def _spread_of(colours: list[tuple[float, ...]]) -> float:
    """The largest Lab distance of a colour from the colours' mean (a and b counted twice)."""
    n = len(colours)
    ml, ma, mb = (sum(c[k] for c in colours) / n for k in range(3))
    return math.sqrt(
        max(
            (c[0] - ml) * (c[0] - ml) + 4.0 * ((c[1] - ma) * (c[1] - ma) + (c[2] - mb) * (c[2] - mb))
            for c in colours
        )
    )


def _empty_places(
    idx: np.ndarray,
    z: complex,
    mid: np.ndarray,
    colours_of: tuple[np.ndarray, np.ndarray],
    inside: np.ndarray,
    side: float,
    pts: np.ndarray,
    pip_colours: np.ndarray,
    wide: bool,
) -> float | None:
    """How much the grid places the fitted face leaves empty look like its pips: at each, the colour's
    step from the body round it towards the pips' colour, as a share of the whole step (0: body, 1: a
    pip), the largest. A pip the spot finder let go (glare, a faint or ragged pip) shows there. None
    when a place of the 3x3 grid runs off the die (then it cannot be looked at). `wide`: the places
    beyond the grid too, those on the die (where a bigger face's other pips would lie)."""
    lab, body = colours_of
    grid = np.concatenate([_GRID, _WIDE]) if wide else _GRID
    g = grid[:, 0] + 1j * grid[:, 1]
    places = mid + side * np.column_stack([(z * g).real, (z * g).imag])
    used = np.zeros(len(places), bool)
    for p in pts[idx]:
        used[int(np.argmin(np.hypot(*(places - p).T)))] = True
    h, w = inside.shape
    scale = np.array([1.0, 2.0, 2.0])  # a and b counted twice, as in the strength
    step = pip_colours.mean(0) * scale
    worst = 0.0
    for k, ((x, y), u) in enumerate(zip(places, used, strict=True)):
        xi, yi = round(x), round(y)
        if not (0 <= xi < w and 0 <= yi < h) or not inside[yi, xi]:
            if k < len(_GRID) and len(idx) > 1:
                return None
            continue  # off the die: no pip there to miss (a 1's grid is a guess: nothing shows its spacing)
        if u:
            continue
        ys, xs = slice(max(0, yi - 1), yi + 2), slice(max(0, xi - 1), xi + 2)
        here = lab[ys, xs].reshape(-1, 3).astype(np.float64) * scale
        ground = body[ys, xs].reshape(-1, 3).astype(np.float64) * scale
        share = ((here - ground) * (step - ground)).sum(1) / np.maximum(((step - ground) ** 2).sum(1), 1e-6)
        worst = max(worst, float(share.max()))
    return worst
