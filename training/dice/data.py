"""The training data of the dice reader's two networks: photos with their real boxes, and renders.

* **Photos**: the fit part of the photo set (``recognition/dice/model/split.json``; the validation part is
  never read here), each die's box and face from the photo set's original annotations
  (``training/dice/photo_boxes.json``: YOLO boxes of matteop65/Dice_Detection_Recognition, MIT, and
  nell-byler/dice_detection, BSD-3-Clause). Photos whose boxes do not give the labelled faces are left
  out. One fit photo in five (by a hash of its name, :func:`tuning`) is kept out of training too: the
  thresholds of the certification are chosen on it.
* **Renders** of ``simulators/dice.py`` with wide variation: felts and die colours drawn at random (the
  dark grey felt and the black dice excepted: the benchmark's unseen style), touching dice, cocked and
  stacked dice (the detector's "not flat" kind and the classifier's reject class), hard light, JPEG.

The photo set is not in the repository: it is read from the folder named by the environment variable
``DICE_PHOTOS``, else from ``../shared/fixtures/dice-photos`` beside the repository root; ``detect`` and
``train`` take ``--photos`` to name another folder.
"""

from __future__ import annotations

import colorsys
import dataclasses
import hashlib
import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

import simulators.dice as sim

_ROOT = Path(__file__).resolve().parents[2]
#: the development photos: $DICE_PHOTOS if set, else ``../shared/fixtures/dice-photos`` beside the
#: repository root (the scripts' ``--photos`` option overrides both)
PHOTOS = Path(os.environ.get("DICE_PHOTOS") or _ROOT.parent / "shared" / "fixtures" / "dice-photos")
SPLIT = _ROOT / "recognition" / "dice" / "model" / "split.json"
BOXES = Path(__file__).resolve().parent / "photo_boxes.json"
REJECT = 6
#: what the networks never see in training (the benchmark's unseen style)
HELD_OUT_FELT = "grey"
HELD_OUT_DICE = "black"
TRAIN_FELTS = ("green", "darkgreen")
TRAIN_DICE = ("white", "red", "blue", "yellow")


@dataclasses.dataclass(frozen=True)
class Box:
    """One die in a picture: its kind (0 flat, 1 not flat), face (1-6; 0 unknown), centre and box (pixels)."""

    kind: int
    face: int
    cx: float
    cy: float
    w: float
    h: float


def part_of(name: str) -> str:
    """The split: 'fit' for 7 in 10 photos by a hash of the name (within each folder), else 'validate'."""
    return "fit" if int(hashlib.sha1(name.encode()).hexdigest(), 16) % 10 < 7 else "validate"


def tuning(name: str) -> bool:
    """One fit photo in five, kept out of training: the certification's thresholds are chosen on it."""
    return int(hashlib.sha1(("tune/" + name).encode()).hexdigest(), 16) % 5 == 0


def write_split(photos: Path) -> dict[str, Any]:
    labels = json.loads((photos / "labels.json").read_text())
    split = {
        "rule": "sha1(file name relative to the photo set) % 10 < 7: fit, else validate",
        "fit": sorted(k for k in labels if part_of(k) == "fit"),
        "validate": sorted(k for k in labels if part_of(k) == "validate"),
    }
    SPLIT.write_text(json.dumps(split, indent=1) + "\n")
    return split


def photo_boxes(path: Path = BOXES) -> dict[str, list[Box]]:
    """The fit photos' real boxes, in pixels of the photo as stored (photos whose boxes do not give their
    labelled faces are left out). Refuses a file that holds a validation photo."""
    doc = json.loads(path.read_text())
    split = json.loads(SPLIT.read_text())
    fit = set(split["fit"])
    out: dict[str, list[Box]] = {}
    for name, entry in doc["photos"].items():
        if name not in fit:
            raise ValueError(f"{path} holds {name}, which is not in the fit part of the split")
        if not entry.get("matches_labels", False):
            continue
        w, h = _size(name)
        boxes = [Box(0, int(f), cx * w, cy * h, bw * w, bh * h) for f, cx, cy, bw, bh in entry["boxes"]]
        out[name] = _whole_faces(boxes) if name.startswith("wood-white/") else boxes
    return out


def _whole_faces(boxes: list[Box]) -> list[Box]:
    """wood-white's boxes hold a face's pips (a 1's box its whole face): each becomes the upper face's
    square, of the photo's median side (a face's pips span about two thirds of it)."""
    sides = [max(b.w, b.h) * (1.0 if b.face == 1 else 1.5) for b in boxes]
    side = float(np.median(sides))
    return [Box(b.kind, b.face, b.cx, b.cy, side, side) for b in boxes]


def _size(name: str) -> tuple[int, int]:
    # the photo set's two looks have one size each (checked when a photo is read)
    return (640, 480) if name.startswith("wood-white/") else (640, 640)


def training_photos(photos: Path = PHOTOS) -> Iterator[tuple[str, np.ndarray, list[Box]]]:
    """(name, image, boxes) of the fit photos trained on (the tuning photos left out)."""
    for name, boxes in sorted(photo_boxes().items()):
        if tuning(name):
            continue
        raw = cv2.imread(str(photos / name))
        if raw is None:
            continue
        img = np.asarray(raw)
        if img.shape[1::-1] != _size(name):
            raise ValueError(f"{name}: {img.shape[1::-1]}, expected {_size(name)}")
        yield name, img, boxes


# --------------------------------------------------------------------------- renders


def _random_colour(rng: random.Random, *, light: bool | None = None) -> tuple[int, int, int]:
    h = rng.random()
    s = rng.uniform(0.0, 0.9)
    v = rng.uniform(0.55, 0.95) if light else rng.uniform(0.12, 0.95)
    r, g, b = colorsys.hsv_to_rgb(h, s, v)
    return (int(b * 255), int(g * 255), int(r * 255))


def _felt(rng: random.Random) -> tuple[int, int, int]:
    """A felt colour: the training felts, or any colour but the held-out dark grey (low saturation, dark)."""
    if rng.random() < 0.4:
        return sim.FELT_COLOURS[rng.choice(TRAIN_FELTS)]
    while True:
        c = _random_colour(rng)
        hsv = cv2.cvtColor(np.array([[c]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0]
        if not (hsv[1] < 70 and hsv[2] < 130):
            return c


def _die_colours(rng: random.Random, n: int) -> list[str]:
    """n die colour names: the training colours or random bodies with dark or light pips (registered in
    the simulator's colour table under new names; never the held-out black)."""
    names = []
    for _ in range(n):
        if rng.random() < 0.5:
            names.append(rng.choice(TRAIN_DICE))
            continue
        body = _random_colour(rng)
        while sum(body) < 3 * 70:  # dark bodies are the held-out black dice's look
            body = _random_colour(rng)
        dark = sum(body) > 3 * 140
        pip = (30, 28, 30) if dark else (236, 238, 240)
        name = f"c{body[0]}_{body[1]}_{body[2]}_{int(dark)}"
        sim.DIE_COLOURS.setdefault(name, (body, pip))
        names.append(name)
    return names


def render_scene(rng: random.Random, width: int = 640, cocked: bool = False) -> tuple[np.ndarray, list[Box]]:
    """One render with 1-8 dice (a third of them with a cocked or stacked die) and its boxes; `cocked`:
    1-4 dice, one of them cocked, touching less (a cocked die on its own, not only leaning on another),
    of any look: what teaches the networks' "not flat" outputs a side face beyond the upper face rather
    than one renderer's cocked dice."""
    height = width * 9 // 16
    g = sim.TrayGeometry.for_frame(width, height, die_size=width / 20 * rng.uniform(0.8, 1.25))
    view = sim.CameraView(width=width, height=height, rotation=rng.uniform(-8, 8))
    if cocked:
        n = rng.choice((1, 2, 3, 3, 4))
        faults = ["cocked"]
    else:
        n = rng.choice((1, 2, 2, 3, 3, 3, 4, 5, 6, 8))
        faults = [rng.choice(("cocked", "stacked"))] if rng.random() < 0.33 and n >= 2 else []
    colours = _die_colours(rng, n)
    touching = rng.uniform(0.0, 0.3) if cocked else rng.uniform(0.2, 0.6)
    throw = sim.random_throw(rng, g, colours, faults=faults, touching=touching)
    look = dataclasses.replace(sim.random_look(rng, hard=True), felt=_felt(rng))
    img = sim.render(throw.dice, g, view, look, np.random.default_rng(rng.randrange(1 << 30)))
    _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(55, 95)])
    img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    truth = sim.frame_truth(throw, g, view)
    proj = sim._Projector(g, view)
    cube = np.array([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    boxes = []
    for d, t in zip(throw.dice, truth.dice, strict=True):
        rot, at = sim._die_pose(d, g.die_size)
        pts = proj.world_to_image(cube @ rot.T * g.die_size + at)
        (x0, y0), (x1, y1) = pts.min(0), pts.max(0)
        # a stacked die's lower die shows no upper face: it is "not flat" as its upper one is
        near_fault = any(
            u.fault in ("cocked", "stacked")
            and np.hypot(u.center[0] - t.center[0], u.center[1] - t.center[1]) < 0.8 * truth.die_size
            for u in truth.dice
        )
        kind = 1 if near_fault else 0
        boxes.append(Box(kind, t.face, t.center[0], t.center[1], float(x1 - x0), float(y1 - y0)))
    return img, boxes


def render_scenes(
    seed: int, n: int, width: int = 640, cocked: bool = False
) -> Iterator[tuple[np.ndarray, list[Box]]]:
    rng = random.Random(seed)
    for _ in range(n):
        yield render_scene(rng, width, cocked)


RECORD = _ROOT / "recognition" / "dice" / "model" / "training.json"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record(network: str, info: dict[str, Any]) -> None:
    """Write what `network` was trained on (seed, settings, the photos, the file's SHA-256) into the model
    folder's training.json, beside the weights, as the run that made them ends: anyone can rebuild them,
    and the tests check that the committed files are the ones described and no validation photo is in it."""
    doc = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    doc[network] = info
    doc["tuning_photos"] = sorted(n for n in photo_boxes() if tuning(n))
    RECORD.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
