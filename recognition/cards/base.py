"""What every card game shares: the deal script contract, evaluate, validate_result. Pure.

A card game dealt without player decisions is fully described by its **deal script**:

* ``next_position(cards, context)``: given the cards already dealt in this round (in
  deal order), the position the next card goes to (``"player_2"``, ``"dragon"``,
  ``"flop_1"``...), or ``None`` when the hand is complete;
* ``result_from_cards(cards, context)``: the result of a complete hand;
* ``cards_from_result(result)``: the deal order back from a result (so a result typed
  in by people, or read from the journal, is re-checked card by card).

``context`` is whatever the deal depends on besides the cards: ``None`` for almost
every game; Andar Bahar's first side (a computer draw committed before betting closes).

The same script drives :class:`recognition.cards.judge.CardJudge` (device events in,
decisions out) and ``studio evaluate`` (a recorded round in, result and outcome out),
so the studio and an auditor can never disagree about a deal.
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from recognition.game import BaseGame

from .cards import ShoeSpec, check_copies, describe, parse_card, standard_shoe

DEVICE_KINDS: tuple[str, ...] = ("serial-shoe", "camera-shoe")

#: how the first cards of a new shoe are burned (see docs/card-games.md, "Burn cards")
SHOE_START_BURNS = ("none", "face_value", "fixed")


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


class CardGame(BaseGame):
    """Defaults for a card game: dealer pacing, a card shoe, a deal script, evaluate over the script."""

    game_id: str = ""
    device_kinds: tuple[str, ...] = DEVICE_KINDS
    pacing = "dealer"  # type: ignore[assignment]
    #: decks in the shoe (a fresh deck per round for games with reshuffle_each_round)
    decks: int = 8
    #: a fresh (or reshuffled) deck every round: the copy check starts afresh at each round
    reshuffle_each_round: bool = False
    #: default burn at the start of a new shoe (the judge's shoe_start_burn setting overrides it)
    shoe_start_burn: str = "none"
    shoe_start_burn_count: int = 0
    #: decks follow one another without a cut card (Jokerbet): a card of another deck starts a new shoe
    alternating_decks: bool = False

    # --- the shoe -----------------------------------------------------------------------

    def shoe_spec(self, decks: int | None = None) -> ShoeSpec:
        return standard_shoe(decks or self.decks)

    # --- the deal script (subclasses) --------------------------------------------------------

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        raise NotImplementedError

    def position_label(self, position: str) -> str:
        """Plain words for a position, for the dealer and for error messages."""
        name, _, n = position.rpartition("_")
        if n.isdigit() and name:
            return f"the {name.replace('_', ' ')}'s {ordinal(int(n))} card"
        return f"the {position.replace('_', ' ')} card"

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        raise NotImplementedError

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        raise NotImplementedError

    def deal_context(self, source: Mapping[str, Any] | None) -> Any:
        """What the deal depends on besides the cards, from a round's extras, an evaluate item or a result.
        Raises ValueError when it is needed and missing."""
        return None

    # --- shared machinery -------------------------------------------------------------------

    def deal(self, raw_cards: Any, context: Any = None) -> tuple[list[str], list[str]]:
        """Check a whole deal against the script: (cards, positions), or ValueError naming the problem."""
        if not isinstance(raw_cards, (list, tuple)):
            raise ValueError(f"'cards' must be a list of card codes in deal order, not {type(raw_cards).__name__}")
        shoe = self.shoe_spec()
        cards: list[str] = []
        positions: list[str] = []
        for i, raw in enumerate(raw_cards):
            try:
                card = parse_card(raw)
            except ValueError as exc:
                raise ValueError(f"card {i + 1}: {exc}") from None
            if not shoe.holds(card):
                raise ValueError(f"card {i + 1}: {describe(card)} is not a card of {self.game_id} ({shoe.name})")
            position = self.next_position(cards, context)
            if position is None:
                raise ValueError(f"card {i + 1} ({card}) is not used by the rules: the hand was complete after "
                                 f"{len(cards)} card{'s' if len(cards) != 1 else ''}")
            cards.append(card)
            positions.append(position)
        position = self.next_position(cards, context)
        if position is not None:
            raise ValueError(f"too few cards ({len(cards)}): the next card is {self.position_label(position)} "
                             f"({position})")
        check_copies(cards, shoe)
        return cards, positions

    def evaluate(self, item: dict[str, Any]) -> dict[str, Any]:
        if "cards" not in item:
            raise ValueError("a recorded round needs 'cards': the card codes in deal order")
        extras = item.get("extras")
        self.check_extras(extras)
        context = self.deal_context(item)
        cards, _ = self.deal(item["cards"], context)
        result = self.result_from_cards(cards, context)
        return {"result": result, "outcome": self.outcome(result, extras)}

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """The canonical result for a result dict (the judge's, or one typed in by people).

        Accepts the canonical form or ``{"cards": [...]}`` in deal order. The cards are re-dealt
        through the script; every other given key must agree with what the cards give.
        Keys the canonical result does not have are dropped.
        """
        if not isinstance(result, Mapping):
            raise ValueError(f"a {self.game_id} result is a dict, not {type(result).__name__}")
        context = self.deal_context(result)
        raw = result["cards"] if "cards" in result else self.cards_from_result(result)
        cards, _ = self.deal(raw, context)
        canonical = self.result_from_cards(cards, context)
        for key, value in result.items():
            if key in canonical and key != "cards" and value != canonical[key]:
                raise ValueError(f"{key} is {canonical[key]!r} for these cards, not {value!r}")
        return canonical

    def check_extras(self, extras: Any) -> None:
        """ValueError if `extras` (a round's committed draws) is not what this game draws."""
        if extras not in (None, {}):
            raise ValueError(f"{self.game_id} has no computer draws, but extras {extras!r} were given")

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any] | None:
        return None

    def new_judge(self, **settings: Any):  # type: ignore[override]
        from .judge import CardJudge

        return CardJudge(self, **settings)


def need(result: Mapping[str, Any], key: str, game_id: str) -> Any:
    if key not in result:
        raise ValueError(f"a {game_id} result needs {key!r} (or 'cards': the card codes in deal order)")
    return result[key]


def card_list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{key!r} must be a list of card codes, not {type(value).__name__}")
    return list(value)
