"""Card codes, values and shoe compositions. Pure.

A card code is what a shoe driver puts in ``CardDrawn.card`` (devices/events.py):
rank ``A 2 3 4 5 6 7 8 9 T J Q K`` then suit ``S H D C`` ("AS", "TD", "9H").
``T`` is the ten (the vendor table's code; seed 000 L39 uses "T" for the ace in its
prose, which has nothing to do with these codes).

Jokers: ``JK`` is a joker whose colour the vendor table does not give;
``RJ`` / ``BJ`` are the red and black jokers, for games that tell them apart
(Jokerbet). Symbol cards (Rock Paper Scissors): ``ROCK``, ``PAPER``, ``SCISSORS``.

A :class:`ShoeSpec` says how many copies of each code a shoe holds; the judge uses
it to refuse a card drawn more often than the shoe can hold it, and
:func:`check_copies` does the same for one round in ``studio evaluate``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from recognition.payouts import exact_text

RANKS = "A23456789TJQK"
SUITS = "SHDC"
RED_SUITS = frozenset("HD")
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {
    "A": "ace",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "T": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
}

#: the 52 standard codes, spades first, then hearts, diamonds, clubs; A..K within a suit
STANDARD_52: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
JOKER, RED_JOKER, BLACK_JOKER = "JK", "RJ", "BJ"
JOKERS = frozenset({JOKER, RED_JOKER, BLACK_JOKER})
ROCK, PAPER, SCISSORS = "ROCK", "PAPER", "SCISSORS"
SYMBOLS: tuple[str, ...] = (ROCK, PAPER, SCISSORS)

#: baccarat point value of each rank (seed 000 L1501-1507): A=1, 2-9 face, T J Q K = 0
BACCARAT_VALUE = {r: (i + 1 if i < 9 else 0) for i, r in enumerate(RANKS)}
#: rank order with the ace low (Dragon Tiger, seed 000 L1807): A=1 .. K=13
ACE_LOW = {r: i + 1 for i, r in enumerate(RANKS)}
#: rank order with the ace high (Football Studio L1780, War of Bets L2619, poker): 2=2 .. A=14
ACE_HIGH = {r: (14 if r == "A" else i + 1) for i, r in enumerate(RANKS)}

_DESCRIBE_JOKER = {JOKER: "a joker", RED_JOKER: "the red joker", BLACK_JOKER: "the black joker"}


def rank(card: str) -> str:
    return card[0]


def suit(card: str) -> str:
    return card[1]


def is_red(card: str) -> bool:
    """Diamonds, hearts and the red joker are red (Jokerbet L3307, War of Bets, Speedy 7 L2515)."""
    if card == RED_JOKER:
        return True
    return len(card) == 2 and card[1] in RED_SUITS and card not in JOKERS


def describe(card: str) -> str:
    """Plain words for a card code, for the dealer: 'the nine of hearts (9H)'."""
    if card in _DESCRIBE_JOKER:
        return f"{_DESCRIBE_JOKER[card]} ({card})"
    if card in SYMBOLS:
        return f"a {card.lower()} card ({card})"
    if len(card) == 2 and card[0] in RANKS and card[1] in SUITS:
        return f"the {RANK_NAMES[card[0]]} of {SUIT_NAMES[card[1]]} ({card})"
    return repr(card)


def parse_card(value: Any) -> str:
    """A card code from an input value, or ValueError saying what is wrong (and what to write instead)."""
    if not isinstance(value, str):
        raise ValueError(f"a card is a code such as '9H' or 'TD', not {type(value).__name__} {value!r}")
    if len(value) == 2 and value[0] in RANKS and value[1] in SUITS:
        return value
    if value in JOKERS or value in SYMBOLS:
        return value
    text = value.strip().upper()
    if text.startswith("10") and len(text) == 3 and text[2] in SUITS:
        raise ValueError(f"{value!r} is not a card code; the ten is written T: write {'T' + text[2]!r}")
    if len(text) == 2 and text[0] in RANKS and text[1] in SUITS:
        raise ValueError(
            f"{value!r} is not a card code; write {text!r} (rank then suit, capitals, no spaces)"
        )
    raise ValueError(f"{value!r} is not a card code (rank A 2-9 T J Q K then suit S H D C, e.g. '9H', 'TD')")


@dataclass(frozen=True)
class ShoeSpec:
    """What one shoe (or one deck, for games that use a fresh deck each round) holds."""

    name: str
    copies: Mapping[str, int]
    #: jokers counted together against this limit when the vendor table cannot tell red from black ("JK")
    joker_limit: int = 0

    @property
    def size(self) -> int:
        return (
            sum(self.copies.values())
            if not self.joker_limit
            else (sum(n for c, n in self.copies.items() if c not in JOKERS) + self.joker_limit)
        )

    def limit(self, card: str) -> int:
        if card == JOKER:
            return self.joker_limit
        return self.copies.get(card, 0)

    def holds(self, card: str) -> bool:
        return self.limit(card) > 0

    def problem(self, card: str, drawn: Mapping[str, int]) -> str | None:
        """Why drawing `card` now is impossible given the counts already `drawn`, or None."""
        limit = self.limit(card)
        if limit == 0:
            return f"{describe(card)} is not a card of this shoe ({self.name})"
        already = drawn.get(card, 0)
        if already + 1 > limit:
            return (
                f"{describe(card)} was drawn {already + 1} times but this shoe ({self.name}) "
                f"holds only {limit}"
            )
        if card in JOKERS and self.joker_limit:
            jokers = sum(drawn.get(j, 0) for j in JOKERS)
            if jokers + 1 > self.joker_limit:
                return f"{jokers + 1} jokers were drawn but this shoe ({self.name}) holds only {self.joker_limit}"
        return None


def standard_shoe(
    decks: int, *, jokers: bool = False, ranks: str = RANKS, name: str | None = None
) -> ShoeSpec:
    """`decks` packs of the standard cards (optionally only some ranks, optionally with a red and a black joker)."""
    if decks < 1:
        raise ValueError(f"a shoe holds at least one deck, not {decks}")
    copies = {c: decks for c in STANDARD_52 if c[0] in ranks}
    limit = 0
    if jokers:
        copies[RED_JOKER] = decks
        copies[BLACK_JOKER] = decks
        copies[JOKER] = 2 * decks
        limit = 2 * decks
    size = len([c for c in STANDARD_52 if c[0] in ranks]) + (2 if jokers else 0)
    label = name or f"{decks} deck{'s' if decks != 1 else ''} of {size} cards"
    return ShoeSpec(label, copies, joker_limit=limit)


def symbol_shoe(per_symbol: int | None) -> ShoeSpec:
    """Rock/paper/scissors cards; `per_symbol` None: the composition is not known, so never refuse a copy."""
    if per_symbol is None:
        big = 1 << 30
        return ShoeSpec("symbol cards (composition not configured)", {s: big for s in SYMBOLS})
    return ShoeSpec(f"{per_symbol} of each symbol card", {s: per_symbol for s in SYMBOLS})


def check_copies(cards: Iterable[str], shoe: ShoeSpec) -> None:
    """ValueError if the cards of one round could not all come out of `shoe`."""
    seen: Counter[str] = Counter()
    for card in cards:
        problem = shoe.problem(card, seen)
        if problem:
            raise ValueError(problem)
        seen[card] += 1


# --- exact payouts ----------------------------------------------------------------


#: net odds as the feed writes them: an int when whole, else "n/d" (no floats on the feed)
odds = exact_text


def parse_odds(value: Any) -> Fraction:
    """The inverse of :func:`odds`: 11 -> 11, "19/20" -> 19/20; refuses floats and other forms."""
    if isinstance(value, bool):
        raise ValueError(f"odds are an integer or a fraction 'n/d', not {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, str):
        try:
            f = Fraction(value)
        except ValueError:
            pass
        else:
            if "." not in value and "e" not in value.lower():
                return f
    raise ValueError(f"odds are an integer or a fraction 'n/d', not {value!r}")


@dataclass
class Settlement:
    """The winning and pushed bet spots of one round, built in a stable order."""

    wins: list[dict[str, Any]] = field(default_factory=list)
    pushes: list[dict[str, Any]] = field(default_factory=list)

    def win(self, bet: str, payout: Fraction | int, **details: Any) -> None:
        self.wins.append({"bet": bet, "payout": odds(payout), **details})

    def push(self, bet: str, returned: Fraction | int = 1, **details: Any) -> None:
        """The stake, or the given part of it, is returned and nothing is won."""
        self.pushes.append({"bet": bet, "returned": odds(returned), **details})

    def as_dict(self, **extra: Any) -> dict[str, Any]:
        return {"winning_bets": self.wins, "pushed_bets": self.pushes, **extra}
