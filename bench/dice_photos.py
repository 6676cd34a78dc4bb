"""Benchmark of the dice recognizer on real photos, our renders, renders of an unseen style, and speed.

    python bench/dice_photos.py                       # all parts
    python bench/dice_photos.py --renders 300 --skip-speed
    python bench/dice_photos.py --reader rules        # the default rule reader on the same pictures

Real photos: ../shared/fixtures/dice-photos (the fit part the network was trained on and the
validation part it never saw; recognition/dice/model/split.json), each read with the number of dice
its label has and no calibration. A photo is read right when the reading is "ok" with every face
right; held when it is not "ok"; WRONG when it is "ok" with a wrong face (never allowed). Each part's
held photos are counted by why they were held (WHY: not found, extra, half seen, cocked, ...).
Renders: simulators/dice.py in the training felts and die colours, clean and with a fault
(cocked, stacked, outside, missing: must be held); unseen style: the grey felt and black dice the
network never saw; then --cocked frames of each style with a cocked die (all must be held: the rate at
which one is certified). Speed: read_dice on 1280x720 frames with three dice, one thread.
Every figure stands beside a plain baseline measured in the same run: the pip counter alone
(certify when every die's pips form a face and the count is right).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recognition.dice.calibration import Calibration, ReaderName, load_calibration
from recognition.dice.find import find_dice
from recognition.dice.pips import count_pips
from recognition.dice.reading import Reading
from recognition.dice.vision import read_dice
from simulators.dice import (
    FELT_COLOURS,
    CameraView,
    TrayGeometry,
    calibration_document,
    frame_truth,
    random_look,
    random_throw,
    render,
)
from training.dice.data import PHOTOS, SPLIT, TRAIN_DICE, TRAIN_FELTS, tuning

cv2.setNumThreads(1)


def baseline(image: np.ndarray, cal: Calibration | None, expected: int | None) -> tuple[bool, list[int]]:
    """The pip counter alone: ok when the count is right and every die's pips form a face."""
    cal = cal or Calibration()
    found = find_dice(image, cal.die_size)
    faces = []
    for c in found.candidates:
        if c.crop is None or c.dice < 0.5:
            continue
        pr = count_pips(c.crop, c.mask)
        if pr.face is None and not pr.pips:
            continue
        faces.append(pr.face)
    ok = None not in faces and (expected is None or len(faces) == expected) and bool(faces)
    return ok, sorted(f for f in faces if f is not None)


#: why a photo is held, in this order (a photo counts once, by the first that applies): no die of it
#: missed or added, nothing half seen, no die cocked, ... ; "disagree": the pip counter reads another
#: face than the crop network; "reject": the crop network calls the die no clean upper face
WHY = ("not found", "extra", "half seen", "cocked", "reject", "disagree", "low confidence", "other")


def why_held(r: Reading) -> str:
    """The first reason of WHY a reading that is not "ok" was held."""
    codes = {i.code for i in r.issues}
    if "missing" in codes:
        return "not found"
    if "extra" in codes:
        return "extra"
    if any(i.code == "unreadable" and i.die is None for i in r.issues):
        return "half seen"
    problems = {d.problem for d in r.dice}
    if problems & {"cocked", "stacked"}:
        return "cocked"
    unreadable = [d for d in r.dice if d.problem == "unreadable"]
    if any(d.checks.get("network_face") == 7 for d in unreadable):
        return "reject"
    if unreadable:
        return "disagree"
    if "low_confidence" in problems:
        return "low confidence"
    return "other"


def _verdict(ok: bool, faces: list[int], truth: list[int] | None) -> str:
    if not ok:
        return "held"
    return "right" if truth is not None and faces == sorted(truth) else "WRONG"


PARTS = ("fit_trained", "fit_tuning", "validate")


def photos(folder: Path, reader: ReaderName = "learned", parts: tuple[str, ...] = PARTS) -> dict[str, Any]:
    labels = json.loads((folder / "labels.json").read_text())
    split = json.loads(SPLIT.read_text())
    out: dict[str, Any] = {}
    names_of = {
        "fit_trained": [n for n in split["fit"] if not tuning(n)],
        "fit_tuning": [n for n in split["fit"] if tuning(n)],
        "validate": split["validate"],
    }
    for part in parts:
        names = names_of[part]
        held: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        for who in ("ours", "baseline"):
            counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
            for name in names:
                img = np.asarray(cv2.imread(str(folder / name)))
                truth = labels[name]
                if who == "ours":
                    r = read_dice(img, None, expected=len(truth), reader=reader)
                    v = _verdict(r.ok, r.faces, truth)
                    if v == "held":
                        held[name.split("/")[0]][why_held(r)] += 1
                        held["all"][why_held(r)] += 1
                else:
                    ok, faces = baseline(img, None, len(truth))
                    v = _verdict(ok, faces, truth)
                counts[name.split("/")[0]][v] += 1
                counts["all"][v] += 1
            out[f"{part}/{who}"] = {k: _rates(c) for k, c in sorted(counts.items())}
        out[f"{part}/held_why"] = {k: {w: c[w] for w in WHY if c[w]} for k, c in sorted(held.items())}
    return out


def _rates(c: collections.Counter[str]) -> dict[str, Any]:
    n = sum(c.values())
    return {
        "images": n,
        "read_right_pct": round(100 * c["right"] / n, 1) if n else 0.0,
        "held_pct": round(100 * c["held"] / n, 1) if n else 0.0,
        "WRONG": c["WRONG"],
    }


def _frame(
    rng: random.Random,
    g: TrayGeometry,
    view: CameraView,
    felts: tuple[str, ...],
    dice: tuple[str, ...],
    faults: list[str],
) -> tuple[np.ndarray, Any]:
    """One render of three dice of `dice` (touching 0.3, the hard look) on one of `felts`, and its truth."""
    throw = random_throw(rng, g, [rng.choice(dice) for _ in range(3)], faults=faults, touching=0.3)
    look = dataclasses.replace(random_look(rng, hard=True), felt=FELT_COLOURS[rng.choice(felts)])
    img = render(throw.dice, g, view, look, np.random.default_rng(rng.randrange(1 << 30)))
    return img, frame_truth(throw, g, view)


def renders(
    frames: int, felts: tuple[str, ...], dice: tuple[str, ...], seed: int, reader: ReaderName = "learned"
) -> dict[str, Any]:
    rng = random.Random(seed)
    res: dict[str, collections.Counter[str]] = {
        "clean": collections.Counter(),
        "faults": collections.Counter(),
    }
    base: dict[str, collections.Counter[str]] = {
        "clean": collections.Counter(),
        "faults": collections.Counter(),
    }
    g = TrayGeometry()
    view = CameraView()
    cal = load_calibration(calibration_document(g, view))
    for i in range(frames):
        fault = [] if i % 5 else [("cocked", "stacked", "outside", "missing")[(i // 5) % 4]]
        img, truth = _frame(rng, g, view, felts, dice, fault)
        want = truth.faces if truth.readable else None
        kind = "clean" if truth.readable else "faults"
        r = read_dice(img, cal, expected=3, reader=reader)
        res[kind][_verdict(r.ok, r.faces, want)] += 1
        ok, faces = baseline(img, cal, 3)
        base[kind][_verdict(ok, faces, want)] += 1
    return {
        "ours": {k: _rates(v) for k, v in res.items()},
        "baseline": {k: _rates(v) for k, v in base.items()},
    }


def cocked_renders(
    frames: int, felts: tuple[str, ...], dice: tuple[str, ...], seed: int, reader: ReaderName = "learned"
) -> dict[str, Any]:
    """Frames with one cocked die each (three dice, touching 0.3, the hard look), read with the technician's
    calibration: every one must be held (a cocked die is thrown again), so the figure is how many were
    certified at all. The renders' sets above hold one in five faults, a quarter of them cocked: too few
    to see a rate of one in a hundred."""
    rng = random.Random(seed)
    g = TrayGeometry()
    view = CameraView()
    cal = load_calibration(calibration_document(g, view))
    ours: collections.Counter[str] = collections.Counter()
    base: collections.Counter[str] = collections.Counter()
    for _ in range(frames):
        img, truth = _frame(rng, g, view, felts, dice, ["cocked"])
        if truth.readable:
            continue  # the die came to rest flat after all
        ours["WRONG" if read_dice(img, cal, expected=3, reader=reader).ok else "held"] += 1
        base["WRONG" if baseline(img, cal, 3)[0] else "held"] += 1
    return {"ours": _rates(ours), "baseline": _rates(base)}


def alt_renders(frames: int, seed: int, reader: ReaderName = "learned") -> dict[str, Any] | None:
    """simulators/dice_alt.py (a renderer of another look, when it is there): 3 dice, 1 in 5 frames with a
    cocked die; read with the calibration a technician would write (its tray, its die size +-12 %)."""
    try:
        from simulators import dice_alt  # type: ignore[attr-defined]
    except ImportError:
        return None
    res: dict[str, collections.Counter[str]] = {
        "clean": collections.Counter(),
        "faults": collections.Counter(),
    }
    base: dict[str, collections.Counter[str]] = {
        "clean": collections.Counter(),
        "faults": collections.Counter(),
    }
    for i in range(frames):
        cocked = 0 if i % 5 else 1
        img, faces, info = dice_alt.render(seed=seed + i, count=3, cocked=cocked)
        doc: dict[str, Any] = {"note": "dice_alt"}
        if info["tray"] is not None:
            doc["tray"] = [[float(x), float(y)] for x, y in info["tray"]]
        if info["die_px"]:
            doc["die_size"] = [round(info["die_px"] * 0.88, 1), round(info["die_px"] * 1.12, 1)]
        cal = load_calibration(doc)
        want = None if cocked else faces
        kind = "faults" if cocked else "clean"
        r = read_dice(img, cal, expected=3, reader=reader)
        res[kind][_verdict(r.ok, r.faces, want)] += 1
        ok, got = baseline(img, cal, 3)
        base[kind][_verdict(ok, got, want)] += 1
    return {
        "ours": {k: _rates(v) for k, v in res.items()},
        "baseline": {k: _rates(v) for k, v in base.items()},
    }


def speed(n: int = 200, reader: ReaderName = "learned") -> dict[str, float]:
    rng = random.Random(5)
    g = TrayGeometry()
    view = CameraView()
    cal = load_calibration(calibration_document(g, view))
    images = []
    for _ in range(20):
        throw = random_throw(rng, g, ["white", "red", "blue"], touching=0.0)
        images.append(
            render(throw.dice, g, view, random_look(rng), np.random.default_rng(rng.randrange(1 << 30)))
        )
    out = {}
    for who, fn in (
        ("ours", lambda im: read_dice(im, cal, expected=3, reader=reader)),
        ("baseline", lambda im: baseline(im, cal, 3)),
    ):
        fn(images[0])
        t0 = time.perf_counter()
        for i in range(n):
            fn(images[i % len(images)])
        out[f"{who}_frames_per_s"] = round(n / (time.perf_counter() - t0), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="dice recognizer benchmark")
    ap.add_argument("--photos", type=Path, default=PHOTOS)
    ap.add_argument(
        "--renders", type=int, default=1000, help="rendered frames per style (1 in 5 with a fault)"
    )
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument(
        "--cocked",
        type=int,
        default=500,
        help="frames with a cocked die per style (all must be held; 0: none)",
    )
    ap.add_argument(
        "--parts",
        default=",".join(PARTS),
        help="the photo parts read, comma-separated (leave out validate while tuning: it is read once, last)",
    )
    ap.add_argument(
        "--reader", choices=("learned", "rules", "auto"), default="learned", help="the reader measured"
    )
    args = ap.parse_args(argv)
    reader = args.reader
    report: dict[str, Any] = {"reader": reader}
    if (args.photos / "labels.json").exists():
        parts = tuple(p for p in args.parts.split(",") if p)
        if not set(parts) <= set(PARTS):
            ap.error(f"--parts: of {', '.join(PARTS)}")
        if parts:
            report["photos"] = photos(args.photos, reader, parts)
    report["renders_ours"] = renders(args.renders, TRAIN_FELTS, TRAIN_DICE, seed=101, reader=reader)
    report["renders_unseen_style"] = renders(
        args.renders, ("grey",), ("black", "white"), seed=202, reader=reader
    )
    if args.cocked:
        report["cocked_ours"] = cocked_renders(args.cocked, TRAIN_FELTS, TRAIN_DICE, seed=404, reader=reader)
        report["cocked_unseen_style"] = cocked_renders(
            args.cocked, ("grey",), ("black", "white"), seed=505, reader=reader
        )
    alt = alt_renders(args.renders, seed=303, reader=reader)
    if alt is not None:
        report["renders_dice_alt"] = alt
    if not args.skip_speed:
        report["speed_1280x720_3_dice"] = speed(reader=reader)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
