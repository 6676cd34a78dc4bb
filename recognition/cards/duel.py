"""One card to each of two sides: Dragon Tiger (and Kricket-War), Football Studio, War of Bets,
Rock Paper Scissors. Pure.

Deal order: the first side named by the seed, then the other (Dragon then Tiger, Home then Away,
Player then Dealer (War of Bets L2621), Silver then Gold (RPS L2871)).

Outcomes list the winning and pushed bet spots with net odds to 1 where the seed gives them;
where a seed gives no odds (War of Bets, Rock Paper Scissors) the winning spots carry no
"payout" and the platform pays its published odds (docs/card-games.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from .base import CardGame, need
from .cards import (
    ACE_HIGH,
    ACE_LOW,
    PAPER,
    RANKS,
    ROCK,
    SCISSORS,
    SUIT_NAMES,
    SYMBOLS,
    Settlement,
    ShoeSpec,
    is_red,
    symbol_shoe,
)


class DuelGame(CardGame):
    """Two positions, one card each; the higher card by the game's rank order wins, equal is a tie."""

    sides: tuple[str, str] = ("a", "b")
    tie_name: str = "tie"
    order: Mapping[str, int] = ACE_HIGH

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        return self.sides[len(cards)] if len(cards) < 2 else None

    def position_label(self, position: str) -> str:
        return f"the {position.replace('_', ' ')}'s card"

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        return [need(result, f"{side}_card", self.game_id) for side in self.sides]

    def winner(self, a: str, b: str) -> str:
        ra, rb = self.order[a[0]], self.order[b[0]]
        return self.sides[0] if ra > rb else self.sides[1] if rb > ra else self.tie_name

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        a, b = cards
        return {"winner": self.winner(a, b), f"{self.sides[0]}_card": a, f"{self.sides[1]}_card": b}


class DragonTiger(DuelGame):
    """Seed 000 L1795-1824: 8 decks, ace low (A=1 .. K=13); Dragon/Tiger 1:1, Draw 11:1, Suited Draw 50:1;
    on a draw (suited or not) half of each Dragon/Tiger bet is returned; the Draw bet also wins on a
    suited draw (L1813)."""

    game_id = "dragon_tiger"
    sides = ("dragon", "tiger")
    order = ACE_LOW
    decks = 8

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        out = super().result_from_cards(cards)
        out["suited_tie"] = cards[0] == cards[1]
        return out

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        s = Settlement()
        winner = result["winner"]
        if winner == "tie":
            s.win("tie", 11)  # L1811, L1813
            if result["suited_tie"]:
                s.win("suited_tie", 50)  # L1813
            for side in self.sides:
                s.push(side, Fraction(1, 2))  # L1811, L1813: 50% of the main bet returned
        else:
            s.win(winner, 1)  # L1809
        return s.as_dict()


class KricketWar(DragonTiger):
    """Seed 000 L1795: "DRAGON TIGER, KRICKET-WAR", one rule set for both."""

    game_id = "kricket_war"


class FootballStudio(DuelGame):
    """Seed 000 L1770-1794: 8 decks, ace high, suits irrelevant; Home/Away 1:1, Draw 11:1; on a draw half of
    each Home/Away bet is returned (L1784)."""

    game_id = "football_studio"
    sides = ("home", "away")
    tie_name = "draw"
    order = ACE_HIGH
    decks = 8

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        s = Settlement()
        if result["winner"] == "draw":
            s.win("draw", 11)
            for side in self.sides:
                s.push(side, Fraction(1, 2))
        else:
            s.win(result["winner"], 1)  # L1782
        return s.as_dict()


#: War of Bets "score" of a card: its place in the seed's order, 2 lowest, ace highest (L2619)
WAR_SCORE = ACE_HIGH


class WarOfBets(DuelGame):
    """Seed 000 L2617-2680: 6 decks, ace high; the first card to the Player, the second to the Dealer; equal
    cards are a War. 25 bet types (L2631-2679); the odds are the platform's (L2625: "the odds are updated")."""

    game_id = "war_of_bets"
    sides = ("player", "dealer")
    tie_name = "war"
    order = ACE_HIGH
    decks = 6

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        winning: list[dict[str, Any]] = []
        winner = result["winner"]
        winning.append({"bet": "war" if winner == "war" else f"{winner}_wins"})
        for side in ("dealer", "player"):  # in the seed's order: dealer bets first (L2631-2679)
            card = result[f"{side}_card"]
            winning.append({"bet": f"{side}_{'red' if is_red(card) else 'black'}"})
            winning.append({"bet": f"{side}_{SUIT_NAMES[card[1]]}"})
            score = WAR_SCORE[card[0]]
            winning.append(
                {"bet": f"{side}_score_{'8' if score == 8 else 'under_8' if score < 8 else 'over_8'}"}
            )
            winning.append({"bet": f"{side}_{'picture' if card[0] in 'JQK' else 'ace_or_number'}"})
        return {"winning_bets": winning, "pushed_bets": []}


#: what each symbol beats (RPS L2879-2901)
BEATS = {ROCK: SCISSORS, PAPER: ROCK, SCISSORS: PAPER}


class RockPaperScissors(DuelGame):
    """Seed 000 L2869-2904: symbol cards; the first card to the Silver zone, the second to the Gold zone; a
    player's symbol in a zone plays against the dealer's card of that zone: win, draw (stake returned) or
    loss. Bet spots ``silver_rock`` .. ``gold_scissors``; the win odds are the platform's (L2903)."""

    game_id = "rock_paper_scissors"
    sides = ("silver", "gold")
    #: copies of each symbol card in the shoe; None: not given by the seed, so no copy check (see docs)
    symbol_copies: int | None = None

    def __init__(self, symbol_copies: int | None = None) -> None:
        if symbol_copies is not None:
            self.symbol_copies = symbol_copies

    def shoe_spec(self, decks: int | None = None) -> ShoeSpec:
        if decks is not None and self.symbol_copies is not None:
            return symbol_shoe(self.symbol_copies * decks)
        return symbol_shoe(self.symbol_copies)

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        return {"silver_card": cards[0], "gold_card": cards[1]}

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        winning, pushed = [], []
        for zone in self.sides:
            dealer = result[f"{zone}_card"]
            for symbol in SYMBOLS:
                bet = f"{zone}_{symbol.lower()}"
                if symbol == dealer:
                    pushed.append({"bet": bet, "returned": 1})  # L2903: a draw returns the bet
                elif BEATS[symbol] == dealer:
                    winning.append({"bet": bet})
        return {"winning_bets": winning, "pushed_bets": pushed}


assert set(RANKS) == set(ACE_LOW) == set(ACE_HIGH)

GAMES = {
    g.game_id: g for g in (DragonTiger(), KricketWar(), FootballStudio(), WarOfBets(), RockPaperScissors())
}
