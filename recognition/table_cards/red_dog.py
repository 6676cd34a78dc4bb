"""Red Dog (seed 000:L1589-1591; listed at L5). Pure.

The seed's rules, dealt from the card shoe, with the standard spread table where the seed gives no odds:

* 8 decks (``decks``), suits do not count, the ace high, the two low (L1591);
* two cards ("first", "second"); consecutive ranks: the bet is refunded, no third card; a pair: a third card,
  three of a kind pays 11 to 1, anything else is refunded (L1591);
* otherwise the spread (the ranks strictly between the two) is announced, players "Ride" (double the bet: a
  raise equal to the ante, a betting-backend matter; the deal does not change) or "Stand", and a third card is
  dealt: strictly between the two wins, else the ante and the raise lose. The seed gives no odds for the
  spread: the standard table, 1: 5 to 1, 2: 4 to 1, 3: 2 to 1, 4 or more: 1 to 1.

Bet spots: ``ante``, and ``raise`` (settled at the same odds as the ante when the spread wins).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

from recognition.cards.base import CardGame, need
from recognition.cards.cards import ACE_HIGH, Settlement
from recognition.evaluate_fast import CardLines

#: the spread's net odds (the standard table)
SPREAD_ODDS: dict[int, int] = {1: 5, 2: 4, 3: 2}
SPREAD_ODDS_WIDE = 1
THREE_OF_A_KIND_ODDS = 11
POSITIONS = ("first", "second", "third")


def spread(a: str, b: str) -> int:
    """The ranks strictly between two cards (0: consecutive; -1: a pair)."""
    return abs(ACE_HIGH[a[0]] - ACE_HIGH[b[0]]) - 1


def spread_odds(n: int) -> int:
    return SPREAD_ODDS.get(n, SPREAD_ODDS_WIDE)


class RedDog(CardGame):
    game_id = "red_dog"
    decks = 8

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        if len(cards) < 2:
            return POSITIONS[len(cards)]
        if len(cards) == 2 and spread(cards[0], cards[1]) != 0:
            return "third"
        return None

    def position_label(self, position: str) -> str:
        return f"the {position} card"

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        cards = [need(result, "first_card", self.game_id), need(result, "second_card", self.game_id)]
        if result.get("third_card") is not None:
            cards.append(result["third_card"])
        return cards

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        first, second = cards[0], cards[1]
        third = cards[2] if len(cards) > 2 else None
        n = spread(first, second)
        if n == 0:
            hand = "consecutive"
        elif n < 0:
            hand = "three_of_a_kind" if third is not None and third[0] == first[0] else "pair"
        else:
            assert third is not None
            low, high = sorted((ACE_HIGH[first[0]], ACE_HIGH[second[0]]))
            hand = "win" if low < ACE_HIGH[third[0]] < high else "lose"
        return {
            "first_card": first,
            "second_card": second,
            "third_card": third,
            "spread": max(n, 0),
            "hand": hand,
        }

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        s = Settlement()
        hand = result["hand"]
        if hand == "three_of_a_kind":
            s.win("ante", THREE_OF_A_KIND_ODDS)
        elif hand in ("consecutive", "pair"):
            s.push("ante", Fraction(1))
        elif hand == "win":
            odds = spread_odds(result["spread"])
            s.win("ante", odds)
            s.win("raise", odds)
        return s.as_dict(hand=hand, spread=result["spread"])

    fast_evaluate = True

    @cached_property
    def _fast(self) -> CardLines:
        return CardLines(self.evaluate, self.shoe_spec().copies, _shape)

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a plain round: the answer past the cards follows from the spread and
        the hand (recognition/evaluate_fast.py)."""
        return self._fast(line)


def _shape(cards: list[str], _high: dict[str, int] = ACE_HIGH) -> tuple[str, tuple[int, str]] | None:
    n = len(cards)
    if n == 2:
        first, second = cards
        if abs(_high[first[0]] - _high[second[0]]) != 1:
            return None
        third, facts = "null", (0, "consecutive")
    elif n == 3:
        first, second, third = cards
        a, b = _high[first[0]], _high[second[0]]
        if a > b:
            a, b = b, a
        if b - a == 1:
            return None
        if a == b:
            facts = (0, "three_of_a_kind" if third[0] == first[0] else "pair")
        else:
            facts = (b - a - 1, "win" if a < _high[third[0]] < b else "lose")
        third = f'"{third}"'
    else:
        return None
    return (
        f'"valid":true,"result":{{"first_card":"{first}","second_card":"{second}","third_card":{third},',
        facts,
    )


GAMES = {g.game_id: g for g in (RedDog(),)}
