"""Benchmark: `studio evaluate --game baccarat` over a batch of recorded rounds (target: 300,000 rounds/s on
1,000,000 rounds, start-up included; issue 25, target 4).

Generates N rounds (default 1,000,000) dealt from shuffled 8-deck shoes, as JSON Lines
``{"id": 17, "cards": ["9H", "5D", ...]}``, into a temporary folder, then measures:

0. the command's start-up: ``studio evaluate --game baccarat`` on an empty input (imports, the game index);
1. ``studio evaluate --game baccarat --in FILE`` as it stands (a child process; its output goes to
   /dev/null; the time includes the interpreter's start-up), ``--repeat`` times;
2. the same command's loop in this process (``app.audit.evaluate_line`` + ``json.dumps`` per line);
3. the same loop using ``game.evaluate_json(line)`` (the baccarat fast path that writes the output line
   itself, falling back to the general path for anything unusual): what the CLI does once it calls the
   hook (see docs/card-games.md, "studio evaluate");
4. ``game.evaluate(item)`` alone on already-parsed items (the rules without JSON).

It also checks, on the first 20,000 lines, that (3) writes exactly what (2) writes. CPU time of the child
from ``resource.getrusage(RUSAGE_CHILDREN)``: on a shared machine it, not the wall time, is the figure.

    python bench/baccarat_evaluate.py                 # 1,000,000 rounds
    python bench/baccarat_evaluate.py --cli-only --repeat 3
    python bench/baccarat_evaluate.py --rounds 200000

The temporary folder is removed at the end.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Self

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.machine import installed_env
from recognition.cards.baccarat import GAMES, VALUE, is_complete
from recognition.cards.cards import STANDARD_52


def generate(path: Path, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    shoe: list[str] = []
    with path.open("w", encoding="ascii") as f:
        for i in range(rounds):
            if len(shoe) < 20:  # the cut card: a fresh shuffled shoe
                shoe = list(STANDARD_52) * 8
                rng.shuffle(shoe)
            cards = []
            while True:
                cards.append(shoe.pop())
                if len(cards) >= 4 and is_complete([VALUE[c] for c in cards]):
                    break
            f.write(json.dumps({"id": i, "cards": cards}) + "\n")


def rate(n: int, wall: float, cpu: float) -> str:
    """Rounds per second of wall-clock time, and per second of CPU time (what a busy shared machine hides)."""
    return f"{n / wall:>10,.0f} rounds/s wall ({wall:6.2f} s), {n / cpu:>10,.0f} rounds/s CPU ({cpu:6.2f} s)"


class Timer:
    """Wall-clock and CPU time (this process, or its finished children) of a block."""

    def __init__(self, children: bool = False) -> None:
        self.children = children

    def _cpu(self) -> float:
        if self.children:
            ru = resource.getrusage(resource.RUSAGE_CHILDREN)
            return ru.ru_utime + ru.ru_stime
        return time.process_time()

    def __enter__(self) -> Self:
        self.t0, self.c0 = time.perf_counter(), self._cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall, self.cpu = time.perf_counter() - self.t0, self._cpu() - self.c0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--repeat", type=int, default=1, help="runs of the command (1)")
    ap.add_argument("--cli-only", action="store_true", help="only (0) and (1), not the in-process loops")
    args = ap.parse_args()
    game: Any = GAMES["baccarat"]  # a BaccaratGame; mypy reads its `pacing` as off the GameRules protocol
    tmp = Path(tempfile.mkdtemp(prefix="bench-baccarat-"))
    try:
        src = tmp / "rounds.jsonl"
        t = time.perf_counter()
        generate(src, args.rounds, args.seed)
        print(
            f"generated {args.rounds:,} rounds ({src.stat().st_size / 1e6:.0f} MB) in "
            f"{time.perf_counter() - t:.1f} s"
        )
        lines = src.read_text(encoding="ascii").splitlines(keepends=True)

        env = installed_env(
            dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        )
        command = [sys.executable, "-m", "app.cli", "evaluate", "--game", "baccarat"]

        # 0. the start-up alone, the game index written by a first start
        for _ in range(2):
            with Timer(children=True) as tm, open(os.devnull, "w") as null:
                subprocess.run(command, stdin=subprocess.DEVNULL, stdout=null, env=env, cwd=ROOT, check=True)
        print(f"0. start-up (empty input)                 {tm.wall:6.3f} s wall, {tm.cpu:6.3f} s CPU")

        # 1. the command as it stands
        for _ in range(args.repeat):
            with Timer(children=True) as tm, open(os.devnull, "w") as null:
                proc = subprocess.run(
                    [*command, "--in", str(src)],
                    stdout=null,
                    stderr=subprocess.PIPE,
                    env=env,
                    cwd=ROOT,
                    check=False,
                )
            if proc.returncode != 0:
                print("studio evaluate failed:", proc.stderr.decode(errors="replace"), file=sys.stderr)
                return 1
            met = "MET" if args.rounds / tm.cpu >= 300_000 else "NOT MET"
            print(
                f"1. studio evaluate, child process, as is  {rate(args.rounds, tm.wall, tm.cpu)} (>= 300,000: {met})"
            )
        if args.cli_only:
            return 0

        # 2. the CLI's loop in this process
        from app.audit import evaluate_line

        out = io.StringIO()
        with Timer() as tm:
            for lineno, line in enumerate(lines, 1):
                if line.strip():
                    out.write(json.dumps(evaluate_line(game, line, lineno), separators=(",", ":")) + "\n")
        general = out.getvalue()
        print(f"2. CLI loop in-process (evaluate + dumps) {rate(args.rounds, tm.wall, tm.cpu)}")

        # 3. the same loop through the fast path
        out = io.StringIO()
        fast = game.evaluate_json
        with Timer() as tm:
            for lineno, line in enumerate(lines, 1):
                if line.strip():
                    text = fast(line)
                    out.write(
                        text
                        if text is not None
                        else json.dumps(evaluate_line(game, line, lineno), separators=(",", ":")) + "\n"
                    )
        print(f"3. CLI loop with game.evaluate_json       {rate(args.rounds, tm.wall, tm.cpu)}")
        check = min(20_000, args.rounds)
        same = out.getvalue().splitlines()[:check] == general.splitlines()[:check]
        print(f"   first {check:,} output lines identical to (2): {same}")

        # 4. the rules alone
        items = [json.loads(line) for line in lines]
        for it in items:
            it.pop("id", None)
        evaluate = game.evaluate
        with Timer() as tm:
            for it in items:
                evaluate(it)
        print(f"4. game.evaluate(item), parsed items      {rate(args.rounds, tm.wall, tm.cpu)}")
        return 0 if same else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
