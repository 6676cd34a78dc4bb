"""Find the dice in a frame: classical segmentation against a large-scale estimate of the background.

Pure: a BGR image in, :class:`Candidate` regions out. The background (felt, wood, card) varies
slowly across the picture and a die is small, so a wide median of a small copy of the picture is
the picture without its dice; a die is a patch that differs from it in colour or brightness (Lab
distance). Patches are filled (a pip the colour of the felt is still part of its die), measured,
and sorted into one die, several touching dice, or noise by their size against the die size
(calibrated, else the median of the square patches of this frame).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: the side a die is scaled to for finding it (work pixels); small enough to be fast
WORK_DIE = 24.0
#: the side of the square crop of one die that the readers see (the die fills 1/CROP_MARGIN of it)
CROP = 48
CROP_MARGIN = 1.25
#: how much a darkening counts against a brightening or a change of colour (shadows only darken)
SHADOW_WEIGHT = 0.4
#: a patch of this many die areas or more is several dice (touching): it is cut apart
SEVERAL = 1.6
#: the shares of a die's side tried for its core (the points this far from the patch's edge)
CORES = (0.3, 0.36, 0.42)
#: within a patch, its dice are the pixels at least this share of its strongest difference
LOCAL = 0.4
#: the least share of its rectangle a patch of dice covers
LEAST_FILL = 0.4


@dataclass(frozen=True)
class Candidate:
    """One patch that may be a die: where it lies (frame pixels) and its crop."""

    center: tuple[float, float]
    size: float  # the side of its rectangle, frame pixels
    angle: float  # degrees, of its rectangle
    corners: tuple[tuple[float, float], ...]
    dice: float  # its area in die areas (1: one die)
    aspect: float  # its rectangle's long side over its short side
    fill: float  # its area over its rectangle's area
    crop: np.ndarray | None = None  # CROP x CROP BGR, the die's rectangle upright in the middle
    mask: np.ndarray | None = None  # the same, the patch's pixels (uint8 0/255)


@dataclass(frozen=True)
class Found:
    candidates: tuple[Candidate, ...]
    die_size: float | None  # frame pixels
    background: np.ndarray  # the background estimate, BGR at 1/8 of the work scale


def _scale_for(w: int, h: int, die_size: tuple[float, float] | None) -> float:
    if die_size is not None:
        return min(1.0, WORK_DIE / ((die_size[0] + die_size[1]) / 2))
    return min(1.0, 640.0 / max(w, h))


def difference(work: np.ndarray, small_bg: np.ndarray) -> np.ndarray:
    """How far each work pixel lies from the background, in Lab units (float32)."""
    h, w = work.shape[:2]
    bg = cv2.resize(small_bg, (w, h), interpolation=cv2.INTER_LINEAR)
    a = cv2.cvtColor(work, cv2.COLOR_BGR2LAB).astype(np.int16)
    b = cv2.cvtColor(bg, cv2.COLOR_BGR2LAB).astype(np.int16)
    d = (a - b).astype(np.float32)
    # a shadow only darkens the background: darkening counts for less than brightening or colour
    dl = np.where(d[..., 0] < 0, d[..., 0] * SHADOW_WEIGHT, d[..., 0])
    return np.sqrt(dl**2 + d[..., 1] ** 2 + d[..., 2] ** 2)


def find_dice(
    image: np.ndarray,
    die_size: tuple[float, float] | None = None,
    region: np.ndarray | None = None,
    threshold: float = 16.0,
    expected: int | None = None,
) -> Found:
    """The patches of `image` (BGR) that differ from its background; `region`: the searched mask (frame)."""
    h, w = image.shape[:2]
    s = _scale_for(w, h, die_size)
    work = cv2.resize(image, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else image
    wh, ww = work.shape[:2]
    small = cv2.resize(work, (max(8, ww // 8), max(8, wh // 8)), interpolation=cv2.INTER_AREA)
    if region is not None:
        # beyond the searched region (a tray's rim) the background is the region's: no false edge at the rim
        inside = cv2.resize(region, small.shape[1::-1], interpolation=cv2.INTER_AREA) > 250
        if inside.any():
            small[~inside] = np.median(small[inside], axis=0).astype(np.uint8)
    die_w = (die_size[0] + die_size[1]) / 2 * s if die_size else None
    if die_w is not None:
        # the median must see far more background than die: three dice wide
        ks = [max(9, int(die_w * 3 / 8) | 1)]
    else:
        # unknown dice: a third of the picture (large dice), or a few small dice wide (a tray's walls
        # close by); the one that finds more patches shaped and sized like dice
        ks = [(min(small.shape[:2]) // 3) | 1, 9]
    best: tuple[int, float | None, np.ndarray, list, np.ndarray] | None = None
    for k in ks:
        bg = cv2.medianBlur(small, k)
        mask, shapes = _patches(difference(work, bg), threshold, region, (ww, wh))
        side, score = _die_side(shapes, die_w)
        if best is None or score > best[0]:
            best = (score, side, bg, shapes, mask)
    assert best is not None
    _, side, bg, shapes, mask = best
    if side is None and expected and shapes:
        # no die on its own (all touching): the compact patches' area shared among the dice thrown
        area = sum(a for _, a, _, (rw, rh), _ in shapes if a > 0.6 * rw * rh)
        side = float(np.sqrt(area / expected)) if area else None
    cands: list[Candidate] = []
    if side is not None:
        filled = np.zeros_like(mask)
        cv2.drawContours(filled, [c for c, *_ in shapes], -1, 255, cv2.FILLED)
        for c, area, (cx, cy), (rw, rh), ang in shapes:
            dice = area / side**2
            if dice < 0.3:
                continue
            if dice < SEVERAL and max(rw, rh) / min(rw, rh) < 1.6:
                parts = [(dice, (cx, cy), (rw, rh), ang)]
            else:
                parts = _split(c, side) or []
                if (len(parts) == 1 and dice < 1.8) or (not parts and dice < 1.3):  # one die, shadow, bevel
                    parts = [(dice, (cx, cy), (rw, rh), ang)]
                if not parts:
                    cands.append(_whole(c, area, side, s))
                    continue
            for pd, (px, py), (pw, ph), pa in parts:
                corners = cv2.boxPoints(((px, py), (pw, ph), pa)) / s
                crop, cmask = _crop(image, filled, s, (px / s, py / s), max(pw, ph) / s, pa)
                cands.append(
                    Candidate(
                        center=(px / s, py / s),
                        size=float(max(pw, ph)) / s,
                        angle=float(pa % 90),
                        corners=tuple((float(x), float(y)) for x, y in corners),
                        dice=float(pd),
                        aspect=float(max(pw, ph) / min(pw, ph)),
                        fill=float(area / (rw * rh)) if len(parts) == 1 else 1.0,
                        crop=crop,
                        mask=cmask,
                    )
                )
    return Found(tuple(cands), side / s if side is not None else None, bg)


def _patches(
    dist: np.ndarray, threshold: float, region: np.ndarray | None, size: tuple[int, int]
) -> tuple[np.ndarray, list]:
    # sensor noise makes speckles: the distance is smoothed first; a pip at a die's edge is closed over
    smooth = cv2.GaussianBlur(dist, (5, 5), 1.0)
    mask = _clean((smooth > threshold).astype(np.uint8) * 255)
    if region is not None:
        mask &= cv2.resize(region, size, interpolation=cv2.INTER_NEAREST)
    contours, tree = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    holes: dict[int, float] = {}
    for i, (_, _, _, parent) in enumerate(tree[0] if tree is not None else []):
        if parent >= 0:
            holes[parent] = max(holes.get(parent, 0.0), cv2.contourArea(contours[i]))
    shapes = []
    for i, c in enumerate(contours):
        if tree[0][i][3] >= 0:
            continue  # a hole (pips, or the inside of a ring); what lies in it has its own outline
        area = cv2.contourArea(c)
        if area < 30 or holes.get(i, 0.0) > 0.5 * area:
            continue  # a ring round a large hole (a tray's edge, a shadow's outline): no die
        shapes += _refined(c, smooth, threshold)
    return mask, shapes


def _clean(mask: np.ndarray) -> np.ndarray:
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _refined(c: np.ndarray, smooth: np.ndarray, threshold: float) -> list:
    """A patch re-cut at its own contrast: dice differ from the felt far more than their shadows do,
    so the pixels beyond LOCAL of the patch's strongest difference are its dice, without the shadows
    that join them."""
    x, y, bw, bh = cv2.boundingRect(c)
    m = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(m, [c - [x, y]], -1, 255, cv2.FILLED)
    d = smooth[y : y + bh, x : x + bw]
    bar = max(threshold, LOCAL * float(np.percentile(d[m > 0], 95)))
    pieces = [c]
    if bar > threshold * 1.2:
        sub = _clean(((d > bar) & (m > 0)).astype(np.uint8) * 255)
        found, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x, y))
        pieces = [p for p in found if cv2.contourArea(p) >= 30] or [c]
    out = []
    for p in pieces:
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(p)
        area = cv2.contourArea(p)
        # a die's patch, or a heap of them, is compact; a thin outline (a tray's edge) is not
        if min(rw, rh) >= 4 and area >= LEAST_FILL * rw * rh:
            out.append((p, area, (cx, cy), (rw, rh), ang))
    return out


def _die_side(shapes: list, calibrated: float | None) -> tuple[float | None, int]:
    """The median side of the square patches, and how many patches are within a third of it.

    A die's patch is larger than the die (its bevel, the side faces a camera sees, a soft shadow):
    with a calibrated side, the patches between 0.8 and 1.7 of it say by how much."""
    square = [
        np.sqrt(a)
        for _, a, _, (rw, rh), _ in shapes
        if max(rw, rh) / min(rw, rh) < 1.35 and a / (rw * rh) > 0.65
    ]
    square = [q for q in square if q > 9]
    if calibrated is not None:
        square = [q for q in square if 0.8 * calibrated <= q <= 1.7 * calibrated]
        if not square:
            return calibrated, 0
    if not square:
        return None, 0
    side = float(np.median(square))
    return side, sum(1 for q in square if abs(q / side - 1) < 0.33)


def _whole(c: np.ndarray, area: float, side: float, s: float) -> Candidate:
    """A patch of several dice that could not be cut into whole dice: no crop, never read."""
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(c)
    corners = cv2.boxPoints(((cx, cy), (rw, rh), ang)) / s
    return Candidate(
        center=(cx / s, cy / s),
        size=float(max(rw, rh)) / s,
        angle=float(ang % 90),
        corners=tuple((float(x), float(y)) for x, y in corners),
        dice=float(area / side**2),
        aspect=float(max(rw, rh) / min(rw, rh)),
        fill=float(area / (rw * rh)),
    )


def _split(c: np.ndarray, side: float) -> list | None:
    """Touching dice cut apart: each die's core (the points farther than a share of a side from the
    patch's edge) is one die of the die's size, turned as its core is. The share rises until the cores
    account for the patch's area; None when they never do."""
    x, y, bw, bh = cv2.boundingRect(c)
    m = np.zeros((bh + 2, bw + 2), np.uint8)
    cv2.drawContours(m, [c - [x - 1, y - 1]], -1, 255, cv2.FILLED)
    dt = cv2.distanceTransform(m, cv2.DIST_L2, 3)
    want = cv2.contourArea(c) / side**2
    for core in CORES:
        n, labels, stats, _ = cv2.connectedComponentsWithStats((dt > core * side).astype(np.uint8))
        keep = [
            i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.01 * side**2
        ]  # not a bevel's sliver
        if not keep:
            continue
        # each pixel of the patch goes to its nearest core: the die's own part, its outline and turn
        seeds = np.isin(labels, keep)
        _, near = cv2.distanceTransformWithLabels(
            (~seeds).astype(np.uint8), cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_CCOMP
        )
        parts = []
        for i in keep:
            core_label = near[labels == i][0]
            pts = np.column_stack(np.nonzero((near == core_label) & (m > 0))[::-1]).astype(np.float32)
            (px, py), (pw, ph), ang = cv2.minAreaRect(pts)
            parts.append((len(pts) / side**2, (px + x - 1, py + y - 1), (pw, ph), ang))
        # the count the area says; or, as shadows and bevels between dice add area, any count of two or
        # more whose parts are each about one die (a wrong cut reads nothing: its parts are no faces)
        if len(parts) == max(1, round(want)) or (len(parts) >= 2 and max(p[0] for p in parts) < SEVERAL):
            return parts
    return _row(c, side, want)


def _row(c: np.ndarray, side: float, want: float) -> list | None:
    """Dice touching edge to edge in a row make one long rectangle without a neck: cut it in equal parts."""
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(c)
    k = max(1, round(want))
    long_, short = max(rw, rh), min(rw, rh)
    if k < 2 or abs(long_ / short - k) > 0.3 * k or not 0.75 <= short / side <= 1.3:
        return None
    a = np.radians(ang if rw >= rh else ang + 90)
    ux, uy = np.cos(a), np.sin(a)
    step = long_ / k
    return [
        (
            want / k,
            (cx + ux * step * (j - (k - 1) / 2), cy + uy * step * (j - (k - 1) / 2)),
            (step, short),
            ang,
        )
        for j in range(k)
    ]


def _crop(
    image: np.ndarray, filled: np.ndarray, s: float, c: tuple[float, float], side: float, angle: float
) -> tuple[np.ndarray, np.ndarray]:
    """The die's square upright in a CROP x CROP picture (full resolution), and its mask."""
    f = CROP / (side * CROP_MARGIN)
    m = cv2.getRotationMatrix2D(c, angle, f)
    m[0, 2] += CROP / 2 - c[0]
    m[1, 2] += CROP / 2 - c[1]
    crop = cv2.warpAffine(image, m, (CROP, CROP), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    mw = m.copy()
    mw[:, :2] = mw[:, :2] / s  # work pixels -> frame pixels first
    cmask = cv2.warpAffine(filled, mw, (CROP, CROP), flags=cv2.INTER_NEAREST)
    return crop, cmask
