"""21 Bet (seed 000 L3495-3537). Pure.

A 36-card deck (six to ace of four suits, L3497); two hands, Player 1 and Player 2. Points: 6-10 their
face, jack 2, queen 3, king 4, ace 1 or 11 (the better of the two without going over 21).

Deal script (the seed's text is ambiguous; docs/card-games.md gives the reading):

* two cards to Player 1, then two to Player 2 ("deals two cards to Player 1 and two cards to Player 2");
* a "golden point" in the first two cards (21, or two aces) ends the game at once;
* then up to three more rounds ("4 rounds of card dealing", "no more than three cards" more each): in
  each round Player 1, then Player 2 gets a card if below 17 ("cannot add cards ... 17 or more"); the game
  ends at the first bust, when both have 17 or more, or after the third extra round.

Winner: the other player when one busts; otherwise the higher total, equal totals a draw.
The seed gives no odds: winning bet spots carry no payout.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

from recognition.evaluate_fast import CardLines, codes_json

from .base import CardGame, card_list, need, ordinal
from .cards import ShoeSpec, standard_shoe

POINTS = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 2, "Q": 3, "K": 4, "A": 1}
PLAYERS = ("player_1", "player_2")
STAND = 17
EXTRA_ROUNDS = 3


def total(cards: Sequence[str]) -> int:
    points = sum(POINTS[c[0]] for c in cards)
    if any(c[0] == "A" for c in cards) and points + 10 <= 21:
        points += 10
    return points


def golden(cards: Sequence[str]) -> bool:
    return len(cards) == 2 and (total(cards) == 21 or all(c[0] == "A" for c in cards))


def _play(cards: Sequence[str]) -> tuple[dict[str, list[str]], str | None]:
    """The hands so far and the player the next card goes to (None: the game is over)."""
    hands: dict[str, list[str]] = {p: [] for p in PLAYERS}
    order = [PLAYERS[0], PLAYERS[0], PLAYERS[1], PLAYERS[1]]
    i = 0
    for who in order:
        if i == len(cards):
            return hands, who
        hands[who].append(cards[i])
        i += 1
    if any(golden(h) for h in hands.values()):
        return hands, None
    for _ in range(EXTRA_ROUNDS):
        dealt = False
        for who in PLAYERS:
            if total(hands[who]) >= STAND:
                continue
            if i == len(cards):
                return hands, who
            hands[who].append(cards[i])
            i += 1
            dealt = True
            if total(hands[who]) > 21:
                return hands, None
        if not dealt:
            return hands, None
    return hands, None


class TwentyOneBet(CardGame):
    game_id = "twenty_one_bet"
    decks = 1
    reshuffle_each_round = True

    def shoe_spec(self, decks: int | None = None) -> ShoeSpec:
        return standard_shoe(decks or self.decks, ranks="6789TJQKA")

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        hands, who = _play(cards)
        return None if who is None else f"{who}_card_{len(hands[who]) + 1}"

    def position_label(self, position: str) -> str:
        who, _, n = position.rpartition("_card_")
        return f"{who.replace('_', ' ').capitalize()}'s {ordinal(int(n))} card"

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        hands, _ = _play(cards)
        h1, h2 = hands[PLAYERS[0]], hands[PLAYERS[1]]
        t1, t2 = total(h1), total(h2)
        g1, g2 = golden(h1), golden(h2)
        bust = t1 > 21 or t2 > 21
        if g1 or g2:
            winner = "draw" if g1 and g2 else PLAYERS[0] if g1 else PLAYERS[1]
        elif bust:
            winner = PLAYERS[1] if t1 > 21 else PLAYERS[0]
        else:
            winner = PLAYERS[0] if t1 > t2 else PLAYERS[1] if t2 > t1 else "draw"
        return {
            "winner": winner,
            "player_1_cards": h1,
            "player_2_cards": h2,
            "player_1_total": t1,
            "player_2_total": t2,
            "golden_point": winner != "draw" and (g1 or g2),
            "bust": bust,
        }

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        hands = {p: card_list(need(result, f"{p}_cards", self.game_id), f"{p}_cards") for p in PLAYERS}
        taken = {p: 0 for p in PLAYERS}
        cards: list[Any] = []
        while True:
            position = self.next_position(cards)
            if position is None:
                break
            who = position.rpartition("_card_")[0]
            if taken[who] == len(hands[who]):
                raise ValueError(f"the deal needs {self.position_label(position)}, which {who}_cards lacks")
            cards.append(hands[who][taken[who]])
            taken[who] += 1
        for p in PLAYERS:
            if taken[p] != len(hands[p]):
                raise ValueError(f"{p}_cards holds {len(hands[p])} cards but the deal gives it {taken[p]}")
        return cards

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        winner = result["winner"]
        bets = [winner]
        if winner != "draw":
            n = len(result[f"{winner}_cards"])
            t = result[f"{winner}_total"]
            bets.append(f"win_with_{n}_cards")  # L3511-3517
            if 17 <= t <= 21:
                bets.append(f"win_with_{t}_points")  # L3519-3527
            if result["golden_point"]:
                bets.append("win_with_golden_point")  # L3533
        bets.append("bust" if result["bust"] else "no_bust")  # L3529-3531
        return {"winning_bets": [{"bet": b} for b in bets], "pushed_bets": []}

    fast_evaluate = True

    @cached_property
    def _fast(self) -> CardLines:
        return CardLines(self.evaluate, self.shoe_spec().copies, self._line)

    @cached_property
    def _outcomes(self) -> dict[tuple[Any, ...], str]:
        return {}

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a plain round: the result written from the cards, the outcome kept by
        what decides it (recognition/evaluate_fast.py)."""
        return self._fast(line)

    def _line(self, cards: list[str]) -> str | None:
        """The deal of `_play` with running totals (the same rules, without re-adding each hand)."""
        n = len(cards)
        if n < 4:
            return None
        h1, h2 = cards[:2], cards[2:4]
        p1, p2 = POINTS[h1[0][0]] + POINTS[h1[1][0]], POINTS[h2[0][0]] + POINTS[h2[1][0]]
        a1, a2 = "A" in (h1[0][0], h1[1][0]), "A" in (h2[0][0], h2[1][0])
        t1, t2 = p1 + 10 if a1 and p1 <= 11 else p1, p2 + 10 if a2 and p2 <= 11 else p2
        g1 = t1 == 21 or h1[0][0] == h1[1][0] == "A"
        g2 = t2 == 21 or h2[0][0] == h2[1][0] == "A"
        i = 4
        if not (g1 or g2):
            for _ in range(EXTRA_ROUNDS):
                if t1 < STAND:
                    if i == n:
                        return None
                    c = cards[i]
                    i += 1
                    h1.append(c)
                    p1 += POINTS[c[0]]
                    a1 = a1 or c[0] == "A"
                    t1 = p1 + 10 if a1 and p1 <= 11 else p1
                    if t1 > 21:
                        break
                elif t2 >= STAND:
                    break  # nobody draws
                if t2 < STAND:
                    if i == n:
                        return None
                    c = cards[i]
                    i += 1
                    h2.append(c)
                    p2 += POINTS[c[0]]
                    a2 = a2 or c[0] == "A"
                    t2 = p2 + 10 if a2 and p2 <= 11 else p2
                    if t2 > 21:
                        break
        if i != n:
            return None  # a card the rules do not use
        bust = t1 > 21 or t2 > 21
        if g1 or g2:
            winner = "draw" if g1 and g2 else PLAYERS[0] if g1 else PLAYERS[1]
        elif bust:
            winner = PLAYERS[1] if t1 > 21 else PLAYERS[0]
        else:
            winner = PLAYERS[0] if t1 > t2 else PLAYERS[1] if t2 > t1 else "draw"
        golden_point = winner != "draw" and (g1 or g2)
        key = (winner, len(h1), len(h2), t1, t2, golden_point, bust)
        outcome = self._outcomes.get(key)
        if outcome is None:
            result = {
                "winner": winner,
                "player_1_cards": h1,
                "player_2_cards": h2,
                "player_1_total": t1,
                "player_2_total": t2,
                "golden_point": golden_point,
                "bust": bust,
            }
            outcome = self._outcomes[key] = json.dumps(self.outcome(result), separators=(",", ":"))
        return (
            f'"valid":true,"result":{{"winner":"{winner}","player_1_cards":{codes_json(h1)},'
            f'"player_2_cards":{codes_json(h2)},"player_1_total":{t1},"player_2_total":{t2},'
            f'"golden_point":{"true" if golden_point else "false"},"bust":{"true" if bust else "false"}}},'
            f'"outcome":{outcome}}}\n'
        )


GAMES = {g.game_id: g for g in (TwentyOneBet(),)}
