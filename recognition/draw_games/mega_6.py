"""MEGA 6: 6 of 49 balls in draw order; odd balls white, even balls pink (L4195). Pure.

Seed 000 L4193-L4249 (digest: rules-digest/seed-C.md §16). No odds in the seed.

Choices where the seed is silent or contradicts itself:

* "1 out of 3" (L4201) says the bet loses "if at least one of the three selected
  balls does not fall out", which contradicts "wins if at least one … falls out";
  "k out of n" wins when at least k of the n selected numbers are drawn.
* "Over"/"Under" an integer (15, 25, 35, 120, ..., 185, 100, 65) is strict: a first
  ball of 25 is neither over nor under 25 (L4205) and a sum of exactly 120 is not
  under 120.
* 3 white and 3 pink: neither "more white" nor "more pink" wins (L4213-L4215).
* The sum of white (pink) balls when none was drawn is 0 (it wins "under 65");
  ``empty_color_sum_void=True`` voids those bets instead.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from recognition.evaluate_fast import TailCache, plain_line

from .base import VOID, DrawGame, Drawn, Market, fixed, hits, numbers, picked


class Mega6(DrawGame):
    game_id = "mega_6"
    title = "MEGA 6"
    seed_lines = (4193, 4249)
    ball_labels = numbers(1, 49)
    draw_count = 6
    colors = {b: "white" if int(b) % 2 else "pink" for b in numbers(1, 49)}
    color_order = ("white", "pink")

    def __init__(self, *, empty_color_sum_void: bool = False) -> None:
        self.empty_color_sum_void = empty_color_sum_void
        m: list[Market] = []
        for k, n in ((1, 1), (2, 2), (3, 3), (4, 4), (1, 2), (1, 3), (1, 4)):  # L4201, in the seed's order
            m.append(picked(f"numbers_{k}_of_{n}", 4201, n, lambda d, s, k=k: hits(d, s) >= k))
        for t in (15, 25, 35):
            m.append(fixed(f"first_over_{t}", 4203, lambda d, t=t: d.first > t))
        m += [
            fixed("first_two_over_25", 4205, lambda d: d.numbers[0] > 25 and d.numbers[1] > 25),
            fixed("first_two_under_25", 4205, lambda d: d.numbers[0] < 25 and d.numbers[1] < 25),
            fixed("all_white", 4209, lambda d: d.count("white") == 6),
            fixed("all_pink", 4211, lambda d: d.count("pink") == 6),
            fixed("more_white", 4213, lambda d: d.count("white") > d.count("pink")),
            fixed("more_pink", 4215, lambda d: d.count("pink") > d.count("white")),
            fixed("first_white", 4217, lambda d: d.colors[0] == "white"),
            fixed("first_pink", 4219, lambda d: d.colors[0] == "pink"),
            fixed("first_two_white", 4221, lambda d: d.colors[:2] == ("white", "white")),
            fixed("first_two_pink", 4223, lambda d: d.colors[:2] == ("pink", "pink")),
            fixed("first_white_second_pink", 4225, lambda d: d.colors[:2] == ("white", "pink")),
            fixed("first_pink_second_white", 4227, lambda d: d.colors[:2] == ("pink", "white")),
            fixed("sum_even", 4229, lambda d: sum(d.numbers) % 2 == 0),
            fixed("sum_odd", 4229, lambda d: sum(d.numbers) % 2 == 1),
        ]
        for t in (120, 135, 150):
            m.append(fixed(f"sum_under_{t}", 4231, lambda d, t=t: sum(d.numbers) < t))
        for t in (155, 170, 185):
            m.append(fixed(f"sum_over_{t}", 4233, lambda d, t=t: sum(d.numbers) > t))
        m += [
            fixed("white_sum_over_100", 4235, self._color_sum("white", lambda s: s > 100)),
            fixed("white_sum_under_65", 4237, self._color_sum("white", lambda s: s < 65)),
            fixed("pink_sum_over_100", 4239, self._color_sum("pink", lambda s: s > 100)),
            fixed("pink_sum_under_65", 4241, self._color_sum("pink", lambda s: s < 65)),
        ]
        self.markets = tuple(m)

    def _color_sum(self, color: str, pred):
        def test(d: Drawn) -> Any:
            if self.empty_color_sum_void and color not in d.colors:
                return VOID
            return pred(d.color_sum(color))

        return test

    def facts(self, d: Drawn) -> dict[str, Any]:
        return {
            "sum": sum(d.numbers),
            "first": d.first,
            "second": d.numbers[1],
            "color_counts": {c: d.count(c) for c in self.color_order},
            "color_sums": {c: d.color_sum(c) for c in self.color_order},
        }

    # -- studio evaluate's fast path ------------------------------------------------------------

    fast_evaluate = True

    @cached_property
    def _tails(self) -> TailCache:
        return TailCache(self.evaluate)

    def evaluate_json(self, line: str) -> str | None:
        """A line ``{"id": N, "balls": ["28", "33", ...]}`` of six distinct balls: the answer up to the winning
        bets written here, the winning bets kept by what every fixed bet reads (a few thousand kinds)."""
        m = _SIX_BALLS(line)
        if m is None:
            return None
        balls = m[2].replace(", ", ",")  # '"28","33",...': the balls as the answer writes them
        labels = balls.split(",")
        if len(set(labels)) != 6:
            return None
        numbers = [_NUMBER[b] for b in labels]
        first, second = numbers[0], numbers[1]
        total = sum(numbers)
        odd = [n for n in numbers if n & 1]
        whites, white_sum = len(odd), sum(odd)
        pink_sum = total - white_sum
        colors = '","'.join([_COLOR[n & 1] for n in numbers])
        head = (
            f'"valid":true,"result":{{"balls":[{balls}]}},"outcome":{{"balls":[{balls}],"colors":["{colors}"],'
            f'"sum":{total},"first":{first},"second":{second},"color_counts":{{"white":{whites},'
            f'"pink":{6 - whites}}},"color_sums":{{"white":{white_sum},"pink":{pink_sum}}},'
        )
        facts = (
            _FIRST[first],
            _SECOND[second],
            whites,
            _SUM[total],
            _COLOR_SUM[white_sum],
            _COLOR_SUM[pink_sum],
        )
        return self._tails.line(m[1], head, facts, {"balls": [str(n) for n in numbers]})


#: a ball as a line writes it -> its number; a number's parity -> its colour (odd balls white)
_NUMBER = {f'"{n}"': n for n in range(1, 50)}
_COLOR = ("pink", "white")
#: what the fixed bets read of the first ball, the second, the sum and a colour's sum, as a small number:
#: the winning bets follow from these, the whites' count, and nothing else
_FIRST = [(n > 15) + 2 * (n > 25) + 4 * (n > 35) + 8 * (n < 25) + 16 * (n & 1) for n in range(50)]
_SECOND = [(n > 25) + 2 * (n < 25) + 4 * (n & 1) for n in range(50)]
_SUM = [
    (t & 1) + 2 * (t < 120) + 4 * (t < 135) + 8 * (t < 150) + 16 * (t > 155) + 32 * (t > 170) + 64 * (t > 185)
    for t in range(300)
]
_COLOR_SUM = [(s > 100) + 2 * (s < 65) for s in range(300)]
_BALL = r'"(?:[1-9]|[1-3][0-9]|4[0-9])"'
_SIX_BALLS = plain_line(rf'"balls": ?\[({_BALL}(?:, ?{_BALL}){{5}})\]').fullmatch
