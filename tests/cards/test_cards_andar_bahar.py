"""Andar Bahar: the deal from the committed first side, the side bets, the judge's need for the draw."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from devices.events import CardDrawn
from recognition.cards.andar_bahar import GAMES
from recognition.game import Hold, ResultReady, RoundSignal

AB = GAMES["andar_bahar"]
T = datetime(2026, 1, 1, tzinfo=UTC)


def bets(outcome: dict) -> list[str]:
    return [w["bet"] for w in outcome["winning_bets"]]


def test_a_hand_checked_round():
    # Joker 7H; Bahar gets the first card; 2S to Bahar, KD to Andar, 7C to Bahar: Bahar wins on the 3rd card
    r = AB.evaluate({"cards": ["7H", "2S", "KD", "7C"], "extras": {"first_side": "bahar"}})
    assert r["result"] == {
        "winner": "bahar",
        "joker": "7H",
        "first_side": "bahar",
        "andar_cards": ["KD"],
        "bahar_cards": ["2S", "7C"],
        "cards_dealt": 3,
        "winning_card": "7C",
    }
    assert bets(r["outcome"]) == [
        "bahar",
        "cards_1_5",
        "winning_card_black",
        "joker_red",
        "joker_hearts",
        "joker_7",
        "joker_lower_than_8",
    ]
    assert all("payout" not in w for w in r["outcome"]["winning_bets"])  # the seed gives no odds
    # the same cards with Andar first: Andar wins
    r = AB.evaluate({"cards": ["7H", "2S", "KD", "7C"], "extras": {"first_side": "andar"}})
    assert r["result"]["winner"] == "andar" and r["result"]["andar_cards"] == ["2S", "7C"]
    # the first card after the Joker can win at once
    r = AB.evaluate({"cards": ["AS", "AD"], "first_side": "andar"})
    assert r["result"]["winner"] == "andar" and r["result"]["cards_dealt"] == 1
    assert bets(r["outcome"])[4:] == ["joker_spades", "joker_lower_than_7", "joker_lower_than_8"]  # ace low


@pytest.mark.parametrize(
    "n,bet",
    [
        (5, "cards_1_5"),
        (6, "cards_6_10"),
        (15, "cards_11_15"),
        (16, "cards_16_25"),
        (25, "cards_16_25"),
        (26, "cards_26_30"),
        (40, "cards_36_40"),
        (41, "cards_41_or_more"),
        (49, "cards_41_or_more"),
    ],
)
def test_the_count_of_cards_after_the_joker(n, bet):
    others = [
        c
        for c in [
            "2S",
            "2H",
            "2D",
            "2C",
            "3S",
            "3H",
            "3D",
            "3C",
            "4S",
            "4H",
            "4D",
            "4C",
            "5S",
            "5H",
            "5D",
            "5C",
            "6S",
            "6H",
            "6D",
            "6C",
            "7S",
            "7H",
            "7D",
            "7C",
            "8S",
            "8H",
            "8D",
            "8C",
            "9S",
            "9H",
            "9D",
            "9C",
            "TS",
            "TH",
            "TD",
            "TC",
            "JS",
            "JH",
            "JD",
            "JC",
            "QS",
            "QH",
            "QD",
            "QC",
            "AS",
            "AH",
            "AD",
            "AC",
        ]
    ]
    cards = ["KS"] + others[: n - 1] + ["KD"]
    r = AB.evaluate({"cards": cards, "extras": {"first_side": "andar"}})
    assert r["result"]["cards_dealt"] == n and bet in bets(r["outcome"])
    assert r["result"]["winner"] == ("andar" if n % 2 else "bahar")
    assert bets(r["outcome"])[5:] == ["joker_higher_than_7", "joker_higher_than_8"]


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"too few cards \(3\): the next card is the 2nd card to Andar"):
        AB.evaluate({"cards": ["7H", "2S", "KD"], "extras": {"first_side": "andar"}})
    with pytest.raises(ValueError, match="not used by the rules"):
        AB.evaluate({"cards": ["7H", "7S", "KD"], "extras": {"first_side": "andar"}})
    with pytest.raises(ValueError, match="needs the side that gets the first card"):
        AB.evaluate({"cards": ["7H", "7S"]})
    with pytest.raises(ValueError, match="extras are"):
        AB.evaluate({"cards": ["7H", "7S"], "extras": {"first_side": "left"}})
    with pytest.raises(ValueError, match="drawn 2 times"):  # one deck
        AB.evaluate({"cards": ["7H", "2S", "2S", "7C"], "extras": {"first_side": "andar"}})
    with pytest.raises(ValueError, match="as many cards as"):
        AB.validate_result(
            {"joker": "7H", "first_side": "andar", "andar_cards": ["2S"], "bahar_cards": ["3S", "7C"]}
        )


def test_the_first_side_is_a_committed_computer_draw():
    sides = {AB.draw_extras(random.Random(s))["first_side"] for s in range(40)}
    assert sides == {"andar", "bahar"}
    assert AB.draw_extras(random.Random(1), first_side="bahar") == {"first_side": "bahar"}
    with pytest.raises(ValueError, match="first_side is"):
        AB.draw_extras(random.Random(1), first_side="random")
    AB.new_judge(first_side="bahar")  # the table's settings go to both; the judge ignores the draw's


def test_the_judge_follows_the_committed_side_and_holds_without_it():
    judge = AB.new_judge()
    out = judge.feed(RoundSignal(signal="round_opened", round_number=1, at=T))
    out += judge.feed(
        RoundSignal(signal="betting_closed", round_number=1, at=T, extras={"first_side": "bahar"})
    )
    for c in ["7H", "2S", "KD", "7C"]:
        out += judge.feed(CardDrawn(device_id="ab/shoe", at=T, card=c, payload=c))
    assert [d.result["winner"] for d in out if isinstance(d, ResultReady)] == ["bahar"]
    judge.feed(RoundSignal(signal="round_ended", round_number=1, at=T))
    out = judge.feed(RoundSignal(signal="round_opened", round_number=2, at=T))
    out += judge.feed(RoundSignal(signal="betting_closed", round_number=2, at=T))
    for c in ["7H", "7S"]:
        out += judge.feed(CardDrawn(device_id="ab/shoe", at=T, card=c, payload=c))
    assert [d.code for d in out if isinstance(d, Hold)] == ["deal_context_missing"]
    assert not [d for d in out if isinstance(d, ResultReady)]
