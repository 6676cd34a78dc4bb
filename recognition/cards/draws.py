"""One card per round, bets on its features: Speedy 7 and Jokerbet. Pure.

Each betting round is one studio round: betting closes, one card is drawn, the round is settled
(Speedy 7 L2517: "After the end of the first betting round the first card is dealt and the outcome
of the betting round is determined"; Jokerbet L3155: "Only one card is drawn ... in each draw").
The seeds give no odds (Speedy 7's are "updated" each round, L2519; Jokerbet's are "the odds of the
guessed outcome", L3313): winning bet spots carry no payout. Speedy 7's streak bonuses (L2531-2533)
depend on each player's own bets across a game's seven rounds and are the platform's to pay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .base import CardGame, need
from .cards import BLACK_JOKER, JOKERS, RANK_NAMES, RED_JOKER, STANDARD_52, SUIT_NAMES, ShoeSpec, is_red


class OneCardGame(CardGame):
    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        return "card" if not cards else None

    def position_label(self, position: str) -> str:
        return "the card"

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        return [need(result, "card", self.game_id)]


class Speedy7(OneCardGame):
    """Seed 000 L2513-2534: a 52-card deck, seven cards a game, each card one betting round on its colour
    (red: diamonds and hearts; black: spades and clubs). Whether the deck is shuffled between games is not
    stated: the judge checks copies within a round only (a fresh deck each game cannot be told from a
    continuing one by the shoe)."""

    game_id = "speedy_7"
    decks = 1
    reshuffle_each_round = True

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        card = cards[0]
        return {"card": card, "colour": "red" if is_red(card) else "black"}

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        return {"winning_bets": [{"bet": result["colour"]}], "pushed_bets": []}


JOKERBET_SHOE = ShoeSpec(
    "1 deck of 54 cards (52 and a red and a black joker)",
    {**{c: 1 for c in STANDARD_52}, RED_JOKER: 1, BLACK_JOKER: 1},
)
_RANK_BET = {r: ("10" if r == "T" else RANK_NAMES[r] if r in "JQKA" else r) for r in RANK_NAMES}


class Jokerbet(OneCardGame):
    """Seed 000 L3153-3320: a 54-card deck (2-A of four suits, a red and a black joker) drawn one card a round
    without reshuffling; when a deck is finished a deck with the other back colour replaces it (L3157).

    The red and black jokers must be told apart (bets 67, 68, 73, 74): the shoe must report ``RJ``/``BJ``;
    a plain ``JK`` is refused. The deck change is seen as a card of another deck (CardDrawn.deck)."""

    game_id = "jokerbet"
    decks = 1
    alternating_decks = True

    def shoe_spec(self, decks: int | None = None) -> ShoeSpec:
        if decks not in (None, 1):
            raise ValueError("jokerbet draws from one 54-card deck at a time")
        return JOKERBET_SHOE

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        return {"card": cards[0]}

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        card = result["card"]
        bets: list[str] = []
        if card in JOKERS:
            bets += ["joker", "red_joker" if card == RED_JOKER else "black_joker"]  # L3187, L3293-3295
        else:
            bets += [f"rank_{_RANK_BET[card[0]]}", f"card_{card}", SUIT_NAMES[card[1]]]  # L3161-3303
        bets.append("red" if is_red(card) else "black")  # L3305-3307: jokers by their colour
        bets.append(
            "digital" if card not in JOKERS and card[0] in "23456789T" else "non_digital"
        )  # L3309-3311
        return {"winning_bets": [{"bet": b} for b in bets], "pushed_bets": []}


GAMES = {g.game_id: g for g in (Speedy7(), Jokerbet())}
