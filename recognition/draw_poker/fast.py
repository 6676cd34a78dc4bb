"""`studio evaluate`'s fast path of the draw-poker games with one card decision (5-card poker with exchange,
6-card poker). Pure.

A plain line, ``{"id": 17, "cards": [...], "decisions": [{"seat": "player", "action": "discard", "cards":
["9S"]}]}`` (the decision as posted, or in its canonical form with its window, hand and ``"by": "backend"``):
the hands from the cards and the decision, the result written from them, the outcome kept by what decides it
(the hands' categories, whether the dealer qualifies, the winner, the bonus hand). Anything else is left to
the general path, which gives the same answer or the error.
"""

from __future__ import annotations

import json
from itertools import combinations
from typing import TYPE_CHECKING, Any

from recognition.cards.cards import JOKERS
from recognition.cards.poker_fast import rank5
from recognition.evaluate_fast import CardLines, codes_json

from .hands import NAMES, value5

if TYPE_CHECKING:
    from .games import DrawPokerGame


def decision_lines(game: DrawPokerGame) -> CardLines:
    window = game.window()
    decision = (
        rf'\{{(?:"window": ?"{window}", ?)?"seat": ?"player", ?(?:"hand": ?1, ?)?"action": ?"([a-z]+)"'
        r'(?:, ?"cards": ?\[(?:"([2-9TJQKA][SHDC])")?\])?(?:, ?"by": ?"backend")?\}'
    )
    return CardLines(
        game.evaluate, game.shoe_spec().copies, _Shape(game), r', ?"decisions": ?\[' + decision + r"\]"
    )


def _joker_value(cards: list[str]) -> tuple[int, ...]:
    """`value5` of poker with joker, the fast rank5 for a hand without the joker."""
    return (*rank5(cards), 1) if JOKERS.isdisjoint(cards) else value5(cards)


class _Shape:
    def __init__(self, game: DrawPokerGame) -> None:
        self.game = game
        self.jokers = game.shoe_spec().joker_limit
        self.rank = _joker_value if self.jokers else rank5
        self.buy = game.decision == "buy"
        self.allowed = frozenset(game.allowed())
        self.window = game.window()
        self.outcomes: dict[tuple[Any, ...], str] = {}

    def __call__(self, cards: list[str], action: str, card: str | None) -> str | None:
        game = self.game
        if action not in self.allowed or game.bonus_odds is not None:
            return None
        if self.jokers and len(JOKERS.intersection(cards)) > self.jokers:
            return None  # the deck's one joker under two codes: the general path refuses it
        n = len(cards)
        dealt = cards[:5]
        if action == "keep":
            if card is not None or n != 10:
                return None
            drawn: list[str] = []
        elif n != 11 or (card is None) != (action == "buy") or (card is not None and card not in dealt):
            return None
        else:
            drawn = [cards[6]]
        dealer = [cards[5], *cards[6 + len(drawn) :]]
        player = list(dealt)
        discards = [card] if card is not None else []
        if discards:
            player[player.index(discards[0])] = drawn[0]
        best = None
        if self.buy and drawn:
            player.append(drawn[0])
            best = max(combinations(player, 5), key=rank5)  # the first best, in combination order
            p = rank5(best)
        else:
            p = self.rank(player)
        d = self.rank(dealer)
        dealt_value = self.rank(dealt)
        qualifies = game.qualifies(d)
        winner = "player" if p > d else "dealer" if d > p else "tie"
        key = (p[0], d[0], qualifies, winner, dealt_value[0], bool(discards))
        outcome = self.outcomes.get(key)
        if outcome is None:
            item = {"cards": cards, "decisions": [{"seat": "player", "action": action, "cards": discards}]}
            try:
                answer = game.evaluate(item)
            except (ValueError, TypeError, KeyError):
                return None
            outcome = self.outcomes[key] = json.dumps(answer["outcome"], separators=(",", ":"))
        names = NAMES
        text = (
            f'"valid":true,"result":{{"cards":{codes_json(cards)},"player_cards":{codes_json(player)},'
            f'"dealer_cards":{codes_json(dealer)},"dealer_up_card":"{dealer[0]}","player_hand":"{names[p[0]]}",'
            f'"dealer_hand":"{names[d[0]]}","dealer_qualifies":{"true" if qualifies else "false"},'
            f'"winner":"{winner}",'
        )
        if best is not None:
            text += f'"player_best_cards":{codes_json(list(best))},'
        text += f'"dealt_player_cards":{codes_json(dealt)},"dealt_player_hand":"{names[dealt_value[0]]}",'
        if self.buy:
            text += f'"bought_card":"{drawn[0]}",' if drawn else '"bought_card":null,'
        else:
            text += f'"discards":{codes_json(discards)},"draws":{codes_json(drawn)},'
        return (
            text + f'"decisions":[{{"window":"{self.window}","seat":"player","hand":1,"action":"{action}",'
            f'"cards":{codes_json(discards)},"by":"backend"}}]}},"outcome":{outcome}}}\n'
        )
