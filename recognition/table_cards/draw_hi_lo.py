"""Draw Hi-Lo (seed 000:L5, "table card games (..., Draw High Low, ...)": named, no rules given). Pure.

The published rules of the game, on the card shoe: 8 decks (``decks``), the ace high; the dealer turns a
base card ("base"), players bet whether the next card ("draw") is higher, lower or the same rank, or on its
colour; then the dealer draws it.

Bet spots: ``higher``, ``lower``, ``same``, ``red``, ``black``. The odds of higher and lower depend on the base
card (the fewer ranks above it, the more "higher" pays): they are the platform's published table, so the
winning spots carry no payout here, as for the other games whose odds the seed does not give.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from recognition.cards.base import CardGame, need
from recognition.cards.cards import ACE_HIGH, is_red

POSITIONS = ("base", "draw")


class DrawHiLo(CardGame):
    game_id = "draw_hi_lo"
    decks = 8

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        return POSITIONS[len(cards)] if len(cards) < 2 else None

    def position_label(self, position: str) -> str:
        return f"the {position} card"

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        return [need(result, "base_card", self.game_id), need(result, "draw_card", self.game_id)]

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        base, draw = ACE_HIGH[cards[0][0]], ACE_HIGH[cards[1][0]]
        relation = "higher" if draw > base else "lower" if draw < base else "same"
        return {"base_card": cards[0], "draw_card": cards[1], "relation": relation}

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        colour = "red" if is_red(result["draw_card"]) else "black"
        return {
            "winning_bets": [{"bet": result["relation"]}, {"bet": colour}],
            "pushed_bets": [],
            "base_card": result["base_card"],
        }


GAMES = {g.game_id: g for g in (DrawHiLo(),)}
