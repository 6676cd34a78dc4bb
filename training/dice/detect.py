"""Train the dice detector and export it to recognition/dice/model/dice_detect.onnx.

    pip install -e .[train]
    python -m training.dice.detect              # seed 22, one thread, about ten minutes

Seeded and single-threaded. The data: the fit photos' real boxes (the tuning fifth left out) and renders
(:mod:`training.dice.data`), sampled as :func:`training.dice.samples.detector_sample` says. The run
ends by reading the tuning photos with the exported file through OpenCV, as the reader does, and
prints how many of their dice it found and how many peaks were no die.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import pickle
import random
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from recognition.dice.detector import MODEL, DiceDetector

from .data import PHOTOS, Box, photo_boxes, record, render_scenes, training_photos, tuning
from .nets import Detector
from .samples import Scene, detector_sample

CACHE = Path("/tmp/dice-training")


def photo_scenes(photos: Path = PHOTOS) -> list[Scene]:
    """The training photos, each scaled down so its dice are at most 40 pixels (the most a sample needs)."""
    out = []
    for _, img, boxes in training_photos(photos):
        med = float(np.median([math.sqrt(b.w * b.h) for b in boxes]))
        f = min(1.0, 40.0 / med)
        if f < 1:
            img = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            boxes = [Box(b.kind, b.face, b.cx * f, b.cy * f, b.w * f, b.h * f) for b in boxes]
        out.append((img, boxes))
    return out


def rendered(seed: int, n: int, cocked: bool = False) -> list[Scene]:
    """n renders (cached in /tmp as PNG: the same seed and count give the same pictures); `cocked`: the
    scenes with a cocked die of any look (:func:`training.dice.data.render_scene`)."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"renders-{seed}-{n}{'-cocked' if cocked else ''}.pkl"
    if path.exists():
        packed = pickle.loads(path.read_bytes())
    else:
        packed = []
        for img, boxes in render_scenes(seed, n, width=512, cocked=cocked):
            packed.append((cv2.imencode(".png", img)[1].tobytes(), boxes))
        path.write_bytes(pickle.dumps(packed))
    return [
        (np.asarray(cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR)), boxes) for b, boxes in packed
    ]


def _focal(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """CenterNet's focal loss on the heatmaps (target 1 at centres, a Gaussian round them)."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p**2 * (1 - target) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


def loss_of(out: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    heat = _focal(out[:, :2], t[:, :2])
    reg = t[:, 12:13]
    n = reg.sum().clamp(min=1)
    box = (nn.functional.l1_loss(out[:, 2:6], t[:, 2:6], reduction="none") * reg).sum() / n
    fm = t[:, 13]
    face = nn.functional.cross_entropy(out[:, 6:12], t[:, 6].clamp(min=0).long(), reduction="none")
    face = (face * fm).sum() / fm.sum().clamp(min=1)
    return heat + box + face


def check(path: Path, photos: Path = PHOTOS) -> dict[str, int]:
    """The exported detector on the tuning photos: dice found (a peak within half a die), missed, extra."""
    det = DiceDetector(path)
    import json

    labels = json.loads((photos / "labels.json").read_text())
    found = missed = extra = 0
    for name, boxes in sorted(photo_boxes().items()):
        if not tuning(name):
            continue
        img = np.asarray(cv2.imread(str(photos / name)))
        dets, _ = det.detect(img)
        dets = [d for d in dets if d.score >= 0.5]
        used = set()
        for b in boxes:
            near = [
                i
                for i, d in enumerate(dets)
                if i not in used and math.hypot(d.center[0] - b.cx, d.center[1] - b.cy) < 0.5 * max(b.w, b.h)
            ]
            if near:
                used.add(near[0])
                found += 1
            else:
                missed += 1
        extra += len(dets) - len(used)
        assert len(labels[name]) == len(boxes)
    return {"found": found, "missed": missed, "extra": extra}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--renders", type=int, default=900)
    ap.add_argument("--steps", type=int, default=1800)
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--size", type=int, default=112, help="the side of a training window (input pixels)")
    ap.add_argument("--photos", type=Path, default=PHOTOS)
    ap.add_argument("--out", type=Path, default=MODEL)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    photos = photo_scenes(args.photos)
    renders = rendered(args.seed, args.renders)
    print(f"{len(photos)} photos ({sum(len(b) for _, b in photos)} dice), {len(renders)} renders")
    print(f"data in {time.perf_counter() - t0:.0f} s")
    net = Detector()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=args.steps, pct_start=0.1)
    net.train()
    total = 0.0
    for step in range(args.steps):
        batch = [
            detector_sample(
                rng.choice(photos) if rng.random() < 0.55 else rng.choice(renders), rng, args.size
            )
            for _ in range(args.batch)
        ]
        x = torch.from_numpy(np.stack([b[0] for b in batch]))
        t = torch.from_numpy(np.stack([b[1] for b in batch]))
        loss = loss_of(net(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        total += float(loss.detach())
        if (step + 1) % 100 == 0:
            print(f"step {step + 1}: loss {total / 100:.3f} ({time.perf_counter() - t0:.0f} s)", flush=True)
            total = 0.0
    net.eval()
    torch.onnx.export(
        net,
        (torch.zeros(1, 3, 96, 128),),
        str(args.out),
        input_names=["image"],
        output_names=["maps"],
        dynamic_axes={"image": {2: "h", 3: "w"}, "maps": {2: "h4", 3: "w4"}},
        opset_version=13,
        dynamo=False,
    )
    if args.out.resolve() == MODEL.resolve():
        record(
            "detector",
            {
                "seed": args.seed,
                "renders": args.renders,
                "steps": args.steps,
                "batch": args.batch,
                "size": args.size,
                "photos": sorted(n for n, _, _ in training_photos(args.photos)),
                "onnx_sha256": hashlib.sha256(args.out.read_bytes()).hexdigest(),
            },
        )
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes); {time.perf_counter() - t0:.0f} s in all")
    print("tuning photos:", check(args.out, args.photos))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
