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
from bench.plain_blackjack import GAMES as PLAIN_BLACKJACK
from bench.plain_cards import GAMES as PLAIN_CARDS
from bench.plain_rules import DECK
from bench.plain_rules import GAMES as PLAIN
from recognition.cards import poker_fast
from recognition.cards.poker import best5, best_category, best_value, rank5
from recognition.games import GAMES

ROOT = Path(__file__).resolve().parents[2]

#: after the CLI has answered, the modules a card game must not have loaded (pydantic: no game)
PROBE = """
import sys
from app.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print(sorted(m for m in ("cv2", "numpy", "pydantic") if m in sys.modules), file=sys.stderr)
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
    assert "pydantic" not in imported  # a game's rules need no settings models, decisions or device events
    if game_id in ("baccarat", "dragon_tiger", "joker_poker") or game_id in {
        **PLAIN_CARDS,
        **PLAIN_BLACKJACK,
    }:
        assert imported == []  # no OpenCV, no numpy for a card game


def general(game_id: str, lines: list[str]) -> str:
    game = GAMES[game_id]
    out = [
        json.dumps(evaluate_line(game, line, n), separators=(",", ":")) + "\n"
        for n, line in enumerate(lines, 1)
        if line.strip()
    ]
    return "".join(out)


#: lines in and off the fast paths' shape: the answers are the general path's
ODD_LINES = {
    "lucky_5": [
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
    ],
    "three_card_poker": [
        '{"id": 1, "cards": ["AS", "KS", "QS", "2D", "3D", "4D"]}\n',
        '{"id":2,"cards":["AS","KS","QS","2D","3D","4D"]}',
        '{"id": 3, "cards": ["AS", "AS", "QS", "2D", "3D", "4D"]}\n',  # a card twice
        '{"id": 4, "cards": ["AS", "KS", "QS", "2D", "3D"]}\n',  # too few
        '{"id": 5, "cards": ["AS", "KS", "QS", "2D", "3D", "4D", "5D"]}\n',  # too many
        '{"id": 6, "cards": ["AS", "KS", "QS", "2D", "3D", "XX"]}\n',
        '{"id": "r-7", "cards": ["9S", "9H", "QS", "2D", "3D", "4D"]}\n',
        '{"id": 8, "cards": ["9S", "9H", "QS", "2D", "3D", "4D"], "extras": {}}\n',
        '{"id": 9, "cards": ["2S", "3S", "4S", "5S", "AS", "KD"]}\n',  # a wheel flush across the hands
    ],
    "baccarat": [
        '{"id": 1, "cards": ["9H", "5D", "2C", "KS"]}\n',
        '{"id":2,"cards":["9H","5D","2C","KS"]}',
        '{"id": 3, "cards": ["9H", "5D", "2C", "KS", "3D"]}\n',  # a card too many
        '{"id": 4, "cards": ["2H", "3D", "2C", "4S"]}\n',  # too few
        '{"id": 5, "cards": ["9H", "5D", "2C", "1S"]}\n',
        '{"id": 6, "cards": ["9H", "5D", "2C", "KS"], "extras": null}\n',
    ],
    "red_dog": [
        '{"id": 11, "cards": ["9S","JD" ,"KC"]}\n',  # a space before a comma
        '{"id": 12, "cards": ["9 S", "JD", "KC"]}\n',
        '{"id": 13, "cards": [9S, JD, KC]}\n',  # not JSON
        '{"id": 14, "cards": ["9S", "JD", "KC",]}\n',  # not JSON
        '{"id": 15, "cards": ["9S",  "JD", "KC"]}\n',  # two spaces
        '{"id": 16, "cards": ["9S", "JD", "KC"], "cards": ["9S", "JD", "KC"]}\n',
        '{"id": 17, "cards": ["9S", "JD", "K\\u0043"]}\n',  # an escape
        '{"id": 18, "cards": []}\n',
        '{"id": 19, "cards": ["9S", "JD", ""]}\n',
        '{"id": 20, "cards": ["9S""JD", "KC"]}\n',
        '{"id": 1, "cards": ["9S", "JD", "KC"]}\n',
        '{"id":2,"cards":["9S","TD"]}',  # consecutive: no third card
        '{"id": 3, "cards": ["9S", "TD", "KC"]}\n',  # a third card after consecutive ranks
        '{"id": 4, "cards": ["9S", "JD"]}\n',  # the third card missing
        '{"id": 5, "cards": ["9S", "9D", "9C"]}\n',  # three of a kind
        '{"id": 6, "cards": ["9S", "9S", "9S", "9S", "9S", "9S", "9S", "9S", "9S"]}\n',  # too many
        '{"id": 7, "cards": ["9S", "JD", "KC"], "extras": {}}\n',
    ],
    "top_card_trumps": [
        '{"id": 1, "cards": ["QS", "TC"]}\n',
        '{"id": 2, "cards": ["QS", "QC"]}\n',  # a war without its cards
        '{"id": 3, "cards": ["QS", "QC", "2S", "3S", "4S", "5S", "5D"]}\n',  # the war tied: the player's
        '{"id": 4, "cards": ["QS", "TC", "2S", "3S", "4S", "5S", "5D"]}\n',  # war cards without a tie
        '{"id": 5, "cards": ["QS", "QC", "2S", "3S", "4S", "5S", "KD"]}\n',
    ],
    "andar_bahar": [
        '{"id": 1, "cards": ["9S", "JD", "9C"], "extras": {"first_side": "bahar"}}\n',
        '{"id":2,"cards":["9S","9C"],"extras":{"first_side":"andar"}}',
        '{"id": 3, "cards": ["9S", "JD", "9C"]}\n',  # no first side
        '{"id": 4, "cards": ["9S", "9D", "9C"], "extras": {"first_side": "bahar"}}\n',  # past the match
        '{"id": 5, "cards": ["9S", "JD", "QC"], "extras": {"first_side": "bahar"}}\n',  # no match yet
        '{"id": 6, "cards": ["9S", "JD", "JD", "9C"], "extras": {"first_side": "bahar"}}\n',  # a card twice
        '{"id": 7, "cards": ["9S"], "extras": {"first_side": "bahar"}}\n',
        '{"id": 8, "cards": ["9S", "9C"], "extras": {"first_side": "up"}}\n',
        '{"id": 9, "cards": [], "extras": {"first_side": "andar"}}\n',
        '{"id": 10, "cards": ["9S",  "JD", "9C"], "extras": {"first_side": "andar"}}\n',  # two spaces
        '{"id": 11, "cards": ["9S" ,"JD", "9C"], "extras": {"first_side": "andar"}}\n',
        '{"id": 12, "cards": ["9S", "J\\u0044", "9C"], "extras": {"first_side": "andar"}}\n',  # an escape
        '{"id": 13, "cards": ["9S", "JD", "9C"], "extras": {"first_side": "andar", "x": 1}}\n',
        '{"id": 14, "cards": ["9S", "JD", "9C"], "extras": {"first_side": "andar"}, "x": 1}\n',
        '{"id": 15, "cards": ["9S", "JD", "9C", "9D"], "extras": {"first_side": "andar"}}\n',  # past it
        '{"id": 16, "cards": ["9S", "JD", "JH", "9C"], "extras": {"first_side": "andar"}}\n',  # bahar's
        '{"id": 17, "cards": ["9S", "JD", "XX", "9C"], "extras": {"first_side": "andar"}}\n',
        '{"id": 18, "cards": ["9S", "JD", "9C"], "extras": {"first_side": "andar"}} \n',
    ],
    "thirty_two_cards": [
        '{"id": 1, "cards": ["6H", "8D", "9C", "7C"]}\n',
        '{"id": 2, "cards": ["6H", "8D", "9C", "2C"]}\n',  # not a card of the 32
        '{"id": 3, "cards": ["7S", "6S", "TD", "7D", "9H"]}\n',  # a card too many
        '{"id": 4, "cards": ["KS", "QS", "JS", "TS"]}\n',  # 21 for all four: another card each
        '{"id": 5, "cards": ["KS", "QS", "JS", "TS", "6H", "7H", "8H", "9H"]}\n',
        '{"id": 6, "cards": ["KS", "KS", "JS", "TS"]}\n',
    ],
    "twenty_one_bet": [
        '{"id": 1, "cards": ["AS", "TS", "QH", "QS"]}\n',  # a golden point
        '{"id": 2, "cards": ["AS", "AH", "AD", "AC"]}\n',  # both golden
        '{"id": 3, "cards": ["KS", "9S", "QH", "QS", "9C"]}\n',
        '{"id": 4, "cards": ["KS", "9S", "QH", "QS"]}\n',  # too few
        '{"id": 5, "cards": ["KS", "9S", "QH", "QS", "9C", "6D"]}\n',  # a card too many
        '{"id": 6, "cards": ["KS", "9S", "QH", "QS", "2C"]}\n',  # not a card of the 36
        '{"id": 7, "cards": ["TS", "8S", "6H", "6S", "7C"]}\n',
    ],
    "side_bet_city": [
        '{"id": 1, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D"]}\n',
        '{"id": 2, "cards": ["AS", "KS", "QS", "JS", "TS", "9S", "8S"]}\n',
        '{"id": 3, "cards": ["JS", "JD", "2C", "5S", "4H", "8S", "6D"]}\n',  # jacks in the five
        '{"id": 4, "cards": ["9S", "JD", "TC", "5S", "4H", "8S"]}\n',
        '{"id": 5, "cards": ["9S", "9S", "TC", "5S", "4H", "8S", "6D"]}\n',
    ],
    "caribbean_stud": [
        '{"id": 1, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D", "5D", "3C"]}\n',
        '{"id": 2, "cards": ["AS", "KS", "QS", "JS", "TS", "AD", "KD", "2C", "5H", "7C"]}\n',  # ace-king
        '{"id": 3, "cards": ["AS", "KS", "QS", "JS", "TS", "AD", "KD", "2C", "5H"]}\n',
        '{"id": 4, "cards": ["2S", "3D", "4C", "5H", "7S", "2D", "3C", "4H", "5S", "7D"]}\n',  # a tie
    ],
    "casino_holdem": [
        '{"id": 1, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D", "5D"]}\n',
        '{"id": 2, "cards": ["AS", "AD", "2C", "3H", "AH", "KS", "7D", "8C", "9D"]}\n',
        '{"id": 3, "cards": ["2S", "3D", "2C", "3H", "AH", "KS", "QD", "JC", "TD"]}\n',  # both a straight
        '{"id": 4, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D"]}\n',
    ],
    "golden_wealth_baccarat": [
        '{"id": 1, "cards": ["9H", "5D", "2C", "KS"], "extras": {"gold_cards": [{"card": "3S", "multiplier": 8}, {"card": "8H", "multiplier": 3}, {"card": "KC", "multiplier": 3}, {"card": "QC", "multiplier": 5}, {"card": "9H", "multiplier": 5}]}}\n',
        '{"id": 2, "cards": ["9H", "5D", "2C", "KS"], "extras": {"gold_cards":[{"card":"3S","multiplier":8},{"card":"8H","multiplier":3},{"card":"KC","multiplier":3},{"card":"QC","multiplier":5},{"card":"9H","multiplier":5}]}}\n',  # no spaces
        '{"id": 3, "cards": ["9H", "5D", "2C", "KS"], "extras": {"gold_cards": [{"card": "3S", "multiplier": 8}, {"card": "8H", "multiplier": 3}, {"card": "KC", "multiplier": 3}, {"card": "QC", "multiplier": 5}]}}\n',  # four gold cards
        '{"id": 4, "cards": ["9H", "5D", "2C", "KS"], "extras": {"gold_cards": [{"card": "3S", "multiplier": 8}, {"card": "8H", "multiplier": 3}, {"card": "KC", "multiplier": 3}, {"card": "QC", "multiplier": 5}, {"card": "3S", "multiplier": 2}]}}\n',  # a gold card twice
        '{"id": 5, "cards": ["9H", "5D", "2C", "KS"], "extras": {"gold_cards": [{"card": "3S", "multiplier": 8}, {"card": "8H", "multiplier": 3}, {"card": "KC", "multiplier": 3}, {"card": "QC", "multiplier": 5}, {"card": "AS", "multiplier": 4}]}}\n',  # a multiplier it does not draw
        '{"id": 6, "cards": ["9H", "5D", "2C", "KS", "3D"], "extras": {"gold_cards": [{"card": "3S", "multiplier": 8}, {"card": "8H", "multiplier": 3}, {"card": "KC", "multiplier": 3}, {"card": "QC", "multiplier": 5}, {"card": "9H", "multiplier": 5}]}}\n',  # a card too many
        '{"id": 7, "cards": ["4H", "5D", "2C", "KS", "9D", "KH"], "extras": {"gold_cards": [{"card": "3S", "multiplier": 8}, {"card": "8H", "multiplier": 3}, {"card": "KC", "multiplier": 3}, {"card": "QC", "multiplier": 5}, {"card": "9H", "multiplier": 5}]}}\n',  # both draw
        '{"id": 8, "cards": ["9H", "9H", "2C", "9H"], "extras": {"gold_cards": [{"card": "9H", "multiplier": 8}, {"card": "2C", "multiplier": 2}, {"card": "AS", "multiplier": 3}, {"card": "AD", "multiplier": 3}, {"card": "AC", "multiplier": 3}]}}\n',
        '{"id": 9, "cards": ["9H", "5D", "2C", "KS"]}\n',  # no extras
    ],
    "five_card_poker_exchange": [
        '{"id": 1, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "2D", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "discard", "cards": ["9S"]}]}\n',
        '{"id": 2, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "keep"}]}\n',
        '{"id": 3, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "2D", "6D", "3D", "5D", "3C"], "decisions": [{"window": "player/hand_1/exchange", "seat": "player", "hand": 1, "action": "discard", "cards": ["4H"], "by": "backend"}]}\n',  # canonical
        '{"id": 4, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "2D", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "discard", "cards": ["3C"]}]}\n',  # not a card of the hand
        '{"id": 5, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "keep", "cards": ["9S"]}]}\n',  # keep takes no cards
        '{"id": 6, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "2D", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "buy"}]}\n',  # not this game's decision
        '{"id": 7, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D", "5D", "3C"], "decisions": [{"window": "player/hand_1/buy", "seat": "player", "action": "keep"}]}\n',  # another window
        '{"id": 8, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "2D", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "discard", "cards": ["9S"], "by": "default"}]}\n',
        '{"id": 9, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "keep", "cards": []}]}\n',
    ],
    "six_card_poker": [
        '{"id": 1, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "2D", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "buy"}]}\n',
        '{"id": 2, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "keep"}]}\n',
        '{"id": 3, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "buy"}]}\n',  # the bought card missing
        '{"id": 4, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "2D", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "buy", "cards": ["9S"]}]}\n',
        '{"id": 5, "cards": ["AS", "KS", "QS", "JS", "2D", "8S", "TS", "6D", "3D", "5D", "3C"], "decisions": [{"seat": "player", "action": "buy"}]}\n',  # a royal flush bought
    ],
    "texas_holdem": [
        '{"id": 1, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D", "5D"]}\n',
        '{"id": 2, "cards": ["7S", "2D", "KC", "8H", "AH", "AS", "AD", "AC", "9D"]}\n',
        '{"id": 3, "cards": ["9S", "JD", "TC", "5S", "4H", "8S", "6D", "3D", "5D", "6C"]}\n',
    ],
}


@pytest.mark.parametrize("game_id", list(ODD_LINES))
def test_lines_off_the_fast_path_are_answered_by_the_general_path(
    game_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = ODD_LINES[game_id] * 2  # the second time from the kept tails
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    _evaluate_lines(GAMES[game_id], lines)
    assert out.getvalue() == general(game_id, lines)


def test_the_best_category_is_the_best_five_cards_category() -> None:
    rng = random.Random(11)
    hands = [rng.sample(DECK, rng.randint(5, 7)) for _ in range(20_000)]
    hands += [
        ["AS", "2D", "3C", "4H", "5S", "KD"],  # the wheel
        ["TS", "JS", "QS", "KS", "AS", "9S", "2D"],  # royal flush over a straight flush
        ["9S", "TS", "JS", "QS", "KS", "AD", "2C"],  # straight flush under a straight to the ace
        ["AS", "2S", "3S", "4S", "5S", "6D"],  # steel wheel beside a six-high straight
        ["7S", "7D", "7C", "9H", "9S", "9D"],  # two threes: a full house
        ["8S", "8D", "8C", "8H", "9S", "9D", "9C"],
        ["2S", "4S", "6S", "8S", "TS", "3D", "5H"],  # a flush and a straight: the flush
    ]
    assert [best_category(h) for h in hands] == [best5(h)[0][0] for h in hands]


def test_the_best_value_is_the_best_five_cards_value() -> None:
    rng = random.Random(12)
    few = [r + s for r in "9TJQKA" for s in "SH"]  # pairs, trips and full houses come often
    hands = [rng.sample(DECK, rng.randint(5, 7)) for _ in range(20_000)]
    hands += [rng.sample(few * 2, rng.randint(5, 7)) for _ in range(10_000)]
    assert [best_value(h) for h in hands] == [best5(h)[0] for h in hands]


def test_the_fast_rank5_is_rank5() -> None:
    rng = random.Random(13)
    hands = [rng.sample(DECK * 8, 5) for _ in range(20_000)]  # from an 8-deck shoe: five of a kind too
    hands += [rng.sample([r + "S" for r in "A2345"] * 8, 5) for _ in range(2_000)]
    hands += [["AS", "2S", "3S", "4S", "5S"], ["TS", "JS", "QS", "KS", "AS"], ["AD", "2S", "3S", "4S", "5S"]]
    assert [poker_fast.rank5(h) for h in hands] == [rank5(h) for h in hands]
