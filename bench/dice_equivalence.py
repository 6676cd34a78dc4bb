"""Do two versions of the dice recognizer read the same, and which is faster?

For a speed change (or any change meant to leave every reading as it was): renders frames exactly as
bench/dice_vision.py does (its accuracy frames, clean and with each fault, and its speed frames) and reads
each with both versions of ``recognition.dice`` in one process. A version is a source tree (a checkout with
``recognition/dice/`` in it) or the ``dice`` package folder itself; the old one defaults to the committed
code (``git archive HEAD recognition``), the new one to this tree.

Equivalence: the reading as the studio uses it (status, faces, every die's face, colour and centre, the
confidence rounded to 1e-9, every issue) must be the same on every frame; the whole reading (pips, corners,
sizes, angles and each die's checks too) is compared as well and reported apart.

Timing (``--time``): the speed frames of each set, old and new alternately on the same frame, the least
CPU time of ``--repeat`` tries per frame and version (the machine may be shared: only the ratio of one run
counts), single-threaded as in the benchmark.

    python bench/dice_equivalence.py --seeds 40,42 --frames 200 --faults 30        # equivalence
    python bench/dice_equivalence.py --equivalence 0 --time --speed-seed 2026      # timing only
    python bench/dice_equivalence.py --old /tmp/orig --new ../other-checkout --cache /tmp/frames
"""

from __future__ import annotations

import argparse
import atexit
import importlib.util
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import cv2
import numpy as np

from simulators.dice import FAULTS, calibration_document, render_still

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dice_vision import GEOMETRY, SETS


class Version:
    """One copy of recognition.dice, imported under a name of its own so that two live in one process."""

    _count = 0

    def __init__(self, where: Path):
        pkg = where / "recognition" / "dice" if (where / "recognition" / "dice").is_dir() else where
        if not (pkg / "vision.py").is_file():
            raise SystemExit(f"no recognition/dice/vision.py in {where}")
        Version._count += 1
        name = f"_dice_version_{Version._count}"
        spec = importlib.util.spec_from_file_location(
            name, pkg / "__init__.py", submodule_search_locations=[str(pkg)]
        )
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package
        spec.loader.exec_module(package)
        self.where = pkg
        self.vision: ModuleType = importlib.import_module(f"{name}.vision")
        self.calibration: ModuleType = importlib.import_module(f"{name}.calibration")
        self._cals: dict[tuple[str, ...], Any] = {}

    def read(self, image: np.ndarray, colours: tuple[str, ...]) -> Any:
        if colours not in self._cals:
            doc = calibration_document(GEOMETRY)
            self._cals[colours] = self.calibration.load_calibration(doc).restricted_to(colours)
        return self.vision.read_dice(
            image,
            self._cals[colours],
            expected=len(colours),
            colors=colours if len(set(colours)) > 1 else None,
        )


def studio_view(r: Any) -> str:
    """What the studio takes from a reading: status, faces, dice (face, colour, centre), confidence, issues."""
    dice = [(d.face, d.color, d.center) for d in r.dice]
    issues = [(i.code, i.message, i.die, i.where) for i in r.issues]
    return repr((r.status, r.faces, dice, round(r.confidence, 9), issues))


def full_view(r: Any) -> str:
    """Everything in a reading, each die's checks included."""
    return repr((r, [sorted(d.checks.items()) for d in r.dice]))


def frames(
    sets: list[str],
    seeds: list[int],
    clean: int,
    faults: int,
    speed_frames: int,
    speed_seed: int,
    cache: Path | None,
) -> Iterator[tuple[str, str, np.ndarray]]:
    """(set, label, image): bench/dice_vision.py's accuracy frames of each seed (clean, then each fault), then
    its speed frames."""
    for name in sets:
        colours = SETS[name]
        for seed in seeds:
            jobs = [(None, seed, i) for i in range(clean)]
            for k, fault in enumerate(FAULTS):
                if fault == "stacked" and len(colours) < 2:
                    continue
                jobs += [(fault, seed + 17 * (k + 1), i) for i in range(faults)]
            for fault, s, i in jobs:
                label = f"{name}-{fault or 'clean'}-{s}-{i}"
                yield name, label, _cached(cache, label, _accuracy_frame, colours, fault, s, i)
        if speed_frames:
            for i, image in enumerate(speed_images(name, speed_seed, speed_frames)):
                yield name, f"{name}-speed-{speed_seed}-{i}", image


def _accuracy_frame(colours: tuple[str, ...], fault: str | None, seed: int, index: int) -> np.ndarray:
    rng = random.Random(seed * 1_000_003 + index)  # as bench/dice_vision.py's _one
    faults = (fault,) if fault else ()
    if fault == "stacked" and len(colours) < 2:
        faults = ()
    image, _ = render_still(
        rng,
        colours=colours,
        faults=faults,
        geometry=GEOMETRY,
        jpeg_quality=rng.choice((None, 80, 90)),
        touching=0.35,
    )
    return image


def speed_images(name: str, seed: int, count: int) -> list[np.ndarray]:
    rng = random.Random(seed)  # as bench/dice_vision.py's speed()
    return [
        render_still(rng, colours=SETS[name], geometry=GEOMETRY, jpeg_quality=85, touching=0.35)[0]
        for _ in range(count)
    ]


def _cached(cache: Path | None, label: str, make: Callable[..., np.ndarray], *args: Any) -> np.ndarray:
    if cache is None:
        return make(*args)
    path = cache / f"{label}.png"
    if path.is_file():
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is not None:
            return image
    image = make(*args)
    cv2.imwrite(str(path), image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    return image


def equivalence(old: Version, new: Version, args: argparse.Namespace) -> int:
    per_set: dict[str, list[int]] = {}
    shown = detailed = 0  # separate budgets: a new check's key must not crowd out the readings that differ
    for name, label, image in frames(
        args.sets, args.seeds, args.frames, args.faults, args.speed_frames, args.speed_seed, args.cache
    ):
        a, b = old.read(image, SETS[name]), new.read(image, SETS[name])
        counts = per_set.setdefault(name, [0, 0, 0])
        counts[0] += 1
        if studio_view(a) != studio_view(b):
            counts[1] += 1
            if shown < args.show:
                shown += 1
                print(f"DIFFERS {label}\n  old {studio_view(a)}\n  new {studio_view(b)}")
        elif full_view(a) != full_view(b):
            counts[2] += 1
            if detailed < args.show:
                detailed += 1
                print(f"details differ {label}\n  old {full_view(a)}\n  new {full_view(b)}")
    print(f"{'set':10} {'frames':>7} {'differ':>7} {'details':>8}")
    for name, (n, differ, details) in per_set.items():
        print(f"{name:10} {n:7} {differ:7} {details:8}")
    return 1 if any(c[1] for c in per_set.values()) else 0


def timing(old: Version, new: Version, args: argparse.Namespace) -> None:
    cv2.setNumThreads(1)
    print(
        f"least CPU time of {args.repeat} per frame, old and new alternately on the same "
        f"{args.time_frames} speed frames (seed {args.speed_seed})"
    )
    print(f"{'set':10} {'old ms':>8} {'new ms':>8} {'old f/s':>8} {'new f/s':>8} {'new/old':>8}")
    for name in args.sets:
        images = speed_images(name, args.speed_seed, args.time_frames)
        colours = SETS[name]
        old.read(images[0], colours)
        new.read(images[0], colours)
        spent = {"old": 0.0, "new": 0.0}
        for image in images:
            best = {"old": 1e9, "new": 1e9}
            for _ in range(args.repeat):
                for key, version in (("old", old), ("new", new)):
                    t = time.process_time()
                    version.read(image, colours)
                    best[key] = min(best[key], time.process_time() - t)
            for key in spent:
                spent[key] += best[key]
        o, n = 1000 * spent["old"] / len(images), 1000 * spent["new"] / len(images)
        print(f"{name:10} {o:8.2f} {n:8.2f} {1000 / o:8.1f} {1000 / n:8.1f} {n / o:8.3f}", flush=True)


def _committed_tree() -> Path:
    out = Path(tempfile.mkdtemp(prefix="dice_committed_"))
    atexit.register(shutil.rmtree, out, True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "HEAD", "recognition"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--old", type=Path, help="the reference tree or dice package (default: git HEAD of this tree)"
    )
    p.add_argument(
        "--new", type=Path, default=ROOT, help="the tree or dice package to check (default: this tree)"
    )
    p.add_argument("--sets", default=",".join(SETS))
    p.add_argument("--seeds", default="40,42", help="accuracy-frame seeds, comma-separated")
    p.add_argument("--frames", type=int, default=200, help="clean frames per set and seed")
    p.add_argument("--faults", type=int, default=30, help="frames per fault kind, set and seed")
    p.add_argument(
        "--speed-frames", type=int, default=60, help="the benchmark's speed frames (of --speed-seed)"
    )
    p.add_argument("--equivalence", type=int, default=1, help="0: skip the comparison of readings")
    p.add_argument("--time", action="store_true", help="compare the CPU time too")
    p.add_argument("--speed-seed", type=int, default=2026)
    p.add_argument("--time-frames", type=int, default=60)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument(
        "--show",
        type=int,
        default=5,
        help="print at most this many frames whose readings differ (and as many whose details do)",
    )
    p.add_argument("--cache", type=Path, help="keep rendered frames here (PNG) to reuse them in later runs")
    args = p.parse_args(argv)
    cv2.setNumThreads(1)
    args.sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    args.seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    if args.cache:
        args.cache.mkdir(parents=True, exist_ok=True)
    old = Version(args.old if args.old else _committed_tree())
    new = Version(args.new)
    print(f"old: {old.where}\nnew: {new.where}", flush=True)
    status = equivalence(old, new, args) if args.equivalence else 0
    if args.time:
        timing(old, new, args)
    return status


if __name__ == "__main__":
    sys.exit(main())
