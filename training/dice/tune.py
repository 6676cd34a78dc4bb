"""Choose the certification thresholds (recognition.dice.learned.Policy) on the tuning photos and renders.

    python -m training.dice.tune

The tuning photos are the fifth of the fit part the networks were not trained on; the validation part
is never read here. Every die found is matched to its real box; for each candidate policy the run prints
how many photos and renders it reads right and how many dice it certifies wrong. The policy committed
in recognition/dice/learned.py is the one that reads most with no wrong die, its bars raised by a margin.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import itertools
import json
import random

import cv2
import numpy as np

from recognition.dice.calibration import Calibration, load_calibration
from recognition.dice.classifier import MODEL as CLASSIFIER
from recognition.dice.classifier import default_classifier
from recognition.dice.detector import MODEL as DETECTOR
from recognition.dice.detector import default_detector
from recognition.dice.learned import POLICY, Evidence, Policy, decide, evidence
from simulators.dice import CameraView, TrayGeometry, calibration_document, frame_truth, random_throw, render
from simulators.dice import random_look as sim_look

from .data import PHOTOS, RECORD, _die_colours, _felt, photo_boxes, sha256, tuning


def _scenes(renders: int, cocked: int) -> list[tuple[str, np.ndarray, Calibration | None, list[int] | None]]:
    out: list[tuple[str, np.ndarray, Calibration | None, list[int] | None]] = []
    labels = json.loads((PHOTOS / "labels.json").read_text())
    for name in sorted(photo_boxes()):
        if tuning(name):
            out.append((name.split("/")[0], np.asarray(cv2.imread(str(PHOTOS / name))), None, labels[name]))
    rng = random.Random(909)
    g = TrayGeometry()
    view = CameraView()
    cal = load_calibration(calibration_document(g, view))
    for i in range(renders):
        fault = [] if i % 4 else [("cocked", "stacked")[(i // 4) % 2]]
        throw = random_throw(
            rng, g, [rng.choice(("white", "red", "blue", "yellow")) for _ in range(3)], faults=fault
        )
        img = render(
            throw.dice, g, view, sim_look(rng, hard=True), np.random.default_rng(rng.randrange(1 << 30))
        )
        truth = frame_truth(throw, g, view)
        out.append(
            ("renders" if truth.readable else "faults", img, cal, truth.faces if truth.readable else None)
        )
    for _ in range(cocked):  # a cocked die of any look (body, pips, felt, light): it must be held
        throw = random_throw(rng, g, _die_colours(rng, 3), faults=["cocked"], touching=rng.uniform(0, 0.3))
        look = dataclasses.replace(sim_look(rng, hard=True), felt=_felt(rng))
        img = render(throw.dice, g, view, look, np.random.default_rng(rng.randrange(1 << 30)))
        truth = frame_truth(throw, g, view)
        out.append(
            (
                "renders" if truth.readable else "cocked, any look",
                img,
                cal,
                truth.faces if truth.readable else None,
            )
        )
    return out


def _verdict(ev: Evidence, cal: Calibration, truth: list[int] | None, n: int, pol: Policy) -> str:
    """The reader's verdict on one scene under `pol` (as read_dice_learned decides; colours aside)."""
    tray = np.array(cal.tray, np.float32).reshape(-1, 1, 2) if cal.tray is not None else None
    dice, doubts = ev.sorted_out(pol)
    if doubts or len(dice) != n:
        return "held"
    faces = []
    for d, p, pr in dice:
        problem, face, _ = decide(d, p, pr, cal.min_confidence, pol)
        if problem is not None or (tray is not None and cv2.pointPolygonTest(tray, d.center, False) < 0):
            return "held"
        assert face is not None
        faces.append(face)
    return "right" if truth is not None and sorted(faces) == sorted(truth) else "WRONG"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--renders", type=int, default=120)
    ap.add_argument("--cocked", type=int, default=80, help="renders with a cocked die of any look")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    det, net = default_detector(), default_classifier()
    wide = dataclasses.replace(POLICY, die=0.3, doubt=0.3)
    seen = []
    for kind, img, cal, truth in _scenes(args.renders, args.cocked):
        c = cal or Calibration()
        seen.append((kind, evidence(img, c, detector=det, classifier=net, policy=wide), c, truth))
    grid = {
        "die": (0.35, 0.45, 0.55),
        "doubt": (0.3, 0.4, 1.0),
        "no_die": (0.8, 0.9, 0.97),
        "agreed": (0.5, 0.6, 0.7, 0.8, 0.9),
        "alone": (0.8, 0.9, 0.95, 0.98, 0.99),
        "cocked": (0.3, 0.4, 0.5),
    }
    rows = []
    for values in itertools.product(*grid.values()):
        pol = dataclasses.replace(POLICY, **dict(zip(grid, values, strict=True)))
        if pol.doubt > pol.die and pol.doubt < 1.0:
            continue
        tally: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        for kind, ev, cal, truth in seen:
            n = len(truth) if truth is not None else 3
            tally[kind][_verdict(ev, cal, truth, n, pol)] += 1
        rows.append((pol, {k: dict(v) for k, v in sorted(tally.items())}))
    safe = [r for r in rows if all(v.get("WRONG", 0) == 0 for v in r[1].values())]
    safe.sort(key=lambda r: -sum(v.get("right", 0) for v in r[1].values()))
    for pol, best in safe[:15]:
        print(json.dumps({"policy": dataclasses.asdict(pol), "tally": best}))
    print(f"{len(safe)} of {len(rows)} policies certify nothing wrong; now:")
    now: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for kind, ev, cal, truth in seen:
        now[kind][_verdict(ev, cal, truth, len(truth) if truth is not None else 3, POLICY)] += 1
    committed = {k: dict(v) for k, v in sorted(now.items())}
    print(json.dumps({"policy": dataclasses.asdict(POLICY), "tally": committed}))
    # the committed policy's figures on this set, with the models they were measured with
    doc = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    doc["policy"] = {
        "thresholds": dataclasses.asdict(POLICY),
        "renders": args.renders,
        "cocked_renders": args.cocked,
        "tally": committed,
        "safe_policies": f"{len(safe)} of {len(rows)}",
        "models_sha256": {p.name: sha256(p) for p in (DETECTOR, CLASSIFIER)},
    }
    RECORD.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
