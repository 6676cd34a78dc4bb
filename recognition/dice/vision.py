"""Read dice at rest from one camera frame. Pure: numpy images in, a :class:`Reading` out.

This is the rule reader, the studio's default; :func:`read_dice` hands the frame to the learned reader
(:mod:`recognition.dice.learned`) when the calibration's ``reader`` or the call's ``reader=`` is "learned".

The pipeline (:func:`read_dice`), each step chosen to fail towards "uncertain", never
towards a wrong face:

1. **Region and scale.** Only the calibrated tray (plus a margin, to see dice that left
   it) is searched, scaled so that a die is about ``work_die_px`` pixels wide (40 by
   default): a 1280x720 frame with 64-pixel dice is read at 0.625 scale.
2. **Die bodies.** A 3x3 median removes sensor noise; each calibrated die colour is a
   hue/saturation/value box in HSV, and white dice must also be brighter than the felt
   around them (the felt's brightness is estimated at 1/8 scale with a wide median, so
   uneven light and shadows cancel out). Each blob's outline is filled, so the pips
   become part of the die.
3. **One die or several.** A blob's area is compared with the die area (calibrated, or
   the median of the square-looking blobs of this frame). Blobs of two or three dice
   that touch are cut along the line between two concave corners of their outline,
   the cut that leaves parts the size of whole dice; a blob that cannot be cut into
   whole dice is reported, never guessed.
4. **Flat or not.** A die must be square (a cocked die's top face is foreshortened),
   convex (a die resting on another shows the lower die's corners) and show no more of
   its sides than the camera's perspective explains: a band of die-coloured but darker
   pixels wider than ``max_side_band`` along an edge is the side face of a cocked die.
   Where that edge meets a neighbour (its bevel or side face may lie there too) a little
   more is allowed only for a 4, 5 or 6 whose pip grid is square across that edge: a
   tilted die's upper face, and so its pip grid, is foreshortened by cos(tilt) there. A side face
   lies along the whole edge: where a few of the walks out from an edge run on into another die,
   the walks that end at the felt judge that side. At an edge facing away from the middle of the
   picture a flat die shows no side face, only its bevel, which bears no pips: pips the walks step
   over there make the die cocked, however narrow the band.
5. **Pips.** Inside the die (its edge excluded), pixels far in colour from the die's
   median colour are pips: dark pips on white dice, white pips on red or blue dice, red
   ones on Asian dice alike. The threshold sits halfway between the body and the pips
   of this die. Pips must be round and alike in size.
6. **Layout.** The pips must sit where a die's pips sit: every face is point-symmetric,
   so their centroid is the die's centre; rotated into the die's frame they must match
   the face's pattern (1-6, both diagonals of 2 and 3, both orientations of 6) within a
   tolerance, after a rotation fit. Two merged pips, a missed pip or a stray spot break
   the pattern, and the die is unreadable instead of misread.
7. **Confidence** is the smallest of the per-check scores (layout residual, shape,
   pip uniformity, contrast, centre offset); the frame's confidence is the least sure
   die's. ``status`` is "ok" only when the expected number of dice is found, every die
   is flat, inside the tray and read with at least ``min_confidence``, and the exposure
   is within limits.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import cv2
import numpy as np

from .calibration import Calibration, DieColor, ReaderName
from .learned import read_dice_learned
from .reading import ISSUE_TEXT, DieReading, Issue, Reading

__all__ = ["ISSUE_TEXT", "DieReading", "Issue", "Reading", "read_dice"]

# Pip positions in die-side units, for each face (every face is point-symmetric about the centre).
_D = 0.25


def _layouts(d: float) -> dict[int, list[np.ndarray]]:
    return {
        1: [np.array([(0.0, 0.0)])],
        2: [np.array([(-d, -d), (d, d)]), np.array([(-d, d), (d, -d)])],
        3: [np.array([(-d, -d), (0, 0), (d, d)]), np.array([(-d, d), (0, 0), (d, -d)])],
        4: [np.array([(-d, -d), (d, -d), (-d, d), (d, d)])],
        5: [np.array([(-d, -d), (d, -d), (0, 0), (-d, d), (d, d)])],
        6: [
            np.array([(-d, -d), (-d, 0), (-d, d), (d, -d), (d, 0), (d, d)]),
            np.array([(-d, -d), (0, -d), (d, -d), (-d, d), (0, d), (d, d)]),
        ],
    }


LAYOUTS = _layouts(_D)
_PERMS = {n: np.array(list(itertools.permutations(range(n))), dtype=np.intp) for n in range(1, 7)}

# --------------------------------------------------------------------------- entry point


#: a rule reader's hold that `auto` keeps rather than ask the learned reader, with a calibration: a fault it
#: saw, not a die it could not read. The learned reader certifies up to 1 in 100 frames with a cocked die
#: (bench/dice_photos.py, --cocked) that the rule reader holds as cocked. Without a calibration the rule
#: reader measures a die's side band against a default camera and takes flat dice under a slanted one for
#: cocked (most real photographs), so there its hold is not taken for a fault seen.
AUTO_VETO = frozenset({"cocked", "stacked"})


def read_dice(
    image: np.ndarray,
    calibration: Calibration | None = None,
    expected: int | None = None,
    colors: Sequence[str] | None = None,
    *,
    reader: ReaderName | None = None,
) -> Reading:
    """Read the dice in one BGR frame.

    calibration: the camera's calibration (None: the whole frame, the default colours, sizes
        estimated from the frame).
    expected: how many dice were thrown (None: any number, at least one).
    colors: the colours the dice must have, one per die (e.g. ["red", "blue"]); None: any.
    reader: "rules" (this module's rule reader), "learned" (:mod:`recognition.dice.learned`) or "auto"
        (the rule reader's reading when it is "ok" or, with a calibration, holds the frame for a die it
        sees cocked or stacked; else the learned reader's); None: the calibration's ``reader``, "rules"
        without a calibration.
    """
    chosen = reader or (calibration.reader if calibration is not None else "rules")
    if chosen == "learned":
        return read_dice_learned(image, calibration, expected, colors)
    if chosen == "auto":
        first = read_dice(image, calibration, expected, colors, reader="rules")
        if first.ok or (calibration is not None and any(i.code in AUTO_VETO for i in first.issues)):
            return first
        return read_dice_learned(image, calibration, expected, colors)
    cal = calibration or Calibration()
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError("read_dice needs an 8-bit BGR image (height, width, 3)")
    h_full, w_full = image.shape[:2]
    if colors is not None:
        cal = cal.restricted_to(colors)
    scale_hint = None
    reading = None
    for _ in range(2):  # a second pass only when the die size had to be guessed and the guess was far off
        reading, estimated = _read(image, cal, expected, colors, scale_hint)
        if cal.die_size is not None or estimated is None:
            break
        work = estimated * (scale_hint if scale_hint is not None else _default_scale(cal, w_full, h_full))
        if 0.7 * cal.work_die_px <= work <= 1.45 * cal.work_die_px:
            break
        scale_hint = cal.work_die_px / estimated
    assert reading is not None
    return reading


def _default_scale(cal: Calibration, w: int, h: int) -> float:
    if cal.die_size is not None:
        return cal.work_die_px / ((cal.die_size[0] + cal.die_size[1]) / 2)
    return min(1.5, 800.0 / max(w, h)) * cal.work_die_px / 40.0


# --------------------------------------------------------------------------- the pipeline


@dataclass
class _Blob:
    color: DieColor
    contour: np.ndarray  # work pixels
    area: float
    mask: np.ndarray | None = None  # filled, in the bbox
    bbox: tuple[int, int, int, int] = (0, 0, 0, 0)  # x, y, w, h (work)
    label: int = 0  # its number in _Work.blob_labels


@dataclass
class _Work:
    """Everything about the frame at work scale."""

    bgr: np.ndarray
    hsv: np.ndarray
    felt_v: np.ndarray | None  # the felt's brightness around each pixel (only for colours that need it)
    scale: float
    offset: tuple[int, int]  # the work image's origin in frame pixels
    tray: np.ndarray | None  # work pixels
    strong: dict[str, np.ndarray]  # colour name -> body mask
    weak: dict[str, np.ndarray]  # colour name -> lenient body mask (side faces, shade)
    principal: tuple[float, float] = (0.0, 0.0)  # the middle of the camera frame, work pixels
    felt_mask: np.ndarray | None = None  # the tray (work pixels), None: everything
    tops: np.ndarray | None = None  # the dice's brightest flat parts (upper faces, lit side faces), all blobs
    faces: np.ndarray | None = None  # of those, the square ones (filled): upper faces
    face_labels: np.ndarray | None = None  # the same, one label per face
    face_hulls: list[np.ndarray] = field(default_factory=list)  # the same, as outlines (work pixels)
    dice_box: tuple[int, int, int, int] = (0, 0, 0, 0)  # x0, y0, x1, y1 around every blob, plus a die
    felt_s: int | None = None  # the felt's median saturation
    blob_labels: np.ndarray | None = None  # each blob's filled shape, labelled (work pixels)
    die_blobs: np.ndarray = field(
        default_factory=lambda: np.zeros(256, bool)
    )  # by label: holds an upper face
    planes: tuple[np.ndarray, ...] = ()  # hsv's hue, saturation and value, each on its own
    full: np.ndarray | None = None  # the frame's region at full resolution (work pixels / scale)

    @property
    def v(self) -> np.ndarray:
        return self.planes[2]

    def to_frame(self, pts: np.ndarray) -> np.ndarray:
        return pts / self.scale + np.array(self.offset, np.float64)


def _read(
    image: np.ndarray,
    cal: Calibration,
    expected: int | None,
    colors: Sequence[str] | None,
    scale_hint: float | None,
) -> tuple[Reading, float | None]:
    h_full, w_full = image.shape[:2]
    scale = scale_hint if scale_hint is not None else _default_scale(cal, w_full, h_full)
    scale = float(min(scale, 2.0))
    k = round(1.0 / scale)
    if k >= 2 and abs(1.0 / k - scale) <= 0.07 * scale:
        scale = 1.0 / k  # a whole-number reduction is pixel averaging, fast and clean
    # region: the tray plus a margin, or the whole frame
    tray_frame = np.array(cal.tray, np.float64) if cal.tray else None
    if tray_frame is not None and cal.frame_size is not None and tuple(cal.frame_size) != (w_full, h_full):
        fx, fy = w_full / cal.frame_size[0], h_full / cal.frame_size[1]
        tray_frame = tray_frame * np.array((fx, fy))
    if tray_frame is not None:
        die_guess = cal.die_size[1] if cal.die_size else cal.work_die_px / scale
        margin = cal.search_margin * die_guess
        x0 = int(max(0, math.floor(tray_frame[:, 0].min() - margin)))
        y0 = int(max(0, math.floor(tray_frame[:, 1].min() - margin)))
        x1 = int(min(w_full, math.ceil(tray_frame[:, 0].max() + margin)))
        y1 = int(min(h_full, math.ceil(tray_frame[:, 1].max() + margin)))
    else:
        x0, y0, x1, y1 = 0, 0, w_full, h_full
    roi = image[y0:y1, x0:x1]
    bgr = _rescale(roi, scale)
    # actual scale after rounding (x and y differ by < 0.1 %)
    scale = bgr.shape[1] / roi.shape[1]
    bgr = cv2.medianBlur(bgr, 3)
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    planes = tuple(cv2.split(hsv))  # OpenCV copies a channel of `hsv` on every call that is given one
    v = planes[2]
    tray_work = (tray_frame - (x0, y0)) * scale if tray_frame is not None else None
    felt_mask = None
    if tray_work is not None:  # the rim around the tray is not felt: keep it out of the felt's estimate
        felt_mask = np.zeros(v.shape, np.uint8)
        cv2.fillPoly(felt_mask, [np.round(tray_work).astype(np.int32)], 255)
        if cv2.countNonZero(felt_mask) < 100:
            felt_mask = None
    need_felt = any(c.brightness is not None for c in cal.colors)
    felt_v, felt_level, felt_sat = _felt_estimates(planes, cal.work_die_px, felt_mask, need_felt)

    work = _Work(
        bgr,
        hsv,
        felt_v,
        scale,
        (x0, y0),
        tray_work,
        {},
        {},
        principal=((w_full / 2 - x0) * scale, (h_full / 2 - y0) * scale),
        felt_mask=felt_mask,
        planes=planes,
        full=roi,
    )
    issues: list[Issue] = []
    work.felt_s = felt_sat
    clipped = float(cv2.countNonZero(cv2.compare(v, 249, cv2.CMP_GT))) / v.size  # type: ignore[call-overload]
    lo, hi = cal.exposure.felt_value
    if not lo <= felt_level <= hi or clipped > cal.exposure.max_clipped:
        what = "too dark" if felt_level < lo else "too bright"
        issues.append(
            Issue(
                "exposure",
                f"the picture is {what} (felt brightness {felt_level:.0f}, {clipped:.1%} burnt out)",
            )
        )

    blobs = _find_blobs(work, cal)
    die_px = _die_side(blobs, cal, scale, expected)
    estimated = die_px / scale if cal.die_size is None and die_px is not None else None
    dice: list[DieReading] = []
    if die_px is not None:
        dice, more = _dice_from_blobs(work, blobs, cal, die_px, w_full, h_full)
        dice = _neighbours_of_vouched(dice)
        issues += more
    # count and colour checks
    if expected is not None:
        found = len(dice)
        if found < expected and not any(i.code in ("touching", "stacked") for i in issues):
            issues.append(
                Issue(
                    "missing",
                    f"{expected - found} of {expected} dice not found"
                    if expected - found > 1
                    else f"a die is missing: found {found} of {expected}",
                )
            )
        elif found > expected:
            issues.append(Issue("extra", f"found {found} dice, expected {expected}"))
    elif not dice:
        issues.append(Issue("missing", "no die found"))
    if colors is not None and len(dice) == len(colors) and sorted(d.color for d in dice) != sorted(colors):
        issues.append(
            Issue(
                "colors",
                "the dice are "
                + ", ".join(sorted(d.color for d in dice))
                + "; expected "
                + ", ".join(sorted(colors)),
            )
        )
    for i, d in enumerate(dice):
        if d.problem:
            issues.append(Issue(d.problem, _die_words(d), die=i, where=d.center))
        elif d.confidence < cal.min_confidence:
            issues.append(
                Issue(
                    "low_confidence",
                    f"the {d.color} die at ({d.center[0]:.0f}, {d.center[1]:.0f}) "
                    f"reads {d.face} only {d.confidence:.0%} sure",
                    die=i,
                    where=d.center,
                )
            )
    confidence = min((d.confidence for d in dice), default=0.0)
    status = "ok" if not issues and dice else "uncertain"
    tray_out = tuple((float(x), float(y)) for x, y in tray_frame) if tray_frame is not None else None
    reading = Reading(
        status=status,
        dice=tuple(dice),
        issues=tuple(_dedupe(issues)),
        expected=expected,
        confidence=float(round(confidence, 4)),
        size=(w_full, h_full),
        tray=tray_out,
        die_size=(die_px / scale) if die_px else None,
        felt_value=felt_level,
    )
    return reading, estimated


def _dedupe(issues: list[Issue]) -> list[Issue]:
    seen: set[tuple[str, str]] = set()
    out = []
    for i in issues:
        if (i.code, i.message) not in seen:
            seen.add((i.code, i.message))
            out.append(i)
    return out


def _die_words(d: DieReading) -> str:
    where = f"at ({d.center[0]:.0f}, {d.center[1]:.0f})"
    text = ISSUE_TEXT.get(d.problem or "", d.problem or "")
    return f"{text}: the {d.color} die {where}"


def _rescale(img: np.ndarray, f: float) -> np.ndarray:
    """Resize by f: whole-number reductions by pixel averaging (fast in OpenCV), the rest bilinear."""
    k = int(1.0 / f + 1e-9) if f < 1 else 1
    if k >= 2:
        h, w = img.shape[:2]
        img = cv2.resize(
            img[: h - h % k, : w - w % k], ((w - w % k) // k, (h - h % k) // k), interpolation=cv2.INTER_AREA
        )
        f *= k
    if abs(f - 1.0) < 1e-3:
        return np.ascontiguousarray(img)
    h, w = img.shape[:2]
    return cv2.resize(img, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_LINEAR)


def _median_u8(img: np.ndarray, mask: np.ndarray | None = None) -> int:
    """Median of an 8-bit image (under a mask) from its histogram: far faster than sorting."""
    return _percentile_u8(img, mask, 0.5)


def _percentile_u8(img: np.ndarray, mask: np.ndarray | None, q: float) -> int:
    hist = cv2.calcHist([img], [0], mask, [256], [0, 256]).ravel()
    cum = np.cumsum(hist)
    return int(np.searchsorted(cum, cum[-1] * q))


def _felt_estimates(
    planes: Sequence[np.ndarray], die_px: float, felt_mask: np.ndarray | None, full: bool
) -> tuple[np.ndarray | None, int, int]:
    """The felt around every pixel (its brightness, at work size, when `full`), and the felt's overall
    median brightness and saturation.

    Measured at 1/8 scale with a median about three dice wide, so the dice are outvoted; outside
    `felt_mask` (the rim around the tray) the felt is continued from the inside (a normalised blur of
    the inside's median), so neither the rim nor the dice near it leak into the felt near the rim.
    """
    h, w = planes[0].shape[:2]
    sw, sh = max(1, w // 8), max(1, h // 8)

    def shrink(channel: int) -> np.ndarray:
        c = planes[channel]
        return cv2.resize(
            c[: sh * 8, : sw * 8] if w >= 8 and h >= 8 else c, (sw, sh), interpolation=cv2.INTER_AREA
        )

    sv, ss = shrink(2), shrink(1)
    inside = None
    if felt_mask is not None:
        fm = cv2.resize(
            felt_mask[: sh * 8, : sw * 8] if w >= 8 and h >= 8 else felt_mask,
            (sw, sh),
            interpolation=cv2.INTER_AREA,
        )
        inside = (fm >= 128).astype(np.uint8)
        if not cv2.countNonZero(inside):
            inside = None
    level_v = _median_u8(sv, inside)
    level_s = _median_u8(ss, inside)
    if not full:
        return None, level_v, level_s
    k = int(die_px * 3 / 8) | 1
    km = max(
        3, min(k, (min(sw, sh) - 1) | 1 if min(sw, sh) > 3 else 3)
    )  # the median's window, within the picture
    if inside is not None and cv2.countNonZero(inside) < inside.size:
        # the felt over the rim is continued from a median of the inside (the rim first set to the felt's level),
        # not from the inside's mean: dice near the rim brighten a mean, and the brightened rim then outvotes the
        # felt near it (a white die's grey side face beside the rim passed for felt: Sic Bo fault seed 299)
        # ... and the rim cells are first set to the felt near them (the nearby inside cells, dice left out), not
        # to the felt's overall level: under uneven light a corner's felt may be half as bright as the middle's,
        # and the level then outvoted it (a white die's grey side face there passed for felt: Sic Bo fault seed
        # 399 frame 74)
        kk = (2 * k + 1, 2 * k + 1)
        plain = (inside > 0) & (sv <= _DIE_CELL * level_v)
        near = _masked_mean(sv, plain, kk, level_v)
        rim = np.where(inside > 0, sv, np.clip(near, 0, 255)).astype(np.uint8)
        robust = cv2.medianBlur(rim, km) if min(sw, sh) >= 3 else sv
        fill = _masked_mean(robust, inside, kk, level_v)
        sv = np.where(inside > 0, sv, np.clip(fill, 0, 255)).astype(np.uint8)
    if min(sw, sh) >= 3:
        # a median three dice wide lags behind light that falls steeply (into a dim corner of the tray: felt 30
        # by the dice, 47 as the median had it, so a white die's grey side face there passed for felt: Sic Bo
        # fault seed 473 frame 287). A smooth light field fitted to the whole felt follows such a fall, and
        # shadows, far off it, do not pull it down (they are the dice's, not the light's): it may lower the
        # median's estimate, to `_FELT_FLOOR` of it at most
        med = cv2.medianBlur(sv, km)
        fit = _light_fit(sv, inside, level_v)
        sv = (
            med
            if fit is None
            else np.minimum(med, np.maximum(fit, med * np.float32(_FELT_FLOOR))).astype(np.uint8)
        )
    return cv2.resize(sv, (w, h), interpolation=cv2.INTER_LINEAR), level_v, level_s


def _light_fit(sv: np.ndarray, inside: np.ndarray | None, level: int) -> np.ndarray | None:
    """A smooth light field (a quadratic surface in x and y) fitted to the felt cells (every second one each way),
    dice and shadows left out (cells more than `_FIT_BAND` off the fit), or None when too few cells are left."""
    h, w = sv.shape
    ys, xs = (
        np.arange(0, h, 2, dtype=np.float64) / max(h - 1, 1),
        np.arange(0, w, 2, dtype=np.float64) / max(w - 1, 1),
    )
    yy, xx = np.meshgrid(ys, xs, indexing="ij")
    A = np.stack([np.ones_like(xx), xx, yy, xx * xx, xx * yy, yy * yy], axis=-1).reshape(-1, 6)
    v = sv[::2, ::2].reshape(-1).astype(np.float64)
    ok = v <= _DIE_CELL * level
    if inside is not None:
        ok &= inside[::2, ::2].reshape(-1) > 0
    keep = ok
    coef = None
    for _ in range(4):
        if np.count_nonzero(keep) < 30:
            return None
        Ak = A[keep]
        try:
            coef = np.linalg.solve(Ak.T @ Ak, Ak.T @ v[keep])
        except np.linalg.LinAlgError:
            return None
        ratio = v / np.maximum(A @ coef, 1.0)
        keep = ok & (ratio > 1 - _FIT_BAND) & (ratio < 1 + _FIT_BAND)
    c0, cx, cy, cxx, cxy, cyy = coef  # type: ignore[misc]
    y = (np.arange(h, dtype=np.float32) / max(h - 1, 1))[:, None]
    x = (np.arange(w, dtype=np.float32) / max(w - 1, 1))[None, :]
    return np.clip(c0 + cx * x + cy * y + cxx * x * x + cxy * x * y + cyy * y * y, 0, 255).astype(np.float32)


_FIT_BAND = 0.15  # felt cells further off the fitted light than this share are dice or shadows
_FELT_FLOOR = 0.8  # the least share of the median's felt estimate the fitted light may set it to


def _masked_mean(values: np.ndarray, mask: np.ndarray, kk: tuple[int, int], default: float) -> np.ndarray:
    """The mean of `values` over the cells of `mask` within a `kk` window around each cell (`default` where the
    window holds none)."""
    weight = mask.astype(np.float32)
    num = cv2.boxFilter(values.astype(np.float32) * weight, -1, kk, normalize=False)
    den = cv2.boxFilter(weight, -1, kk, normalize=False)
    return np.where(den > 0, num / np.maximum(den, 1e-6), default)


def _color_mask(
    planes: Sequence[np.ndarray],
    felt_v: np.ndarray | None,
    c: DieColor,
    *,
    lenient: bool,
    felt_s: int | None = None,
) -> np.ndarray:
    """The pixels in the colour's hue/saturation/value box (hsv `planes`), each channel tested on its own
    (faster than testing the three at once, and the same pixels)."""
    hue, sat, val = planes
    s_lo, s_hi = c.saturation
    v_lo, v_hi = c.value
    if lenient:  # side faces and shaded parts of a die of this colour
        s_lo = int(s_lo * 0.7)
        v_lo = int(v_lo * 0.55)
    m: np.ndarray = cv2.inRange(sat, s_lo, s_hi)
    m &= cv2.inRange(val, v_lo, v_hi)
    if c.hue is not None and c.hue[0] <= c.hue[1]:
        m &= cv2.inRange(hue, c.hue[0], c.hue[1])
    elif c.hue is not None:  # the box wraps through hue 0 (red)
        m &= cv2.inRange(hue, c.hue[0], 180) | cv2.inRange(hue, 0, c.hue[1])  # type: ignore[operator]
    if c.brightness is not None and felt_v is not None:
        k = c.brightness if not lenient else 1 + (c.brightness - 1) * 0.55
        thr = cv2.convertScaleAbs(felt_v, alpha=k)
        bright: np.ndarray = cv2.compare(val, thr, cv2.CMP_GT)
        if lenient and felt_s is not None and felt_s > 80:
            # on a coloured felt a shaded white face is told by its lack of colour, not its brightness
            greyer: np.ndarray = cv2.compare(sat, int(felt_s * 0.45), cv2.CMP_LT)  # type: ignore[call-overload]
            greyer &= cv2.compare(val, cv2.convertScaleAbs(felt_v, alpha=0.8), cv2.CMP_GT)
            bright |= greyer
        m &= bright
    return m


_DIE_CELL = 1.3  # a felt cell (1/8 scale) brighter than this many times the felt's level holds a die


_K3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
_K5 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))


def _find_blobs(work: _Work, cal: Calibration) -> list[_Blob]:
    blobs: list[_Blob] = []
    min_area = (cal.work_die_px * 0.3) ** 2
    for c in cal.colors:
        m = _color_mask(work.planes, work.felt_v, c, lenient=False)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, _K3)
        work.strong[c.name] = m
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for cnt in contours:
            area = cv2.contourArea(cnt)
            if area < min_area:
                continue
            x, y, w, h = cv2.boundingRect(cnt)
            mask = np.zeros((h, w), np.uint8)
            cv2.drawContours(mask, [cnt - (x, y)], -1, 255, cv2.FILLED)
            blobs.append(_Blob(c, cnt, float(cv2.countNonZero(mask)), mask, (x, y, w, h)))
    # a region claimed by two colours (a hue between two boxes) keeps the larger blob only
    blobs.sort(key=lambda b: -b.area)
    kept: list[_Blob] = []
    for b in blobs:
        if any(k.color.name != b.color.name and _overlap_fraction(k, b) > 0.3 for k in kept):
            continue
        kept.append(b)
    work.blob_labels = np.zeros(work.hsv.shape[:2], np.uint8)
    for j, b in enumerate(kept[:255]):
        b.label = j + 1
        cv2.drawContours(work.blob_labels, [b.contour], -1, b.label, cv2.FILLED)  # as its mask was drawn
    if kept:
        margin = int(cal.work_die_px)
        H, W = work.hsv.shape[:2]
        work.dice_box = (
            max(0, min(b.bbox[0] for b in kept) - margin),
            max(0, min(b.bbox[1] for b in kept) - margin),
            min(W, max(b.bbox[0] + b.bbox[2] for b in kept) + margin),
            min(H, max(b.bbox[1] + b.bbox[3] for b in kept) + margin),
        )
    # upper faces: within each blob, the pixels at least 85 % as bright as its brightest body pixels;
    # bevelled edges and side faces are darker, so touching dice show apart here
    # (the brightest is taken locally, within about a die: the light changes across a group of dice)
    work.tops = np.zeros(work.hsv.shape[:2], np.uint8)
    reach = max(3, round(cal.work_die_px * 0.8) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (reach, reach))
    for b in kept:
        x, y, w, h = b.bbox
        v = work.v[y : y + h, x : x + w]
        body = _inner_body(work, b.color.name, b.mask, x, y)  # type: ignore[arg-type]
        if cv2.countNonZero(body) < 10:
            continue
        local = cv2.dilate(cv2.bitwise_and(v, body), kernel)
        top = cv2.compare(v.astype(np.float32), local.astype(np.float32) * 0.85, cv2.CMP_GE)
        top = cv2.bitwise_and(top, b.mask)  # type: ignore[arg-type]
        top = cv2.morphologyEx(top, cv2.MORPH_OPEN, _K3)
        filled = np.zeros_like(top)  # dark pips are holes in a face: fill them, then cut thin bridges
        cv2.drawContours(
            filled, cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0], -1, 255, cv2.FILLED
        )
        top = cv2.morphologyEx(filled, cv2.MORPH_OPEN, _K5)
        region = work.tops[y : y + h, x : x + w]
        np.maximum(region, top, out=region)
    # of those, the ones shaped like a die's upper face (a lit side face of a cocked die is a narrow strip),
    # each grown again with its own brightness (a brighter neighbour may have cut it short)
    work.faces = np.zeros_like(work.tops)
    work.face_labels = np.zeros(
        work.tops.shape, np.uint16
    )  # half the memory of int32 to clear: measurably faster
    work.face_hulls = []
    filled = np.zeros_like(work.tops)
    for b in kept:
        x, y, w, h = b.bbox
        region = filled[y : y + h, x : x + w]
        np.maximum(region, b.mask, out=region)  # type: ignore[arg-type]
    H, W = work.tops.shape  # type: ignore[misc]
    s = (
        float(cal.work_die_px)
        if cal.die_size is None
        else (cal.die_size[0] + cal.die_size[1]) / 2 * work.scale
    )
    r = max(1, round(0.25 * s))
    near = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    body_all = np.zeros_like(work.tops)
    for m in work.strong.values():
        body_all |= m
    body_all = cv2.erode(body_all, _K3)
    contours = _separate_faces(work.tops, s, work.v)
    labels = np.zeros(work.tops.shape, np.uint16 if len(contours) < 65535 else np.int32)
    for i, face in enumerate(contours):
        if (
            cv2.contourArea(face) >= 0.3 * s * s
        ):  # a strip of a face split by its pips does not stop the face's growth
            cv2.drawContours(labels, [face], -1, i + 1, cv2.FILLED)
    for i, face in enumerate(contours):
        if cv2.contourArea(face) < 0.3 * s * s:
            continue
        bx, by, bw, bh = cv2.boundingRect(face)
        x0, y0, x1, y1 = (
            max(0, bx - r - 1),
            max(0, by - r - 1),
            min(W, bx + bw + r + 1),
            min(H, by + bh + r + 1),
        )
        cm = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(cm, [face - (x0, y0)], -1, 255, cv2.FILLED)
        v = work.v[y0:y1, x0:x1]
        own = cv2.bitwise_and(body_all[y0:y1, x0:x1], cm)
        if cv2.countNonZero(own) >= 10:
            thr = 0.87 * _percentile_u8(v, own, 0.9)
            grown = cv2.bitwise_and(cv2.compare(v, thr, cv2.CMP_GE), cv2.dilate(cm, near))  # type: ignore[call-overload]
            grown = cv2.bitwise_and(grown, filled[y0:y1, x0:x1])
            lab = labels[y0:y1, x0:x1]
            others = ((lab > 0) & (lab != i + 1)).astype(
                np.uint8
            ) * 255  # a face does not grow into its neighbour's
            grown = cv2.bitwise_and(grown, cv2.bitwise_not(cv2.dilate(others, _K3)))
            grown = cv2.morphologyEx(grown, cv2.MORPH_OPEN, _K3) | cm
            gc, _ = cv2.findContours(grown, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            face = max(gc, key=cv2.contourArea) + (x0, y0)
        (_, _), (rw, rh), _ = cv2.minAreaRect(face)
        if rw <= 0 or rh <= 0 or min(rw, rh) / max(rw, rh) < 0.78:
            continue  # not square: a lit side face, or a face too hidden to be sure of
        _add_face(work, cv2.convexHull(face))
    _gather_fragments(work, s, filled, body_all)
    return kept


def _add_face(work: _Work, hull: np.ndarray) -> None:
    """An upper face found: drawn into the faces (each its own label), and the blob it lies in marked as a die
    (a cocked die's side face, even a lit one cut off by its bevel, is never square, so never one)."""
    assert work.faces is not None and work.face_labels is not None and work.blob_labels is not None
    work.face_hulls.append(hull)
    if len(work.face_hulls) == 65536:  # more faces than 16-bit labels hold (never in a picture of dice)
        work.face_labels = work.face_labels.astype(np.int32)
    cv2.drawContours(work.faces, [hull], -1, 255, cv2.FILLED)
    cv2.drawContours(work.face_labels, [hull], -1, len(work.face_hulls), cv2.FILLED)
    m = cv2.moments(hull)
    if m["m00"] > 0:
        H, W = work.blob_labels.shape
        cx, cy = int(m["m10"] / m["m00"]), int(m["m01"] / m["m00"])
        if 0 <= cy < H and 0 <= cx < W and work.blob_labels[cy, cx] > 0:
            work.die_blobs[work.blob_labels[cy, cx]] = True


def _gather_fragments(work: _Work, s: float, filled: np.ndarray, body_all: np.ndarray) -> None:
    """Upper faces that fell apart: a 6 (or 4, 5) whose pips come close to its edge, a little dimmer than a
    brighter neighbour nearby, keeps only strips between its rows of pips above the bar. The strips no face
    took, taken together, are grown with their own brightness; what comes out square and the size of a face
    is an upper face too (a side face of a tilted die is never square: at most sin 45 deg of a die wide)."""
    assert work.tops is not None and work.faces is not None and work.face_labels is not None
    taken = cv2.dilate(work.faces, _K3)
    rest = cv2.bitwise_and(work.tops, cv2.bitwise_not(taken))
    if cv2.countNonZero(rest) < 0.1 * s * s:
        return
    H, W = rest.shape
    g = max(1, round(0.12 * s))  # strips of one face lie a row of pips apart
    join = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1))
    r = max(1, round(0.35 * s))
    near = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(cv2.dilate(rest, join), connectivity=8)
    for i in range(1, n):
        bx, by, bw, bh = (int(v) for v in stats[i, :4])
        x0, y0, x1, y1 = (
            max(0, bx - r - 1),
            max(0, by - r - 1),
            min(W, bx + bw + r + 1),
            min(H, by + bh + r + 1),
        )
        seed = cv2.bitwise_and(rest[y0:y1, x0:x1], np.where(lab[y0:y1, x0:x1] == i, 255, 0).astype(np.uint8))
        if cv2.countNonZero(seed) < 0.1 * s * s:
            continue
        own = cv2.bitwise_and(body_all[y0:y1, x0:x1], seed)
        if cv2.countNonZero(own) < 10:
            continue
        v = work.v[y0:y1, x0:x1]
        thr = 0.87 * _percentile_u8(v, own, 0.9)
        grown = cv2.bitwise_and(cv2.compare(v, thr, cv2.CMP_GE), cv2.dilate(seed, near))  # type: ignore[call-overload]
        grown = cv2.bitwise_and(grown, filled[y0:y1, x0:x1])
        grown = cv2.bitwise_and(grown, cv2.bitwise_not(taken[y0:y1, x0:x1]))
        grown = cv2.morphologyEx(grown, cv2.MORPH_OPEN, _K3) | seed  # type: ignore[operator]
        grown = cv2.morphologyEx(grown, cv2.MORPH_CLOSE, join)  # the rows of pips between the strips
        gc, _ = cv2.findContours(grown, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not gc:
            continue
        c = max(gc, key=cv2.contourArea)
        hull = cv2.convexHull(c)
        area = cv2.contourArea(hull)
        (_, _), (rw, rh), _ = cv2.minAreaRect(c)
        if not 0.55 * s * s <= area <= 1.1 * s * s or rw <= 0 or rh <= 0 or min(rw, rh) / max(rw, rh) < 0.78:
            continue
        _add_face(work, hull + (x0, y0))
        taken = cv2.dilate(work.faces, _K3)


def _separate_faces(tops: np.ndarray, s: float, v: np.ndarray) -> list[np.ndarray]:
    """The outlines of the bright regions; a region the size of two or three faces joined by a thin neck
    (two dice side by side) is eroded until it falls apart, and its pieces grown back within it."""
    out: list[np.ndarray] = []
    face = 0.7 * s * s
    for c in cv2.findContours(tops, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]:
        area = cv2.contourArea(c)
        (_, _), (rw, rh), _ = cv2.minAreaRect(c)
        if area < 1.5 * face or (
            rw > 0 and rh > 0 and min(rw, rh) / max(rw, rh) >= 0.78 and area < 1.6 * face
        ):
            out.append(c)
            continue
        x, y, w, h = cv2.boundingRect(c)
        m = np.zeros((h + 2, w + 2), np.uint8)
        cv2.drawContours(m, [c - (x - 1, y - 1)], -1, 255, cv2.FILLED)
        pieces = None
        e: np.ndarray = m
        for k in range(1, max(2, int(0.12 * s)) + 1):
            e = cv2.erode(e, _K3)
            cs = [
                p
                for p in cv2.findContours(e, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
                if cv2.contourArea(p) >= 0.25 * face
            ]
            if len(cs) >= 2:
                pieces = []
                for p in cs:
                    pm: np.ndarray = np.zeros_like(m)
                    cv2.drawContours(pm, [p], -1, 255, cv2.FILLED)
                    pm = cv2.bitwise_and(cv2.dilate(pm, _K3, iterations=k), m)
                    pc = cv2.findContours(pm, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
                    pieces.append(max(pc, key=cv2.contourArea) + (x - 1, y - 1))
                break
        if pieces is None:
            pieces = _split_by_distance(m, s, (x - 1, y - 1))
        if pieces is None:
            pieces = _split_at_valley(m, v, s, (x - 1, y - 1))
        out += pieces if pieces else [c]
    return out


def _split_by_distance(m: np.ndarray, s: float, offset: tuple[int, int]) -> list[np.ndarray] | None:
    """Faces joined along a wide stretch (two dice side by side, edges offset) do not fall apart by erosion:
    their middles are the peaks of the distance to the region's edge. Cut there (every pixel to the nearest
    middle), or None."""
    dist = cv2.distanceTransform(m, cv2.DIST_L2, 3)
    top = float(dist.max())
    if top < 0.2 * s:
        return None
    for frac in (0.55, 0.65, 0.75):
        seeds = (dist > frac * top).astype(np.uint8)
        n, lab, stats, _ = cv2.connectedComponentsWithStats(seeds, connectivity=8)
        big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.02 * s * s]
        if len(big) < 2:
            continue
        # every pixel of the region to the nearest middle
        near = np.stack(
            [cv2.distanceTransform(np.where(lab == i, 0, 255).astype(np.uint8), cv2.DIST_L2, 3) for i in big]
        )
        owner = np.argmin(near, axis=0)
        pieces = []
        for j in range(len(big)):
            pm: np.ndarray = np.where((owner == j) & (m > 0), 255, 0).astype(np.uint8)
            pm = cv2.morphologyEx(pm, cv2.MORPH_OPEN, _K3)
            pc = cv2.findContours(pm, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
            if pc:
                pieces.append(max(pc, key=cv2.contourArea) + offset)
        if len(pieces) >= 2:
            return pieces
    return None


def _split_at_valley(
    m: np.ndarray, v: np.ndarray, s: float, offset: tuple[int, int]
) -> list[np.ndarray] | None:
    """Two faces side by side with their edges in line show neither a neck nor two middles; under light so
    strong that the faces are burnt out, the seam between them stays above the 85 % bar (0.89 of the faces on
    Sic Bo seed 37 frame 1311). Within the region, the pixels at least `_VALLEY_BAR` as bright as its brightest
    fall apart at that seam (eroded like a neck); every pixel of the region goes to the nearest piece, or None."""
    x0, y0 = offset
    H, W = v.shape
    v = np.pad(
        v[max(0, y0) : y0 + m.shape[0], max(0, x0) : x0 + m.shape[1]],
        ((max(0, -y0), max(0, y0 + m.shape[0] - H)), (max(0, -x0), max(0, x0 + m.shape[1] - W))),
    )
    inside = m > 0
    bar = _VALLEY_BAR * float(np.percentile(v[inside], 90))
    e = cv2.morphologyEx(np.where(inside & (v >= bar), 255, 0).astype(np.uint8), cv2.MORPH_OPEN, _K3)
    face = 0.7 * s * s
    for _ in range(max(2, int(0.12 * s)) + 1):
        n, lab, stats, _c = cv2.connectedComponentsWithStats(e, connectivity=8)
        big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.25 * face]
        if len(big) >= 2:
            near = np.stack(
                [
                    cv2.distanceTransform(np.where(lab == i, 0, 255).astype(np.uint8), cv2.DIST_L2, 3)
                    for i in big
                ]
            )
            owner = np.argmin(near, axis=0)
            pieces = []
            for j in range(len(big)):
                pm = cv2.morphologyEx(
                    np.where((owner == j) & inside, 255, 0).astype(np.uint8), cv2.MORPH_OPEN, _K3
                )
                pc = cv2.findContours(pm, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0]
                if pc:
                    pieces.append(max(pc, key=cv2.contourArea) + offset)
            return pieces if len(pieces) >= 2 else None
        e = cv2.erode(e, _K3)
    return None


_VALLEY_BAR = 0.95


def _overlap_fraction(a: _Blob, b: _Blob) -> float:
    ax, ay, aw, ah = a.bbox
    bx, by, bw, bh = b.bbox
    x0, y0, x1, y1 = max(ax, bx), max(ay, by), min(ax + aw, bx + bw), min(ay + ah, by + bh)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    ma = a.mask[y0 - ay : y1 - ay, x0 - ax : x1 - ax]  # type: ignore[index]
    mb = b.mask[y0 - by : y1 - by, x0 - bx : x1 - bx]  # type: ignore[index]
    inter = cv2.countNonZero(cv2.bitwise_and(ma, mb))
    return inter / max(1.0, min(a.area, b.area))


def _die_side(blobs: list[_Blob], cal: Calibration, scale: float, expected: int | None) -> float | None:
    """The side of one die in work pixels: calibrated, or the median of the square blobs of this frame
    (when every die touches another: the blobs' area shared by the expected number of dice)."""
    if cal.die_size is not None:
        return (cal.die_size[0] + cal.die_size[1]) / 2 * scale
    sides = []
    for b in blobs:
        (_, _), (rw, rh), _ = cv2.minAreaRect(b.contour)
        if rw <= 0 or rh <= 0:
            continue
        if min(rw, rh) / max(rw, rh) >= 0.86 and b.area / (rw * rh) >= 0.85:
            sides.append(math.sqrt(b.area / _ROUND_AREA))
    if sides:
        return float(np.median(sides))
    if blobs and expected:
        return float(math.sqrt(sum(b.area for b in blobs) / expected / _ROUND_AREA))
    if blobs:
        return float(math.sqrt(min(b.area for b in blobs) / _ROUND_AREA))
    return None


#: area of a die's outline relative to side^2 (rounded corners)
_ROUND_AREA = 0.985


def _dice_from_blobs(
    work: _Work, blobs: list[_Blob], cal: Calibration, s: float, w_full: int, h_full: int
) -> tuple[list[DieReading], list[Issue]]:
    issues: list[Issue] = []
    dice: list[DieReading] = []
    die_area = _ROUND_AREA * s * s
    for b in blobs:
        k = b.area / die_area
        x, y, w, h = b.bbox
        centre = tuple(work.to_frame(np.array([[x + w / 2, y + h / 2]]))[0])
        if k < 0.45:
            continue
        if k < 0.7:
            issues.append(
                Issue(
                    "partial",
                    f"{ISSUE_TEXT['partial']}: the {b.color.name} die at ({centre[0]:.0f}, {centre[1]:.0f})",
                    where=centre,
                )
            )
            continue
        cores = _blob_cores(work, b, s)
        if k <= 1.3 or (len(cores) == 1 and k <= 1.8):  # one die (its side faces may add to its shape)
            dice.append(_read_die(work, cal, b, b.mask, (x, y), s))  # type: ignore[arg-type]
            continue
        # touching dice: split at the dark seam between their upper faces; failing that, try the best
        # few ways of cutting the shape into whole dice; keep the first whose every part reads well
        chosen: list[DieReading] | None = None
        at_seams = _split_at_seams(work, b, s, k, cores, cal.camera_height)
        cuts = itertools.islice(_partitions(b.mask, s, die_area), 6)  # type: ignore[arg-type]
        ways = itertools.chain(at_seams, cuts)
        tilted: set[int] = set()  # upper faces found cocked in a split at the seams
        for n_way, pieces in enumerate(ways):
            read = [_read_die(work, cal, b, pm, (x, y), s, _union(pieces, i)) for i, pm in enumerate(pieces)]
            if n_way < len(at_seams):
                tilted |= {int(d.checks.get("face_label", 0)) for d in read if d.problem == "cocked"} - {0}
            elif any(int(d.checks.get("face_label", 0)) in tilted for d in read):
                # a cut along the outline's corners may give a cocked die's side face to its neighbour's part:
                # it does not overrule the split at the seams, where every pixel went to the nearest upper face
                continue
            if all(
                d.face is not None and d.problem is None and d.confidence >= cal.min_confidence for d in read
            ):
                chosen = read
                break
        if chosen is None:
            code = "stacked" if k < 1.75 else "touching"
            issues.append(
                Issue(
                    code,
                    f"{ISSUE_TEXT[code]} ({b.color.name}, about {k:.1f} dice in one shape at "
                    f"({centre[0]:.0f}, {centre[1]:.0f}))",
                    where=centre,
                )
            )
            continue
        dice += chosen
    # outside the tray
    if work.tray is not None:
        tray = work.to_frame(work.tray).astype(np.float32)
        for i, d in enumerate(dice):
            if cv2.pointPolygonTest(tray, (float(d.center[0]), float(d.center[1])), False) < 0:
                dice[i] = _with_problem(d, "outside")
    return dice, issues


def _neighbours_of_vouched(dice: list[DieReading]) -> list[DieReading]:
    """A die whose seam band exceeded its allowance and whose square pip grid vouched that it lies flat says the
    excess is its neighbour's: the neighbour's side face. So a neighbour whose own band at that seam comes near its
    allowance must show a square grid across its seams (a 4, 5 or 6, `_NEAR_SQUARE` and what a tilt towards the
    camera hides, `_slant`), else it is held as cocked (a 1-3 cannot show it)."""
    leaned = {
        (int(d.checks["vouched_at"]), int(d.checks.get("face_label", 0)))
        for d in dice
        if d.problem is None and "vouched_at" in d.checks
    }
    if not leaned:
        return dice
    out = []
    for d in dice:
        # held where its own band at that seam comes near its allowance too (a flat neighbour's is its bevel)
        pair = (int(d.checks.get("face_label", 0)), int(d.checks.get("near_at", 0)))
        if (
            d.problem is None
            and pair in leaned
            and (d.checks.get("seam_grid", 0.0) < d.checks.get("seam_grid_needed", _NEAR_SQUARE))
        ):
            d = _with_problem(d, "cocked")
        out.append(d)
    return out


def _union(pieces: list[np.ndarray], skip: int) -> np.ndarray:
    """The other parts of a cut shape (its box's pixels), all but piece `skip`."""
    out = np.zeros_like(pieces[skip])
    for i, p in enumerate(pieces):
        if i != skip:
            out |= p
    return out


def _with_problem(d: DieReading, code: str) -> DieReading:
    return DieReading(
        d.face,
        d.color,
        d.center,
        d.size,
        d.angle,
        d.confidence,
        d.corners,
        d.pips,
        d.problem or code,
        d.checks,
    )


# --------------------------------------------------------------------------- touching dice


def _side_faces_seen(
    work: _Work, cores: list[np.ndarray], origin: tuple[int, int], s: float, camera_height: float
) -> float:
    """The area (in dice) of the side faces the camera sees of flat dice with these upper faces: each die shows
    the two sides that face the middle of the picture, each distance along its normal / camera height wide."""
    total = 0.0
    for c in cores:
        (fx, fy), _, ang = cv2.minAreaRect(c)
        total += sum(_side_widths(work, camera_height, (fx + origin[0], fy + origin[1]), ang))
    return total / s


def _blob_cores(work: _Work, b: _Blob, s: float) -> list[np.ndarray]:
    """The upper faces of the dice lying flat in a blob (outlines in the blob's box)."""
    x, y, w, h = b.bbox
    assert b.mask is not None
    out = []
    for hull in work.face_hulls:
        m = cv2.moments(hull)
        if m["m00"] <= 0:
            continue
        cx, cy = m["m10"] / m["m00"] - x, m["m01"] / m["m00"] - y
        if 0 <= cx < w and 0 <= cy < h and b.mask[int(cy), int(cx)]:
            out.append(hull - (x, y))
    return out


def _split_at_seams(
    work: _Work, b: _Blob, s: float, k: float, cores: list[np.ndarray], camera_height: float
) -> list[list[np.ndarray]]:
    """Touching dice by their upper faces: the brightest flat part of each die, apart from its neighbour's
    by the darker rounded edges; every pixel of the shape then goes to the nearest face (watershed)."""
    x, y, w, h = b.bbox
    mask = b.mask
    assert mask is not None
    n = len(cores)
    # as many faces as dice: the shape's area may exceed n dice by the side faces the camera sees, the more the
    # further the dice lie from the middle of the picture (a side face distance / camera height wide)
    if n < 2 or not n - 0.35 <= k <= n + 0.8 + _side_faces_seen(work, cores, (x, y), s, camera_height):
        return []
    hulls = []
    for c in cores:
        hm: np.ndarray = np.zeros((h, w), np.uint8)
        cv2.drawContours(hm, [c], -1, 255, cv2.FILLED)
        hulls.append(cv2.bitwise_and(hm, mask))
    # every pixel of the shape goes to the nearest upper face (watershed)
    markers = np.zeros((h, w), np.int32)
    taken: np.ndarray = np.zeros((h, w), np.uint8)
    for i, hm in enumerate(hulls):
        markers[hm > 0] = i + 1
        taken = cv2.add(taken, hm // 255)
    markers[taken > 1] = 0  # where two grown faces overlap, let the watershed decide
    markers[mask == 0] = len(cores) + 1
    cv2.watershed(np.ascontiguousarray(work.bgr[y : y + h, x : x + w]), markers)
    parts = []
    for i in range(len(cores)):
        pm = np.where(markers == i + 1, 255, 0).astype(np.uint8)
        parts.append(cv2.bitwise_and(pm, mask))
    out = [parts]
    # or: each die is its upper face and a rim around it (the bevel), and what lies between the rims
    # (a neighbour's side face seen in perspective) belongs to no die
    r = max(1, round(0.1 * s))
    disk = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    rims = []
    for i in range(len(cores)):
        pm = np.where(markers == i + 1, 255, 0).astype(np.uint8)
        rims.append(cv2.bitwise_and(cv2.dilate(pm, disk), mask))
    out.append(rims)
    return out


def _partitions(m: np.ndarray, s: float, die_area: float, depth: int = 0) -> Iterator[list[np.ndarray]]:
    """Ways to cut a shape of touching dice into whole dice along concave corners, most likely first."""
    k = cv2.countNonZero(m) / die_area
    if k <= 1.3:
        if k >= 0.72:
            yield [m]
        return
    if depth > 3:
        return
    for a, b in _cuts(m, s, die_area)[:3]:
        for pa in itertools.islice(_partitions(a, s, die_area, depth + 1), 2):
            for pb in itertools.islice(_partitions(b, s, die_area, depth + 1), 2):
                yield pa + pb


def _cuts(m: np.ndarray, s: float, die_area: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Straight cuts between two concave corners that leave parts of whole-die areas, best first."""
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return []
    cnt = max(contours, key=cv2.contourArea)
    if len(cnt) < 8:
        return []
    hull = cv2.convexHull(cnt, returnPoints=False)
    try:
        defects = cv2.convexityDefects(cnt, hull)
    except cv2.error:
        return []
    if defects is None:
        return []
    pts = cnt[:, 0, :].astype(np.float64)
    deep = [(int(f), d / 256.0) for _, _, f, d in defects.reshape(-1, 4) if d / 256.0 >= 0.05 * s]
    if len(deep) < 2:
        return []
    total = cv2.countNonZero(m)
    scored = []
    for (i, di), (j, dj) in itertools.combinations(deep, 2):
        p, q = pts[i], pts[j]
        length = float(np.hypot(*(p - q)))
        if length > 1.5 * s:
            continue
        # the cut must run inside the shape
        if not all(
            m[round(p[1] + t * (q[1] - p[1])), round(p[0] + t * (q[0] - p[0]))]
            for t in np.linspace(0.15, 0.85, 8)
        ):
            continue
        lo, hi = min(i, j), max(i, j)
        area_a = abs(_poly_area(pts[lo : hi + 1]))
        ka, kb = area_a / die_area, (total - area_a) / die_area
        if min(ka, kb) < 0.72:
            continue
        err = abs(ka - round(ka)) + abs(kb - round(kb))
        if err > 0.45:
            continue
        shape = 0.0
        die_shaped = True
        for part in (cnt[lo : hi + 1], np.concatenate([cnt[hi:], cnt[: lo + 1]])):
            kp = abs(cv2.contourArea(part)) / die_area
            if round(kp) == 1:  # a single die must look like a square
                (_, _), (rw, rh), _ = cv2.minAreaRect(part)
                if rw > 0 and rh > 0:
                    shape += 1 - min(rw, rh) / max(rw, rh)
                    # a part far from square is not a die: a strip of the other's side face joins it, and the
                    # other die, short of that strip, may look flat when it is not
                    die_shaped = die_shaped and min(rw, rh) / max(rw, rh) >= _CUT_SQUARE
        if not die_shaped:
            continue
        score = err + 2.0 * shape + 0.2 * length / s - 0.3 * (di + dj) / s
        scored.append((score, lo, hi, pts[i], pts[j]))
    scored.sort(key=lambda t: t[0])
    out = []
    for _, lo, hi, p, q in scored[:4]:
        pair = []
        for poly in (cnt[lo : hi + 1], np.concatenate([cnt[hi:], cnt[: lo + 1]])):
            pm = np.zeros_like(m)
            cv2.drawContours(pm, [poly], -1, 255, cv2.FILLED)
            pm &= m
            cv2.line(pm, (int(p[0]), int(p[1])), (int(q[0]), int(q[1])), 0, 1)  # the cut belongs to neither
            pair.append(pm)
        out.append((pair[0], pair[1]))
    return out


_CUT_SQUARE = 0.7  # the least aspect of a one-die part a cut may leave


def _poly_area(p: np.ndarray) -> float:
    x, y = p[:, 0], p[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


# --------------------------------------------------------------------------- one die


def _read_die(
    work: _Work,
    cal: Calibration,
    b: _Blob,
    pm: np.ndarray,
    origin: tuple[int, int],
    s: float,
    others: np.ndarray | None = None,
) -> DieReading:
    ox, oy = origin
    contours, _ = cv2.findContours(pm, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(contours, key=cv2.contourArea)
    area = float(cv2.countNonZero(pm))
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(cnt)
    side = math.sqrt(area / _ROUND_AREA)
    aspect = min(rw, rh) / max(rw, rh) if max(rw, rh) > 0 else 0.0
    # a die far from the middle of the picture shows the sides facing it (perspective): its outline is
    # longer that way by distance / camera height; for the confidence, measure the outline without that
    # (a cocked die is still judged on its outline as seen, and on its side faces)
    flat_aspect = _flat_aspect(work, cal, (cx + ox, cy + oy), (rw, rh), ang)
    hull_area = cv2.contourArea(cv2.convexHull(cnt))
    solidity = cv2.contourArea(cnt) / hull_area if hull_area > 0 else 0.0
    box = cv2.boxPoints(((cx, cy), (rw, rh), ang))
    corners = work.to_frame(box + (ox, oy))
    centre_frame = work.to_frame(np.array([[cx + ox, cy + oy]]))[0]
    angle = float(ang % 90.0)
    checks: dict[str, float] = {
        "aspect": aspect,
        "flat_aspect": flat_aspect,
        "solidity": solidity,
        "size": side / s,
    }

    def result(
        face: int | None,
        conf: float,
        problem: str | None,
        pips: Sequence[Sequence[float]] | Sequence[np.ndarray] = (),
        centre: np.ndarray | None = None,
    ) -> DieReading:
        c = centre if centre is not None else centre_frame
        pts: Any = work.to_frame(np.array(pips, np.float64).reshape(-1, 2) + (ox, oy)) if len(pips) else []
        return DieReading(
            face=face,
            color=b.color.name,
            center=(float(c[0]), float(c[1])),
            size=side / work.scale,
            angle=angle,
            confidence=float(round(conf, 4)),
            corners=tuple((float(x), float(y)) for x, y in corners),
            pips=tuple((float(x), float(y)) for x, y in pts),
            problem=problem,
            checks=checks,
        )

    # --- flat? -------------------------------------------------------------------------------
    whole = pm is b.mask  # a die on its own (not cut from touching dice): its outline is all its own
    checks["whole"] = float(whole)
    if whole and solidity < 0.86 and side > 1.06 * s:
        # a shape bigger than a die and not convex: a die lying on another (or leaning on it); a die's own
        # size with notches is only a side face's pips at its edge
        return result(None, 0.0, "stacked")
    if whole and aspect < 0.84:
        return result(None, 0.0, "cocked")
    # a die on its own longer than a flat die can look (perspective allowed for) shows a side face as well as its
    # upper face: flat dice measure at most 1.11 die that way (10,000 on clean frames), a cocked die whose side
    # face passes for a neighbour's edge 1.22 or more
    longest = max(_flat_dims(work, cal, (cx + ox, cy + oy), (rw, rh), ang)) / s
    checks["longest"] = longest
    if whole and longest > _FLAT_LONGEST:
        return result(None, 0.0, "cocked")
    if cal.die_size is not None:
        lo, hi = cal.die_size[0] * work.scale, cal.die_size[1] * work.scale
        if not 0.92 * lo <= side <= 1.08 * hi:
            return result(None, 0.0, "size")

    # --- pips ----------------------------------------------------------------------------------
    x, y = ox, oy
    h, w = pm.shape
    crop = work.bgr[y : y + h, x : x + w].astype(np.float32)
    # The upper face: the brightest flat part of the die. Its bevelled edge and the side faces the
    # camera sees in perspective are darker; pips sit a quarter side in from the face's edge, so
    # whatever lies outside the face or near its edge (a side face's pip seen edge-on) is not a pip.
    core, second = _upper_face(work, b, pm, (x, y), s)
    checks["second_face"] = second / (s * s)
    if second >= 0.12 * s * s:  # two lit faces: one of them is a side of a tilted die
        return result(None, 0.0, "cocked")
    cc, _ = cv2.findContours(core, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    (fx, fy), (fw, fh), fang = cv2.minAreaRect(max(cc, key=cv2.contourArea))
    checks["face_aspect"] = min(fw, fh) / max(fw, fh) if max(fw, fh) > 0 else 0.0
    # a flat die's lit side face facing the camera may join its upper face: as long as the perspective shows it
    face_flat = _flat_aspect(work, cal, (fx + ox, fy + oy), (fw, fh), fang)
    checks["face_flat"] = face_flat
    checks["face_area"] = cv2.countNonZero(core) / (s * s)
    if checks["face_area"] > _FACE_AREA_MAX:
        # an upper face larger than a die's: a side face lit as brightly as it joined it (a cocked die; flat dice's
        # upper faces measure at most 0.98 die, bevels left out; Lightning Dice fault seed 379 frame 212: 1.09)
        return result(None, 0.0, "cocked")
    # a cocked die shows one of its side faces: die-coloured pixels reaching further beyond its upper
    # face than the bevel and the camera's perspective explain
    # a die cut from touching dice: `others` are the parts of its neighbours (a walk that runs into them meets
    # a neighbour, whose bevel and side face lie there; what lies between the parts belongs to nobody)
    bands = _side_bands(work, b.color, core, pm, origin, (fx, fy), (fw, fh), fang, others, b.label)
    if bands and bands[0].own:
        checks["face_label"] = float(bands[0].own)
    # the camera sees the sides of a flat die that face the middle of the picture, the more the further
    # the die is from it: allow for that on each side
    principal = np.array(work.principal, np.float64)
    excess = 0.0
    seam_excess = 0.0  # beyond the allowance on sides that meet a neighbour (see the pip grid below)
    square_check: list[
        tuple[np.ndarray, float]
    ] = []  # (normal, how far the side faces the middle of the picture)
    near_seams: list[
        tuple[np.ndarray, float]
    ] = []  # (normal, towards) of seam sides whose band nears its allowance
    seam_sides: list[
        tuple[np.ndarray, float]
    ] = []  # (normal, towards) of the sides that meet another die's face
    face_v = 0.0  # the upper face's brightness (measured when a seam band asks for it)
    lit_seam = False  # a wide band at a seam as bright as a side face tilted towards the light
    for reach, normal, seam, free_band, _, met_face, _, crossed, between in bands:
        towards = float(np.dot(principal - (fx + ox, fy + oy), normal))
        if seam == 2:
            seam_sides.append((normal, towards))
        # between two touching dice lie both their bevels (a cocked die shows the side away from the die
        # it leans on, so the seam allowance costs little); a side that meets a neighbour's bevel past
        # its corner (not its upper face) gets a little more
        persp = max(0.0, towards) / cal.camera_height
        plain = cal.max_side_band * side + persp
        if free_band is not None and free_band <= plain:
            # the walks that ended at the felt show no side face: what lies beyond the others is a neighbour's
            checks["free_band"] = max(checks.get("free_band", 0.0), free_band / side)
            if seam and reach > plain:
                near_seams.append(
                    (normal, towards)
                )  # unless the walks into the neighbour found its side face there
            continue
        # at an edge facing away from the middle of the picture a flat die shows no side face, only its bevel
        # (0.03-0.11 die on clean frames), where nothing touches it: a tilt as slight as the least a die leans
        # at shows a side face narrower than the full allowance there, and is still held
        away = towards <= 0 and seam == 0 and free_band is None
        # a neighbour of another colour at a seam facing away: the walks, through this die's colour only, measured
        # its own bevel (flat dice: at most 0.10 die) and not the neighbour's side face; a wider band is this
        # die's own side face (Dice Duel fault seed 271 frame 147: 0.25 die); not when a walk crossed another die
        # of this die's colour on the way (its bevel counts as this die's material)
        unlike = (
            seam == 2
            and towards <= 0
            and met_face > 0
            and free_band is None
            and not crossed
            and _face_in_colour(work, met_face, b.color) < _OWN_COLOUR
        )
        # between two dice whose seam faces away from the middle of the picture, the camera sees the neighbour's
        # side face (flat dice: up to 0.33 die in all) and a cocked die's own side face narrowed by its tilt
        # towards the camera (0.35 die seen): beyond `_SEAM_AWAY` the pip grid must vouch for a flat die
        seam_share = _SEAM_AWAY if towards <= 0 else _SEAM
        band = cal.max_side_band * (_AWAY_SHARE if away or unlike else seam_share if seam == 2 else 1.0)
        allowed = band * side + persp + (_CONTACT * side if seam == 1 else 0.0)
        over = (reach - allowed) / side
        if unlike:
            checks["unlike_band"] = max(checks.get("unlike_band", 0.0), reach / side)
        if free_band is not None and seam:
            # most walks ended at the felt, and they show die material beyond the plain allowance where no
            # neighbour lies: this die's own side face, whatever allowance the walks into the neighbour earn
            over = max(over, (free_band - plain) / side)
        if unlike and over > 0:
            excess = max(excess, over)  # held as at an edge that touches nothing: no pip grid vouches
        elif seam and over > 0:
            seam_excess = max(seam_excess, over)
            square_check.append((normal, towards))
            if met_face:
                checks["vouched_at"] = float(met_face)  # if its grid vouches: see `_neighbours_of_vouched`
        elif seam and reach > _NEAR_ALLOWANCE * allowed:
            near_seams.append((normal, towards))
            if met_face:
                checks["near_at"] = float(met_face)
        else:
            excess = max(excess, over)
        if seam == 2:
            net = (reach - persp) / side
            checks["seam_net"] = max(checks.get("seam_net", 0.0), net)
            if net >= _LIT_WIDTH and over <= 0:
                # the middle of a band between two flat dice is dark (a vertical side face, the gap between them);
                # a cocked die leaning on its neighbour shows there its own side face, tilted up towards the light.
                # Only within the allowance: beyond it the pip grid decides (a band that wide may hold part of the
                # neighbour's upper face, as bright as this one's, where the two faces join)
                if not face_v:
                    face_v = max(
                        1.0,
                        _percentile_u8(work.v[oy : oy + core.shape[0], ox : ox + core.shape[1]], core, 0.9),
                    )
                lit = _band_brightness(work, between, side) / face_v
                checks["seam_lit"] = max(checks.get("seam_lit", 0.0), lit)
                lit_seam = lit_seam or lit >= _LIT
    checks["side_band"] = max(sd.reach for sd in bands) / side
    # the outline's squareness, for the confidence: a die on its own is judged by its outline (perspective
    # allowed for); one whose edge meets another die's upper face may have its outline cut by that die's body
    # (a neighbour of another colour, the dark seam between them): then its upper face may vouch for it. A part
    # cut from touching dice is judged by its upper face: its part's outline holds a cocked die's side face, which
    # makes the part squarer while the tilt squeezes the face (cos t)
    shape_aspect = face_flat
    if whole:
        met = any(sd.seam == 2 for sd in bands)
        shape_aspect = max(flat_aspect, face_flat) if met else flat_aspect
    checks["band_excess"] = max(excess, seam_excess)
    if excess > 0 or seam_excess > _SQUARE_EXTRA or lit_seam:
        return result(None, 0.0, "cocked")
    # a wider band only where the die meets a neighbour is the neighbour's edge (flat die) or this die's own side
    # face (cocked, leaning on it): decided below by the pip grid, which a tilted upper face foreshortens
    edge = cv2.distanceTransform(
        cv2.copyMakeBorder(core, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0), cv2.DIST_L2, 3
    )[1:-1, 1:-1]
    sel = edge > 0.05 * side
    if np.count_nonzero(sel) < 20:
        return result(None, 0.0, "unreadable")
    body = _channel_medians(work.bgr[y : y + h, x : x + w], sel)
    sq = crop - body
    sq *= sq
    dist = np.sqrt((sq[..., 0] + sq[..., 1]) + sq[..., 2])  # as .sum(axis=2) adds them (same bits), 3x faster
    vals = dist[sel]
    p_body, p_pip = _percentiles(vals, (40, 99.3))
    brightness = float(max(body.max(), 1.0))
    contrast = (p_pip - p_body) / brightness
    checks["contrast"] = contrast
    if contrast < 0.25:
        return result(None, 0.0, "unreadable")
    thr = (p_body + p_pip) / 2
    pipmask = ((dist > thr) & sel).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(pipmask, connectivity=8)
    expect_area = math.pi * (0.085 * side) ** 2
    amin = math.pi / 4 * (cal.pip_size[0] * side) ** 2
    amax = math.pi / 4 * (cal.pip_size[1] * side) ** 2
    pips = []
    areas = []
    stray = 0
    spots: tuple | None = None  # the dark spots over the die's whole outline, when needed
    for k in range(1, n):
        a = stats[k, cv2.CC_STAT_AREA]
        if a < 0.2 * expect_area:
            continue  # noise
        px, py = cents[k]
        if edge[min(h - 1, round(py)), min(w - 1, round(px))] < 0.1 * side:
            if spots is None:
                spots = cv2.connectedComponentsWithStats(
                    ((dist > thr) & (pm > 0)).astype(np.uint8), connectivity=8
                )
            cut = _pip_cut_by_face_edge(spots, labels == k, edge, amin, amax)
            if cut is not None:
                pips.append(cut[0])
                areas.append(cut[1])
            continue  # else a side face's pip seen edge-on, or the bevel
        if not _pip_shaped(stats[k], amin, amax):
            parts = _split_merged_pips(
                dist, labels, stats[k], k, thr, p_pip, edge, 0.1 * side, amin, amax, 0.5 * expect_area
            )
            if parts is None:
                stray += 1
            else:
                pips += parts[0]
                areas += parts[1]
            continue
        pips.append(cents[k])
        areas.append(a)
    checks["stray"] = stray
    # the pips' layout is measured against the die's size: an outline cut by a neighbour (a shape of its own, or
    # a part) is smaller than the die, not its pip grid
    pside = max(side, s)
    match = _face_match(pips, pside, fang)
    if pips and (match is None or match[0] is None):
        # a neighbour's side-face pips at the seam, seen inside this die's upper face (a red or blue neighbour's
        # lit side face passes for this face's colour): beyond the pip grid's corners, towards the neighbour
        beyond = _beyond_the_grid(pips, (fx, fy), pside, bands)
        kept = [i for i in range(len(pips)) if i not in beyond]
        fewer = _face_match([pips[i] for i in kept], pside, fang) if beyond and kept else None
        if fewer is not None and fewer[0] is not None:
            pips, areas, match = [pips[i] for i in kept], [areas[i] for i in kept], fewer
            checks["beyond_grid"] = float(len(beyond))
    if match is None:
        return result(None, 0.0, "unreadable", pips)
    P = np.array(pips, np.float64)
    centroid = P.mean(axis=0)
    off = float(np.hypot(centroid[0] - fx, centroid[1] - fy))  # both in the part's box coordinates
    checks["offset"] = off / pside
    uniform = max(areas) / min(areas)
    checks["uniform"] = uniform
    face, residual, rot = match
    checks["face_angle"] = fang % 90.0
    checks["residual"] = residual
    if face is None:
        return result(None, 0.0, "unreadable", pips, work.to_frame((centroid + (ox, oy))[None])[0])
    out_x, out_y = fx + ox - work.principal[0], fy + oy - work.principal[1]
    out_r = math.hypot(out_x, out_y)
    if out_r > s:
        # the upper face's region reaches beyond the pip grid on the side facing away from the middle of the
        # picture, where the camera sees no side face of a flat die: a cocked die's side face, lit as brightly as
        # its upper face, joined it (flat dice: at most 0.064 die over 27,224 of clean seeds 447 and 449)
        away = ((fx - centroid[0]) * out_x + (fy - centroid[1]) * out_y) / out_r / pside
        checks["offset_away"] = away
        if away > _OFFSET_AWAY:
            return result(None, 0.0, "cocked", pips, work.to_frame((centroid + (ox, oy))[None])[0])
    stepped_over = any(sd.gaps.size for sd in bands)
    # the pip grid's squareness (below) is asked only where a seam band is wide or the face is cut
    grid_asked = face >= 4 and bool(square_check or near_seams or "near_at" in checks or shape_aspect < 0.88)
    # None unless stepped_over or grid_asked, the only cases that read it
    pip_colour: Any = np.median(crop[pipmask > 0], axis=0) if stepped_over or grid_asked else None
    if stepped_over:
        # a flat die shows no side face at an edge that faces away from the middle of the picture (the camera
        # sees only the sides facing it), and its bevel bears no pips: pips there are a cocked die's side face,
        # however narrow its band
        found = _side_face_pips(
            work, b.color, bands, (fx + ox, fy + oy), body, pip_colour, side, cal.pip_size[1] * side
        )
        checks["side_face_pips"] = float(found)
        if found >= _SIDE_PIPS_MIN:
            return result(None, 0.0, "cocked", pips, work.to_frame((centroid + (ox, oy))[None])[0])
    # the pip grid's squareness is a matter of a few per cent (cos 18 degrees = 0.951): it is measured on the
    # pips' middles at full resolution (at half scale a cocked 5's grid measured 0.991, at full 0.964: Bac Bo fault
    # seed 565 frame 82)
    Q = P - centroid
    if grid_asked:
        Q = _fine_pips(work, P + (ox, oy), body, pip_colour, side)
        Q -= Q.mean(axis=0)
    if square_check:
        # the second cue: the upper face of a die tilted by t is foreshortened by cos t across the edge it
        # shows a side face at (0.95 at 18 degrees); a 2-D pip grid (4, 5, 6) measures that, a line of pips
        # (2, 3) or one pip cannot, so those stay refused
        squares = (
            _grid_ratios(Q, face, rot, [n for n, _ in square_check])
            if face >= 4
            else [0.0] * len(square_check)
        )
        grids = list(zip(squares, [_square_needed(t / (cal.camera_height * side)) for _, t in square_check]))
        checks["grid_square"] = min(g for g, _ in grids)
        checks["grid_needed"] = max(need for _, need in grids)
        if any(g < need for g, need in grids):
            return result(None, 0.0, "cocked", pips, work.to_frame((centroid + (ox, oy))[None])[0])
    if (
        "near_at" in checks and face >= 4 and seam_sides
    ):  # only a die near its allowance at a seam is asked for it
        checks["seam_grid"] = min(_grid_ratios(Q, face, rot, [n for n, _ in seam_sides]))
        checks["seam_grid_needed"] = max(
            _near_needed(towards / (cal.camera_height * side)) for _, towards in seam_sides
        )
    if near_seams and face >= 4:
        # a band near its allowance at a seam may be a cocked die's side face as well as the neighbour's edge
        # (and another cut of the shape may measure it over): a pip grid squeezed across it is a tilted face. As
        # in `_square_needed`, a face tilted towards the camera is squeezed less (Bac Bo fault seed 257 frame 70:
        # a 5 tilted 18 degrees, 3.9 degrees off the middle, measures 0.973 in the full picture; 0.982 is asked)
        grids = list(
            zip(
                _grid_ratios(Q, face, rot, [n for n, _ in near_seams]),
                [_near_needed(towards / (cal.camera_height * side)) for _, towards in near_seams],
            )
        )
        checks["grid_near"] = min(g for g, _ in grids)
        checks["grid_near_needed"] = max(need for _, need in grids)
        if any(g < need for g, need in grids):
            return result(None, 0.0, "cocked", pips, work.to_frame((centroid + (ox, oy))[None])[0])
    # where this face has no pip, the die must be bare: a dark (or light) spot there is a pip the count
    # missed (a 3 without its middle pip would read 2)
    spot = _empty_spots(dist, p_body + 0.3 * (p_pip - p_body), sel, centroid, P, pside, rot, face)
    checks["empty_spot"] = spot
    if spot > 0.2:
        return result(None, 0.0, "unreadable", pips, work.to_frame((centroid + (ox, oy))[None])[0])
    if shape_aspect < 0.88 and face >= 4:
        # a face (or outline) cut or swollen by what lies beside it (a neighbour's side face painted over its edge,
        # its own lit side face, a neighbour's bevel): a 2-D pip grid as square as a flat die's vouches for it, as
        # a tilted die's grid is squeezed by cos t like its face (0.951 at 18 degrees)
        # (less where the die may be tilted towards the camera: along either axis of the face, away from the middle
        # of the picture as far as the die lies off it that way)
        axis = np.array([math.cos(math.radians(rot)), math.sin(math.radians(rot))])
        grid = _grid_squareness(Q, face, rot, [axis])
        checks["grid_vouch"] = grid
        off_middle = max(abs(out_x * axis[0] + out_y * axis[1]), abs(out_y * axis[0] - out_x * axis[1]))
        if grid >= _near_needed(-off_middle / (cal.camera_height * pside), _SQUARE_MIN):
            shape_aspect = 1.0
    # confidence: the weakest check
    scores = [
        _ramp(residual, 0.045, 0.11),
        _ramp(off / pside, 0.12, 0.22),
        _ramp(uniform, 1.9, 2.8),
        _ramp(-contrast, -0.4, -0.25),
        _ramp(-shape_aspect, -0.88, -0.84),
        1.0 - 0.35 * min(stray, 3),
    ]
    if len(pips) >= 2:
        spread = float(np.sqrt(((P - centroid) ** 2).sum(axis=1).mean())) / pside
        want = float(np.sqrt((LAYOUTS[len(pips)][0] ** 2).sum(axis=1).mean()))
        ratio = spread / want if want > 0 else 1.0
        checks["spread"] = ratio
        scores.append(_ramp(abs(ratio - 1), 0.14, 0.3))
    conf = max(0.0, min(scores))
    centre_px = work.to_frame((centroid + (ox, oy))[None])[0] if len(pips) > 1 else centre_frame
    return result(face, conf, None, pips, centre_px)


def _flat_aspect(
    work: _Work, cal: Calibration, centre: tuple[float, float], dims: tuple[float, float], ang: float
) -> float:
    """A rectangle's aspect (short / long side) without what the perspective adds towards the middle of the
    picture (distance / camera height along each side), never less than as seen."""
    rw, rh = dims
    if rw <= 0 or rh <= 0:
        return 0.0
    aspect = min(rw, rh) / max(rw, rh)
    ew, eh = _flat_dims(work, cal, centre, dims, ang)
    if ew > 0 and eh > 0:
        return max(aspect, min(1.0, min(ew, eh) / max(ew, eh)))
    return aspect


def _face_match(
    pips: Sequence[np.ndarray], pside: float, fang: float
) -> tuple[int | None, float, float] | None:
    """The pips matched to a face's pattern, centred on their centroid (`_match_layout`); None for no pip or more
    than six."""
    if not 1 <= len(pips) <= 6:
        return None
    P = np.array(pips, np.float64)
    return _match_layout(P - P.mean(axis=0), pside, fang % 90.0)


def _beyond_the_grid(
    pips: Sequence[np.ndarray], centre: tuple[float, float], pside: float, bands: Sequence[_Side]
) -> list[int]:
    """The pips farther from the upper face's middle than a pip grid's corner can lie (`_PIP_FAR`; corners at
    0.35 die) in the direction of a side that meets a neighbour."""
    out = []
    for i, p in enumerate(pips):
        d = np.array((p[0] - centre[0], p[1] - centre[1]), np.float64)
        r = float(np.hypot(d[0], d[1]))
        if r <= _PIP_FAR * pside:
            continue
        facing = max(bands, key=lambda sd: float(np.dot(sd.normal, d)))
        if facing.seam:
            out.append(i)
    return out


def _flat_dims(
    work: _Work, cal: Calibration, centre: tuple[float, float], dims: tuple[float, float], ang: float
) -> tuple[float, float]:
    """A rectangle's sides without what the perspective adds towards the middle of the picture."""
    wu, wv = _side_widths(work, cal.camera_height, centre, ang)
    return dims[0] - wu, dims[1] - wv


def _side_widths(
    work: _Work, camera_height: float, centre: tuple[float, float], ang: float
) -> tuple[float, float]:
    """How wide (work pixels) the camera sees a flat die's side faces along the two axes of a rectangle at `ang`
    degrees centred at `centre`: the distance to the middle of the picture along each axis / camera height."""
    a = math.radians(ang)
    dx, dy = work.principal[0] - centre[0], work.principal[1] - centre[1]
    return (
        abs(dx * math.cos(a) + dy * math.sin(a)) / camera_height,
        abs(-dx * math.sin(a) + dy * math.cos(a)) / camera_height,
    )


def _channel_medians(img: np.ndarray, sel: np.ndarray) -> np.ndarray:
    """np.median(img[sel].astype(np.float32), axis=0) of an 8-bit 3-channel image, to the last bit (the median
    of whole numbers is one of them or the halfway point of two), from the channels' histograms: picking the
    pixels out of the image and sorting them costs more than that."""
    n = int(np.count_nonzero(sel))
    mask = sel.view(np.uint8)
    cum = np.cumsum(
        np.concatenate([cv2.calcHist([img], [c], mask, [256], [0, 256]) for c in range(3)]).ravel()
    )
    # the (n - 1) // 2-th and n // 2-th smallest of each channel (channel c's counts start at c * n)
    ranks = [c * n + r for c in range(3) for r in ((n - 1) // 2, n // 2)]
    values = np.searchsorted(cum, ranks, side="right") - _CHANNEL_START
    return (values[0::2] + values[1::2]).astype(np.float32) / 2


_CHANNEL_START = np.repeat(np.arange(3) * 256, 2)


def _percentiles(values: np.ndarray, qs: Sequence[float]) -> list[float]:
    """np.percentile(values, qs) (its default, linear) of a 1-D float32 array, to the last bit: numpy's own
    arithmetic without numpy's overhead, which is most of its time on the few hundred values of a die."""
    ordered = np.sort(values)
    n = ordered.size
    out = []
    for q in qs:
        rank = (n - 1) * (q / 100)
        if rank >= n - 1:
            out.append(float(ordered[-1]))
            continue
        lo = math.floor(rank)
        t = rank - lo
        a, b = ordered[lo], ordered[lo + 1]
        diff = float(b - a)  # in float32, as numpy's
        out.append(float(b) - diff * (1 - t) if t >= 0.5 else float(a) + diff * t)
    return out


def _pip_cut_by_face_edge(
    spots: tuple, piece: np.ndarray, edge: np.ndarray, amin: float, amax: float
) -> tuple[np.ndarray, float] | None:
    """A pip that the upper face's edge cuts through (light dimming a corner of the face: the thin strip beyond a
    corner pip falls below the bar, and the face's hull then runs across the pip): over the die's whole outline
    (`spots`, connected components) the dark spot it belongs to is a whole pip, round and of a pip's size, whose
    middle lies inside the face. A side face's pip seen edge-on is a sliver, and a tilted die's side face lies
    beyond its bevel, outside the face, so neither qualifies. Its (centre, area), or None."""
    _n, lab, stats, cents = spots
    ids = np.unique(lab[piece])
    ids = ids[ids > 0]
    if len(ids) != 1:
        return None
    j = int(ids[0])
    if not _pip_shaped(stats[j], amin, amax):
        return None
    cx, cy = cents[j]
    h, w = edge.shape
    if edge[min(h - 1, round(cy)), min(w - 1, round(cx))] <= 0:
        return None
    return cents[j], float(stats[j, cv2.CC_STAT_AREA])


def _fine_pips(work: _Work, pips: np.ndarray, body: np.ndarray, pip: np.ndarray, side: float) -> np.ndarray:
    """The pips' middles (work pixels, `pips` as found at work scale) measured at full resolution: the middle of the
    spot at least halfway from the body's colour to the pips' around each, within 0.15 die (the next pip's edge
    lies 0.165 die away). A pip not found there keeps its place."""
    out = np.array(pips, np.float64)
    full = work.full
    axis = (pip - body).astype(np.float32)
    norm = float(axis @ axis)
    if full is None or norm < 1.0 or work.scale >= 1.0:
        return out
    H, W = full.shape[:2]
    r = max(2, math.ceil(_FINE_REACH * side / work.scale))
    for i, (px, py) in enumerate(out):
        cx, cy = (px + 0.5) / work.scale - 0.5, (py + 0.5) / work.scale - 0.5
        x0, y0 = round(cx) - r, round(cy) - r
        if x0 < 0 or y0 < 0 or x0 + 2 * r + 1 > W or y0 + 2 * r + 1 > H:
            continue
        win = full[y0 : y0 + 2 * r + 1, x0 : x0 + 2 * r + 1].astype(np.float32)
        t = ((win - body) @ axis) / norm
        n, _lab, _st, cents = cv2.connectedComponentsWithStats((t >= 0.5).astype(np.uint8), connectivity=8)
        if n < 2:
            continue
        k = 1 + int(np.argmin(np.hypot(cents[1:, 0] - (cx - x0), cents[1:, 1] - (cy - y0))))
        fx, fy = cents[k]
        if math.hypot(fx + x0 - cx, fy + y0 - cy) > _FINE_REACH * side / work.scale:
            continue
        out[i] = ((fx + x0 + 0.5) * work.scale - 0.5, (fy + y0 + 0.5) * work.scale - 0.5)
    return out


_FINE_REACH = 0.15  # dice


def _split_merged_pips(
    dist: np.ndarray,
    labels: np.ndarray,
    stat: np.ndarray,
    k: int,
    thr: float,
    p_pip: float,
    edge: np.ndarray,
    inner: float,
    amin: float,
    amax: float,
    least: float,
) -> tuple[list[np.ndarray], list[float]] | None:
    """Two or three pips that blur joined into one spot (a 6's column at half scale: a pixel's bridge between
    them): a stricter bar parts them into pip-shaped spots, each of at least `least` pixels of the spot (a
    neighbour's side-face pips seen at a slant at the seam are slivers). Their centres and areas (the spot's
    pixels, each given to the nearest centre), or None when no bar parts it into such pips only."""
    x, y, w, h = (
        stat[cv2.CC_STAT_LEFT],
        stat[cv2.CC_STAT_TOP],
        stat[cv2.CC_STAT_WIDTH],
        stat[cv2.CC_STAT_HEIGHT],
    )
    spot = labels[y : y + h, x : x + w] == k
    d = dist[y : y + h, x : x + w]
    for f in _SPLIT_BARS:
        n, _lab, st, cents = cv2.connectedComponentsWithStats(
            (spot & (d > thr + f * (p_pip - thr))).astype(np.uint8), connectivity=8
        )
        if n - 1 < 2:
            continue
        if n - 1 > 3 or not all(_pip_shaped(st[j], amin, amax) for j in range(1, n)):
            return None
        c = cents[1:]
        if any(edge[y + min(h - 1, round(cy)), x + min(w - 1, round(cx))] < inner for cx, cy in c):
            return None
        ys, xs = np.nonzero(spot)
        near = np.argmin((xs[:, None] - c[None, :, 0]) ** 2 + (ys[:, None] - c[None, :, 1]) ** 2, axis=1)
        areas = [float(np.count_nonzero(near == j)) for j in range(len(c))]
        if min(areas) < least:
            return None
        return [c[j] + (x, y) for j in range(len(c))], areas
    return None


_SPLIT_BARS = (0.25, 0.5)  # how much nearer the pips' colour the stricter bars lie (of the way from the bar)


def _pip_shaped(stat: np.ndarray, amin: float, amax: float) -> bool:
    """Whether a spot (a row of connectedComponentsWithStats' stats) is a pip: of a pip's area, round and filling
    its box."""
    a = stat[cv2.CC_STAT_AREA]
    bw, bh = stat[cv2.CC_STAT_WIDTH], stat[cv2.CC_STAT_HEIGHT]
    return bool(amin <= a <= amax and min(bw, bh) / max(bw, bh) >= 0.55 and a / (bw * bh) >= 0.5)


def _inner_body(work: _Work, color: str, mask: np.ndarray, x: int, y: int) -> np.ndarray:
    """The die-coloured pixels of `mask` away from pips and edges (light pips must not raise the bar)."""
    h, w = mask.shape
    body = cv2.bitwise_and(work.strong[color][y : y + h, x : x + w], mask)
    return cv2.erode(body, _K3)


def _upper_face(
    work: _Work, b: _Blob, pm: np.ndarray, origin: tuple[int, int], s: float
) -> tuple[np.ndarray, float]:
    """The die's upper face (filled, pips included) inside its part mask (the part itself if none is found),
    and the area of the next largest bright region of the part (a second face lit like an upper face)."""
    x, y = origin
    h, w = pm.shape
    # this die's own brightest body pixels nearby set the bar: a brighter neighbour must not, and the light
    # may change across the die; the bevel and the side faces stay below it
    v = work.v[y : y + h, x : x + w]
    body = _inner_body(work, b.color.name, pm, x, y)
    if cv2.countNonZero(body) < 10:
        return pm, 0.0
    r = max(3, round(0.5 * s) | 1)
    # a light pip's blurred rim may pass for body colour and is brighter than the body: kept out of the bar
    rim = min(255, int(_PIP_RIM * _median_u8(v, body)))
    local = cv2.dilate(
        cv2.min(cv2.bitwise_and(v, body), rim),  # type: ignore[call-overload]
        cv2.getStructuringElement(cv2.MORPH_RECT, (r, r)),
    )
    top = cv2.compare(v.astype(np.float32), local.astype(np.float32) * 0.87, cv2.CMP_GE)
    top = cv2.bitwise_and(top, pm)
    # pips are holes in the face: filled first, the narrow strip between a row of pips and the face's edge
    # survives the opening that takes off the bevel's stray bright pixels
    contours, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(top, contours, -1, 255, cv2.FILLED)
    top = cv2.morphologyEx(top, cv2.MORPH_OPEN, _K3)
    contours, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return pm, 0.0
    contours = sorted(contours, key=cv2.contourArea, reverse=True)
    c = contours[0]
    second = cv2.contourArea(contours[1]) if len(contours) > 1 else 0.0
    if cv2.contourArea(c) < 0.4 * s * s:
        return pm, second
    core = np.zeros_like(pm)
    cv2.drawContours(core, [cv2.convexHull(c)], -1, 255, cv2.FILLED)  # convex: pips at its edge included
    return core, second


_PIP_RIM = 1.1  # body pixels brighter than this many times the body's median are a light pip's rim


_GRID = np.array([(gx, gy) for gx in (-_D, 0.0, _D) for gy in (-_D, 0.0, _D)])


def _empty_spots(
    dist: np.ndarray,
    thr: float,
    sel: np.ndarray,
    centre: np.ndarray,
    pips: np.ndarray,
    side: float,
    rot: float,
    face: int,
) -> float:
    """The most pip-like of the 3x3 pip places this face leaves empty: the fraction of a small disc there
    that differs from the body as a pip does (0: bare)."""
    a = math.radians(rot)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    rel = (pips - centre) / side
    # the variant of the face the pips match (2, 3 and 6 have two)
    layouts = [lay @ R.T for lay in LAYOUTS[face]]
    layout = min(
        layouts, key=lambda lay: float(np.linalg.norm(rel[:, None, :] - lay[None], axis=2).min(0).max())
    )
    grid = _GRID @ R.T
    empty = np.linalg.norm(grid[:, None, :] - layout[None], axis=2).min(axis=1) >= 0.05
    h, w = dist.shape
    r = max(1.0, 0.06 * side)
    worst = 0.0
    pip_like = (dist > thr) & sel
    for p in grid[empty]:
        cx, cy = centre + p * side
        x0, x1 = int(max(0, cx - r)), int(min(w, cx + r + 1))
        y0, y1 = int(max(0, cy - r)), int(min(h, cy + r + 1))
        if x1 <= x0 or y1 <= y0:
            continue
        inside = np.count_nonzero(sel[y0:y1, x0:x1])
        if inside:
            worst = max(worst, np.count_nonzero(pip_like[y0:y1, x0:x1]) / inside)
    return worst


def _grid_squareness(q: np.ndarray, face: int, rot: float, normals: Sequence[np.ndarray]) -> float:
    """How square the die's pip grid is across all of `normals`: the least of `_grid_ratios` (1 for none)."""
    return min(_grid_ratios(q, face, rot, normals), default=1.0)


def _grid_ratios(q: np.ndarray, face: int, rot: float, normals: Sequence[np.ndarray]) -> list[float]:
    """How square the die's pip grid is across each of `normals` (image directions): the scale of the pips'
    spread along the normal over the scale along the edge, fitted to the face's pattern (rotated by `rot`
    degrees, each pip matched to its nearest pattern place, once for all normals); min(ratio, 1 / ratio) (1:
    square), 0 where it cannot be measured. Only meaningful for a 2-D pattern (faces 4, 5, 6)."""
    a = math.radians(rot)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    best: tuple[float, np.ndarray] | None = None
    for lay in LAYOUTS[face]:
        target = lay @ R.T
        d = np.linalg.norm(q[:, None, :] - target[None] * _grid_scale(q, target), axis=2)
        err = float(d.min(axis=1).max())
        if best is None or err < best[0]:
            best = (err, target[d.argmin(axis=1)])
    assert best is not None
    L = best[1]
    ratios = []
    for n in normals:
        n = np.asarray(n, np.float64)
        t = np.array([-n[1], n[0]])
        ln, lt, qn, qt = L @ n, L @ t, q @ n, q @ t
        if float(ln @ ln) < 1e-9 or float(lt @ lt) < 1e-9:
            ratios.append(0.0)
            continue
        sn, st = float(qn @ ln) / float(ln @ ln), float(qt @ lt) / float(lt @ lt)
        if sn <= 0 or st <= 0:
            ratios.append(0.0)
            continue
        r = sn / st
        ratios.append(min(1.0, r, 1.0 / r))
    return ratios


def _grid_scale(q: np.ndarray, target: np.ndarray) -> float:
    """The scale from pattern units (die sides) to the observed pips' units, by their mean distance from the
    middle (1 pip: none)."""
    tq = float(np.sqrt((target**2).sum(axis=1).mean()))
    oq = float(np.sqrt((q**2).sum(axis=1).mean()))
    return oq / tq if tq > 0 else 1.0


_SQUARE_EXTRA = (
    0.35  # the most a band at a neighbour may exceed its allowance (die sides) and be a neighbour's
)
_NEAR_ALLOWANCE = 0.8  # a seam band beyond this share of its allowance asks a 2-D pip grid to be square
_NEAR_SQUARE = 0.97  # ... this square (flat dice seen there: 0.975 and more; cocked dice 0.949, 0.964)
_NEAR_MARGIN = (
    0.01  # ... and this much squarer than a die tilted by the least tilt would show (`_near_needed`)
)
_SQUARE_MIN = 0.975  # a pip grid at least this square across that band: flat (cos 18 degrees = 0.951)
_LEAST_TILT = math.radians(18)  # the least a cocked die leans at (the simulator's least tilt)


def _square_needed(towards: float) -> float:
    """How square a pip grid must be across a side that meets a neighbour to vouch for a flat die. `towards`:
    how far that side faces the middle of the picture, over the camera's height (both in die sides). A die
    leaning on a neighbour at that side tilts its upper face away from it; when the side faces away from the
    middle of the picture, the face tilts towards the camera, which sees it slanted by v = atan(-towards) and
    so foreshortened by only cos(t - v) / cos v (0.984 at 18 degrees, 6 degrees off the middle, where a flat
    die's grid measures 0.98-1.02): the bar rises by as much, to beyond 1 (no vouching) from about 4 degrees."""
    return _SQUARE_MIN + _slant(towards)


def _near_needed(towards: float, least: float | None = None) -> float:
    """How square a pip grid must be across a seam whose band nears its allowance (`towards` as in
    `_square_needed`): `least` (`_NEAR_SQUARE`), or where the camera's slant hides more of a tilt, `_NEAR_MARGIN`
    over what the least tilt shows there (cos(t - v) / cos v; a cocked die measures that within about 0.005 in the
    full picture, flat dice 0.989 and more)."""
    return max(
        _NEAR_SQUARE if least is None else least, math.cos(_LEAST_TILT) + _slant(towards) + _NEAR_MARGIN
    )


def _slant(towards: float) -> float:
    """How much less a die tilted by the least tilt towards the camera is squeezed across the side it leans at than
    one straight below the camera (see `_square_needed`): cos(t - v) / cos v - cos t, v = atan(-towards)."""
    v = math.atan(max(0.0, -towards))
    return math.cos(_LEAST_TILT - v) / math.cos(v) - math.cos(_LEAST_TILT)


def _ramp(x: float, good: float, bad: float) -> float:
    """1 at or below `good`, 0 at or above `bad`, linear between."""
    if x <= good:
        return 1.0
    if x >= bad:
        return 0.0
    return (bad - x) / (bad - good)


def _match_layout(q: np.ndarray, side: float, angle_deg: float) -> tuple[int | None, float, float]:
    """Match centred pip positions to a face pattern: (face or None, worst residual in sides, rotation)."""
    n = len(q)
    qn = q / side
    best_face, best_res, best_rot = None, 9.0, 0.0
    if n == 1:
        res = float(np.hypot(*qn[0]))
        return (1 if res <= 0.11 else None), res, 0.0
    perms = _PERMS[n]
    for layout in LAYOUTS[n]:
        for base in (angle_deg,):
            a = math.radians(base)
            R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
            target = layout @ R.T  # layout rotated into the picture
            # best assignment of observed pips to pattern positions
            cand = qn[perms]  # (P, n, 2): observed in every order
            d2 = ((cand - target[None]) ** 2).sum(axis=2).sum(axis=1)
            order = perms[int(np.argmin(d2))]
            obs = qn[order]
            # rotation fit (2D Procrustes, fixed scale)
            num = float((target[:, 0] * obs[:, 1] - target[:, 1] * obs[:, 0]).sum())
            den = float((target * obs).sum())
            da = math.atan2(num, den)
            if abs(math.degrees(da)) > 20:
                continue
            Rf = np.array([[math.cos(da), -math.sin(da)], [math.sin(da), math.cos(da)]])
            fitted = target @ Rf.T
            res = float(np.sqrt(((fitted - obs) ** 2).sum(axis=1)).max())
            if res < best_res:
                best_face, best_res, best_rot = n, res, base + math.degrees(da)
    if best_res > 0.11:
        return None, best_res, best_rot
    return best_face, best_res, best_rot


# --------------------------------------------------------------------------- side faces


def _weak_mask(work: _Work, color: DieColor) -> np.ndarray:
    """Die material of this colour (lenient: shaded side faces too), around the dice, once per frame."""
    weak = work.weak.get(color.name)
    if weak is None:
        weak = np.zeros(work.hsv.shape[:2], np.uint8)
        x0, y0, x1, y1 = work.dice_box
        if x1 > x0 and y1 > y0:
            felt = work.felt_v[y0:y1, x0:x1] if work.felt_v is not None else None
            sub: np.ndarray = _color_mask(
                [p[y0:y1, x0:x1] for p in work.planes],
                felt,
                color,
                lenient=True,
                felt_s=_felt_saturation(work),
            )
            sub = cv2.morphologyEx(sub, cv2.MORPH_OPEN, _K3)
            sub |= work.strong[color.name][y0:y1, x0:x1]  # type: ignore[misc]  # dice of this colour are its material
            weak[y0:y1, x0:x1] = sub
        work.weak[color.name] = weak
    return weak


def _clamp(a: np.ndarray, hi: int) -> np.ndarray:
    """np.clip(a, 0, hi) without np.clip's checks, which cost more than the clamping on a die's walks."""
    return np.minimum(np.maximum(a, 0), hi)


def _side_bands(
    work: _Work,
    color: DieColor,
    core: np.ndarray,
    pm: np.ndarray,
    origin: tuple[int, int],
    centre: tuple[float, float],
    dims: tuple[float, float],
    ang: float,
    others: np.ndarray | None = None,
    blob: int = 0,
) -> list[_Side]:
    """How far (work pixels) die material reaches beyond each of the 4 edges of the die's upper face,
    with each edge's outward normal, whether the material ends at another die's upper face (a seam: 2) or
    runs into a neighbour cut from the same shape (1), the band of the walks that end at the felt (the
    second widest of them, when at least `_FREE_MIN` but not all 7 do; else None), and, when all 7 end at
    the felt, the pixels they stepped over inside their band; at a seam, every pixel the walks crossed between
    this face and the other. `blob`: the label of the die's own blob (walks into another blob that holds an
    upper face run into another die).

    Walks outward from the middle of each edge of the upper face through pixels of this die's colour
    (lenient: shaded side faces count) and stops at the felt or at another die's upper face.
    """
    weak = _weak_mask(work, color)
    faces = work.face_labels
    assert faces is not None
    ox, oy = origin
    ch, cw = core.shape
    under = faces[oy : oy + ch, ox : ox + cw][core > 0]
    under = under[under > 0]
    own = (
        int(np.bincount(under).argmax()) if under.size else 0
    )  # this die's own face (0: none; labels start at 1)
    cx, cy = centre[0] + ox, centre[1] + oy
    a = math.radians(ang)
    ux, uy = math.cos(a), math.sin(a)
    vx, vy = -uy, ux
    H, W = weak.shape
    steps = int(0.8 * max(dims)) + 2
    gap = max(2, round(_BAND_GAP * max(dims)))  # a side face's pips interrupt its colour: step over them
    hole = round(_PIP_HOLE * max(dims))  # ... even a longer run, when this die's material closes it
    sides = (
        ((ux, uy), dims[0] / 2, (vx, vy), dims[1]),
        ((-ux, -uy), dims[0] / 2, (vx, vy), dims[1]),
        ((vx, vy), dims[1] / 2, (ux, uy), dims[0]),
        ((-vx, -vy), dims[1] / 2, (ux, uy), dims[0]),
    )
    # all 4 x 7 walks at once: start points and directions
    frac = np.linspace(-0.3, 0.3, 7)
    px = np.concatenate([cx + n[0] * (half - 1) + t[0] * frac * along for n, half, t, along in sides])
    py = np.concatenate([cy + n[1] * (half - 1) + t[1] * frac * along for n, half, t, along in sides])
    dx = np.repeat([n[0] for n, _, _, _ in sides], 7)
    dy = np.repeat([n[1] for n, _, _, _ in sides], 7)
    ks = np.arange(1, steps, dtype=np.float64)
    qx = np.rint(px[:, None] + dx[:, None] * ks[None, :]).astype(np.intp)
    qy = np.rint(py[:, None] + dy[:, None] * ks[None, :]).astype(np.intp)
    inb = (qx >= 0) & (qx < W) & (qy >= 0) & (qy < H)
    qxc, qyc = _clamp(qx, W - 1), _clamp(qy, H - 1)
    lx, ly = qx - ox, qy - oy
    loc = (lx >= 0) & (lx < cw) & (ly >= 0) & (ly < ch)
    in_core = loc & (core[_clamp(ly, ch - 1), _clamp(lx, cw - 1)] > 0)
    lab = faces[qyc, qxc]
    other_face = (lab > 0) & (lab != own)
    material = weak[qyc, qxc] > 0
    if others is not None:  # a neighbour cut from the same shape
        neighbour = loc & (others[_clamp(ly, ch - 1), _clamp(lx, cw - 1)] > 0)
    else:
        neighbour = np.zeros_like(loc)
    # another die's shape (a blob of its own, holding an upper face): its bevel and side faces lie there
    elsewhere = neighbour
    another = np.zeros_like(loc)
    if work.blob_labels is not None and blob:
        bl = work.blob_labels[qyc, qxc]
        another = inb & (bl != blob) & work.die_blobs[bl]
        elsewhere = neighbour | another
    ib_rows, core_rows = inb.tolist(), in_core.tolist()
    oth_rows, mat_rows, nb_rows = other_face.tolist(), material.tolist(), neighbour.tolist()
    else_rows, another_rows = elsewhere.tolist(), another.tolist()
    reach_along = max(1, round(_PIP_ALONG * max(dims)))

    def closed(r: int, side: int, last: int, k: int) -> int:
        # a walk that left this die's material after step `last` and meets it again within `hole` steps, before
        # any other die's, through a spot that this die's material bounds along the edge too: a side face's pips
        # seen at a slant (two of them, one above the other, merge into one spot longer across the edge than
        # `gap`); beyond a flat die's bevel lie the felt, or the strip of felt between it and another die.
        # The step where the material closes the spot, or -1
        mat, els, oth = mat_rows[r], else_rows[r], oth_rows[r]
        for j in range(k + 1, min(last + hole + 1, len(mat))):
            if oth[j] or els[j]:
                return -1
            if mat[j]:
                t = sides[side][2]
                ys, xs = qyc[r, last + 1 : j], qxc[r, last + 1 : j]
                spot = np.stack([ys, xs], axis=1)
                return j if _spots_along(weak, spot, np.array((t[1], t[0])), reach_along) == len(ys) else -1
        return -1

    out: list[_Side] = []
    for side in range(4):
        reach = []
        free = []  # the walks that ended at the felt: neither at another die's upper face nor in another die
        ended = []  # the walks that ended at the felt or at another die's upper face (not inside another die)
        gaps: list[tuple[int, int]] = []  # (walk, step) the free walks stepped over between die material
        between: list[
            tuple[int, int, int, int]
        ] = []  # (walk, step, steps from the edge, steps to the other face)
        seams = contacts = crossed = 0
        met_face = 0  # the other die's upper face the walks met (its label)
        for r in range(side * 7, side * 7 + 7):
            ib, cor, oth, mat, nb, els = (
                ib_rows[r],
                core_rows[r],
                oth_rows[r],
                mat_rows[r],
                nb_rows[r],
                else_rows[r],
            )
            ano = another_rows[r]
            start = last = None
            closes = -1  # the step where this die's material closes the spot the walk is in (see `closed`)
            met = touched = other = False
            for k in range(len(ib)):
                if not ib[k]:
                    break
                if start is None:
                    if cor[k]:
                        continue
                    start = last = k - 1
                if oth[k]:
                    met = True
                    met_face = int(lab[r, k])
                    if start is not None:
                        between += [(r, j, j - start, k - j) for j in range(start + 1, k)]
                    break  # another die's upper face
                if nb[k] and mat[k]:
                    touched = (
                        True  # a neighbour's bevel or side face (it touches this die past its upper face)
                    )
                if els[k] and mat[k]:
                    other = True
                if mat[k]:
                    if ano[k] and k - last > 1:  # type: ignore[operator]
                        other = True
                        break  # another die's material across a gap: its bevel or side face, not this die's
                    last = k
                elif k - last > gap and k > closes:  # type: ignore[operator]
                    closes = closed(r, side, last, k)  # type: ignore[arg-type]  # the spot is stepped through up to there
                    if closes < 0:
                        break
            seams += met
            contacts += touched or met
            crossed += other
            reach.append(last - start if start is not None and last is not None else 0)
            if met or not other:
                ended.append(reach[-1])
            if not (met or other):
                free.append(reach[-1])
                if start is not None and last is not None:
                    gaps += [(r, k) for k in range(start + 1, last) if not mat[k]]
        reach.sort()
        free.sort()
        n = sides[side][0]
        # a side face lies along the whole edge: when most walks end at the felt, they alone tell whether this
        # die shows one (the walks that ran on into another die's upper face measured that die's edge too)
        free_band = float(free[-2]) if _FREE_MIN <= len(free) < len(reach) else None
        if len(free) < len(
            reach
        ):  # a neighbour lies beyond: what the walks stepped over may be its side face's pips
            gaps = []
        if gaps:
            rows, cols = (np.array(v, np.intp) for v in zip(*gaps))
            # two walks may cross the same pixel: each pixel once, as `_SIDE_PIPS_MIN` counts pixels
            stepped = np.unique(np.stack([qyc[rows, cols], qxc[rows, cols]], axis=1), axis=0)
        else:
            stepped = _NO_GAPS
        # a walk that ran on inside another die (a neighbour's bevel, side face or body, met past its corner)
        # measured that die too; a side face lies along the whole edge, so the walks that ended tell it, when
        # enough of them did that two stopped short by a side face's pips cannot hide it
        ended.sort()
        band = ended[-_ENDED_RANK] if len(ended) >= _ENDED_MIN else reach[_BAND_RANK]
        seam_px = _NO_BETWEEN
        if between and seams >= 3:
            bw = np.array(between, np.intp)
            seam_px = np.stack([qyc[bw[:, 0], bw[:, 1]], qxc[bw[:, 0], bw[:, 1]], bw[:, 2], bw[:, 3]], axis=1)
        out.append(
            _Side(
                float(band),
                np.array(n),
                2 if seams >= 3 else (1 if contacts >= 3 else 0),
                free_band,
                stepped,
                met_face if seams >= 3 else 0,
                own,
                crossed,
                seam_px,
            )
        )
    return out


_NO_GAPS = np.zeros((0, 2), np.intp)
_NO_BETWEEN = np.zeros((0, 4), np.intp)


class _Side(NamedTuple):
    """One edge of a die's upper face, as the walks out from it found it (see `_side_bands`)."""

    reach: float  # the band: how far die material reaches beyond the edge (work pixels)
    normal: np.ndarray  # the edge's outward normal
    seam: int  # 2: the walks met another die's upper face; 1: a neighbour cut from the same shape; 0: neither
    free_band: float | None  # the band of the walks that ended at the felt, when only some did
    gaps: (
        np.ndarray
    )  # (y, x) work pixels the walks stepped over between die material, when all 7 end at the felt
    met: int = 0  # the label of the other die's upper face the walks met (a seam: 2), else 0
    own: int = 0  # the label of this die's own upper face (0: none found)
    crossed: int = 0  # the walks that ran into another die's material (a neighbour's part or shape)
    between: np.ndarray = (
        _NO_BETWEEN  # at a seam: (y, x, steps from this edge, steps to the other face) walked
    )


def _side_face_pips(
    work: _Work,
    color: DieColor,
    bands: Sequence[_Side],
    centre: tuple[float, float],
    body: np.ndarray,
    pip: np.ndarray,
    side: float,
    pip_px: float,
) -> int:
    """How many pixels of a side face's pips the walks found beyond the edges of the upper face that face away
    from the middle of the picture: pixels they stepped over between die material (at sides where every
    walk ended at the felt) that are nearer this die's pip colour than its body colour, lie in a spot no
    longer along the edge than a pip (not a strip of felt between two dice) and away from every other die's
    upper face (not a neighbour's side face, nor the felt between the two)."""
    axis = pip - body
    norm = float(axis @ axis)
    if norm < 1.0:
        return 0
    count = 0
    for sd in bands:
        if sd.gaps.size == 0 or float(np.dot(np.array(work.principal) - centre, sd.normal)) > 0:
            continue  # a side that faces the camera shows a flat die's side face, pips and all
        colours = work.bgr[sd.gaps[:, 0], sd.gaps[:, 1]].astype(np.float32)
        spots = sd.gaps[(colours - body) @ axis >= _PIP_LIKE * norm]
        if len(spots):
            spots = spots[_clear_of_other_faces(work, spots, centre, _CLEAR * side)]
        if len(spots):
            along = np.array((sd.normal[0], -sd.normal[1]))  # the edge's direction, (y, x)
            count += _spots_along(_weak_mask(work, color), spots, along, pip_px)
    return count


def _band_brightness(work: _Work, between: np.ndarray, side: float) -> float:
    """The median brightness of the middle of a seam band (`_Side.between`): farther than `_LIT_MARGIN` from this
    die's edge (its bevel) and from the other die's upper face (that die's bevel); 0 when too little is left."""
    mid = between[(between[:, 2] >= _LIT_MARGIN * side) & (between[:, 3] >= _LIT_MARGIN * side)]
    if len(mid) < 5:
        return 0.0
    return float(np.median(work.v[mid[:, 0], mid[:, 1]]))


def _face_in_colour(work: _Work, label: int, color: DieColor) -> float:
    """The share of upper face `label` (pips and all) that is die material of `color` (a die of that colour:
    0.6 and more; of another: 0). A face with no pixel left counts as this colour: its seam keeps the seam's
    allowance."""
    assert work.face_labels is not None
    x, y, w, h = cv2.boundingRect(work.face_hulls[label - 1])
    face = work.face_labels[y : y + h, x : x + w] == label
    area = int(np.count_nonzero(face))
    if not area:
        return 1.0
    return int(np.count_nonzero(work.strong[color.name][y : y + h, x : x + w][face])) / area


def _clear_of_other_faces(
    work: _Work, spots: np.ndarray, centre: tuple[float, float], reach: float
) -> np.ndarray:
    """Which of `spots` ((y, x)) lie farther than `reach` from every other die's upper face (a neighbour's side
    face and bevel, and the felt between two dice, lie near that die's upper face)."""
    labels = work.face_labels
    assert labels is not None
    H, W = labels.shape
    own = labels[min(H - 1, max(0, int(centre[1]))), min(W - 1, max(0, int(centre[0])))]
    r = math.ceil(reach) + 1
    y0, x0 = max(0, int(spots[:, 0].min()) - r), max(0, int(spots[:, 1].min()) - r)
    y1, x1 = min(H, int(spots[:, 0].max()) + r + 1), min(W, int(spots[:, 1].max()) + r + 1)
    win = labels[y0:y1, x0:x1]
    others = np.where((win > 0) & (win != own), 0, 255).astype(np.uint8)
    if others.all():
        return np.ones(len(spots), bool)
    dist = cv2.distanceTransform(others, cv2.DIST_L2, 3)
    return dist[spots[:, 0] - y0, spots[:, 1] - x0] > reach


def _spots_along(material: np.ndarray, spots: np.ndarray, along: np.ndarray, length: float) -> int:
    """How many of `spots` ((y, x) pixels off `material`) have material within `length` on both sides
    along `along` ((y, x)): a pip is a spot, a strip of felt between two dice runs on along the edge."""
    H, W = material.shape
    ks = np.arange(1, math.ceil(length) + 1)
    bounded = np.ones(len(spots), bool)
    for sign in (1, -1):
        ys = np.rint(spots[:, 0:1] + sign * along[0] * ks[None]).astype(np.intp)
        xs = np.rint(spots[:, 1:2] + sign * along[1] * ks[None]).astype(np.intp)
        inside = (ys >= 0) & (ys < H) & (xs >= 0) & (xs < W)
        hit = inside & (material[np.clip(ys, 0, H - 1), np.clip(xs, 0, W - 1)] > 0)
        bounded &= hit.any(axis=1)
    return int(np.count_nonzero(bounded))


#: the share of the side-band allowance at an edge that faces away from the middle of the picture and touches
#: nothing (clean flat dice: p99.9 0.11 die there; a cocked die at the allowance's edge: 0.197)
_AWAY_SHARE = 0.8
_OWN_COLOUR = 0.3  # the share of a neighbour's upper face in this die's colour below which it is of another
_PIP_LIKE = 0.5  # a pixel at least halfway from the die's body colour towards its pips' colour
_CLEAR = 0.4  # die sides: spots nearer another die's upper face may be that die's (its side face, the felt between)
_SIDE_PIPS_MIN = (
    2  # pixels of side-face pips beyond an edge facing away that make a die cocked (not one noisy pixel)
)
_SEAM = 1.8
_OFFSET_AWAY = (
    0.08  # die sides: how far the upper face's middle may lie from its pips' away from the picture's middle
)
_FACE_AREA_MAX = (
    1.02  # the largest upper face of a flat die (dice squared; clean frames: at most 0.98 of 5598)
)
_LIT_WIDTH = (
    0.25  # a seam band at least this wide (die sides, perspective allowed for) is asked how bright it is
)
_LIT_MARGIN = 0.1  # the bevels at both ends of a seam band (die sides), left out of its brightness
_LIT = 0.7  # a seam band's middle this bright (of the upper face's brightness) is a cocked die's side face
_PIP_FAR = 0.42  # a pip farther than this from the face's middle (dice) is beyond the grid's corners (0.35)
_FLAT_LONGEST = 1.17  # the longest a whole flat die's outline measures, in dice, perspective allowed for
_SEAM_AWAY = 1.7  # at a seam that faces away from the middle of the picture (see `_read_die`)
_CONTACT = 0.06  # a neighbour's bevel met past a corner of this die (not its upper face)
_BAND_RANK = 4  # the third widest of the 7 walks (a side face's pips may stop the others)
_ENDED_MIN = (
    5  # walks that must end (at the felt or another die's upper face) for a side to be judged by them
)
_ENDED_RANK = 3  # the third widest of them
_BAND_GAP = 0.16
_PIP_HOLE = 0.3  # the longest run off die material across an edge that a side face's pips leave (die sides)
_PIP_ALONG = (
    0.25  # ... and how far along the edge this die's material must bound it (a pip, not a strip of felt)
)
_FREE_MIN = 4  # walks that must end at the felt for a side to be judged by them alone


def _felt_saturation(work: _Work) -> int:
    """The felt's typical saturation (one number: a coloured felt or a grey one)."""
    return work.felt_s if work.felt_s is not None else 0
