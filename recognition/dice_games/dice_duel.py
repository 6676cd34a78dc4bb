"""Dice Duel: one red and one blue die, the seed's 28 bet types. Pure.

Seed 000 L2683-2743 (digest seed-B §19). The higher die wins; equal faces are a
draw (L2683), on which both "red wins" and "blue wins" lose. Items 11-12 ("the
number of dots on two dice will be odd/even") are read as the sum of both dice.

The seed gives no odds ("NOT GIVEN" in the digest). The game is BetGames' Dice
Duel, whose published rule is: decimal ("for one") odds that return 95% where a
one-decimal price can do so, never below 93.75% (red/blue wins 2.25, draw 5.7,
50% bets 1.9). The studio's table follows one exact rule that reproduces those
published prices: the decimal odds are 95% of the fair odds rounded down to a
multiple of 0.05, or, where that would return less than 93.75%, to a multiple
of 0.01. Payouts are given as net odds (decimal odds - 1) in exact fractions.

Bet spot ids (seed item number in brackets): ``red_wins`` [1], ``draw`` [2],
``blue_wins`` [3], ``red:1``..``red:6`` [4], ``blue:1``..``blue:6`` [5],
``combination:R-B`` (red face first) [6], ``red_odd`` [7], ``red_even`` [8],
``blue_odd`` [9], ``blue_even`` [10], ``sum_odd`` [11], ``sum_even`` [12],
``red_under:3.5`` [13], ``red_over:3.5`` [14], ``blue_under:3.5`` [15],
``blue_over:3.5`` [16], ``sum_under:4.5`` [17], ``sum_over:4.5`` [18], ... ,
``sum_under:9.5`` [27], ``sum_over:9.5`` [28].
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cached_property
from typing import Any

from ._common import (
    FACES,
    BetSpot,
    DiceGame,
    check_derived,
    payout,
    read_face,
    require_dict,
    require_key,
    won,
)

EXAMPLE = "{'red': 5, 'blue': 2}"


def seed_line(item: int) -> str:
    """Bet item n of the seed's list is on line 2687 + 2n (item 1 at L2689, item 28 at L2743)."""
    return f"seed 000 L{2687 + 2 * item}"


#: net odds by the number of winning (red, blue) pairs out of 36 (the rule in the module docstring)
NET_ODDS_BY_WAYS: dict[int, Fraction] = {
    1: Fraction(166, 5),  # 34.2
    6: Fraction(47, 10),  # 5.7
    10: Fraction(12, 5),  # 3.4
    15: Fraction(5, 4),  # 2.25
    18: Fraction(9, 10),  # 1.9
    21: Fraction(31, 50),  # 1.62
    26: Fraction(3, 10),  # 1.3
    30: Fraction(7, 50),  # 1.14
}

Win = Callable[[int, int], bool]


def _faces(red: int | None = None, blue: int | None = None) -> Win:
    """Wins when the red die shows `red` and the blue die `blue` (None: any face)."""
    return lambda r, b: (red is None or r == red) and (blue is None or b == blue)


def _sum_at_most(x: int) -> Win:
    return lambda r, b: r + b <= x


def _sum_above(x: int) -> Win:
    return lambda r, b: r + b > x


def _bets() -> list[tuple[str, str, int, Win]]:
    """(spot id, type, seed item, wins(red, blue)) in the seed's order."""
    bets: list[tuple[str, str, int, Win]] = [
        ("red_wins", "red_wins", 1, lambda r, b: r > b),
        ("draw", "draw", 2, lambda r, b: r == b),
        ("blue_wins", "blue_wins", 3, lambda r, b: b > r),
    ]
    bets += [(f"red:{n}", "red_number", 4, _faces(red=n)) for n in FACES]
    bets += [(f"blue:{n}", "blue_number", 5, _faces(blue=n)) for n in FACES]
    bets += [(f"combination:{x}-{y}", "combination", 6, _faces(x, y)) for x in FACES for y in FACES]
    bets += [
        ("red_odd", "red_odd", 7, lambda r, b: r % 2 == 1),
        ("red_even", "red_even", 8, lambda r, b: r % 2 == 0),
        ("blue_odd", "blue_odd", 9, lambda r, b: b % 2 == 1),
        ("blue_even", "blue_even", 10, lambda r, b: b % 2 == 0),
        ("sum_odd", "sum_odd", 11, lambda r, b: (r + b) % 2 == 1),
        ("sum_even", "sum_even", 12, lambda r, b: (r + b) % 2 == 0),
        ("red_under:3.5", "red_under", 13, lambda r, b: r <= 3),
        ("red_over:3.5", "red_over", 14, lambda r, b: r >= 4),
        ("blue_under:3.5", "blue_under", 15, lambda r, b: b <= 3),
        ("blue_over:3.5", "blue_over", 16, lambda r, b: b >= 4),
    ]
    for i, line in enumerate(range(4, 10)):  # x.5 for x = 4..9: items 17/18, 19/20, ..., 27/28
        bets.append((f"sum_under:{line}.5", "sum_under", 17 + 2 * i, _sum_at_most(line)))
        bets.append((f"sum_over:{line}.5", "sum_over", 18 + 2 * i, _sum_above(line)))
    return bets


_BETS = _bets()
_WAYS = {spot_id: sum(wins(r, b) for r in FACES for b in FACES) for spot_id, _, _, wins in _BETS}


class DiceDuel(DiceGame):
    game_id = "dice_duel"
    judge_dice = 2
    judge_colors = ("red", "blue")
    name = "Dice Duel"
    #: net odds per spot id; the default follows NET_ODDS_BY_WAYS
    odds: dict[str, Fraction] = {spot_id: NET_ODDS_BY_WAYS[ways] for spot_id, ways in _WAYS.items()}

    @cached_property
    def spots(self) -> tuple[BetSpot, ...]:
        return tuple(
            BetSpot(spot_id, type_, seed_line(item), payout(self.odds[spot_id]))
            for spot_id, type_, item, _ in _BETS
        )

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """``{"red": 5, "blue": "2"}`` -> ``{"red": 5, "blue": 2}`` (other keys dropped)."""
        result = require_dict(result, self.name, EXAMPLE)
        red = read_face(
            require_key(result, "red", self.name, f"the red and the blue face, e.g. {EXAMPLE}"), "the red die"
        )
        blue = read_face(
            require_key(result, "blue", self.name, f"the red and the blue face, e.g. {EXAMPLE}"),
            "the blue die",
        )
        check_derived(result, "total", red + blue)
        return {"red": red, "blue": blue}

    def make_result(self, dice: Any) -> dict[str, Any]:
        """From faces read by colour: ``{"red": [5], "blue": [2]}`` (or plain ints) -> the result."""
        if not isinstance(dice, dict) or set(dice) != {"red", "blue"}:
            raise ValueError(f"Dice Duel needs exactly one red and one blue die, not {dice!r}")
        faces = {}
        for color, value in dice.items():
            if isinstance(value, (list, tuple)):
                if len(value) != 1:
                    raise ValueError(
                        f"Dice Duel has one {color} die; the camera read {len(value)}: {list(value)}"
                    )
                value = value[0]
            faces[color] = value
        return self.validate_result(faces)

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        """Every winning bet spot, in the seed's order; every spot not listed loses."""
        canonical = self.validate_result(result)
        red, blue = canonical["red"], canonical["blue"]
        winner = "red" if red > blue else "blue" if blue > red else "draw"
        wins = [won(spot_id, type_, self.odds[spot_id]) for spot_id, type_, _, w in _BETS if w(red, blue)]
        return {**canonical, "total": red + blue, "winner": winner, "winning_bets": wins}
