"""Train the dice face classifier and export it to recognition/dice/model/dice_face.onnx.

    pip install -e .[train]
    python -m training.dice.train                  # seed 22, about three minutes on one core

Seeded and single-threaded, so a run gives the same weights. The data: the fit part of the photo set
(``recognition/dice/model/split.json``; pseudo-labelled, see :mod:`training.dice.data`) and renders of
simulators/dice.py (felts and die colours of :data:`training.dice.data.TRAIN_FELTS` / ``TRAIN_DICE``).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from recognition.dice.classifier import CLASSES, INPUT, MODEL, prepare

from .data import PHOTOS, TRAIN_DICE, TRAIN_FELTS, photo_crops, render_crops, write_split


def network() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(64 * (INPUT // 8) ** 2, 96),
        nn.ReLU(),
        nn.Dropout(0.2),
        nn.Linear(96, len(CLASSES)),
    )


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Quarter turns and mirror images (a die's faces look the same), contrast and noise."""
    out = np.rot90(x, k=int(rng.integers(4)), axes=(2, 3)).copy()
    flip = rng.random(len(out)) < 0.5
    out[flip] = out[flip][..., ::-1]
    out *= rng.uniform(0.8, 1.2, (len(out), 1, 1, 1)).astype(np.float32)
    out += rng.normal(0, 0.08, out.shape).astype(np.float32)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--renders", type=int, default=3000, help="rendered frames to crop dice from")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--photos", type=Path, default=PHOTOS)
    ap.add_argument("--out", type=Path, default=MODEL)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    split = write_split(args.photos)
    crops, ys = [], []
    for crop, label in photo_crops(args.photos, split["fit"]):
        crops.append(crop)
        ys.append(label)
    photos_n = len(crops)
    for crop, label in render_crops(rng, args.renders, TRAIN_FELTS, TRAIN_DICE):
        crops.append(crop)
        ys.append(label)
    x = prepare(crops)
    y = np.array(ys, np.int64)
    print(
        f"{photos_n} photo crops, {len(crops) - photos_n} render crops; classes {np.bincount(y, minlength=7)}"
    )
    print(f"data in {time.perf_counter() - t0:.0f} s")
    net = network()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-4)
    # photo crops are few and the point of it all: they count three times
    weight = np.where(np.arange(len(y)) < photos_n, 3.0, 1.0)
    weight /= weight.sum()
    nrng = np.random.default_rng(args.seed)
    for epoch in range(args.epochs):
        net.train()
        order = nrng.choice(len(y), size=len(y), p=weight)
        total = 0.0
        for i in range(0, len(order), 128):
            b = order[i : i + 128]
            xb = torch.from_numpy(augment(x[b], nrng))
            loss = nn.functional.cross_entropy(net(xb), torch.from_numpy(y[b]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(b)
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}")
    net.eval()
    with torch.no_grad():
        acc = (net(torch.from_numpy(x)).argmax(1).numpy() == y).mean()
    print(f"training accuracy {acc:.4f}; {time.perf_counter() - t0:.0f} s in all")
    torch.onnx.export(
        net,
        (torch.zeros(1, 1, INPUT, INPUT),),
        str(args.out),
        input_names=["crop"],
        output_names=["logits"],
        dynamic_axes={"crop": {0: "n"}, "logits": {0: "n"}},
        opset_version=13,
        dynamo=False,
    )
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
