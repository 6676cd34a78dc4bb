"""Dice Duel: the seed's 28 bet types over all 36 (red, blue) throws, and the return of every bet
computed exactly and compared with the published BetGames figures and pricing rule."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from fixture_files import seed_lines

from recognition.dice_games import DiceDuel
from recognition.dice_games._common import as_fraction

GAME = DiceDuel()
THROWS = list(product(range(1, 7), repeat=2))


def wins(red: int, blue: int) -> dict[str, object]:
    return {b["bet"]: b["payout"] for b in GAME.outcome({"red": red, "blue": blue})["winning_bets"]}


# --- the seed's list -------------------------------------------------------------------------


def test_the_layout_covers_the_seed_s_28_bet_types_at_their_lines():
    lines = seed_lines()
    items = {}
    for spot in GAME.spots:
        line = int(spot.source.removeprefix("seed 000 L"))
        text = lines[line]
        number = int(text.split(".")[0])
        items.setdefault(number, set()).add(spot.type)
        assert 2689 <= line <= 2743 and line == 2687 + 2 * number, (spot.id, text)
    assert sorted(items) == list(range(1, 29))
    assert all(len(types) == 1 for types in items.values())
    assert len(GAME.spots) == 3 + 6 + 6 + 36 + 10 + 12 == 73


def test_seed_wording_matches_each_type():
    lines = seed_lines()
    words = {
        "red_wins": "Red dice win",
        "draw": "Draw",
        "blue_wins": "Blue dice win",
        "red_number": "on the red dice",
        "blue_number": "on the blue dice",
        "combination": "combination",
        "red_odd": "red dice will be odd",
        "red_even": "red dice will be even",
        "blue_odd": "blue dice will be odd",
        "blue_even": "blue dice will be even",
        "sum_odd": "two dice will be odd",
        "sum_even": "two dice will be even",
        "red_under": "red dice will be under 3.5",
        "red_over": "red dice will be over 3.5",
        "blue_under": "blue dice will be under 3.5",
        "blue_over": "blue dice will be over 3.5",
    }
    for spot in GAME.spots:
        text = lines[int(spot.source.removeprefix("seed 000 L"))]
        if spot.type in ("sum_under", "sum_over"):
            assert f"will be {spot.type.removeprefix('sum_')} {spot.id.split(':')[1]}" in text, (
                spot.id,
                text,
            )
        else:
            assert words[spot.type] in text, (spot.id, text)


# --- hand-checked throws ------------------------------------------------------------------------


def test_red_five_blue_two():
    assert wins(5, 2) == {
        "red_wins": "5/4",
        "red:5": "47/10",
        "blue:2": "47/10",
        "combination:5-2": "166/5",
        "red_odd": "9/10",
        "blue_even": "9/10",
        "sum_odd": "9/10",
        "red_over:3.5": "9/10",
        "blue_under:3.5": "9/10",
        "sum_over:4.5": "7/50",
        "sum_over:5.5": "3/10",
        "sum_over:6.5": "31/50",
        "sum_under:7.5": "31/50",
        "sum_under:8.5": "3/10",
        "sum_under:9.5": "7/50",
    }
    out = GAME.outcome({"red": 5, "blue": 2})
    assert out["winner"] == "red" and out["total"] == 7


def test_a_draw_loses_both_colour_bets():
    w = wins(6, 6)
    assert "draw" in w and "red_wins" not in w and "blue_wins" not in w
    assert GAME.outcome({"red": 6, "blue": 6})["winner"] == "draw"
    assert {"sum_over:9.5", "sum_even", "combination:6-6"} <= set(w)


def test_the_combination_is_ordered_red_then_blue():
    assert "combination:1-6" in wins(1, 6) and "combination:6-1" not in wins(1, 6)
    assert "blue_wins" in wins(1, 6)


# --- an independent reference over all 36 throws --------------------------------------------


def reference(r: int, b: int) -> set[str]:
    s = r + b
    out = {
        "red_wins" if r > b else "blue_wins" if b > r else "draw",
        f"red:{r}",
        f"blue:{b}",
        f"combination:{r}-{b}",
        "red_odd" if r % 2 else "red_even",
        "blue_odd" if b % 2 else "blue_even",
        "sum_odd" if s % 2 else "sum_even",
        "red_under:3.5" if r < 3.5 else "red_over:3.5",
        "blue_under:3.5" if b < 3.5 else "blue_over:3.5",
    }
    for line in (4.5, 5.5, 6.5, 7.5, 8.5, 9.5):
        out.add(f"sum_under:{line}" if s < line else f"sum_over:{line}")
    return out


def test_every_throw_matches_the_reference():
    for r, b in THROWS:
        assert set(wins(r, b)) == reference(r, b), (r, b)


# --- returns --------------------------------------------------------------------------------------


def exact_return(spot_id: str) -> Fraction:
    total = Fraction(0)
    for r, b in THROWS:
        w = wins(r, b)
        if spot_id in w:
            total += 1 + as_fraction(w[spot_id])
    return total / 36


def test_published_betgames_prices_and_returns():
    # red/blue win at 2.25 (93.75%), draw at 5.7 (95%), every 50% bet at 1.9 (95%)
    assert exact_return("red_wins") == exact_return("blue_wins") == Fraction(15, 16)
    assert exact_return("draw") == Fraction(95, 100)
    for spot in (
        "red_odd",
        "red_even",
        "blue_odd",
        "blue_even",
        "sum_odd",
        "sum_even",
        "red_under:3.5",
        "red_over:3.5",
        "blue_under:3.5",
        "blue_over:3.5",
    ):
        assert exact_return(spot) == Fraction(95, 100), spot
    assert wins(3, 4)["blue_wins"] == "5/4"  # red 3, blue 4


def rule_price(ways: int) -> Fraction:
    """The documented rule: 95% of the fair decimal odds, down to 0.05, or to 0.01 below 93.75%."""
    fair95 = Fraction(95, 100) * 36 / ways
    for step in (Fraction(1, 20), Fraction(1, 100)):
        decimal = (fair95 // step) * step
        if decimal * ways / 36 >= Fraction(15, 16):
            return decimal
    raise AssertionError(ways)


@pytest.mark.parametrize("spot", [s.id for s in GAME.spots])
def test_every_price_follows_the_rule_and_returns_93_75_to_95_percent(spot):
    ways = sum(spot in wins(r, b) for r, b in THROWS)
    decimal = 1 + as_fraction(GAME.spot(spot).payout)
    assert decimal == rule_price(ways), (spot, ways, decimal)
    assert Fraction(15, 16) <= exact_return(spot) <= Fraction(95, 100)
    assert GAME.spot(spot).payout == next(
        b["payout"]
        for r, bl in THROWS
        for b in GAME.outcome({"red": r, "blue": bl})["winning_bets"]
        if b["bet"] == spot
    )
