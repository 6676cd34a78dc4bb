"""Andar Bahar (seed 000 L3539-3597). Pure.

One 52-card deck, shuffled before each round (L3541). After betting closes the dealer deals the
Joker Card, then one card to each side in turn, starting with the side "determined randomly"
(L3543), until a card of the Joker's rank comes; that side wins.

The random first side is a computer draw (``draw_extras`` -> ``{"first_side": "andar"|"bahar"}``),
committed on the feed before betting closes, so nobody can choose it after seeing the Joker.
The table setting ``first_side`` = ``"andar"`` or ``"bahar"`` fixes it instead (still committed).

Deal order: ``joker``, then ``<first side>_1``, ``<other side>_1``, ``<first side>_2``...
Result: ``winner``, ``joker``, ``first_side``, ``andar_cards``, ``bahar_cards``, ``cards_dealt``
(cards after the Joker, the matching card included), ``winning_card``.
The seed gives no odds: winning bet spots carry no payout (the platform's odds table).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

from recognition.evaluate_fast import card_codes, codes_json, plain_line

from .base import CardGame, card_list, need, ordinal
from .cards import ACE_LOW, SUIT_NAMES, is_red

SIDES = ("andar", "bahar")
#: side bet on the number of cards dealt after the Joker (L3547-3563; the ranges as written, 16-25 included)
COUNT_RANGES: tuple[tuple[int, int | None], ...] = (
    (1, 5),
    (6, 10),
    (11, 15),
    (16, 25),
    (26, 30),
    (31, 35),
    (36, 40),
    (41, None),
)


def other(side: str) -> str:
    return SIDES[1] if side == SIDES[0] else SIDES[0]


class AndarBahar(CardGame):
    game_id = "andar_bahar"
    decks = 1
    reshuffle_each_round = True

    # --- the draw ----------------------------------------------------------------------------

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any] | None:
        rule = settings.get("first_side", "draw")
        if rule == "draw":
            return {"first_side": rng.choice(SIDES)}
        if rule in SIDES:
            return {"first_side": rule}
        raise ValueError(f"first_side is 'draw', 'andar' or 'bahar', not {rule!r}")

    def check_extras(self, extras: Any) -> None:
        if extras is None:
            return
        if (
            not isinstance(extras, Mapping)
            or set(extras) != {"first_side"}
            or extras["first_side"] not in SIDES
        ):
            raise ValueError(f"andar_bahar extras are {{'first_side': 'andar' or 'bahar'}}, not {extras!r}")

    def deal_context(self, source: Mapping[str, Any] | None) -> str:
        side = None
        if source is not None:
            side = source.get("first_side")
            extras = source.get("extras")
            if side is None and isinstance(extras, Mapping):
                side = extras.get("first_side")
        if side not in SIDES:
            raise ValueError(
                "andar_bahar needs the side that gets the first card after the Joker: 'first_side' "
                f"(in the round's extras) is 'andar' or 'bahar', not {side!r}"
            )
        return side

    def new_judge(self, **settings: Any):  # type: ignore[override]
        return super().new_judge(**{k: v for k, v in settings.items() if k != "first_side"})

    # --- deal script ---------------------------------------------------------------------------

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        n = len(cards)
        if n == 0:
            return "joker"
        if n >= 2 and cards[-1][0] == cards[0][0]:
            return None
        k = n  # the k-th card after the Joker comes next
        side = context if k % 2 == 1 else other(context)
        return f"{side}_{(k + 1) // 2}"

    def position_label(self, position: str) -> str:
        if position == "joker":
            return "the Joker Card"
        side, _, n = position.partition("_")
        return f"the {ordinal(int(n))} card to {side.capitalize()}"

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        first = context
        after = list(cards[1:])
        firsts, seconds = after[0::2], after[1::2]
        hands = {first: firsts, other(first): seconds}
        winner = first if len(after) % 2 == 1 else other(first)
        return {
            "winner": winner,
            "joker": cards[0],
            "first_side": first,
            "andar_cards": hands["andar"],
            "bahar_cards": hands["bahar"],
            "cards_dealt": len(after),
            "winning_card": after[-1],
        }

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        first = self.deal_context(result)
        lists = {s: card_list(need(result, f"{s}_cards", self.game_id), f"{s}_cards") for s in SIDES}
        a, b = lists[first], lists[other(first)]
        if not (len(a) == len(b) or len(a) == len(b) + 1):
            raise ValueError(
                f"{first} got the first card, so it has as many cards as {other(first)} or one more"
            )
        cards = [need(result, "joker", self.game_id)]
        for i in range(len(a)):
            cards.append(a[i])
            if i < len(b):
                cards.append(b[i])
        return cards

    # --- outcome ---------------------------------------------------------------------------------

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        bets = [result["winner"]]
        n = result["cards_dealt"]
        for low, high in COUNT_RANGES:
            if n >= low and (high is None or n <= high):
                bets.append(f"cards_{low}_{high}" if high else f"cards_{low}_or_more")
        bets.append("winning_card_red" if is_red(result["winning_card"]) else "winning_card_black")
        joker = result["joker"]
        bets.append("joker_red" if is_red(joker) else "joker_black")
        bets.append(f"joker_{SUIT_NAMES[joker[1]]}")
        value = ACE_LOW[joker[0]]  # the ace is low here (docs: the seed does not say)
        for pivot in (7, 8):
            bets.append(
                f"joker_{pivot}"
                if value == pivot
                else f"joker_lower_than_{pivot}"
                if value < pivot
                else f"joker_higher_than_{pivot}"
            )
        return {"winning_bets": [{"bet": b} for b in bets], "pushed_bets": []}

    # --- evaluate (fast path) -----------------------------------------------------------------------

    fast_evaluate = True

    @cached_property
    def _codes(self) -> frozenset[str]:
        return frozenset(self.shoe_spec().copies)

    @cached_property
    def _outcomes(self) -> dict[tuple[str, int, bool, str], tuple[str, str, str]]:
        return {}

    @cached_property
    def _outcome_texts(self) -> dict[tuple[str, tuple[int, ...], bool, str], str]:
        return {}

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a plain round with its first side (`{"id": N, "cards": [...],
        "extras": {"first_side": ...}}`, each card once, the Joker's rank again only at the end): the result
        written from the cards, the rest kept by what decides it (the first side, the count, the winning
        card's colour, the Joker). Anything else is the general path's (None)."""
        m = _PLAIN(line)
        if m is None:
            return None
        text = m[2]
        cards = text[1:-1].split('", "')  # as json.dumps writes a list; any other spacing below
        # each card a code of the deck, and once: as many codes of the deck among them as cards
        if len(self._codes.intersection(cards)) != len(cards):
            spaced = card_codes(text)
            if spaced is None or len(self._codes.intersection(spaced)) != len(spaced):
                return None
            cards = spaced
        n = len(cards) - 1
        if n < 1:
            return None
        joker = cards[0]
        rank = joker[0]
        # each code is two characters, the rank first, each in quotes in the text
        if cards[-1][0] != rank or text.count('"' + rank) != 2:
            return None
        first = m[3]
        last = cards[-1]
        # the first side and the count decide the winner: the key's facts give every text but the cards'
        key = (first, n, last[1] in "HD", joker)
        texts = self._outcomes.get(key)
        if texts is None:
            winner = first if n % 2 else other(first)
            # the outcome reads the count only by its ranges: kept by those (1,664 outcomes, not 10,608)
            ranges = tuple(
                i for i, (low, high) in enumerate(COUNT_RANGES) if low <= n and (high is None or n <= high)
            )
            facts = (winner, ranges, key[2], joker)
            outcome = self._outcome_texts.get(facts)
            if outcome is None:
                result = {"winner": winner, "joker": joker, "cards_dealt": n, "winning_card": last}
                outcome = self._outcome_texts[facts] = json.dumps(self.outcome(result), separators=(",", ":"))
            texts = self._outcomes[key] = (
                (
                    f'"valid":true,"result":{{"winner":"{winner}","joker":"{joker}","first_side":"{first}",'
                    '"andar_cards":'
                ),
                f',"cards_dealt":{n},"winning_card":"',
                f'"}},"outcome":{outcome}}}\n',
            )
        head, mid, tail = texts
        firsts, seconds = codes_json(cards[1::2]), codes_json(cards[2::2])
        if first == "andar":
            return f'{{"id":{m[1]},{head}{firsts},"bahar_cards":{seconds}{mid}{last}{tail}'
        return f'{{"id":{m[1]},{head}{seconds},"bahar_cards":{firsts}{mid}{last}{tail}'


#: a plain Andar Bahar line: its id, its cards' list, its first side
_PLAIN = plain_line(r'"cards": ?\[([^\]]*)\], ?"extras": ?\{"first_side": ?"(andar|bahar)"\}').fullmatch

GAMES = {g.game_id: g for g in (AndarBahar(),)}
