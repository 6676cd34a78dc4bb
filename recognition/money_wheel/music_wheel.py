"""Music Wheel ("Musical Wheel"): 54 sectors numbered 2 4 6 12 16 24 48, and a bonus each round. Pure.

Seed 000 L4335-4341 (digest seed-C §20).

* Sectors: the numbers are given, their counts and order are NOT. Default counts (ours): 48/n
  sectors for number n (2 x24, 4 x12, 6 x8, 12 x4, 16 x3, 24 x2, 48 x1 = 54 sectors). With
  these counts, reading the numbers as the multiple of the stake paid back ("the bet amount is
  multiplied by the corresponding odds", L4341) gives every number the same return, 48/54; read
  as "n to 1" the 2 alone would return 3 x 24/54 = 133 %, which no casino runs. So a number n
  pays n - 1 to 1 net (the stake and n - 1 times it: n times the stake in all). Ours: the seed
  gives no odds.
* Bonus (L4339): "the electronic device located on wheel determines the bonus sector of the
  current round (the bonus multiplier will be applied to each of the 2, 4, 6, 12, 24 sectors,
  and in the case of 16 and 48 - only for one sector)". Read here as: one number gets the bonus;
  for 2, 4, 6, 12 and 24 every sector of that number carries it, for 16 and 48 one sector of it.
  The on-wheel device is not read (no driver for it exists): the studio's secure generator draws
  the bonus when the round opens and commits it before betting closes. Settings (ours):
  ``bonus_numbers`` (a table number -> weight; default equal), ``bonus_multipliers`` (a list or a
  table multiplier -> weight; default 2, 3, 5). A bonus sector pays n x m times the stake
  (net n x m - 1 to 1).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .base import MoneyWheelGame, draw, need_extras, read_draw_table, won

NUMBERS = ("2", "4", "6", "12", "16", "24", "48")
ONE_SECTOR = ("16", "48")
BONUS_MULTIPLIERS = [2, 3, 5]


class MusicWheel(MoneyWheelGame):
    game_id = "music_wheel"
    name = "Music Wheel"
    segment_counts = tuple((n, 48 // int(n)) for n in NUMBERS)
    counts_from_seed = False
    extra_settings = ("bonus_numbers", "bonus_multipliers")

    def bet_spots(self) -> list[dict[str, Any]]:
        return [
            {"bet": n, "type": "number", "source": "seed 000 L4339", "payout": int(n) - 1} for n in NUMBERS
        ]

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any]:
        s = self.wheel_settings(settings)
        weights = s.game.get("bonus_numbers")
        if weights is None:
            numbers = [(n, 1) for n in NUMBERS]
        else:
            if not isinstance(weights, Mapping):
                raise ValueError("bonus_numbers is a table number -> weight")
            numbers = [(self.read_label(k), w) for k, w in weights.items()]
            if (
                any(isinstance(w, bool) or not isinstance(w, int) or w < 0 for _, w in numbers)
                or sum(w for _, w in numbers) <= 0
            ):
                raise ValueError("bonus_numbers: weights are whole numbers >= 0, not all 0")
        label = _pick(rng, numbers)
        mult = draw(
            rng,
            read_draw_table(
                s.game.get("bonus_multipliers", BONUS_MULTIPLIERS), "bonus_multipliers", minimum=2
            ),
        )
        index = None
        if label in ONE_SECTOR:
            choices = s.layout.indexes_of(label)
            index = choices[rng.randrange(len(choices))]
        return {"bonus": {"number": label, "index": index, "multiplier": mult}}

    def settle(self, result: dict[str, Any], extras: dict[str, Any] | None) -> dict[str, Any]:
        bonus = need_extras(extras, "bonus", self.name)
        if not isinstance(bonus, Mapping) or set(bonus) != {"number", "index", "multiplier"}:
            raise ValueError("extras.bonus is {number, index, multiplier}")
        number = self.read_label(bonus["number"])
        mult, index = bonus["multiplier"], bonus["index"]
        if isinstance(mult, bool) or not isinstance(mult, int) or mult < 2:
            raise ValueError("extras.bonus.multiplier is a whole number >= 2")
        if (index is None) != (number not in ONE_SECTOR):
            raise ValueError(
                f"extras.bonus.index is one sector for 16 and 48 and null otherwise, not {index!r}"
            )
        label = result["segment"]
        hit = label == number
        if hit and index is not None:
            if result["index"] is None:
                raise ValueError(f"the {number} bonus is on one sector: the result needs its 'index'")
            hit = result["index"] == index
        n = int(label)
        gross = n * mult if hit else n
        return {
            "winning_bets": [won(label, "number", gross - 1, **({"bonus": True} if hit else {}))],
            "bonus_hit": hit,
            "bonus": {"number": number, "index": index, "multiplier": mult},
        }


def _pick(rng: random.Random, rows: list[tuple[str, int]]) -> str:
    total = sum(w for _, w in rows)
    pick = rng.randrange(total)
    for value, w in rows:
        if pick < w:
            return value
        pick -= w
    raise AssertionError("unreachable")


GAMES = {g.game_id: g for g in (MusicWheel(),)}
