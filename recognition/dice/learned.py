"""The learned dice reader, chosen by ``reader="learned"`` (in the calibration or the call): one camera frame
in, a :class:`Reading` out, pure.

:func:`read_dice_learned` finds the dice with a small learned detector (:mod:`recognition.dice.detector`),
then reads each die's upper face from a crop at full resolution with a second network
(:mod:`recognition.dice.classifier`) and by counting its pips (:mod:`recognition.dice.pips`). A die is
certified only when the crop network is sure enough and the pip counter does not read another face:
surer when the pip counter reads none than when it reads the same face (docs/dice-vision.md, 2.2).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .calibration import Calibration, DieColor
from .classifier import CLASSES, FaceClassifier, crop_die, default_classifier
from .detector import Detection, DiceDetector, default_detector
from .find import CROP, CROP_MARGIN, find_dice
from .pips import PipReading, count_pips
from .reading import ISSUE_TEXT, DieReading, Issue, Reading

__all__ = ["POLICY", "Evidence", "Policy", "decide", "evidence", "read_dice_learned"]


@dataclass(frozen=True)
class Policy:
    """When a die is taken for a die and when its face is certified (chosen on the tuning photos, a fifth
    of the fit part kept out of training; never on the validation part)."""

    #: the least heatmap peak that is a die; a weaker peak (down to the detector's PEAK) is a doubt
    die: float = 0.45
    #: the crop network's least probability for its face when the pip counter reads the same face
    agreed: float = 0.9
    #: ... and when the pip counter reads no face (it may not contradict: another face holds the die)
    alone: float = 0.96
    #: "not flat" at this share of the detector's peak, or the crop network's reject class at this: cocked
    cocked: float = 0.3
    #: a weaker peak this strong, not a die's duplicate, holds the frame (a die the detector half sees)
    doubt: float = 0.4
    #: a peak the crop network gives its reject class this much, and the detector calls flat, is no die
    #: (a tray's screw head, a cable's end); were it a die, the count of dice would be short: held
    no_die: float = 0.9


POLICY = Policy()
#: two peaks nearer than this share of a die are one die
_SAME = 0.55
#: a peak nearer the searched picture's edge than this share of a die is not taken (were it a die of the
#: throw, the count of dice would be short: held)
_EDGE = 0.3


def read_dice_learned(
    image: np.ndarray,
    calibration: Calibration | None = None,
    expected: int | None = None,
    colors: Sequence[str] | None = None,
    *,
    classifier: FaceClassifier | None = None,
    detector: DiceDetector | None = None,
    policy: Policy = POLICY,
) -> Reading:
    """Read the dice in one BGR frame.

    calibration: the camera's calibration (None: the whole frame, the default colours, sizes
        estimated from the frame).
    expected: how many dice were thrown (None: any number, at least one).
    colors: the colours the dice must have, one per die (e.g. ["red", "blue"]); None: any.
    classifier, detector: the networks (default: the committed models).
    """
    cal = calibration or Calibration()
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError("read_dice needs an 8-bit BGR image (height, width, 3)")
    if colors is not None:
        cal = cal.restricted_to(colors)
    net = classifier or default_classifier()
    det = detector or default_detector()
    h, w = image.shape[:2]
    tray = np.array(cal.tray, np.float32).reshape(-1, 1, 2) if cal.tray is not None else None
    side = (cal.die_size[0] + cal.die_size[1]) / 2 if cal.die_size is not None else None
    issues: list[Issue] = []
    ev = evidence(image, cal, detector=det, classifier=net, policy=policy)
    if not cal.exposure.felt_value[0] <= ev.felt_value <= cal.exposure.felt_value[1]:
        issues.append(Issue("exposure", ISSUE_TEXT["exposure"]))
    ev_dice, ev_doubts = ev.sorted_out(policy)
    dice: list[DieReading] = []
    for d, p, pr in ev_dice:
        problem, face, conf = decide(d, p, pr, cal.min_confidence, policy)
        if tray is not None and cv2.pointPolygonTest(tray, d.center, False) < 0:
            problem, face = "outside", None
        dice.append(_die_reading(image, d, pr, problem, face, conf, p, cal))
    for k, dr in enumerate(dice):
        if dr.problem:
            issues.append(
                Issue(dr.problem, ISSUE_TEXT[dr.problem] + f" ({_die_words(dr)})", die=k, where=dr.center)
            )
    for d in ev_doubts:
        issues.append(Issue("unreadable", "something die-like is half seen", where=d.center))
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
        die_size=float(np.median([np.sqrt(d.size[0] * d.size[1]) for d, _, _ in ev_dice]))
        if ev_dice
        else side,
        felt_value=ev.felt_value,
    )


@dataclass(frozen=True)
class Evidence:
    """What the three readers say about a frame, before any decision."""

    peaks: list[tuple[Detection, np.ndarray, PipReading]]  # a peak, the crop network's probabilities, pips
    felt_value: float

    def sorted_out(
        self, policy: Policy = POLICY
    ) -> tuple[list[tuple[Detection, np.ndarray, PipReading]], list]:
        """(the dice, the peaks half seen): peaks that are no die dropped."""
        dice, doubts = [], []
        for d, p, pr in self.peaks:
            if p[-1] >= policy.no_die and d.cocked < policy.cocked and pr.face is None:
                continue
            if d.score >= policy.die:
                dice.append((d, p, pr))
            elif d.score >= policy.doubt:
                doubts.append(d)
        return dice, doubts


def evidence(
    image: np.ndarray,
    cal: Calibration,
    *,
    detector: DiceDetector | None,
    classifier: FaceClassifier | None,
    policy: Policy = POLICY,
) -> Evidence:
    """Every die the detector finds with the crop network's and the pip counter's readings of it."""
    tray = np.array(cal.tray, np.float32).reshape(-1, 1, 2) if cal.tray is not None else None
    side = (cal.die_size[0] + cal.die_size[1]) / 2 if cal.die_size is not None else None
    found = _found(image, detector, tray, side) if detector is not None else []
    dice_d = [d for d in found if d.score >= min(policy.die, policy.doubt)]
    crops = [crop_die(image, d.center, d.size) for d in dice_d]
    if classifier is not None and crops:
        probs = classifier.probabilities(crops)
    else:  # no network: every die reads "reject" and is held
        probs = np.tile(np.eye(len(CLASSES), dtype=np.float32)[-1], (len(crops), 1))
    pips = [_pips(image, d, q, policy) for d, q in zip(dice_d, probs, strict=True)]
    return Evidence(list(zip(dice_d, probs, pips, strict=True)), _felt_value(image, found, tray))


def _found(
    image: np.ndarray, det: DiceDetector, tray: np.ndarray | None, side: float | None
) -> list[Detection]:
    """The detector's peaks (strongest first, duplicates dropped); with a tray, only the tray and a die's
    width round it are searched (a die on the rim is found, and held as outside)."""
    h, w = image.shape[:2]
    x0 = y0 = 0
    view = image
    if tray is not None:
        pad = 1.5 * (side or 0.05 * max(w, h))
        bx, by, bw, bh = cv2.boundingRect(tray.reshape(-1, 2))
        x0, y0 = max(0, int(bx - pad)), max(0, int(by - pad))
        x1, y1 = min(w, int(bx + bw + pad)), min(h, int(by + bh + pad))
        view = image[y0:y1, x0:x1]
    dets, _ = det.detect(view, side)
    dets = sorted(dets, key=lambda d: -d.score)
    out: list[Detection] = []
    vh, vw = view.shape[:2]
    for d in dets:
        s = np.sqrt(d.size[0] * d.size[1])
        if min(d.center[0], d.center[1], vw - d.center[0], vh - d.center[1]) < _EDGE * s:
            continue  # most of it beyond the picture: the network's edge effect, or a die not in view
        c = (d.center[0] + x0, d.center[1] + y0)
        if any(np.hypot(c[0] - o.center[0], c[1] - o.center[1]) < _SAME * s for o in out):
            continue
        out.append(Detection(c, d.size, d.score, d.cocked, d.faces))
    return out


def _pips(image: np.ndarray, d: Detection, p: np.ndarray, policy: Policy) -> PipReading:
    """The pip counter's reading of one die. First on CROP x CROP round the detection, upright as the
    frame is (cheap); when that reads another face than the crop network, or none while the network
    alone is not sure enough, again on the classical finder's crop and mask of the die (upright, its own
    pixels) from a window of three dice round it, when it finds one die there."""
    side = float(np.sqrt(d.size[0] * d.size[1]))
    c = (float(d.center[0]), float(d.center[1]))
    m = max(4, round(side * CROP_MARGIN))
    quick = count_pips(
        cv2.resize(cv2.getRectSubPix(image, (m, m), c), (CROP, CROP), interpolation=cv2.INTER_AREA)
    )
    k = int(np.argmax(p))
    if k == len(p) - 1 or quick.face == k + 1 or (quick.face is None and p[k] >= policy.alone):
        return quick
    n = max(12, round(side * 3))
    mid = (n - 1) / 2
    near = [
        f
        for f in find_dice(cv2.getRectSubPix(image, (n, n), c), (side * 0.85, side * 1.15)).candidates
        if f.crop is not None
        and 0.6 <= f.dice <= 1.6
        and np.hypot(f.center[0] - mid, f.center[1] - mid) < 0.3 * side
    ]
    if len(near) != 1:
        return quick
    f = near[0]
    upright = count_pips(f.crop, f.mask)  # type: ignore[arg-type]
    # its pips in the quick crop's frame (the finder's crop is turned and scaled otherwise)
    fs = f.size * CROP_MARGIN / CROP
    a = np.radians(f.angle)
    back = tuple(
        (
            (f.center[0] - mid + np.cos(a) * (x - CROP / 2) * fs + np.sin(a) * (y - CROP / 2) * fs) * CROP / m
            + CROP / 2,
            (f.center[1] - mid - np.sin(a) * (x - CROP / 2) * fs + np.cos(a) * (y - CROP / 2) * fs) * CROP / m
            + CROP / 2,
        )
        for x, y in upright.pips
    )
    return dataclasses.replace(upright, pips=back)  # type: ignore[arg-type]


def decide(
    d: Detection, p: np.ndarray, pr: PipReading, min_conf: float, policy: Policy = POLICY
) -> tuple[str | None, int | None, float]:
    """(problem, face, confidence) of one die from its three readings."""
    k = int(np.argmax(p))
    if d.cocked >= policy.cocked or (k == 6 and p[6] >= policy.cocked):
        return "cocked", None, 0.0
    if k == 6:
        return "unreadable", None, 0.0
    face, prob = k + 1, float(p[k])
    if pr.face is not None and pr.face != face:
        return "unreadable", None, 0.0  # the pip counter reads another face
    need = policy.agreed if pr.face == face else policy.alone
    # the confidence says how far the crop's network is over its bar: min_confidence (0.9) is the bar
    conf = min(1.0, min_conf + (prob - need) / max(1e-6, 1 - need) * (1 - min_conf)) if prob >= need else 0.0
    if conf < min_conf:
        return "low_confidence", None, conf
    return None, face, conf


def _die_reading(
    image: np.ndarray,
    d: Detection,
    pr: PipReading,
    problem: str | None,
    face: int | None,
    conf: float,
    p: np.ndarray,
    cal: Calibration,
) -> DieReading:
    cx, cy = d.center
    hw, hh = d.size[0] / 2, d.size[1] / 2
    corners = ((cx - hw, cy - hh), (cx + hw, cy - hh), (cx + hw, cy + hh), (cx - hw, cy + hh))
    f = float(np.sqrt(d.size[0] * d.size[1])) * CROP_MARGIN / CROP
    pips = tuple((cx + (x - CROP / 2) * f, cy + (y - CROP / 2) * f) for x, y in pr.pips)
    return DieReading(
        face=face if problem is None else None,
        color=_colour_name(image, d, cal),
        center=(float(cx), float(cy)),
        size=float(max(d.size)),
        angle=0.0,
        confidence=conf if problem is None else min(conf, 0.5),
        corners=tuple((float(x), float(y)) for x, y in corners),
        pips=pips,
        problem=problem,
        checks={
            "network": float(p.max()) if len(p) else 0.0,
            # the crop network's answer: 1-6 a face, 7 its "not a clean upper face"
            "network_face": float(np.argmax(p) + 1) if len(p) else 0.0,
            "detector": d.score,
            "cocked": d.cocked,
            "pip_face": float(pr.face or 0),
            "detector_face": float(np.argmax(d.faces) + 1),
        },
    )


def _felt_value(image: np.ndarray, found: list[Detection], tray: np.ndarray | None) -> float:
    """The felt's brightness: the HSV value's median over the tray without its dice."""
    h, w = image.shape[:2]
    f = 8
    small = cv2.resize(image, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    keep = np.ones(small.shape[:2], bool)
    if tray is not None:
        m = np.zeros(small.shape[:2], np.uint8)
        cv2.fillPoly(m, [np.round(tray.reshape(-1, 2) / f).astype(np.int32)], 1)
        keep &= m > 0
    for d in found:
        r = int(max(d.size) / f) + 1
        x, y = int(d.center[0] / f), int(d.center[1] / f)
        keep[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1] = False
    v = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)[..., 2]
    return float(np.median(v[keep])) if keep.any() else float(np.median(v))


def _colour_name(image: np.ndarray, d: Detection, cal: Calibration) -> str:
    """The first calibrated colour the die's body matches (the median of the middle of its box without
    its pips), else "unknown"."""
    side = float(np.sqrt(d.size[0] * d.size[1]))
    n = max(6, int(side * 0.6))
    patch = cv2.getRectSubPix(image, (n, n), (float(d.center[0]), float(d.center[1])))
    hsv = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV).reshape(-1, 3)
    v = hsv[:, 2].astype(np.float64)
    body = hsv[np.abs(v - np.median(v)) <= 30]  # the pips lie far from the body's brightness
    if len(body) < 10:
        body = hsv
    sat, val = int(np.median(body[:, 1])), int(np.median(body[:, 2]))
    # hue is an angle (red lies at both ends of OpenCV's 0-179): its mean as a direction, not a median
    a = body[:, 0].astype(np.float64) * (np.pi / 90)
    hue = round(float(np.degrees(np.arctan2(np.sin(a).sum(), np.cos(a).sum()))) / 2) % 180
    ring = max(n + 4, int(side * 1.8))
    around = cv2.getRectSubPix(image, (ring, ring), (float(d.center[0]), float(d.center[1])))
    g = cv2.cvtColor(around, cv2.COLOR_BGR2HSV)[..., 2]
    felt = float(np.median(np.concatenate([g[0], g[-1], g[:, 0], g[:, -1]])))
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
