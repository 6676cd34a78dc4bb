"""Outcomes of the roulette variants against hand-checked spins, exhaustive where the space is small."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from recognition.games import GAMES
from recognition.roulette import AMERICAN, EUROPEAN, AmericanRoulette, EuropeanRoulette, LaPartageRoulette
from recognition.roulette_variants.double_ball import DoubleBallRoulette
from recognition.roulette_variants.lightning import (
    DEFAULT_COUNT_WEIGHTS,
    DEFAULT_PAYOUT_WEIGHTS,
    LightningRoulette,
)
from streaming.canonical import canonical_json, commitment_hash
from studio.config import build_game

RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}


def no_floats(value) -> bool:
    if isinstance(value, float):
        return False
    if isinstance(value, dict):
        return all(no_floats(v) for v in value.values())
    if isinstance(value, list):
        return all(no_floats(v) for v in value)
    return True


def bets(out) -> list[str]:
    return [w["bet"] for w in out["winning_bets"]]


def test_every_variant_is_registered_with_its_devices():
    for game_id in (
        "european_roulette",
        "american_roulette",
        "la_partage_roulette",
        "lightning_roulette",
        "double_ball_roulette",
    ):
        assert GAMES[game_id].game_id == game_id
        assert GAMES[game_id].device_kinds == ("roulette-wheel", "roulette-camera")


# --- American Roulette (seed 000 L179-183) ----------------------------------------------------------------


def test_american_hand_checked_spins():
    rules = AmericanRoulette()
    assert bets(rules.outcome({"number": "00"})) == [
        "straight:00",
        "split:0-00",
        "split:00-2",
        "split:00-3",
        "street:0-00-2",
        "street:00-2-3",
        "five_bet:0-00-1-2-3",
    ]
    assert bets(rules.outcome({"number": "2"})) == [
        "straight:2",
        "split:0-2",
        "split:00-2",
        "split:1-2",
        "split:2-3",
        "split:2-5",
        "street:0-00-2",
        "street:0-1-2",
        "street:00-2-3",
        "street:1-2-3",
        "corner:1-2-4-5",
        "corner:2-3-5-6",
        "five_bet:0-00-1-2-3",
        "six_line:1-2-3-4-5-6",
        "dozen:1",
        "column:2",
        "low",
        "black",
        "even",
    ]
    seven = rules.outcome({"number": 7})
    assert bets(seven) == [
        "straight:7",
        "split:4-7",
        "split:7-8",
        "split:7-10",
        "street:7-8-9",
        "corner:4-5-7-8",
        "corner:7-8-10-11",
        "six_line:4-5-6-7-8-9",
        "six_line:7-8-9-10-11-12",
        "dozen:1",
        "column:1",
        "low",
        "red",
        "odd",
    ]
    assert rules.spot("five_bet:0-00-1-2-3").payout == 6  # seed L183: 6:1


@pytest.mark.parametrize("pocket", AMERICAN.pockets)
def test_american_every_pocket_wins_exactly_the_spots_that_cover_it(pocket):
    rules = AmericanRoulette()
    out = rules.outcome({"number": pocket})
    assert set(bets(out)) == {s.id for s in rules.spots if pocket in s.numbers}
    evens = [w for w in out["winning_bets"] if w["type"] == "even_money"]
    assert len(evens) == (0 if pocket in ("0", "00") else 3)  # 0 and 00 both lose every even chance
    assert out["color"] == ("green" if pocket in ("0", "00") else "red" if int(pocket) in RED else "black")


def test_american_zero_and_double_zero_are_different_results():
    rules = AmericanRoulette()
    assert rules.validate_result({"number": "00"})["number"] == "00"
    assert rules.validate_result({"number": 0})["number"] == "0"
    assert bets(rules.outcome({"number": "0"})) != bets(rules.outcome({"number": "00"}))
    with pytest.raises(ValueError, match="not a pocket of the European"):
        EuropeanRoulette().validate_result({"number": "00"})


# --- La Partage (seed 000 L185-187) -------------------------------------------------------------------------


def test_la_partage_returns_an_exact_half_on_zero_and_nothing_else():
    rules = LaPartageRoulette()
    zero = rules.outcome({"number": "0"})
    assert [h["returned"] for h in zero["half_back_bets"]] == ["1/2"] * 6
    assert no_floats(zero)
    canonical_json(zero)  # publishable
    for n in range(1, 37):
        assert rules.outcome({"number": n})["half_back_bets"] == []


# --- Lightning Roulette (seed 000 L113-115, seed 004 L805-894) ----------------------------------------------

LIGHTNING = LightningRoulette()


def test_lightning_a_lucky_straight_up_pays_its_drawn_payout():
    extras = {"lucky_numbers": [{"number": "7", "payout": 199}, {"number": "17", "payout": 49}]}
    out = LIGHTNING.outcome({"number": "17"}, extras)
    straight = out["winning_bets"][0]
    assert straight == {
        "bet": "straight:17",
        "type": "straight",
        "numbers": ["17"],
        "payout": 49,
        "lucky": True,
    }
    assert out["lucky"] is True
    assert out["lucky_numbers"] == extras["lucky_numbers"]
    # every other winning bet pays as in European roulette
    assert out["winning_bets"][1:] == EuropeanRoulette().outcome({"number": "17"})["winning_bets"][1:]


def test_lightning_a_straight_up_off_the_lucky_numbers_pays_29():
    extras = {"lucky_numbers": [{"number": "0", "payout": 499}]}
    out = LIGHTNING.outcome({"number": "36"}, extras)
    assert out["winning_bets"][0] == {
        "bet": "straight:36",
        "type": "straight",
        "numbers": ["36"],
        "payout": 29,
    }
    assert out["lucky"] is False
    zero = LIGHTNING.outcome({"number": 0}, extras)
    assert zero["winning_bets"][0]["payout"] == 499
    assert bets(zero)[1:] == bets(EuropeanRoulette().outcome({"number": 0}))[1:]
    literal = build_game("lightning_roulette", {"straight_up_payout": 35})  # the operator's other reading
    assert literal.outcome({"number": "36"}, extras)["winning_bets"][0]["payout"] == 35


@pytest.mark.parametrize(
    "extras, message",
    [
        (None, "needs the round's lucky numbers"),
        ({}, "needs the round's lucky numbers"),
        ({"lucky_numbers": []}, "one or more"),
        ({"lucky_numbers": [{"number": "7", "payout": 28}]}, "not a whole number 29-499"),
        ({"lucky_numbers": [{"number": "7", "payout": 500}]}, "not a whole number 29-499"),
        ({"lucky_numbers": [{"number": "7", "payout": 99.0}]}, "not a whole number"),
        ({"lucky_numbers": [{"number": "7", "payout": True}]}, "not a whole number"),
        ({"lucky_numbers": [{"number": "00", "payout": 99}]}, "not a pocket"),
        ({"lucky_numbers": [{"number": "7", "payout": 99}, {"number": 7, "payout": 49}]}, "twice"),
        ({"lucky_numbers": [{"number": "7"}]}, "is {'number'"),
    ],
)
def test_lightning_refuses_extras_it_cannot_pay_from(extras, message):
    with pytest.raises(ValueError, match=message):
        LIGHTNING.outcome({"number": "7"}, extras)


def test_lightning_draws_use_only_the_generator_given(monkeypatch):
    for name in ("random", "choice", "choices", "sample", "randrange", "shuffle", "uniform"):
        monkeypatch.setattr(random, name, lambda *a, **k: pytest.fail("the global generator was used"))
    a = LIGHTNING.draw_extras(random.Random(7))
    assert a == LIGHTNING.draw_extras(random.Random(7))
    assert a != LIGHTNING.draw_extras(random.Random(8))


def test_lightning_draws_follow_the_seed_and_the_settings():
    rng = random.Random(2026)
    counts: Counter[int] = Counter()
    payouts: Counter[int] = Counter()
    numbers: Counter[str] = Counter()
    order = {p: i for i, p in enumerate(EUROPEAN.pockets)}
    n = 20000
    for _ in range(n):
        extras = LIGHTNING.draw_extras(rng, camera=True, min_ball_revolutions=4)  # judge settings are ignored
        lucky = extras["lucky_numbers"]
        assert set(extras) == {"lucky_numbers"} and no_floats(extras)
        labels = [e["number"] for e in lucky]
        assert labels == sorted(labels, key=order.__getitem__) and len(set(labels)) == len(labels)
        counts[len(lucky)] += 1
        payouts.update(e["payout"] for e in lucky)
        numbers.update(labels)
    assert set(counts) == {1, 2, 3, 4, 5}  # seed 004 L813: one to five
    for k in counts:
        assert abs(counts[k] / n - 0.2) < 0.02
    assert set(payouts) <= set(DEFAULT_PAYOUT_WEIGHTS) and min(payouts) >= 29 and max(payouts) <= 499
    total = sum(payouts.values())
    assert abs(payouts[49] / total - 0.46) < 0.02 and abs(payouts[99] / total - 0.29) < 0.02
    assert set(numbers) == set(EUROPEAN.pockets)  # any pocket, zero included
    only_three = LIGHTNING.draw_extras(rng, lucky_count_weights={"3": 1}, lucky_payout_weights={"299": 1})
    assert [e["payout"] for e in only_three["lucky_numbers"]] == [299, 299, 299]


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"lucky_count_weights": {"0": 1}}, "outside 1..37"),
        ({"lucky_count_weights": {"x": 1}}, "not a whole number"),
        ({"lucky_count_weights": {"1": 0}}, "at least one weight must be positive"),
        ({"lucky_payout_weights": {"28": 1}}, "outside 29..499"),
        ({"lucky_payout_weights": {"99": -1}}, "whole number >= 0"),
        ({"lucky_payout_weights": [49, 99]}, "table of value -> weight"),
    ],
)
def test_lightning_bad_draw_settings_stop_the_table_at_start(settings, message):
    with pytest.raises(ValueError, match=message):
        LIGHTNING.new_judge(**settings)


def test_lightning_return_to_player_of_a_straight_up():
    """Exact: over the default draw, by playing outcome() for every lucky payout and for a miss."""
    counts = {k: Fraction(w, sum(DEFAULT_COUNT_WEIGHTS.values())) for k, w in DEFAULT_COUNT_WEIGHTS.items()}
    pay = {m: Fraction(w, sum(DEFAULT_PAYOUT_WEIGHTS.values())) for m, w in DEFAULT_PAYOUT_WEIGHTS.items()}

    def gross(hit_lucky: bool, payout: int = 0) -> int:
        extras = {"lucky_numbers": [{"number": "17" if hit_lucky else "18", "payout": payout or 49}]}
        return LIGHTNING.outcome({"number": "17"}, extras)["winning_bets"][0]["payout"] + 1

    lucky_gross = sum(p * gross(True, m) for m, p in pay.items())
    rtp = sum(
        pk * (Fraction(k, 37) * lucky_gross + (1 - Fraction(k, 37)) * gross(False))
        for k, pk in counts.items()
    )
    rtp /= 37  # a unit on one number: it comes up once in 37
    assert rtp == Fraction(13323, 13690)  # 97.32 %, documented in docs/roulette.md
    assert rtp < 1
    literal = build_game("lightning_roulette", {"straight_up_payout": 35})
    literal_rtp = (
        sum(pk * (Fraction(k, 37) * lucky_gross + (1 - Fraction(k, 37)) * 36) for k, pk in counts.items())
        / 37
    )
    assert literal_rtp > Fraction(
        112, 100
    )  # why 29:1 is the default (the lucky numbers' own 1/37 share alone)
    assert literal.straight_up_payout == 35


def test_lightning_extras_commit_and_evaluate():
    extras = LIGHTNING.draw_extras(random.Random(1))
    nonce = "ab" * 32
    h = commitment_hash("round-1", extras, nonce)
    assert h == commitment_hash("round-1", json.loads(json.dumps(extras)), nonce)  # survives the feed's JSON
    number = extras["lucky_numbers"][0]["number"]
    evaluated = LIGHTNING.evaluate({"number": number, "extras": extras})
    assert evaluated["result"] == {"number": number, "color": EUROPEAN.color(number)}
    assert evaluated["outcome"]["winning_bets"][0]["lucky"] is True
    with pytest.raises(ValueError, match="lucky numbers"):
        LIGHTNING.evaluate({"number": number})


# --- Double Ball Roulette (seed 000 L117-177) ----------------------------------------------------------------

DOUBLE = DoubleBallRoulette()
SEED_PAYOUT = {
    "straight": 17,
    "split": 8,
    "street": 5,
    "corner": Fraction(7, 2),
    "six_line": 2,
    "column": 8,
    "dozen": 8,
    "red": 3,
    "black": 3,
    "even": 3,
    "odd": 3,
    "low": 3,
    "high": 3,
    "any_double": 35,
    "double": 1300,
    "red_black": 1,
}


def wins(out) -> dict[str, int]:
    return {w["bet"]: w["wins"] for w in out["winning_bets"]}


def test_double_ball_hand_checked_spins():
    both_17 = wins(DOUBLE.outcome({"numbers": ["17", 17]}))
    assert both_17 == {
        "straight:17": 2,
        "split:14-17": 2,
        "split:16-17": 2,
        "split:17-18": 2,
        "split:17-20": 2,
        "street:16-17-18": 2,
        "corner:13-14-16-17": 2,
        "corner:14-15-17-18": 2,
        "corner:16-17-19-20": 2,
        "corner:17-18-20-21": 2,
        "six_line:13-14-15-16-17-18": 2,
        "six_line:16-17-18-19-20-21": 2,
        "column:2": 1,
        "dozen:2": 1,
        "black": 1,
        "odd": 1,
        "low": 1,
        "any_double": 1,
        "double:17": 1,
    }
    seventeen_twenty = wins(DOUBLE.outcome({"numbers": ["20", "17"]}))
    assert seventeen_twenty["straight:17"] == seventeen_twenty["straight:20"] == 1
    assert seventeen_twenty["split:17-20"] == 2 and seventeen_twenty["corner:16-17-19-20"] == 2
    outside = {
        b for b in seventeen_twenty if ":" not in b or b.split(":")[0] in ("column", "dozen", "double")
    }
    assert outside == {"column:2", "dozen:2", "black"}  # 17 odd/low, 20 even/high: those lose
    zero = DOUBLE.outcome({"numbers": ["0", "17"]})
    assert {w["type"] for w in zero["winning_bets"]} <= {"straight", "split", "street", "corner", "six_line"}
    assert wins(zero)["straight:0"] == 1 and wins(zero)["corner:0-1-2-3"] == 1
    mixed = wins(DOUBLE.outcome({"numbers": ["1", "2"]}))
    assert mixed["red_black"] == 1 and "red" not in mixed and "black" not in mixed
    assert mixed["street:1-2-3"] == 2 and mixed["corner:0-1-2-3"] == 2 and mixed["split:1-2"] == 2
    reds = wins(DOUBLE.outcome({"numbers": ["1", "3"]}))
    assert reds["red"] == 1 and "red_black" not in reds


def test_double_ball_payouts_are_the_seed_table_with_an_exact_seven_halves():
    for s in DOUBLE.spots:
        assert (Fraction(s.payout) if isinstance(s.payout, str) else s.payout) == SEED_PAYOUT[s.type], s
    corner = DOUBLE.spot("corner:1-2-4-5")
    assert corner.payout == "7/2"
    out = DOUBLE.outcome({"numbers": ["1", "5"]})
    assert no_floats(out)
    canonical_json(out)
    counts = Counter(s.type for s in DOUBLE.spots)
    assert counts == {
        "straight": 37,
        "split": 60,
        "street": 14,
        "corner": 23,
        "six_line": 11,
        "column": 3,
        "dozen": 3,
        "red": 1,
        "black": 1,
        "red_black": 1,
        "even": 1,
        "odd": 1,
        "low": 1,
        "high": 1,
        "any_double": 1,
        "double": 37,
    }


def test_double_ball_return_to_player_of_every_spot_over_every_pair_of_pockets():
    """Both balls independent and uniform: 1369 ordered pairs, every spot played through outcome()."""
    returned: Counter[str] = Counter()
    for a, b in product(EUROPEAN.pockets, repeat=2):
        for w in DOUBLE.outcome({"numbers": [a, b]})["winning_bets"]:
            returned[w["bet"]] += 1 + w["wins"] * Fraction(w["payout"])
    expected = {  # from the seed's table, by counting pairs: p = covered numbers
        "straight": Fraction(1331, 1369),
        "split": Fraction(1328, 1369),
        "street": Fraction(1323, 1369),
        "corner": Fraction(1316, 1369),
        "six_line": Fraction(1296, 1369),
        "column": Fraction(1296, 1369),
        "dozen": Fraction(1296, 1369),
        "red": Fraction(1296, 1369),
        "black": Fraction(1296, 1369),
        "even": Fraction(1296, 1369),
        "odd": Fraction(1296, 1369),
        "low": Fraction(1296, 1369),
        "high": Fraction(1296, 1369),
        "red_black": Fraction(1296, 1369),
        "any_double": Fraction(36, 37),
        "double": Fraction(1301, 1369),
    }
    for s in DOUBLE.spots:
        assert Fraction(returned[s.id], 1369) == expected[s.type], s.id
    assert all(r < 1 for r in expected.values())
    # the undefined "Red or black" at 2 to 1 would return 142 %: why it is read as 1 to 1
    assert Fraction(648, 1369) * 3 > Fraction(142, 100)


@pytest.mark.parametrize(
    "given, canonical",
    [
        (
            {"numbers": ["17", "5"]},
            {"numbers": ["5", "17"], "colors": ["red", "black"], "same_pocket": False},
        ),
        (
            {"numbers": [0, 0], "game_counter": 3},
            {"numbers": ["0", "0"], "colors": ["green", "green"], "same_pocket": True},
        ),
        (
            {"numbers": ("36", "1"), "same_pocket": False},
            {"numbers": ["1", "36"], "colors": ["red", "red"], "same_pocket": False},
        ),
    ],
)
def test_double_ball_canonical_result(given, canonical):
    assert DOUBLE.validate_result(given) == canonical


@pytest.mark.parametrize(
    "given, message",
    [
        ({"number": "17"}, "needs 'numbers'"),
        ({"numbers": ["17"]}, "exactly two pockets"),
        ({"numbers": ["1", "2", "3"]}, "exactly two pockets"),
        ({"numbers": "17,5"}, "exactly two pockets"),
        ({"numbers": ["17", "00"]}, "not a pocket"),
        ({"numbers": ["17", "07"]}, "write '7'"),
        ({"numbers": ["17", "5"], "same_pocket": True}, "same_pocket"),
        ({"numbers": ["17", "5"], "colors": ["black", "black"]}, "colors"),
        (["17", "5"], "is a dict"),
    ],
)
def test_double_ball_refuses_bad_results(given, message):
    with pytest.raises(ValueError, match=message):
        DOUBLE.validate_result(given)


def test_double_ball_evaluate():
    assert DOUBLE.evaluate({"numbers": ["9", "9"]})["outcome"]["same_pocket"] is True
