"""Poker hand ranking: five-card hands (and the best five of six or seven), three-card hands. Pure.

Ranks compare ace high (2 lowest), the ace also low in the straight 5-4-3-2-A (seed 000 L565,
seed 004 L50-64, seed 000 L3441); suits never break ties (004 L58). A hand's value is a
tuple ``(category, *tiebreak)`` that compares with ``<``/``==`` directly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from .cards import ACE_HIGH

# five-card categories, lowest first
(
    HIGH_CARD,
    PAIR,
    TWO_PAIR,
    THREE_OF_A_KIND,
    STRAIGHT,
    FLUSH,
    FULL_HOUSE,
    FOUR_OF_A_KIND,
    STRAIGHT_FLUSH,
    ROYAL_FLUSH,
) = range(10)
CATEGORY_NAMES = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "royal_flush",
)

# three-card categories, lowest first (a straight beats a flush in three cards: seed 000 L543-548)
T_HIGH_CARD, T_PAIR, T_FLUSH, T_STRAIGHT, T_THREE_OF_A_KIND, T_STRAIGHT_FLUSH, T_MINI_ROYAL = range(7)
THREE_CARD_NAMES = (
    "high_card",
    "pair",
    "flush",
    "straight",
    "three_of_a_kind",
    "straight_flush",
    "mini_royal",
)

HandValue = tuple[int, ...]


def _ranks(cards: Sequence[str]) -> list[int]:
    return sorted((ACE_HIGH[c[0]] for c in cards), reverse=True)


def _straight_high(ranks: list[int], length: int) -> int | None:
    """The high card of a straight made of these distinct descending ranks, or None (A-2-3.. counts, ace low)."""
    if len(set(ranks)) != length:
        return None
    if ranks[0] - ranks[-1] == length - 1:
        return ranks[0]
    if ranks[0] == 14 and ranks[1:] == list(
        range(length, 1, -1)
    ):  # the wheel: A-5-4-3-2 (A-3-2 in three cards)
        return length
    return None


def rank5(cards: Sequence[str]) -> HandValue:
    """The value of exactly five cards."""
    if len(cards) != 5:
        raise ValueError(f"a poker hand has five cards, not {len(cards)}")
    ranks = _ranks(cards)
    flush = len({c[1] for c in cards}) == 1
    high = _straight_high(ranks, 5)
    if high is not None:
        if flush:
            return (ROYAL_FLUSH,) if high == 14 else (STRAIGHT_FLUSH, high)
        return (STRAIGHT, high)
    if flush:
        return (FLUSH, *ranks)
    counts = Counter(ranks)
    # ranks ordered by (count, rank), biggest group first
    groups = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [n for _, n in groups]
    order = [r for r, _ in groups]
    if shape[0] == 4:
        return (FOUR_OF_A_KIND, *order)
    if shape == [3, 2]:
        return (FULL_HOUSE, *order)
    if shape[0] == 3:
        return (THREE_OF_A_KIND, *order)
    if shape[:2] == [2, 2]:
        return (TWO_PAIR, *order)
    if shape[0] == 2:
        return (PAIR, *order)
    return (HIGH_CARD, *ranks)


def best5(cards: Sequence[str]) -> tuple[HandValue, tuple[str, ...]]:
    """The best five-card hand among five to seven cards, and its cards (first best in combination order)."""
    if not 5 <= len(cards) <= 7:
        raise ValueError(f"the best five of {len(cards)} cards is not defined")
    best: tuple[HandValue, tuple[str, ...]] | None = None
    for five in combinations(cards, 5):
        value = rank5(five)
        if best is None or value > best[0]:
            best = (value, five)
    assert best is not None
    return best


def best_category(cards: Sequence[str]) -> int:
    """The category of the best five-card hand among five to seven cards (``best5(cards)[0][0]``) without
    ranking every five of them: what a bonus bet paid by category needs."""
    ranks = [ACE_HIGH[c[0]] for c in cards]
    by_suit: dict[str, int] = {}  # suit -> its ranks as bits
    for c, r in zip(cards, ranks):
        by_suit[c[1]] = by_suit.get(c[1], 0) | 1 << r
    flush = next((bits for bits in by_suit.values() if bits.bit_count() >= 5), None)
    if flush is not None:
        high = _best_straight(flush)
        if high is not None:
            return ROYAL_FLUSH if high == 14 else STRAIGHT_FLUSH
    counts = sorted(map(ranks.count, set(ranks)), reverse=True)
    if counts[0] >= 4:
        return FOUR_OF_A_KIND
    if counts[0] == 3 and counts[1] >= 2:
        return FULL_HOUSE
    if flush is not None:
        return FLUSH
    bits = 0
    for r in ranks:
        bits |= 1 << r
    if _best_straight(bits) is not None:
        return STRAIGHT
    if counts[0] == 3:
        return THREE_OF_A_KIND
    if counts[0] == 2:
        return TWO_PAIR if counts[1] == 2 else PAIR
    return HIGH_CARD


#: (high card, the ranks' bits) of every five-card straight, the highest first; the ace's bit (14) also
#: stands for 1 in 5-4-3-2-A
_STRAIGHTS = tuple((high, sum(1 << r for r in range(high - 4, high + 1))) for high in range(14, 5, -1)) + (
    (5, sum(1 << r for r in (14, 5, 4, 3, 2))),
)


def _best_straight(bits: int) -> int | None:
    """The high card of the highest five-card straight among these ranks (as bits), or None."""
    for high, straight in _STRAIGHTS:
        if bits & straight == straight:
            return high
    return None


def rank3(cards: Sequence[str]) -> HandValue:
    """The value of three cards (Three Card Poker, Teen Patti, Side Bet City's 3 Card Hand).

    A-K-Q and A-2-3 are straights (the ace high or low); A-K-Q suited is the mini royal."""
    if len(cards) != 3:
        raise ValueError(f"a three-card hand has three cards, not {len(cards)}")
    ranks = _ranks(cards)
    flush = len({c[1] for c in cards}) == 1
    high = _straight_high(ranks, 3)
    if high is not None:
        if flush:
            return (T_MINI_ROYAL,) if high == 14 else (T_STRAIGHT_FLUSH, high)
        return (T_STRAIGHT, high)
    if ranks[0] == ranks[2]:
        return (T_THREE_OF_A_KIND, ranks[0])
    if flush:
        return (T_FLUSH, *ranks)
    if ranks[0] == ranks[1] or ranks[1] == ranks[2]:
        pair = ranks[1]
        kicker = ranks[2] if ranks[0] == ranks[1] else ranks[0]
        return (T_PAIR, pair, kicker)
    return (T_HIGH_CARD, *ranks)


def name5(value: HandValue) -> str:
    return CATEGORY_NAMES[value[0]]


def name3(value: HandValue) -> str:
    return THREE_CARD_NAMES[value[0]]


def compare(a: HandValue, b: HandValue) -> str:
    """'first', 'second' or 'tie'."""
    return "first" if a > b else "second" if b > a else "tie"


def best_value(cards: Sequence[str]) -> HandValue:
    """The value of the best five-card hand among five to seven cards (``best5(cards)[0]``) without ranking
    every five of them: what a showdown needs."""
    ranks = [ACE_HIGH[c[0]] for c in cards]
    by_suit: dict[str, list[int]] = {}
    count: dict[int, int] = {}
    for c, r in zip(cards, ranks):
        by_suit.setdefault(c[1], []).append(r)
        count[r] = count.get(r, 0) + 1
    flush = next((sorted(rs, reverse=True) for rs in by_suit.values() if len(rs) >= 5), None)
    if flush is not None:
        bits = 0
        for r in flush:
            bits |= 1 << r
        high = _best_straight(bits)
        if high is not None:
            return (ROYAL_FLUSH,) if high == 14 else (STRAIGHT_FLUSH, high)
    groups = sorted(count.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    top, n = groups[0]
    if n == 4:
        return (FOUR_OF_A_KIND, top, max(r for r in ranks if r != top))
    if n == 3 and len(groups) > 1 and groups[1][1] >= 2:
        return (FULL_HOUSE, top, groups[1][0])
    if flush is not None:
        return (FLUSH, *flush[:5])
    high = _best_straight(sum(1 << r for r in count))
    if high is not None:
        return (STRAIGHT, high)
    if n == 3:
        return (THREE_OF_A_KIND, top, *sorted((r for r in ranks if r != top), reverse=True)[:2])
    if n == 2:
        if groups[1][1] == 2:
            second = groups[1][0]
            return (TWO_PAIR, top, second, max(r for r in ranks if r != top and r != second))
        return (PAIR, top, *sorted((r for r in ranks if r != top), reverse=True)[:3])
    return (HIGH_CARD, *sorted(ranks, reverse=True)[:5])
