"""Benchmark: `studio evaluate` rounds per second per game against a plain implementation of its rules, and
the command's start-up (issue 25, target 4).

For each game of `bench/plain_rules.py` (every game, 73, every family: cards, roulette, dice, money wheel,
balls): `--rounds` rounds (default 300,000) generated as the studio deals them
(8-deck shoes, fair dice, a fair wheel, a fair draw) into a temporary JSON Lines file, then

* `studio evaluate --game G --in FILE`: a child process, start-up and file I/O included; CPU time from its
  rusage, wall time beside it;
* the game's plain implementation in this process over the same lines (one `json.loads`, the rules, one
  `json.dumps` a line; no start-up, no I/O: the comparison favours it), CPU and wall time;
* whether the two wrote the same lines, every one of them.

The ratio is ours / plain in CPU time (a shared machine's wall time moves with the others' load). Then
`studio evaluate --list`, `studio evaluate --help` and `studio --help`, the median of 5 starts each (the game
index warm, as after the first start). Targets: every game at least 2x its plain implementation, baccarat at
least 300,000 rounds/s through the CLI (on 1,000,000 rounds: `--games baccarat --rounds 1000000`), `--list`
and `--help` under 0.3 s.

    python bench/evaluate.py                   # about a minute on a quiet machine
    python bench/evaluate.py --rounds 1000000 --games baccarat
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import MachineLoad, installed_env

from bench.plain_rules import GAMES

TARGET_VS_PLAIN = 2.0
TARGET_BACCARAT = 300_000
TARGET_START_S = 0.3


def in_process(fn: Callable[[str], str], lines: list[str]) -> tuple[float, float, list[str]]:
    """(wall, CPU) seconds of `fn` over every line, and its lines."""
    w, c = time.perf_counter(), time.process_time()
    out = [fn(line) for line in lines]
    return time.perf_counter() - w, time.process_time() - c, out


def cli(args: list[str], stdout: Path | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of `python -m app.cli ARGS` (output to `stdout`, or thrown away)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(stdout or "/dev/null", "w") as out:
        subprocess.run(
            [sys.executable, "-m", "app.cli", *args], stdout=out, cwd=ROOT, env=installed_env(), check=True
        )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=300_000)
    p.add_argument("--games", default=",".join(GAMES), help="comma-separated (default: every covered game)")
    p.add_argument("--seed", type=int, default=25)
    p.add_argument("--no-start", action="store_true", help="skip the start-up timings")
    args = p.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="studio-bench-evaluate-"))
    machine = MachineLoad()
    ok = True
    try:
        cli(["evaluate", "--list"])  # the game index, written once
        print(
            f"studio evaluate, {args.rounds:,} rounds a game: rounds/s of CPU time (of wall time), "
            f"ours = the CLI, start-up and I/O included; plain = bench/plain_rules.py in-process"
        )
        for game in args.games.split(","):
            generate, plain = GAMES[game]
            lines = generate(random.Random(args.seed), args.rounds)
            source, answer = tmp / f"{game}.jsonl", tmp / f"{game}.out"
            source.write_text("".join(lines))
            wall, cpu = cli(["evaluate", "--game", game, "--in", str(source)], answer)
            got = answer.read_text().splitlines(keepends=True)
            plain_wall, plain_cpu, expected = in_process(plain, lines)
            same = got == expected
            n = len(lines)
            ratio = plain_cpu / cpu
            met = ratio >= TARGET_VS_PLAIN and same
            row = (
                f"  {game:<18} ours {n / cpu:>9,.0f}/s ({n / wall:>9,.0f}/s)   plain {n / plain_cpu:>9,.0f}/s "
                f"({n / plain_wall:>9,.0f}/s)   {ratio:5.2f}x (target >= {TARGET_VS_PLAIN:g}x: "
                f"{'MET' if met else 'NOT MET'})   same lines: {'yes' if same else 'NO'}"
            )
            if game == "baccarat":
                fast = n / cpu >= TARGET_BACCARAT
                met = met and fast
                row += f"   (>= {TARGET_BACCARAT:,}/s: {'MET' if fast else 'NOT MET'}, on {n:,} rounds)"
            ok = ok and met
            print(row, flush=True)
        if not args.no_start:
            for what in (["evaluate", "--list"], ["evaluate", "--help"], ["--help"]):
                walls, cpus = zip(*(cli(what) for _ in range(5)), strict=True)
                w, c = statistics.median(walls), statistics.median(cpus)
                # a busy host adds its run queue to the wall time: the CPU time is what the command costs
                verdict = (
                    "MET"
                    if min(walls) < TARGET_START_S
                    else "MET in CPU time, not in wall time (the host's load)"
                    if c < TARGET_START_S
                    else "NOT MET"
                )
                ok = ok and c < TARGET_START_S
                print(
                    f"  studio {' '.join(what):<18} {w:.3f} s wall (best {min(walls):.3f}), {c:.3f} s CPU "
                    f"(target < {TARGET_START_S:g} s: {verdict})"
                )
        print(f"  {machine.stop().summary()}")
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
