"""Benchmark: dice recognition accuracy over a large generated set, and frames per second on one core.

For each dice set of the games (Sic Bo 3 white, Lightning Dice 3 yellow, Craps 2 red, Dice Duel red +
blue, Bac Bo 2 blue + 2 red) it renders frames with simulators.dice (random positions and rotations,
touching dice, shadows, uneven light, white balance and exposure drift, heavy sensor noise, lens
blur, JPEG compression, 1280x720, a different felt and light for every frame) and reads them with
recognition.dice.vision.read_dice and the calibration a technician would make for that camera.

Accuracy, per set:

* ``clean``: frames without a fault. ``correct`` = read "ok" with the right faces and colours;
  ``uncertain`` = refused (allowed, the round would be held); ``WRONG`` = read "ok" with a wrong
  result (never allowed). Target: correct >= 99.9 %, WRONG = 0.
* ``faults``: frames with a cocked die, a die outside the tray, a die missing, or dice stacked.
  Every one must be refused: ``WRONG`` counts those read "ok".

Speed: the time of one ``read_dice`` call on a 1280x720 frame (the full read: scaling to the
calibrated tray, colour masks, dice, pips, checks), single-threaded (``cv2.setNumThreads(1)``,
one process), measured on frames rendered beforehand, as CPU time of the process and as wall time;
frames/s = 1 / mean time. In the studio only sampled frames (5 a second per camera during a throw)
are read; the driver's motion check on every frame is timed too ("motion check"), and so is the dice
judge's ``feed`` of a frame its ``prepare`` has read (what runs on the studio's event loop: "feed us").

Misses are grouped by cause: the first issue of every refused clean frame ("touching": touching dice
that could not be told apart, "low_confidence", "cocked", ...); ``--save-misses DIR`` writes them.

    python bench/dice_vision.py                      # 2000 clean + 4 x 250 faulty frames per set, 2 jobs
    python bench/dice_vision.py --frames 500 --faults 100 --sets sicbo,duel
    python bench/dice_vision.py --speed-only
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from datetime import UTC

import cv2

from devices.camera.driver import motion_fraction, small_grey
from recognition.dice.calibration import judge_reading, load_calibration
from recognition.dice.vision import read_dice
from simulators.dice import FAULTS, TrayGeometry, calibration_document, render_still

SETS: dict[str, tuple[str, ...]] = {
    "sicbo": ("white", "white", "white"),
    "lightning": ("yellow", "yellow", "yellow"),
    "craps": ("red", "red"),
    "duel": ("red", "blue"),
    "bacbo": ("blue", "blue", "red", "red"),
}
GEOMETRY = TrayGeometry.for_frame(1280, 720)


def _calibration(colours: tuple[str, ...]) -> Any:
    return load_calibration(calibration_document(GEOMETRY)).restricted_to(colours)


def _one(
    job: tuple[str, str | None, int, int],
) -> tuple[str, str | None, str, float, list[int], list[int], str]:
    name, fault, seed, index = job
    colours = SETS[name]
    cv2.setNumThreads(1)
    rng = random.Random(seed * 1_000_003 + index)
    faults = (fault,) if fault else ()
    if fault == "stacked" and len(colours) < 2:
        faults = ()
    image, truth = render_still(
        rng,
        colours=colours,
        faults=faults,
        geometry=GEOMETRY,
        jpeg_quality=rng.choice((None, 80, 90)),
        touching=0.35,
    )
    t = time.process_time()
    reading = read_dice(
        image, _cal_cache(colours), expected=len(colours), colors=colours if len(set(colours)) > 1 else None
    )
    spent = time.process_time() - t
    verdict, _ = judge_reading(reading, truth.as_json())
    if _SAVE and verdict in ("uncertain", "wrong_ok"):
        stem = f"{_SAVE}/{verdict}-{name}-{fault or 'clean'}-{seed}-{index}"
        cv2.imwrite(stem + ".png", image)
        Path(stem + ".json").write_text(
            json.dumps({**truth.as_json(), "issues": [i.message for i in reading.issues]})
        )
    cause = _cause(reading) if verdict == "uncertain" else ""
    return name, fault, verdict, spent, truth.faces, reading.faces, cause


def _cause(reading: Any) -> str:
    """Why a clean frame was refused, in one word: the first issue's code (a die refused while cut from
    touching dice shows as "touching"; "cocked"/"low_confidence" are dice on their own)."""
    codes = [i.code for i in reading.issues]
    return codes[0] if codes else "uncertain"


_SAVE: str | None = None


_CALS: dict[tuple[str, ...], Any] = {}


def _cal_cache(colours: tuple[str, ...]) -> Any:
    if colours not in _CALS:
        _CALS[colours] = _calibration(colours)
    return _CALS[colours]


def accuracy(sets: list[str], frames: int, faults: int, jobs: int, seed: int) -> dict[str, Any]:
    work: list[tuple[str, str | None, int, int]] = []
    for name in sets:
        work += [(name, None, seed, i) for i in range(frames)]
        for k, fault in enumerate(FAULTS):
            if fault == "stacked" and len(SETS[name]) < 2:
                continue
            work += [(name, fault, seed + 17 * (k + 1), i) for i in range(faults)]
    t0 = time.time()
    if jobs > 1:
        with mp.get_context("fork").Pool(jobs) as pool:
            results = pool.map(_one, work, chunksize=16)
    else:
        results = [_one(w) for w in work]
    elapsed = time.time() - t0
    out: dict[str, Any] = {"seconds": round(elapsed, 1), "sets": {}}
    wrong_examples = []
    for name in sets:
        clean = Counter(v for n, f, v, *_ in results if n == name and f is None)
        faulty = Counter(v for n, f, v, *_ in results if n == name and f is not None)
        by_fault = {
            fault: Counter(v for n, f, v, *_ in results if n == name and f == fault) for fault in FAULTS
        }
        n_clean = sum(clean.values())
        out["sets"][name] = {
            "dice": list(SETS[name]),
            "clean": n_clean,
            "correct": clean["correct"],
            "uncertain": clean["uncertain"],
            "wrong_ok": clean["wrong_ok"],
            "accuracy_pct": round(100.0 * clean["correct"] / n_clean, 3) if n_clean else None,
            "faults": sum(faulty.values()),
            "faults_held": faulty["held"],
            "faults_wrong_ok": faulty["wrong_ok"],
            "by_fault": {f: dict(c) for f, c in by_fault.items() if c},
        }
        out["sets"][name]["causes"] = dict(
            Counter(
                c for n, f, v, *_, c in results if n == name and f is None and v == "uncertain"
            ).most_common()
        )
        wrong_examples += [(n, f, t, r) for n, f, v, _, t, r, _c in results if n == name and v == "wrong_ok"][
            :5
        ]
    out["wrong_examples"] = wrong_examples
    return out


def speed(sets: list[str], count: int, seed: int) -> dict[str, Any]:
    cv2.setNumThreads(1)
    out: dict[str, Any] = {}
    for name in sets:
        colours = SETS[name]
        rng = random.Random(seed)
        images = [
            render_still(rng, colours=colours, geometry=GEOMETRY, jpeg_quality=85, touching=0.35)[0]
            for _ in range(count)
        ]
        cal = _calibration(colours)
        colors = colours if len(set(colours)) > 1 else None
        read_dice(images[0], cal, expected=len(colours), colors=colors)  # warm up
        cpu, wall = [], []
        for img in images:
            c, w = time.process_time(), time.perf_counter()
            read_dice(img, cal, expected=len(colours), colors=colors)
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
        prev = None
        c = time.process_time()
        for img in images:
            small = small_grey(img)
            motion_fraction(prev, small)
            prev = small
        motion = (time.process_time() - c) / len(images)
        feed_us = _judge_feed_us(colours, cal, images)
        out[name] = {
            "frames": len(images),
            "size": "1280x720",
            "judge_feed_us_mean": feed_us[0],
            "judge_feed_us_max": feed_us[1],
            "cpu_ms_mean": round(1000 * statistics.mean(cpu), 2),
            "cpu_ms_p95": round(1000 * _pct(cpu, 0.95), 2),
            "wall_ms_mean": round(1000 * statistics.mean(wall), 2),
            "frames_per_s_cpu": round(1 / statistics.mean(cpu), 1),
            "motion_check_ms": round(1000 * motion, 3),
        }
    return out


def _judge_feed_us(colours: tuple[str, ...], cal: Any, images: list[Any]) -> tuple[float, float]:
    """The judge's part on the event loop: feed() of frames prepare() has read (mean and worst, microseconds).
    The same still picture again and again: the dice come to rest and the round is certified on the way."""
    from datetime import datetime, timedelta

    from devices.camera.events import CameraFrame
    from recognition.dice.judge import DiceJudge
    from recognition.game import RoundSignal

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    colors = colours if len(set(colours)) > 1 else None
    judge = DiceJudge(dice=len(colours), colors=colors, calibration=cal)

    def frame(i: int, moving: bool) -> CameraFrame:
        at = t0 + timedelta(seconds=1 + 0.2 * i)
        return CameraFrame(
            device_id="t/camera-1",
            at=at,
            frame_number=i,
            captured_at=at,
            width=1280,
            height=720,
            motion=0.05 if moving else 0.0,
            moving=moving,
            still_frames=0 if moving else 5,
            reason="motion" if moving else "settling",
            image=images[0],
        )

    times = []
    for rnd in range(len(images) // 4):
        judge.feed(RoundSignal(signal="round_opened", round_number=rnd + 1, at=t0))
        judge.feed(RoundSignal(signal="betting_closed", round_number=rnd + 1, at=t0))
        judge.feed(frame(0, True))
        prepared = [judge.prepare(frame(i, False)) for i in range(1, 5)]
        for p in prepared:
            c = time.perf_counter()
            judge.feed(p)
            times.append(time.perf_counter() - c)
    return round(1e6 * statistics.mean(times), 1), round(1e6 * max(times), 1)


def _pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=2000, help="clean frames per dice set")
    p.add_argument("--faults", type=int, default=250, help="frames per fault kind per dice set")
    p.add_argument("--sets", default=",".join(SETS), help=f"dice sets: {', '.join(SETS)}")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--speed-frames", type=int, default=60)
    p.add_argument("--speed-only", action="store_true")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    p.add_argument(
        "--save-misses", metavar="DIR", help="write every refused or wrong frame (PNG + truth) here"
    )
    args = p.parse_args(argv)
    global _SAVE
    if args.save_misses:
        Path(args.save_misses).mkdir(parents=True, exist_ok=True)
        _SAVE = args.save_misses
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        p.error(f"unknown dice sets: {', '.join(unknown)}")
    report: dict[str, Any] = {"opencv": cv2.__version__, "cpu_count": os.cpu_count()}
    # --speed-frames 0: accuracy only (the speed of a version is best compared by bench/dice_equivalence.py --time)
    report["speed"] = speed(sets, args.speed_frames, args.seed) if args.speed_frames > 0 else {}
    if not args.speed_only:
        report["accuracy"] = accuracy(sets, args.frames, args.faults, args.jobs, args.seed)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print(report)
    acc = report.get("accuracy")
    bad = acc and any(s["wrong_ok"] or s["faults_wrong_ok"] for s in acc["sets"].values())
    return 1 if bad else 0


def _print(report: dict[str, Any]) -> None:
    print(f"OpenCV {report['opencv']}, {report['cpu_count']} CPUs; speed on one core, 1280x720 frames")
    if not report["speed"]:
        print("(speed not measured: --speed-frames 0)")
    else:
        print(
            f"{'set':10} {'cpu ms':>8} {'p95 ms':>8} {'wall ms':>8} {'frames/s':>9} {'motion ms':>10} "
            f"{'feed us':>8} {'max us':>7}"
        )
    for name, s in report["speed"].items():
        print(
            f"{name:10} {s['cpu_ms_mean']:8.2f} {s['cpu_ms_p95']:8.2f} {s['wall_ms_mean']:8.2f} "
            f"{s['frames_per_s_cpu']:9.1f} {s['motion_check_ms']:10.3f} {s['judge_feed_us_mean']:8.1f} "
            f"{s['judge_feed_us_max']:7.1f}"
        )
    acc = report.get("accuracy")
    if not acc:
        return
    print(f"\naccuracy ({acc['seconds']} s)")
    print(
        f"{'set':10} {'clean':>6} {'correct':>8} {'uncert':>7} {'WRONG':>6} {'acc %':>8} | "
        f"{'faults':>6} {'held':>6} {'WRONG':>6}"
    )
    for name, s in acc["sets"].items():
        print(
            f"{name:10} {s['clean']:6} {s['correct']:8} {s['uncertain']:7} {s['wrong_ok']:6} "
            f"{s['accuracy_pct']:8.3f} | {s['faults']:6} {s['faults_held']:6} {s['faults_wrong_ok']:6}"
        )
    print("\nwhy clean frames were refused (first issue of each uncertain frame)")
    for name, s in acc["sets"].items():
        print(f"{name:10} " + (", ".join(f"{k} {v}" for k, v in s["causes"].items()) or "-"))
    for ex in acc["wrong_examples"]:
        print("  WRONG:", ex)


if __name__ == "__main__":
    sys.exit(main())
