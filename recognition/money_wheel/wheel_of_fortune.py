"""Wheel / Classic Wheel / Wheel of Fortune: 19 sectors, 1-18 and a cup with a star. Pure.

Seed 000 L2467-2511 (digest seed-B §15). The three names are one game in the seed
("hereinafter all together 'Wheel'"), so there is one game id, ``wheel_of_fortune``.

* Spin (L2471): spun counterclockwise, then clockwise; the round counts only if the wheel made
  at least 3 full turns clockwise. The judge's rule: the spin's last run is clockwise and at
  least 3 turns, after a counterclockwise swing (a spin that fails is voided and re-spun).
* Colours: grey, red, black (L2471); which sector has which colour, the order of the sectors
  and the cup's colour are NOT GIVEN. Default (ours, a table setting): grey 1 2 7 8 13 14,
  red 3 4 9 10 15 16, black 5 6 11 12 17 18 (three odd and three even numbers per colour),
  the cup "gold"; the default order is 1..18 then the cup.
* Bets (L2477-2511) and payouts: NOT GIVEN in the seed. Ours: a bet covering k of the 19
  sectors pays 18/k - 1 to 1 (the roulette convention with the cup as the house's sector):
  number or cup 17, a range of six or a colour 2, under/over 9.5 and even/odd 1, even/odd in a
  colour 5. Number bets (ranges, under/over, even/odd) lose on the cup.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from .base import MoneyWheelGame, won
from .spin import SpinRule

NUMBERS = tuple(str(n) for n in range(1, 19))
CUP = "cup"
GREY, RED, BLACK, GOLD = "grey", "red", "black", "gold"
DEFAULT_COLORS = {
    **{n: GREY for n in ("1", "2", "7", "8", "13", "14")},
    **{n: RED for n in ("3", "4", "9", "10", "15", "16")},
    **{n: BLACK for n in ("5", "6", "11", "12", "17", "18")},
    CUP: GOLD,
}


def _num(label: str) -> int | None:
    return int(label) if label.isdigit() else None


#: wins(label, colour) of a bet
Wins = Callable[[str, str], bool]


def _is(segment: str) -> Wins:
    return lambda label, c: label == segment


def _colored(color: str) -> Wins:
    return lambda label, c: c == color


def _on_number(test: Callable[[int], bool], color: str | None = None) -> Wins:
    """A bet on the numbers whose number passes `test` (and of `color`, if given): the cup loses it."""

    def wins(label: str, c: str) -> bool:
        n = _num(label)
        return n is not None and test(n) and (color is None or c == color)

    return wins


def _within(lo: int, hi: int) -> Callable[[int], bool]:
    return lambda n: lo <= n <= hi


def _even(n: int) -> bool:
    return n % 2 == 0


def _odd(n: int) -> bool:
    return n % 2 == 1


def _spots() -> list[tuple[str, str, Wins, int]]:
    """(bet id, type, wins(label, colour), seed line)."""
    spots: list[tuple[str, str, Wins, int]] = []
    spots += [(f"number:{n}", "number", _is(n), 2477) for n in NUMBERS]
    for lo, line in ((1, 2479), (7, 2481), (13, 2483)):
        spots.append((f"range:{lo}-{lo + 5}", "range", _on_number(_within(lo, lo + 5)), line))
    spots.append(("under:9.5", "under_over", _on_number(lambda n: n < 9.5), 2485))
    spots.append(("over:9.5", "under_over", _on_number(lambda n: n > 9.5), 2487))
    for color, line in ((GREY, 2489), (RED, 2491), (BLACK, 2493)):
        spots.append((f"color:{color}", "color", _colored(color), line))
    spots.append((CUP, "cup", _is(CUP), 2495))
    spots.append(("even", "parity", _on_number(_even), 2497))
    spots.append(("odd", "parity", _on_number(_odd), 2499))
    line = 2501
    for color in (GREY, RED, BLACK):
        for parity, test in (("even", _even), ("odd", _odd)):
            spots.append((f"{parity}:{color}", "parity_color", _on_number(test, color), line))
            line += 2
    return spots


class WheelOfFortune(MoneyWheelGame):
    game_id = "wheel_of_fortune"
    name = "Wheel of Fortune"
    segment_counts = tuple((n, 1) for n in NUMBERS) + ((CUP, 1),)
    counts_from_seed = True
    default_order = NUMBERS + (CUP,)
    default_colors = DEFAULT_COLORS
    colors = (GREY, RED, BLACK, GOLD)
    spin_rule = SpinRule(
        direction="clockwise", min_turns=Fraction(3), counter_start=True, counter_min_turns=Fraction(1, 20)
    )
    example = "{'segment': '7', 'index': 6, 'color': 'grey'}"

    def __init__(self) -> None:
        self.spots = _spots()
        default = [(n, DEFAULT_COLORS[n]) for n in NUMBERS + (CUP,)]
        self.payouts: dict[str, Fraction] = {}
        for bet, _type, wins, _line in self.spots:
            k = sum(1 for label, c in default if wins(label, c))
            self.payouts[bet] = Fraction(18, k) - 1

    def bet_spots(self) -> list[dict[str, Any]]:
        from .base import payout

        return [
            {"bet": bet, "type": t, "source": f"seed 000 L{line}", "payout": payout(self.payouts[bet])}
            for bet, t, _w, line in self.spots
        ]

    def settle(self, result: dict[str, Any], extras: dict[str, Any] | None) -> dict[str, Any]:
        label, color = result["segment"], result["color"]
        return {
            "winning_bets": [
                won(bet, t, self.payouts[bet]) for bet, t, wins, _ in self.spots if wins(label, color)
            ]
        }


GAMES = {g.game_id: g for g in (WheelOfFortune(),)}
