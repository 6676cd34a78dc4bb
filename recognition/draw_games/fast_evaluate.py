"""`studio evaluate`'s fast path for a draw game whose outcome, past the balls and their colours, follows from a
few facts of the draw: Lucky 5's from the sum, the count of odd balls and each colour's count. Pure.

Only a line in the usual shape, ``{"id": 17, "balls": ["4", "12", ...]}`` with an integer id and the game's
own labels, each once and as many as a draw has, takes this path; anything else is left to the general path
(None), which gives the same answer or the error. The rest of the answer comes from
:class:`recognition.evaluate_fast.TailCache`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from recognition.evaluate_fast import TailCache, plain_line

if TYPE_CHECKING:
    from .base import DrawGame

_PLAIN = plain_line(r'"balls": ?\[("[0-9A-Za-z-]+"(?:, ?"[0-9A-Za-z-]+")*)\]').fullmatch
_LABELS = re.compile(r'"([^"]*)"').findall
_LIST = plain_line(r'"balls": ?\[([^\]]*)\]').fullmatch


def distinct_balls(
    line: str, count: int, color: dict[str, str]
) -> tuple[str, str, list[str], list[str]] | None:
    """A plain line of `count` distinct balls of a game (`color`: each ball's label, quoted, -> its colour):
    its id's text, its balls as the answer writes them ('"31","3",...'), their labels quoted, their colours.
    None for any other line (the general path's)."""
    m = _LIST(line)
    if m is None:
        return None
    labels = m[2].split(", ")  # as json.dumps writes a list (a comma left in a label: not a ball of the game)
    if len(labels) == count:
        balls = ",".join(labels)
    else:
        balls = m[2].replace(", ", ",")
        labels = balls.split(",")
    if len(labels) != count or len(set(labels)) != count:
        return None
    try:
        colors = list(map(color.__getitem__, labels))
    except KeyError:  # not a ball of the game, or not written as a plain line writes it
        return None
    return m[1], balls, labels, colors


#: what ends a ball of odd number in the balls' text: their count is the odd balls'
ODD_ENDS = tuple(f'{d}"' for d in "13579")

#: the facts of a draw (its labels and their colours, in draw order) that decide the rest of its outcome
Facts = Callable[[list[str], list[str]], Hashable]


class FastDrawEvaluator:
    """`evaluate_json` for a draw game of one-of-each balls with a colour map (`game.colors`)."""

    def __init__(self, game: DrawGame, facts: Facts) -> None:
        self.facts = facts
        self.count = game.draw_count
        self.color = dict(game.colors or {})
        self.tails = TailCache(game.evaluate)

    def __call__(self, line: str) -> str | None:
        m = _PLAIN(line)
        if m is None:
            return None
        labels = _LABELS(m[2])
        if len(labels) != self.count or len(set(labels)) != self.count:
            return None
        try:
            colors = [self.color[label] for label in labels]
        except KeyError:  # not a ball of the game
            return None
        balls = '","'.join(labels)
        head = (
            f'"valid":true,"result":{{"balls":["{balls}"]}},'
            f'"outcome":{{"balls":["{balls}"],"colors":["' + '","'.join(colors) + '"],'
        )
        return self.tails.line(m[1], head, self.facts(labels, colors), {"balls": labels})
