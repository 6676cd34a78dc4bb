"""Draw Hi-Lo (seed 000:L1593-1595; listed at L5 as "Draw High Low"). Pure.

The seed's rules, dealt from the card shoe: one deck (``decks``), the king highest and the ace lowest
(L1595); the dealer turns a base card ("base"), players bet whether the next card ("draw") is higher or lower,
and may add a Tie bet (the same rank) that pays 10 to 1; then the dealer draws it.

Bet spots: ``higher``, ``lower``, ``tie``. Higher and lower pay "according to the odd which is on the table for
that moment" (L1595): odds that depend on the base card, the platform's table, so those spots carry no payout
here, as for the other games whose odds the seed does not give.

Left open by the seed and chosen here: the seed's game is a chain ("higher or lower than the previous" card,
"it is possible to continue the main game"); a studio round here is one base card and one draw, each round
with a new base card, so that every round is certified on its own. A chain is a backend that offers the next
round's bet on the previous draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from recognition.cards.base import CardGame, need
from recognition.cards.cards import ACE_LOW

POSITIONS = ("base", "draw")
#: the Tie bet (L1595)
TIE_ODDS = 10


class DrawHiLo(CardGame):
    game_id = "draw_hi_lo"
    decks = 1

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        return POSITIONS[len(cards)] if len(cards) < 2 else None

    def position_label(self, position: str) -> str:
        return f"the {position} card"

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        return [need(result, "base_card", self.game_id), need(result, "draw_card", self.game_id)]

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        base, draw = ACE_LOW[cards[0][0]], ACE_LOW[cards[1][0]]
        relation = "higher" if draw > base else "lower" if draw < base else "same"
        return {"base_card": cards[0], "draw_card": cards[1], "relation": relation}

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        relation = result["relation"]
        return {
            "winning_bets": [{"bet": "tie", "payout": TIE_ODDS}]
            if relation == "same"
            else [{"bet": relation}],
            "pushed_bets": [],
            "base_card": result["base_card"],
        }


GAMES = {g.game_id: g for g in (DrawHiLo(),)}
