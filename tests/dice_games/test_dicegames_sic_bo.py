"""Sic Bo (and Super / Mega Sic Bo) against hand-checked throws, an independent reference over all
216 throws, and the house edge of every bet computed exactly and compared with the published figures."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from recognition.dice_games import GAMES, MegaSicBo, SicBo, SuperSicBo
from recognition.dice_games._common import as_fraction

GAME = SicBo()
THROWS = [list(t) for t in product(range(1, 7), repeat=3)]


def wins(dice) -> dict[str, object]:
    return {b["bet"]: b["payout"] for b in GAME.outcome({"dice": dice})["winning_bets"]}


# --- hand-checked throws --------------------------------------------------------------------


def test_a_plain_small_throw():
    assert wins([1, 3, 5]) == {
        "small": 1,
        "odd": 1,
        "total:9": 6,
        "single:1": 1,
        "single:3": 1,
        "single:5": 1,
        "combination:1-3": 5,
        "combination:1-5": 5,
        "combination:3-5": 5,
    }


def test_a_double_pays_the_single_number_twice_and_the_double():
    assert wins([5, 2, 5]) == {
        "big": 1,
        "even": 1,
        "total:12": 6,
        "single:2": 1,
        "single:5": 2,
        "double:5": 10,
        "combination:2-5": 5,
    }


def test_a_triple_loses_small_big_odd_even_and_wins_triples():
    assert wins([4, 4, 4]) == {
        "total:12": 6,
        "single:4": 3,
        "double:4": 10,
        "triple:4": 180,
        "any_triple": 30,
    }
    assert wins([1, 1, 1]) == {
        "single:1": 3,
        "double:1": 10,
        "triple:1": 180,
        "any_triple": 30,
    }  # no total:3 spot
    assert wins([6, 6, 6]) == {"single:6": 3, "double:6": 10, "triple:6": 180, "any_triple": 30}


def test_the_edges_of_small_and_big():
    assert "small" in wins([2, 4, 4]) and "big" not in wins([2, 4, 4])  # 10
    assert "big" in wins([3, 4, 4]) and "small" not in wins([3, 4, 4])  # 11
    assert "small" in wins([1, 1, 2]) and wins([1, 1, 2])["total:4"] == 60  # 4
    assert "big" in wins([5, 6, 6]) and wins([5, 6, 6])["total:17"] == 60  # 17


def test_outcome_fields():
    out = GAME.outcome({"dice": [6, "1", 3]})
    assert out["dice"] == [1, 3, 6] and out["total"] == 10 and out["triple"] is False


# --- an independent reference over all 216 throws ------------------------------------------

TOTAL_PAYS = {
    4: 60,
    17: 60,
    5: 30,
    16: 30,
    6: 17,
    15: 17,
    7: 12,
    14: 12,
    8: 8,
    13: 8,
    9: 6,
    12: 6,
    10: 6,
    11: 6,
}


def reference(dice: list[int]) -> dict[str, int]:
    a, b, c = dice
    s = a + b + c
    trip = a == b == c
    out: dict[str, int] = {}
    if not trip and 4 <= s <= 10:
        out["small"] = 1
    if not trip and 11 <= s <= 17:
        out["big"] = 1
    if not trip and s % 2 == 1:
        out["odd"] = 1
    if not trip and s % 2 == 0:
        out["even"] = 1
    if s in TOTAL_PAYS:
        out[f"total:{s}"] = TOTAL_PAYS[s]
    for n in range(1, 7):
        k = [a, b, c].count(n)
        if k:
            out[f"single:{n}"] = k  # 1, 2 or 3 to 1
        if k >= 2:
            out[f"double:{n}"] = 10
    if trip:
        out[f"triple:{a}"] = 180
        out["any_triple"] = 30
    for x in range(1, 7):
        for y in range(x + 1, 7):
            if x in dice and y in dice:
                out[f"combination:{x}-{y}"] = 5
    return out


def test_every_throw_matches_the_reference():
    for dice in THROWS:
        assert wins(dice) == reference(dice), dice


def test_the_order_of_the_dice_never_matters():
    for dice in THROWS:
        assert GAME.outcome({"dice": dice}) == GAME.outcome({"dice": sorted(dice)})


def test_the_layout_has_the_standard_spots():
    ids = [s.id for s in GAME.spots]
    assert len(ids) == 4 + 14 + 6 + 6 + 6 + 1 + 15 == 52
    assert {"small", "big", "odd", "even", "any_triple"} <= set(ids)
    assert next(i for i in ids if i.startswith("combination:")) == "combination:1-2"


# --- house edges, exactly, against published figures ------------------------------------------


def house_edge(spot_id: str) -> Fraction:
    ev = Fraction(0)
    for dice in THROWS:
        w = wins(dice)
        ev += as_fraction(w[spot_id]) if spot_id in w else -1
    return -ev / 216


# Wizard of Odds, "Sic Bo" (Atlantic City pays), house edge in percent as published
PUBLISHED = {
    "small": "2.78",
    "big": "2.78",
    "odd": "2.78",
    "even": "2.78",
    "total:4": "15.28",
    "total:17": "15.28",
    "total:5": "13.89",
    "total:16": "13.89",
    "total:6": "16.67",
    "total:15": "16.67",
    "total:7": "9.72",
    "total:14": "9.72",
    "total:8": "12.50",
    "total:13": "12.50",
    "total:9": "18.98",
    "total:12": "18.98",
    "total:10": "12.50",
    "total:11": "12.50",
    **{f"single:{n}": "7.87" for n in range(1, 7)},
    **{f"double:{n}": "18.52" for n in range(1, 7)},
    **{f"triple:{n}": "16.20" for n in range(1, 7)},
    "any_triple": "13.89",
    **{f"combination:{x}-{y}": "16.67" for x in range(1, 7) for y in range(x + 1, 7)},
}


def test_every_bet_has_a_published_figure():
    assert set(PUBLISHED) == {s.id for s in GAME.spots}


@pytest.mark.parametrize("spot_id", sorted(PUBLISHED))
def test_house_edge_matches_the_published_figure(spot_id):
    edge = house_edge(spot_id)
    assert f"{float(edge * 100):.2f}" == PUBLISHED[spot_id]


def test_exact_edges_of_the_main_bets():
    assert house_edge("small") == Fraction(6, 216) == house_edge("odd")
    assert house_edge("single:3") == Fraction(17, 216)
    assert house_edge("triple:2") == Fraction(35, 216)


# --- the three games -----------------------------------------------------------------------


def test_super_and_mega_sic_bo_play_the_standard_game_under_their_own_ids():
    for cls, game_id in ((SicBo, "sic_bo"), (SuperSicBo, "super_sic_bo"), (MegaSicBo, "mega_sic_bo")):
        game = GAMES[game_id]
        assert isinstance(game, cls) and game.game_id == game_id
        for dice in THROWS[::7]:
            assert game.outcome({"dice": dice}) == GAME.outcome({"dice": dice})
