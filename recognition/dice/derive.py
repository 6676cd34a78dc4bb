"""A camera's calibration from two pictures a technician takes in a minute: the empty tray, then dice at rest.

:func:`derive` works out, with nothing else to go on:

* the felt: its colour and brightness (the middle of the empty picture is felt; the felt is the region of
  that colour around it), and the tray's outline when its rim is in view (else the whole frame is tray);
* the dice: what differs between the two pictures, less shadows (a shadow only darkens the felt, keeping
  its colour), in connected regions; lone dice (square, solid) give the die size, larger regions are dice
  touching;
* the die colours: each die's body colour (its pips, darker or lighter than the body, left out), dice of
  like colour grouped, each group a :class:`DieColor` with ranges around what was seen.

The result is a :class:`Calibration` (the base calibration's other settings kept) and what was found, for
the technician's page to show. Pure: pictures in, values out; the studio stores and journals the result.
Limits: the two pictures must come from the camera unmoved under the same light; a die the colour of the
felt, or black on a black felt, does not stand out from it; dice all touching in one region give a size
only when their number is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .calibration import Calibration, DieColor, Exposure

#: a region is one lone die when its bounding square is this full and this square
_SOLID, _SQUARE = 0.7, 1.35
#: how far apart two dice's bodies may be and still be one colour: the angle between them (radians), and
#: their brightness ratio (the light falls off across the tray)
_SAME_HUE, _SAME_LIGHT = 0.12, 1.45
#: a die's outline over its upper face's side (the sides seen in perspective, the blur)
_OUTLINE = 1.1
#: a pixel this much darker than the felt (and of the felt's colour) is a die, not a shadow
_DARKER_THAN_SHADOW = 0.33
#: hue names (OpenCV hue 0-179, upper bounds)
_HUES = ((8, "red"), (19, "orange"), (35, "yellow"), (85, "green"), (100, "teal"), (130, "blue"),
         (150, "purple"), (166, "pink"), (180, "red"))  # fmt: skip


@dataclass(frozen=True)
class FoundDie:
    """One region of the difference: a lone die, or `count` dice touching."""

    center: tuple[float, float]
    corners: tuple[tuple[float, float], ...]
    side: float
    count: int
    color: str
    bgr: tuple[int, int, int]


@dataclass(frozen=True)
class Derivation:
    """What two pictures gave: the calibration, and what was found on the way (for the technician)."""

    calibration: Calibration
    felt_bgr: tuple[int, int, int]
    felt_value: int
    tray: list[tuple[float, float]] | None
    die_side: float
    dice: tuple[FoundDie, ...]
    swatches: tuple[tuple[str, tuple[int, int, int]], ...]  # each derived colour and its body BGR
    warnings: tuple[str, ...] = ()


def derive_calibration(empty_bgr: np.ndarray, dice_bgr: np.ndarray, **options: Any) -> Calibration:
    """The calibration :func:`derive` makes (its arguments as there)."""
    return derive(empty_bgr, dice_bgr, **options).calibration


def derive(
    empty_bgr: np.ndarray,
    dice_bgr: np.ndarray,
    *,
    expected: int | None = None,
    base: Calibration | None = None,
    camera: str | None = None,
    version: int = 1,
) -> Derivation:
    """Derive a calibration from a picture of the empty tray and one of dice at rest on it (same camera, same
    light). `expected`: how many dice lie there (checked, and used to size dice that all touch). `base`: the
    calibration whose other settings are kept. Raises ValueError saying what is wrong with the pictures."""
    for name, img in (("empty tray", empty_bgr), ("dice", dice_bgr)):
        if img is None or img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
            raise ValueError(f"the {name} picture is not a colour picture (BGR, 8 bits)")
    if empty_bgr.shape != dice_bgr.shape:
        raise ValueError(
            f"the two pictures differ in size ({empty_bgr.shape[1]}x{empty_bgr.shape[0]} and "
            f"{dice_bgr.shape[1]}x{dice_bgr.shape[0]}): take both with the same camera"
        )
    h, w = empty_bgr.shape[:2]
    warnings: list[str] = []
    felt_mask, tray = _felt_region(empty_bgr, warnings)
    inner = cv2.erode(felt_mask, np.ones((5, 5), np.uint8))
    felt_bgr = tuple(int(v) for v in np.median(empty_bgr[inner > 0], axis=0))
    empty_hsv = cv2.cvtColor(empty_bgr, cv2.COLOR_BGR2HSV)
    felt_value = int(np.median(empty_hsv[..., 2][inner > 0]))

    mask = _dice_mask(empty_bgr, dice_bgr, felt_mask)
    changed = float(np.count_nonzero(mask)) / max(1.0, float(np.count_nonzero(felt_mask)))
    if changed > 0.35:
        raise ValueError(
            f"{changed:.0%} of the tray differs between the two pictures: the camera or the light moved "
            "between them; take both again"
        )
    regions = _regions(_split_by_colour(mask, dice_bgr), min_area=max(40.0, w * h * 4e-5))
    if not regions:
        raise ValueError("no die stands out between the two pictures: were the dice on the tray?")
    side = _die_side(regions, expected)
    if side is None:
        raise ValueError(
            "the dice all touch one another: give the number of dice, or spread them apart and take the "
            "picture again"
        )
    colors, found, swatches = _colours(regions, side, dice_bgr, felt_value)
    total = sum(d.count for d in found)
    if expected is not None and total != expected:
        warnings.append(f"{total} dice found, {expected} expected: check the picture below")
    singles = [r["side"] for r in regions if r["single"]] or [side]
    die_size = (round(max(4.0, min(singles) * 0.85), 1), round(max(4.0, max(singles) * 1.15), 1))
    for c in colors:
        if _matches(c, empty_hsv[inner > 0], felt_value) > 0.2:
            warnings.append(f"the {c.name} dice look like the felt: the recognizer may take felt for dice")
    base = base or Calibration()
    cal = base.model_copy(
        update={
            "camera": camera if camera is not None else base.camera,
            "version": version,
            "frame_size": (w, h),
            "tray": tray,
            "colors": tuple(colors),
            "die_size": die_size,
            "exposure": Exposure(
                felt_value=(max(0, int(felt_value * 0.55)), min(255, int(felt_value * 1.45) + 10)),
                max_clipped=base.exposure.max_clipped,
            ),
            "note": f"derived from an empty tray and {total} dice",
        }
    )
    cal = Calibration.model_validate(cal.model_dump())  # the copy's values checked as a new one's are
    return Derivation(cal, felt_bgr, felt_value, tray, side, tuple(found), tuple(swatches), tuple(warnings))  # type: ignore[arg-type]


def _against(img: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """How each pixel compares with a reference colour (one, or one per pixel): (brightness ratio, angle
    between the two colours in radians). A shadow or an uneven light changes the ratio, not the angle."""
    x = img.astype(np.float32) + 4
    r = np.broadcast_to(np.asarray(ref, np.float32) + 4, x.shape)
    dot = (x * r).sum(axis=-1)
    nx, nr = np.sqrt((x * x).sum(axis=-1)), np.sqrt((r * r).sum(axis=-1))
    return nx / nr, np.arccos(np.clip(dot / (nx * nr), -1, 1))


def _felt_region(
    empty: np.ndarray, warnings: list[str]
) -> tuple[np.ndarray, list[tuple[float, float]] | None]:
    """The felt (a mask) and the tray's outline (None when the felt fills the frame): the middle of the
    picture is felt, and so is what has its colour (lit more or less) and joins it."""
    h, w = empty.shape[:2]
    smooth = cv2.GaussianBlur(cv2.medianBlur(empty, 5), (0, 0), 2)
    core = smooth[int(h * 0.4) : int(h * 0.6), int(w * 0.4) : int(w * 0.6)].reshape(-1, 3)
    felt = np.median(core, axis=0)
    ratio, angle = _against(smooth, felt)
    core_angle = _against(core, felt)[1]
    limit = float(np.percentile(core_angle, 99)) * 2 + 0.03
    near: np.ndarray = ((angle < limit) & (ratio > 0.45) & (ratio < 1.9)).astype(np.uint8) * 255
    k = max(3, round(min(w, h) * 0.012) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    near = cv2.morphologyEx(cv2.morphologyEx(near, cv2.MORPH_CLOSE, kernel), cv2.MORPH_OPEN, kernel)
    _n, labels, _stats, _ = cv2.connectedComponentsWithStats(near, connectivity=4)
    middle = labels[int(h * 0.4) : int(h * 0.6), int(w * 0.4) : int(w * 0.6)]
    ids, counts = np.unique(middle[middle > 0], return_counts=True)
    if not len(ids):
        warnings.append(
            "the middle of the empty picture is not one even felt: the whole frame is taken as tray"
        )
        return np.full((h, w), 255, np.uint8), None
    region = (labels == int(ids[np.argmax(counts)])).astype(np.uint8) * 255
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    filled = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(filled, hull, 255)
    area = float(np.count_nonzero(filled)) / (w * h)
    if area > 0.96:
        return filled, None
    if area < 0.15:
        warnings.append(
            f"the felt found covers only {area:.0%} of the picture: the whole frame is taken as tray"
        )
        return np.full((h, w), 255, np.uint8), None
    outline = cv2.approxPolyDP(hull, 0.01 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    return filled, [(float(x), float(y)) for x, y in outline]


def _dice_mask(empty: np.ndarray, dice: np.ndarray, felt: np.ndarray) -> np.ndarray:
    """Pixels of the felt where a die lies: their colour changed, or they got brighter, or far darker than a
    shadow makes them (a shadow only darkens: the same colour, less bright)."""
    a = cv2.GaussianBlur(empty, (0, 0), 1.2)
    b = cv2.GaussianBlur(dice, (0, 0), 1.2)
    ratio, angle = _against(b, a)
    inside = felt > 0
    v = angle[inside]
    med = float(np.median(v))
    turned = max(0.06, med + 8 * float(np.median(np.abs(v - med))))
    r = ratio[inside]
    rmed = float(np.median(r))
    if med > 0.1 or not 0.6 < rmed < 1.6:
        raise ValueError(
            "the tray's felt looks different in the two pictures: the camera or the light moved between "
            "them; take both again"
        )
    brighter = max(1.12, rmed + 8 * float(np.median(np.abs(r - rmed))))
    changed = (angle > turned) | (ratio > brighter) | (ratio < _DARKER_THAN_SHADOW)
    mask: np.ndarray = (changed & inside).astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    # pips and the dark seams between touching dice are holes in the die: fill them
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, -1)
    return filled


def _split_by_colour(mask: np.ndarray, bgr: np.ndarray) -> np.ndarray:
    """Cut apart touching dice of two colours (red against blue): in a region that is not one square die,
    its two main colours, when of different hues, each keep their own pixels."""
    out = mask.copy()
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if area < 200 or max(bw, bh) < 1.5 * min(bw, bh) and area > 0.75 * bw * bh:
            continue  # small, or square and solid: one die
        box = labels[y : y + bh, x : x + bw] == i
        px = bgr[y : y + bh, x : x + bw][box].astype(np.float32)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
        _, assign, centres = cv2.kmeans(px, 3, None, criteria, 2, cv2.KMEANS_PP_CENTERS)  # type: ignore[call-overload]
        share = np.bincount(assign.ravel(), minlength=3) / len(px)
        a, b = np.argsort(share)[::-1][:2]
        if (
            share[b] < 0.25
            or _against(centres[a].reshape(1, 3), centres[b].reshape(1, 3))[1][0] < 2 * _SAME_HUE
        ):
            continue
        # each pixel to the nearer of the two by hue (the shaded sides of a die keep its hue), pips filled in
        angles = np.stack([_against(px, centres[k])[1] for k in (a, b)])
        side = np.zeros(box.shape, np.uint8)
        side[box] = np.argmin(angles, axis=0).astype(np.uint8) + 1
        parts = np.zeros(box.shape, np.uint8)
        for k in (1, 2):
            part = cv2.morphologyEx((side == k).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            part = cv2.morphologyEx(
                part, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
            )
            parts |= cv2.erode(part, np.ones((3, 3), np.uint8)) & box.astype(np.uint8)
        out[y : y + bh, x : x + bw][box] = parts[box] * 255
    return out


def _regions(mask: np.ndarray, min_area: float) -> list[dict[str, Any]]:
    out = []
    n, labels, stats, _centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        if area < min_area:
            continue
        ys, xs = np.nonzero(labels == i)
        pts = np.column_stack([xs, ys]).astype(np.float32)
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(pts)
        rw, rh = max(rw, 1.0), max(rh, 1.0)
        solid, aspect = area / (rw * rh) > _SOLID, max(rw, rh) / min(rw, rh)
        single = solid and aspect < _SQUARE
        row = solid and not single and abs(aspect - round(aspect)) < 0.3 and round(aspect) <= 4
        box = cv2.boxPoints(((cx, cy), (rw, rh), angle))
        out.append(
            {
                "label": i,
                "labels": labels,
                "area": area,
                "single": single,
                "row": round(aspect) if row else 0,  # dice touching side by side in a row
                # the camera sees a strip of a die's sides beyond its upper face, and the blur: the upper
                # face is about a tenth smaller than the outline
                "side": min(rw, rh, float(np.sqrt(area / (round(aspect) if row else 1))) * 1.02) / _OUTLINE,
                "center": (float(cx), float(cy)),
                "corners": tuple((float(x), float(y)) for x, y in box),
            }
        )
    return out


def _die_side(regions: list[dict[str, Any]], expected: int | None) -> float | None:
    alone = [r for r in regions if r["single"]] or [r for r in regions if r["row"]]
    # a die's pips or edges alone (a die the colour of the felt) are small regions: size by the large ones
    largest = max((r["area"] for r in alone), default=0.0)
    singles = [r["side"] for r in alone if r["area"] >= 0.25 * largest]
    if singles:
        side = float(np.median(singles))
    elif expected:
        side = float(np.sqrt(sum(r["area"] for r in regions) / expected))
    else:
        return None
    # tiny specks are not dice (a speck of dust that moved), nor are long thin strips
    regions[:] = [r for r in regions if r["area"] > (0.4 * side) ** 2]
    for r in regions:
        r["count"] = 1 if r["single"] else r["row"] or max(1, round(r["area"] / (side * _OUTLINE) ** 2))
    return side


def _body_pixels(region: dict[str, Any], side: float, bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(body pixels, pip pixels), BGR, of one region, its edges left out: the pips are what is far from the
    region's middle colour (they cover a fifth of a face at most)."""
    m = (region["labels"] == region["label"]).astype(np.uint8)
    k = max(3, int(side * 0.16) | 1)
    core = cv2.erode(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    if np.count_nonzero(core) < 12:
        core = m
    px = bgr[core > 0].astype(np.float32)
    far = np.linalg.norm(px - np.median(px, axis=0), axis=1)
    body = px[far < 50]
    return (body if len(body) >= 8 else px), px[far >= 70]


def _luma(px: np.ndarray) -> np.ndarray:
    return px @ np.array([0.114, 0.587, 0.299], np.float32)


def _alike(a: np.ndarray, b: np.ndarray) -> bool:
    ratio, angle = _against(a.reshape(1, 3), b.reshape(1, 3))
    return bool(angle[0] < _SAME_HUE and 1 / _SAME_LIGHT < ratio[0] < _SAME_LIGHT)


def _name_of(bgr: np.ndarray) -> str:
    h, s, v = cv2.cvtColor(bgr.reshape(1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2HSV).reshape(3)
    return _name(None if s < 60 else float(h), float(v))


def _hue_stats(hues: np.ndarray) -> tuple[float, float]:
    """Circular centre and half-spread (OpenCV hue, 0-180)."""
    ang = hues.astype(np.float64) * (2 * np.pi / 180)
    centre = float(np.arctan2(np.sin(ang).mean(), np.cos(ang).mean())) % (2 * np.pi)
    off = (ang - centre + np.pi) % (2 * np.pi) - np.pi
    spread = float(np.percentile(np.abs(off), 90))
    return centre * 180 / (2 * np.pi), spread * 180 / (2 * np.pi)


def _name(hue: float | None, value: float) -> str:
    if hue is None:
        return "white" if value >= 150 else "grey" if value >= 80 else "black"
    return next(n for top, n in _HUES if hue < top)


def _colours(
    regions: list[dict[str, Any]], side: float, bgr: np.ndarray, felt_value: int
) -> tuple[list[DieColor], list[FoundDie], list[tuple[str, tuple[int, int, int]]]]:
    """Group the dice by body colour; one DieColor per group."""
    groups: list[dict[str, Any]] = []
    per_region: list[tuple[dict[str, Any], dict[str, Any], tuple[int, int, int]]] = []
    for r in regions:
        body, pips = _body_pixels(r, side, bgr)
        mean_bgr = np.median(body, axis=0).astype(np.uint8)
        named = _name_of(mean_bgr)
        # alike, or named alike: the light falls off across a tray, two dice of a colour differ by more
        group = next((g for g in groups if _alike(g["bgr"][0], mean_bgr) or g["named"] == named), None)
        if group is None:
            group = {"body": [], "pips": [], "bgr": [], "named": named}
            groups.append(group)
        group["body"].append(body)
        group["pips"].append(pips)
        group["bgr"].append(mean_bgr)
        per_region.append((r, group, (int(mean_bgr[0]), int(mean_bgr[1]), int(mean_bgr[2]))))
    colors, swatches, used = [], [], set()
    for g in groups:
        body_bgr, pips = np.concatenate(g["body"]), np.concatenate(g["pips"])
        body = cv2.cvtColor(body_bgr.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2HSV).reshape(-1, 3)
        sat, val = body[:, 1].astype(np.float32), body[:, 2].astype(np.float32)
        s_med, v_med = float(np.median(sat)), float(np.median(val))
        body_luma = float(np.median(_luma(body_bgr)))
        pips_dark = float(np.median(_luma(pips))) < body_luma if len(pips) >= 6 else body_luma >= 128
        if s_med < 60:  # white, grey, black: no hue
            name = _name(None, v_med)
            bright = v_med / max(1, felt_value)
            s95, v5, v95 = (float(np.percentile(a, q)) for a, q in ((sat, 95), (val, 5), (val, 95)))
            color = {
                "hue": None,
                "saturation": (0, int(min(255.0, s95 + 35))),
                "value": (int(v5 * 0.6), 255) if name != "black" else (0, int(min(255.0, v95 + 50))),
                "brightness": round(min(3.0, max(1.05, bright * 0.8)), 2) if bright > 1.3 else None,
            }
        else:
            centre, spread = _hue_stats(body[:, 0])
            name = _name(centre, v_med)
            half = max(8.0, spread * 1.6)
            s5, v5 = float(np.percentile(sat, 5)), float(np.percentile(val, 5))
            color = {
                "hue": (round(centre - half) % 180, round(centre + half) % 180),
                "saturation": (int(max(30.0, s5 * 0.7)), 255),
                "value": (int(max(20.0, v5 * 0.6)), 255),
            }
        unique, k = name, 2
        while unique in used:
            unique, k = f"{name}-{k}", k + 1
        used.add(unique)
        g["name"] = unique
        colors.append(DieColor(name=unique, pips="dark" if pips_dark else "light", **color))  # type: ignore[arg-type]
        swatch = np.median(np.array(g["bgr"]), axis=0)
        swatches.append((unique, (int(swatch[0]), int(swatch[1]), int(swatch[2]))))
    found = [
        FoundDie(r["center"], r["corners"], r["side"], r["count"], g["name"], c) for r, g, c in per_region
    ]
    return colors, found, swatches


def _matches(color: DieColor, hsv_pixels: np.ndarray, felt_value: int) -> float:
    """The share of felt pixels `color` would take for die body."""
    h, s, v = (hsv_pixels[:, i].astype(np.int32) for i in range(3))
    ok = (
        (s >= color.saturation[0])
        & (s <= color.saturation[1])
        & (v >= color.value[0])
        & (v <= color.value[1])
    )
    if color.hue is not None:
        lo, hi = color.hue
        ok &= ((h >= lo) & (h <= hi)) if lo <= hi else ((h >= lo) | (h <= hi))
    if color.brightness is not None:
        ok &= v >= color.brightness * felt_value
    return float(ok.mean()) if len(ok) else 0.0
