"""Bac Bo over all 1296 throws of four dice, and its bets' house edges computed exactly and compared
with the published figures (Player/Banker 1.13%, RTP 98.87%; Tie 4.48%, RTP 95.52%)."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from recognition.dice_games import BacBo
from recognition.dice_games._common import as_fraction

GAME = BacBo()
THROWS = list(product(range(1, 7), repeat=4))


def out(p, b):
    return GAME.outcome({"player": list(p), "banker": list(b)})


def test_hand_checked_throws():
    o = out((6, 5), (3, 3))
    assert o["player_total"] == 11 and o["banker_total"] == 6 and o["winner"] == "player"
    assert (
        o["winning_bets"] == [{"bet": "player", "type": "player", "payout": 1}] and o["returned_bets"] == []
    )
    o = out((1, 1), (2, 1))
    assert o["winner"] == "banker" and o["winning_bets"] == [{"bet": "banker", "type": "banker", "payout": 1}]
    o = out((1, 1), (1, 1))
    assert o["winner"] == "tie" and o["winning_bets"] == [{"bet": "tie", "type": "tie", "payout": 88}]
    assert o["returned_bets"] == [
        {"bet": "player", "type": "player", "returned": "9/10"},
        {"bet": "banker", "type": "banker", "returned": "9/10"},
    ]
    assert out((5, 6), (6, 5))["winning_bets"][0]["payout"] == 25
    assert out((1, 3), (2, 2))["winning_bets"][0]["payout"] == 10
    assert out((4, 5), (6, 3))["winning_bets"][0]["payout"] == 6
    for p, b in (((1, 5), (3, 3)), ((3, 4), (1, 6)), ((4, 4), (2, 6))):
        assert out(p, b)["winning_bets"][0]["payout"] == 4


def test_every_throw_against_a_reference():
    tie_pays = {2: 88, 12: 88, 3: 25, 11: 25, 4: 10, 10: 10, 5: 6, 9: 6, 6: 4, 7: 4, 8: 4}
    for p1, p2, b1, b2 in THROWS:
        o = out((p1, p2), (b1, b2))
        assert o["player"] == sorted([p1, p2]) and o["banker"] == sorted([b1, b2])
        if p1 + p2 > b1 + b2:
            assert [(w["bet"], w["payout"]) for w in o["winning_bets"]] == [("player", 1)]
        elif p1 + p2 < b1 + b2:
            assert [(w["bet"], w["payout"]) for w in o["winning_bets"]] == [("banker", 1)]
        else:
            assert [(w["bet"], w["payout"]) for w in o["winning_bets"]] == [("tie", tie_pays[p1 + p2])]
            assert {r["bet"]: r["returned"] for r in o["returned_bets"]} == {
                "player": "9/10",
                "banker": "9/10",
            }


def exact_return(spot: str) -> Fraction:
    total = Fraction(0)
    for p1, p2, b1, b2 in THROWS:
        o = out((p1, p2), (b1, b2))
        for w in o["winning_bets"]:
            if w["bet"] == spot:
                total += 1 + as_fraction(w["payout"])
        for r in o["returned_bets"]:
            if r["bet"] == spot:
                total += as_fraction(r["returned"])
    return total / len(THROWS)


def test_returns_match_the_published_figures():
    for spot in ("player", "banker"):
        rtp = exact_return(spot)
        assert rtp == 1 - Fraction(146, 1296) / 10
        assert f"{float(rtp * 100):.2f}" == "98.87" and f"{float((1 - rtp) * 100):.2f}" == "1.13"
    rtp = exact_return("tie")
    assert rtp == Fraction(1238, 1296)
    assert f"{float(rtp * 100):.2f}" == "95.52" and f"{float((1 - rtp) * 100):.2f}" == "4.48"
