"""The exchange games through the card judge: shoe events, round signals and player decisions in, the
judge's decisions out (as tests/cards feed the judge)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from devices.events import CardDrawn
from recognition.game import (
    AskDecision,
    DecisionRefused,
    DecisionTaken,
    Hold,
    PlayerDecision,
    ResultReady,
    RoundSignal,
)
from recognition.games import GAMES

DEV = "poker-1/shoe"
T0 = datetime(2026, 11, 29, 20, 0, 0, tzinfo=UTC)
_clock = [0.0]


def at() -> datetime:
    _clock[0] += 0.5
    return T0 + timedelta(seconds=_clock[0])


def card(code: str) -> CardDrawn:
    return CardDrawn(device_id=DEV, at=at(), card=code, payload=f"P-{code}", deck=None)


def sig(signal: str, n: int) -> RoundSignal:
    return RoundSignal(signal=signal, round_number=n, at=at())  # type: ignore[arg-type]


def decide(n: int, action: str, cards=(), window=None, by="backend", seat="player", hand=1) -> PlayerDecision:
    return PlayerDecision(
        round_number=n, seat=seat, hand=hand, action=action, cards=tuple(cards), window=window, by=by, at=at()
    )


def feed(judge, *items) -> list:
    out = []
    for item in items:
        out += judge.feed(item)
    return out


def kinds(decisions) -> list[str]:
    return [d.kind for d in decisions]


def start(game_id: str, n: int = 1):
    judge = GAMES[game_id].new_judge()
    assert feed(judge, sig("round_opened", n), sig("betting_closed", n)) == []
    return judge


def test_exchange_round_through_the_judge():
    judge = start("five_card_poker_exchange")
    out = feed(judge, *(card(c) for c in ["AS", "KS", "QS", "JS", "2C"]))
    assert out == []
    assert judge.status() == {
        "next": {"position": "dealer_1", "label": "the dealer's face-up card"},
        "awaiting": [],
    }
    out = feed(judge, card("3D"))
    assert out == [
        AskDecision(
            window="player/hand_1/exchange",
            seat="player",
            hand=1,
            allowed=("discard", "keep"),
            default="keep",
            detail={
                "player_cards": ["AS", "KS", "QS", "JS", "2C"],
                "dealer_up_card": "3D",
                "player_hand": "high_card",
                "max_discards": 1,
            },
        )
    ]
    assert judge.status()["awaiting"] == [
        {
            "window": "player/hand_1/exchange",
            "seat": "player",
            "hand": 1,
            "allowed": ["discard", "keep"],
            "default": "keep",
        }
    ]
    # refusals: a card not in the hand, a seat that does not exist, an action not allowed
    out = feed(judge, decide(1, "discard", ["9H"]))
    assert kinds(out) == ["decision_refused"] and out[0].code == "bad_cards"
    out = feed(judge, decide(1, "keep", seat="seat_2"))
    assert out[0] == DecisionRefused(code="seat_not_in_play", message=out[0].message)
    out = feed(judge, decide(1, "hit"))
    assert out[0].code == "not_allowed" and "discard, keep" in out[0].message
    out = feed(judge, decide(2, "keep"))
    assert out[0].code == "no_round"
    # the decision: the taken decision first
    out = feed(judge, decide(1, "discard", ["2C"], window="player/hand_1/exchange"))
    assert out == [
        DecisionTaken(
            window="player/hand_1/exchange",
            seat="player",
            hand=1,
            action="discard",
            cards=("2C",),
            by="backend",
        )
    ]
    out = feed(judge, decide(1, "keep", window="player/hand_1/exchange"))
    assert out[0].code == "window_closed"
    assert judge.status()["next"]["position"] == "draw_1"
    out = feed(judge, *(card(c) for c in ["TS", "4H", "4C", "9D"]))
    assert out == []
    (ready,) = feed(judge, card("8S"))
    assert isinstance(ready, ResultReady)
    assert ready.result["player_cards"] == ["AS", "KS", "QS", "JS", "TS"]
    assert ready.result["player_hand"] == "royal_flush"
    assert ready.source == {
        "device_id": DEV,
        "cards": ["AS", "KS", "QS", "JS", "2C", "3D", "TS", "4H", "4C", "9D", "8S"],
        "decisions": [
            {
                "window": "player/hand_1/exchange",
                "seat": "player",
                "hand": 1,
                "action": "discard",
                "cards": ["2C"],
                "by": "backend",
            }
        ],
    }
    # what studio evaluate reads back gives the same result
    game = GAMES["five_card_poker_exchange"]
    assert (
        game.evaluate({"cards": ready.source["cards"], "decisions": ready.source["decisions"]})["result"]
        == ready.result
    )
    assert game.validate_result(ready.result) == ready.result
    out = feed(judge, decide(1, "keep"))
    assert out[0].code == "round_over"


def test_card_before_the_decision_is_held_and_placed_by_it():
    judge = start("joker_poker", 3)
    out = feed(judge, *(card(c) for c in ["AS", "AH", "AD", "7C", "2C", "3D"]))
    assert kinds(out) == ["ask_decision"]
    out = feed(judge, card("JK"))  # the dealer dealt on before the player decided
    assert kinds(out) == ["hold"] and out[0].code == "card_before_decision"
    # the window's timeout: the table feeds the default; the early card becomes the dealer's 2nd card
    out = feed(judge, decide(3, "keep", window="player/hand_1/exchange", by="default"))
    assert out[0] == DecisionTaken(
        window="player/hand_1/exchange", seat="player", hand=1, action="keep", by="default"
    )
    assert judge.status()["next"]["position"] == "dealer_3"
    (ready,) = feed(judge, *(card(c) for c in ["5H", "9C", "KS"]))
    assert ready.result["dealer_cards"] == ["3D", "JK", "5H", "9C", "KS"]
    assert ready.result["dealer_hand"] == "pair" and ready.result["dealer_qualifies"] is True
    assert ready.result["player_hand"] == "three_of_a_kind" and ready.result["winner"] == "player"
    assert GAMES["joker_poker"].outcome(ready.result)["winning_bets"] == [
        {"bet": "ante", "payout": 1},
        {"bet": "raise", "payout": 3, "hand": "three_of_a_kind"},
    ]


def test_six_card_poker_buy_and_a_second_joker_refused():
    judge = start("six_card_poker", 5)
    feed(judge, *(card(c) for c in ["AS", "AH", "5D", "6C", "2S", "3D"]))
    out = feed(judge, decide(5, "buy"))
    assert kinds(out) == ["decision_taken"]
    (ready,) = feed(judge, *(card(c) for c in ["AD", "4H", "4C", "9D", "8S"]))
    assert ready.result["bought_card"] == "AD" and ready.result["player_hand"] == "three_of_a_kind"
    # poker with joker: one joker per deck
    judge = start("joker_poker", 6)
    out = feed(judge, card("RJ"), card("BJ"))
    assert [type(d) for d in out] == [Hold] and out[0].code == "impossible_card"


def test_five_card_poker_has_no_decisions():
    judge = start("five_card_poker", 7)
    out = feed(judge, *(card(c) for c in ["2S", "2H", "9D", "7C", "5S", "AD", "KC", "JD", "8C"]))
    assert out == []
    (ready,) = feed(judge, card("3H"))
    assert ready.result["winner"] == "player" and "decisions" not in ready.result
    out = feed(judge, decide(7, "keep"))
    assert out[0].code == "round_over" or out[0].code == "not_allowed"
