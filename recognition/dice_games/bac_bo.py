"""Bac Bo: two dice for the Player, two for the Banker, the higher total wins. Pure.

The seed only names the game (seed 000 L5), so it plays the standard rules of
the game (Evolution's Bac Bo): each side throws two dice, each die in its own
shaker; the side with the higher two-dice total wins; equal totals are a tie.

* ``player`` and ``banker`` pay 1 to 1; on a tie 90% of those stakes is returned
  (listed under ``returned_bets`` with ``"returned": "9/10"``).
* ``tie`` pays by the tied total: 88 to 1 on 2 or 12, 25 on 3 or 11, 10 on 4 or
  10, 6 on 5 or 9, 4 on 6, 7 or 8.

Published returns: Player/Banker 98.87%, Tie 95.52%.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import cached_property
from typing import Any, ClassVar

from ._common import BetSpot, DiceGame, check_derived, read_faces, require_dict, require_key, returned, won

SOURCE = "standard (seed 000 L5 names the game only)"
EXAMPLE = "{'player': [3, 5], 'banker': [2, 6]}"

#: tie payouts (net odds) by the tied total
TIE_PAYS: dict[int, int] = {2: 88, 3: 25, 4: 10, 5: 6, 6: 4, 7: 4, 8: 4, 9: 6, 10: 10, 11: 25, 12: 88}


class BacBo(DiceGame):
    game_id = "bac_bo"
    judge_dice = 4
    #: the dice in the order the judge reports them: the Player's two, then the Banker's two.
    #: Baccarat colours (Player blue, Banker red); the sides are also told apart by their shakers.
    judge_colors = ("blue", "blue", "red", "red")
    side_colors: ClassVar[Mapping[str, str]] = {"player": "blue", "banker": "red"}
    name = "Bac Bo"
    main_pays = 1
    tie_returned = Fraction(9, 10)
    tie_pays = TIE_PAYS

    @cached_property
    def spots(self) -> tuple[BetSpot, ...]:
        return (
            BetSpot("player", "player", SOURCE, self.main_pays),
            BetSpot("banker", "banker", SOURCE, self.main_pays),
            BetSpot(
                "tie",
                "tie",
                SOURCE,
                None,
                "; ".join(f"{odds} to 1 on a tie of {t}" for t, odds in sorted(self.tie_pays.items())),
            ),
        )

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """``{"player": [5, 3], "banker": ["6", 2]}`` -> ``{"player": [3, 5], "banker": [2, 6]}``."""
        result = require_dict(result, self.name, EXAMPLE)
        hint = f"two faces for each side, e.g. {EXAMPLE}"
        player = read_faces(require_key(result, "player", self.name, hint), 2, "the player's dice")
        banker = read_faces(require_key(result, "banker", self.name, hint), 2, "the banker's dice")
        check_derived(result, "player_total", sum(player))
        check_derived(result, "banker_total", sum(banker))
        return {"player": player, "banker": banker}

    def make_result(self, dice: Any) -> dict[str, Any]:
        """From faces read by side, ``{"player": [3, 5], "banker": [2, 6]}``, or by colour,
        ``{"blue": [3, 5], "red": [2, 6]}`` (see ``side_colors``)."""
        if isinstance(dice, dict) and set(dice) == set(self.side_colors):
            return self.validate_result(dice)
        colors = set(self.side_colors.values())
        if not isinstance(dice, dict) or set(dice) != colors:
            raise ValueError(
                f"Bac Bo needs the player's and the banker's two dice (two "
                f"{' and two '.join(sorted(colors))} dice), not {dice!r}"
            )
        return self.validate_result({side: dice[color] for side, color in self.side_colors.items()})

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        canonical = self.validate_result(result)
        p, b = sum(canonical["player"]), sum(canonical["banker"])
        out: dict[str, Any] = {**canonical, "player_total": p, "banker_total": b}
        if p == b:
            out["winner"] = "tie"
            out["winning_bets"] = [won("tie", "tie", self.tie_pays[p])]
            out["returned_bets"] = [
                returned("player", "player", self.tie_returned),
                returned("banker", "banker", self.tie_returned),
            ]
        else:
            side = "player" if p > b else "banker"
            out["winner"] = side
            out["winning_bets"] = [won(side, side, self.main_pays)]
            out["returned_bets"] = []
        return out
