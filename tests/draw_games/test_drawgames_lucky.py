"""Lucky 5, Lucky 7, Lucky 6 (60 balls) and Lucky 6 (48 balls) against hand-checked draws."""

from __future__ import annotations

import pytest
from drawgames_helpers import winners

from recognition.draw_games import GAMES, Lucky5, Lucky6Of60, Lucky7

# --- Lucky 5 ---------------------------------------------------------------------------------------------
# Draw 36, 1, 14, 27, 8 with the default map (1 white, 2 blue, 3 green, 4 red, repeating):
# 36 red, 1 white, 14 blue, 27 green, 8 red -> white 1, blue 1, green 1, red 2; sum 86 (even, under 92.5);
# odd balls 1 and 27 -> 2 odd, 3 even.

LUCKY5_DRAW = {"balls": ["36", "1", "14", "27", "8"]}
ONE_OF = ["at_least_1", "under_1.5", "under_2.5", "exactly_1", "not_exactly_2", "not_exactly_3"]


def test_lucky5_hand_checked_draw():
    outcome = GAMES["lucky_5"].outcome(LUCKY5_DRAW)
    assert outcome["colors"] == ["red", "white", "blue", "green", "red"]
    assert outcome["sum"] == 86 and outcome["odd"] == 2 and outcome["even"] == 3
    assert outcome["color_counts"] == {"white": 1, "blue": 1, "green": 1, "red": 2}
    expected = {"more_even", "sum_even", "sum_under_92.5"}
    expected |= {f"{c}_{bet}" for c in ("white", "green", "blue") for bet in ONE_OF}
    expected |= {
        "red_at_least_1",
        "red_over_1.5",
        "red_under_2.5",
        "red_not_exactly_1",
        "red_exactly_2",
        "red_not_exactly_3",
    }
    expected |= {
        "white_red_over_green_blue",  # 1 + 2 > 1 + 1
        "equal_white_green",
        "more_red_than_white",
        "equal_white_blue",
        "more_red_than_green",
        "equal_green_blue",
        "more_red_than_blue",
    }
    assert winners(outcome) == expected


def test_lucky5_five_of_a_colour():
    # 4, 8, 12, 16, 20 are all red with the default map
    won = winners(GAMES["lucky_5"].outcome({"balls": [4, 8, 12, 16, 20]}))
    assert {
        "red_5",
        "same_color_3",
        "same_color_4",
        "same_color_5",
        "white_none",
        "sum_under_92.5",
        "more_even",
        "sum_even",
    } <= won
    assert "red_exactly_4" not in won and "red_over_3.5" in won and "red_not_exactly_3" in won
    assert "equal_white_green" in won  # 0 = 0


def test_lucky5_number_bets():
    game = GAMES["lucky_5"]
    for market, selection, won in (
        ("drawn", [14], True),
        ("drawn", [15], False),
        ("not_drawn", [14], False),
        ("not_drawn", [15], True),
        ("two_drawn", [1, 8], True),
        ("two_drawn", [1, 2], False),
        ("three_drawn", [36, 8, 1], True),
        ("three_drawn", [36, 8, 2], False),
    ):
        assert game.settle(
            {"market": market, "selection": selection, "stake": 2, "odds": 3}, LUCKY5_DRAW
        ) == {
            "market": market,
            "selection": sorted((str(s) for s in selection), key=int),
            "won": won,
            "void": False,
            "return": 6 if won else 0,
        }


def test_lucky5_colour_map_is_configurable_and_checked():
    ranges = {str(n): ("white", "blue", "green", "red")[(n - 1) // 9] for n in range(1, 37)}
    game = Lucky5(colors=ranges)  # 1-9 white, 10-18 blue, 19-27 green, 28-36 red
    outcome = game.outcome(LUCKY5_DRAW)  # 36 red, 1 white, 14 blue, 27 green, 8 white
    assert outcome["color_counts"] == {"white": 2, "blue": 1, "green": 1, "red": 1}
    assert "white_exactly_2" in winners(outcome)
    with pytest.raises(ValueError, match="9 white balls"):
        Lucky5(colors={**ranges, "10": "white"})
    with pytest.raises(ValueError, match="every ball"):
        Lucky5(colors={k: v for k, v in ranges.items() if k != "1"})


def test_lucky5_validation():
    with pytest.raises(ValueError, match="draws 5 balls, got 4: the draw is incomplete"):
        GAMES["lucky_5"].validate_result({"balls": [1, 2, 3, 4]})
    with pytest.raises(ValueError, match="ball 5 \\('1'\\) repeats ball 1"):
        GAMES["lucky_5"].validate_result({"balls": [1, 2, 3, 4, 1]})
    with pytest.raises(ValueError, match="'37' is not a ball of Lucky 5"):
        GAMES["lucky_5"].validate_result({"balls": [1, 2, 3, 4, 37]})


# --- Lucky 7 ---------------------------------------------------------------------------------------------
# Draw 42, 3, 17, 8, 25, 30, 11 with the default map (odd black, even yellow):
# yellow 42, 8, 30 (3 balls, sum 80); black 3, 17, 25, 11 (4 balls, sum 56); total 136; 4 odd, 3 even.

LUCKY7_DRAW = {"balls": ["42", "3", "17", "8", "25", "30", "11"]}


def test_lucky7_hand_checked_draw():
    outcome = GAMES["lucky_7"].outcome(LUCKY7_DRAW)
    assert outcome["sum"] == 136 and outcome["color_sums"] == {"black": 56, "yellow": 80}
    assert winners(outcome) == {
        "yellow_sum_over_73.5",
        "black_sum_under_73.5",
        "sum_over_125.5",
        "sum_under_150.5",
        "sum_under_175.5",
        "sum_under_200.5",
        "yellow_under_3.5",
        "yellow_over_2.5",
        "yellow_over_1.5",
        "black_over_3.5",
        "black_over_2.5",
        "black_over_1.5",
        "yellow_exactly_3",
        "black_exactly_4",
        "more_odd",
        "sum_even",
        "first_even",
        "last_odd",
        "first_even_second_odd",
        "first_even_last_odd",
        "first_yellow",
        "last_black",
        "more_black",
        "first_two_different_colors",
    }


def test_lucky7_selection_bets():
    game = GAMES["lucky_7"]
    seven_two_hits = [3, 8, 40, 41, 1, 2, 5]
    for market, selection, won in (
        ("at_least_1_of_7", seven_two_hits, True),
        ("at_least_2_of_7", seven_two_hits, True),
        ("at_least_3_of_7", seven_two_hits, False),
        ("none_of_7", seven_two_hits, False),
        ("none_of_7", [1, 2, 4, 5, 6, 7, 9], True),
        ("four_drawn", [3, 17, 8, 11], True),
        ("four_drawn", [3, 17, 8, 12], False),
        ("not_drawn", [42], False),
        ("drawn", [42], True),
    ):
        assert (
            game.settle({"market": market, "selection": selection, "stake": 1, "odds": 5}, LUCKY7_DRAW)["won"]
            is won
        ), market
    with pytest.raises(ValueError, match="selects 7 value"):
        game.settle({"market": "none_of_7", "selection": [1, 2, 4], "stake": 1, "odds": 5}, LUCKY7_DRAW)


def test_lucky7_counts_the_first_seven_balls_in_the_tube():
    game = GAMES["lucky_7"]
    result = game.validate_result({"balls": LUCKY7_DRAW["balls"] + ["1", "2"]})
    assert result == {"balls": LUCKY7_DRAW["balls"], "ignored_balls": ["1", "2"]}
    assert game.validate_result(result) == result
    outcome = game.outcome(result)
    assert outcome["ignored_balls"] == ["1", "2"] and outcome["sum"] == 136
    assert winners(outcome) == winners(game.outcome(LUCKY7_DRAW))
    assert game.settle({"market": "drawn", "selection": [1], "stake": 1, "odds": 5}, result)["won"] is False
    with pytest.raises(ValueError, match="the draw is incomplete: Lucky 7 needs at least 7 balls"):
        game.validate_result({"balls": LUCKY7_DRAW["balls"][:6]})
    with pytest.raises(ValueError, match="repeats"):
        game.validate_result({"balls": LUCKY7_DRAW["balls"] + ["42"]})


def test_lucky7_colour_sums_with_no_ball_of_the_colour():
    all_black = {"balls": [1, 3, 5, 7, 9, 11, 13]}  # sum 49, no yellow ball
    won = winners(GAMES["lucky_7"].outcome(all_black))
    assert {
        "yellow_sum_under_73.5",
        "black_sum_under_73.5",
        "black_7",
        "yellow_none",
        "sum_under_100.5",
    } <= won
    strict = Lucky7(empty_color_sum_void=True)
    outcome = strict.outcome(all_black)
    assert "yellow_sum_under_73.5" not in winners(outcome) and "black_sum_under_73.5" in winners(outcome)
    assert {v["bet"] for v in outcome["void_bets"]} == {"yellow_sum_under_73.5", "yellow_sum_over_73.5"}
    assert strict.settle({"market": "yellow_sum_over_73.5", "stake": 7, "odds": 2}, all_black) == {
        "market": "yellow_sum_over_73.5",
        "won": False,
        "void": True,
        "return": 7,
    }


# --- Lucky 6 with 60 digit balls ---------------------------------------------------------------------------
# red 3, blue 7 | red 0, blue 0 | blue 9, red 9: zones A "37" (sum 10), B "00" (0), C "99" (18); total 28;
# red digits 3 + 0 + 9 = 12, blue 7 + 0 + 9 = 16; even digits 0, 0 (2), odd 3, 7, 9, 9 (4).

LUCKY6_60_DRAW = {"balls": ["red-3", "blue-7", "red-0", "blue-0", "blue-9", "red-9"]}


def test_lucky6_60_hand_checked_draw():
    outcome = GAMES["lucky_6_60"].outcome(LUCKY6_60_DRAW)
    assert outcome["zones"] == {"A": "37", "B": "00", "C": "99"}
    assert outcome["zone_sums"] == {"A": 10, "B": 0, "C": 18} and outcome["sum"] == 28
    assert outcome["color_sums"] == {"red": 12, "blue": 16}
    assert winners(outcome) == {
        "red_sum_under_13.5",
        "blue_sum_over_12.5",
        "zone_A_sum_over_9.5",
        "zone_B_sum_under_9.5",
        "zone_C_sum_over_9.5",
        "sum_even",
        "even_count_under_2.5",
        "odd_count_over_2.5",
        "zone_A_sum_even",
        "zone_B_sum_even",
        "zone_C_sum_even",
        "sum_over_26.5",
        "sum_over_15.5",
        "sum_under_38.5",
    }


def test_lucky6_60_selection_bets():
    game = GAMES["lucky_6_60"]
    for market, selection, won in (
        ("digit_in_zone_A", ["7"], True),
        ("digit_in_zone_A", ["0"], False),
        ("digit_in_zone_C", [9], True),
        ("zone_A_number", ["37"], True),
        ("zone_A_number", ["73"], False),
        ("zone_B_number", ["00"], True),
        ("digit_count_over_1.5", ["9"], True),
        ("digit_count_over_1.5", ["3"], False),
        ("digit_count_under_1.5", ["3"], True),
        ("digit_count_under_1.5", ["5"], True),
        ("digit_count_even", ["5"], True),
        ("digit_count_even", ["0"], True),
        ("digit_count_odd", ["3"], True),
    ):
        assert (
            game.settle({"market": market, "selection": selection, "stake": 1, "odds": 2}, LUCKY6_60_DRAW)[
                "won"
            ]
            is won
        ), (market, selection)
    with pytest.raises(ValueError, match="'10' is not one of"):
        game.settle({"market": "digit_in_zone_A", "selection": ["10"], "stake": 1, "odds": 2}, LUCKY6_60_DRAW)
    with pytest.raises(ValueError, match="'7' is not one of"):
        game.settle({"market": "zone_A_number", "selection": ["7"], "stake": 1, "odds": 2}, LUCKY6_60_DRAW)


def test_lucky6_60_labels_and_counts():
    game = GAMES["lucky_6_60"]
    assert game.validate_result({"balls": ["red-9"] * 6})["balls"] == ["red-9"] * 6  # digits repeat
    with pytest.raises(ValueError, match="write 'red-3'"):
        game.validate_result({"balls": ["RED-3", "blue-7", "red-0", "blue-0", "blue-9", "red-9"]})
    with pytest.raises(ValueError, match="not a ball of Lucky 6 \\(60 balls\\)"):
        game.validate_result({"balls": ["green-3", "blue-7", "red-0", "blue-0", "blue-9", "red-9"]})
    real_set = Lucky6Of60(counts={"red-9": 1})
    with pytest.raises(ValueError, match="ball 6 \\('red-9'\\) repeats ball 1: the set has one ball 'red-9'"):
        real_set.validate_result({"balls": ["red-9", "blue-7", "red-0", "blue-0", "blue-9", "red-9"]})
    with pytest.raises(ValueError, match="unknown labels"):
        Lucky6Of60(counts={"red-10": 1})


# --- Lucky 6 with 48 balls, 35 drawn ---------------------------------------------------------------------
# First five 10, 20, 30, 40, 48 (sum 148), then 1-9, 11-19, 21-29, 31, 32, 33; not drawn: 34-39 and 41-47.
# 10 is blue (L2951), 33 green (L2949); 18 even balls, 17 odd.

LUCKY6_48_BALLS = (
    [10, 20, 30, 40, 48] + list(range(1, 10)) + list(range(11, 20)) + list(range(21, 30)) + [31, 32, 33]
)
LUCKY6_48_DRAW = {"balls": [str(n) for n in LUCKY6_48_BALLS]}
SEED_48_COLORS = {  # L2949-L2963
    "green": [1, 9, 17, 25, 33, 41],
    "blue": [2, 10, 18, 26, 34, 42],
    "red": [3, 11, 19, 27, 35, 43],
    "purple": [4, 12, 20, 28, 36, 44],
    "yellow": [5, 13, 21, 29, 37, 45],
    "orange": [6, 14, 22, 30, 38, 46],
    "brown": [7, 15, 23, 31, 39, 47],
    "black": [8, 16, 24, 32, 40, 48],
}


def test_lucky6_48_colours_are_the_seed_s():
    assert GAMES["lucky_6_48"].colors == {str(n): c for c, ns in SEED_48_COLORS.items() for n in ns}


def test_lucky6_48_hand_checked_draw():
    assert len(LUCKY6_48_BALLS) == 35 == len(set(LUCKY6_48_BALLS))
    outcome = GAMES["lucky_6_48"].outcome(LUCKY6_48_DRAW)
    assert (
        outcome["first5_sum"] == 148 and outcome["first_color"] == "blue" and outcome["last_color"] == "green"
    )
    assert winners(outcome) == {
        "first5_sum_over_122.5",
        "first_under_24.5",
        "last_over_24.5",
        "first_even",
        "last_odd",
        "more_even",
    }


def test_lucky6_48_six_numbers_pay_by_the_ball_that_completes_them():
    game = GAMES["lucky_6_48"]
    odds = {str(n): str(10000 // n) for n in range(6, 36)}
    # 1..6 fall out as balls 6..11: the sixth of them with the 11th ball
    bet = {"market": "six_numbers", "selection": [6, 5, 4, 3, 2, 1], "stake": 2, "odds": odds}
    assert game.settle(bet, LUCKY6_48_DRAW) == {
        "market": "six_numbers",
        "selection": ["1", "2", "3", "4", "5", "6"],
        "won": True,
        "void": False,
        "at": 11,
        "return": 2 * (10000 // 11),
    }
    first_six = {"market": "six_numbers", "selection": [10, 20, 30, 40, 48, 1], "stake": 1, "odds": odds}
    assert game.settle(first_six, LUCKY6_48_DRAW)["at"] == 6
    last = {"market": "six_numbers", "selection": [33, 1, 2, 3, 4, 5], "stake": 1, "odds": odds}
    assert game.settle(last, LUCKY6_48_DRAW)["at"] == 35
    missing = {"market": "six_numbers", "selection": [1, 2, 3, 4, 5, 34], "stake": 1, "odds": odds}
    assert game.settle(missing, LUCKY6_48_DRAW)["return"] == 0
    with pytest.raises(ValueError, match="no entry for it"):
        game.settle({**bet, "odds": {"6": 5000}}, LUCKY6_48_DRAW)
    for n, won in ((11, True), (10, False), (12, False)):
        single = {"market": f"six_at_{n}", "selection": [1, 2, 3, 4, 5, 6], "stake": 1, "odds": 90}
        assert game.settle(single, LUCKY6_48_DRAW)["won"] is won


def test_lucky6_48_colour_bets_and_validation():
    game = GAMES["lucky_6_48"]
    assert game.settle(
        {"market": "first_color", "selection": ["blue"], "stake": 1, "odds": 8}, LUCKY6_48_DRAW
    )["won"]
    assert game.settle(
        {"market": "last_color", "selection": ["green"], "stake": 1, "odds": 8}, LUCKY6_48_DRAW
    )["won"]
    assert not game.settle(
        {"market": "last_color", "selection": ["red"], "stake": 1, "odds": 8}, LUCKY6_48_DRAW
    )["won"]
    with pytest.raises(ValueError, match="'pink' is not one of"):
        game.settle({"market": "last_color", "selection": ["pink"], "stake": 1, "odds": 8}, LUCKY6_48_DRAW)
    with pytest.raises(ValueError, match="draws 35 balls, got 34"):
        game.validate_result({"balls": LUCKY6_48_DRAW["balls"][:34]})
