"""Wheelbet (38 sectors: 1-36, 0, 00) and Spin & Win (37 segments: 0-36). Pure.

Wheelbet: seed 000 L4343-4395 (digest seed-C §21). Spin & Win: L3967-3979 (seed-C §12).

* Sectors: given. Colours: Wheelbet "18 sectors are red, 18 sectors are black, 0 and 00 sectors
  are green" but which numbers are red is NOT GIVEN; Spin & Win names black, red and green only.
  Defaults (ours, table settings): the roulette colours (red 1 3 5 7 9 12 14 16 18 19 21 23 25 27
  30 32 34 36, the zeros green) and the roulette wheel orders (American for Wheelbet, European for
  Spin & Win).
* Payouts: NOT GIVEN ("the odds are shown before betting"). Ours, the roulette convention: a bet
  covering k numbers pays 36/k - 1 to 1 (a number 35, two numbers 17, three 11, four 8, six 5,
  twelve 2, eighteen 1; an exact fraction otherwise, e.g. under 14.5 covers 14 numbers: 11/7),
  computed with the default colours.
* "0 and 00 are not considered even or odd numbers" (L4389); they also lose every range,
  under/over, colour (red/black) and row bet (ours; the seed does not say for under/over).
  Spin & Win: 0 loses even/odd and the colour bets red/black (ours, as in roulette); "green"
  is a bet on 0 alone.
* Wheelbet's "one of N selected numbers" (N = 2, 3, 4, 6, 12, 18) is a free choice of
  numbers: the outcome lists one ``selection:N`` entry with ``contains``, the winning number;
  a selection wins when it holds it.
* Wheelbet's jackpots (L4391-4395, won at random by main-game winners) are not part of the
  result: they are drawn by the operator's jackpot system, not by the studio.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ..roulette import AMERICAN, EUROPEAN
from .base import MoneyWheelGame, payout, won

# the roulette wheels' colours and orders are the defaults (see above): one copy, recognition.roulette's
RED_NUMBERS = frozenset(int(n) for n in EUROPEAN.red)
AMERICAN_ORDER = AMERICAN.order
EUROPEAN_ORDER = EUROPEAN.order
RED, BLACK, GREEN = "red", "black", "green"

Wins = Callable[[int | None, str], bool]


def _colors(zeros: tuple[str, ...]) -> dict[str, str]:
    out = {z: GREEN for z in zeros}
    out.update({str(n): RED if n in RED_NUMBERS else BLACK for n in range(1, 37)})
    return out


class _NumberWheel(MoneyWheelGame):
    zeros: tuple[str, ...] = ()
    colors = (RED, BLACK, GREEN)
    counts_from_seed = True
    example = "{'segment': '17', 'index': 9, 'color': 'black'}"

    def __init__(self) -> None:
        self.spots = self.make_spots()
        numbers = [(None if z else n, c) for n, z, c in self._default_numbers()]
        self.payouts = {}
        for bet, t, wins, _src in self.spots:
            if t == "number":
                self.payouts[bet] = Fraction(35)
            elif t == "selection":
                self.payouts[bet] = Fraction(36, int(bet.split(":")[1])) - 1
            else:
                self.payouts[bet] = Fraction(36, sum(1 for n, c in numbers if wins(n, c))) - 1

    def _default_numbers(self) -> list[tuple[int | None, bool, str]]:
        colors = self.default_colors or {}
        return [(None, True, colors[z]) for z in self.zeros] + [
            (n, False, colors[str(n)]) for n in range(1, 37)
        ]

    def make_spots(self) -> list[tuple[str, str, Wins, str]]:
        raise NotImplementedError

    def bet_spots(self) -> list[dict[str, Any]]:
        return [
            {"bet": bet, "type": t, "source": src, "payout": payout(self.payouts[bet])}
            for bet, t, _w, src in self.spots
        ]

    def settle(self, result: dict[str, Any], extras: dict[str, Any] | None) -> dict[str, Any]:
        label, color = result["segment"], result["color"]
        n = None if label in self.zeros else int(label)
        bets = []
        for bet, t, wins, _src in self.spots:
            if t == "number":
                if bet == f"number:{label}":
                    bets.append(won(bet, t, self.payouts[bet]))
            elif wins(n, color):
                bets.append(
                    won(bet, t, self.payouts[bet], **({"contains": label} if t == "selection" else {}))
                )
        return {"winning_bets": bets}


def _n(pred: Callable[[int], bool], color: str | None = None) -> Wins:
    """A bet on the numbers that pass `pred` (and of `color`, if given): the zeros lose it."""
    return lambda n, c: n is not None and pred(n) and (color is None or c == color)


def _within(lo: int, hi: int) -> Wins:
    return _n(lambda n: lo <= n <= hi)


def _row(r: int) -> Wins:
    return _n(lambda n: (n - r) % 3 == 0)


def _parity(rest: int, color: str | None = None) -> Wins:
    return _n(lambda n: n % 2 == rest, color)


class Wheelbet(_NumberWheel):
    game_id = "wheelbet"
    name = "Wheelbet"
    zeros = ("0", "00")
    segment_counts = (("0", 1), ("00", 1)) + tuple((str(n), 1) for n in range(1, 37))
    default_order = AMERICAN_ORDER
    default_colors = _colors(("0", "00"))

    def make_spots(self) -> list[tuple[str, str, Wins, str]]:
        src = "seed 000 L{}".format
        spots: list[tuple[str, str, Wins, str]] = []
        spots += [(f"number:{z}", "number", (lambda n, c: False), src(4349)) for z in self.zeros]
        spots += [(f"number:{k}", "number", _within(k, k), src(4349)) for k in range(1, 37)]
        # one of N selected numbers: any N numbers of the 38; the payout counts N of the 36 + 2 zeros like roulette
        spots += [
            (f"selection:{k}", "selection", (lambda n, c: True), src(line))
            for k, line in ((2, 4351), (3, 4353), (4, 4355), (6, 4357), (12, 4359), (18, 4361))
        ]
        spots += [(f"range:{lo}-{lo + 11}", "range", _within(lo, lo + 11), src(4363)) for lo in (1, 13, 25)]
        for line, cut in ((4365, 18), (4367, 14), (4369, 22), (4371, 9), (4373, 27)):
            spots.append((f"under:{cut}.5", "under_over", _within(1, cut), src(line)))
            spots.append((f"over:{cut}.5", "under_over", _within(cut + 1, 36), src(line)))
        spots += [
            ("color:red", "color", lambda n, c: n is not None and c == RED, src(4375)),
            ("color:black", "color", lambda n, c: n is not None and c == BLACK, src(4375)),
            ("even", "parity", _parity(0), src(4377)),
            ("odd", "parity", _parity(1), src(4377)),
        ]
        for line, parity, rest, color in (
            (4379, "even", 0, RED),
            (4381, "odd", 1, RED),
            (4383, "even", 0, BLACK),
            (4385, "odd", 1, BLACK),
        ):
            spots.append((f"{parity}:{color}", "parity_color", _parity(rest, color), src(line)))
        spots += [(f"row:{r}", "row", _row(r), src(4387)) for r in (1, 2, 3)]
        return spots


class SpinAndWin(_NumberWheel):
    game_id = "spin_and_win"
    name = "Spin & Win"
    zeros = ("0",)
    segment_counts = (("0", 1),) + tuple((str(n), 1) for n in range(1, 37))
    default_order = EUROPEAN_ORDER
    default_colors = _colors(("0",))

    def make_spots(self) -> list[tuple[str, str, Wins, str]]:
        src = "seed 000 L{}".format
        spots: list[tuple[str, str, Wins, str]] = [("number:0", "number", lambda n, c: False, src(3973))]
        spots += [(f"number:{k}", "number", _within(k, k), src(3973)) for k in range(1, 37)]
        spots += [
            ("color:red", "color", lambda n, c: n is not None and c == RED, src(3975)),
            ("color:black", "color", lambda n, c: n is not None and c == BLACK, src(3975)),
            ("color:green", "color", lambda n, c: n is None, src(3975)),
        ]
        spots += [(f"range:{lo}-{lo + 11}", "range", _within(lo, lo + 11), src(3977)) for lo in (1, 13, 25)]
        spots += [
            ("even", "parity", _parity(0), src(3979)),
            ("odd", "parity", _parity(1), src(3979)),
        ]
        return spots


GAMES = {g.game_id: g for g in (Wheelbet(), SpinAndWin())}
