"""`studio evaluate` writes, line for line, what the plain implementation of each game's rules writes
(bench/plain_rules.py, the yardstick of bench/evaluate.py), and a card game starts without OpenCV."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from app.evaluate import _evaluate_lines, evaluate_line
from bench.plain_rules import GAMES as PLAIN
from recognition.games import GAMES

ROOT = Path(__file__).resolve().parents[2]

#: after the CLI has answered, the modules a card game must not have loaded
PROBE = """
import sys
from app.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print(sorted(m for m in ("cv2", "numpy") if m in sys.modules), file=sys.stderr)
sys.exit(code)
"""


def studio(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, XDG_CACHE_HOME=str(cache)),
        timeout=300,
        check=True,
    )


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding the game index (written by the first start, which imports every game)."""
    folder = tmp_path_factory.mktemp("cache")
    studio(folder, "evaluate", "--list")
    return folder


def studio_evaluate(cache: Path, source: Path, game_id: str, lines: list[str]) -> tuple[str, list[str]]:
    source.write_text("".join(lines))
    done = studio(cache, "evaluate", "--game", game_id, "--in", str(source))
    return done.stdout, json.loads(done.stderr.strip().splitlines()[-1].replace("'", '"'))


@pytest.mark.parametrize("game_id", list(PLAIN))
def test_the_cli_writes_what_the_plain_rules_write(game_id: str, cache: Path, tmp_path: Path) -> None:
    generate, plain = PLAIN[game_id]
    lines = generate(random.Random(7), 3000)
    written, imported = studio_evaluate(cache, tmp_path / "rounds.jsonl", game_id, lines)
    assert written.splitlines(keepends=True) == [plain(line) for line in lines]
    if game_id in ("baccarat", "dragon_tiger"):
        assert imported == []  # no OpenCV, no numpy for a card game


def general(game_id: str, lines: list[str]) -> str:
    game = GAMES[game_id]
    out = [
        json.dumps(evaluate_line(game, line, n), separators=(",", ":")) + "\n"
        for n, line in enumerate(lines, 1)
        if line.strip()
    ]
    return "".join(out)


def test_lucky_5_lines_off_the_fast_path_are_answered_by_the_general_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [
        '{"id": 1, "balls": ["1", "2", "3", "4", "5"]}\n',
        '{"id":2,"balls":["36","35","34","33","32"]}',  # no spaces, no newline
        '{"id": 3, "balls": ["1", "2", "3", "4", "4"]}\n',  # a ball twice
        '{"id": 4, "balls": ["1", "2", "3", "4", "37"]}\n',  # not a ball of the game
        '{"id": 5, "balls": ["1", "2", "3", "4"]}\n',  # too few
        '{"id": 6, "balls": ["1", "2", "3", "4", "5", "6"]}\n',  # too many
        '{"id": 7, "balls": ["01", "2", "3", "4", "5"]}\n',  # not a label
        '{"id": 8, "balls": [1, 2, 3, 4, 5]}\n',  # ints: the general path
        '{"id": "r-9", "balls": ["1", "2", "3", "4", "5"]}\n',
        '{"id": 007, "balls": ["1", "2", "3", "4", "5"]}\n',  # not JSON
        '{"id": -0, "balls": ["1", "2", "3", "4", "5"]}\n',
        '{"id": 10, "balls": ["1", "2", "3", "4", "5"], "colors": ["white", "blue", "green", "red", "white"]}\n',
        '{"id": 11, "balls": ["5", "4", "3", "2", "1"]}\n',  # the facts of line 1, in another order
        '{"id": 12, "balls": ["1", "2", "3", "4", "\\u0035"]}\n',  # an escape
    ]
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    _evaluate_lines(GAMES["lucky_5"], lines)
    assert out.getvalue() == general("lucky_5", lines)
