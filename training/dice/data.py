"""The training data of the dice face classifier: labelled die crops from photos (fit part) and renders.

Photos carry only the multiset of faces. A photo's crops are labelled when the pip counter reads, for
that photo, exactly the labelled multiset (then each crop's face is known); patches without pips are
"reject" examples. Renders (simulators/dice.py) are labelled by their truth: a die's face, or "reject"
for a cocked or stacked die and for patches that are no die. The "grey" felt and "black" dice are
left out of training: the benchmark reads them as a style the network has not seen.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from recognition.dice.calibration import load_calibration
from recognition.dice.find import find_dice
from recognition.dice.pips import count_pips
from simulators.dice import (
    CameraView,
    TrayGeometry,
    calibration_document,
    frame_truth,
    random_look,
    random_throw,
    render,
)

_ROOT = Path(__file__).resolve().parents[2]
#: the development photos: ../shared beside the repository (the main checkout), else /work/shared
PHOTOS = (
    next(
        (
            p
            for p in (_ROOT.parent / "shared", Path("/work/shared"))
            if (p / "fixtures" / "dice-photos").is_dir()
        ),
        _ROOT.parent / "shared",
    )
    / "fixtures"
    / "dice-photos"
)
SPLIT = Path(__file__).resolve().parents[2] / "recognition" / "dice" / "model" / "split.json"
REJECT = 6
#: what the network never sees in training (the benchmark's unseen style)
HELD_OUT_FELT = "grey"
HELD_OUT_DICE = "black"
TRAIN_FELTS = ("green", "darkgreen")
TRAIN_DICE = ("white", "red", "blue", "yellow")


def part_of(name: str) -> str:
    """The split: 'fit' for 7 in 10 photos by a hash of the name (within each folder), else 'validate'."""
    return "fit" if int(hashlib.sha1(name.encode()).hexdigest(), 16) % 10 < 7 else "validate"


def write_split(photos: Path) -> dict[str, Any]:
    labels = json.loads((photos / "labels.json").read_text())
    split = {
        "rule": "sha1(file name relative to the photo set) % 10 < 7: fit, else validate",
        "fit": sorted(k for k in labels if part_of(k) == "fit"),
        "validate": sorted(k for k in labels if part_of(k) == "validate"),
    }
    SPLIT.write_text(json.dumps(split, indent=1) + "\n")
    return split


def photo_crops(photos: Path, names: list[str]) -> Iterator[tuple[np.ndarray, int]]:
    labels = json.loads((photos / "labels.json").read_text())
    for name in names:
        img = cv2.imread(str(photos / name))
        if img is None:
            continue
        found = find_dice(img)
        dice: list[tuple[Any, Any]] = []
        others: list[tuple[Any, Any]] = []
        for c in found.candidates:
            if c.crop is None or c.dice < 0.5:
                continue
            pr = count_pips(c.crop, c.mask)
            (dice if pr.face is not None else others).append((c, pr))
            if pr.face is None and not pr.pips:
                yield c.crop, REJECT
        if sorted(pr.face for _, pr in dice) == labels[name]:  # type: ignore[type-var]
            for c, pr in dice:
                assert pr.face is not None
                yield c.crop, pr.face - 1


def render_crops(rng: random.Random, frames: int, felts: tuple[str, ...], dice: tuple[str, ...]):
    """(crop, class) from `frames` renders with dice of the given colours on the given felts."""
    from simulators.dice import FELT_COLOURS

    for i in range(frames):
        width = rng.choice((640, 960, 1280))
        g = TrayGeometry.for_frame(width, width * 9 // 16)
        view = CameraView(width=width, height=width * 9 // 16)
        cal = load_calibration(calibration_document(g, view))
        n = rng.randint(2, 4)
        faults = [rng.choice(("cocked", "stacked"))] if rng.random() < 0.3 else []
        throw = random_throw(rng, g, [rng.choice(dice) for _ in range(n)], faults=faults, touching=0.5)
        look = dataclasses.replace(random_look(rng, hard=True), felt=FELT_COLOURS[rng.choice(felts)])
        img = render(throw.dice, g, view, look, np.random.default_rng(rng.randrange(1 << 30)))
        _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(60, 95)])
        img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
        truth = frame_truth(throw, g, view)
        found = find_dice(img, cal.die_size)
        for c in found.candidates:
            if c.crop is None or c.dice < 0.5:
                continue
            near = [
                d
                for d in truth.dice
                if np.hypot(d.center[0] - c.center[0], d.center[1] - c.center[1]) < 0.5 * truth.die_size
            ]
            if len(near) == 1 and near[0].fault is None and c.dice < 1.6:
                yield c.crop, near[0].face - 1
            elif any(d.fault in ("cocked", "stacked") for d in near) or not near and rng.random() < 0.15:
                yield c.crop, REJECT
