"""Draw-poker hand values (recognition/draw_poker/hands.py): the joker exhaustively by rank/suit classes,
the natural-beats-joker rule, the dealers' qualification."""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement

from recognition.cards.cards import ACE_HIGH, RANKS, STANDARD_52
from recognition.cards.poker import (
    FLUSH,
    FOUR_OF_A_KIND,
    HIGH_CARD,
    PAIR,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TWO_PAIR,
    rank5,
)
from recognition.draw_poker.hands import (
    FOUR_OF_A_KIND_AND_JOKER,
    best_value,
    name,
    qualifies_ace_king,
    qualifies_pair,
    value5,
)


def brute_joker(others):
    """The joker standing for each of the 52 cards in turn (five of a kind: its own category)."""
    best = None
    for sub in STANDARD_52:
        hand = list(others) + [sub]
        if len({c[0] for c in hand}) == 1:
            v = (FOUR_OF_A_KIND_AND_JOKER, ACE_HIGH[sub[0]])
        else:
            v = rank5(hand)
        best = v if best is None or v > best else best
    return (*best, 0)


def four_card_classes():
    """Every multiset of four ranks (at most four of a rank), with suits: unsuited, and all one suit where the
    ranks differ. Yields the four cards."""
    for ranks in combinations_with_replacement(RANKS, 4):
        used: dict[str, int] = {}
        cards = []
        for r in ranks:
            k = used.get(r, 0)
            used[r] = k + 1
            cards.append(r + "SHDC"[k])
        if len(set(ranks)) == 4:
            cards = [r + s for r, s in zip(ranks, "SSSH")]  # not a flush
            yield cards
            yield [r + "D" for r in ranks]  # all one suit
        else:
            yield cards


def test_joker_every_four_card_class():
    n = 0
    for others in four_card_classes():
        assert value5(others + ["JK"]) == brute_joker(others), others
        n += 1
    assert (
        value5(["2S", "9H", "JK", "5D", "KC"])
        == value5(["2S", "9H", "RJ", "5D", "KC"])
        == value5(["BJ", "2S", "9H", "5D", "KC"])
    )
    assert n == 1820 + 715


def test_joker_hands_by_example():
    assert name(value5(["AS", "AH", "AD", "AC", "JK"])) == "four_of_a_kind_and_joker"
    assert value5(["2S", "2H", "2D", "2C", "JK"]) < value5(["3S", "3H", "3D", "3C", "RJ"])
    assert value5(["AS", "KS", "QS", "JS", "JK"])[0] == ROYAL_FLUSH
    assert value5(["9S", "KS", "QS", "JS", "JK"])[0] == STRAIGHT_FLUSH  # K-high straight flush (TS)
    assert value5(["2S", "3H", "4D", "5C", "JK"])[:2] == (STRAIGHT, 6)  # 2-6 beats A-5
    assert value5(["2S", "7S", "9S", "KS", "JK"])[:3] == (FLUSH, 14, 13)  # the joker as the ace
    assert value5(["2S", "7H", "9D", "KC", "JK"])[:3] == (PAIR, 13, 9)  # pairs the king
    assert value5(["KS", "KH", "9D", "9C", "JK"])[0] == 6  # full house, kings over nines
    assert value5(["KS", "KH", "KD", "9C", "JK"])[0] == FOUR_OF_A_KIND


def test_equal_hands_the_natural_one_wins():
    natural = value5(["AH", "KH", "QH", "JH", "TH"])
    wild = value5(["AS", "KS", "QS", "JS", "JK"])
    assert natural > wild and natural[:-1] == wild[:-1]
    assert value5(["AS", "AH", "7D", "5C", "3S"]) > value5(["AD", "JK", "7H", "5S", "3C"])
    # the joker's hand still wins when it is better
    assert value5(["AD", "JK", "7H", "5S", "4C"]) > value5(["AS", "AH", "7D", "5C", "3S"])
    # natural hands carry 1, so two natural hands compare as poker.rank5 does
    assert value5(["AS", "AH", "7D", "5C", "3S"]) == value5(["AD", "AC", "7H", "5S", "3C"])


def test_best_of_six():
    v, five = best_value(["AS", "AH", "5D", "6C", "2S", "AD"])
    assert v[0] == 3 and set(five) == {"AS", "AH", "AD", "5D", "6C"}
    v, five = best_value(["2S", "3S", "4S", "5S", "9H", "6S"])
    assert v[:2] == (STRAIGHT_FLUSH, 6)


def ace_king_oracle(cards):
    v = rank5(cards)
    if v[0] != HIGH_CARD:
        return True
    ranks = sorted((ACE_HIGH[c[0]] for c in cards), reverse=True)
    return ranks[:2] == [14, 13]


def test_qualification_every_high_card_rank_class():
    """Every set of five distinct ranks, unsuited: ace-king high or better qualifies (seed 000 L318); a pair is
    needed in poker with joker (L485); any pair qualifies both."""
    suits = "SHDCS"
    n_qual = 0
    for ranks in combinations(RANKS, 5):
        cards = [r + s for r, s in zip(ranks, suits)]
        v = value5(cards)
        assert qualifies_ace_king(v) == ace_king_oracle(cards)
        assert qualifies_pair(v) == (v[0] >= PAIR)
        n_qual += qualifies_ace_king(v) and v[0] == HIGH_CARD
    # A-K with three of the other eleven ranks, less A-K-Q-J-T (a straight)
    assert n_qual == 165 - 1
    for pair in ("2", "A"):
        v = value5([pair + "S", pair + "H", "7D", "5C", "3S"])
        assert qualifies_ace_king(v) and qualifies_pair(v)
    assert not qualifies_ace_king(value5(["AS", "QH", "JD", "9C", "8S"]))
    assert qualifies_pair(value5(["AS", "JK", "7D", "5C", "3S"]))  # the joker always makes a pair
    assert qualifies_ace_king(value5(["2S", "3H", "4D", "5C", "AS"]))  # a straight
    assert value5(["AS", "KH", "QD", "JC", "TS"])[0] == STRAIGHT
    assert value5(["AS", "AH", "KD", "KC", "3S"])[0] == TWO_PAIR
