"""The learned dice reader, chosen by ``reader="learned"`` (in the calibration or the call): one camera frame
in, a :class:`Reading` out, pure. The studio's default is the rule reader of :mod:`recognition.dice.vision`.

:func:`read_dice_learned` finds the dice against the background (:mod:`recognition.dice.find`), then reads
each die's upper face twice, independently: by counting its pips and checking their layout
(:mod:`recognition.dice.pips`) and by a small learned classifier on the die crop
(:mod:`recognition.dice.classifier`). A die is certified only when both readers give the same face
and the classifier is sure of it; anything else holds with the reason (see docs/dice-vision.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from .calibration import Calibration, DieColor
from .classifier import FaceClassifier, default_classifier
from .find import Candidate, find_dice
from .pips import count_pips
from .reading import ISSUE_TEXT, DieReading, Issue, Reading

__all__ = ["read_dice_learned"]

#: a patch this much longer than wide is a die leaning on something (its side face shows): a calibrated
#: camera looks down on the dice (a flat die's patch: 1.13 at most in 95 of 100, 1.21 in 99); one that
#: is not may look at a slant that shows a flat die's side faces
_COCKED_ASPECT = 1.2
_SLANTED_ASPECT = 1.5
#: the least share of a side face a camera must see of a flat die to see pips on it (the nearest pips lie
#: a quarter of a side in)
_SIDE_PIPS_SHOW = 0.25
#: patches smaller than this share of a die are noise (dust, a pip-sized spot)
_LEAST_DIE = 0.5
#: a patch this long for its width, or of more die areas than this, is no heap of dice
_STRIP = 2.5
_MOST_DICE = 8.0


def read_dice_learned(
    image: np.ndarray,
    calibration: Calibration | None = None,
    expected: int | None = None,
    colors: Sequence[str] | None = None,
    *,
    classifier: FaceClassifier | None = None,
) -> Reading:
    """Read the dice in one BGR frame.

    calibration: the camera's calibration (None: the whole frame, the default colours, sizes
        estimated from the frame).
    expected: how many dice were thrown (None: any number, at least one).
    colors: the colours the dice must have, one per die (e.g. ["red", "blue"]); None: any.
    classifier: the learned reader (default: the committed model).
    """
    cal = calibration or Calibration()
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError("read_dice needs an 8-bit BGR image (height, width, 3)")
    if colors is not None:
        cal = cal.restricted_to(colors)
    net = classifier or default_classifier()
    h, w = image.shape[:2]
    tray, region = _tray(cal, w, h)
    found = find_dice(image, cal.die_size, region, expected=expected)
    issues: list[Issue] = []
    felt_value, exposure_bad = _exposure(found.background, cal)
    if exposure_bad:
        issues.append(Issue("exposure", ISSUE_TEXT["exposure"]))
    dice_c: list[Candidate] = []
    for c in found.candidates:
        if c.dice < _LEAST_DIE:
            continue
        if c.crop is None:  # a patch of several dice that could not be cut into whole dice
            if c.aspect > _STRIP or c.dice > _MOST_DICE:
                continue  # a strip (a tray's wall, a cable) or a wide patch: no dice
            issues.append(Issue("touching", ISSUE_TEXT["touching"], where=c.center))
            continue
        dice_c.append(c)
    reads = [count_pips(c.crop, c.mask) for c in dice_c if c.crop is not None]
    guesses = net.classify([c.crop for c in dice_c if c.crop is not None]) if net is not None else []
    dice: list[DieReading] = []
    for i, (c, pr) in enumerate(zip(dice_c, reads, strict=True)):
        g = guesses[i] if guesses else None
        if pr.face is None and not pr.pips and (g is None or g.face is None or g.probability < 0.9):
            continue  # no pips and not surely a face to the network: not a die (a cable, a hole, a shadow)
        problem = None
        agree = g is not None and g.face is not None and g.face == pr.face
        # the pip counter's agreement quarters the network's doubt: at the default min_confidence (0.9)
        # the network must give 0.6 (on the fit photos no image whose dice both readers agreed on at 0.5
        # or more was read wrong)
        conf = 1.0 - (1.0 - g.probability) / 4 if agree and g is not None else 0.0
        if (
            c.aspect > (_COCKED_ASPECT if cal.die_size is not None else _SLANTED_ASPECT)
            or (g is not None and g.face is None and g.probability >= 0.5)
            or (pr.off_face and _side_hidden(c, cal, w, h))
        ):
            problem = "cocked"
        elif not agree:
            problem = "unreadable"
        elif conf < cal.min_confidence:
            problem = "low_confidence"
        if tray is not None and cv2.pointPolygonTest(tray, c.center, False) < 0:
            problem = "outside"
        color = _colour_name(c, cal, found.background, w, h)
        crop_to_frame = _crop_to_frame(c)
        dice.append(
            DieReading(
                face=pr.face if problem is None else None,
                color=color,
                center=c.center,
                size=c.size,
                angle=c.angle,
                confidence=conf if problem is None else min(conf, 0.5),
                corners=c.corners,
                pips=tuple(tuple(map(float, crop_to_frame(p))) for p in pr.pips),  # type: ignore[misc]
                problem=problem,
                checks={"pip_residual": pr.residual, "contrast": pr.contrast, "network": conf},
            )
        )
    for k, d in enumerate(dice):
        if d.problem:
            issues.append(
                Issue(d.problem, ISSUE_TEXT[d.problem] + f" ({_die_words(d)})", die=k, where=d.center)
            )
    n = len(dice)
    if expected is not None and n < expected:
        issues.append(Issue("missing", ISSUE_TEXT["missing"] + f" ({n} of {expected} seen)"))
    elif expected is not None and n > expected:
        issues.append(Issue("extra", ISSUE_TEXT["extra"] + f" ({n}, {expected} expected)"))
    if n == 0 and expected is None:
        issues.append(Issue("missing", "no dice found"))
    if colors is not None and not issues and sorted(d.color for d in dice) != sorted(colors):
        issues.append(Issue("colors", ISSUE_TEXT["colors"]))
    conf = min((d.confidence for d in dice), default=0.0)
    return Reading(
        status="ok" if not issues and n else "uncertain",
        dice=tuple(dice),
        issues=tuple(_dedupe(issues)),
        expected=expected,
        confidence=conf,
        size=(w, h),
        tray=tuple((float(x), float(y)) for x, y in tray.reshape(-1, 2)) if tray is not None else None,
        die_size=found.die_size,
        felt_value=felt_value,
    )


def _side_hidden(c: Candidate, cal: Calibration, w: int, h: int) -> bool:
    """True when the camera, as calibrated, cannot see a flat die's side face well enough to show its pips
    there: the side face shows by the die's distance from the picture's middle over the camera's height
    (both in dice). Pips beside the upper face then mean a die that leans."""
    if cal.die_size is None:
        return False  # an uncalibrated camera may look at the dice at a slant
    side = (cal.die_size[0] + cal.die_size[1]) / 2
    off = float(np.hypot(c.center[0] - w / 2, c.center[1] - h / 2)) / side
    return off / cal.camera_height < _SIDE_PIPS_SHOW


def _tray(cal: Calibration, w: int, h: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The tray outline (float32 contour) and the searched region, frame pixels.

    Only the tray is searched: the rim's edge and grain would join the dice near it. A die on the rim
    is not seen, so the throw is held as one with a die missing (``search_margin`` is not used); a die
    whose middle lies beyond the tray's edge is held as outside."""
    if cal.tray is None:
        return None, None
    poly = np.array(cal.tray, np.float32).reshape(-1, 1, 2)
    region = np.zeros((h, w), np.uint8)
    cv2.fillPoly(region, [np.round(poly).astype(np.int32)], 255)
    return poly, region


def _exposure(background: np.ndarray, cal: Calibration) -> tuple[float, bool]:
    v = cv2.cvtColor(background, cv2.COLOR_BGR2HSV)[..., 2]
    value = float(np.median(v))
    lo, hi = cal.exposure.felt_value
    return value, not lo <= value <= hi


def _colour_name(c: Candidate, cal: Calibration, background: np.ndarray, w: int, h: int) -> str:
    """The first calibrated colour the die's body matches (its median pixel), else "unknown"."""
    assert c.crop is not None and c.mask is not None
    hsv = cv2.cvtColor(c.crop, cv2.COLOR_BGR2HSV)
    sel = cv2.erode((c.mask > 0).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    if sel.sum() < 20:
        sel = c.mask > 0
    sat, val = (int(np.median(hsv[..., i][sel])) for i in (1, 2))
    # hue is an angle (red lies at both ends of OpenCV's 0-179): its mean as a direction, not a median
    a = hsv[..., 0][sel].astype(np.float64) * (np.pi / 90)
    hue = round(float(np.degrees(np.arctan2(np.sin(a).sum(), np.cos(a).sum()))) / 2) % 180
    bh, bw = background.shape[:2]
    bx = min(bw - 1, int(c.center[0] / w * bw))
    by = min(bh - 1, int(c.center[1] / h * bh))
    felt = float(cv2.cvtColor(background[by : by + 1, bx : bx + 1], cv2.COLOR_BGR2HSV)[0, 0, 2])
    for col in cal.colors:
        if _matches(col, hue, sat, val, felt):
            return col.name
    return "unknown"


def _matches(col: DieColor, hue: int, sat: int, val: int, felt: float) -> bool:
    if col.hue is not None:
        lo, hi = col.hue
        if not (lo <= hue <= hi if lo <= hi else hue >= lo or hue <= hi):
            return False
    if not col.saturation[0] <= sat <= col.saturation[1] or not col.value[0] <= val <= col.value[1]:
        return False
    return col.brightness is None or val >= col.brightness * felt * 0.8


def _crop_to_frame(c: Candidate):  # type: ignore[no-untyped-def]
    from .find import CROP, CROP_MARGIN

    f = c.size * CROP_MARGIN / CROP
    a = np.radians(c.angle)
    ca, sa = np.cos(a), np.sin(a)

    def to_frame(p: tuple[float, float]) -> tuple[float, float]:
        x, y = (p[0] - CROP / 2) * f, (p[1] - CROP / 2) * f
        return (c.center[0] + ca * x + sa * y, c.center[1] - sa * x + ca * y)

    return to_frame


def _die_words(d: DieReading) -> str:
    return f"{d.color} die at ({d.center[0]:.0f}, {d.center[1]:.0f})"


def _dedupe(issues: list[Issue]) -> list[Issue]:
    seen: set[tuple[str, str]] = set()
    out = []
    for i in issues:
        if (i.code, i.message) not in seen:
            seen.add((i.code, i.message))
            out.append(i)
    return out
