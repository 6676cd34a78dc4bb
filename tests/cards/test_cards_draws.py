"""Speedy 7, Jokerbet (one card a round) and 21 Bet."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from devices.events import CardDrawn
from recognition.cards.cards import STANDARD_52
from recognition.cards.draws import GAMES
from recognition.cards.twenty_one import GAMES as TWENTY_ONE
from recognition.game import Hold, Note, ResultReady, RoundSignal

S7, JB = GAMES["speedy_7"], GAMES["jokerbet"]
B21 = TWENTY_ONE["twenty_one_bet"]
T = datetime(2026, 1, 1, tzinfo=UTC)


def bets(outcome: dict) -> list[str]:
    return [w["bet"] for w in outcome["winning_bets"]]


def test_speedy_7_colours():
    for card in STANDARD_52:
        r = S7.evaluate({"cards": [card]})
        colour = "red" if card[1] in "DH" else "black"  # L2515
        assert r == {
            "result": {"card": card, "colour": colour},
            "outcome": {"winning_bets": [{"bet": colour}], "pushed_bets": []},
        }
    with pytest.raises(ValueError, match=r"too few cards \(0\): the next card is the card"):
        S7.evaluate({"cards": []})
    with pytest.raises(ValueError, match="not a card of speedy_7"):
        S7.evaluate({"cards": ["JK"]})


def test_jokerbet_bet_spots():
    assert bets(JB.evaluate({"cards": ["QD"]})["outcome"]) == [
        "rank_queen",
        "card_QD",
        "diamonds",
        "red",
        "non_digital",
    ]
    assert bets(JB.evaluate({"cards": ["TC"]})["outcome"]) == [
        "rank_10",
        "card_TC",
        "clubs",
        "black",
        "digital",
    ]
    assert bets(JB.evaluate({"cards": ["2S"]})["outcome"]) == [
        "rank_2",
        "card_2S",
        "spades",
        "black",
        "digital",
    ]
    assert bets(JB.evaluate({"cards": ["AH"]})["outcome"]) == [
        "rank_ace",
        "card_AH",
        "hearts",
        "red",
        "non_digital",
    ]
    assert bets(JB.evaluate({"cards": ["RJ"]})["outcome"]) == ["joker", "red_joker", "red", "non_digital"]
    assert bets(JB.evaluate({"cards": ["BJ"]})["outcome"]) == ["joker", "black_joker", "black", "non_digital"]
    with pytest.raises(ValueError, match=r"a joker \(JK\) is not a card of jokerbet"):
        JB.evaluate({"cards": ["JK"]})
    assert JB.shoe_spec().size == 54


def card(c: str, deck: str) -> CardDrawn:
    return CardDrawn(device_id="jb/shoe", at=T, card=c, payload=c, deck=deck)


def one_round(judge, n: int, c: str, deck: str) -> list:
    out = judge.feed(RoundSignal(signal="round_opened", round_number=n, at=T))
    out += judge.feed(RoundSignal(signal="betting_closed", round_number=n, at=T))
    out += judge.feed(card(c, deck))
    out += judge.feed(RoundSignal(signal="round_ended", round_number=n, at=T))
    return out


def test_jokerbet_decks_follow_one_another():
    judge = JB.new_judge()
    deck = list(STANDARD_52) + ["RJ", "BJ"]
    for n, c in enumerate(deck, 1):
        out = one_round(judge, n, c, "RED-1")
        assert [d.result["card"] for d in out if isinstance(d, ResultReady)] == [c]
    assert [d.code for d in out if isinstance(d, Note)] == ["shoe_exhausted"]
    # the blue deck comes next: a new shoe, no hold
    out = one_round(judge, 55, "AS", "BLUE-1")
    assert [d.code for d in out if isinstance(d, (Hold, Note))] == ["new_shoe"]
    assert [d.result["card"] for d in out if isinstance(d, ResultReady)] == ["AS"]
    # a deck change before the deck is finished: the dealer confirms (the card is still taken)
    out = one_round(judge, 56, "KS", "RED-2")
    assert [d.code for d in out if isinstance(d, (Hold, Note))] == ["new_shoe", "deck_changed"]
    assert "after 1 of the 54 cards" in next(d for d in out if isinstance(d, Hold)).message
    # a second copy within one deck is impossible
    out = one_round(judge, 57, "KS", "RED-2")
    assert [d.code for d in out if isinstance(d, Hold)] == ["impossible_card"]


def test_twenty_one_bet_hand_checked():
    # golden point at once: two aces (L3497)
    r = B21.evaluate({"cards": ["AS", "AH", "6D", "7C"]})
    assert r["result"]["winner"] == "player_1" and r["result"]["golden_point"] is True
    assert bets(r["outcome"]) == ["player_1", "win_with_2_cards", "win_with_golden_point", "no_bust"]
    # ace + ten is 21 at once; both golden: a draw
    r = B21.evaluate({"cards": ["AS", "TH", "AD", "AC"]})
    assert r["result"]["winner"] == "draw" and r["result"]["golden_point"] is False
    # Player 1 stands on 17; Player 2 (13) draws a 9 and busts (22): Player 1 wins with 17 points, 2 cards
    r = B21.evaluate({"cards": ["TS", "7H", "6D", "7C", "9C"]})
    assert r["result"]["player_2_cards"] == ["6D", "7C", "9C"] and r["result"]["bust"] is True
    assert bets(r["outcome"]) == ["player_1", "win_with_2_cards", "win_with_17_points", "bust"]
    # Player 1 busts first: Player 2 gets no card that round
    r = B21.evaluate({"cards": ["TS", "6H", "6D", "7C", "9C"]})
    assert r["result"]["winner"] == "player_2" and r["result"]["player_2_cards"] == ["6D", "7C"]
    assert bets(r["outcome"]) == ["player_2", "win_with_2_cards", "bust"]  # 13 points: no points bet
    # picture cards are 2, 3, 4 points; at most three more cards each, then the totals are compared
    r = B21.evaluate({"cards": ["6S", "JH", "7D", "QC", "JC", "KD", "QS", "JD", "KS", "QD"]})
    assert (
        r["result"]["player_1_total"] == 6 + 2 + 2 + 3 + 4
        and r["result"]["player_2_total"] == 7 + 3 + 4 + 2 + 3
    )
    assert r["result"]["winner"] == "player_2" and bets(r["outcome"])[:3] == [
        "player_2",
        "win_with_5_cards",
        "win_with_19_points",
    ]
    # the ace counts 11 while that does not bust: A + 6 = 17 stands
    r = B21.evaluate({"cards": ["AS", "6H", "TD", "8C"]})
    assert r["result"]["player_1_total"] == 17 and r["result"]["winner"] == "player_2"
    with pytest.raises(ValueError, match="not a card of twenty_one_bet"):
        B21.evaluate({"cards": ["2S", "6H", "TD", "8C"]})
    with pytest.raises(ValueError, match=r"too few cards \(4\): the next card is Player 1's 3rd card"):
        B21.evaluate({"cards": ["6S", "6H", "TD", "8C"]})
