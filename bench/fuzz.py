"""The wire parsers' fuzz targets (tests/fuzz/fuzz_targets.py) for a million inputs and more.

`python bench/fuzz.py [--inputs 1000000] [--targets ss2,shoe,...] [--seed 1] [--raw 0.1] [--save DIR]`

A plain random-mutation loop over the same property functions the suite runs with hypothesis: each input is a
seed of its target (the real SS2 capture's lines for the SS2 targets) with a few random edits
(`fuzz_targets.mutate`), or, for a `--raw` share of them, random bytes. The inputs are split evenly across the
targets. A finding is an input whose check raised: its target, the exception and the input are printed (and
written to `--save DIR` when given, one file each, to paste into a test's `@example`). Prints inputs per
second per target and in all. Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import time
import traceback
from pathlib import Path

os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")  # before cv2 is imported: a warning per broken frame else
REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "clients" / "python"), str(REPO / "tests" / "fuzz")]

from fuzz_targets import SS2_CAPTURE, all_targets, mutate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import MachineLoad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=1_000_000, help="inputs in all, split across the targets")
    ap.add_argument("--targets", help="comma-separated target names (default: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--raw", type=float, default=0.1, help="share of inputs that are random bytes, not mutations"
    )
    ap.add_argument("--save", help="write each finding's input to this folder")
    ap.add_argument("--max-findings", type=int, default=20, help="per target: stop that target after so many")
    args = ap.parse_args(argv)

    logging.disable(logging.CRITICAL)  # the drivers log every impossible line: millions of them here
    # libpng writes a line to the process's stderr for each broken PNG it is given: findings go to stdout
    stderr = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        return run(args, ap)
    finally:
        os.dup2(stderr, 2)


def run(args: argparse.Namespace, ap: argparse.ArgumentParser) -> int:
    targets = all_targets(SS2_CAPTURE.read_bytes())
    if args.targets:
        unknown = set(args.targets.split(",")) - set(targets)
        if unknown:
            ap.error(f"unknown target(s) {', '.join(sorted(unknown))}; known: {', '.join(targets)}")
        targets = {name: targets[name] for name in args.targets.split(",")}
    per_target = -(-args.inputs // len(targets))
    save = Path(args.save) if args.save else None
    if save:
        save.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    total_inputs, total_findings, t_all = 0, 0, time.perf_counter()
    load = MachineLoad()
    print(f"fuzz: {len(targets)} targets x {per_target:,} inputs (seed {args.seed})", flush=True)
    for name, target in targets.items():
        findings: dict[str, bytes] = {}
        t0 = time.perf_counter()
        done = 0
        for done in range(1, per_target + 1):
            if rng.random() < args.raw:
                data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 256)))
            else:
                data = mutate(rng, target.seeds)
            try:
                target.check(data)
            except Exception as exc:  # noqa: BLE001 - every exception of a check is a finding
                key = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''}"
                if key not in findings:
                    findings[key] = data
                    print(f"  FINDING {name}: {key}\n    input {data[:300]!r}", flush=True)
                    if save:
                        (save / f"{name}-{len(findings)}.bin").write_bytes(data)
                        (save / f"{name}-{len(findings)}.txt").write_text(traceback.format_exc())
                    if len(findings) >= args.max_findings:
                        break
        seconds = time.perf_counter() - t0
        total_inputs += done
        total_findings += len(findings)
        print(
            f"  {name:15s} {done:>10,} inputs  {seconds:7.1f} s  {done / seconds:>9,.0f} inputs/s  "
            f"{len(findings)} finding(s)",
            flush=True,
        )
    seconds = time.perf_counter() - t_all
    print(
        f"fuzz: {total_inputs:,} inputs in {seconds:.1f} s ({total_inputs / seconds:,.0f} inputs/s), "
        f"{total_findings} finding(s); {load.stop().summary()}"
    )
    return 1 if total_findings else 0


if __name__ == "__main__":
    sys.exit(main())
