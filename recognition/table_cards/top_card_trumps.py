"""Top Card Trumps (seed 000:L1597-1599, "TOP CARD TRUMP"; listed at L5). Pure.

The seed's rules (Casino War), dealt from the card shoe:

* 6 decks (``decks``), the ace high, the two low, suits do not count;
* one card to the player, one to the dealer: the higher card wins, the ante pays 1 to 1 (even money: the
  seed says "the winner is the player with the highest card value" and gives no other odds);
* equal ranks: each player either folds (the dealer takes half the ante: spot ``surrender`` returns half) or
  goes to war (a raise equal to the ante); the dealer deals three cards face down ("burn_1".."burn_3"), then
  one face up to the player and one to himself ("war_player", "war_dealer"); the player's war card equal or
  higher: the raise pays 1 to 1 and the ante is returned, lower: both lose (L1599);
* the Tie side bet (10 to 1 on equal first cards) is the standard Casino War side bet, not in the seed.

Whether a player surrenders or goes to war is the betting backend's (no decision window: the war cards are
dealt on every tie, as a live table deals them for whoever went to war).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

from recognition.cards.base import CardGame, need
from recognition.cards.cards import ACE_HIGH, Settlement
from recognition.evaluate_fast import CardLines

POSITIONS = ("player", "dealer", "burn_1", "burn_2", "burn_3", "war_player", "war_dealer")
TIE_ODDS = 10


def _higher(a: str, b: str) -> int:
    return (ACE_HIGH[a[0]] > ACE_HIGH[b[0]]) - (ACE_HIGH[a[0]] < ACE_HIGH[b[0]])


class TopCardTrumps(CardGame):
    game_id = "top_card_trumps"
    decks = 6

    def next_position(self, cards: Sequence[str], context: Any = None) -> str | None:
        if len(cards) < 2:
            return POSITIONS[len(cards)]
        if len(cards) < len(POSITIONS) and _higher(cards[0], cards[1]) == 0:
            return POSITIONS[len(cards)]
        return None

    def position_label(self, position: str) -> str:
        if position.startswith("burn"):
            return f"face-down card {position[-1]} before the war"
        return f"the {position.replace('_', ' ')}'s card"

    def cards_from_result(self, result: Mapping[str, Any]) -> list[Any]:
        cards = [need(result, "player_card", self.game_id), need(result, "dealer_card", self.game_id)]
        burns = result.get("burn_cards") or []
        if not isinstance(burns, list):
            raise ValueError("'burn_cards' is the list of the three face-down cards before the war")
        cards.extend(burns)
        for key in ("war_player_card", "war_dealer_card"):
            if result.get(key) is not None:
                cards.append(result[key])
        return cards

    def result_from_cards(self, cards: Sequence[str], context: Any = None) -> dict[str, Any]:
        first = _higher(cards[0], cards[1])
        out: dict[str, Any] = {
            "player_card": cards[0],
            "dealer_card": cards[1],
            "burn_cards": [],
            "war_player_card": None,
            "war_dealer_card": None,
        }
        if first:
            out["winner"] = "player" if first > 0 else "dealer"
            out["war"] = None
        else:
            out["burn_cards"] = list(cards[2:5])
            out["war_player_card"], out["war_dealer_card"] = cards[5], cards[6]
            out["winner"] = "tie"
            out["war"] = "player" if _higher(cards[5], cards[6]) >= 0 else "dealer"
        return out

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        self.check_extras(extras)
        s = Settlement()
        if result["winner"] == "player":
            s.win("ante", 1)
        elif result["winner"] == "tie":
            s.win("tie", TIE_ODDS)
            s.push("surrender", Fraction(1, 2))
            if result["war"] == "player":
                s.win("raise", 1)
                s.push("ante")
        return s.as_dict(winner=result["winner"], war=result["war"])

    fast_evaluate = True

    @cached_property
    def _fast(self) -> CardLines:
        return CardLines(self.evaluate, self.shoe_spec().copies, _shape)

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a plain round: the answer past the cards follows from the winner and
        the war's (recognition/evaluate_fast.py)."""
        return self._fast(line)


def _shape(cards: list[str]) -> tuple[str, tuple[int, int]] | None:
    n = len(cards)
    if n == 2:
        first = _higher(cards[0], cards[1])
        if first == 0:
            return None
        rest, facts = '"burn_cards":[],"war_player_card":null,"war_dealer_card":null,', (first, 0)
    elif n == 7:
        if _higher(cards[0], cards[1]) != 0:
            return None
        b1, b2, b3, wp, wd = cards[2:]
        rest = f'"burn_cards":["{b1}","{b2}","{b3}"],"war_player_card":"{wp}","war_dealer_card":"{wd}",'
        facts = (0, 1 if _higher(wp, wd) >= 0 else -1)
    else:
        return None
    return f'"valid":true,"result":{{"player_card":"{cards[0]}","dealer_card":"{cards[1]}",{rest}', facts


GAMES = {g.game_id: g for g in (TopCardTrumps(),)}
