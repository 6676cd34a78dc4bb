"""The draw-poker games (recognition/draw_poker/games.py): deal scripts, decisions and their refusals, every
payout, studio evaluate round trips."""

from __future__ import annotations

import json

import pytest

from recognition.cards.base import DecisionError
from recognition.draw_poker import games as dp
from recognition.games import GAMES

FIVE = GAMES["five_card_poker"]
EXCHANGE = GAMES["five_card_poker_exchange"]
SIX = GAMES["six_card_poker"]
JOKER = GAMES["joker_poker"]

#: a qualifying dealer hand that every example player hand below beats: ace-king-jack high
DEALER_AK = ["AD", "KC", "JD", "8C", "3H"]
#: a player hand of each category, all beating DEALER_AK (cards distinct from it)
PLAYER = {
    "high_card": ["AS", "KH", "QS", "4D", "2C"],
    "pair": ["2S", "2H", "9D", "7C", "5S"],
    "two_pair": ["9S", "9H", "5D", "5C", "2S"],
    "three_of_a_kind": ["7S", "7H", "7D", "QC", "2S"],
    "straight": ["4S", "5H", "6D", "7C", "8S"],
    "flush": ["2S", "5S", "9S", "JS", "QS"],
    "full_house": ["TS", "TH", "TC", "4D", "4S"],
    "four_of_a_kind": ["QS", "QH", "QD", "QC", "5S"],
    "straight_flush": ["5H", "6H", "7H", "8H", "9H"],
    "royal_flush": ["TS", "JS", "QS", "KS", "AS"],
}


def deal(game, player, dealer, decisions=None):
    """The deal order: the player's five, the dealer's up card, [the decision's cards], the dealer's four."""
    item = {"cards": player[:5] + dealer[:1] + player[5:] + dealer[1:]}
    if decisions is not None:
        item["decisions"] = decisions
    return game.evaluate(item)


KEEP = [{"seat": "player", "action": "keep"}]


def test_registered_games():
    assert {gid: type(GAMES[gid]) for gid in dp.GAMES} == {
        "five_card_poker": dp.FiveCardPoker,
        "five_card_poker_exchange": dp.FiveCardPokerExchange,
        "six_card_poker": dp.SixCardPoker,
        "joker_poker": dp.JokerPoker,
    }
    assert [GAMES[g].has_decisions for g in dp.GAMES] == [False, True, True, True]
    assert all(
        GAMES[g].common_hand and GAMES[g].reshuffle_each_round and GAMES[g].decks == 1 for g in dp.GAMES
    )
    assert JOKER.shoe_spec().size == 53 and FIVE.shoe_spec().size == 52


@pytest.mark.parametrize(
    "game,table,decisions",
    [
        (
            FIVE,
            {
                "high_card": 2,
                "pair": 2,
                "two_pair": 3,
                "three_of_a_kind": 4,
                "straight": 5,
                "flush": 6,
                "full_house": 8,
                "four_of_a_kind": 30,
                "straight_flush": 75,
                "royal_flush": 125,
            },
            None,
        ),
        (
            EXCHANGE,
            {
                "high_card": 1,
                "pair": 1,
                "two_pair": 2,
                "three_of_a_kind": 3,
                "straight": 4,
                "flush": 5,
                "full_house": 7,
                "four_of_a_kind": 20,
                "straight_flush": 50,
                "royal_flush": 100,
            },
            KEEP,
        ),
        (
            SIX,
            {
                "high_card": 1,
                "pair": 1,
                "two_pair": 2,
                "three_of_a_kind": 3,
                "straight": 4,
                "flush": 5,
                "full_house": 7,
                "four_of_a_kind": 20,
                "straight_flush": 50,
                "royal_flush": 100,
            },
            KEEP,
        ),
    ],
)
def test_every_raise_payout(game, table, decisions):
    """Seed 000 L322-331, L378-387, L430-439: a player beating a qualifying dealer wins the ante 1:1 and the
    raise by the table."""
    for hand, odds in table.items():
        out = deal(game, PLAYER[hand], DEALER_AK, decisions)
        assert out["result"]["player_hand"] == hand and out["result"]["winner"] == "player"
        assert out["result"]["dealer_qualifies"] is True
        assert out["outcome"]["winning_bets"][:2] == [
            {"bet": "ante", "payout": 1},
            {"bet": "raise", "payout": odds, "hand": hand},
        ]
        assert out["outcome"]["pushed_bets"] == []


def test_every_joker_poker_payout():
    table = {
        "pair": 1,
        "two_pair": 2,
        "three_of_a_kind": 3,
        "straight": 4,
        "flush": 5,
        "full_house": 7,
        "four_of_a_kind": 15,
        "straight_flush": 35,
        "royal_flush": 75,
        "four_of_a_kind_and_joker": 150,
    }
    dealer_pair = ["2D", "2C", "JD", "8C", "3H"]  # the lowest qualifying hand (L485: one pair)
    hands = {
        **PLAYER,
        "pair": ["3S", "3D", "9D", "7C", "5S"],
        "four_of_a_kind_and_joker": ["KS", "KH", "KD", "KC", "JK"],
    }
    for hand, odds in table.items():
        out = deal(JOKER, hands[hand], dealer_pair, KEEP)
        assert out["result"]["player_hand"] == hand
        assert out["outcome"]["winning_bets"][:2] == [
            {"bet": "ante", "payout": 1},
            {"bet": "raise", "payout": odds, "hand": hand},
        ]
    # with a joker: a wild royal flush pays as a royal flush
    out = deal(JOKER, ["TS", "JS", "QS", "KS", "BJ"], dealer_pair, KEEP)
    assert out["outcome"]["winning_bets"][1] == {"bet": "raise", "payout": 75, "hand": "royal_flush"}


@pytest.mark.parametrize("game,decisions", [(FIVE, None), (EXCHANGE, KEEP), (SIX, KEEP)])
def test_dealer_does_not_qualify_tie_and_loss(game, decisions):
    # ace-queen high does not qualify: ante 1:1, raise returned, whatever the player has (L318)
    out = deal(game, ["2S", "3H", "5D", "8C", "9S"], ["AD", "QC", "JD", "8H", "3C"], decisions)
    assert out["result"]["dealer_qualifies"] is False and out["result"]["winner"] == "dealer"
    assert out["outcome"] == {
        "winning_bets": [{"bet": "ante", "payout": 1}],
        "pushed_bets": [{"bet": "raise", "returned": 1}],
    }
    # every card of equal value: ante and raise returned (L320)
    out = deal(game, ["AS", "KH", "JS", "8D", "3S"], DEALER_AK, decisions)
    assert out["result"]["winner"] == "tie"
    assert out["outcome"] == {
        "winning_bets": [],
        "pushed_bets": [{"bet": "ante", "returned": 1}, {"bet": "raise", "returned": 1}],
    }
    # the kicker decides: A-K-J-8-4 beats A-K-J-8-3 (L320 "the highest cards out of combination")
    out = deal(game, ["AS", "KH", "JS", "8D", "4S"], DEALER_AK, decisions)
    assert out["result"]["winner"] == "player"
    out = deal(game, ["AS", "KH", "JS", "8D", "2S"], DEALER_AK, decisions)
    assert out["result"]["winner"] == "dealer"
    assert out["outcome"] == {"winning_bets": [], "pushed_bets": []}


def test_joker_poker_qualification_and_the_natural_hand():
    # ace-king high does not qualify in poker with joker (a pair needed)
    out = deal(JOKER, ["2S", "3H", "5D", "8C", "9S"], ["AD", "KC", "JD", "8H", "3C"], KEEP)
    assert out["result"]["dealer_qualifies"] is False
    assert out["outcome"]["pushed_bets"] == [{"bet": "raise", "returned": 1}]
    # equal hands: the natural one wins (L475), both ways
    out = deal(JOKER, ["AS", "KS", "QS", "JS", "JK"], ["AH", "KH", "QH", "JH", "TH"], KEEP)
    assert out["result"]["winner"] == "dealer"
    assert out["outcome"] == {"winning_bets": [{"bet": "bonus", "hand": "royal_flush"}], "pushed_bets": []}
    out = deal(JOKER, ["AH", "KH", "QH", "JH", "TH"], ["AS", "JK", "QS", "JS", "KS"], KEEP)
    assert out["result"]["winner"] == "player" and out["result"]["dealer_hand"] == "royal_flush"


def test_bonus():
    out = deal(FIVE, PLAYER["flush"], DEALER_AK)
    assert {"bet": "bonus", "hand": "flush"} in out["outcome"]["winning_bets"]
    out = deal(FIVE, PLAYER["straight"], DEALER_AK)
    assert all(b["bet"] != "bonus" for b in out["outcome"]["winning_bets"])
    # the bonus wins whatever the dealer has (L401): a flush losing to a full house
    out = deal(EXCHANGE, PLAYER["flush"], ["AD", "AC", "AH", "8C", "8H"], KEEP)
    assert out["outcome"]["winning_bets"] == [{"bet": "bonus", "hand": "flush"}]
    # an exchange loses the bonus (L401, L515)
    out = deal(
        EXCHANGE,
        PLAYER["flush"][:4] + ["3D", "KS"],
        DEALER_AK,
        [{"seat": "player", "action": "discard", "cards": ["3D"]}],
    )
    assert out["result"]["player_hand"] == "flush"
    assert all(b["bet"] != "bonus" for b in out["outcome"]["winning_bets"])
    # 6-card poker: judged on the five dealt; buying does not lose it
    out = deal(SIX, PLAYER["flush"] + ["QD"], DEALER_AK, [{"seat": "player", "action": "buy"}])
    assert {"bet": "bonus", "hand": "flush"} in out["outcome"]["winning_bets"]
    # operator odds
    game = dp.FiveCardPoker(
        bonus_odds={
            "flush": 5,
            "full_house": 10,
            "four_of_a_kind": 50,
            "straight_flush": 100,
            "royal_flush": "1000",
        }
    )
    out = deal(game, PLAYER["full_house"], DEALER_AK)
    assert out["outcome"]["winning_bets"][-1] == {"bet": "bonus", "payout": 10, "hand": "full_house"}
    with pytest.raises(ValueError, match="not bonus hands"):
        dp.FiveCardPoker(bonus_odds={"pair": 1})
    with pytest.raises(ValueError, match="needs odds"):
        dp.FiveCardPoker(bonus_odds={"flush": 5})
    out = deal(JOKER, ["KS", "KH", "KD", "KC", "JK"], ["AD", "QC", "JD", "8C", "3H"], KEEP)
    assert {"bet": "bonus", "hand": "four_of_a_kind_and_joker"} in out["outcome"]["winning_bets"]


def test_exchange_deal_and_result():
    cards = ["AS", "KS", "QS", "JS", "2C", "3D", "TS", "4H", "4C", "9D", "8S"]
    out = EXCHANGE.evaluate(
        {"cards": cards, "decisions": [{"seat": "player", "action": "discard", "cards": ["2C"]}]}
    )
    r = out["result"]
    assert r["player_cards"] == ["AS", "KS", "QS", "JS", "TS"]
    assert r["dealt_player_cards"] == cards[:5] and r["dealt_player_hand"] == "high_card"
    assert (r["discards"], r["draws"]) == (["2C"], ["TS"])
    assert r["dealer_cards"] == ["3D", "4H", "4C", "9D", "8S"] and r["dealer_up_card"] == "3D"
    assert r["decisions"] == [
        {
            "window": "player/hand_1/exchange",
            "seat": "player",
            "hand": 1,
            "action": "discard",
            "cards": ["2C"],
            "by": "backend",
        }
    ]
    assert out["outcome"]["winning_bets"][1] == {"bet": "raise", "payout": 100, "hand": "royal_flush"}
    # round trips: the result re-validates to itself, from the result or from cards + decisions
    assert EXCHANGE.validate_result(r) == r
    assert EXCHANGE.validate_result({"cards": cards, "decisions": r["decisions"]}) == r
    json.dumps(out)  # plain JSON, no floats
    with pytest.raises(ValueError, match="player_hand"):
        EXCHANGE.validate_result({**r, "player_hand": "flush"})


def test_six_card_deal():
    cards = ["AS", "AH", "5D", "6C", "2S", "3D", "AD", "4H", "4C", "9D", "8S"]
    r = SIX.evaluate({"cards": cards, "decisions": [{"seat": "player", "action": "buy"}]})["result"]
    assert r["player_cards"] == ["AS", "AH", "5D", "6C", "2S", "AD"] and r["bought_card"] == "AD"
    assert r["player_hand"] == "three_of_a_kind" and set(r["player_best_cards"]) == {
        "AS",
        "AH",
        "AD",
        "6C",
        "5D",
    }
    r = SIX.evaluate({"cards": cards[:6] + cards[7:], "decisions": KEEP})["result"]
    assert r["bought_card"] is None and len(r["player_cards"]) == 5
    assert SIX.validate_result(r) == r


def test_next_step_and_windows():
    cards = ["AS", "KS", "QS", "JS", "2C"]
    assert [EXCHANGE.next_step(cards[:i], []) for i in range(5)] == [f"player_{i}" for i in range(1, 6)]
    assert EXCHANGE.next_step(cards, []) == "dealer_1"
    (ask,) = EXCHANGE.next_step(cards + ["3D"], [])
    assert (ask.window, ask.seat, ask.hand, ask.allowed, ask.default) == (
        "player/hand_1/exchange",
        "player",
        1,
        ("discard", "keep"),
        "keep",
    )
    assert ask.detail == {
        "player_cards": cards,
        "dealer_up_card": "3D",
        "player_hand": "high_card",
        "max_discards": 1,
    }
    (ask,) = SIX.next_step(cards + ["3D"], [])
    assert (ask.window, ask.allowed, ask.default) == ("player/hand_1/buy", ("buy", "keep"), "keep")
    d = EXCHANGE.check_decision(cards + ["3D"], [], {"seat": "player", "action": "discard", "cards": ["2C"]})
    assert EXCHANGE.next_step(cards + ["3D"], [d]) == "draw_1"
    assert EXCHANGE.next_step(cards + ["3D", "TS"], [d]) == "dealer_2"
    k = EXCHANGE.check_decision(cards + ["3D"], [], {"seat": "player", "action": "keep", "by": "default"})
    assert k == {
        "window": "player/hand_1/exchange",
        "seat": "player",
        "hand": 1,
        "action": "keep",
        "cards": [],
        "by": "default",
    }
    assert EXCHANGE.next_step(cards + ["3D"], [k]) == "dealer_2"
    assert EXCHANGE.next_step(cards + ["3D", "4H", "4C", "9D", "8S"], [k]) is None
    assert [FIVE.next_position(["AS"] * i) for i in (5, 6, 9, 10)] == [
        "dealer_1",
        "dealer_2",
        "dealer_5",
        None,
    ]
    assert EXCHANGE.position_label("draw_1") == "the player's replacement card (draw 1)"
    with pytest.raises(TypeError):
        EXCHANGE.next_position(cards)
    # a larger exchange where the operator allows it
    game = dp.FiveCardPokerExchange(max_discards=3)
    d = game.check_decision(
        cards + ["3D"], [], {"seat": "player", "action": "discard", "cards": ["2C", "JS"]}
    )
    assert [game.next_step(cards + ["3D"] + ["9H"] * i, [d]) for i in range(3)] == [
        "draw_1",
        "draw_2",
        "dealer_2",
    ]
    r = game.result_from_play(cards + ["3D", "TS", "9H", "4H", "4C", "9D", "8S"], [d])
    assert r["player_cards"] == ["AS", "KS", "QS", "9H", "TS"] and r["draws"] == ["TS", "9H"]


CARDS6 = ["AS", "KS", "QS", "JS", "2C", "3D"]


@pytest.mark.parametrize(
    "cards,decisions,decision,code",
    [
        (CARDS6, [], {"seat": "player", "action": "discard", "cards": ["5H"]}, "bad_cards"),
        (
            CARDS6,
            [],
            {"seat": "player", "action": "discard", "cards": ["3D"]},
            "bad_cards",
        ),  # the dealer's card
        (CARDS6, [], {"seat": "player", "action": "discard", "cards": ["2C", "JS"]}, "bad_cards"),  # too many
        (CARDS6, [], {"seat": "player", "action": "discard", "cards": ["2C", "2C"]}, "bad_cards"),
        (CARDS6, [], {"seat": "player", "action": "discard"}, "bad_cards"),
        (CARDS6, [], {"seat": "player", "action": "keep", "cards": ["2C"]}, "bad_cards"),
        (CARDS6, [], {"seat": "player", "action": "buy"}, "not_allowed"),
        (CARDS6, [], {"seat": "player", "action": "hit"}, "not_allowed"),
        (CARDS6, [], {"seat": "player", "action": "sit"}, "not_allowed"),
        (CARDS6, [], {"seat": "seat_1", "action": "keep"}, "seat_not_in_play"),
        (CARDS6, [], {"seat": "player", "hand": 2, "action": "keep"}, "hand_not_in_play"),
        (CARDS6, [], {"seat": "player", "action": "keep", "window": "player/hand_1/buy"}, "window_closed"),
        (CARDS6[:5], [], {"seat": "player", "action": "keep"}, "not_your_turn"),
        ([], [], {"seat": "player", "action": "keep"}, "betting_open"),
        (
            CARDS6,
            [
                {
                    "window": "player/hand_1/exchange",
                    "seat": "player",
                    "hand": 1,
                    "action": "keep",
                    "cards": [],
                    "by": "default",
                }
            ],
            {"seat": "player", "action": "keep", "window": "player/hand_1/exchange"},
            "window_closed",
        ),
        (
            CARDS6,
            [
                {
                    "window": "player/hand_1/exchange",
                    "seat": "player",
                    "hand": 1,
                    "action": "keep",
                    "cards": [],
                    "by": "default",
                }
            ],
            {"seat": "player", "action": "discard", "cards": ["2C"]},
            "window_closed",
        ),
        (
            CARDS6 + ["4H", "4C", "9D", "8S"],
            [
                {
                    "window": "player/hand_1/exchange",
                    "seat": "player",
                    "hand": 1,
                    "action": "keep",
                    "cards": [],
                    "by": "backend",
                }
            ],
            {"seat": "player", "action": "keep"},
            "round_over",
        ),
    ],
)
def test_exchange_refusals(cards, decisions, decision, code):
    with pytest.raises(DecisionError) as err:
        EXCHANGE.check_decision(cards, decisions, decision)
    assert err.value.code == code


def test_refusals_in_other_games():
    with pytest.raises(DecisionError) as err:
        FIVE.check_decision(CARDS6, [], {"seat": "player", "action": "keep"})
    assert err.value.code == "not_allowed"
    with pytest.raises(DecisionError) as err:
        SIX.check_decision(CARDS6, [], {"seat": "player", "action": "discard", "cards": ["2C"]})
    assert err.value.code == "not_allowed" and "buy, keep" in err.value.message
    with pytest.raises(DecisionError) as err:
        SIX.check_decision(CARDS6, [], {"seat": "player", "action": "buy", "cards": ["2C"]})
    assert err.value.code == "bad_cards"


@pytest.mark.parametrize(
    "game,item,message",
    [
        (FIVE, {"cards": PLAYER["pair"] + DEALER_AK[:4]}, "too few cards"),
        (FIVE, {"cards": PLAYER["pair"] + DEALER_AK + ["9H"]}, "not used by the rules"),
        (FIVE, {"cards": PLAYER["pair"][:4] + ["JK"] + DEALER_AK}, "not a card of five_card_poker"),
        (FIVE, {"cards": PLAYER["pair"][:4] + ["2S"] + DEALER_AK}, "holds only 1"),
        (FIVE, {"cards": PLAYER["pair"] + DEALER_AK, "decisions": KEEP}, None),
        (EXCHANGE, {"cards": PLAYER["pair"] + DEALER_AK}, "too few decisions"),
        (EXCHANGE, {"cards": PLAYER["pair"] + DEALER_AK, "decisions": KEEP + KEEP}, "not used by the rules"),
        (
            EXCHANGE,
            {
                "cards": PLAYER["pair"] + DEALER_AK,
                "decisions": [{"seat": "player", "action": "discard", "cards": ["AH"]}],
            },
            r"refused \[bad_cards\]",
        ),
        (
            EXCHANGE,
            {
                "cards": PLAYER["pair"] + DEALER_AK,
                "decisions": [{"seat": "player", "action": "discard", "cards": ["5S"]}],
            },
            r"too few cards \(10\): the next card is the dealer's 5th card",
        ),
        (
            EXCHANGE,
            {
                "cards": PLAYER["pair"] + DEALER_AK[:1] + ["5S"] + DEALER_AK[1:],
                "decisions": [{"seat": "player", "action": "discard", "cards": ["5S"]}],
            },
            "holds only 1",
        ),  # the discard came back
        (
            JOKER,
            {"cards": ["JK", "2S", "3S", "4S", "RJ"] + DEALER_AK, "decisions": KEEP},
            "jokers were drawn",
        ),
        (
            EXCHANGE,
            {"cards": PLAYER["pair"] + DEALER_AK, "decisions": [{"action": "keep"}]},
            "needs a 'seat'",
        ),
    ],
)
def test_evaluate_refusals(game, item, message):
    if message is None:  # a game without decisions ignores none: decisions are simply not read
        game.evaluate(item)
        return
    with pytest.raises(ValueError, match=message):
        game.evaluate(item)


def test_evaluate_round_trips_for_every_game():
    for game, decisions, extra in (
        (FIVE, None, []),
        (EXCHANGE, [{"seat": "player", "action": "discard", "cards": ["5S"]}], ["AH"]),
        (SIX, [{"seat": "player", "action": "buy"}], ["AH"]),
        (JOKER, [{"seat": "player", "action": "discard", "cards": ["9D"]}], ["JK"]),
    ):
        cards = PLAYER["pair"][:5] + DEALER_AK[:1] + extra + DEALER_AK[1:]
        item = {"id": "r1", "cards": cards}
        if decisions is not None:
            item["decisions"] = decisions
        out = game.evaluate({k: v for k, v in item.items() if k != "id"})
        assert game.validate_result(out["result"]) == out["result"]
        assert game.outcome(game.validate_result(out["result"])) == out["outcome"]
        assert json.loads(json.dumps(out)) == out
        assert out["result"]["cards"] == cards
