"""One ball per round: Keno Express (1-100), 1 Bet (0-36), Bingo 37 (1-37), Bingo 38 (1-38). Pure.

Seed 000: Keno Express L2099-L2120, 1 Bet L3321-L3417, Bingo 37 L4585-L4611,
Bingo 38 L4613-L4639 (digest: rules-digest/seed-B.md §12, seed-C.md §1, §25, §26).
No seed gives odds; bets settle at the odds they were accepted at (see base.py).
"""

from __future__ import annotations

from typing import Any

from .base import DrawGame, Drawn, Market, fixed, numbers, over, picked, under

RED = frozenset(str(n) for n in (1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36))  # L3325


class SingleBallGame(DrawGame):
    draw_count = 1

    def _drawn_words(self) -> str:
        return "one drawn ball"

    def facts(self, d: Drawn) -> dict[str, Any]:
        return {"number": d.first}


def _in(first: int, last: int):
    return lambda d: first <= d.first <= last


# --- Keno Express -----------------------------------------------------------------------------------


class KenoExpress(SingleBallGame):
    """One number 1-100 "drawn from the lottery drum" (L2101); bets lower/higher than a number, in/out of a range.

    ``out_of_range_bounds_win``: the seed's example for "not in the range 10-37"
    (L2111) also pays 10 and 37, contradicting "not from his/her set range"; the
    standard rule (default False) is that the bounds belong to the range, so an
    out-of-range bet loses on them.
    """

    game_id = "keno_express"
    title = "Keno Express"
    seed_lines = (2099, 2120)
    ball_labels = numbers(1, 100)

    def __init__(self, *, out_of_range_bounds_win: bool = False) -> None:
        self.out_of_range_bounds_win = out_of_range_bounds_win

        def outside(d: Drawn, sel: tuple[str, ...]) -> bool:
            low, high = int(sel[0]), int(sel[1])
            if self.out_of_range_bounds_win:
                return d.first <= low or d.first >= high
            return d.first < low or d.first > high

        self.markets = (
            picked("lower", 2105, 1, lambda d, sel: d.first <= int(sel[0])),  # "lower than 10 or equal to it"
            picked(
                "higher", 2107, 1, lambda d, sel: d.first >= int(sel[0])
            ),  # "higher than 10 or equal to it"
            picked("in_range", 2109, 2, lambda d, sel: int(sel[0]) <= d.first <= int(sel[1])),
            picked("out_of_range", 2111, 2, outside),
        )


# --- 1 Bet -------------------------------------------------------------------------------------------


class OneBet(SingleBallGame):
    """1 of 37 balls 0-36, returned after each game (L3323); red/black as L3325, 0 green.

    The seed does not say how 0 settles. Choices (constructor options):

    * ``zero_is_under`` (default True): "The number of the drawn ball will be under
      18.5" (L3387) is a number comparison, and 0 < 18.5. The seed also lists the
      interval 1-18 (L3381) as a separate bet, which would be the same bet if 0 lost.
    * ``zero_is_even`` (default False): 0 is neither even nor odd, as in roulette and
      as the same seed says for Wheelbet (L4389).

    0 is in no interval, column, or colour bet (they start at 1).
    """

    game_id = "one_bet"
    title = "1 Bet"
    seed_lines = (3321, 3417)
    ball_labels = numbers(0, 36)
    colors = {b: ("green" if b == "0" else "red" if b in RED else "black") for b in numbers(0, 36)}

    def __init__(self, *, zero_is_under: bool = True, zero_is_even: bool = False) -> None:
        self.zero_is_under = zero_is_under
        self.zero_is_even = zero_is_even
        markets: list[Market] = [picked("straight", 3331, 1, lambda d, sel: d.balls[0] == sel[0])]
        line = 3333
        for lo, hi in ((1, 12), (13, 24), (25, 36)):
            markets.append(fixed(f"interval_{lo}_{hi}", line, _in(lo, hi)))
            line += 2
        for col in (1, 2, 3):
            markets.append(
                fixed(f"column_{col}", line, lambda d, col=col: d.first >= 1 and d.first % 3 == col % 3)
            )
            line += 2
        for size in (3, 6):
            for lo in range(1, 37, size):
                markets.append(fixed(f"interval_{lo}_{lo + size - 1}", line, _in(lo, lo + size - 1)))
                line += 2
        for lo, hi in ((1, 18), (19, 36)):
            markets.append(fixed(f"interval_{lo}_{hi}", line, _in(lo, hi)))
            line += 2
        for t in ("18.5", "14.5", "22.5", "9.5", "27.5"):
            markets.append(fixed(f"over_{t}", line, lambda d, t=t: over(d.first, t)))
            markets.append(
                fixed(
                    f"under_{t}",
                    line + 2,
                    lambda d, t=t: under(d.first, t) and (d.first != 0 or self.zero_is_under),
                )
            )
            line += 4
        markets += [
            fixed("red", 3405, lambda d: d.colors[0] == "red"),
            fixed("black", 3407, lambda d: d.colors[0] == "black"),
            fixed("even", 3409, lambda d: d.first % 2 == 0 and (d.first != 0 or self.zero_is_even)),
            fixed("odd", 3411, lambda d: d.first % 2 == 1),
        ]
        assert line == 3405 and len(markets) == 41
        self.markets = tuple(markets)

    def facts(self, d: Drawn) -> dict[str, Any]:
        return {"number": d.first, "color": d.colors[0]}


# --- Bingo 37 / Bingo 38 --------------------------------------------------------------------------------


class Bingo(SingleBallGame):
    """One ball of 1-37 (Bingo 37) or 1-38 (Bingo 38); despite the name, no cards.

    The rows (L4603/L4631) are not defined there; this follows the rows the same
    seed defines for Wheelbet (L4387): row I 1, 4, ..., 34; row II 2, 5, ..., 35;
    row III 3, 6, ..., 36. Dozens and the ranges cover 1-36 only (L4605-L4609),
    so 37 and 38 win only the number bets that select them.
    """

    size = 37
    first_line = 4593

    def __init__(self) -> None:
        self.ball_labels = numbers(1, self.size)
        line = self.first_line
        markets: list[Market] = [picked("number", line, 1, lambda d, sel: d.balls[0] == sel[0])]
        for n, item in ((2, 2), (3, 3), (4, 4), (6, 5)):
            markets.append(picked(f"one_of_{n}", line + 2 * (item - 1), n, lambda d, sel: d.balls[0] in sel))
        for row in (1, 2, 3):
            markets.append(
                fixed(f"row_{row}", line + 10, lambda d, row=row: d.first <= 36 and d.first % 3 == row % 3)
            )
        for i, lo in enumerate((1, 13, 25), 1):
            markets.append(fixed(f"dozen_{i}", line + 12, _in(lo, lo + 11)))
        markets.append(fixed("range_1_18", line + 14, _in(1, 18)))
        markets.append(fixed("range_19_36", line + 16, _in(19, 36)))
        self.markets = tuple(markets)


class Bingo37(Bingo):
    game_id = "bingo_37"
    title = "Bingo 37"
    seed_lines = (4585, 4611)
    size = 37
    first_line = 4593


class Bingo38(Bingo):
    game_id = "bingo_38"
    title = "Bingo 38"
    seed_lines = (4613, 4639)
    size = 38
    first_line = 4621
