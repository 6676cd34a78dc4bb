"""Lightning Dice: the total bets over all 216 throws, the lightning draw (only through the rng it is
given), its validation, and each bet's return computed exactly and compared with the published 96.21%."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from recognition.dice_games import GAMES, LightningDice
from recognition.dice_games._common import as_fraction
from recognition.dice_games.lightning_dice import weighted_choice

GAME = LightningDice()
THROWS = [list(t) for t in product(range(1, 7), repeat=3)]
WAYS = Counter(sum(t) for t in THROWS)
# published ordinary pays, gross "x" (Evolution Lightning Dice): 150x ... 5x
BASE_X = {
    3: 150,
    4: 50,
    5: 25,
    6: 15,
    7: 10,
    8: 7,
    9: 6,
    10: 5,
    11: 5,
    12: 6,
    13: 7,
    14: 10,
    15: 15,
    16: 25,
    17: 50,
    18: 150,
}
# published highest lightning multiplier per total
MAX_X = {
    3: 1000,
    18: 1000,
    4: 500,
    17: 500,
    5: 250,
    16: 250,
    6: 100,
    15: 100,
    7: 100,
    14: 100,
    **{t: 50 for t in range(8, 14)},
}
NONE_STRUCK_ON = {"lightning": [{"total": 3, "multiplier": 250}]}


def strike(total: int, multiplier: int) -> dict:
    return {"lightning": [{"total": total, "multiplier": multiplier}]}


# --- outcomes -----------------------------------------------------------------------------


def test_hand_checked_throws():
    out = GAME.outcome({"dice": [6, 1, 4]}, strike(3, 500))
    assert out["total"] == 11 and out["dice"] == [1, 4, 6]
    assert out["winning_bets"] == [{"bet": "total:11", "type": "total", "payout": 4}]
    out = GAME.outcome({"dice": [6, 1, 4]}, strike(11, 30))
    assert out["winning_bets"] == [
        {"bet": "total:11", "type": "total", "payout": 29, "lightning_multiplier": 30}
    ]
    out = GAME.outcome(
        {"dice": [1, 1, 1]},
        {"lightning": [{"total": 18, "multiplier": 1000}, {"total": 3, "multiplier": 1000}]},
    )
    assert out["winning_bets"] == [
        {"bet": "total:3", "type": "total", "payout": 999, "lightning_multiplier": 1000}
    ]
    assert out["lightning"] == [{"total": 3, "multiplier": 1000}, {"total": 18, "multiplier": 1000}]


def test_every_throw_wins_exactly_its_total_at_the_ordinary_or_the_lightning_pay():
    for dice in THROWS:
        total = sum(dice)
        plain = GAME.outcome({"dice": dice}, NONE_STRUCK_ON if total != 3 else strike(4, 100))
        assert plain["winning_bets"] == [
            {"bet": f"total:{total}", "type": "total", "payout": BASE_X[total] - 1}
        ]
        for multiplier, _ in GAME.lightning_multipliers[total]:
            struck = GAME.outcome({"dice": dice}, strike(total, multiplier))
            assert struck["winning_bets"] == [
                {
                    "bet": f"total:{total}",
                    "type": "total",
                    "payout": multiplier - 1,
                    "lightning_multiplier": multiplier,
                }
            ]


def test_the_layout_is_the_sixteen_totals_at_the_published_ordinary_pays():
    assert [(s.id, s.payout) for s in GAME.spots] == [(f"total:{t}", BASE_X[t] - 1) for t in range(3, 19)]


# --- the draw --------------------------------------------------------------------------------


def test_the_tables_stay_within_the_published_ranges():
    assert {c for c, _ in GAME.strike_counts} == {1, 2, 3, 4}  # "one or more" (seed L3069)
    for total in range(3, 19):
        multipliers = [m for m, w in GAME.lightning_multipliers[total]]
        assert max(multipliers) == MAX_X[total]
        assert min(multipliers) > BASE_X[total], "lightning always pays more than the ordinary odds"
        assert all(w > 0 for _, w in GAME.lightning_multipliers[total])
        assert GAME.lightning_multipliers[total] == GAME.lightning_multipliers[21 - total]


def test_weighted_choice_is_exact():
    table = ((10, 3), (20, 1), (50, 2))

    class Enumerate:
        def __init__(self, pick):
            self.pick = pick

        def randrange(self, n):
            assert n == 6
            return self.pick

    assert Counter(weighted_choice(Enumerate(p), table) for p in range(6)) == {10: 3, 20: 1, 50: 2}


def test_draws_are_well_formed_and_reproducible_from_the_rng_alone(monkeypatch):
    for name in ("random", "randrange", "randint", "choice", "choices", "sample", "shuffle", "getrandbits"):
        monkeypatch.setattr(
            random, name, lambda *a, **k: pytest.fail("the draw used the global random generator")
        )
    draws = [GAME.draw_extras(random.Random(seed)) for seed in range(300)]
    assert draws == [GAME.draw_extras(random.Random(seed)) for seed in range(300)]
    for d in draws:
        assert GAME.validate_extras(d) == d
        totals = [s["total"] for s in d["lightning"]]
        assert totals == sorted(set(totals)) and 1 <= len(totals) <= 4
    assert GAME.draw_extras(random.SystemRandom(), camera="cam-1")["lightning"]  # the studio's generator


def test_draw_frequencies_follow_the_tables():
    rng = random.Random(20240601)
    n = 8000
    counts, totals, multipliers = Counter(), Counter(), Counter()
    for _ in range(n):
        strikes = GAME.draw_extras(rng)["lightning"]
        counts[len(strikes)] += 1
        for s in strikes:
            totals[s["total"]] += 1
            if s["total"] == 10:
                multipliers[s["multiplier"]] += 1
    weights = dict(GAME.strike_counts)
    for k, w in weights.items():
        assert abs(counts[k] / n - w / 8) < 0.02, (k, counts)
    expected_per_total = n * Fraction(sum(k * w for k, w in weights.items()), 8) / 16  # E[K] / 16 each
    for t in range(3, 19):
        assert abs(totals[t] - expected_per_total) < 0.12 * expected_per_total, (t, totals[t])
    table = dict(GAME.lightning_multipliers[10])
    seen = sum(multipliers.values())
    for m, w in table.items():
        assert abs(multipliers[m] / seen - w / sum(table.values())) < 0.06, (m, multipliers)


# --- validation of the committed draw ------------------------------------------------------


@pytest.mark.parametrize(
    "extras, says",
    [
        (None, "committed lightning"),
        ({}, "lightning"),
        ({"lightning": []}, "1 to 4"),
        ({"lightning": [{"total": t, "multiplier": 50} for t in (8, 9, 10, 11, 12)]}, "1 to 4"),
        ({"lightning": [{"total": 2, "multiplier": 50}]}, "3..18"),
        ({"lightning": [{"total": 19, "multiplier": 50}]}, "3..18"),
        ({"lightning": [{"total": "10", "multiplier": 50}]}, "3..18"),
        ({"lightning": [{"total": True, "multiplier": 50}]}, "3..18"),
        ({"lightning": [{"total": 10, "multiplier": 50}, {"total": 10, "multiplier": 20}]}, "twice"),
        ({"lightning": [{"total": 10, "multiplier": 1000}]}, "not in its table"),
        ({"lightning": [{"total": 10, "multiplier": 50.0}]}, "not in its table"),
        ({"lightning": [{"total": 10}]}, "'total': t"),
        ({"lightning": [{"total": 10, "multiplier": 50, "extra": 1}]}, "'total': t"),
        ({"lightning": [[10, 50]]}, "'total': t"),
    ],
)
def test_a_bad_draw_is_refused(extras, says):
    with pytest.raises(ValueError, match=says):
        GAME.outcome({"dice": [3, 3, 4]}, extras)


def test_the_draw_is_put_in_canonical_order_and_evaluate_needs_it():
    messy = {"lightning": [{"multiplier": 50, "total": 12}, {"total": 4, "multiplier": 200}]}
    assert GAME.validate_extras(messy) == {
        "lightning": [{"total": 4, "multiplier": 200}, {"total": 12, "multiplier": 50}]
    }
    with pytest.raises(ValueError, match="revealed draw"):
        GAME.evaluate({"dice": [1, 2, 3]})
    assert GAMES["lightning_dice"].evaluate({"dice": [4, 4, 4], "extras": messy})["outcome"][
        "winning_bets"
    ] == [{"bet": "total:12", "type": "total", "payout": 49, "lightning_multiplier": 50}]


# --- returns, exactly ---------------------------------------------------------------------------


def exact_return(total: int) -> Fraction:
    """Expected return of 1 on ``total``: over the 216 throws and the draw's distribution, paid by outcome()."""
    weights = dict(GAME.strike_counts)
    struck = (
        Fraction(sum(k * w for k, w in weights.items()), sum(weights.values())) / 16
    )  # P(total is struck)
    table = GAME.lightning_multipliers[total]
    w_sum = sum(w for _, w in table)
    expected = Fraction(0)
    for dice in THROWS:
        if sum(dice) != total:
            continue  # the bet loses: returns 0
        other = 3 if total != 3 else 4
        plain = GAME.outcome({"dice": dice}, strike(other, GAME.lightning_multipliers[other][0][0]))
        gross = 1 + as_fraction(plain["winning_bets"][0]["payout"])
        lit = sum(
            Fraction(w, w_sum)
            * (1 + as_fraction(GAME.outcome({"dice": dice}, strike(total, m))["winning_bets"][0]["payout"]))
            for m, w in table
        )
        expected += Fraction(1, 216) * ((1 - struck) * gross + struck * lit)
    return expected


@pytest.mark.parametrize("total", range(3, 19))
def test_every_total_returns_the_published_96_21_percent(total):
    rtp = exact_return(total)
    assert f"{float(rtp * 100):.2f}" == "96.21", float(rtp)


def test_without_lightning_the_ordinary_pays_would_return_far_less():
    for total in range(3, 19):
        assert Fraction(WAYS[total] * BASE_X[total], 216) < Fraction(70, 100)
