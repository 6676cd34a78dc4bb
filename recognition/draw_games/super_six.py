"""Super Six: 35 of 48 balls in draw order, 8 colours of 6 balls (L4253). Pure.

Seed 000 L4251-L4285 (digest: rules-digest/seed-C.md §17). No odds in the seed.

Choices where the seed is silent or contradicts itself:

* Colour map: not given. Default: colours in the seed's listed order, repeating
  (1 red, 2 green, 3 blue, 4 purple, 5 brown, 6 yellow, 7 orange, 8 black, 9 red, ...),
  the same kind of map the seed gives for the 48-ball Lucky 6. An assumption:
  pass the real map as ``colors=`` and check it before going live.
* "The sum of the numbers of all balls is Over/Under 122.5" (L4263) cannot mean all
  35 balls (their sum is at least 630); it is the sum of the first 5 balls, as in
  the 48-ball Lucky 6 (L3031) whose 122.5 = 5 x 24.5.
* Simple bet (L4257): the odds depend on "the time of the fall of all 6 balls",
  the ball (6th..35th) with which the sixth of the selected numbers fell out;
  settle it with a table of odds keyed by that ball ("6".."35").
* The colour bet (L4259-L4261) wins only if the chosen colour came out more often
  than every other colour; a tie for the most loses ("more than other colors").
* "The numbers of the first and last ball" (L4279): the selection is
  [first, last] in that order and both must match; "... first or last ball"
  (L4281): the same selection, at least one of the two matches.
* Cool 6 / Hot 6 (L4267-L4269): the bet carries its six numbers (the platform
  picks them from its history); it wins if all six are among the 35 drawn.
"""

from __future__ import annotations

from typing import Any

from recognition.evaluate_fast import TailCache

from .base import DrawGame, Drawn, Market, fixed, hits, nth_hit_at, numbers, over, picked, under
from .fast_evaluate import distinct_balls
from .lucky import _check_color_map, cyclic_colors

SUPER_SIX_COLORS = ("red", "green", "blue", "purple", "brown", "yellow", "orange", "black")  # L4253


class SuperSix(DrawGame):
    game_id = "super_six"
    title = "Super Six"
    seed_lines = (4251, 4285)
    ball_labels = numbers(1, 48)
    draw_count = 35
    color_order = SUPER_SIX_COLORS

    def __init__(self, *, colors: dict[str, str] | None = None) -> None:
        self.colors = _check_color_map(self, colors or cyclic_colors(self.ball_labels, self.color_order), 6)

        def most(d: Drawn, s: tuple[str, ...]) -> bool:
            mine = d.count(s[0])
            return all(mine > d.count(c) for c in self.color_order if c != s[0])

        m: list[Market] = [
            picked("simple", 4257, (6, 7, 8, 9, 10), lambda d, s: nth_hit_at(d, s, 6), keyed=True),
            picked("most_color", 4259, 1, most, choices=SUPER_SIX_COLORS),
            fixed("first5_sum_over_122.5", 4263, lambda d: over(sum(d.numbers[:5]), "122.5")),
            fixed("first5_sum_under_122.5", 4263, lambda d: under(sum(d.numbers[:5]), "122.5")),
            fixed("first_over_24.5", 4265, lambda d: over(d.first, "24.5")),
            fixed("first_under_24.5", 4265, lambda d: under(d.first, "24.5")),
            picked("cool_6", 4267, 6, lambda d, s: hits(d, s) == 6),
            picked("hot_6", 4269, 6, lambda d, s: hits(d, s) == 6),
            fixed("first_even", 4271, lambda d: d.first % 2 == 0),
            fixed("first_odd", 4271, lambda d: d.first % 2 == 1),
            fixed("last_even", 4273, lambda d: d.last % 2 == 0),
            fixed("last_odd", 4273, lambda d: d.last % 2 == 1),
            fixed("more_even", 4275, lambda d: d.even > d.odd),
            fixed("more_odd", 4275, lambda d: d.odd > d.even),
            picked("first_color", 4277, 1, lambda d, s: d.colors[0] == s[0], choices=SUPER_SIX_COLORS),
            picked("last_color", 4277, 1, lambda d, s: d.colors[-1] == s[0], choices=SUPER_SIX_COLORS),
            picked(
                "first_and_last",
                4279,
                2,
                lambda d, s: d.balls[0] == s[0] and d.balls[-1] == s[1],
                ordered=True,
            ),
            picked(
                "first_or_last", 4281, 2, lambda d, s: d.balls[0] == s[0] or d.balls[-1] == s[1], ordered=True
            ),
            picked("two_not_drawn", 4283, 2, lambda d, s: hits(d, s) == 0),
        ]
        self.markets = tuple(m)
        # studio evaluate's fast path: a ball as a line writes it -> its colour, its number
        self._color = {f'"{b}"': self.colors[b] for b in self.ball_labels}
        self._number = {f'"{b}"': int(b) for b in self.ball_labels}
        self._counts_text = ",".join(f'"{c}":%d' for c in self.color_order)
        self._color_balls = [
            frozenset(b for b in self._color if self._color[b] == c) for c in self.color_order
        ]
        self._odd_balls = frozenset(b for b in self._number if self._number[b] % 2)
        self._tails = TailCache(self.evaluate)

    fast_evaluate = True

    def evaluate_json(self, line: str) -> str | None:
        """A line ``{"id": N, "balls": ["31", "3", ...]}`` of 35 distinct balls: the answer up to the winning
        bets written here, the winning bets kept by what the fixed bets read (the first five balls' sum and
        the first ball against their lines, the first and last balls' parity, the odd balls)."""
        got = distinct_balls(line, 35, self._color)
        if got is None:
            return None
        rid, balls, labels, colors = got
        number = self._number.__getitem__
        first5 = sum(map(number, labels[:5]))
        first, last = number(labels[0]), number(labels[-1])
        drawn = set(labels)
        counts = [len(drawn.intersection(c)) for c in self._color_balls]
        odd = len(drawn.intersection(self._odd_balls))
        top = max(counts)
        most = f'"{self.color_order[counts.index(top)]}"' if counts.count(top) == 1 else "null"
        colors_text, counts_text = '","'.join(colors), self._counts_text % tuple(counts)
        # one f-string: each + would copy the whole head so far
        head = (
            f'"valid":true,"result":{{"balls":[{balls}]}},"outcome":{{"balls":[{balls}],"colors":["{colors_text}"],'
            f'"first5_sum":{first5},"first":{first},"last":{last},"first_color":"{colors[0]}",'
            f'"last_color":"{colors[-1]}","odd":{odd},"even":{35 - odd},"color_counts":{{{counts_text}}},'
            f'"most_color":{most},'
        )
        facts = (first5 < 122.5, first < 24.5, first & 1, last & 1, odd > 17)
        return self._tails.line(rid, head, facts, lambda: {"balls": [b[1:-1] for b in labels]})

    def facts(self, d: Drawn) -> dict[str, Any]:
        counts = {c: d.count(c) for c in self.color_order}
        top = max(counts.values())
        leaders = [c for c, n in counts.items() if n == top]
        return {
            "first5_sum": sum(d.numbers[:5]),
            "first": d.first,
            "last": d.last,
            "first_color": d.colors[0],
            "last_color": d.colors[-1],
            "odd": d.odd,
            "even": d.even,
            "color_counts": counts,
            "most_color": leaders[0] if len(leaders) == 1 else None,
        }
