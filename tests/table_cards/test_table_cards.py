"""Red Dog, Top Card Trumps, 32 Cards and Draw Hi-Lo: the rules over every rank combination (checked against
the rules written out here independently), and the judge certifying what evaluate gives, card by card."""

from __future__ import annotations

import itertools
import json
import random
from datetime import UTC, datetime
from fractions import Fraction

import pytest

from devices.events import CardDrawn
from recognition.cards import CardGame
from recognition.game import Hold, ResultReady, RoundSignal
from recognition.games import GAMES
from recognition.payouts import as_fraction

T = datetime(2026, 1, 1, tzinfo=UTC)
IDS = ("red_dog", "top_card_trumps", "thirty_two_cards", "draw_hi_lo", "peek_baccarat")
HIGH = "23456789TJQKA"  # ace high: the index is the order


def game(game_id: str) -> CardGame:
    g = GAMES[game_id]
    assert isinstance(g, CardGame)
    return g


def wins(outcome: dict) -> dict[str, object]:
    return {w["bet"]: w.get("payout") for w in outcome["winning_bets"]}


def pushes(outcome: dict) -> dict[str, object]:
    return {p["bet"]: p["returned"] for p in outcome["pushed_bets"]}


def test_the_games_are_registered_as_card_games_on_the_shoe() -> None:
    for game_id in IDS:
        g = game(game_id)
        assert g.device_kinds == ("serial-shoe", "camera-shoe") and g.pacing == "dealer"


@pytest.mark.parametrize(("a", "b", "c"), list(itertools.product(HIGH, repeat=3)))
def test_red_dog_every_rank_triple(a: str, b: str, c: str) -> None:
    g = game("red_dog")
    ra, rb, rc = HIGH.index(a), HIGH.index(b), HIGH.index(c)
    gap = abs(ra - rb) - 1
    cards = [a + "S", b + "H"] + ([] if gap == 0 else [c + "D"])
    out = g.evaluate({"cards": cards})["outcome"]
    if gap == 0:  # consecutive: a push, no third card
        assert (wins(out), pushes(out)) == ({}, {"ante": 1})
    elif gap < 0:  # a pair: three of a kind 11 to 1, else a push
        assert (wins(out), pushes(out)) == (({"ante": 11}, {}) if rc == ra else ({}, {"ante": 1}))
    elif min(ra, rb) < rc < max(ra, rb):
        odds = {1: 5, 2: 4, 3: 2}.get(gap, 1)
        assert (wins(out), pushes(out)) == ({"ante": odds, "raise": odds}, {})
        assert out["spread"] == gap
    else:
        assert (wins(out), pushes(out)) == ({}, {})


@pytest.mark.parametrize(("p", "d"), list(itertools.product(HIGH, repeat=2)))
def test_top_card_trumps_every_rank_pair_and_war(p: str, d: str) -> None:
    g = game("top_card_trumps")
    if p != d:
        out = g.evaluate({"cards": [p + "S", d + "H"]})["outcome"]
        assert wins(out) == ({"ante": 1} if HIGH.index(p) > HIGH.index(d) else {}) and pushes(out) == {}
        with pytest.raises(ValueError, match="not used by the rules"):
            g.evaluate({"cards": [p + "S", d + "H", "2C"]})
        return
    with pytest.raises(ValueError, match="too few cards .* face-down card 1 before the war"):
        g.evaluate({"cards": [p + "S", d + "H"]})
    for wp, wd in itertools.product(HIGH, repeat=2):
        # three face-down cards, then one to the player and one to the dealer (000:L1599)
        out = g.evaluate({"cards": [p + "S", d + "H", "2C", "3C", "4C", wp + "D", wd + "C"]})["outcome"]
        won_war = HIGH.index(wp) >= HIGH.index(wd)
        assert wins(out) == ({"tie": 10, "raise": 1} if won_war else {"tie": 10})
        assert pushes(out) == ({"surrender": "1/2", "ante": 1} if won_war else {"surrender": "1/2"})


LOW = "A23456789TJQK"  # Draw Hi-Lo: the king highest, the ace lowest (000:L1595)


@pytest.mark.parametrize(("b", "d"), list(itertools.product(LOW, repeat=2)))
def test_draw_hi_lo_every_rank_pair(b: str, d: str) -> None:
    out = game("draw_hi_lo").evaluate({"cards": [b + "S", d + "H"]})["outcome"]
    if b == d:
        assert wins(out) == {"tie": 10}
    else:
        assert wins(out) == {("higher" if LOW.index(d) > LOW.index(b) else "lower"): None}


POINTS_32 = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 11, "Q": 12, "K": 13}


def deal_32(deck: list[str]) -> tuple[list[str], int]:
    """32 Cards dealt by the rules written out plainly: (cards used, winning hand)."""
    totals = {8: 8, 9: 9, 10: 10, 11: 11}
    in_play, used = [8, 9, 10, 11], []
    while True:
        for h in in_play:
            card = deck.pop()
            used.append(card)
            totals[h] += POINTS_32[card[0]]
        best = max(totals.values())
        in_play = [h for h in (8, 9, 10, 11) if totals[h] == best]
        if len(in_play) == 1:
            return used, in_play[0]


def test_thirty_two_cards_against_the_rules_on_random_decks() -> None:
    g = game("thirty_two_cards")
    deck32 = [r + s for r in POINTS_32 for s in "SHDC"]
    assert g.shoe_spec().size == 32
    rng = random.Random(32)
    tie_breaks = 0
    for _ in range(3000):
        deck = deck32[:]
        rng.shuffle(deck)
        cards, winner = deal_32(deck)
        tie_breaks += len(cards) > 4
        out = g.evaluate({"cards": cards})["outcome"]
        assert wins(out) == {f"player_{winner}": None}
    assert tie_breaks > 100  # the tie-break deal was exercised


def test_thirty_two_cards_refuses_a_card_not_in_its_deck() -> None:
    with pytest.raises(ValueError, match="not a card of thirty_two_cards"):
        game("thirty_two_cards").evaluate({"cards": ["5S", "6H", "7D", "8C"]})


@pytest.mark.parametrize("game_id", IDS)
def test_the_judge_certifies_what_evaluate_gives(game_id: str) -> None:
    g = game(game_id)
    rng = random.Random(game_id)
    spec = g.shoe_spec()
    for n in range(1, 40):
        pool = [c for c, k in spec.copies.items() for _ in range(k)]
        rng.shuffle(pool)
        cards: list[str] = []
        while g.next_position(cards) is not None:
            cards.append(pool.pop())
        evaluated = g.evaluate({"cards": cards})
        assert json.loads(json.dumps(evaluated)) == evaluated
        assert g.validate_result(evaluated["result"]) == evaluated["result"]
        judge = g.new_judge()
        decisions = judge.feed(RoundSignal(signal="round_opened", round_number=n, at=T))
        decisions += judge.feed(RoundSignal(signal="betting_closed", round_number=n, at=T))
        for c in cards:
            decisions += judge.feed(CardDrawn(device_id="t/shoe", at=T, card=c, payload=c))
        assert [d.result for d in decisions if isinstance(d, ResultReady)] == [evaluated["result"]]
        assert not [d for d in decisions if isinstance(d, Hold)]


def test_odds_are_exact() -> None:
    out = game("top_card_trumps").evaluate({"cards": ["5S", "5H", "7C", "8C", "9C", "KD", "2C"]})["outcome"]
    assert as_fraction(str(pushes(out)["surrender"])) == Fraction(1, 2)


def test_peek_baccarat_deals_and_pays_as_baccarat() -> None:
    peek, baccarat = game("peek_baccarat"), game("baccarat")
    rng = random.Random(9)
    spec = baccarat.shoe_spec()
    for _ in range(500):
        pool = [c for c, k in spec.copies.items() for _ in range(k)]
        rng.shuffle(pool)
        cards: list[str] = []
        while baccarat.next_position(cards) is not None:
            cards.append(pool.pop())
        assert peek.evaluate({"cards": cards}) == baccarat.evaluate({"cards": cards})
