"""Lucky 5 (5 of 36), Lucky 7 (7 of 42), Lucky 6 with 60 digit balls, Lucky 6 with 48 balls (35 drawn). Pure.

Seed 000: Lucky 5 L2121-L2316, Lucky 7 L2317-L2466, Lucky 6 (60 balls)
L2535-L2616, Lucky 6 (48 balls) L2943-L3066 (digest: rules-digest/seed-B.md §13,
§14, §17, §25). The seed numbers each bet; item k of a list sits on a fixed line
(Lucky 5: L2127 + 2k), which the catalogue keeps. No seed gives odds.

Colour maps. Only the 48-ball Lucky 6 gives one (L2949-L2963: ball n has colour
(n - 1) mod 8 in the listed order). Lucky 5 and Lucky 7 name the colours and how
many balls carry each, not which. The default here follows the one map the seed
does give: colours in the seed's listed order, repeating (Lucky 5: 1 white,
2 blue, 3 green, 4 red, 5 white, ...; Lucky 7: odd black, even yellow). It is an
assumption: pass the real ball set as ``colors=`` and check it before going live.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from recognition.evaluate_fast import TailCache, plain_line

from .base import VOID, DrawGame, Drawn, Market, completed_at, fixed, hits, numbers, over, picked, under
from .fast_evaluate import ODD_ENDS, FastDrawEvaluator, distinct_balls


def cyclic_colors(labels: Sequence[str], order: Sequence[str]) -> dict[str, str]:
    return {b: order[(int(b) - 1) % len(order)] for b in labels}


def _check_color_map(game: DrawGame, colors: dict[str, str], per_color: int) -> dict[str, str]:
    if set(colors) != set(game.ball_labels):
        raise ValueError(
            f"{game.title}: the colour map must give every ball {game.ball_labels[0]}.."
            f"{game.ball_labels[-1]} exactly once"
        )
    for color in game.color_order:
        if list(colors.values()).count(color) != per_color:
            raise ValueError(
                f"{game.title}: the seed has {per_color} {color} balls, the map gives "
                f"{list(colors.values()).count(color)}"
            )
    if set(colors.values()) != set(game.color_order):
        raise ValueError(f"{game.title}: colours must be {', '.join(game.color_order)}")
    return dict(colors)


class _ColorSums:
    """``empty_color_sum_void``: a bet on the sum of one colour's balls when no ball of that colour
    was drawn. The seeds are silent; by default the sum is 0 (it wins "under", loses "over"); True voids it."""

    empty_color_sum_void: bool = False

    def color_sum_test(self, color: str, threshold: str, side: str):
        def test(d: Drawn) -> Any:
            if self.empty_color_sum_void and color not in d.colors:
                return VOID
            total = d.color_sum(color)
            return over(total, threshold) if side == "over" else under(total, threshold)

        return test


# --- Lucky 5 -----------------------------------------------------------------------------------------


class Lucky5(_ColorSums, DrawGame):
    """5 of 36 balls into five cylinders, read left (first) to right (last) (L2123)."""

    game_id = "lucky_5"
    title = "Lucky 5"
    seed_lines = (2121, 2316)
    ball_labels = numbers(1, 36)
    draw_count = 5
    color_order = ("white", "blue", "green", "red")  # as listed on L2123

    def __init__(self, *, colors: dict[str, str] | None = None) -> None:
        self.colors = _check_color_map(self, colors or cyclic_colors(self.ball_labels, self.color_order), 9)

        def line(item: int) -> int:
            return 2127 + 2 * item

        m: list[Market] = [
            picked("drawn", line(1), 1, lambda d, s: s[0] in d.set),
            picked("not_drawn", line(2), 1, lambda d, s: s[0] not in d.set),
            picked("two_drawn", line(3), 2, lambda d, s: hits(d, s) == 2),
            picked("three_drawn", line(4), 3, lambda d, s: hits(d, s) == 3),
            fixed("more_odd", line(5), lambda d: d.odd > d.even),
            fixed("more_even", line(6), lambda d: d.even > d.odd),
            fixed("sum_odd", line(7), lambda d: sum(d.numbers) % 2 == 1),
            fixed("sum_even", line(8), lambda d: sum(d.numbers) % 2 == 0),
            fixed("sum_under_92.5", line(9), lambda d: under(sum(d.numbers), "92.5")),
            fixed("sum_over_92.5", line(10), lambda d: over(sum(d.numbers), "92.5")),
        ]
        # items 11-70: fifteen bets per colour, in the seed's order white, green, red, blue
        for base, c in ((11, "white"), (26, "green"), (41, "red"), (56, "blue")):
            block = [
                (f"{c}_at_least_1", lambda n: n >= 1),
                (f"{c}_none", lambda n: n == 0),
                (f"{c}_over_1.5", lambda n: n >= 2),
                (f"{c}_under_1.5", lambda n: n <= 1),
                (f"{c}_over_2.5", lambda n: n >= 3),
                (f"{c}_under_2.5", lambda n: n <= 2),
                (f"{c}_over_3.5", lambda n: n >= 4),
                (f"{c}_5", lambda n: n == 5),
                (f"{c}_exactly_1", lambda n: n == 1),
                (f"{c}_not_exactly_1", lambda n: n != 1),  # "Exactly one white ball will not be drawn"
                (f"{c}_exactly_2", lambda n: n == 2),
                (f"{c}_not_exactly_2", lambda n: n != 2),
                (f"{c}_exactly_3", lambda n: n == 3),
                (f"{c}_not_exactly_3", lambda n: n != 3),
                (f"{c}_exactly_4", lambda n: n == 4),
            ]
            for i, (mid, pred) in enumerate(block):
                m.append(fixed(mid, line(base + i), lambda d, c=c, pred=pred: pred(d.count(c))))
        for item, k in ((71, 3), (72, 4), (73, 5)):
            m.append(
                fixed(
                    f"same_color_{k}",
                    line(item),
                    lambda d, k=k: max(d.count(c) for c in self.color_order) >= k,
                )
            )
        for item, a, b, x, y in (
            (74, "white", "green", "red", "blue"),
            (75, "white", "red", "green", "blue"),
            (76, "white", "blue", "green", "red"),
        ):  # in the seed's words
            m.append(
                fixed(
                    f"{a}_{b}_over_{x}_{y}",
                    line(item),
                    lambda d, a=a, b=b, x=x, y=y: d.count(a) + d.count(b) > d.count(x) + d.count(y),
                )
            )
        item = 77
        for a, b in (
            ("white", "green"),
            ("white", "red"),
            ("white", "blue"),
            ("green", "red"),
            ("green", "blue"),
            ("red", "blue"),
        ):
            m.append(fixed(f"more_{a}_than_{b}", line(item), lambda d, a=a, b=b: d.count(a) > d.count(b)))
            m.append(fixed(f"more_{b}_than_{a}", line(item + 1), lambda d, a=a, b=b: d.count(b) > d.count(a)))
            m.append(fixed(f"equal_{a}_{b}", line(item + 2), lambda d, a=a, b=b: d.count(a) == d.count(b)))
            item += 3
        assert item == 95 and len(m) == 94
        self.markets = tuple(m)
        order = self.color_order

        def facts(labels: list[str], colors: list[str]) -> tuple[int, ...]:
            """Every fixed bet and fact of the outcome reads only these: the sum, the odd balls, the colours."""
            numbers = [int(b) for b in labels]
            return (sum(numbers), sum(n & 1 for n in numbers), *(colors.count(c) for c in order))

        self._fast = FastDrawEvaluator(self, facts)

    fast_evaluate = True

    def evaluate_json(self, line: str) -> str | None:
        return self._fast(line)

    def facts(self, d: Drawn) -> dict[str, Any]:
        return {
            "sum": sum(d.numbers),
            "odd": d.odd,
            "even": d.even,
            "color_counts": {c: d.count(c) for c in self.color_order},
        }


# --- Lucky 7 -----------------------------------------------------------------------------------------


class Lucky7(_ColorSums, DrawGame):
    """7 of 42 balls into a tube (L2319): "The draw is deemed to have taken place when at least 7 balls
    have been drawn. If there are more than 7 balls in the tube, the first 7 balls are counted, and the
    other balls are ignored." A result with more balls keeps the first 7 and lists the rest as
    ``ignored_balls``; fewer than 7 is no draw."""

    game_id = "lucky_7"
    title = "Lucky 7"
    seed_lines = (2317, 2466)
    ball_labels = numbers(1, 42)
    draw_count = 7
    color_order = ("black", "yellow")  # as listed on L2319
    _may_follow_completion = True

    def __init__(self, *, colors: dict[str, str] | None = None, empty_color_sum_void: bool = False) -> None:
        self.colors = _check_color_map(self, colors or cyclic_colors(self.ball_labels, self.color_order), 21)
        self.empty_color_sum_void = empty_color_sum_void

        def line(item: int) -> int:
            return 2319 + 2 * item

        m: list[Market] = [
            picked("drawn", line(1), 1, lambda d, s: s[0] in d.set),
            picked("not_drawn", line(2), 1, lambda d, s: s[0] not in d.set),
            picked("two_drawn", line(3), 2, lambda d, s: hits(d, s) == 2),
            picked("three_drawn", line(4), 3, lambda d, s: hits(d, s) == 3),
            picked("four_drawn", line(5), 4, lambda d, s: hits(d, s) == 4),
            picked("none_of_7", line(6), 7, lambda d, s: hits(d, s) == 0),
        ]
        for k in range(1, 6):  # items 7-11
            m.append(picked(f"at_least_{k}_of_7", line(6 + k), 7, lambda d, s, k=k: hits(d, s) >= k))
        m += [
            fixed("yellow_sum_under_73.5", line(12), self.color_sum_test("yellow", "73.5", "under")),
            fixed("yellow_sum_over_73.5", line(13), self.color_sum_test("yellow", "73.5", "over")),
            fixed("black_sum_under_73.5", line(14), self.color_sum_test("black", "73.5", "under")),
            fixed("black_sum_over_73.5", line(15), self.color_sum_test("black", "73.5", "over")),
        ]
        item = 16
        for side, t in (
            ("under", "100.5"),
            ("under", "125.5"),
            ("over", "125.5"),
            ("under", "150.5"),
            ("over", "150.5"),
            ("under", "175.5"),
            ("over", "175.5"),
            ("under", "200.5"),
        ):
            cmp = over if side == "over" else under
            m.append(fixed(f"sum_{side}_{t}", line(item), lambda d, cmp=cmp, t=t: cmp(sum(d.numbers), t)))
            item += 1
        for base, c in ((24, "yellow"), (31, "black")):
            for i, (mid, pred) in enumerate(
                [
                    (f"{c}_under_3.5", lambda n: n <= 3),
                    (f"{c}_over_3.5", lambda n: n >= 4),
                    (f"{c}_under_2.5", lambda n: n <= 2),
                    (f"{c}_over_2.5", lambda n: n >= 3),
                    (f"{c}_under_1.5", lambda n: n <= 1),
                    (f"{c}_over_1.5", lambda n: n >= 2),
                    (f"{c}_none", lambda n: n == 0),
                ]
            ):
                m.append(fixed(mid, line(base + i), lambda d, c=c, pred=pred: pred(d.count(c))))
        for base, c in ((38, "yellow"), (45, "black")):
            m.append(fixed(f"{c}_7", line(base), lambda d, c=c: d.count(c) == 7))
            for i, k in enumerate(range(6, 0, -1), 1):
                m.append(fixed(f"{c}_exactly_{k}", line(base + i), lambda d, c=c, k=k: d.count(c) == k))
        m += [
            fixed("more_odd", line(52), lambda d: d.odd > d.even),
            fixed("more_even", line(53), lambda d: d.even > d.odd),
            fixed("sum_odd", line(54), lambda d: sum(d.numbers) % 2 == 1),
            fixed("sum_even", line(55), lambda d: sum(d.numbers) % 2 == 0),
            fixed("first_odd", line(56), lambda d: d.first % 2 == 1),
            fixed("first_even", line(57), lambda d: d.first % 2 == 0),
            fixed("last_odd", line(58), lambda d: d.last % 2 == 1),
            fixed("last_even", line(59), lambda d: d.last % 2 == 0),
            fixed("first_two_odd", line(60), lambda d: d.numbers[0] % 2 == 1 and d.numbers[1] % 2 == 1),
            fixed("first_two_even", line(61), lambda d: d.numbers[0] % 2 == 0 and d.numbers[1] % 2 == 0),
            fixed(
                "first_odd_second_even", line(62), lambda d: d.numbers[0] % 2 == 1 and d.numbers[1] % 2 == 0
            ),
            fixed(
                "first_even_second_odd", line(63), lambda d: d.numbers[0] % 2 == 0 and d.numbers[1] % 2 == 1
            ),
            fixed("first_odd_last_even", line(64), lambda d: d.first % 2 == 1 and d.last % 2 == 0),
            fixed("first_even_last_odd", line(65), lambda d: d.first % 2 == 0 and d.last % 2 == 1),
            fixed("first_yellow", line(66), lambda d: d.colors[0] == "yellow"),
            fixed("first_black", line(67), lambda d: d.colors[0] == "black"),
            fixed("last_yellow", line(68), lambda d: d.colors[-1] == "yellow"),
            fixed("last_black", line(69), lambda d: d.colors[-1] == "black"),
            fixed("more_yellow", line(70), lambda d: d.count("yellow") > d.count("black")),
            fixed("more_black", line(71), lambda d: d.count("black") > d.count("yellow")),
            fixed("first_two_same_color", line(72), lambda d: d.colors[0] == d.colors[1]),
            fixed("first_two_different_colors", line(73), lambda d: d.colors[0] != d.colors[1]),
        ]
        assert len(m) == 73
        self.markets = tuple(m)
        # studio evaluate's fast path: a ball as a line writes it -> its number and colour
        self._ball = {f'"{b}"': (int(b), self.colors[b]) for b in self.ball_labels}
        self._tails = TailCache(self.evaluate)

    fast_evaluate = True

    def evaluate_json(self, line: str) -> str | None:
        """A line ``{"id": N, "balls": ["36", "7", ...]}`` of seven distinct balls: the answer up to the
        winning bets written here, the winning bets kept by what every fixed bet reads (each colour's count
        and its sum against 73.5, the sum's class, the odd balls, the first, second and last balls)."""
        m = _SEVEN_BALLS(line)
        if m is None:
            return None
        balls = m[2].replace(", ", ",")  # '"36","7",...': the balls as the answer writes them
        labels = balls.split(",")
        if len(set(labels)) != 7:
            return None
        try:
            drawn = [self._ball[b] for b in labels]
        except KeyError:
            return None
        numbers = [n for n, _ in drawn]
        colors = [c for _, c in drawn]
        total = sum(numbers)
        odd = sum(n & 1 for n in numbers)
        counts = [colors.count(c) for c in self.color_order]
        sums = [sum(n for n, c in drawn if c == color) for color in self.color_order]
        black, yellow = self.color_order
        head = (
            f'"valid":true,"result":{{"balls":[{balls}]}},"outcome":{{"balls":[{balls}],"colors":["'
            + '","'.join(colors)
            + f'"],"sum":{total},"odd":{odd},"even":{7 - odd},"color_counts":{{"{black}":{counts[0]},'
            f'"{yellow}":{counts[1]}}},"color_sums":{{"{black}":{sums[0]},"{yellow}":{sums[1]}}},'
        )
        first, second, last = drawn[0], drawn[1], drawn[-1]
        facts = (
            counts[0],
            sums[0] < 73.5,
            sums[1] < 73.5,
            _SUM_CLASS[total],
            odd,
            (first[0] & 1, first[1], second[0] & 1, second[1], last[0] & 1, last[1]),
        )
        return self._tails.line(m[1], head, facts, {"balls": [b[1:-1] for b in labels]})

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        balls = self._result_balls(result)
        ignored = result.get("ignored_balls", [])
        for name, value in (("balls", balls), ("ignored_balls", ignored)):
            if not isinstance(value, list):
                raise ValueError(
                    f"'{name}' must be a list of ball labels in draw order, not {type(value).__name__}"
                )
        labels = self.validate_partial(balls + ignored)
        if len(labels) < 7:
            raise ValueError(
                f"the draw is incomplete: Lucky 7 needs at least 7 balls in the tube (L2319), "
                f"got {len(labels)}"
            )
        if "colors" in result:  # one per counted ball, or one per ball in the tube
            given = result["colors"]
            counted = labels[:7] if isinstance(given, list) and len(given) == 7 else labels
            self._check_colors(result, counted)
        out: dict[str, Any] = {"balls": labels[:7]}
        if len(labels) > 7:
            out["ignored_balls"] = labels[7:]
        return out

    def facts(self, d: Drawn) -> dict[str, Any]:
        return {
            "sum": sum(d.numbers),
            "odd": d.odd,
            "even": d.even,
            "color_counts": {c: d.count(c) for c in self.color_order},
            "color_sums": {c: d.color_sum(c) for c in self.color_order},
        }


#: what Lucky 7's bets on the sum read of it: its parity and the side of each line (100.5 .. 200.5)
_SUM_CLASS = [
    (t & 1) + 2 * (t < 100.5) + 4 * (t < 125.5) + 8 * (t < 150.5) + 16 * (t < 175.5) + 32 * (t < 200.5)
    for t in range(300)
]
_BALL_42 = r'"(?:[1-9]|[1-3][0-9]|4[0-2])"'
_SEVEN_BALLS = plain_line(rf'"balls": ?\[({_BALL_42}(?:, ?{_BALL_42}){{6}})\]').fullmatch


# --- Lucky 6 with 60 digit balls ------------------------------------------------------------------------


DIGITS = tuple(str(n) for n in range(10))
ZONES = ("A", "B", "C")


class Lucky6Of60(_ColorSums, DrawGame):
    """6 of 60 balls, 30 red and 30 blue, each marked with a digit 0-9 (L2537); they drop into zones
    A, B, C two by two, left (first) to right (last).

    A ball's label is its colour and digit, ``"red-7"``. Digits repeat, so a label
    may come up more than once; how many balls carry each colour and digit is not
    in the seed (only that the red digits add up to 138 and the blue to 132), so by
    default a label may appear up to 6 times (which never limits a 6-ball draw). Pass
    the real ball set as ``counts=`` to check it.

    A zone's number (bets 4-6, L2547-L2551) is the zone's first ball's digit followed
    by its second's ("left to right", L2537): zone A with 3 then 7 is "37".
    Zero is an even digit, and a count of 0 is even (bet 9, L2557).
    """

    game_id = "lucky_6_60"
    title = "Lucky 6 (60 balls)"
    seed_lines = (2535, 2616)
    ball_labels = tuple(f"{c}-{d}" for c in ("red", "blue") for d in DIGITS)
    draw_count = 6
    color_order = ("red", "blue")

    def __init__(self, *, counts: dict[str, int] | None = None, empty_color_sum_void: bool = False) -> None:
        self.colors = {b: b.split("-")[0] for b in self.ball_labels}
        self.counts = dict(counts) if counts else {b: 6 for b in self.ball_labels}
        if set(self.counts) - set(self.ball_labels):
            raise ValueError(
                f"Lucky 6 (60 balls): unknown labels in counts: {sorted(set(self.counts) - set(self.ball_labels))}"
            )
        self.empty_color_sum_void = empty_color_sum_void
        pairs = tuple(f"{a}{b}" for a in DIGITS for b in DIGITS)

        def line(item: int) -> int:
            return 2539 + 2 * item

        m: list[Market] = []
        for i, z in enumerate(ZONES):
            m.append(
                picked(
                    f"digit_in_zone_{z}",
                    line(1 + i),
                    1,
                    lambda d, s, i=i: int(s[0]) in d.digits[2 * i : 2 * i + 2],
                    choices=DIGITS,
                )
            )
        for i, z in enumerate(ZONES):
            m.append(
                picked(
                    f"zone_{z}_number", line(4 + i), 1, lambda d, s, z=z: d.zones[z] == s[0], choices=pairs
                )
            )
        m += [
            picked(
                "digit_count_over_1.5",
                line(7),
                1,
                lambda d, s: d.digits.count(int(s[0])) >= 2,
                choices=DIGITS,
            ),
            picked(
                "digit_count_under_1.5",
                line(8),
                1,
                lambda d, s: d.digits.count(int(s[0])) <= 1,
                choices=DIGITS,
            ),
            picked(
                "digit_count_even",
                line(9),
                1,
                lambda d, s: d.digits.count(int(s[0])) % 2 == 0,
                choices=DIGITS,
            ),
            picked(
                "digit_count_odd",
                line(10),
                1,
                lambda d, s: d.digits.count(int(s[0])) % 2 == 1,
                choices=DIGITS,
            ),
            fixed("red_sum_under_13.5", line(11), self.color_sum_test("red", "13.5", "under")),
            fixed("red_sum_over_13.5", line(12), self.color_sum_test("red", "13.5", "over")),
            fixed("blue_sum_under_12.5", line(13), self.color_sum_test("blue", "12.5", "under")),
            fixed("blue_sum_over_12.5", line(14), self.color_sum_test("blue", "12.5", "over")),
        ]
        for i, z in enumerate(ZONES):
            m.append(
                fixed(
                    f"zone_{z}_sum_under_9.5", line(15 + 2 * i), lambda d, z=z: under(d.zone_sums[z], "9.5")
                )
            )
            m.append(
                fixed(f"zone_{z}_sum_over_9.5", line(16 + 2 * i), lambda d, z=z: over(d.zone_sums[z], "9.5"))
            )
        m += [
            fixed("sum_even", line(21), lambda d: sum(d.digits) % 2 == 0),
            fixed("sum_odd", line(22), lambda d: sum(d.digits) % 2 == 1),
            fixed("even_count_under_2.5", line(23), lambda d: d.even_digits <= 2),
            fixed("even_count_over_2.5", line(24), lambda d: d.even_digits >= 3),
            fixed("odd_count_under_2.5", line(25), lambda d: 6 - d.even_digits <= 2),
            fixed("odd_count_over_2.5", line(26), lambda d: 6 - d.even_digits >= 3),
        ]
        for i, z in enumerate(ZONES):
            m.append(fixed(f"zone_{z}_sum_even", line(27 + 2 * i), lambda d, z=z: d.zone_sums[z] % 2 == 0))
            m.append(fixed(f"zone_{z}_sum_odd", line(28 + 2 * i), lambda d, z=z: d.zone_sums[z] % 2 == 1))
        for i, t in enumerate(("26.5", "15.5", "38.5")):
            m.append(fixed(f"sum_under_{t}", line(33 + 2 * i), lambda d, t=t: under(sum(d.digits), t)))
            m.append(fixed(f"sum_over_{t}", line(34 + 2 * i), lambda d, t=t: over(sum(d.digits), t)))
        assert len(m) == 38 and m[-1].line == 2615
        self.markets = tuple(m)
        # studio evaluate's fast path: a ball as a line writes it -> its colour, its digit, the digit if the
        # ball is red (else 0), 1 if the digit is even
        digit = {f'"{b}"': int(b.split("-")[1]) for b in self.ball_labels}
        self._digit = digit
        self._color = {f'"{b}"': self.colors[b] for b in self.ball_labels}
        self._red_digit = {k: n if self._color[k] == "red" else 0 for k, n in digit.items()}
        self._even = {k: 1 - n % 2 for k, n in digit.items()}
        self._tails = TailCache(self.evaluate)

    fast_evaluate = True

    def evaluate_json(self, line: str) -> str | None:
        """A line ``{"id": N, "balls": ["red-7", ...]}`` of six balls: the answer up to the winning bets
        written here, the winning bets kept by what the fixed bets read (each colour's digit sum, each zone's
        sum, the sum, the even digits)."""
        m = _SIX_DIGIT_BALLS(line)
        if m is None:
            return None
        balls = m[2].replace(", ", ",")  # '"red-7","blue-4",...': the balls as the answer writes them
        labels = balls.split(",")
        try:
            digits = list(map(self._digit.__getitem__, labels))
        except KeyError:  # not a ball of the game
            return None
        if len(set(labels)) < 6 and any(labels.count(b) > self.max_count(b[1:-1]) for b in labels):
            return None
        color_list = list(map(self._color.__getitem__, labels))
        colors = '","'.join(color_list)
        a, b, c = digits[0] + digits[1], digits[2] + digits[3], digits[4] + digits[5]
        total = a + b + c
        red = sum(map(self._red_digit.__getitem__, labels))
        reds = color_list.count("red")
        even = sum(map(self._even.__getitem__, labels))
        d = digits
        head = (
            f'"valid":true,"result":{{"balls":[{balls}]}},"outcome":{{"balls":[{balls}],"colors":["{colors}"],'
            f'"digits":[{d[0]},{d[1]},{d[2]},{d[3]},{d[4]},{d[5]}],"zones":{{"A":"{d[0]}{d[1]}",'
            f'"B":"{d[2]}{d[3]}","C":"{d[4]}{d[5]}"}},"zone_sums":{{"A":{a},"B":{b},"C":{c}}},"sum":{total},'
            f'"color_sums":{{"red":{red},"blue":{total - red}}},"even":{even},"odd":{6 - even},'
        )
        facts = (red < 13.5, total - red < 12.5, reds, _ZONE[a], _ZONE[b], _ZONE[c], even, _SUM_60[total])
        return self._tails.line(m[1], head, facts, {"balls": [x[1:-1] for x in labels]})

    def drawn(self, result: dict[str, Any]) -> Drawn:
        return _DigitsDrawn(self, result["balls"])

    def facts(self, d: Drawn) -> dict[str, Any]:
        assert isinstance(d, _DigitsDrawn)  # made by drawn()
        return {
            "digits": list(d.digits),
            "zones": dict(d.zones),
            "zone_sums": dict(d.zone_sums),
            "sum": sum(d.numbers),
            "color_sums": {c: d.color_sum(c) for c in self.color_order},
            "even": d.even_digits,
            "odd": 6 - d.even_digits,
        }


class _DigitsDrawn(Drawn):
    """A Lucky 6 (60 balls) draw: the balls' digits, and the zones they drop into two by two."""

    def __init__(self, game: DrawGame, balls: Sequence[str]) -> None:
        super().__init__(game, balls)
        self.digits = tuple(int(b.split("-")[1]) for b in self.balls)
        self.numbers = self.digits  # sums of "the numbers of the balls" are sums of digits
        self.zones = {z: f"{self.digits[2 * i]}{self.digits[2 * i + 1]}" for i, z in enumerate(ZONES)}
        self.zone_sums = {z: self.digits[2 * i] + self.digits[2 * i + 1] for i, z in enumerate(ZONES)}
        self.even_digits = sum(1 for x in self.digits if x % 2 == 0)


#: what Lucky 6's bets read of a zone's sum (against 9.5, its parity) and of the sum (parity, 15.5 .. 38.5)
_ZONE = [(t < 9.5) + 2 * (t & 1) for t in range(19)]
_SUM_60 = [(t & 1) + 2 * (t < 15.5) + 4 * (t < 26.5) + 8 * (t < 38.5) for t in range(55)]
_DIGIT_BALL = r'"(?:red|blue)-[0-9]"'
_SIX_DIGIT_BALLS = plain_line(rf'"balls": ?\[({_DIGIT_BALL}(?:, ?{_DIGIT_BALL}){{5}})\]').fullmatch


# --- Lucky 6 with 48 balls, 35 drawn ---------------------------------------------------------------------

LUCKY6_48_COLORS = ("green", "blue", "red", "purple", "yellow", "orange", "brown", "black")  # L2949-L2963


class Lucky6Of48(DrawGame):
    """35 of 48 balls in draw order (L2945); colour of ball n is the (n - 1) mod 8-th of L2949-L2963.

    Bets 1-30 (L2971-L3029) are one ticket of six numbers whose odds depend on the
    ball with which the sixth of them fell out (6th to 35th): settle it either as
    ``six_numbers`` with a table of odds keyed by that ball ("6".."35"), or as the
    seed's single outcome ``six_at_<n>``. "More even/odd balls" (L3051-L3053) counts
    all 35 drawn balls (35 is odd, so there is no tie).
    """

    game_id = "lucky_6_48"
    title = "Lucky 6 (48 balls)"
    seed_lines = (2943, 3066)
    ball_labels = numbers(1, 48)
    draw_count = 35
    colors = cyclic_colors(numbers(1, 48), LUCKY6_48_COLORS)
    color_order = LUCKY6_48_COLORS

    def __init__(self) -> None:
        def line(item: int) -> int:
            return 2969 + 2 * item

        m: list[Market] = [
            picked("six_numbers", line(1), 6, lambda d, s: completed_at(d, s), keyed=True),
        ]
        for n in range(6, 36):  # items 1-30
            m.append(picked(f"six_at_{n}", line(n - 5), 6, lambda d, s, n=n: completed_at(d, s) == n))
        m += [
            fixed("first5_sum_over_122.5", line(31), lambda d: over(sum(d.numbers[:5]), "122.5")),
            fixed("first5_sum_under_122.5", line(32), lambda d: under(sum(d.numbers[:5]), "122.5")),
            fixed("first_over_24.5", line(33), lambda d: over(d.first, "24.5")),
            fixed("first_under_24.5", line(34), lambda d: under(d.first, "24.5")),
            fixed("last_over_24.5", line(35), lambda d: over(d.last, "24.5")),
            fixed("last_under_24.5", line(36), lambda d: under(d.last, "24.5")),
            fixed("first_even", line(37), lambda d: d.first % 2 == 0),
            fixed("first_odd", line(38), lambda d: d.first % 2 == 1),
            fixed("last_even", line(39), lambda d: d.last % 2 == 0),
            fixed("last_odd", line(40), lambda d: d.last % 2 == 1),
            fixed("more_even", line(41), lambda d: d.even > d.odd),
            fixed("more_odd", line(42), lambda d: d.odd > d.even),
            picked("first_color", line(43), 1, lambda d, s: d.colors[0] == s[0], choices=LUCKY6_48_COLORS),
            picked("last_color", line(44), 1, lambda d, s: d.colors[-1] == s[0], choices=LUCKY6_48_COLORS),
        ]
        assert len(m) == 45 and m[-1].line == 3057
        self.markets = tuple(m)
        # studio evaluate's fast path: a ball as a line writes it -> its number, its colour
        self._number = {f'"{b}"': int(b) for b in self.ball_labels}
        self._color = {f'"{b}"': self.colors[b] for b in self.ball_labels}
        self._tails = TailCache(self.evaluate)

    fast_evaluate = True

    def evaluate_json(self, line: str) -> str | None:
        """A line ``{"id": N, "balls": ["29", "31", ...]}`` of 35 distinct balls: the answer up to the winning
        bets written here, those kept by what the fixed bets read (the first five balls' sum, the first and
        last balls against 24.5 and their parity, the odd balls)."""
        got = distinct_balls(line, 35, self._color)
        if got is None:
            return None
        rid, balls, labels, colors = got
        number = self._number.__getitem__
        first5 = sum(map(number, labels[:5]))
        first, last = number(labels[0]), number(labels[-1])
        odd = sum(map(balls.count, ODD_ENDS))
        colors_text = '","'.join(colors)
        head = (  # one f-string: each + would copy the whole head so far
            f'"valid":true,"result":{{"balls":[{balls}]}},"outcome":{{"balls":[{balls}],"colors":["{colors_text}"],'
            f'"first5_sum":{first5},"first":{first},"last":{last},"first_color":"{colors[0]}",'
            f'"last_color":"{colors[-1]}","odd":{odd},"even":{35 - odd},'
        )
        facts = (first5 < 122.5, first < 24.5, last < 24.5, first & 1, last & 1, odd > 17)
        return self._tails.line(rid, head, facts, lambda: {"balls": [b[1:-1] for b in labels]})

    def facts(self, d: Drawn) -> dict[str, Any]:
        return {
            "first5_sum": sum(d.numbers[:5]),
            "first": d.first,
            "last": d.last,
            "first_color": d.colors[0],
            "last_color": d.colors[-1],
            "odd": d.odd,
            "even": d.even,
        }


__all__ = ["Lucky5", "Lucky6Of48", "Lucky6Of60", "Lucky7", "cyclic_colors"]
