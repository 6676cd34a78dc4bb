"""Rule options a table sets in its configuration (`game_options`), and the surrender-vs-late-blackjack setting."""

from __future__ import annotations

import pytest

from recognition.blackjack.games import GAMES, RULE_OPTIONS
from studio.config import build_game

# seed 000 (no hole card): seat 2 surrenders 10-6, the dealer's second card makes a late blackjack
CARDS = ["TH", "5C", "TD", "6S", "6H", "9C", "AH"]
DECISIONS = [
    {"seat": "seat_2", "hand": 1, "action": "surrender"},
    {"seat": "seat_5", "hand": 1, "action": "double"},
]


def fate(game, bet):
    out = game.evaluate({"cards": CARDS, "decisions": DECISIONS, "seats": ["seat_2", "seat_5"]})["outcome"]
    pushed = {p["bet"]: p["returned"] for p in out["pushed_bets"]}
    won = {w["bet"]: w["payout"] for w in out["winning_bets"]}
    return "push " + str(pushed[bet]) if bet in pushed else "win" if bet in won else "loss"


def test_surrender_keeps_half_against_a_late_blackjack_by_default_and_loses_all_when_set():
    assert fate(GAMES["blackjack"], "seat_2/hand_1/main") == "push 1/2"
    strict = build_game("blackjack", {"surrender_beats_late_blackjack": False})
    assert fate(strict, "seat_2/hand_1/main") == "loss"
    assert GAMES["blackjack"].rules.surrender_beats_late_blackjack  # the registered game is unchanged


def test_table_rule_options_change_the_rules_and_refuse_wrong_values():
    g = build_game(
        "live_blackjack",
        {
            "hit_soft_17": True,
            "late_blackjack": "original",
            "max_hands": 4,
            "insurance_upcards": ["A"],
            "blackjack_pays": "6/5",
        },
    )
    assert g.rules.hit_soft_17 and g.rules.late_blackjack == "original" and g.rules.max_hands == 4
    assert g.rules.insurance_upcards == frozenset("A") and str(g.rules.blackjack_pays) == "6/5"
    assert g.game_id == "live_blackjack" and not GAMES["live_blackjack"].rules.hit_soft_17
    assert {"hit_soft_17", "late_blackjack", "surrender_beats_late_blackjack"} <= RULE_OPTIONS
    for bad, words in (
        ({"hit_soft_17": "yes"}, "true or false"),
        ({"max_hands": 2.5}, "whole number"),
        ({"blackjack_pays": "x"}, "fraction"),
        ({"late_blackjack": "some"}, "'all' or 'original'"),
        ({"insurance_upcards": "A"}, "a list"),
    ):
        with pytest.raises(ValueError, match=words):
            build_game("live_blackjack", bad)
