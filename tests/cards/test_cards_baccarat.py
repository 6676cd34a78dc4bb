"""Baccarat family: the drawing rules exhaustively, exact 8-deck probabilities, outcomes and evaluate."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from itertools import product

import pytest

from recognition.cards.baccarat import GAMES, BaccaratGame, BaccaratPayouts
from recognition.cards.cards import STANDARD_52

BACCARAT = GAMES["baccarat"]
NO_COMMISSION = GAMES["no_commission_baccarat"]
GOLDEN = GAMES["golden_wealth_baccarat"]
LIGHTNING = GAMES["lightning_baccarat"]

# The punto banco tableau as printed on casino cards, written out independently of the code.
# Rows: the Banker's two-card total; columns: the Player's third card 0..9, then "-" = the Player stood.
# D = the Banker draws, S = the Banker stands.
TABLEAU = {
    0: "DDDDDDDDDD D",
    1: "DDDDDDDDDD D",
    2: "DDDDDDDDDD D",
    3: "DDDDDDDDSD D",
    4: "SSDDDDDDSS D",
    5: "SSSSDDDDSS D",
    6: "SSSSSSDDSS S",
    7: "SSSSSSSSSS S",
}

#: a card of each baccarat value (0 is a king; the ten, jack and queen are worth 0 too)
CARD = {0: "KS", 1: "AH", 2: "2D", 3: "3C", 4: "4S", 5: "5H", 6: "6D", 7: "7C", 8: "8S", 9: "9H"}
#: two cards making each two-card total, using different ranks so that no pair appears
TWO = {t: (CARD[t], "TD") if t else ("QC", "JD") for t in range(10)}


def positions(game: BaccaratGame, cards: list[str]) -> list[str]:
    out = []
    for i in range(len(cards) + 1):
        pos = game.next_position(cards[:i])
        if pos is None:
            assert i == len(cards), f"hand complete after {i} of {cards}"
            return out
        out.append(pos)
    return out


@pytest.mark.parametrize("pt,bt", list(product(range(10), range(10))))
def test_drawing_rules_every_total_and_third_card(pt, bt):
    """Every Player total x Banker total x Player third card (and no third card): who draws, and the result."""
    p1, p2 = TWO[pt]
    b1, b2 = TWO[bt]
    first4 = [p1, b1, p2, b2]
    head = ["player_1", "banker_1", "player_2", "banker_2"]
    if pt >= 8 or bt >= 8:  # a natural: nobody draws
        assert positions(BACCARAT, first4) == head
        assert BACCARAT.next_position(first4) is None
        result = BACCARAT.result_from_cards(first4)
        assert (result["player_total"], result["banker_total"]) == (pt, bt)
        return
    if pt >= 6:  # the Player stands
        assert BACCARAT.next_position(first4) == ("banker_3" if TABLEAU[bt][11] == "D" else None)
        for b3 in range(10):
            cards = first4 + [CARD[b3]]
            if TABLEAU[bt][11] == "D":
                assert BACCARAT.next_position(cards) is None
                r = BACCARAT.evaluate({"cards": cards})["result"]
                assert r["player_cards"] == [p1, p2] and r["banker_cards"] == [b1, b2, CARD[b3]]
                assert (r["player_total"], r["banker_total"]) == (pt, (bt + b3) % 10)
            else:
                with pytest.raises(ValueError, match="not used by the rules"):
                    BACCARAT.evaluate({"cards": cards})
        return
    assert BACCARAT.next_position(first4) == "player_3"  # the Player draws on 0-5
    with pytest.raises(ValueError, match=r"too few cards \(4\): the next card is the player's 3rd card"):
        BACCARAT.evaluate({"cards": first4})
    for p3 in range(10):
        cards = first4 + [CARD[p3]]
        draws = TABLEAU[bt][p3] == "D"
        assert BACCARAT.next_position(cards) == ("banker_3" if draws else None), (pt, bt, p3)
        if draws:
            with pytest.raises(ValueError, match="the banker's 3rd card"):
                BACCARAT.evaluate({"cards": cards})
            for b3 in range(10):
                full = cards + [CARD[b3]]
                r = BACCARAT.evaluate({"cards": full})["result"]
                assert r["player_cards"] == [p1, p2, CARD[p3]] and r["banker_cards"] == [b1, b2, CARD[b3]]
                totals = ((pt + p3) % 10, (bt + b3) % 10)
                assert (r["player_total"], r["banker_total"]) == totals
                assert r["winner"] == (
                    "player" if totals[0] > totals[1] else "banker" if totals[1] > totals[0] else "tie"
                )
                with pytest.raises(ValueError, match="card 7 .* not used by the rules"):
                    BACCARAT.evaluate({"cards": full + ["5S"]})
        else:
            r = BACCARAT.evaluate({"cards": cards})["result"]
            assert r["banker_cards"] == [b1, b2] and r["player_total"] == (pt + p3) % 10
            with pytest.raises(ValueError, match="card 6 .* not used by the rules"):
                BACCARAT.evaluate({"cards": cards + ["5S"]})


def test_exact_eight_deck_probabilities_match_the_published_figures():
    """Every deal of an 8-deck shoe, by card value with exact integer weights, through the game's deal script."""
    counts = [128] + [32] * 9  # value 0: tens and pictures, 16 a deck; 1-9: 4 a deck
    size = 416
    depth_weight = [1] * 7  # the factor that brings a k-card deal to the common 6-card denominator
    for k in range(7):
        w = 1
        for i in range(k, 6):
            w *= size - i
        depth_weight[k] = w
    totals = {"player": 0, "banker": 0, "tie": 0}
    left = counts[:]

    def take(v: int) -> int:
        n = left[v]
        left[v] -= 1
        return n

    def score(values: list[int], weight: int) -> None:
        r = BACCARAT.result_from_cards([CARD[v] for v in values])
        totals[r["winner"]] += weight * depth_weight[len(values)]

    for v0, v1, v2, v3 in product(range(10), repeat=4):
        w4 = take(v0) * take(v1) * take(v2) * take(v3)
        cards4 = [CARD[v0], CARD[v1], CARD[v2], CARD[v3]]
        nxt = BACCARAT.next_position(cards4)
        if nxt is None:
            score([v0, v1, v2, v3], w4)
        else:
            for v4 in range(10):
                w5 = w4 * take(v4)
                if w5 and BACCARAT.next_position(cards4 + [CARD[v4]]) == "banker_3":
                    for v5 in range(10):
                        w6 = w5 * left[v5]
                        if w6:
                            score([v0, v1, v2, v3, v4, v5], w6)
                elif w5:
                    score([v0, v1, v2, v3, v4], w5)
                left[v4] += 1
        for v in (v0, v1, v2, v3):
            left[v] += 1
    denominator = depth_weight[0]
    assert sum(totals.values()) == denominator
    p = {k: Fraction(v, denominator) for k, v in totals.items()}
    assert round(float(p["banker"]), 6) == 0.458597
    assert round(float(p["player"]), 6) == 0.446247
    assert round(float(p["tie"]), 6) == 0.095156


def bets(outcome: dict) -> dict:
    return {w["bet"]: w["payout"] for w in outcome["winning_bets"]}


def pushes(outcome: dict) -> dict:
    return {p["bet"]: p["returned"] for p in outcome["pushed_bets"]}


def test_hand_checked_rounds():
    # seed 000 L1521: a 7 and a 9 are worth 6
    r = BACCARAT.evaluate({"cards": ["7H", "2C", "9D", "4S"]})  # Player 6 stands, Banker 6 stands
    assert r["result"] == {
        "winner": "tie",
        "player_cards": ["7H", "9D"],
        "banker_cards": ["2C", "4S"],
        "player_total": 6,
        "banker_total": 6,
    }
    assert bets(r["outcome"]) == {"tie": 8} and pushes(r["outcome"]) == {"player": 1, "banker": 1}
    # Player natural 9 against Banker 7: natural win, Player bonus pays 1:1 (seed 000 L1563)
    r = BACCARAT.evaluate({"cards": ["9S", "4D", "KH", "3C"]})
    assert r["result"]["winner"] == "player" and r["result"]["player_total"] == 9
    assert bets(r["outcome"]) == {"player": 1, "player_bonus": 1}
    # Banker wins 7 to 2 with three cards each: pays 19/20, Banker bonus by 5 points 2:1 (L1577)
    r = BACCARAT.evaluate({"cards": ["AS", "2H", "AD", "KC", "QS", "5S"]})
    assert r["result"] == {
        "winner": "banker",
        "player_cards": ["AS", "AD", "QS"],
        "banker_cards": ["2H", "KC", "5S"],
        "player_total": 2,
        "banker_total": 7,
    }
    assert bets(r["outcome"]) == {"banker": "19/20", "player_pair": 11, "either_pair": 5, "banker_bonus": 2}
    # perfect pairs both sides: 200:1 (seed 000 L1545, 004 L600); natural tie 8-8 pays the bonuses 1:1 (L1565)
    r = BACCARAT.evaluate({"cards": ["4H", "4C", "4H", "4C"]})
    assert r["result"]["winner"] == "tie" and r["result"]["player_total"] == 8
    assert bets(r["outcome"]) == {
        "tie": 8,
        "player_pair": 11,
        "banker_pair": 11,
        "perfect_pair": 200,
        "either_pair": 5,
        "player_bonus": 1,
        "banker_bonus": 1,
    }
    # non-natural win by 9 (9 vs 0): 30:1
    r = BACCARAT.evaluate({"cards": ["2S", "TH", "2D", "KS", "5C", "QH"]})
    assert r["result"]["player_total"] == 9 and r["result"]["banker_total"] == 0
    assert bets(r["outcome"])["player_bonus"] == 30
    # a two-card 7 beating 3 by 4 is a non-natural win: bonus 1:1
    r = BACCARAT.evaluate({"cards": ["7S", "AH", "KD", "2C", "KC"]})
    assert r["result"]["banker_cards"] == ["AH", "2C", "KC"]
    assert bets(r["outcome"]) == {"player": 1, "player_bonus": 1}
    # by 3 points: no bonus
    r = BACCARAT.evaluate({"cards": ["7S", "AH", "KD", "3C", "KC"]})
    assert bets(r["outcome"]) == {"player": 1}


def test_payout_options():
    push_tie = BaccaratGame(BaccaratPayouts(bonus_natural_tie="push", player_pair=Fraction(25)))
    r = push_tie.evaluate({"cards": ["4H", "4C", "4D", "4S"]})
    assert bets(r["outcome"])["player_pair"] == 25
    assert pushes(r["outcome"]) == {"player": 1, "banker": 1, "player_bonus": 1, "banker_bonus": 1}
    with pytest.raises(ValueError):
        BaccaratPayouts(bonus_natural_tie="maybe")
    with pytest.raises(ValueError, match="no option"):
        BaccaratGame(colour="red")


def test_no_commission_banker_six_pays_half():
    r = NO_COMMISSION.evaluate(
        {"cards": ["KS", "2H", "QD", "4D", "5C"]}
    )  # P 0 draws 5 -> 5; B 6 stands on a 5
    assert r["result"] == {
        "winner": "banker",
        "player_cards": ["KS", "QD", "5C"],
        "banker_cards": ["2H", "4D"],
        "player_total": 5,
        "banker_total": 6,
    }
    assert bets(r["outcome"]) == {"banker": "1/2"}
    assert bets(BACCARAT.evaluate({"cards": ["KS", "2H", "QD", "4D", "5C"]})["outcome"]) == {
        "banker": "19/20"
    }
    r = NO_COMMISSION.evaluate({"cards": ["KS", "3H", "QD", "4D", "5C"]})  # Banker 7 wins: 1:1
    assert r["result"]["banker_total"] == 7 and bets(r["outcome"]) == {"banker": 1}


def test_validate_result_redeals_the_cards_and_checks_every_given_field():
    canonical = BACCARAT.evaluate({"cards": ["AS", "2H", "AD", "KC", "QS", "5S"]})["result"]
    assert BACCARAT.validate_result(canonical) == canonical
    assert BACCARAT.validate_result({"cards": ["AS", "2H", "AD", "KC", "QS", "5S"]}) == canonical
    assert (
        BACCARAT.validate_result(
            {"player_cards": ["AS", "AD", "QS"], "banker_cards": ["2H", "KC", "5S"], "note": "dropped"}
        )
        == canonical
    )
    with pytest.raises(ValueError, match="winner is 'banker' for these cards, not 'player'"):
        BACCARAT.validate_result({**canonical, "winner": "player"})
    with pytest.raises(ValueError, match="banker_total is 7"):
        BACCARAT.validate_result({**canonical, "banker_total": 8})
    # a Banker third card the tableau forbids (Banker 7 stands)
    with pytest.raises(ValueError, match="not used by the rules"):
        BACCARAT.validate_result({"player_cards": ["AS", "AD", "QS"], "banker_cards": ["3H", "4C", "5S"]})
    with pytest.raises(ValueError, match="player_cards holds 2 or 3 cards"):
        BACCARAT.validate_result({"player_cards": ["AS"], "banker_cards": ["3H", "4C"]})
    with pytest.raises(ValueError, match="needs 'player_cards'"):
        BACCARAT.validate_result({"banker_cards": ["3H", "4C"]})
    with pytest.raises(ValueError, match="is a dict"):
        BACCARAT.validate_result(["AS"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "cards,message",
    [
        ([], r"too few cards \(0\): the next card is the player's 1st card \(player_1\)"),
        (["AS", "2H", "AD"], r"the banker's 2nd card \(banker_2\)"),
        (["AS", "2H", "AD", "JK"], r"card 4: a joker \(JK\) is not a card of baccarat"),
        (["AS", "2H", "AD", "10C"], r"card 4: '10C' is not a card code; the ten is written T: write 'TC'"),
        (["AS", "2H", "AD", "kc"], r"write 'KC'"),
        (["AS", "2H", "AD", 7], r"card 4: a card is a code such as '9H'"),
        ("AS 2H", r"'cards' must be a list"),
        (["AS", "2H", "AD", "KC", "ROCK"], r"card 5: a rock card \(ROCK\) is not a card of baccarat"),
    ],
)
def test_evaluate_refuses_bad_rounds_and_names_the_problem(cards, message):
    with pytest.raises(ValueError, match=message):
        BACCARAT.evaluate({"cards": cards})


def test_evaluate_needs_cards():
    with pytest.raises(ValueError, match="needs 'cards'"):
        BACCARAT.evaluate({"player": ["AS"]})
    with pytest.raises(ValueError, match="no computer draws"):
        BACCARAT.evaluate({"cards": ["9S", "4D", "KH", "3C"], "extras": {"lightning_cards": []}})


def random_rounds(n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    shoe = list(STANDARD_52) * 8
    out = []
    for _ in range(n):
        cards = rng.sample(shoe, 6)
        for k in (4, 5, 6):
            if BACCARAT.next_position(cards[:k]) is None:
                out.append(cards[:k])
                break
    return out


def test_fast_paths_agree_with_the_general_path_and_the_cli():
    from app.audit import evaluate_line

    rounds = random_rounds(3000, 5)
    for i, cards in enumerate(rounds):
        fast = BACCARAT.evaluate({"cards": cards})
        general = {"result": BACCARAT.result_from_cards(BACCARAT.deal(cards)[0]), "outcome": None}
        assert fast["result"] == general["result"]
        line = json.dumps({"id": i if i % 2 else f"r-{i}\u00e9", "cards": cards}) + "\n"
        assert (
            BACCARAT.evaluate_json(line)
            == json.dumps(evaluate_line(BACCARAT, line, i + 1), separators=(",", ":")) + "\n"
        )
    # anything out of the ordinary goes to the CLI's general path
    for line in (
        '{"id": 1, "cards": ["AS", "2H", "AD"]}',
        '{"id": 1.5, "cards": ["9S", "4D", "KH", "3C"]}',
        '{"id": 1, "cards": ["9S", "4D", "KH", "3C"], "extras": null}',
        "[1]",
        "not json",
        '{"id": 1, "cards": ["9S", "4D", "KH", "3C", "2C"]}',
        '{"id": true, "cards": ["9S", "4D", "KH", "3C"]}',
    ):
        assert BACCARAT.evaluate_json(line) is None
    assert LIGHTNING.evaluate_json('{"id": 1, "cards": ["9S", "4D", "KH", "3C"]}') is None


def test_lightning_multipliers_multiply_the_bets_whose_hand_holds_the_cards():
    extras = {
        "lightning_cards": [
            {"card": "9S", "multiplier": 8},
            {"card": "KH", "multiplier": 2},
            {"card": "4D", "multiplier": 5},
        ]
    }
    r = LIGHTNING.evaluate({"cards": ["9S", "4D", "KH", "3C"], "extras": extras})
    win = {w["bet"]: w for w in r["outcome"]["winning_bets"]}
    assert win["player"] == {"bet": "player", "payout": 16, "multiplier": 16}
    assert win["player_bonus"] == {
        "bet": "player_bonus",
        "payout": 1,
        "multiplier": 1,
    }  # side bet: not multiplied
    assert r["outcome"]["lightning_cards"] == extras["lightning_cards"]
    # Banker 0.95:1 times 5
    r = LIGHTNING.evaluate({"cards": ["AS", "4D", "AD", "KC", "QS"], "extras": extras})
    assert r["result"]["winner"] == "banker"
    assert {w["bet"]: w["payout"] for w in r["outcome"]["winning_bets"]}["banker"] == "19/4"
    # Tie: every card on the table counts; Player/Banker push
    r = LIGHTNING.evaluate({"cards": ["9S", "4D", "KH", "5C"], "extras": extras})
    assert r["result"]["winner"] == "tie"
    assert bets(r["outcome"])["tie"] == 8 * 8 * 2 * 5 and pushes(r["outcome"]) == {"player": 1, "banker": 1}
    # a pair holding two struck cards: both multipliers
    r = LIGHTNING.evaluate({"cards": ["9S", "4D", "9S", "5C"], "extras": extras})
    assert bets(r["outcome"])["player_pair"] == 11 * 64


def test_lightning_extras_are_checked():
    cards = ["9S", "4D", "KH", "3C"]
    for extras, message in [
        (None, "needs the round's extras"),
        ({}, "need 'lightning_cards'"),
        ({"lightning_cards": []}, "draws 1-5 multiplier cards, not 0"),
        ({"lightning_cards": [{"card": "9S", "multiplier": 7}]}, "multiplier 7 is not one of"),
        ({"lightning_cards": [{"card": "9S", "multiplier": 2.0}]}, "multiplier 2.0"),
        ({"lightning_cards": [{"card": "JK", "multiplier": 2}]}, "not one of the 52 cards"),
        (
            {"lightning_cards": [{"card": "9S", "multiplier": 2}, {"card": "9S", "multiplier": 3}]},
            "drawn twice",
        ),
        ({"lightning_cards": ["9S"]}, "each multiplier card is"),
    ]:
        with pytest.raises(ValueError, match=message):
            LIGHTNING.evaluate({"cards": cards, "extras": extras})


def test_draw_extras_uses_only_the_rng_given_and_draws_within_the_rules():
    a = LIGHTNING.draw_extras(random.Random(42))
    assert a == LIGHTNING.draw_extras(random.Random(42))
    seen_counts, seen_mults = set(), set()
    for seed in range(300):
        ex = LIGHTNING.draw_extras(random.Random(seed), multiplier_cards_min=1, decks=8)
        cards = [e["card"] for e in ex["lightning_cards"]]
        assert len(set(cards)) == len(cards) and set(cards) <= set(STANDARD_52)
        seen_counts.add(len(cards))
        seen_mults |= {e["multiplier"] for e in ex["lightning_cards"]}
        LIGHTNING.check_extras(ex)
    assert seen_counts == {1, 2, 3, 4, 5} and seen_mults == {2, 3, 4, 5, 8}
    assert all(len(LIGHTNING.draw_extras(random.Random(s))["lightning_cards"]) == 5 for s in range(20))
    gold = GOLDEN.draw_extras(random.Random(3))
    assert len(gold["gold_cards"]) == 5 and {e["multiplier"] for e in gold["gold_cards"]} <= {2, 3, 5, 8}
    assert BACCARAT.draw_extras(random.Random(3)) is None
    with pytest.raises(ValueError, match="multiplier_cards_min/max"):
        LIGHTNING.draw_extras(random.Random(1), multiplier_cards_min=0)
    with pytest.raises(ValueError, match="multiplier_weights"):
        LIGHTNING.draw_extras(random.Random(1), multiplier_weights=[1, 2])
    only_eights = LIGHTNING.draw_extras(random.Random(1), multiplier_weights=[0, 0, 0, 0, 1])
    assert {e["multiplier"] for e in only_eights["lightning_cards"]} == {8}


def test_golden_wealth_multiplies_main_bets_only_and_names_its_pair_bet():
    extras = {
        "gold_cards": [
            {"card": c, "multiplier": m} for c, m in (("9S", 3), ("4D", 5), ("2C", 2), ("AH", 8), ("7D", 2))
        ]
    }
    r = GOLDEN.evaluate({"cards": ["9S", "4D", "9H", "KC"], "extras": extras})  # Player natural 8 beats 4
    assert r["result"]["winner"] == "player"
    assert bets(r["outcome"]) == {"player": 3, "player_pair": 11, "golden_pair": 5, "player_bonus": 1}
    win = {w["bet"]: w for w in r["outcome"]["winning_bets"]}
    assert win["player"]["multiplier"] == 3 and win["player_pair"]["multiplier"] == 1
    assert "either_pair" not in win and win["golden_pair"]["payout"] == 5
