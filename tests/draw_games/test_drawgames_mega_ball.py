"""Mega Ball: the seed's line table, the computer-drawn multipliers, and hand-checked cards."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

from app.audit import evaluate_line
from recognition.draw_games import GAMES, MegaBall

GAME = GAMES["mega_ball"]

# The card used below (24 numbers row by row, the centre is free):
#    1  2  3  4  5
#    6  7  8  9 10
#   11 12  *  13 14
#   15 16 17 18 19
#   20 21 22 23 24
CARD = list(range(1, 25))
FILLERS = [30, 31, 32, 33, 34, 35, 36]
# 20 main balls: row 1 (1-5), column 1 (1, 6, 11, 15, 20) complete -> 2 lines; 18, 24 on the diagonal
# 1-7-*-18-24 (7 missing), 12, 14 on the middle row 11-12-*-13-14 (13 missing).
MAIN = [1, 2, 3, 4, 5, 6, 11, 15, 20, 18, 24, 12, 14] + FILLERS


def result(*megas: int) -> dict:
    return {"balls": [str(n) for n in MAIN + list(megas)]}


def settle(game: MegaBall, megas: list[tuple[int, int]], stake: int = 100, card=CARD) -> dict:
    extras = {"mega_multipliers": [m for _, m in megas]}
    return game.settle(
        {"market": "card", "card": card, "stake": stake}, result(*(b for b, _ in megas)), extras
    )


def test_line_table_is_copied_from_the_seed(seed_lines):
    table = {}
    for line in range(2843, 2854, 2):
        m = re.fullmatch(r"(\d) lines? - x (\S+)", seed_lines[line].strip())
        assert m, seed_lines[line]
        table[int(m.group(1))] = int(m.group(2).replace("\u2024", ""))  # "10․000": U+2024 separates thousands
    assert table == {1: 1, 2: 5, 3: 50, 4: 250, 5: 1000, 6: 10000}
    assert GAME.outcome(result(40), {"mega_multipliers": [5]})["line_payouts"] == {
        str(k): v for k, v in table.items()
    }


def test_main_round_only():
    assert len(MAIN) == 20 == len(set(MAIN))
    for rule in ("seed", "multiply"):
        game = MegaBall(mega_rule=rule)
        # 40 is not on the card; 8 is, but completes nothing (row 6-10 and column 3-8-*-17-22 stay open)
        for mega in (40, 8):
            out = settle(game, [(mega, 10)])
            assert (out["lines"], out["lines_with_mega_balls"], out["mega_ball"], out["return"]) == (
                2,
                2,
                None,
                500,
            )


def test_a_mega_ball_completing_a_line_seed_rule():
    # 7 completes the diagonal 1-7-*-18-24: the main round's 2 lines (x5) plus the stake x the multiplier (L2865)
    out = settle(GAME, [(7, 10)])
    assert out == {
        "market": "card",
        "lines": 2,
        "lines_with_mega_balls": 3,
        "mega_ball": {"ball": "7", "multiplier": 10},
        "won": True,
        "void": False,
        "return": 100 * 5 + 100 * 10,
    }


def test_a_mega_ball_completing_a_line_multiply_rule():
    out = settle(MegaBall(mega_rule="multiply"), [(7, 10)])
    assert out["return"] == 100 * 50 * 10  # 3 lines x 50, times 10


def test_the_seed_s_example_pays_the_same_under_both_rules():
    # L2865: 100 EUR, multiplier 5x, the Mega Ball completes a line (the card had none): 500 EUR
    card = [1, 2, 3, 4, 50] + list(range(6, 25))  # row 1 is 1 2 3 4 50
    main = [1, 2, 3, 4] + list(range(25, 41))  # no line after 20 balls
    for rule in ("seed", "multiply"):
        out = MegaBall(mega_rule=rule).settle(
            {"market": "card", "card": card, "stake": 100}, {"balls": main + [50]}, {"mega_multipliers": [5]}
        )
        assert (out["lines"], out["lines_with_mega_balls"], out["return"]) == (0, 1, 500)


@pytest.mark.parametrize(
    ("rule", "pick", "expected"),
    [
        ("seed", "highest", 100 * 5 + 100 * 50),
        ("seed", "first", 100 * 5 + 100 * 10),
        ("multiply", "highest", 100 * 250 * 50),
        ("multiply", "first", 100 * 250 * 10),
    ],
)
def test_two_mega_balls_both_completing_lines_pay_one_multiplier(rule, pick, expected):
    # 7 (x10) completes the diagonal, then 13 (x50) the middle row: 4 lines; "multiplied ... only once" (L2867)
    out = settle(MegaBall(mega_rule=rule, mega_pick=pick), [(7, 10), (13, 50)])
    assert out["lines_with_mega_balls"] == 4
    assert out["mega_ball"] == (
        {"ball": "13", "multiplier": 50} if pick == "highest" else {"ball": "7", "multiplier": 10}
    )
    assert out["return"] == expected


def test_only_the_mega_ball_that_completes_a_line_counts():
    out = settle(GAME, [(40, 100), (7, 10)])
    assert out["mega_ball"] == {"ball": "7", "multiplier": 10} and out["return"] == 1500


def test_more_than_six_lines_are_paid_as_six():
    # rows 1-3, columns 1-2 and both diagonals: 7 lines from 20 balls
    main = list(range(1, 15)) + [15, 16, 20, 21, 18, 24]
    assert len(set(main)) == 20
    out = GAME.settle(
        {"market": "card", "card": CARD, "stake": 100}, {"balls": main + [40]}, {"mega_multipliers": [5]}
    )
    assert (out["lines"], out["return"]) == (7, 100 * 10000)
    # 19 then completes column 5-10-14-19-24: 8 lines
    seed = GAME.settle(
        {"market": "card", "card": CARD, "stake": 100}, {"balls": main + [19]}, {"mega_multipliers": [5]}
    )
    assert (seed["lines_with_mega_balls"], seed["return"]) == (8, 100 * 10000 + 100 * 5)
    multiply = MegaBall(mega_rule="multiply").settle(
        {"market": "card", "card": CARD, "stake": 100}, {"balls": main + [19]}, {"mega_multipliers": [5]}
    )
    assert multiply["return"] == 100 * 10000 * 5


def test_card_formats_and_errors():
    with_centre = CARD[:12] + [None] + CARD[12:]
    assert settle(GAME, [(7, 10)], card=with_centre)["return"] == 1500
    assert settle(GAME, [(7, 10)], card=CARD[:12] + ["free"] + CARD[12:])["return"] == 1500
    for card, words in (
        (CARD[:23], "24 numbers and a free centre"),
        (CARD[:23] + [1], "appears twice"),
        (CARD[:23] + [52], "'52' is not a ball of Mega Ball"),
        (CARD[:12] + [25] + CARD[12:], "free square"),
        ("1 2 3", "a card is a list"),
    ):
        with pytest.raises(ValueError, match=words):
            settle(GAME, [(7, 10)], card=card)
    with pytest.raises(ValueError, match="no 'odds'"):
        GAME.settle(
            {"market": "card", "card": CARD, "stake": 1, "odds": 2}, result(7), {"mega_multipliers": [5]}
        )
    with pytest.raises(ValueError, match="floats are not exact"):
        settle(GAME, [(7, 10)], stake=1.5)
    assert settle(GAME, [(7, 10)], stake="0.50")["return"] == "15/2"


# --- the draw and its extras --------------------------------------------------------------------------------


def test_the_draw_needs_the_committed_multipliers():
    with pytest.raises(ValueError, match="committed extras"):
        GAME.outcome(result(7))
    with pytest.raises(ValueError, match="committed 2 Mega Ball multiplier\\(s\\), but the result has 1"):
        GAME.outcome(result(7), {"mega_multipliers": [5, 10]})
    with pytest.raises(ValueError, match="not a whole multiplier from 5 to 100"):
        GAME.outcome(result(7), {"mega_multipliers": [101]})
    with pytest.raises(ValueError, match="not a whole multiplier"):
        GAME.outcome(result(7), {"mega_multipliers": [5.0]})
    line = evaluate_line(GAME, json.dumps({"id": 9, **result(7)}), 1)
    assert line["valid"] is False and "committed extras" in line["error"]


def test_the_draw_counts():
    extras1, extras2 = {"mega_multipliers": [5]}, {"mega_multipliers": [5, 10]}
    balls = result(7, 13)["balls"]
    assert not GAME.draw_complete(balls[:20], extras1) and GAME.draw_complete(balls[:21], extras1)
    assert not GAME.draw_complete(balls[:21], extras2) and GAME.draw_complete(balls[:22], extras2)
    assert GAME.draw_complete(balls[:21])  # without extras, one Mega Ball
    assert GAME.validate_result({"balls": balls})["balls"] == balls  # 20 + 2
    with pytest.raises(ValueError, match="21 or 22 balls\\), got 20: the draw is incomplete"):
        GAME.validate_result({"balls": balls[:20]})
    with pytest.raises(ValueError, match="repeats ball 1"):
        GAME.validate_result({"balls": balls[:20] + ["1"]})  # a Mega Ball is one of the 31 balls left
    with pytest.raises(ValueError, match="ball 23"):
        GAME.validate_result({"balls": balls + ["40"]})
    out = GAME.outcome({"balls": balls}, extras2)
    assert out["main_balls"] == balls[:20]
    assert out["mega_balls"] == [{"ball": "7", "multiplier": 5}, {"ball": "13", "multiplier": 10}]


def test_draw_extras_uses_only_the_rng_it_is_given():
    random.seed(1234)
    expected_next = random.random()
    random.seed(1234)
    a = GAME.draw_extras(random.Random(7))
    b = GAME.draw_extras(random.Random(7))
    assert a == b and list(a) == ["mega_multipliers"] and len(a["mega_multipliers"]) == 1
    assert 5 <= a["mega_multipliers"][0] <= 100
    assert random.random() == expected_next  # the global generator was not touched


def test_draw_extras_default_is_every_multiplier_from_5_to_100_equally():
    rng = random.Random(99)
    counts = Counter(GAME.draw_extras(rng)["mega_multipliers"][0] for _ in range(9600))
    assert set(counts) == set(range(5, 101))
    assert all(50 <= n <= 160 for n in counts.values()), counts.most_common(3)  # 100 expected each


def test_draw_extras_settings():
    rng = random.Random(5)
    assert len(GAME.draw_extras(rng, mega_ball_count=2)["mega_multipliers"]) == 2
    assert len(GAME.draw_extras(rng, mega_second_ball_chance="1/1")["mega_multipliers"]) == 2
    assert len(GAME.draw_extras(rng, mega_second_ball_chance=0)["mega_multipliers"]) == 1
    twos = sum(
        len(GAME.draw_extras(rng, mega_second_ball_chance="1/4")["mega_multipliers"]) == 2
        for _ in range(4000)
    )
    assert 850 <= twos <= 1150
    assert {GAME.draw_extras(rng, mega_multipliers=[5, 100])["mega_multipliers"][0] for _ in range(200)} == {
        5,
        100,
    }
    fives = sum(
        GAME.draw_extras(rng, mega_multipliers={"5": 3, "100": 1})["mega_multipliers"][0] == 5
        for _ in range(4000)
    )
    assert 2800 <= fives <= 3200
    # the table's judge settings come along and are ignored here
    assert len(GAME.draw_extras(rng, reader_timeout=2.5)["mega_multipliers"]) == 1
    for settings, words in (
        ({"mega_multipliers": [4]}, "not a whole multiplier from 5 to 100"),
        ({"mega_multipliers": [101]}, "not a whole multiplier"),
        ({"mega_multipliers": []}, "empty"),
        ({"mega_multipliers": {"5": 0}}, "positive integer"),
        ({"mega_ball_count": 3}, "1 or 2"),
        ({"mega_second_ball_chance": "2/1"}, "above 1"),
        ({"mega_second_ball_chance": 0.5}, "floats are not exact"),
        ({"mega_multiplier": [5]}, "unknown Mega Ball setting"),
    ):
        with pytest.raises(ValueError, match=words):
            GAME.draw_extras(rng, **settings)


def test_rule_options_are_checked():
    with pytest.raises(ValueError, match="mega_rule"):
        MegaBall(mega_rule="add")
    with pytest.raises(ValueError, match="mega_pick"):
        MegaBall(mega_pick="last")
