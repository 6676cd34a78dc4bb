"""Blackjack side bets of seed 000 (L233-281): Perfect Pairs, 21+3, Suit'em Up, Lucky Lucky, Bust It. Pure.

Every bet is settled from the cards alone, whatever happens to the main bet (L233, L251):

* **Perfect Pairs** ("Ideal Pare", L235-240): the player's first two cards.
* **21+3** (L242-249): the player's first two cards and the dealer's first (up) card.
* **Suit'em Up** (L253-260): the player's first two cards.
* **Lucky Lucky** (L262-272): the seed does not say which cards; the standard bet (and the only one its
  examples fit, three cards): the player's first two cards and the dealer's up card.
* **Bust It** (L274-281): the dealer's final hand; wins when the dealer busts (L274 "when the dealer loses":
  a dealer loses to every standing hand only by busting), paid by the number of cards in the dealer's hand.

Payouts are **net odds to 1** (ints; "n/d" strings if a table ever needs a fraction, never floats), exactly
seed 000's tables. Only the highest winning line of a bet pays. See docs/blackjack-side-bets.md.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from recognition.cards.cards import JOKERS, RED_SUITS, parse_card

#: Perfect Pairs (L237-240), best first
PERFECT_PAIRS: dict[str, int] = {
    "perfect_pair": 25,  # the same card twice (rank and suit): 8H 8H
    "coloured_pair": 12,  # the same rank, different suits of one colour: 7H 7D
    "mixed_pair": 6,  # the same rank, one red and one black: TH TC
}

#: 21+3 (L244-249), best first
TWENTY_ONE_PLUS_THREE: dict[str, int] = {
    "suited_trips": 100,  # three identical cards: 6H 6H 6H
    "straight_flush": 40,  # three ranks in sequence, one suit
    "three_of_a_kind": 30,  # one rank, not all of one suit ("mixed triplet")
    "straight": 10,  # three ranks in sequence, not all one suit
    "flush": 5,  # one suit, not in sequence
}

#: Suit'em Up (L255-260), best first
SUIT_EM_UP: dict[str, int] = {
    "suited_aces": 60,  # two aces of one suit
    "suited_blackjack": 10,  # an ace and a ten-valued card of one suit
    "suited_pair": 5,  # two cards of one rank and suit (not aces)
    "suited_eleven": 3,  # two cards of one suit worth 11 together: 2-9, 3-8, 4-7, 5-6
    "suited": 2,  # any other two cards of one suit
}

#: Lucky Lucky (L264-272), best first; totals count an ace as 1 or 11 (the better total up to 21)
LUCKY_LUCKY: dict[str, int] = {
    "suited_777": 200,
    "suited_678": 100,
    "any_777": 50,
    "any_678": 30,
    "suited_21": 15,
    "any_21": 3,
    "any_20": 2,
    "any_19": 2,
}

#: Bust It (L276-281): the dealer busts with this many cards. The seed's last row reads "3 or 4 cards 2:1";
#: as written the bet would return 111.1% (the player's edge 11.1%, computed exactly for 8 decks, the dealer
#: standing on 17): a merged row. The standard table (Evolution's Bust It, whose separate "3 cards" and
#: "4 cards" tiers seed 004 L363-370 lists) pays 3 cards 1:1 and 4 cards 2:1, which is used here.
BUST_IT: dict[str, int] = {
    "bust_8_or_more_cards": 250,
    "bust_7_cards": 100,
    "bust_6_cards": 50,
    "bust_5_cards": 9,
    "bust_4_cards": 2,
    "bust_3_cards": 1,
}
#: seed 000's Bust It rows exactly as written (3 or 4 cards 2:1): SideBetRules(pay_tables={"bust_it": ...})
BUST_IT_AS_WRITTEN: dict[str, int] = {**BUST_IT, "bust_3_cards": 2}

#: every side bet, in settlement order, with its pay table (data for docs and the console)
PAY_TABLES: dict[str, dict[str, int]] = {
    "perfect_pairs": PERFECT_PAIRS,
    "twenty_one_plus_three": TWENTY_ONE_PLUS_THREE,
    "suit_em_up": SUIT_EM_UP,
    "lucky_lucky": LUCKY_LUCKY,
    "bust_it": BUST_IT,
}
SIDE_BETS: tuple[str, ...] = tuple(PAY_TABLES)

#: what each bet looks at, for the console and the docs
BET_CARDS: dict[str, str] = {
    "perfect_pairs": "the player's first two cards",
    "twenty_one_plus_three": "the player's first two cards and the dealer's up card",
    "suit_em_up": "the player's first two cards",
    "lucky_lucky": "the player's first two cards and the dealer's up card",
    "bust_it": "the dealer's final hand (it busts; paid by its number of cards)",
}

#: blackjack value of a rank: A=1 (11 where it helps), 2-9 face, T J Q K = 10
BJ_VALUE = {
    "A": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "T": 10,
    "J": 10,
    "Q": 10,
    "K": 10,
}
#: rank order for sequences, the ace high (A=14); A-2-3 is also a sequence (the ace low)
_SEQ = {
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "T": 10,
    "J": 11,
    "Q": 12,
    "K": 13,
    "A": 14,
}


@dataclass(frozen=True)
class SideBetRules:
    """Choices the seed leaves open (defaults: seed 000 as written, standard readings where it is silent).

    bust_it_player_blackjack: "push" (default: seed 000 is silent; the standard live rule, seed 004 L361 "The Bust
        It side bet is pushed if the player has Blackjack", and the one its published RTP assumes): the bet is
        listed as returned, {"bet": "bust_it", "returned": 1, "hand": "player_blackjack"}; "play": settled on
        the dealer's hand like any other.
    pay_tables: replacement pay tables by bet id (same line names; an operator's variant).
    """

    bust_it_player_blackjack: str = "push"
    pay_tables: Mapping[str, Mapping[str, int | str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.bust_it_player_blackjack not in ("play", "push"):
            raise ValueError(
                f"bust_it_player_blackjack is 'play' or 'push', not {self.bust_it_player_blackjack!r}"
            )
        for bet, table in self.pay_tables.items():
            if bet not in PAY_TABLES:
                raise ValueError(f"unknown side bet {bet!r}; known: {', '.join(SIDE_BETS)}")
            unknown = set(table) - set(PAY_TABLES[bet])
            if unknown:
                raise ValueError(
                    f"{bet}: unknown lines {sorted(unknown)}; known: {', '.join(PAY_TABLES[bet])}"
                )
            for line, odds in table.items():
                if isinstance(odds, bool) or not isinstance(odds, (int, str)) or isinstance(odds, float):
                    raise ValueError(f"{bet}.{line}: odds are an int or an 'n/d' string, not {odds!r}")

    def table(self, bet: str) -> Mapping[str, int | str]:
        return self.pay_tables.get(bet, PAY_TABLES[bet])


DEFAULT_RULES = SideBetRules()


# --- the hands --------------------------------------------------------------------------------------


def _colour(card: str) -> str:
    return "red" if card[1] in RED_SUITS else "black"


def perfect_pairs_hand(c1: str, c2: str) -> str | None:
    """The Perfect Pairs line of the player's first two cards, or None. A pair is two cards of one rank
    (a ten and a king are not a pair, L39 "The Same Value")."""
    if c1[0] != c2[0]:
        return None
    if c1[1] == c2[1]:
        return "perfect_pair"
    return "coloured_pair" if _colour(c1) == _colour(c2) else "mixed_pair"


def _is_sequence(ranks: Sequence[str]) -> bool:
    values = sorted(_SEQ[r] for r in ranks)
    if len(set(values)) != 3:
        return False
    return values[2] - values[0] == 2 or values == [2, 3, 14]  # Q-K-A (ace high) and A-2-3 (ace low)


def twenty_one_plus_three_hand(c1: str, c2: str, up: str) -> str | None:
    """The 21+3 line of the player's two cards and the dealer's up card, or None (the ace high or low in a
    sequence: A-2-3 and Q-K-A count, K-A-2 does not)."""
    cards = (c1, c2, up)
    ranks = [c[0] for c in cards]
    suited = len({c[1] for c in cards}) == 1
    if len(set(ranks)) == 1:
        return "suited_trips" if suited else "three_of_a_kind"
    if _is_sequence(ranks):
        return "straight_flush" if suited else "straight"
    return "flush" if suited else None


def suit_em_up_hand(c1: str, c2: str) -> str | None:
    """The Suit'em Up line of the player's first two cards, or None."""
    if c1[1] != c2[1]:
        return None
    r1, r2 = c1[0], c2[0]
    if r1 == r2 == "A":
        return "suited_aces"
    if {BJ_VALUE[r1], BJ_VALUE[r2]} == {1, 10}:
        return "suited_blackjack"
    if r1 == r2:
        return "suited_pair"
    if BJ_VALUE[r1] + BJ_VALUE[r2] == 11 and "A" not in (r1, r2):
        return "suited_eleven"
    return "suited"


def blackjack_total(cards: Sequence[str]) -> int:
    """The best blackjack total: aces count 1, one of them 11 when that stays at 21 or below."""
    total = sum(BJ_VALUE[c[0]] for c in cards)
    if any(c[0] == "A" for c in cards) and total + 10 <= 21:
        total += 10
    return total


def lucky_lucky_hand(c1: str, c2: str, up: str) -> str | None:
    """The Lucky Lucky line of the player's two cards and the dealer's up card, or None."""
    cards = (c1, c2, up)
    suited = len({c[1] for c in cards}) == 1
    ranks = sorted(c[0] for c in cards)
    if ranks == ["7", "7", "7"]:
        return "suited_777" if suited else "any_777"
    if ranks == ["6", "7", "8"]:
        return "suited_678" if suited else "any_678"
    total = blackjack_total(cards)
    if total == 21:
        return "suited_21" if suited else "any_21"
    if total == 20:
        return "any_20"
    if total == 19:
        return "any_19"
    return None


def bust_it_hand(dealer_cards: Sequence[str]) -> str | None:
    """The Bust It line of the dealer's final hand (it busted), or None. Two cards cannot bust."""
    total = sum(BJ_VALUE[c[0]] for c in dealer_cards)  # a bust counts every ace as 1
    if total <= 21:
        return None
    n = len(dealer_cards)
    if n >= 8:
        return "bust_8_or_more_cards"
    return f"bust_{n}_cards"


# --- settlement ------------------------------------------------------------------------------------------


def _cards(values: Any, what: str) -> list[str]:
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"{what} must be a list of card codes, not {type(values).__name__}")
    out = []
    for i, raw in enumerate(values):
        try:
            card = parse_card(raw)
        except ValueError as exc:
            raise ValueError(f"{what}, card {i + 1}: {exc}") from None
        if card in JOKERS or len(card) != 2:
            raise ValueError(f"{what}, card {i + 1}: {card!r} is not a card of a blackjack shoe")
        out.append(card)
    return out


def settle_side_bets(
    player_cards: list[str],
    dealer_cards: list[str],
    dealer_up: str,
    bets: tuple[str, ...] | None = None,
    *,
    rules: SideBetRules = DEFAULT_RULES,
) -> list[dict]:
    """The winning side bets of one seat, best line of each, in the order of SIDE_BETS.

    player_cards: the seat's first two cards (only the first two are used; a split hand's cards are not);
    dealer_cards: the dealer's final hand in deal order, the up card first (may be just [dealer_up] when
    no Bust It bet is offered, or empty); dealer_up: the dealer's up card; bets: the side bets the table
    offers (None: all of SIDE_BETS).

    Returns e.g. [{"bet": "perfect_pairs", "payout": 25, "hand": "perfect_pair"}]: net odds to 1. A bet not
    listed loses. With rules.bust_it_player_blackjack == "push" a player blackjack lists Bust It as returned:
    {"bet": "bust_it", "returned": 1, "hand": "player_blackjack"}. Raises ValueError on bad input.
    """
    if bets is None:
        wanted = SIDE_BETS
    else:
        if isinstance(bets, str) or not isinstance(bets, (list, tuple)):
            raise ValueError(f"bets must be a tuple of side bet ids, not {bets!r}")
        unknown = [b for b in bets if b not in PAY_TABLES]
        if unknown:
            raise ValueError(f"unknown side bet(s) {unknown}; known: {', '.join(SIDE_BETS)}")
        wanted = tuple(b for b in SIDE_BETS if b in bets)
    player = _cards(player_cards, "player_cards")
    if len(player) < 2:
        raise ValueError(f"side bets need the player's first two cards, not {len(player)}")
    dealer = _cards(dealer_cards, "dealer_cards")
    (up,) = _cards([dealer_up], "dealer_up")
    if dealer and dealer[0] != up:
        raise ValueError(f"dealer_up is {up} but the dealer's first card is {dealer[0]}")
    c1, c2 = player[0], player[1]
    out: list[dict] = []
    for bet in wanted:
        if bet == "perfect_pairs":
            hand = perfect_pairs_hand(c1, c2)
        elif bet == "twenty_one_plus_three":
            hand = twenty_one_plus_three_hand(c1, c2, up)
        elif bet == "suit_em_up":
            hand = suit_em_up_hand(c1, c2)
        elif bet == "lucky_lucky":
            hand = lucky_lucky_hand(c1, c2, up)
        else:
            if rules.bust_it_player_blackjack == "push" and blackjack_total((c1, c2)) == 21:
                out.append({"bet": bet, "returned": 1, "hand": "player_blackjack"})
                continue
            if len(dealer) < 2:
                raise ValueError("Bust It needs the dealer's final hand (dealer_cards, the up card first)")
            hand = bust_it_hand(dealer)
        if hand is not None:
            out.append({"bet": bet, "payout": rules.table(bet)[hand], "hand": hand})
    return out


# --- exact house edges (enumeration over a shoe's composition) --------------------------------------------

_STANDARD = tuple(r + s for s in "SHDC" for r in "A23456789TJQK")
_HAND_OF = {
    "perfect_pairs": lambda a, b, c: perfect_pairs_hand(a, b),
    "twenty_one_plus_three": twenty_one_plus_three_hand,
    "suit_em_up": lambda a, b, c: suit_em_up_hand(a, b),
    "lucky_lucky": lucky_lucky_hand,
}


def first_three_counts(bet: str, decks: int = 8) -> dict[str | None, int]:
    """Ordered (player card 1, player card 2, dealer up card) deals from a full shoe of `decks` decks, by the
    line of `bet` they give (None: the bet loses). Exact: every ordered triple of card codes weighted by how
    many ways the shoe deals it."""
    hand_of = _HAND_OF[bet]
    n = decks
    counts: dict[str | None, int] = {}
    for a in _STANDARD:
        for b in _STANDARD:
            wb = n - (a == b)
            for c in _STANDARD:
                w = n * wb * (n - (c == a) - (c == b))
                if w <= 0:
                    continue
                hand = hand_of(a, b, c)
                counts[hand] = counts.get(hand, 0) + w
    return counts


def _parse_fraction(odds: int | str):
    from fractions import Fraction

    return Fraction(odds)


def house_edge_first_three(bet: str, decks: int = 8, table: Mapping[str, int | str] | None = None):
    """The exact house edge (a Fraction of the stake) of a bet settled on the first three cards."""
    from fractions import Fraction

    table = table or PAY_TABLES[bet]
    counts = first_three_counts(bet, decks)
    total = sum(counts.values())
    ret = sum(Fraction(w) * (_parse_fraction(table[h]) if h is not None else -1) for h, w in counts.items())
    return -ret / total


def _value_index(card_or_rank: str) -> int:
    return BJ_VALUE[card_or_rank[0]] - 1


def dealer_bust_distribution(
    decks: int = 8, hit_soft_17: bool = False, without: Sequence[str] = ()
) -> dict[int, Any]:
    """P(the dealer's final hand busts with exactly n cards), n >= 3 (Fractions), dealing from a shoe of `decks`
    decks less the cards `without` (e.g. the player's two cards; () gives the usual off-the-top figure). The
    dealer draws to 16 and stands on 17 (hit_soft_17: draws to a soft 17). No hole card: the dealer's hand is
    his up card and his draws."""
    from fractions import Fraction

    per_value = [4 * decks] * 9 + [16 * decks]  # values 1..10
    for card in without:
        per_value[_value_index(card)] -= 1
    size = sum(per_value)

    @functools.cache
    def walk(removed: tuple[int, ...]) -> tuple[tuple[int, Fraction], ...]:
        n_cards = sum(removed)
        hard = sum((v + 1) * k for v, k in enumerate(removed))
        soft = removed[0] > 0 and hard + 10 <= 21
        total = hard + 10 if soft else hard
        if hard > 21:
            return ((n_cards, Fraction(1)),)
        if n_cards >= 2 and (total > 17 or (total == 17 and not (soft and hit_soft_17))):
            return ()
        left = size - n_cards
        out: dict[int, Fraction] = {}
        for v in range(10):
            k = per_value[v] - removed[v]
            if k <= 0:
                continue
            nxt = list(removed)
            nxt[v] += 1
            p = Fraction(k, left)
            for cards, q in walk(tuple(nxt)):
                out[cards] = out.get(cards, Fraction(0)) + p * q
        return tuple(sorted(out.items()))

    return dict(walk((0,) * 10))


def _bust_it_return(dist: Mapping[int, Any], table: Mapping[str, int | str]):
    from fractions import Fraction

    ret, busted = Fraction(0), Fraction(0)
    for n, p in dist.items():
        line = "bust_8_or_more_cards" if n >= 8 else f"bust_{n}_cards"
        ret += p * _parse_fraction(table[line])
        busted += p
    return ret - (1 - busted)


def bust_it_house_edge(
    decks: int = 8,
    hit_soft_17: bool = False,
    table: Mapping[str, int | str] | None = None,
    player_blackjack: str = "play",
):
    """The exact house edge of Bust It (a Fraction of the stake). player_blackjack "play": the dealer's hand off
    the top of a full shoe; "push": the bet is returned when the player's first two cards are a blackjack (the
    dealer's hand then drawn from the shoe less that ace and ten)."""
    from fractions import Fraction

    table = table or BUST_IT
    ret = _bust_it_return(dealer_bust_distribution(decks, hit_soft_17), table)
    if player_blackjack == "push":
        n = 52 * decks
        p_bj = Fraction(2 * 4 * decks * 16 * decks, n * (n - 1))
        ret -= p_bj * _bust_it_return(dealer_bust_distribution(decks, hit_soft_17, without=("A", "T")), table)
    return -ret
