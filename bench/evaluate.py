"""Benchmark: `studio evaluate` rounds per second per game, and its start-up (issue 25, target 4).

For Dragon Tiger, Sic Bo, European roulette and baccarat: `--rounds` rounds (default 1,000,000) generated as the
studio deals them (8-deck shoes, fair dice, a fair wheel) into a temporary JSON Lines file, then

* `studio evaluate --game G --in FILE` (a child process, start-up included, CPU time from its rusage);
* the plain loop in this process: one `evaluate_line` and one `json.dumps` per line (what the CLI did for every
  game without a fast path, and the answer the CLI must give byte for byte: checked on every line);
* for Dragon Tiger, a plain implementation of its rules (`plain_dragon_tiger`, written from the seed's rule
  text), checked to give the same lines.

Then `studio evaluate --list`, `studio evaluate --help` and `studio --help`, the median of 5 starts each (the
game index warm, as after the first start). Targets: every game at least 2x its plain implementation, baccarat
at least 300,000 rounds/s through the CLI, `--list` and `--help` under 0.3 s.

    python bench/evaluate.py                   # about a minute on a quiet machine
    python bench/evaluate.py --rounds 200000 --games dragon_tiger,sic_bo
"""

from __future__ import annotations

import argparse
import json
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

from machine import MachineLoad

from recognition.cards.cards import RANKS, STANDARD_52

TARGET_VS_PLAIN = 2.0
TARGET_BACCARAT = 300_000
TARGET_START_S = 0.3


def shoe_rounds(
    rng: random.Random, rounds: int, cards_per_round: Callable[[list[str]], list[str]]
) -> list[str]:
    shoe: list[str] = []
    out = []
    for i in range(rounds):
        if len(shoe) < 20:  # the cut card: a fresh shuffled 8-deck shoe
            shoe = list(STANDARD_52) * 8
            rng.shuffle(shoe)
        out.append(json.dumps({"id": i, "cards": cards_per_round(shoe)}) + "\n")
    return out


def generate(game: str, rounds: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    if game == "dragon_tiger":
        return shoe_rounds(rng, rounds, lambda shoe: [shoe.pop(), shoe.pop()])
    if game == "baccarat":
        from recognition.cards.baccarat import VALUE, is_complete

        def deal(shoe: list[str]) -> list[str]:
            cards = [shoe.pop() for _ in range(4)]
            while not is_complete([VALUE[c] for c in cards]):
                cards.append(shoe.pop())
            return cards

        return shoe_rounds(rng, rounds, deal)
    if game == "sic_bo":
        return [
            json.dumps({"id": i, "dice": [rng.randint(1, 6) for _ in range(3)]}) + "\n" for i in range(rounds)
        ]
    if game == "european_roulette":
        return [json.dumps({"id": i, "number": str(rng.randint(0, 36))}) + "\n" for i in range(rounds)]
    raise SystemExit(f"bench/evaluate.py: no generator for {game}")


_RANK = {r: i + 1 for i, r in enumerate(RANKS)}  # ace low (A=1 .. K=13)
_PUSHED = [{"bet": "dragon", "returned": "1/2"}, {"bet": "tiger", "returned": "1/2"}]


def plain_dragon_tiger(line: str) -> str:
    """Dragon Tiger from the rule text (seed 000 L1795-1824), for a valid round: the higher rank wins 1:1 (ace
    low); equal ranks are a draw, paying Draw 11:1 and Suited Draw 50:1 on equal cards, with half of each
    Dragon/Tiger bet returned."""
    item = json.loads(line)
    dragon, tiger = item["cards"]
    d, t = _RANK[dragon[0]], _RANK[tiger[0]]
    suited = dragon == tiger
    if d == t:
        winner = "tie"
        winning = [{"bet": "tie", "payout": 11}] + ([{"bet": "suited_tie", "payout": 50}] if suited else [])
        pushed = _PUSHED
    else:
        winner = "dragon" if d > t else "tiger"
        winning, pushed = [{"bet": winner, "payout": 1}], []
    result = {"winner": winner, "dragon_card": dragon, "tiger_card": tiger, "suited_tie": suited}
    answer = {
        "id": item["id"],
        "valid": True,
        "result": result,
        "outcome": {"winning_bets": winning, "pushed_bets": pushed},
    }
    return json.dumps(answer, separators=(",", ":")) + "\n"


def plain_loop(game_id: str) -> Callable[[str], str]:
    from app.evaluate import evaluate_line
    from recognition.games import GAMES

    game = GAMES[game_id]
    return lambda line: json.dumps(evaluate_line(game, line, 0), separators=(",", ":")) + "\n"


def in_process(fn: Callable[[str], str], lines: list[str]) -> tuple[float, list[str]]:
    t = time.process_time()
    out = [fn(line) for line in lines]
    return time.process_time() - t, out


def cli(args: list[str], stdout: Path | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of `python -m app.cli ARGS` (output to `stdout`, or thrown away)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(stdout or "/dev/null", "w") as out:
        subprocess.run([sys.executable, "-m", "app.cli", *args], stdout=out, cwd=ROOT, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=1_000_000)
    p.add_argument("--games", default="dragon_tiger,sic_bo,european_roulette,baccarat")
    p.add_argument(
        "--plain-rounds", type=int, default=200_000, help="rounds through the plain loop (default 200k)"
    )
    p.add_argument("--seed", type=int, default=25)
    args = p.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="studio-bench-evaluate-"))
    machine = MachineLoad()
    try:
        cli(["evaluate", "--list"])  # the game index, written once
        print(f"studio evaluate, {args.rounds:,} rounds a game (rounds/s of CPU time; wall in brackets)")
        for game in args.games.split(","):
            lines = generate(game, args.rounds, args.seed)
            source, answer = tmp / f"{game}.jsonl", tmp / f"{game}.out"
            source.write_text("".join(lines))
            wall, cpu = cli(["evaluate", "--game", game, "--in", str(source)], answer)
            got = answer.read_text().splitlines(keepends=True)
            sample = lines[: args.plain_rounds]
            plain_cpu, expected = in_process(plain_loop(game), sample)
            same = got[: len(sample)] == expected and len(got) == len(lines)
            rate, plain_rate = len(lines) / cpu, len(sample) / plain_cpu
            row = (
                f"  {game:<18} CLI {rate:>9,.0f}/s ({len(lines) / wall:>9,.0f}/s wall)   plain loop {plain_rate:>9,.0f}/s"
                f" -> {rate / plain_rate:5.2f}x   same lines: {'yes' if same else 'NO'}"
            )
            if game == "dragon_tiger":
                rules_cpu, by_rules = in_process(plain_dragon_tiger, sample)
                rules_rate = len(sample) / rules_cpu
                ok = rate / rules_rate >= TARGET_VS_PLAIN
                row += (
                    f"   plain rules {rules_rate:>9,.0f}/s -> {rate / rules_rate:5.2f}x "
                    f"(target >= {TARGET_VS_PLAIN:g}x: {'MET' if ok else 'NOT MET'}), "
                    f"same lines: {'yes' if by_rules == expected else 'NO'}"
                )
            if game == "baccarat":
                row += (
                    f"   (target >= {TARGET_BACCARAT:,}/s: {'MET' if rate >= TARGET_BACCARAT else 'NOT MET'})"
                )
            print(row, flush=True)
        for what in (["evaluate", "--list"], ["evaluate", "--help"], ["--help"]):
            walls, cpus = zip(*(cli(what) for _ in range(5)), strict=True)
            w, c = statistics.median(walls), statistics.median(cpus)
            print(
                f"  studio {' '.join(what):<18} {w:.3f} s wall, {c:.3f} s CPU "
                f"(target < {TARGET_START_S:g} s: {'MET' if w < TARGET_START_S else 'NOT MET'})"
            )
        print(f"  {machine.stop().summary()}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
