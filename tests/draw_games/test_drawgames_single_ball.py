"""Keno Express, 1 Bet, Bingo 37 and Bingo 38: every ball against references written from the seed's lists."""

from __future__ import annotations

import pytest
from drawgames_helpers import winners

from recognition.draw_games import GAMES, Bingo37, KenoExpress, OneBet

# --- 1 Bet: the seed's own lists (L3325, L3333-L3411), not the module's arithmetic ---------------------

SEED_RED = "1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36"  # L3325
SEED_BLACK = "2, 4, 6, 8, 10, 11, 13, 15, 17, 20, 22, 24, 26, 28, 29, 31, 33, 35"  # L3325
SEED_COLUMNS = {  # L3339-L3343
    "column_1": "1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34",
    "column_2": "2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35",
    "column_3": "3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36",
}
SEED_INTERVALS = [
    (1, 12),
    (13, 24),
    (25, 36),
    (1, 3),
    (4, 6),
    (7, 9),
    (10, 12),
    (13, 15),
    (16, 18),
    (19, 21),
    (22, 24),
    (25, 27),
    (28, 30),
    (31, 33),
    (34, 36),
    (1, 6),
    (7, 12),
    (13, 18),
    (19, 24),
    (25, 30),
    (31, 36),
    (1, 18),
    (19, 36),
]  # items 2-4, 8-27
THRESHOLDS = ["18.5", "14.5", "22.5", "9.5", "27.5"]  # items 28-37


def one_bet_reference(n: int, zero_is_under: bool = True, zero_is_even: bool = False) -> set[str]:
    won = {f"interval_{a}_{b}" for a, b in SEED_INTERVALS if a <= n <= b}
    won |= {col for col, ns in SEED_COLUMNS.items() if n in {int(x) for x in ns.split(", ")}}
    for t in THRESHOLDS:
        limit = int(t.split(".")[0])  # x.5: over means n > x, under means n <= x
        if n > limit:
            won.add(f"over_{t}")
        elif n > 0 or zero_is_under:
            won.add(f"under_{t}")
    if n in {int(x) for x in SEED_RED.split(", ")}:
        won.add("red")
    if n in {int(x) for x in SEED_BLACK.split(", ")}:
        won.add("black")
    if n % 2 == 1:
        won.add("odd")
    elif n > 0 or zero_is_even:
        won.add("even")
    return won


@pytest.mark.parametrize("n", range(37))
def test_one_bet_every_ball(n):
    outcome = GAMES["one_bet"].outcome({"balls": [n]})
    assert winners(outcome) == one_bet_reference(n)
    assert outcome["number"] == n
    assert outcome["color"] == ("green" if n == 0 else "red" if str(n) in SEED_RED.split(", ") else "black")


def test_one_bet_catalogue_has_the_seed_s_41_bets():
    game = GAMES["one_bet"]
    assert len(game.markets) == 41
    fixed_ids = {m.id for m in game.markets if m.fixed}
    assert fixed_ids == set().union(*(one_bet_reference(n) for n in range(37)))


def test_one_bet_hand_checked_balls():
    # 0: green; the literal "under x.5" bets win, nothing else (choices in the module docstring)
    assert winners(GAMES["one_bet"].outcome({"balls": ["0"]})) == {
        "under_18.5",
        "under_14.5",
        "under_22.5",
        "under_9.5",
        "under_27.5",
    }
    # 19: red, odd, interval 19-21, 19-24, 13-24, 19-36, column 1, over 18.5 and 14.5, under 22.5 and 27.5
    assert winners(GAMES["one_bet"].outcome({"balls": ["19"]})) == {
        "interval_13_24",
        "column_1",
        "interval_19_21",
        "interval_19_24",
        "interval_19_36",
        "over_18.5",
        "over_14.5",
        "under_22.5",
        "over_9.5",
        "under_27.5",
        "red",
        "odd",
    }


def test_one_bet_zero_options():
    strict = OneBet(zero_is_under=False, zero_is_even=True)
    assert winners(strict.outcome({"balls": [0]})) == {"even"} == one_bet_reference(0, False, True)
    for n in range(1, 37):
        assert winners(strict.outcome({"balls": [n]})) == one_bet_reference(n)


def test_one_bet_straight_and_settlement():
    game = GAMES["one_bet"]
    assert (
        game.settle({"market": "straight", "selection": ["0"], "stake": 10, "odds": 36}, {"balls": [0]})[
            "return"
        ]
        == 360
    )
    assert (
        game.settle({"market": "straight", "selection": [17], "stake": 10, "odds": 36}, {"balls": [0]})[
            "return"
        ]
        == 0
    )
    assert game.settle({"market": "red", "stake": 10, "odds": "1.9"}, {"balls": [0]})["return"] == 0
    assert game.settle({"market": "red", "stake": 10, "odds": "1.9"}, {"balls": [1]})["return"] == 19
    with pytest.raises(ValueError, match="not a ball of 1 Bet"):
        game.settle({"market": "straight", "selection": [37], "stake": 10, "odds": 36}, {"balls": [0]})


def test_one_bet_validation():
    with pytest.raises(
        ValueError, match="ball 2 \\('2'\\) came after the draw was complete \\(1 Bet draws 1 ball\\)"
    ):
        GAMES["one_bet"].validate_result({"balls": [1, 2]})
    with pytest.raises(ValueError, match="'37' is not a ball of 1 Bet"):
        GAMES["one_bet"].validate_result({"balls": [37]})


# --- Keno Express ------------------------------------------------------------------------------------


def keno(market: str, selection: list[int], drawn: int, game=GAMES["keno_express"]) -> bool:
    return game.settle({"market": market, "selection": selection, "stake": 1, "odds": 2}, {"balls": [drawn]})[
        "won"
    ]


@pytest.mark.parametrize("drawn", [1, 2, 9, 10, 11, 37, 50, 99, 100])
def test_keno_lower_and_higher_include_the_number(drawn):
    for n in range(1, 101):
        assert keno("lower", [n], drawn) is (drawn <= n)  # L2105: "lower than 10 or equal to it"
        assert keno("higher", [n], drawn) is (drawn >= n)  # L2107: "higher than 10 or equal to it"


def test_keno_ranges_the_seed_s_example():
    # L2109: range 10-37 wins on 10..37; L2111 (standard reading): "not in 10-37" wins below 10 and above 37
    for drawn in range(1, 101):
        assert keno("in_range", [10, 37], drawn) is (10 <= drawn <= 37)
        assert keno("in_range", [37, 10], drawn) is (
            10 <= drawn <= 37
        )  # the order of the bounds does not matter
        assert keno("out_of_range", [10, 37], drawn) is (drawn < 10 or drawn > 37)


def test_keno_out_of_range_bounds_option_follows_the_seed_s_example():
    lenient = KenoExpress(out_of_range_bounds_win=True)
    assert keno("out_of_range", [10, 37], 10, lenient) and keno("out_of_range", [10, 37], 37, lenient)
    assert not keno("out_of_range", [10, 37], 11, lenient)
    assert keno("out_of_range", [10, 37], 9, lenient) and keno("out_of_range", [10, 37], 38, lenient)
    assert not keno("out_of_range", [10, 37], 10) and not keno("out_of_range", [10, 37], 37)


def test_keno_outcome_and_validation():
    game = GAMES["keno_express"]
    assert game.outcome({"balls": ["100"]}) == {
        "balls": ["100"],
        "number": 100,
    }  # every bet needs a selection
    with pytest.raises(ValueError, match="'0' is not a ball of Keno Express"):
        game.validate_result({"balls": [0]})
    with pytest.raises(ValueError, match="'101' is not a ball"):
        game.validate_result({"balls": [101]})
    with pytest.raises(ValueError, match="repeats a value"):
        keno("in_range", [10, 10], 10)
    assert (
        game.settle({"market": "lower", "selection": [10], "stake": 1000, "odds": "1.1"}, {"balls": [10]})[
            "return"
        ]
        == 1100
    )


# --- Bingo 37 / 38 -------------------------------------------------------------------------------------

WHEELBET_ROWS = {  # L4387, the rows this project uses for Bingo's undefined "rows"
    "row_1": "1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34",
    "row_2": "2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35",
    "row_3": "3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36",
}


def bingo_reference(n: int) -> set[str]:
    won = {row for row, ns in WHEELBET_ROWS.items() if str(n) in ns.split(", ")}
    won |= {f"dozen_{i}" for i, (a, b) in enumerate([(1, 12), (13, 24), (25, 36)], 1) if a <= n <= b}  # L4605
    won |= {name for name, (a, b) in {"range_1_18": (1, 18), "range_19_36": (19, 36)}.items() if a <= n <= b}
    return won


@pytest.mark.parametrize("game_id,size", [("bingo_37", 37), ("bingo_38", 38)])
def test_bingo_every_ball(game_id, size):
    game = GAMES[game_id]
    for n in range(1, size + 1):
        assert winners(game.outcome({"balls": [n]})) == bingo_reference(n), n
    assert winners(game.outcome({"balls": [size]})) == set()  # 37 (and 38) are in no row, dozen or range
    with pytest.raises(ValueError, match=f"'{size + 1}' is not a ball"):
        game.validate_result({"balls": [size + 1]})


def test_bingo_number_bets():
    game = Bingo37()
    draw = {"balls": [37]}
    for market, selection, won in (
        ("number", [37], True),
        ("number", [36], False),
        ("one_of_2", [1, 37], True),
        ("one_of_3", [1, 2, 3], False),
        ("one_of_4", [37, 1, 2, 3], True),
        ("one_of_6", [1, 2, 3, 4, 5, 6], False),
    ):
        assert (
            game.settle({"market": market, "selection": selection, "stake": 5, "odds": 7}, draw)["won"] is won
        )
    with pytest.raises(ValueError, match="selects 6 value"):
        game.settle({"market": "one_of_6", "selection": [1, 2, 3, 4, 5], "stake": 5, "odds": 7}, draw)
    assert (
        GAMES["bingo_38"].settle(
            {"market": "number", "selection": [38], "stake": 5, "odds": 36}, {"balls": [38]}
        )["return"]
        == 180
    )
