"""Hand values, the dealer's drawing rule and the payouts, exhaustively where the space is small."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from recognition.blackjack.engine import BlackjackRules, dealer_hits, is_blackjack, value
from recognition.blackjack.games import GAMES, _fate

RANKS = "A23456789TJQK"


def reference_value(ranks):
    """Independent: try every ace as 1 or 11, keep the best total not over 21 (else the lowest)."""
    base = [10 if r in "TJQK" else (1 if r == "A" else int(r)) for r in ranks]
    aces = ranks.count("A")
    totals = sorted({sum(base) + 10 * k for k in range(aces + 1)})
    ok = [t for t in totals if t <= 21]
    best = max(ok) if ok else min(totals)
    soft = best != sum(base)
    return best, soft


@pytest.mark.parametrize("n", [2, 3])
def test_totals_and_soft_every_two_and_three_card_hand(n):
    for combo in itertools.product(RANKS, repeat=n):
        cards = [r + "S" for r in combo]
        assert value(cards) == reference_value(combo), combo


def test_blackjack_is_an_ace_and_a_ten_value_card_only():
    for a, b in itertools.product(RANKS, repeat=2):
        assert is_blackjack([a + "H", b + "D"]) == ({a, b} <= set("ATJQK") and "A" in (a, b) and a != b), (
            a,
            b,
        )
    assert not is_blackjack(["AH", "5D", "5C"])


def _dealer_hands(hit_soft_17):
    """Every dealer hand the rule can produce (by rank value; the ten stands for T J Q K)."""
    out = []

    def grow(cards):
        if dealer_hits(cards, hit_soft_17):
            for r in "A23456789T":
                grow(cards + [r + "C"])
        else:
            out.append(cards)

    for up, second in itertools.product("A23456789T", repeat=2):
        grow([up + "S", second + "H"])
    return out


@pytest.mark.parametrize("h17", [False, True])
def test_dealer_rule_over_every_dealer_hand(h17):
    hands = _dealer_hands(h17)
    assert len(hands) > 10000
    for cards in hands:
        ranks = [c[0] for c in cards]
        total, soft = reference_value(ranks)
        # the final hand stands: 17 or more (a soft 17 only without h17)
        assert total >= 17, cards
        assert not (h17 and total == 17 and soft), cards
        # every shorter prefix of two cards or more drew: under 17, or a soft 17 with h17
        for k in range(2, len(cards)):
            t, s = reference_value(ranks[:k])
            assert t < 17 or (h17 and t == 17 and s), cards
    # seed 000 L209: a two-card soft 17 stands
    assert not dealer_hits(["AS", "6H"], False)
    assert dealer_hits(["AS", "6H"], True)


def test_dealer_plays_through_the_engine_for_every_two_card_start():
    """The engine's dealer (no hole card game) draws exactly by the rule, whatever the player did."""
    game = GAMES["blackjack"]
    for up, second in itertools.product("A23456789T", repeat=2):
        third_cards = ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "KD", "KC"]
        dealer = [up + "S", second + "H"]
        while dealer_hits(dealer):
            dealer.append(third_cards[len(dealer) - 2])
        cards = ["TC", up + "S", "9C"] + dealer[1:]
        decisions = [{"seat": "seat_2", "action": "sit"}]
        if up == "A":
            decisions.append({"seat": "seat_2", "action": "no_insurance"})
        decisions.append({"seat": "seat_2", "action": "stand"})
        r = game.evaluate({"cards": cards, "decisions": decisions})["result"]
        assert r["dealer"]["cards"] == dealer


def H(
    total=20, *, hand=1, stake=1, blackjack=False, bust=False, charlie=False, surrendered=False, free_bet=None
):
    return {
        "hand": hand,
        "total": total,
        "stake": stake,
        "blackjack": blackjack,
        "bust": bust,
        "charlie": charlie,
        "surrendered": surrendered,
        "free_bet": free_bet,
    }


def D(total, blackjack=False, peeked=False):
    return {"total": total, "blackjack": blackjack, "bust": total > 21, "peeked_blackjack": peeked}


CLASSIC = BlackjackRules()


@pytest.mark.parametrize(
    "player,dealer,fate",
    [
        (H(21, blackjack=True), D(20), ("win", Fraction(3, 2))),
        (H(21, blackjack=True), D(21, blackjack=True), ("push", 1)),
        (H(21), D(21, blackjack=True), ("loss", 0)),
        (H(21), D(21), ("push", 1)),
        (H(20), D(19), ("win", 1)),
        (H(19), D(20), ("loss", 0)),
        (H(18), D(18), ("push", 1)),
        (H(12), D(22), ("win", 1)),
        (H(22, bust=True), D(23), ("loss", 0)),
        (H(16, surrendered=True), D(21, blackjack=True), ("push", Fraction(1, 2))),
    ],
)
def test_classic_fates(player, dealer, fate):
    assert _fate(CLASSIC, player, dealer) == (fate[0], Fraction(fate[1]))


def test_late_dealer_blackjack_all_or_original():
    orig = BlackjackRules(late_blackjack="original")
    assert _fate(CLASSIC, H(20, stake=2), D(21, blackjack=True)) == ("loss", 0)
    assert _fate(orig, H(20, stake=2), D(21, blackjack=True)) == ("push", Fraction(1, 2))
    assert _fate(orig, H(20, stake=4), D(21, blackjack=True)) == ("push", Fraction(3, 4))
    assert _fate(orig, H(20, hand=2), D(21, blackjack=True)) == ("push", 1)
    assert _fate(orig, H(20, hand=1), D(21, blackjack=True)) == ("loss", 0)


def test_free_bet_dealer_22_and_charlie():
    fb = GAMES["free_bet_blackjack"].rules
    assert _fate(fb, H(18), D(22)) == ("push", 1)
    assert _fate(fb, H(18), D(23)) == ("win", 1)
    assert _fate(fb, H(23, bust=True), D(22)) == ("loss", 0)
    assert _fate(fb, H(21, blackjack=True), D(22)) == ("win", Fraction(3, 2))
    assert _fate(fb, H(20, charlie=True), D(21, blackjack=True)) == ("win", 1)
