"""Dragon Tiger, Kricket-War, Football Studio, War of Bets, Rock Paper Scissors: every rank pair, the seeds'
examples, and the bet spots."""

from __future__ import annotations

from itertools import product

import pytest

from recognition.cards.cards import RANKS
from recognition.cards.duel import GAMES

DT, KW, FS, WAR, RPS = (
    GAMES[g] for g in ("dragon_tiger", "kricket_war", "football_studio", "war_of_bets", "rock_paper_scissors")
)
ACE_LOW_ORDER = "A23456789TJQK"  # seed 000 L1807
ACE_HIGH_ORDER = "23456789TJQKA"  # seed 000 L1780, L2619


def wins(outcome: dict) -> dict:
    return {w["bet"]: w.get("payout") for w in outcome["winning_bets"]}


def pushes(outcome: dict) -> dict:
    return {p["bet"]: p["returned"] for p in outcome["pushed_bets"]}


@pytest.mark.parametrize("game", [DT, KW])
def test_dragon_tiger_every_rank_pair(game):
    for a, b in product(RANKS, RANKS):
        r = game.evaluate({"cards": [a + "S", b + "H"]})
        ia, ib = ACE_LOW_ORDER.index(a), ACE_LOW_ORDER.index(b)
        if ia == ib:
            assert r["result"]["winner"] == "tie" and r["result"]["suited_tie"] is False
            assert wins(r["outcome"]) == {"tie": 11}  # L1811
            assert pushes(r["outcome"]) == {"dragon": "1/2", "tiger": "1/2"}  # 50% of the main bet back
        else:
            winner = "dragon" if ia > ib else "tiger"
            assert r["result"] == {
                "winner": winner,
                "dragon_card": a + "S",
                "tiger_card": b + "H",
                "suited_tie": False,
            }
            assert wins(r["outcome"]) == {winner: 1} and pushes(r["outcome"]) == {}


def test_dragon_tiger_suited_draw_the_seeds_example():
    # L1805: "if in the both cells the 8 hearts"; L1813: Suited Draw 50:1, Draw 11:1, half back on Dragon/Tiger
    r = DT.evaluate({"cards": ["8H", "8H"]})
    assert r["result"]["winner"] == "tie" and r["result"]["suited_tie"] is True
    assert wins(r["outcome"]) == {"tie": 11, "suited_tie": 50}
    assert pushes(r["outcome"]) == {"dragon": "1/2", "tiger": "1/2"}
    assert DT.evaluate({"cards": ["AS", "2S"]})["result"]["winner"] == "tiger"  # the ace is the lowest card
    with pytest.raises(ValueError, match=r"too few cards \(1\): the next card is the tiger's card \(tiger\)"):
        DT.evaluate({"cards": ["AS"]})
    assert DT.shoe_spec().limit("8H") == 8  # an 8-deck shoe: identical cards are possible (L1803)


def test_football_studio_every_rank_pair():
    for a, b in product(RANKS, RANKS):
        r = FS.evaluate({"cards": [a + "D", b + "C"]})
        ia, ib = ACE_HIGH_ORDER.index(a), ACE_HIGH_ORDER.index(b)
        if ia == ib:
            assert r["result"]["winner"] == "draw"
            assert wins(r["outcome"]) == {"draw": 11} and pushes(r["outcome"]) == {
                "home": "1/2",
                "away": "1/2",
            }
        else:
            winner = "home" if ia > ib else "away"
            assert r["result"] == {"winner": winner, "home_card": a + "D", "away_card": b + "C"}
            assert wins(r["outcome"]) == {winner: 1}
    assert FS.evaluate({"cards": ["AS", "KS"]})["result"]["winner"] == "home"  # the ace is the highest card


def test_war_of_bets_bet_spots():
    r = WAR.evaluate({"cards": ["8H", "QC"]})  # the first card to the Player (L2621)
    assert r["result"] == {"winner": "dealer", "player_card": "8H", "dealer_card": "QC"}
    assert wins(r["outcome"]) == {
        b: None
        for b in (
            "dealer_wins",
            "dealer_black",
            "dealer_clubs",
            "dealer_score_over_8",
            "dealer_picture",
            "player_red",
            "player_hearts",
            "player_score_8",
            "player_ace_or_number",
        )
    }
    r = WAR.evaluate({"cards": ["AS", "AD"]})
    assert r["result"]["winner"] == "war"
    assert set(wins(r["outcome"])) == {
        "war",
        "dealer_red",
        "dealer_diamonds",
        "dealer_score_over_8",
        "dealer_ace_or_number",
        "player_black",
        "player_spades",
        "player_score_over_8",
        "player_ace_or_number",
    }
    assert "player_wins" in wins(WAR.evaluate({"cards": ["2C", "AD"][::-1]})["outcome"])
    assert "dealer_score_under_8" in wins(WAR.evaluate({"cards": ["2C", "7D"]})["outcome"])
    assert WAR.shoe_spec().limit("AS") == 6  # six decks (L2619)


def test_rock_paper_scissors_every_pair():
    beats = {"ROCK": "SCISSORS", "PAPER": "ROCK", "SCISSORS": "PAPER"}  # L2879-2901
    for silver, gold in product(beats, beats):
        r = RPS.evaluate({"cards": [silver, gold]})
        assert r["result"] == {"silver_card": silver, "gold_card": gold}
        for zone, dealer in (("silver", silver), ("gold", gold)):
            for mine, beaten in beats.items():
                bet = f"{zone}_{mine.lower()}"
                if mine == dealer:
                    assert pushes(r["outcome"])[bet] == 1  # L2903: a draw returns the bet
                elif beaten == dealer:
                    assert bet in wins(r["outcome"])
                else:
                    assert bet not in wins(r["outcome"]) and bet not in pushes(r["outcome"])
    with pytest.raises(ValueError, match="not a card of rock_paper_scissors"):
        RPS.evaluate({"cards": ["ROCK", "AS"]})
    # the seed gives no deck composition: no copy check unless configured
    assert RPS.evaluate({"cards": ["ROCK", "ROCK"]})
    from recognition.cards.duel import RockPaperScissors

    with pytest.raises(ValueError, match="drawn 2 times"):
        RockPaperScissors(symbol_copies=1).evaluate({"cards": ["ROCK", "ROCK"]})
