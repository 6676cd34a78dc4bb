"""Five-card hand values for the draw-poker family, the joker included. Pure.

Natural hands are valued by :func:`recognition.cards.poker.rank5` (ace high, also low in 5-4-3-2-A; suits never
break ties). A hand holding the joker (seed 000 L455: "the Joker can replace any card in the deck") is valued as
the best hand the joker can make standing for any of the 52 cards (a card already in the hand included, so four
of a kind and the joker is "Four of a Kind and Joker (Poker)", L473, the highest hand). Equal hands: the one
made without the joker wins (L475); that is the last element of a value, so values compare with ``<``/``==``.

A value is ``(category, *tiebreak, natural)``: ``natural`` is 1 without a joker, 0 with one.
"""

from __future__ import annotations

from collections.abc import Sequence

from recognition.cards.cards import ACE_HIGH, JOKERS, RANKS, SUITS
from recognition.cards.poker import CATEGORY_NAMES, HIGH_CARD, PAIR, rank5

#: the joker's own category, above the royal flush (L473: "Four of a Kind and Joker (Poker)")
FOUR_OF_A_KIND_AND_JOKER = 10
NAMES: tuple[str, ...] = CATEGORY_NAMES + ("four_of_a_kind_and_joker",)

HandValue = tuple[int, ...]


def is_joker(card: str) -> bool:
    return card in JOKERS


def _substitutes(others: Sequence[str]) -> list[str]:
    """The cards worth trying for the joker: every rank, in the suit the others share (a flush) and in one other
    suit (no better hand needs a particular suit otherwise)."""
    suits = {c[1] for c in others}
    common = next(iter(suits)) if len(suits) == 1 else None
    other = next(s for s in SUITS if s != common)
    out = []
    for r in RANKS:
        if common is not None:
            out.append(r + common)
        out.append(r + other)
    return out


def value5(cards: Sequence[str]) -> HandValue:
    """The value of exactly five cards (at most one joker)."""
    if len(cards) != 5:
        raise ValueError(f"a poker hand has five cards, not {len(cards)}")
    jokers = [c for c in cards if is_joker(c)]
    if not jokers:
        return (*rank5(cards), 1)
    if len(jokers) > 1:
        raise ValueError("a hand holds at most one joker (the deck has one)")
    others = [c for c in cards if not is_joker(c)]
    ranks = {c[0] for c in others}
    if len(ranks) == 1:  # four of a kind and the joker
        return (FOUR_OF_A_KIND_AND_JOKER, ACE_HIGH[others[0][0]], 0)
    return (*max(rank5(others + [sub]) for sub in _substitutes(others)), 0)


def best_value(cards: Sequence[str]) -> tuple[HandValue, tuple[str, ...]]:
    """The best five of five or six cards, and those five (the first best in combination order)."""
    from itertools import combinations

    if len(cards) == 5:
        return value5(cards), tuple(cards)
    if len(cards) != 6:
        raise ValueError(f"a draw-poker hand has five or six cards, not {len(cards)}")
    best: tuple[HandValue, tuple[str, ...]] | None = None
    for five in combinations(cards, 5):
        v = value5(five)
        if best is None or v > best[0]:
            best = (v, five)
    assert best is not None
    return best


def name(value: HandValue) -> str:
    return NAMES[value[0]]


def qualifies_ace_king(value: HandValue) -> bool:
    """Seed 000 L318, L374, L426: at least "Ace, King": a pair or better, or ace-king high."""
    return value[0] > HIGH_CARD or (value[1] == ACE_HIGH["A"] and value[2] == ACE_HIGH["K"])


def qualifies_pair(value: HandValue) -> bool:
    """Seed 000 L485 (poker with joker): at least one pair."""
    return value[0] >= PAIR
