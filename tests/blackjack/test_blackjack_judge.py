"""The card judge driving blackjack: round signals, cards from the shoe and player decisions, as a table feeds them."""

from __future__ import annotations

from datetime import UTC, datetime

from devices.events import CardDrawn
from recognition.blackjack.games import GAMES
from recognition.game import (
    AskDecision,
    DecisionRefused,
    DecisionTaken,
    Hold,
    PlayerDecision,
    ResultReady,
    RoundSignal,
    Void,
)

AT = datetime(2024, 1, 1, tzinfo=UTC)


def sig(kind, n=1, extras=None):
    return RoundSignal(signal=kind, round_number=n, at=AT, extras=extras)


def card(code):
    return CardDrawn(device_id="shoe", at=AT, card=code, payload="P" + code)


def dec(seat, action, hand=1, n=1, window=None, by="backend"):
    return PlayerDecision(round_number=n, seat=seat, hand=hand, action=action, window=window, by=by, at=AT)


def kinds(out):
    return [type(x).__name__ for x in out]


def start(game_id, seats):
    j = GAMES[game_id].new_judge()
    assert j.feed(sig("round_opened")) == []
    for s in seats:
        out = j.feed(dec(s, "sit"))
        assert kinds(out) == ["DecisionTaken"], out
    return j


def test_full_round_with_split_timeout_default_and_result():
    j = start("live_blackjack", ["seat_1", "seat_2"])
    assert j.feed(dec("seat_1", "hit"))[0].code == "betting_open"
    assert j.feed(sig("betting_closed")) == []
    assert j.status() == {
        "next": {"position": "seat_1/hand_1/1", "label": "seat 1, hand 1, card 1"},
        "awaiting": [],
    }
    for c in ["8H", "TS", "6D", "8S", "7C"]:
        assert j.feed(card(c)) == []
    out = j.feed(card("TD"))  # the hole card: seat 1 decides
    assert kinds(out) == ["AskDecision"]
    ask = out[0]
    assert ask.window == "seat_1/hand_1/1" and ask.allowed == ("stand", "hit", "double", "split")
    assert ask.detail["dealer_up"] == "6D" and "TD" not in str(ask.detail)  # the hole card stays hidden
    assert j.status()["awaiting"][0]["window"] == "seat_1/hand_1/1"
    # a second answer to the same window is refused; the first is taken and announced once
    out = j.feed(dec("seat_1", "split", window="seat_1/hand_1/1"))
    assert kinds(out) == ["DecisionTaken"] and out[0].window == "seat_1/hand_1/1"
    assert j.feed(dec("seat_1", "split", window="seat_1/hand_1/1"))[0].code == "window_closed"
    assert j.feed(card("3C")) == []
    out = j.feed(card("2H"))
    assert kinds(out) == ["AskDecision"] and out[0].window == "seat_1/hand_1/2"
    out = j.feed(card("9D"))  # drawn before hand 1 decided: held
    assert kinds(out) == ["Hold"] and out[0].code == "card_before_decision"
    out = j.feed(dec("seat_1", "hit"))
    assert kinds(out) == ["DecisionTaken", "AskDecision"] and out[1].window == "seat_1/hand_1/3"
    assert out[1].detail["total"] == 20
    assert kinds(j.feed(dec("seat_1", "stand"))) == ["DecisionTaken", "AskDecision"]
    out = j.feed(dec("seat_1", "stand", hand=2))
    assert kinds(out) == ["DecisionTaken", "AskDecision"] and out[1].window == "seat_2/hand_1/1"
    out = j.feed(dec("seat_2", "stand"))
    assert kinds(out) == ["DecisionTaken"]
    assert j.status()["next"]["position"] == "dealer/3"
    out = j.feed(card("QH"))
    assert kinds(out) == ["ResultReady"]
    assert out[0].source["device_id"] == "shoe"
    assert [h["cards"] for h in out[0].result["seats"][0]["hands"]] == [["8H", "3C", "9D"], ["8S", "2H"]]


def test_card_before_decision_is_held_and_placed_after_it():
    j = start("live_blackjack", ["seat_1"])
    j.feed(sig("betting_closed"))
    for c in ["TH", "9D", "6C"]:
        assert j.feed(card(c)) == []
    out = j.feed(card("7C"))
    assert kinds(out) == ["AskDecision"] and out[0].window == "seat_1/hand_1/1"
    out = j.feed(card("4S"))  # drawn before the player said anything
    assert kinds(out) == ["Hold"] and out[0].code == "card_before_decision"
    # nothing is asked again; the player hits: the held card is the hit card, the next window opens
    out = j.feed(dec("seat_1", "hit"))
    assert kinds(out) == ["DecisionTaken", "AskDecision"] and out[1].window == "seat_1/hand_1/2"
    assert out[1].detail["cards"] == ["TH", "6C", "4S"]
    # the window times out: the table feeds the default
    out = j.feed(dec("seat_1", "stand", window="seat_1/hand_1/2", by="default"))
    assert kinds(out) == ["DecisionTaken"] and out[0].by == "default"
    out = j.feed(card("TD"))  # dealer 9 7 = 16 draws TD
    assert kinds(out) == ["ResultReady"]
    rr = out[0]
    assert rr.source["cards"] == ["TH", "9D", "6C", "7C", "4S", "TD"]
    assert [d["action"] for d in rr.source["decisions"]] == ["sit", "hit", "stand"]
    assert rr.source["decisions"][-1]["by"] == "default"
    g = GAMES["live_blackjack"]
    assert g.validate_result(rr.result) == rr.result
    assert (
        g.evaluate({"cards": rr.source["cards"], "decisions": rr.source["decisions"]})["result"] == rr.result
    )
    assert j.feed(dec("seat_1", "hit"))[0].code == "round_over"
    out = j.feed(card("2C"))
    assert kinds(out) == ["Hold"] and out[0].code == "extra_card"


def test_card_before_a_stand_goes_to_the_dealer():
    j = start("blackjack", ["seat_1"])  # no hole card: the dealer's second card comes after the players
    j.feed(sig("betting_closed"))
    for c in ["TH", "9D"]:
        j.feed(card(c))
    assert kinds(j.feed(card("8C"))) == ["AskDecision"]
    assert j.feed(card("8S"))[0].code == "card_before_decision"
    out = j.feed(dec("seat_1", "stand"))
    assert kinds(out) == ["DecisionTaken", "ResultReady"]  # 8S was the dealer's second card: 17 stands
    assert out[1].result["dealer"]["cards"] == ["9D", "8S"]


def test_insurance_windows_open_together_and_refusals():
    j = start("blackjack", ["seat_1", "seat_3"])
    assert j.feed(dec("seat_1", "sit"))[0].code == "not_allowed"  # sat already
    j.feed(sig("betting_closed"))
    assert j.feed(dec("seat_4", "sit"))[0].code == "betting_closed"
    for c in ["TH", "AS", "AD", "6C"]:
        assert j.feed(card(c)) == []
    out = j.feed(card("KS"))
    assert kinds(out) == ["AskDecision", "AskDecision"]
    assert {a.window: a.allowed for a in out} == {
        "seat_1/insurance": ("insurance", "no_insurance"),
        "seat_3/insurance": ("even_money", "no_insurance"),
    }
    assert j.feed(dec("seat_1", "hit", n=2))[0].code == "no_round"
    assert j.feed(dec("seat_2", "insurance"))[0].code == "seat_not_in_play"
    assert j.feed(dec("seat_1", "insurance", hand=2))[0].code == "hand_not_in_play"
    assert j.feed(dec("seat_1", "hit"))[0].code == "not_allowed"
    out = j.feed(dec("seat_3", "even_money"))
    assert kinds(out) == ["DecisionTaken"]  # seat 1 still deciding: nothing more yet
    assert j.feed(dec("seat_3", "stand"))[0].code == "not_your_turn"
    out = j.feed(dec("seat_1", "no_insurance", window="seat_1/insurance", by="default"))
    assert kinds(out) == ["DecisionTaken", "AskDecision"] and out[1].window == "seat_1/hand_1/1"
    assert "surrender" in out[1].allowed


def test_no_players_voids_and_common_hand_needs_no_sit():
    j = GAMES["blackjack"].new_judge()
    j.feed(sig("round_opened"))
    out = j.feed(sig("betting_closed"))
    assert kinds(out) == ["Void"] and out[0].code == "no_players"
    j = GAMES["infinite_blackjack"].new_judge()
    j.feed(sig("round_opened"))
    assert j.feed(sig("betting_closed")) == []
    for c in ["9H", "7D", "2C"]:
        assert j.feed(card(c)) == []
    out = j.feed(card("TS"))
    assert (
        kinds(out) == ["AskDecision"] and out[0].window == "common/3" and out[0].allowed == ("hit", "stand")
    )
    assert kinds(j.feed(dec("common", "hit"))) == ["DecisionTaken"]
    assert kinds(j.feed(card("5S"))) == ["AskDecision"]
    out = j.feed(dec("common", "stand"))
    assert kinds(out) == ["DecisionTaken", "ResultReady"]  # dealer 17 stands
    assert out[1].result["common"]["cards"] == ["9H", "2C", "5S"]


def test_lightning_extras_reach_the_result_through_the_outcome():
    g = GAMES["lightning_blackjack"]
    extras = {"multipliers": {"20": 3}}
    j = start("lightning_blackjack", ["seat_2"])
    j.feed(sig("betting_closed", extras=extras))
    for c in ["TH", "7D", "TC"]:
        j.feed(card(c))
    assert kinds(j.feed(card("TS"))) == ["AskDecision"]
    rr = j.feed(dec("seat_2", "stand"))[1]
    assert isinstance(rr, ResultReady)
    assert g.outcome(g.validate_result(rr.result), extras)["winning_bets"][0] == {
        "bet": "seat_2/hand_1/main",
        "payout": 1,
        "multiplier": 3,
    }


def test_games_without_decisions_refuse_them():
    from recognition.games import GAMES as ALL

    j = ALL["baccarat"].new_judge()
    j.feed(sig("round_opened"))
    out = j.feed(dec("seat_1", "sit"))
    assert kinds(out) == ["DecisionRefused"] and out[0].code == "not_allowed"
    assert isinstance(out[0], DecisionRefused)
    assert AskDecision and DecisionTaken and Hold and Void  # imported types used above
