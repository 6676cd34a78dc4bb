"""Poker hand ranking (exact category counts) and the poker games: Side Bet City, Three Card Poker / Teen Patti,
Caribbean Stud, Casino Hold'em, Texas Hold'em, against hand-checked rounds and the seeds' examples."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement
from math import comb

import pytest

from recognition.cards.cards import RANKS, STANDARD_52
from recognition.cards.poker import best5, name3, name5, rank3, rank5
from recognition.cards.poker_games import GAMES, CasinoHoldem

SBC, TCP, TP, CS, CH, CHL, TH = (
    GAMES[g]
    for g in (
        "side_bet_city",
        "three_card_poker",
        "teen_patti",
        "caribbean_stud",
        "casino_holdem",
        "casino_holdem_land",
        "texas_holdem",
    )
)


def test_five_card_categories_over_all_hands_exactly():
    """All C(52,5) hands counted by rank multiset: suits are dealt out combinatorially."""
    counts: Counter[str] = Counter()
    suits_for = ["S", "H", "D", "C"]
    for ranks in combinations_with_replacement(RANKS, 5):
        mult = Counter(ranks)
        if max(mult.values()) > 4:
            continue
        if len(mult) == 5:  # five ranks: 4 ways to be suited, 4**5 - 4 not
            counts[name5(rank5([r + "S" for r in ranks]))] += 4
            counts[name5(rank5([r + s for r, s in zip(ranks, "SSSSH")]))] += 4**5 - 4
        else:
            hand, ways = [], 1
            for r, n in mult.items():
                hand += [r + suits_for[i] for i in range(n)]
                ways *= comb(4, n)
            counts[name5(rank5(hand))] += ways
    assert counts == {
        "royal_flush": 4,
        "straight_flush": 36,
        "four_of_a_kind": 624,
        "full_house": 3744,
        "flush": 5108,
        "straight": 10200,
        "three_of_a_kind": 54912,
        "two_pair": 123552,
        "pair": 1098240,
        "high_card": 1302540,
    }


def test_three_card_categories_over_all_hands():
    counts = Counter(name3(rank3(h)) for h in combinations(STANDARD_52, 3))
    assert counts == {
        "mini_royal": 4,
        "straight_flush": 44,
        "three_of_a_kind": 52,
        "straight": 720,
        "flush": 1096,
        "pair": 3744,
        "high_card": 16440,
    }


def test_hand_order_and_the_seeds_examples():
    # the example hands printed in the payout tables (seed 000 L536-615, L724-733)
    assert name5(rank5(["TH", "JH", "QH", "KH", "AH"])) == "royal_flush"
    assert name5(rank5(["TD", "9D", "8D", "7D", "6D"])) == "straight_flush"
    assert name5(rank5(["KC", "KH", "KS", "KD", "6D"])) == "four_of_a_kind"
    assert name5(rank5(["6D", "6H", "KC", "KH", "KS"])) == "full_house"
    assert name5(rank5(["AC", "TC", "QC", "5C", "7C"])) == "flush"
    assert name5(rank5(["TC", "9S", "8D", "7C", "6S"])) == "straight"
    assert name5(rank5(["KC", "KH", "KS", "8S", "AD"])) == "three_of_a_kind"
    assert name5(rank5(["7H", "7D", "TH", "TC", "9D"])) == "two_pair"
    assert name5(rank5(["8H", "8C", "KC", "AH", "9S"])) == "pair"
    assert name5(rank5(["5S", "4D", "3C", "2H", "AS"])) == "straight"  # the wheel
    assert rank5(["5S", "4D", "3C", "2H", "AS"]) < rank5(["6S", "5D", "4C", "3H", "2S"])
    assert name5(rank5(["QS", "KD", "AC", "2H", "3S"])) == "high_card"  # no wrap-around straight
    assert rank5(["AS", "AD", "KC", "QH", "JS"]) > rank5(["AH", "AC", "KD", "QS", "TS"])  # kickers
    assert rank5(["TS", "9S", "8D", "7C", "6S"]) == rank5(["TD", "9D", "8C", "7S", "6H"])  # suits never count
    assert name3(rank3(["AD", "KD", "QD"])) == "mini_royal"
    assert name3(rank3(["AS", "2D", "3C"])) == "straight" and name3(rank3(["QS", "KD", "AC"])) == "straight"
    assert name3(rank3(["AH", "2H", "7H"])) == "flush" and name3(rank3(["7H", "7D", "KS"])) == "pair"
    assert rank3(["7H", "7D", "KS"]) > rank3(["7C", "7S", "QS"])
    value, five = best5(["2S", "2D", "AS", "KS", "QS", "JS", "TS"])
    assert name5(value) == "royal_flush" and set(five) == {"AS", "KS", "QS", "JS", "TS"}


def wins(outcome: dict) -> dict:
    return {w["bet"]: w["payout"] for w in outcome["winning_bets"]}


def pushes(outcome: dict) -> set:
    return {p["bet"] for p in outcome["pushed_bets"]}


def test_side_bet_city():
    # 3 Card Hand: a pair (1:1); 5 Card Hand: pair of kings (JJ-AA, 1:1); 7 Card Hand: three of a kind (3:1)
    r = SBC.evaluate({"cards": ["KS", "KD", "4C", "9H", "2D", "KH", "7S"]})
    assert (
        r["result"]["three_card_hand"] == "pair" and r["result"]["five_card_hand"] == "pair_jacks_or_better"
    )
    assert r["result"]["seven_card_hand"] == "three_of_a_kind"
    assert wins(r["outcome"]) == {"three_card_hand": 1, "five_card_hand": 1, "seven_card_hand": 3}
    # nothing anywhere: All Lose pays 0.7:1 (L3493: a bet of 1000 receives 1700)
    r = SBC.evaluate({"cards": ["2S", "7D", "9C", "JH", "4D", "5S", "KC"]})
    assert wins(r["outcome"]) == {"all_lose": "7/10"}
    # the 3 Card Hand table: three of a kind 35:1 (above the straight's 5:1 and the flush's 4:1)
    r = SBC.evaluate({"cards": ["9S", "9D", "9C", "2H", "4D", "6S", "KC"]})
    assert wins(r["outcome"]) == {"three_card_hand": 35, "five_card_hand": 7, "seven_card_hand": 3}
    r = SBC.evaluate({"cards": ["AH", "KH", "QH", "JH", "TH", "2C", "3D"]})
    assert wins(r["outcome"]) == {"three_card_hand": 100, "five_card_hand": 1000, "seven_card_hand": 500}
    # a low pair in five cards pays nothing; two pairs 4:1 in five cards only
    r = SBC.evaluate({"cards": ["5S", "5D", "9C", "TH", "2D", "3S", "KC"]})
    assert r["result"]["five_card_hand"] == "pair_below_jacks"
    assert wins(r["outcome"]) == {"three_card_hand": 1}
    r = SBC.evaluate({"cards": ["5S", "6D", "9C", "5H", "6C", "3S", "KC"]})
    assert wins(r["outcome"]) == {"five_card_hand": 4}
    with pytest.raises(ValueError, match="drawn 2 times but this shoe"):  # one deck per game
        SBC.evaluate({"cards": ["5S", "5S", "9C", "5H", "6C", "3S", "KC"]})


def test_three_card_poker_and_teen_patti():
    for game in (TCP, TP):
        # player straight beats a qualifying dealer pair: ante 1, play 1, ante bonus 1, pair plus 5
        r = game.evaluate({"cards": ["TC", "9S", "8D", "7H", "7D", "KS"]})
        assert r["result"]["winner"] == "player" and r["result"]["dealer_qualifies"] is True
        assert wins(r["outcome"]) == {"ante": 1, "play": 1, "ante_bonus": 1, "pair_plus": 5}
        # dealer jack high does not qualify: ante 1:1, play pushed
        r = game.evaluate({"cards": ["2C", "5S", "8D", "JH", "7D", "4S"]})
        assert r["result"]["dealer_qualifies"] is False
        assert wins(r["outcome"]) == {"ante": 1} and pushes(r["outcome"]) == {"play"}
        # queen high qualifies (L527); the dealer wins, yet the ante bonus still pays on trips (L529)
        r = game.evaluate({"cards": ["KC", "KH", "KS", "AH", "AD", "AS"]})
        assert r["result"]["winner"] == "dealer"
        assert wins(r["outcome"]) == {"ante_bonus": 4, "pair_plus": 30, "six_card_bonus": 20}
        # 6 card bonus: royal flush across the player's and the dealer's cards
        r = game.evaluate({"cards": ["TH", "JH", "2C", "QH", "KH", "AH"]})
        assert wins(r["outcome"])["six_card_bonus"] == 1000
        # a tie pushes ante and play
        r = game.evaluate({"cards": ["QC", "9S", "4D", "QH", "9D", "4S"]})
        assert r["result"]["winner"] == "tie" and pushes(r["outcome"]) == {"ante", "play"}


def test_caribbean_stud():
    # dealer A-K high qualifies (L741); player two pairs wins: ante 1, call 1 (L757)
    r = CS.evaluate({"cards": ["7H", "7D", "TH", "TC", "9D", "AS", "KD", "8C", "5H", "2S"]})
    assert r["result"]["dealer_qualifies"] is True and r["result"]["dealer_up_card"] == "AS"
    assert wins(r["outcome"]) == {"ante": 1, "call": 1}
    # dealer A-Q high does not qualify: ante 1, call pushed
    r = CS.evaluate({"cards": ["7H", "7D", "TH", "TC", "9D", "AS", "QD", "8C", "5H", "2S"]})
    assert wins(r["outcome"]) == {"ante": 1} and pushes(r["outcome"]) == {"call"}
    # the seed's own inconsistent example "7♦, 10♥, A♥, 6♦, 8♦" (L725) is high card: no qualification without a king
    assert (
        CS.evaluate({"cards": ["2C", "3C", "4D", "9S", "JS", "7D", "TH", "AH", "6D", "8D"]})["result"][
            "dealer_qualifies"
        ]
        is False
    )
    # full house against a qualifying dealer: call 3:1; 5+1: the player's five and the up card -> four of a kind
    r = CS.evaluate({"cards": ["6D", "6H", "KC", "KH", "KS", "KD", "2D", "2H", "9S", "TC"]})
    assert wins(r["outcome"]) == {"ante": 1, "call": 3, "five_plus_one_bonus": 100}
    # the dealer wins: everything lost except the 5+1 bonus (three of a kind or better)
    r = CS.evaluate({"cards": ["6D", "6H", "2C", "4H", "9S", "KS", "KD", "3H", "3C", "TC"]})
    assert r["result"]["winner"] == "dealer" and wins(r["outcome"]) == {}


def test_casino_holdem():
    # player: 2 + board; dealer pair of fours qualifies (L587); player flush wins: ante 2:1, call 1:1
    deal = ["AH", "5H", "4C", "4D", "9H", "2H", "KS", "7H", "3S"]
    r = CH.evaluate({"cards": deal})
    assert r["result"]["player_cards"] == ["AH", "5H"] and r["result"]["dealer_cards"] == ["4C", "4D"]
    assert r["result"]["board"] == ["9H", "2H", "KS", "7H", "3S"]
    assert r["result"]["player_hand"] == "flush" and r["result"]["dealer_qualifies"] is True
    assert wins(r["outcome"]) == {"ante": 2, "call": 1}
    # dealer pair of threes does not qualify: seed 001 L37 ante 1:1 up to a straight, call returned
    r = CH.evaluate({"cards": ["AC", "KD", "3C", "8D", "AS", "3H", "QS", "9C", "2S"]})
    assert r["result"]["dealer_qualifies"] is False and r["result"]["player_hand"] == "pair"
    assert wins(r["outcome"]) == {"ante": 1, "bonus": 7} and pushes(r["outcome"]) == {"call"}
    # ... and by the table from a flush up (001 L37)
    r = CH.evaluate({"cards": ["AH", "KH", "3C", "8D", "9H", "3H", "2H", "5C", "TS"]})
    assert r["result"]["dealer_qualifies"] is False and r["result"]["player_hand"] == "flush"
    assert wins(r["outcome"]) == {"ante": 2, "bonus": 20}
    assert (
        wins(
            CasinoHoldem(no_qualify_ante="table").evaluate(
                {"cards": ["AC", "KD", "3C", "8D", "AS", "3H", "QS", "9C", "2S"]}
            )["outcome"]
        )["ante"]
        == 1
    )
    # equal best five cards: the board plays for both: a push (001 L13)
    r = CH.evaluate({"cards": ["2C", "3D", "2H", "3S", "AS", "KS", "QS", "JS", "TS"]})
    assert r["result"]["winner"] == "tie" and pushes(r["outcome"]) == {"ante", "call"}
    # land rules: the bonus is 7:1 for any hand from a pair of aces up (001 L43)
    assert (
        wins(CHL.evaluate({"cards": ["AH", "KH", "3C", "8D", "9H", "3H", "2H", "5C", "TS"]})["outcome"])[
            "bonus"
        ]
        == 7
    )
    with pytest.raises(ValueError, match=r"too few cards \(7\): the next card is the turn \(turn\)"):
        CH.evaluate({"cards": deal[:7]})


def test_texas_holdem():
    # player straight wins against a qualifying dealer: ante 1, blind 1, play 1, trips 4
    r = TH.evaluate({"cards": ["9C", "8C", "KD", "KS", "7H", "6S", "2D", "TS", "3C"]})
    assert r["result"]["player_hand"] == "straight" and r["result"]["dealer_qualifies"] is True
    assert wins(r["outcome"]) == {"ante": 1, "blind": 1, "play": 1, "trips": 4}
    # player flush: blind 3:2 (L664 "1․5:1"); the dealer has no pair: ante pushed (L651)
    r = TH.evaluate({"cards": ["AH", "5H", "QC", "7D", "9H", "2H", "KS", "7H", "3S"]})
    assert r["result"]["dealer_qualifies"] is True  # a pair of sevens with the board
    r = TH.evaluate({"cards": ["AH", "5H", "QC", "JD", "9H", "2H", "KS", "7H", "3S"]})
    assert r["result"]["dealer_qualifies"] is False
    assert wins(r["outcome"]) == {"blind": "3/2", "play": 1, "trips": 7} and pushes(r["outcome"]) == {"ante"}
    # player wins with two pairs: the blind is returned (L666)
    r = TH.evaluate({"cards": ["AH", "9D", "QC", "QD", "9H", "AS", "KS", "7H", "3S"]})
    assert wins(r["outcome"]) == {"ante": 1, "play": 1} and pushes(r["outcome"]) == {"blind"}
    # the dealer wins: all lost, trips still pays on the player's three of a kind
    r = TH.evaluate({"cards": ["4H", "4D", "AC", "AD", "4S", "AS", "KS", "7H", "3S"]})
    assert (
        r["result"]["winner"] == "dealer" and wins(r["outcome"]) == {"trips": 3} and not pushes(r["outcome"])
    )
