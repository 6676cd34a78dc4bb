"""Benchmark of the classical pip counter (recognition/dice/pips.py) on real dice, one die at a time.

    python bench/dice_pips.py                 # per-die figures and the learned reader's photo figures
    python bench/dice_pips.py --skip-photos   # per-die figures only (seconds)
    python bench/dice_pips.py --dump DIR      # also write the tune half's misread crops (never the check half)

Dice: every labelled die of the fit part of ../shared/fixtures/dice-photos (split.json), cut from its
real box (training/dice/photo_boxes.json or --boxes: the photos' own YOLO boxes and faces; photos whose
boxes do not give labels.json's faces are left out). A die's crop is made as find.py makes a found
die's: its patch against the picture's background (find.difference, the finder's threshold) round the
box (wood-white's boxes mark only the upper face), its rectangle warped upright into a CROP x CROP picture with the patch as mask.

The fit photos are cut into two halves by a fixed hash of the name: tune on one, check on the other,
never mixed. Per look (wood-white, tray-colour) and half: dice read right, unread (None), WRONG —
beside the counter as it was (bench/dice_pips_baseline.py, a frozen copy) in the same run.

Photos: the learned reader (read_dice(..., reader="learned"), no calibration, as bench/dice_photos.py
reads) on the same fit photos, once with the counter of the tree and once with the frozen one, so a pip
gain shows as photos gained: read right, held, WRONG.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dice_pips_baseline as frozen

from recognition.dice import learned
from recognition.dice.find import CROP, CROP_MARGIN, difference, find_dice
from recognition.dice.pips import count_pips
from recognition.dice.vision import read_dice
from training.dice.data import BOXES, PHOTOS, SPLIT

cv2.setNumThreads(1)

#: the finder's Lab distance from the background that makes a pixel a die's (find.find_dice's default)
THRESHOLD = 16.0
#: how far beyond its box a die's patch may reach, in box sizes: wood-white's boxes mark the upper face
#: only (the slanted camera shows side faces below it), tray-colour's the whole die (touching others)
GROW = {"wood-white": 0.6, "tray-colour": 0.1}
Counter = Callable[..., Any]
COUNTERS: dict[str, Counter] = {"now": count_pips, "baseline": frozen.count_pips}


def half(name: str) -> str:
    """The fit photo's half: 'tune' or 'check', by a hash of its name (fixed, independent of split.json's)."""
    return "tune" if int(hashlib.sha1(f"pips:{name}".encode()).hexdigest(), 16) % 2 == 0 else "check"


def fit_photos(folder: Path, boxes_file: Path) -> list[tuple[str, list[list[float]]]]:
    """The fit photos with boxes that give their labelled faces: (name, [[face, cx, cy, w, h], ...])."""
    split = json.loads(SPLIT.read_text())
    doc = json.loads(boxes_file.read_text())
    # build_boxes.py stores boxes already in the photo set's coordinates (its "transform" is applied)
    photos = doc["photos"]
    out = []
    for name in split["fit"]:
        entry = photos.get(name)
        if entry and entry.get("matches_labels") and (folder / name).exists():
            out.append((name, entry["boxes"]))
    return out


def die_crops(
    image: np.ndarray, boxes: list[list[float]], grow: float
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """(face, crop, mask) for each box whose die's patch can be cut: the patch that differs from the
    background round the box's middle, within the box grown by `grow` of its size on each side."""
    h, w = image.shape[:2]
    found = find_dice(image)
    dist = cv2.GaussianBlur(difference(image, found.background), (5, 5), 1.0)
    for face, cx, cy, bw, bh in boxes:
        gx, gy = bw * (0.5 + grow), bh * (0.5 + grow)
        x0, x1 = max(0, int((cx - gx) * w)), min(w, int(np.ceil((cx + gx) * w)))
        y0, y1 = max(0, int((cy - gy) * h)), min(h, int(np.ceil((cy + gy) * h)))
        if x1 - x0 < 6 or y1 - y0 < 6:
            continue
        sel = np.zeros((h, w), np.uint8)
        sel[y0:y1, x0:x1] = (dist[y0:y1, x0:x1] > THRESHOLD).astype(np.uint8) * 255
        closed = cv2.morphologyEx(sel, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(closed)
        if n < 2:
            continue
        # the patch the box's middle lies in, else the largest
        k = int(labels[min(h - 1, int(cy * h)), min(w - 1, int(cx * w))])
        k = k or 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        if stats[k, cv2.CC_STAT_AREA] < 0.33 * bw * w * bh * h:
            continue
        patch = (labels == k).astype(np.uint8) * 255
        contours, _ = cv2.findContours(patch, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros_like(patch)
        cv2.drawContours(filled, contours, -1, 255, cv2.FILLED)  # a pip the felt's colour is the die's
        (px, py), (pw, ph), ang = cv2.minAreaRect(max(contours, key=cv2.contourArea))
        m = cv2.getRotationMatrix2D((px, py), ang, CROP / (max(pw, ph) * CROP_MARGIN))
        m[0, 2] += CROP / 2 - px
        m[1, 2] += CROP / 2 - py
        crop = cv2.warpAffine(image, m, (CROP, CROP), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        mask = cv2.warpAffine(filled, m, (CROP, CROP), flags=cv2.INTER_NEAREST)
        yield int(face), crop, mask


def verdict(face: int | None, truth: int) -> str:
    return "unread" if face is None else "right" if face == truth else "WRONG"


def dice(folder: Path, photos: list[tuple[str, list[list[float]]]], dump: Path | None) -> dict[str, Any]:
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    times: dict[str, float] = {}
    for name, boxes in photos:
        image = np.asarray(cv2.imread(str(folder / name)))
        look, part = name.split("/")[0], half(name)
        for i, (truth, crop, mask) in enumerate(die_crops(image, boxes, GROW[look])):
            for who, fn in COUNTERS.items():
                t0 = time.perf_counter()
                pr = fn(crop, mask)
                times[who] = times.get(who, 0.0) + 1000 * (time.perf_counter() - t0)
                v = verdict(pr.face, truth)
                for key in (f"{look}/{part}/{who}", f"all/{part}/{who}"):
                    counts[key][v] += 1
                if dump is not None and who == "now" and part == "tune" and v != "right":
                    stem = f"{v}_{truth}_{pr.face}_{name.replace('/', '_')[:-4]}_{i}"
                    big = cv2.resize(crop, (CROP * 4, CROP * 4), interpolation=cv2.INTER_NEAREST)
                    cv2.imwrite(str(dump / f"{stem}.png"), big)
                    (dump / f"{stem}.txt").write_text(f"{pr.reason} off_face={pr.off_face} pips={pr.pips}\n")
            counts["crops"]["cut"] += 1
        counts["crops"]["boxes"] += len(boxes)
    n = max(1, counts["crops"]["cut"])
    out: dict[str, Any] = {k: dict(v) for k, v in sorted(counts.items())}
    out["ms_per_die"] = {k: round(v / n, 2) for k, v in times.items()}
    return out


def photo_figures(folder: Path, photos: list[tuple[str, list[list[float]]]]) -> dict[str, Any]:
    """The learned reader on the photos, with the counter of the tree and with the frozen one."""
    labels = json.loads((folder / "labels.json").read_text())
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for name, _ in photos:
        image = np.asarray(cv2.imread(str(folder / name)))
        truth = sorted(labels[name])
        look, part = name.split("/")[0], half(name)
        for who, fn in COUNTERS.items():
            with mock.patch.object(learned, "count_pips", fn):
                r = read_dice(image, None, expected=len(truth), reader="learned")
            v = "held" if not r.ok else "right" if r.faces == truth else "WRONG"
            for key in (f"{look}/{part}/{who}", f"all/{part}/{who}"):
                counts[key][v] += 1
    return {k: dict(v) for k, v in sorted(counts.items())}


def table(counts: dict[str, Any], kinds: tuple[str, ...]) -> str:
    lines = [f"{'look/half':24} {'counter':9} " + " ".join(f"{k:>8}" for k in kinds) + "   right %"]
    for key in sorted(k for k in counts if k.count("/") == 2):
        group, who = key.rsplit("/", 1)
        c = counts[key]
        n = sum(c.values())
        cells = " ".join(f"{c.get(k, 0):8d}" for k in kinds)
        lines.append(f"{group:24} {who:9} {cells}   {100 * c.get(kinds[0], 0) / max(1, n):6.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="pip counter benchmark on real dice")
    ap.add_argument("--photos", type=Path, default=PHOTOS)
    ap.add_argument("--boxes", type=Path, default=BOXES)
    ap.add_argument("--skip-photos", action="store_true", help="per-die figures only")
    ap.add_argument("--dump", type=Path, help="write the tune half's misread crops here")
    ap.add_argument("--json", action="store_true", help="print JSON instead of tables")
    args = ap.parse_args(argv)
    if args.dump is not None:
        args.dump.mkdir(parents=True, exist_ok=True)
    photos = fit_photos(args.photos, args.boxes)
    report: dict[str, Any] = {
        "photos_with_boxes": collections.Counter(half(n) for n, _ in photos),
        "dice": dice(args.photos, photos, args.dump),
    }
    if not args.skip_photos:
        report["learned_reader_photos"] = photo_figures(args.photos, photos)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"fit photos with boxes: {dict(report['photos_with_boxes'])}; crops {report['dice'].pop('crops')}")
    print(f"time per die, ms: {report['dice'].pop('ms_per_die')}")
    print("\nper die (pip counter alone):")
    print(table(report["dice"], ("right", "unread", "WRONG")))
    if "learned_reader_photos" in report:
        print("\nper photo (learned reader, network + pip counter):")
        print(table(report["learned_reader_photos"], ("right", "held", "WRONG")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
