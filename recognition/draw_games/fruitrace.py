"""Fruitrace: all ten symbol balls fall into a tube; matches against a fixed symbol panel win. Pure.

Seed 000 L2905-L2942 (digest: rules-digest/seed-B.md §24). The balls (L2907):
three plums (blue), three cherries (red), three lemons (yellow) and one "7"
(orange); labels "plum", "cherry", "lemon", "7". The result is the ten balls in
draw order; a match is a position where the ball's symbol equals the panel's.

Wins (L2909-L2927): 4, 5, 6, 7, 8 or 10 matches (9 is impossible: panel and tube
hold the same balls), or the "7" matched with no other match ("seven_only"). The
"7" counts as a match like a fruit (L2911): the "7" and three fruits are 4 matches.
Each category has its own odds, the operator's (L2929): a bet settles with a
table category -> odds. Jackpots (L2931-L2941) are drawn by the organiser's
system and are not part of the result.

Not in the seed: the panel's order. Default ``DEFAULT_PANEL`` lists the panel as
the seed does (three plums, three cherries, three lemons, the "7"), position i
next to the i-th ball drawn (the first ball falls to the bottom of the tube).
An assumption: pass the studio's real panel as ``panel=``.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from recognition.evaluate_fast import TailCache, plain_line

from .base import DrawGame, Drawn, Market, fixed

PLUM, CHERRY, LEMON, SEVEN = "plum", "cherry", "lemon", "7"
DEFAULT_PANEL: tuple[str, ...] = (PLUM,) * 3 + (CHERRY,) * 3 + (LEMON,) * 3 + (SEVEN,)
CATEGORIES = ("seven_only", "matches_4", "matches_5", "matches_6", "matches_7", "matches_8", "matches_10")


class Fruitrace(DrawGame):
    game_id = "fruitrace"
    title = "Fruitrace"
    seed_lines = (2905, 2942)
    ball_labels = (PLUM, CHERRY, LEMON, SEVEN)
    counts = {PLUM: 3, CHERRY: 3, LEMON: 3, SEVEN: 1}
    colors = {PLUM: "blue", CHERRY: "red", LEMON: "yellow", SEVEN: "orange"}
    draw_count = 10

    def __init__(self, *, panel: tuple[str, ...] | list[str] = DEFAULT_PANEL) -> None:
        panel = tuple(panel)
        if sorted(panel) != sorted(DEFAULT_PANEL):
            raise ValueError(
                "the Fruitrace panel shows the ten symbols of the balls: three plums, three cherries, "
                f"three lemons and one '7' (L2907), not {list(panel)}"
            )
        self.panel = panel
        m: list[Market] = [Market("fruitrace", 2909, lambda d, s: self.category(d), keyed=True)]
        m.append(fixed("seven_only", 2915, lambda d: self.category(d) == "seven_only"))
        for n, line in ((4, 2917), (5, 2919), (6, 2921), (7, 2923), (8, 2925), (10, 2927)):
            m.append(fixed(f"matches_{n}", line, lambda d, n=n: self.matches(d) == n))
        self.markets = tuple(m)

    def matches(self, d: Drawn) -> int:
        return sum(1 for ball, symbol in zip(d.balls, self.panel) if ball == symbol)

    def seven_matched(self, d: Drawn) -> bool:
        return d.balls.index(SEVEN) == self.panel.index(SEVEN)

    def category(self, d: Drawn) -> str | None:
        n = self.matches(d)
        if n >= 4:
            return f"matches_{n}"
        if n == 1 and self.seven_matched(d):
            return "seven_only"
        return None

    def facts(self, d: Drawn) -> dict[str, Any]:
        return {
            "panel": list(self.panel),
            "matches": self.matches(d),
            "seven_matched": self.seven_matched(d),
            "category": self.category(d),
        }

    # -- studio evaluate's fast path ------------------------------------------------------------

    fast_evaluate = True

    @cached_property
    def _tails(self) -> TailCache:
        return TailCache(self.evaluate)

    @cached_property
    def _draws(self) -> dict[str, tuple[str, tuple[int, bool], list[str]] | tuple[()]]:
        """The balls as a line writes them -> (the answer's head, its facts, the labels), () if not a draw
        of the game: there are 16,800 draws."""
        return {}

    @cached_property
    def _answers(self) -> dict[str, str]:
        """The balls as a line writes them -> the answer after its id."""
        return {}

    def evaluate_json(self, line: str) -> str | None:
        """A line ``{"id": N, "balls": ["plum", ...]}``: the answer past the balls and their colours follows
        from the matches and whether the "7" matched."""
        m = _TEN_BALLS(line)
        if m is None:
            return None
        answer = self._answers.get(m[2])
        if answer is not None:
            return f'{{"id":{m[1]},{answer}'
        draw = self._draws.get(m[2])
        if draw is None:
            draw = self._read_draw(m[2])
            if len(self._draws) < 20_000:
                self._draws[m[2]] = draw
        if not draw:
            return None
        head, facts, labels = draw
        text = self._tails.line(m[1], head, facts, {"balls": labels})
        start = f'{{"id":{m[1]},'
        if text is not None and text.startswith(start) and len(self._answers) < 20_000:
            self._answers[m[2]] = text[len(start) :]
        return text

    def _read_draw(self, text: str) -> tuple[str, tuple[int, bool], list[str]] | tuple[()]:
        balls = text.replace(", ", ",")
        labels = [b[1:-1] for b in balls.split(",")]
        if any(labels.count(label) != n for label, n in self.counts.items()):
            return ()
        colors = '","'.join(self.colors[label] for label in labels)
        d = Drawn(self, labels)
        head = f'"valid":true,"result":{{"balls":[{balls}]}},"outcome":{{"balls":[{balls}],"colors":["{colors}"],'
        return head, (self.matches(d), self.seven_matched(d)), labels


_SYMBOL = r'"(?:plum|cherry|lemon|7)"'
_TEN_BALLS = plain_line(rf'"balls": ?\[({_SYMBOL}(?:, ?{_SYMBOL}){{9}})\]').fullmatch
