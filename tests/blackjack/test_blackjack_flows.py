"""Hand-checked rounds of every game through `evaluate` (cards + decisions), the refusals, and round trips."""

from __future__ import annotations

import random

import pytest

from recognition.blackjack.games import GAMES, LIGHTNING_KINDS
from recognition.cards.base import DecisionError


def ev(game_id, cards, decisions, seats=None, extras=None):
    item = {"cards": cards, "decisions": decisions}
    if seats is not None:
        item["seats"] = seats
    if extras is not None:
        item["extras"] = extras
    out = GAMES[game_id].evaluate(item)
    # round trip: the result validates to itself, and re-evaluates to the same outcome
    assert GAMES[game_id].validate_result(out["result"]) == out["result"]
    again = GAMES[game_id].evaluate(
        {
            "cards": out["result"]["cards"],
            "decisions": out["result"]["decisions"],
            **({"extras": extras} if extras is not None else {}),
        }
    )
    assert again == out
    return out["result"], out["outcome"]


def wins(outcome):
    return {w["bet"]: w["payout"] for w in outcome["winning_bets"]}


def pushes(outcome):
    return {p["bet"]: p["returned"] for p in outcome["pushed_bets"]}


def d(seat, action, hand=1):
    return {"seat": seat, "hand": hand, "action": action}


def test_live_blackjack_split_hit_stand_and_dealer_bust():
    cards = ["8H", "TS", "6D", "8S", "7C", "TD", "3C", "2H", "9D", "KD", "QH"]
    decisions = [
        d("seat_1", "split"),
        d("seat_1", "hit"),
        d("seat_1", "stand"),
        d("seat_1", "hit", 2),
        d("seat_1", "stand", 2),
        d("seat_2", "stand"),
    ]
    result, outcome = ev("live_blackjack", cards, decisions, seats=["seat_2", "seat_1"])
    s1 = result["seats"][0]
    assert s1["seat"] == "seat_1" and s1["first_cards"] == ["8H", "8S"]
    assert [h["cards"] for h in s1["hands"]] == [["8H", "3C", "9D"], ["8S", "2H", "KD"]]
    assert all(h["split"] for h in s1["hands"])
    assert result["dealer"] == {
        "cards": ["6D", "TD", "QH"],
        "up_card": "6D",
        "total": 26,
        "soft": False,
        "blackjack": False,
        "bust": True,
        "peeked_blackjack": False,
    }
    assert [x["window"] for x in result["decisions"][2:]] == [
        "seat_1/hand_1/1",
        "seat_1/hand_1/2",
        "seat_1/hand_1/3",
        "seat_1/hand_2/1",
        "seat_1/hand_2/2",
        "seat_2/hand_1/1",
    ]
    w = wins(outcome)
    assert w["seat_1/hand_1/main"] == 1 and w["seat_1/hand_2/main"] == 1 and w["seat_2/hand_1/main"] == 1
    assert w["seat_1/perfect_pairs"] == 6  # 8H 8S: a mixed pair (000:L240)
    assert "seat_2/perfect_pairs" not in w


def test_live_blackjack_no_double_after_split_and_one_split_only():
    g = GAMES["live_blackjack"]
    cards = ["8H", "6D", "8S", "TD", "8C", "3C"]
    decs = [d("seat_1", "sit"), {**d("seat_1", "split"), "window": "seat_1/hand_1/1"}]
    step = g.next_step(
        cards[:4], [{**x, "window": x.get("window"), "cards": [], "by": "backend"} for x in decs[:1]]
    )
    assert step[0].allowed == ("stand", "hit", "double", "split")
    accepted = [g.check_decision([], [], decs[0])]
    accepted.append(g.check_decision(cards[:4], accepted, decs[1]))
    step = g.next_step(cards, accepted)
    # hand 1 is 8H 8C: a pair again, but only one split (004:L125) and no double after split (004:L123)
    assert step[0].window == "seat_1/hand_1/2" and step[0].allowed == ("stand", "hit")


def test_seed_000_surrender_double_and_late_dealer_blackjack():
    cards = ["TH", "5C", "TD", "6S", "6H", "9C", "AH"]
    decisions = [d("seat_2", "surrender"), d("seat_5", "double")]
    result, outcome = ev("blackjack", cards, decisions, seats=["seat_2", "seat_5"])
    h5 = result["seats"][1]["hands"][0]
    assert h5["stake"] == 2 and h5["doubled"] == "double" and h5["cards"] == ["5C", "6H", "9C"]
    assert result["dealer"]["blackjack"] and not result["dealer"]["peeked_blackjack"]
    assert pushes(outcome)["seat_2/hand_1/main"] == "1/2"
    assert "seat_5/hand_1/main" not in wins(outcome) and "seat_5/hand_1/main" not in pushes(outcome)
    assert wins(outcome)["seat_5/lucky_lucky"] == 3  # 5 6 T = any 21 (000:L270)
    # the late blackjack setting "original": the doubled half comes back
    from dataclasses import replace

    from recognition.blackjack.games import Blackjack000

    g = Blackjack000(replace(GAMES["blackjack"].rules, late_blackjack="original"))
    out = g.evaluate({"cards": cards, "decisions": decisions, "seats": ["seat_2", "seat_5"]})["outcome"]
    assert pushes(out)["seat_5/hand_1/main"] == "1/2"


def test_seed_000_even_money_insurance_and_blackjack_payouts():
    cards = ["TH", "AS", "AD", "6C", "KS", "5H", "TD"]
    decisions = [d("seat_1", "insurance"), d("seat_3", "even_money"), d("seat_1", "hit")]
    _result, outcome = ev("blackjack", cards, decisions, seats=["seat_1", "seat_3"])
    w = wins(outcome)
    assert w["seat_1/insurance"] == 2
    assert w["seat_3/hand_1/main"] == 1
    assert "seat_1/hand_1/main" not in w  # 21 in three cards loses to the dealer's blackjack
    # without even money a blackjack pays 3/2, or pushes against a dealer blackjack
    cards2 = ["TH", "AS", "AD", "6C", "KS", "5H", "9D"]
    decisions2 = [d("seat_1", "no_insurance"), d("seat_3", "no_insurance"), d("seat_1", "hit")]
    _, out2 = ev("blackjack", cards2, decisions2, seats=["seat_1", "seat_3"])
    assert wins(out2)["seat_3/hand_1/main"] == "3/2"
    assert wins(out2)["seat_1/hand_1/main"] == 1  # 21 against 20
    _, out3 = ev(
        "blackjack",
        cards,
        [d("seat_1", "no_insurance"), d("seat_3", "no_insurance"), d("seat_1", "hit")],
        seats=["seat_1", "seat_3"],
    )
    assert pushes(out3)["seat_3/hand_1/main"] == 1


def test_split_aces_one_card_each_and_21_after_split_is_not_blackjack():
    cards = ["AH", "7D", "AC", "KS", "9H", "TC"]
    result, _outcome = ev("blackjack", cards, [d("seat_1", "split")], seats=["seat_1"])
    hands = result["seats"][0]["hands"]
    assert [h["cards"] for h in hands] == [["AH", "KS"], ["AC", "9H"]]
    assert hands[0]["total"] == 21 and not hands[0]["blackjack"] and hands[0]["split_aces"]
    # dealer 7D then draws: the replay asked for the dealer's cards after the split aces (no decisions)
    assert result["dealer"]["cards"] == ["7D", "TC"]


def test_seed_000_resplit_to_four_hands():
    # 8s keep coming: split three times (max 4 hands), the fourth pair cannot be split
    cards = ["8H", "6D", "8S", "8C", "8D", "8H", "2C", "3C", "4C", "5C", "TC"]
    decisions = [
        d("seat_1", "split"),
        d("seat_1", "split"),
        d("seat_1", "split"),
        d("seat_1", "stand"),
        d("seat_1", "stand", 4),
        d("seat_1", "stand", 3),
        d("seat_1", "stand", 2),
    ]
    result, _ = ev("blackjack", cards, decisions, seats=["seat_1"])
    hands = result["seats"][0]["hands"]
    # a hand split again puts its new hand right beside it: play order 1, 4, 3, 2
    assert len(hands) == 4 and [h["hand"] for h in hands] == [1, 4, 3, 2]
    assert [h["cards"] for h in hands] == [["8H", "3C"], ["8H", "4C"], ["8C", "2C"], ["8S", "8D"]]
    with pytest.raises(ValueError, match="not_allowed"):
        GAMES["blackjack"].evaluate(
            {
                "cards": cards,
                "seats": ["seat_1"],
                "decisions": [
                    d("seat_1", "split"),
                    d("seat_1", "split"),
                    d("seat_1", "split"),
                    d("seat_1", "split"),
                ],
            }
        )


def test_power_blackjack_peek_on_a_face_card_and_triple_down():
    result, outcome = ev("power_blackjack", ["5H", "KD", "6C", "AS"], [], seats=["seat_1"])
    assert result["dealer"]["peeked_blackjack"] and outcome["winning_bets"] == []
    cards = ["5H", "7D", "6C", "8S", "JH", "2C"]
    result, outcome = ev("power_blackjack", cards, [d("seat_1", "triple")], seats=["seat_1"])
    assert result["seats"][0]["hands"][0]["stake"] == 3
    assert wins(outcome)["seat_1/hand_1/main"] == 1
    with pytest.raises(ValueError, match="not a card of power_blackjack"):
        GAMES["power_blackjack"].evaluate({"cards": ["9H"], "seats": ["seat_1"], "decisions": []})
    with pytest.raises(ValueError, match="not a card of power_blackjack"):
        GAMES["power_blackjack"].evaluate({"cards": ["TH"], "seats": ["seat_1"], "decisions": []})


def test_free_bet_free_double_free_split_dealer_22_and_charlie():
    # free double on hard 9, dealer 18
    cards = ["5H", "6D", "4C", "TD", "QS", "2S"]
    result, outcome = ev("free_bet_blackjack", cards, [d("seat_1", "free_double")], seats=["seat_1"])
    h = result["seats"][0]["hands"][0]
    assert h["stake"] == 1 and h["free_bet"] == "double"
    # 5H 4C + the dealer's 6D: a 21+3 straight (000:L248 table)
    assert wins(outcome) == {
        "seat_1/hand_1/main": 1,
        "seat_1/hand_1/free_bet": 1,
        "seat_1/twenty_one_plus_three": 10,
    }
    # dealer 22 pushes the hand; the free bet gets nothing
    cards22 = cards[:-1] + ["6S"]
    _, out22 = ev("free_bet_blackjack", cards22, [d("seat_1", "free_double")], seats=["seat_1"])
    assert wins(out22) == {"seat_1/twenty_one_plus_three": 10} and pushes(out22) == {"seat_1/hand_1/main": 1}
    # free split of 8s: the second hand carries only the free bet
    cards = ["8H", "7D", "8C", "TS", "3C", "2H", "9H", "KH"]
    result, outcome = ev(
        "free_bet_blackjack",
        cards,
        [
            d("seat_1", "free_split"),
            d("seat_1", "hit"),
            d("seat_1", "stand"),
            d("seat_1", "hit", 2),
            d("seat_1", "stand", 2),
        ],
        seats=["seat_1"],
    )
    assert [h["stake"] for h in result["seats"][0]["hands"]] == [1, 0]
    assert wins(outcome) == {"seat_1/hand_1/main": 1, "seat_1/hand_2/free_bet": 1}
    # tens split for a paid bet only
    g = GAMES["free_bet_blackjack"]
    acc = [g.check_decision([], [], d("seat_1", "sit"))]
    step = g.next_step(["TH", "7D", "KC", "TS"], acc)
    assert "split" in step[0].allowed and "free_split" not in step[0].allowed
    # six card charlie wins on 16 against 17
    cards = ["2H", "TD", "3C", "7S", "2D", "2C", "3D", "4H"]
    result, outcome = ev("free_bet_blackjack", cards, [d("seat_1", "hit")] * 4, seats=["seat_1"])
    assert result["seats"][0]["hands"][0]["charlie"] and wins(outcome)["seat_1/hand_1/main"] == 1


def test_infinite_blackjack_common_hand_and_player_hands():
    cards = ["8H", "6D", "8C", "TS", "3C", "9D", "KD", "QH"]
    decisions = [d("common", "hit"), d("common", "hit"), d("common", "hit"), d("common", "stand")]
    result, outcome = ev("infinite_blackjack", cards, decisions)
    assert result["common"]["cards"] == ["8H", "8C", "3C", "9D", "KD"]
    assert result["dealer"]["cards"] == ["6D", "TS", "QH"]
    fates = outcome["hand_fates"]
    assert fates["19"] == {"result": "win", "payout": 1} and fates["bust"] == {"result": "loss"}
    assert fates["blackjack"] == {"result": "win", "payout": "3/2"}
    g = GAMES["infinite_blackjack"]
    hands = g.player_hands(result, ["split", "hit", "stand", "stand"])
    assert [h["cards"] for h in hands] == [["8H", "3C", "9D"], ["8C", "KD"]]
    assert [h["cards"] for h in g.player_hands(result, ["hit", "stand"])] == [["8H", "8C", "3C"]]
    assert g.player_hands(result, ["double"])[0]["stake"] == 2
    with pytest.raises(ValueError):
        g.player_hands(result, ["hit", "hit", "hit", "hit"])
    # the common hand takes no "sit"
    with pytest.raises(DecisionError) as e:
        g.check_decision([], [], d("common", "sit"))
    assert e.value.code == "not_allowed"


def test_lightning_draw_and_multiplied_wins():
    g = GAMES["lightning_blackjack"]
    extras = g.draw_extras(random.Random(7))
    assert set(extras["multipliers"]) == set(LIGHTNING_KINDS)
    assert all(m in (2, 3, 4, 5, 8) for m in extras["multipliers"].values())
    few = g.draw_extras(random.Random(1), multiplier_kinds_min=1, multiplier_kinds_max=2)
    assert 1 <= len(few["multipliers"]) <= 2
    cards = ["TH", "7D", "TC", "TS"]
    extras = {"multipliers": {"20": 5}}
    _, outcome = ev("lightning_blackjack", cards, [d("seat_1", "stand")], seats=["seat_1"], extras=extras)
    assert outcome["winning_bets"] == [{"bet": "seat_1/hand_1/main", "payout": 1, "multiplier": 5}]
    with pytest.raises(ValueError, match="multipliers"):
        g.evaluate({"cards": cards, "seats": ["seat_1"], "decisions": [d("seat_1", "stand")]})


def test_seed_003_insurance_on_a_ten_decks_setting():
    cards = ["TH", "KD", "9C", "AS"]
    _result, outcome = ev(
        "blackjack_003", cards, [d("seat_1", "insurance"), d("seat_1", "stand")], seats=["seat_1"]
    )
    assert wins(outcome) == {"seat_1/insurance": 2}
    cards = ["AH", "TD", "KC", "7S"]
    _, outcome = ev("blackjack_003", cards, [d("seat_1", "even_money")], seats=["seat_1"])
    assert outcome["winning_bets"] == [{"bet": "seat_1/hand_1/main", "payout": 1, "even_money": True}]
    g = GAMES["blackjack_003"]
    for n in (1, 4, 5, 6):
        assert g.new_judge(decks=n).spec.size == 52 * n
    with pytest.raises(ValueError):
        g.new_judge(decks=8)
    with pytest.raises(ValueError):
        GAMES["live_blackjack"].new_judge(decks=6)


@pytest.fixture
def mid_round():
    """live_blackjack: seats 1 and 3; seat 1 (TH 6C) decides first against a 9."""
    g = GAMES["live_blackjack"]
    acc = [g.check_decision([], [], d("seat_1", "sit"))]
    acc.append(g.check_decision([], acc, d("seat_3", "sit")))
    cards = ["TH", "5S", "9D", "6C", "5H", "7C"]
    return g, cards, acc


@pytest.mark.parametrize(
    "decision,code",
    [
        (d("seat_2", "hit"), "seat_not_in_play"),
        (d("seat_1", "hit", 2), "hand_not_in_play"),
        (d("seat_3", "hit"), "not_your_turn"),
        ({**d("seat_1", "hit"), "window": "seat_1/hand_1/7"}, "window_closed"),
        (d("seat_1", "split"), "not_allowed"),
        (d("seat_1", "surrender"), "not_allowed"),
        (d("seat_1", "insurance"), "not_allowed"),
        (d("seat_4", "sit"), "betting_closed"),
    ],
)
def test_refusal_codes(mid_round, decision, code):
    g, cards, acc = mid_round
    with pytest.raises(DecisionError) as e:
        g.check_decision(cards, acc, decision)
    assert e.value.code == code, e.value.message


def test_second_answer_and_round_over(mid_round):
    g, cards, acc = mid_round
    first = g.check_decision(cards, acc, d("seat_1", "stand"))
    acc = acc + [first]
    with pytest.raises(DecisionError) as e:
        g.check_decision(cards, acc, {**d("seat_1", "stand"), "window": first["window"]})
    assert e.value.code == "window_closed"
    acc.append(g.check_decision(cards, acc, d("seat_3", "stand")))
    done = cards + ["TD"]  # dealer 9 7 -> 16, draws TD: 26
    assert g.next_step(done, acc) is None
    with pytest.raises(DecisionError) as e:
        g.check_decision(done, acc, d("seat_3", "hit"))
    assert e.value.code == "round_over"


def test_sit_rules():
    g = GAMES["blackjack"]
    acc = [g.check_decision([], [], d("seat_2", "sit"))]
    for dec, code in ((d("seat_2", "sit"), "not_allowed"), (d("seat_9", "sit"), "seat_not_in_play")):
        with pytest.raises(DecisionError) as e:
            g.check_decision([], acc, dec)
        assert e.value.code == code


def test_evaluate_refuses_bad_rounds():
    g = GAMES["live_blackjack"]
    with pytest.raises(ValueError, match="too few decisions"):
        g.evaluate({"cards": ["TH", "9D", "6C", "7C"], "seats": ["seat_1"], "decisions": []})
    with pytest.raises(ValueError, match="too few cards"):
        g.evaluate(
            {"cards": ["TH", "9D", "6C", "7C"], "seats": ["seat_1"], "decisions": [d("seat_1", "hit")]}
        )
    with pytest.raises(ValueError, match="not used by the rules"):
        g.evaluate(
            {
                "cards": ["TH", "9D", "9C", "8C", "2S"],
                "seats": ["seat_1"],
                "decisions": [d("seat_1", "stand")],
            }
        )
    with pytest.raises(ValueError, match="not_allowed"):
        g.evaluate(
            {"cards": ["TH", "9D", "9C", "7C"], "seats": ["seat_1"], "decisions": [d("seat_1", "split")]}
        )
    with pytest.raises(ValueError, match="decision 2 .* not used"):
        g.evaluate(
            {
                "cards": ["TH", "9D", "9C", "8C"],
                "seats": ["seat_1"],
                "decisions": [d("seat_1", "stand"), d("seat_1", "hit")],
            }
        )
    with pytest.raises(ValueError, match="'TH'"):
        g.evaluate(
            {"cards": ["10H", "9D", "9C", "7C"], "seats": ["seat_1"], "decisions": [d("seat_1", "stand")]}
        )
    # a result whose given total disagrees with its cards
    out = g.evaluate(
        {"cards": ["TH", "9D", "9C", "8C"], "seats": ["seat_1"], "decisions": [d("seat_1", "stand")]}
    )
    bad = {**out["result"], "dealer": {**out["result"]["dealer"], "total": 16}}
    with pytest.raises(ValueError, match="dealer"):
        g.validate_result(bad)


def test_every_game_registered_and_outcome_has_no_floats():
    from recognition.games import GAMES as ALL

    for gid in (
        "blackjack",
        "live_blackjack",
        "free_bet_blackjack",
        "power_blackjack",
        "infinite_blackjack",
        "lightning_blackjack",
        "blackjack_003",
    ):
        assert ALL[gid] is GAMES[gid]

    def walk(x):
        assert not isinstance(x, float)
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)

    _, out = ev(
        "blackjack",
        ["TH", "AS", "AD", "6C", "KS", "5H", "TD"],
        [d("seat_1", "insurance"), d("seat_3", "even_money"), d("seat_1", "hit")],
        seats=["seat_1", "seat_3"],
    )
    walk(out)
