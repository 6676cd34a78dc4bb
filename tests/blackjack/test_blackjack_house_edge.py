"""House edge of seed 004's classic Blackjack Tables under basic strategy, by seeded simulation.

Seed 004 L226 publishes "Blackjack - 99.28%" (house edge 0.72%) for these rules (8 decks, S17, peek on an ace
only, double any two, no double after split, one split). The simulation uses the engine's own pieces
(hand values, the dealer's rule, the settlement `_fate`) with the standard 8-deck S17 basic strategy and an
infinite shoe; pairs are split by the basic pair chart. 120,000 hands: the standard error is about 0.33%, so the
test checks the edge within 1.1% of the published figure: it fails on a wrong blackjack payout (2.3%),
a push counted as a loss, an inverted dealer rule, or a broken settlement.
"""

from __future__ import annotations

import random

from recognition.blackjack.engine import dealer_hits, is_blackjack, value
from recognition.blackjack.games import GAMES, _fate

RANKS = "A23456789TJQK"

# hard totals: the dealer up value (2..11) on which to hit / double (8-deck S17 basic strategy)
HARD_DOUBLE = {9: range(3, 7), 10: range(2, 10), 11: range(2, 11)}
SOFT_DOUBLE = {
    13: range(5, 7),
    14: range(5, 7),
    15: range(4, 7),
    16: range(4, 7),
    17: range(3, 7),
    18: range(3, 7),
}
SPLIT = {
    "A": range(2, 12),
    "8": range(2, 12),
    "9": (2, 3, 4, 5, 6, 8, 9),
    "7": range(2, 8),
    "6": range(3, 7),
    "4": (),
    "3": range(4, 8),
    "2": range(4, 8),
}


def up_value(up):
    v = value([up])[0]
    return 11 if v == 11 else v


def hard_stands(total, up):
    if total >= 17:
        return True
    if total >= 13:
        return up <= 6
    if total == 12:
        return 4 <= up <= 6
    return False


def play(rng, rules, hand, up, can_double, can_split, deal):
    """Basic strategy for one hand; returns [(cards, stake, from_split)]."""
    u = up_value(up)
    if can_split and hand[0][0] == hand[1][0] and u in SPLIT.get(hand[0][0], ()):
        out = []
        for c in hand:
            h = [c, deal()]
            if c[0] == "A":
                out.append((h, 1, True))
            else:
                out += [
                    (cards, stake, True) for cards, stake, _ in play(rng, rules, h, up, False, False, deal)
                ]
        return out
    cards = list(hand)
    while True:
        total, soft = value(cards)
        if total >= 21:
            return [(cards, 1, False)]
        doubles = SOFT_DOUBLE if soft else HARD_DOUBLE
        if len(cards) == 2 and can_double and u in doubles.get(total, ()):
            return [(cards + [deal()], 2, False)]
        if soft:
            if total >= 19 or (total == 18 and u <= 8):
                return [(cards, 1, False)]
        elif hard_stands(total, u):
            return [(cards, 1, False)]
        cards.append(deal())


def simulate(n, seed=2024):
    rules = GAMES["live_blackjack"].rules
    rng = random.Random(seed)
    deal = lambda: rng.choice(RANKS) + "S"
    won = 0.0
    for _ in range(n):
        player = [deal(), deal()]
        dealer = [deal(), deal()]
        d_bj = is_blackjack(dealer)
        p_bj = is_blackjack(player)
        if dealer[0][0] == "A" and d_bj or p_bj:  # peek on an ace; a player blackjack stands
            hands = [(player, 1, False)]
        else:
            hands = play(rng, rules, player, dealer[0], True, True, deal)
        if not d_bj:
            while dealer_hits(dealer, rules.hit_soft_17):
                dealer.append(deal())
        dt = value(dealer)[0]
        d = {
            "total": dt,
            "blackjack": d_bj,
            "bust": dt > 21,
            "peeked_blackjack": dealer[0][0] == "A" and d_bj,
        }
        for i, (cards, stake, split) in enumerate(hands):
            t = value(cards)[0]
            h = {
                "hand": i + 1,
                "total": t,
                "stake": stake,
                "blackjack": not split and is_blackjack(cards),
                "bust": t > 21,
                "charlie": False,
                "surrendered": False,
                "free_bet": None,
            }
            fate, amount = _fate(rules, h, d, peeked=d["peeked_blackjack"])
            if fate == "win":
                won += stake * float(amount)
            elif fate == "push":
                won -= stake * (1 - float(amount))
            else:
                won -= stake
    return -won / n


def test_house_edge_near_the_published_figure():
    edge = simulate(120_000)
    assert abs(edge - 0.0072) < 0.011, edge
