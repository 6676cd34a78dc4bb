"""`studio evaluate` answers every line as the plain loop does (one `evaluate_line` per line), however it gets
there (a game's fast path, an answer reused for a round that repeats), and starts without importing what the
game does not need."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import evaluate
from app.evaluate import _evaluate_lines, evaluate_line, game_index, load_game
from recognition.games import GAMES

ROOT = Path(__file__).resolve().parents[2]

#: rounds in the shapes the games take, and some that no game takes
ROUNDS = [
    {"number": "17"},
    {"number": "0"},
    {"number": "00"},
    {"number": 17},
    {"dice": [1, 2, 3]},
    {"dice": [4, 4, 4]},
    {"dice": [6, 5]},
    {"dice": [1, 7, 2]},
    {"cards": ["AS", "KD"]},
    {"cards": ["AS", "KD", "2H", "3C"]},
    {"cards": ["9H", "8D", "2H", "3C", "4S"]},
    {"cards": ["XX", "KD"]},
    {"segment": "2"},
    {"balls": [1, 2, 3, 4, 5]},
    {},
    {"number": "17", "extras": {"multipliers": {"17": 500}}},
]


def lines() -> list[str]:
    out = []
    for i, item in enumerate(ROUNDS * 3):  # each round three times, under different ids
        out.append(json.dumps({"id": i, **item}) + "\n")
        out.append(json.dumps({**item, "id": f"r{i}"}) + "\n")  # the id last
    out += ["\n", "not json\n", "[1, 2]\n", '{"number": "17"}\n', '{"id": null, "number": "17"}\n']
    # ids written in every way, rounds spaced and ended differently, a second id in the round, a line that is
    # not JSON although its round part is
    for rid in (
        "-0",
        "0",
        "007",
        '"a b"',
        '"é"',
        '"\\u00e9"',
        '"x\\"y"',
        "1.5",
        "true",
        "null",
        "[1]",
        "-12",
    ):
        for rest in (
            '"number": "17"}',
            '"number":"17"}\n',
            '"number": "17", "id": 9}',
            '"dice": [1, 2, 3]}',
            "}",
        ):
            out += ['{"id": ' + rid + ", " + rest + "\n", '{"id":' + rid + "," + rest]
    return out


def plain(game_id: str, source: list[str]) -> str:
    """What the loop wrote before: one evaluate_line per line."""
    game = GAMES[game_id]
    out = []
    for lineno, line in enumerate(source, 1):
        if line.strip():
            out.append(json.dumps(evaluate_line(game, line, lineno), separators=(",", ":")) + "\n")
    return "".join(out)


def run(game_id: str, source: list[str], monkeypatch: pytest.MonkeyPatch) -> str:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    _evaluate_lines(GAMES[game_id], source)
    return out.getvalue()


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_line_is_answered_as_the_plain_loop_answers_it(
    game_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = lines()
    assert run(game_id, source, monkeypatch) == plain(game_id, source)


def test_the_answers_are_the_same_once_answers_are_no_longer_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluate, "MEMO_PROBE", 5)
    source = lines()
    assert run("european_roulette", source, monkeypatch) == plain("european_roulette", source)
    monkeypatch.setattr(evaluate, "MEMO_SIZE", 2)
    assert run("sic_bo", source, monkeypatch) == plain("sic_bo", source)


def test_the_index_names_every_game_and_its_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    index = game_index()
    assert list(index) == list(GAMES)
    assert all(load_game(game_id, index) is GAMES[game_id] for game_id in index)
    assert len(list((tmp_path / "studio").glob("games-*.json"))) == 1
    assert game_index() == index  # read back


def test_a_stale_index_still_finds_the_game(tmp_path: Path) -> None:
    assert load_game("baccarat", {"baccarat": "recognition.roulette"}) is GAMES["baccarat"]
    assert load_game("baccarat", {"baccarat": "no.such.module"}) is GAMES["baccarat"]


PROBE = """
import sys
from app.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print(sorted(m for m in ("cv2", "numpy", "pydantic", "recognition.games") if m in sys.modules), file=sys.stderr)
sys.exit(code)
"""


def studio(tmp_path: Path, *args: str, stdin: str = "") -> tuple[str, list[str]]:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        check=True,
    )
    return done.stdout, json.loads(done.stderr.strip().splitlines()[-1].replace("'", '"'))


def test_list_and_a_card_game_import_no_game_they_do_not_need(tmp_path: Path) -> None:
    listed, _ = studio(tmp_path, "evaluate", "--list")  # the first start writes the index
    assert listed.split() == list(GAMES)
    listed, imported = studio(tmp_path, "evaluate", "--list")
    assert listed.split() == list(GAMES) and imported == []
    line = json.dumps({"id": 1, "cards": ["9H", "8D", "2H", "3C"]}) + "\n"
    answer, imported = studio(tmp_path, "evaluate", "--game", "baccarat", stdin=line)
    assert answer == plain("baccarat", [line])
    assert imported == []  # no OpenCV, no numpy, no pydantic, not every game
