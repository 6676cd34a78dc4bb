"""32 Cards (seed 000:L5, "32 cards": named, no rules given). Pure.

The published live rules, on the card shoe:

* one deck of 32 cards (six to king of four suits), shuffled before every round; points: 6-10 their face,
  jack 11, queen 12, king 13;
* four hands, Player 8, Player 9, Player 10 and Player 11, start with 8, 9, 10 and 11 points; each gets one
  card, in that order; a hand's total is its start plus its cards;
* the highest total wins; when two or more hands share the highest total, each of them (in seat order) gets
  one more card, added to its total, until one hand alone is highest (a round never ends in a tie; a tie
  below the highest is ignored).

Bet spots: ``player_8`` .. ``player_11``. The odds are the platform's (published providers differ), so the
winning spot carries no payout, as for the other games whose odds the seed does not give.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

from recognition.cards.base import CardGame, card_list, need, ordinal
from recognition.cards.cards import ShoeSpec, standard_shoe
from recognition.evaluate_fast import CardLines, codes_json, plain_line

HANDS = (8, 9, 10, 11)
POINTS = {"6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 11, "Q": 12, "K": 13}
RANKS = "6789TJQK"


def _play(cards: Sequence[str]) -> tuple[dict[int, list[str]], int | None]:
    """The hands' cards so far and the hand the next card goes to (None: one hand alone is highest)."""
    hands: dict[int, list[str]] = {h: [] for h in HANDS}
    queue = list(HANDS)
    i = 0
    while True:
        for h in queue:
            if i == len(cards):
                return hands, h
            hands[h].append(cards[i])
            i += 1
        totals = {h: total(h, hands[h]) for h in HANDS}
        best = max(totals.values())
        queue = [h for h in HANDS if totals[h] == best]
        if len(queue) == 1:
            return hands, None


def total(hand: int, cards: Sequence[str]) -> int:
    return hand + sum(POINTS[c[0]] for c in cards)


class ThirtyTwoCards(CardGame):
    game_id = "thirty_two_cards"
    decks = 1
    reshuffle_each_round = True

    def shoe_spec(self, decks: int | None = None) -> ShoeSpec:
        return standard_shoe(decks or self.decks, ranks=RANKS)

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        hands, nxt = _play(cards)
        if nxt is None:
            return None
        return f"player_{nxt}_{len(hands[nxt]) + 1}"

    def position_label(self, position: str) -> str:
        _, hand, n = position.split("_")
        return f"Player {hand}'s {ordinal(int(n))} card"

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        """The deal order back: round by round, the hands still in play in seat order."""
        hands = {
            h: card_list(need(result, f"player_{h}_cards", self.game_id), f"player_{h}_cards") for h in HANDS
        }
        out: list[Any] = []
        n = 0
        while any(len(c) > n for c in hands.values()):
            out.extend(hands[h][n] for h in HANDS if len(hands[h]) > n)
            n += 1
        return out

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        hands, _ = _play(cards)
        totals = {h: total(h, hands[h]) for h in HANDS}
        winner = max(HANDS, key=lambda h: totals[h])
        out: dict[str, Any] = {"winner": f"player_{winner}"}
        for h in HANDS:
            out[f"player_{h}_cards"] = hands[h]
            out[f"player_{h}_total"] = totals[h]
        return out

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        return {
            "winning_bets": [{"bet": result["winner"]}],
            "pushed_bets": [],
            "totals": {f"player_{h}": result[f"player_{h}_total"] for h in HANDS},
        }

    fast_evaluate = True

    @cached_property
    def _fast(self) -> CardLines:
        return CardLines(self.evaluate, self.shoe_spec().copies, self._line)

    @cached_property
    def _outcomes(self) -> dict[tuple[int, ...], str]:
        return {}

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a plain round: the result written from the cards, the outcome kept by
        the winner and the totals. The common round (four different cards, one hand alone highest, its outcome
        already kept) is read here; the rest by recognition/evaluate_fast.py's CardLines."""
        m = _FOUR(line)
        if m is not None:
            rid, c8, c9, c10, c11 = m.groups()
            t8, t9, t10, t11 = 8 + POINTS[c8[0]], 9 + POINTS[c9[0]], 10 + POINTS[c10[0]], 11 + POINTS[c11[0]]
            totals4 = (t8, t9, t10, t11)
            best = max(totals4)
            if totals4.count(best) == 1 and len({c8, c9, c10, c11}) == 4:
                winner = HANDS[totals4.index(best)]
                outcome = self._outcomes.get((winner, *totals4))
                if outcome is not None:
                    return (
                        f'{{"id":{rid},"valid":true,"result":{{"winner":"player_{winner}","player_8_cards":'
                        f'["{c8}"],"player_8_total":{t8},"player_9_cards":["{c9}"],"player_9_total":{t9},'
                        f'"player_10_cards":["{c10}"],"player_10_total":{t10},'
                        f'"player_11_cards":["{c11}"],"player_11_total":{t11}}},"outcome":{outcome}}}\n'
                    )
        return self._fast(line)

    def _line(self, cards: list[str]) -> str | None:
        hands: dict[int, list[str]] = {8: [], 9: [], 10: [], 11: []}
        totals = {8: 8, 9: 9, 10: 10, 11: 11}
        queue: list[int] = [8, 9, 10, 11]
        i, n = 0, len(cards)
        while len(queue) > 1:
            if i + len(queue) > n:
                return None  # too few cards
            for h in queue:
                c = cards[i]
                hands[h].append(c)
                totals[h] += POINTS[c[0]]
                i += 1
            best = max(totals.values())
            queue = [h for h in HANDS if totals[h] == best]
        if i != n:
            return None  # a card the rules do not use
        winner = queue[0]
        t8, t9, t10, t11 = totals.values()
        key = (winner, t8, t9, t10, t11)
        outcome = self._outcomes.get(key)
        if outcome is None:
            result = {"winner": f"player_{winner}", **{f"player_{h}_total": totals[h] for h in HANDS}}
            outcome = self._outcomes[key] = json.dumps(self.outcome(result), separators=(",", ":"))
        return (
            f'"valid":true,"result":{{"winner":"player_{winner}","player_8_cards":{codes_json(hands[8])},'
            f'"player_8_total":{t8},"player_9_cards":{codes_json(hands[9])},"player_9_total":{t9},'
            f'"player_10_cards":{codes_json(hands[10])},"player_10_total":{t10},'
            f'"player_11_cards":{codes_json(hands[11])},"player_11_total":{t11}}},"outcome":{outcome}}}\n'
        )


_CARD = r'"([6-9TJQK][SHDC])"'
#: the common line: an integer id, four cards of the 32
_FOUR = plain_line(r'"cards": ?\[' + _CARD + (r", ?" + _CARD) * 3 + r"\]").fullmatch

GAMES = {g.game_id: g for g in (ThirtyTwoCards(),)}
