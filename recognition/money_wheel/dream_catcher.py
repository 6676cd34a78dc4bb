"""Dream Catcher: 54 segments, numbers 1 2 5 10 20 40 and the 2x and 7x multipliers. Pure.

Seed 000 L1748-1769 (digest seed-B §4; seed 004 L737-763, digest seed-D B.8).

* Segments (L1758-1766): 1 x23, 2 x15, 5 x7, 10 x4, 20 x2, 40 x1, 2x x1, 7x x1. Their order
  around the wheel and the colours are NOT GIVEN: the default order spreads each number
  evenly (ours); a table gives its wheel's real order in the ``layout`` setting.
* A number pays its number to 1 (L1754). On 2x or 7x "all bets remain in place and new bets
  won't be allowed", the wheel is spun again and the next number's odds are multiplied;
  multipliers stack (L1754: 2x, then 7x, then 5 pays (5 to 1) x 2 x 7 = 70 to 1).
* Each spin is a studio round. A 2x/7x round has no winning bet: its outcome says
  ``bets_stand`` (the bets stay for the next spin, no new bets) and ``next_multipliers``; the
  next round's result carries ``multipliers`` (those in force), and a number pays
  number x their product. A void (any malfunction, L1768: bets returned) ends the carried
  multipliers unless the table sets ``carry_after_void``.
"""

from __future__ import annotations

from typing import Any

from .base import MoneyWheelGame, product, won

NUMBERS = ("1", "2", "5", "10", "20", "40")
MULTIPLIERS = {"2x": 2, "7x": 7}


class DreamCatcher(MoneyWheelGame):
    game_id = "dream_catcher"
    name = "Dream Catcher"
    segment_counts = (("1", 23), ("2", 15), ("5", 7), ("10", 4), ("20", 2), ("40", 1), ("2x", 1), ("7x", 1))
    counts_from_seed = True
    carries_multipliers = True
    multiplier_values = (2, 7)
    example = "{'segment': '5', 'index': 17, 'multipliers': [2, 7]}"

    def bet_spots(self) -> list[dict[str, Any]]:
        return [{"bet": n, "type": "number", "source": "seed 000 L1754", "payout": int(n)} for n in NUMBERS]

    def settle(self, result: dict[str, Any], extras: dict[str, Any] | None) -> dict[str, Any]:
        label, carried = result["segment"], result["multipliers"]
        if label in MULTIPLIERS:
            following = carried + [MULTIPLIERS[label]]
            return {
                "winning_bets": [],
                "respin": True,
                "bets_stand": True,
                "multiplier": product(following),
                "next_multipliers": following,
            }
        m = product(carried)
        return {
            "winning_bets": [won(label, "number", int(label) * m)],
            "respin": False,
            "bets_stand": False,
            "multiplier": m,
            "next_multipliers": [],
        }


GAMES = {g.game_id: g for g in (DreamCatcher(),)}
