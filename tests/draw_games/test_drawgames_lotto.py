"""MEGA 6, Super Six and Lotto Express 5/35 Plus against hand-checked draws and tickets."""

from __future__ import annotations

import pytest
from drawgames_helpers import winners

from recognition.draw_games import GAMES, Mega6, SuperSix

# --- MEGA 6 ------------------------------------------------------------------------------------------------
# 25 W, 30 P, 7 W, 44 P, 49 W, 12 P (odd white, even pink, L4195): 3 white (sum 81), 3 pink (sum 86), total 167.

MEGA6_DRAW = {"balls": ["25", "30", "7", "44", "49", "12"]}


def test_mega6_hand_checked_draw():
    outcome = GAMES["mega_6"].outcome(MEGA6_DRAW)
    assert outcome["colors"] == ["white", "pink", "white", "pink", "white", "pink"]
    assert outcome["sum"] == 167 and outcome["color_sums"] == {"white": 81, "pink": 86}
    # first ball 25: over 15 only (not over 25); 25 and 30 are not both over or both under 25; 3:3 wins neither
    assert winners(outcome) == {
        "first_over_15",
        "first_white",
        "first_white_second_pink",
        "sum_odd",
        "sum_over_155",
    }


def test_mega6_all_white_and_the_empty_colour_sum():
    draw = {"balls": [1, 3, 5, 7, 9, 11]}  # sum 36; no pink ball
    expected = {
        "all_white",
        "more_white",
        "first_white",
        "first_two_white",
        "sum_even",
        "sum_under_120",
        "sum_under_135",
        "sum_under_150",
        "white_sum_under_65",
        "pink_sum_under_65",
        "first_two_under_25",
    }
    assert winners(GAMES["mega_6"].outcome(draw)) == expected
    strict = Mega6(empty_color_sum_void=True).outcome(draw)
    assert winners(strict) == expected - {"pink_sum_under_65"}
    assert strict["void_bets"] == [
        {"bet": "pink_sum_over_100", "line": 4239},
        {"bet": "pink_sum_under_65", "line": 4241},
    ]


def test_mega6_integer_thresholds_are_strict():
    draw = {"balls": [49, 48, 10, 8, 3, 2]}  # sum 120 exactly
    won = winners(GAMES["mega_6"].outcome(draw))
    assert "sum_under_120" not in won and {"sum_under_135", "sum_under_150", "first_over_35"} <= won


def test_mega6_number_bets():
    game = GAMES["mega_6"]
    for market, selection, won in (
        ("numbers_1_of_1", [25], True),
        ("numbers_1_of_1", [26], False),
        ("numbers_2_of_2", [25, 26], False),
        ("numbers_2_of_2", [25, 12], True),
        ("numbers_3_of_3", [7, 44, 49], True),
        ("numbers_4_of_4", [7, 12, 25, 30], True),
        ("numbers_4_of_4", [7, 12, 25, 31], False),
        ("numbers_1_of_2", [1, 12], True),
        ("numbers_1_of_3", [1, 2, 12], True),  # L4201: at least one
        ("numbers_1_of_3", [1, 2, 3], False),
        ("numbers_1_of_4", [1, 2, 3, 4], False),
    ):
        assert game.settle(
            {"market": market, "selection": selection, "stake": 10, "odds": "4.5"}, MEGA6_DRAW
        ) == {
            "market": market,
            "selection": sorted((str(s) for s in selection), key=int),
            "won": won,
            "void": False,
            "return": 45 if won else 0,
        }, market
    with pytest.raises(ValueError, match="'50' is not a ball of MEGA 6"):
        game.validate_result({"balls": [1, 2, 3, 4, 5, 50]})


# --- Super Six -----------------------------------------------------------------------------------------------
# The 48-ball draw of the Lucky 6 tests: 10, 20, 30, 40, 48, then 1-9, 11-19, 21-29, 31, 32, 33.
# Default colours repeat red, green, blue, purple, brown, yellow, orange, black (L4253): 10 green, 33 red.
# Not drawn: 34 green, 35 blue, 36 purple, 37 brown, 38 yellow, 39 orange, 41 red, 42 green, 43 blue, 44 purple,
# 45 brown, 46 yellow, 47 orange -> drawn: red 5, green 4, blue 4, purple 4, brown 4, yellow 4, orange 4, black 6.

SIX_BALLS = (
    [10, 20, 30, 40, 48] + list(range(1, 10)) + list(range(11, 20)) + list(range(21, 30)) + [31, 32, 33]
)
SIX_DRAW = {"balls": [str(n) for n in SIX_BALLS]}


def test_super_six_hand_checked_draw():
    outcome = GAMES["super_six"].outcome(SIX_DRAW)
    assert outcome["color_counts"] == {
        "red": 5,
        "green": 4,
        "blue": 4,
        "purple": 4,
        "brown": 4,
        "yellow": 4,
        "orange": 4,
        "black": 6,
    }
    assert (
        outcome["most_color"] == "black"
        and outcome["first_color"] == "green"
        and outcome["last_color"] == "red"
    )
    assert winners(outcome) == {
        "first5_sum_over_122.5",
        "first_under_24.5",
        "first_even",
        "last_odd",
        "more_even",
    }


def test_super_six_selection_bets():
    game = GAMES["super_six"]
    for market, selection, won in (
        ("most_color", ["black"], True),
        ("most_color", ["red"], False),
        ("first_color", ["green"], True),
        ("last_color", ["red"], True),
        ("last_color", ["black"], False),
        ("cool_6", [1, 2, 3, 4, 5, 6], True),
        ("hot_6", [1, 2, 3, 4, 5, 34], False),
        ("first_and_last", [10, 33], True),
        ("first_and_last", [33, 10], False),
        ("first_or_last", [10, 1], True),
        ("first_or_last", [1, 33], True),
        ("first_or_last", [1, 2], False),
        ("two_not_drawn", [34, 47], True),
        ("two_not_drawn", [34, 1], False),
    ):
        assert (
            game.settle({"market": market, "selection": selection, "stake": 1, "odds": 3}, SIX_DRAW)["won"]
            is won
        ), (market, selection)
    with pytest.raises(ValueError, match="repeats a value"):
        game.settle({"market": "first_and_last", "selection": [10, 10], "stake": 1, "odds": 3}, SIX_DRAW)


def test_super_six_simple_bet_pays_by_the_ball_of_the_sixth_hit():
    game = GAMES["super_six"]
    odds = {str(n): 100 - n for n in range(6, 36)}
    # 1..6 come out as balls 6..11; 34 never does: with 7 numbers the sixth hit is ball 11
    bet = {"market": "simple", "selection": [1, 2, 3, 4, 5, 6, 34], "stake": 3, "odds": odds}
    out = game.settle(bet, SIX_DRAW)
    assert (out["won"], out["at"], out["return"]) == (True, 11, 3 * 89)
    ten = {
        "market": "simple",
        "selection": [34, 35, 36, 37, 38, 10, 20, 30, 40, 48],
        "stake": 1,
        "odds": odds,
    }
    assert game.settle(ten, SIX_DRAW)["return"] == 0  # only 5 of them drawn
    with pytest.raises(ValueError, match="selects 6 or 7 or 8 or 9 or 10 value"):
        game.settle({**bet, "selection": [1, 2, 3, 4, 5]}, SIX_DRAW)


def test_super_six_colour_tie_loses_and_the_map_is_configurable():
    # with every ball of 1-35 drawn in order, the colours split 5/5/5/4/4/4/4/4 -> no single "most" colour
    draw = {"balls": [str(n) for n in range(1, 36)]}
    game = GAMES["super_six"]
    assert game.outcome(draw)["most_color"] is None
    assert not any(
        game.settle({"market": "most_color", "selection": [c], "stake": 1, "odds": 9}, draw)["won"]
        for c in ("red", "green", "blue", "purple", "brown", "yellow", "orange", "black")
    )
    blocks = {
        str(n): ("red", "green", "blue", "purple", "brown", "yellow", "orange", "black")[(n - 1) // 6]
        for n in range(1, 49)
    }
    assert SuperSix(colors=blocks).outcome(draw)["most_color"] is None  # 1-30 six each of five colours
    assert SuperSix(colors=blocks).outcome(SIX_DRAW)["last_color"] == "yellow"  # 33 in 31-36 (cyclic: red)


# --- Lotto Express 5/35 Plus --------------------------------------------------------------------------------------
# First round 3, 9, 17, 24, 35; sixth ball 11.

LOTTO_DRAW = {"balls": ["3", "9", "17", "24", "35", "11"]}
LOTTO_ODDS = {"5/5": 5000, "4/5": 100, "3/5": 10, "3/6": 5, "2/6": 2}


@pytest.mark.parametrize(
    ("ticket", "category"),
    [
        ([3, 9, 17, 24, 35], "5/5"),
        ([3, 9, 17, 24, 1], "4/5"),
        ([3, 9, 17, 1, 2], "3/5"),
        ([3, 9, 17, 11, 1], "3/5"),  # won in the first round: takes no part in the second
        ([3, 9, 11, 1, 2], "3/6"),  # 2 in the first round, then the 6th ball
        ([3, 11, 1, 2, 4], "2/6"),  # 1 in the first round, then the 6th ball
        ([3, 9, 1, 2, 4], None),  # 2 in the first round, 6th ball missed
        ([11, 1, 2, 4, 5], None),  # none in the first round: no second round
        ([1, 2, 4, 5, 6], None),
    ],
)
def test_lotto_tickets(ticket, category):
    out = GAMES["lotto_express_5_35"].settle(
        {"market": "ticket", "selection": ticket, "stake": 2, "odds": LOTTO_ODDS}, LOTTO_DRAW
    )
    assert out["won"] is (category is not None)
    assert out["return"] == (2 * LOTTO_ODDS[category] if category else 0)
    if category:
        assert out["at"] == category


def test_lotto_combo_ticket_is_every_five_number_line():
    # 3 9 17 24 11 1: the 6 lines leaving out 3, 9, 17 or 24 have 3 hits (3/5); leaving out 11 or 1, 4 hits (4/5)
    out = GAMES["lotto_express_5_35"].settle(
        {"market": "combo", "selection": [3, 9, 17, 24, 11, 1], "stake_per_line": 2, "odds": LOTTO_ODDS},
        LOTTO_DRAW,
    )
    assert (out["lines"], out["total_stake"]) == (6, 12)
    assert sorted(w["at"] for w in out["winning_lines"]) == ["3/5"] * 4 + ["4/5"] * 2
    assert out["return"] == 4 * 2 * 10 + 2 * 2 * 100
    eight = GAMES["lotto_express_5_35"].settle(
        {"market": "combo", "selection": list(range(1, 9)), "stake_per_line": "0.10", "odds": LOTTO_ODDS},
        LOTTO_DRAW,
    )
    assert eight["lines"] == 56 and eight["total_stake"] == "28/5" and eight["return"] == 0  # only 3 is drawn


def test_lotto_errors():
    game = GAMES["lotto_express_5_35"]
    with pytest.raises(ValueError, match="'stake_per_line'"):
        game.settle(
            {"market": "combo", "selection": [1, 2, 3, 4, 5, 6], "stake": 2, "odds": LOTTO_ODDS}, LOTTO_DRAW
        )
    with pytest.raises(ValueError, match="only a combo ticket"):
        game.settle(
            {"market": "ticket", "selection": [1, 2, 3, 4, 5], "stake_per_line": 2, "odds": LOTTO_ODDS},
            LOTTO_DRAW,
        )
    with pytest.raises(ValueError, match="selects 6 or 7 or 8"):
        game.settle(
            {"market": "combo", "selection": [1, 2, 3, 4, 5], "stake_per_line": 2, "odds": LOTTO_ODDS},
            LOTTO_DRAW,
        )
    with pytest.raises(ValueError, match="no entry for it"):
        game.settle(
            {"market": "ticket", "selection": [3, 9, 17, 1, 2], "stake": 2, "odds": {"5/5": 5000}}, LOTTO_DRAW
        )
    with pytest.raises(ValueError, match="table of odds"):
        game.settle({"market": "ticket", "selection": [3, 9, 17, 1, 2], "stake": 2, "odds": 10}, LOTTO_DRAW)
    with pytest.raises(ValueError, match="ball 2 \\(.3.\\) repeats ball 1"):
        game.validate_result({"balls": [3, 3, 17, 24, 35, 11]})
    with pytest.raises(ValueError, match="draws 6 balls, got 5"):
        game.validate_result({"balls": [3, 9, 17, 24, 35]})
    assert game.outcome(LOTTO_DRAW) == {
        "balls": LOTTO_DRAW["balls"],
        "first_round": ["3", "9", "17", "24", "35"],
        "sixth_ball": "11",
    }
