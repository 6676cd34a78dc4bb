"""Train the dice face classifier and export it to recognition/dice/model/dice_face.onnx.

    pip install -e .[train]
    python -m training.dice.train                  # seed 22, one thread, a few minutes

Seeded and single-threaded, so a run gives the same weights. The data: crops cut round the real boxes
of the fit photos (the tuning fifth left out; :mod:`training.dice.data`) and of the renders the detector
is trained on (``python -m training.dice.detect`` caches them), as
:func:`training.dice.samples.classifier_samples` cuts them: each die a few times with its box a little
off, and "reject" crops (dice that are not flat, windows half off a die, the background).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from recognition.dice.classifier import CLASSES, INPUT, MODEL, prepare
from recognition.dice.detector import MODEL as DETECTOR
from recognition.dice.detector import DiceDetector

from .data import PHOTOS, REJECT, record, sha256, training_photos
from .detect import rendered
from .nets import classifier
from .samples import classifier_samples, cut

#: each group's share of the samples drawn: tray-colour's small, coloured and marbled dice are the
#: hardest, and the renders hold the cocked dice of any look the reject class learns from
SHARES = {"wood-white": 0.25, "tray-colour": 0.4, "renders": 0.35}


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Quarter turns and mirror images (a die's faces look the same), the colour channels swapped (a die
    of another colour: 30 %), contrast and noise."""
    out = np.rot90(x, k=int(rng.integers(4)), axes=(2, 3)).copy()
    flip = rng.random(len(out)) < 0.5
    out[flip] = out[flip][..., ::-1]
    swap = np.nonzero(rng.random(len(out)) < 0.3)[0]
    for i in swap:
        out[i] = out[i][rng.permutation(3)]
    out *= rng.uniform(0.8, 1.2, (len(out), 1, 1, 1)).astype(np.float32)
    out += rng.normal(0, 0.05, out.shape).astype(np.float32)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--renders", type=int, default=900, help="the detector's rendered frames to crop from")
    ap.add_argument(
        "--cocked", type=int, default=600, help="renders with a cocked die of any look (its crops: reject)"
    )
    ap.add_argument("--per-photo-die", type=int, default=6, help="crops per die of a photo")
    ap.add_argument("--epochs", type=int, default=24)
    ap.add_argument("--photos", type=Path, default=PHOTOS)
    ap.add_argument("--out", type=Path, default=MODEL)
    ap.add_argument(
        "--hard", type=Path, default=DETECTOR, help="the detector whose stray peaks on the photos are rejects"
    )
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    crops, ys, groups = [], [], []
    finder = DiceDetector(args.hard) if args.hard is not None and args.hard.exists() else None
    hard = 0
    for name, img, boxes in training_photos(args.photos):
        look = name.split("/")[0]
        for crop, label in classifier_samples((img, boxes), rng, args.per_photo_die):
            crops.append(crop)
            ys.append(label)
            groups.append(look)
        if finder is not None:  # the detector's peaks that are no die (a tray's screw heads): reject
            for d in finder.detect(img)[0]:
                if d.score >= 0.3 and all(
                    math.hypot(d.center[0] - b.cx, d.center[1] - b.cy) > 0.6 * max(b.w, b.h) for b in boxes
                ):
                    for _ in range(2):
                        crops.append(cut(img, d.center, d.size, rng))
                        ys.append(REJECT)
                        groups.append(look)
                        hard += 1
    photos_n = len(crops)
    for scene in rendered(args.seed, args.renders):
        for crop, label in classifier_samples(scene, rng, 1):
            crops.append(crop)
            ys.append(label)
            groups.append("renders")
    cocked_seed = args.seed + 1  # another seed than the detector's renders: other pictures
    for scene in rendered(cocked_seed, args.cocked, cocked=True):
        for crop, label in classifier_samples(scene, rng, 2):
            crops.append(crop)
            ys.append(label)
            groups.append("renders")
    x = prepare(crops)
    y = np.array(ys, np.int64)
    print(f"{hard} of the photo crops are the detector's peaks that are no die")
    print(
        f"{photos_n} photo crops, {len(crops) - photos_n} render crops; classes {np.bincount(y, minlength=7)}"
    )
    print(f"data in {time.perf_counter() - t0:.0f} s", flush=True)
    net = classifier()
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = args.epochs * ((len(y) + 127) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps, pct_start=0.1)
    group = np.array(groups)
    weight = np.zeros(len(y))
    for g, share in SHARES.items():
        weight[group == g] = share / max(1, int((group == g).sum()))
    weight /= weight.sum()
    print({g: int((group == g).sum()) for g in SHARES})
    nrng = np.random.default_rng(args.seed)
    for epoch in range(args.epochs):
        net.train()
        order = nrng.choice(len(y), size=len(y), p=weight)
        total = 0.0
        for i in range(0, len(order), 128):
            b = order[i : i + 128]
            xb = torch.from_numpy(augment(x[b], nrng))
            loss = nn.functional.cross_entropy(net(xb), torch.from_numpy(y[b]), label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(b)
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f} ({time.perf_counter() - t0:.0f} s)", flush=True)
    net.eval()
    with torch.no_grad():
        acc = (net(torch.from_numpy(x)).argmax(1).numpy() == y).mean()
    print(f"training accuracy {acc:.4f}; {time.perf_counter() - t0:.0f} s in all")
    torch.onnx.export(
        net,
        (torch.zeros(1, 3, INPUT, INPUT),),
        str(args.out),
        input_names=["crop"],
        output_names=["logits"],
        dynamic_axes={"crop": {0: "n"}, "logits": {0: "n"}},
        opset_version=13,
        dynamo=False,
    )
    if args.out.resolve() == MODEL.resolve():
        record(
            "classifier",
            {
                "seed": args.seed,
                "renders": args.renders,
                "epochs": args.epochs,
                # the detector whose stray peaks were taken as rejects: the committed one when the
                # networks are rebuilt in order (detector first); a test checks the two files agree
                "hard_negatives_from": (
                    {"file": args.hard.name, "sha256": sha256(args.hard)} if finder is not None else None
                ),
                "cocked_renders": args.cocked,
                "cocked_seed": cocked_seed,
                "per_photo_die": args.per_photo_die,
                "shares": SHARES,
                "photos": sorted(n for n, _, _ in training_photos(args.photos)),
                "onnx_sha256": sha256(args.out),
            },
        )
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes), {len(CLASSES)} classes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
