"""Sic Bo, Super Sic Bo and Mega Sic Bo: three dice, the standard sic bo layout. Pure.

The seed only names these games (seed 000 L5: "Sic Bo (Super Sic Bo, Mega Sic
Bo)") and gives no rules, so all three play the standard sic bo game on the
standard layout with the Atlantic City pay table (Wizard of Odds, "Sic Bo"),
plus the Odd/Even bets that live sic bo tables offer. The branded products of
those names add random multipliers with lower base pays; the seed describes
none of that, so none of it is here (docs/dice-games.md).

Bet spot ids: ``small``, ``big``, ``odd``, ``even`` (all four lose on any
triple), ``total:4`` .. ``total:17``, ``single:1`` .. ``single:6`` (pays 1, 2 or 3
to 1 as the number shows on one, two or three dice), ``double:1`` .. ``double:6``
(at least two dice show the number), ``triple:1`` .. ``triple:6``,
``any_triple``, ``combination:1-2`` .. ``combination:5-6`` (the 15 pairs of two
different numbers, both shown).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from typing import Any

from ._common import FACES, BetSpot, DiceGame, check_derived, read_faces, require_dict, require_key, won

SOURCE = "standard (seed 000 L5 names the game only)"
EXAMPLE = "{'dice': [2, 5, 5]}"


@dataclass(frozen=True)
class SicBoPaytable:
    """Net odds to 1. The default is the Atlantic City table; Macau pays less on some bets."""

    small_big: int = 1
    odd_even: int = 1
    #: total -> net odds (4..17; 3 and 18 are triples and have no total bet)
    totals: dict[int, int] = field(
        default_factory=lambda: {
            4: 60,
            5: 30,
            6: 17,
            7: 12,
            8: 8,
            9: 6,
            10: 6,
            11: 6,
            12: 6,
            13: 8,
            14: 12,
            15: 17,
            16: 30,
            17: 60,
        }
    )
    #: single number: how many dice show it -> net odds
    single: dict[int, int] = field(default_factory=lambda: {1: 1, 2: 2, 3: 3})
    double: int = 10
    triple: int = 180
    any_triple: int = 30
    combination: int = 5


class SicBo(DiceGame):
    game_id = "sic_bo"
    judge_dice = 3
    judge_colors = None
    name = "Sic Bo"
    paytable = SicBoPaytable()

    @cached_property
    def spots(self) -> tuple[BetSpot, ...]:
        p = self.paytable
        spots = [
            BetSpot("small", "small", SOURCE, p.small_big),
            BetSpot("big", "big", SOURCE, p.small_big),
            BetSpot("odd", "odd", SOURCE, p.odd_even),
            BetSpot("even", "even", SOURCE, p.odd_even),
        ]
        spots += [BetSpot(f"total:{t}", "total", SOURCE, p.totals[t]) for t in range(4, 18)]
        spots += [
            BetSpot(
                f"single:{n}",
                "single",
                SOURCE,
                None,
                "; ".join(
                    f"{odds} to 1 on {('one die', 'two dice', 'three dice')[k - 1]}"
                    for k, odds in sorted(p.single.items())
                ),
            )
            for n in FACES
        ]
        spots += [BetSpot(f"double:{n}", "double", SOURCE, p.double) for n in FACES]
        spots += [BetSpot(f"triple:{n}", "triple", SOURCE, p.triple) for n in FACES]
        spots.append(BetSpot("any_triple", "any_triple", SOURCE, p.any_triple))
        spots += [
            BetSpot(f"combination:{a}-{b}", "combination", SOURCE, p.combination)
            for a, b in combinations(FACES, 2)
        ]
        return tuple(spots)

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """``{"dice": [5, 2, "5"]}`` -> ``{"dice": [2, 5, 5]}`` (faces in any order; other keys dropped)."""
        result = require_dict(result, self.name, EXAMPLE)
        dice = read_faces(
            require_key(result, "dice", self.name, f"the three faces, e.g. {EXAMPLE}"), 3, "dice"
        )
        check_derived(result, "total", sum(dice))
        return {"dice": dice}

    def make_result(self, dice: Any) -> dict[str, Any]:
        return self.validate_result({"dice": dice})

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        """Every winning bet spot of a throw, in spot order; every spot not listed loses."""
        dice = self.validate_result(result)["dice"]
        p = self.paytable
        total = sum(dice)
        counts = Counter(dice)
        triple = len(counts) == 1
        wins: list[dict[str, Any]] = []
        if not triple:
            wins.append(won("small", "small", p.small_big) if total <= 10 else won("big", "big", p.small_big))
            wins.append(won("odd", "odd", p.odd_even) if total % 2 else won("even", "even", p.odd_even))
        if total in p.totals:
            wins.append(won(f"total:{total}", "total", p.totals[total]))
        wins += [won(f"single:{n}", "single", p.single[counts[n]]) for n in FACES if counts[n]]
        wins += [won(f"double:{n}", "double", p.double) for n in FACES if counts[n] >= 2]
        if triple:
            wins.append(won(f"triple:{dice[0]}", "triple", p.triple))
            wins.append(won("any_triple", "any_triple", p.any_triple))
        wins += [
            won(f"combination:{a}-{b}", "combination", p.combination)
            for a, b in combinations(FACES, 2)
            if counts[a] and counts[b]
        ]
        return {"dice": dice, "total": total, "triple": triple, "winning_bets": wins}


class SuperSicBo(SicBo):
    """Named in seed 000 L5 without rules: the standard game (no multipliers)."""

    game_id = "super_sic_bo"
    name = "Super Sic Bo"


class MegaSicBo(SicBo):
    """Named in seed 000 L5 without rules: the standard game (no multipliers)."""

    game_id = "mega_sic_bo"
    name = "Mega Sic Bo"
