"""`studio evaluate`'s fast path for a draw game whose outcome, past the balls and their colours, follows from a
few facts of the draw: Lucky 5's from the sum, the count of odd balls and each colour's count. Pure.

The first draw with given facts is answered by the game's own `evaluate`, and the rest of its line (after the
balls and colours) kept for the next draw with the same facts: a few thousand kinds for hundreds of thousands
of draws. Only a line in the usual shape, ``{"id": 17, "balls": ["4", "12", ...]}`` with an integer id and the
game's own labels, each once and as many as a draw has, takes this path; anything else is left to the
general path (None), which gives the same answer or the error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import DrawGame

#: an integer id as json.dumps writes it (no leading zero, no "-0"), then plain labels (no escapes)
_PLAIN = re.compile(
    r'\{"id": ?(0|-?[1-9][0-9]*), ?"balls": ?\[("[0-9A-Za-z-]+"(?:, ?"[0-9A-Za-z-]+")*)\]\}\n?'
)
_LABELS = re.compile(r'"([^"]*)"')

#: the facts of a draw (its labels and their colours, in draw order) that decide the rest of its outcome
Facts = Callable[[list[str], list[str]], Hashable]


class FastDrawEvaluator:
    """`evaluate_json` for a draw game of one-of-each balls with a colour map (`game.colors`)."""

    def __init__(self, game: DrawGame, facts: Facts) -> None:
        self.game = game
        self.facts = facts
        self.count = game.draw_count
        self.color = dict(game.colors or {})
        self.tails: dict[Hashable, str] = {}

    def __call__(self, line: str) -> str | None:
        m = _PLAIN.fullmatch(line)
        if m is None:
            return None
        labels = _LABELS.findall(m[2])
        if len(labels) != self.count or len(set(labels)) != self.count:
            return None
        try:
            colors = [self.color[label] for label in labels]
        except KeyError:  # not a ball of the game
            return None
        balls = '","'.join(labels)
        head = (
            f'{{"id":{m[1]},"valid":true,"result":{{"balls":["{balls}"]}},'
            f'"outcome":{{"balls":["{balls}"],"colors":["' + '","'.join(colors) + '"],'
        )
        key = self.facts(labels, colors)
        tail = self.tails.get(key)
        if tail is None:
            try:
                answer = self.game.evaluate({"balls": labels})
            except (ValueError, TypeError, KeyError):
                return None
            full = json.dumps({"id": int(m[1]), "valid": True, **answer}, separators=(",", ":")) + "\n"
            if not full.startswith(head):  # not the shape this path writes: answered, not kept
                return full
            tail = self.tails[key] = full[len(head) :]
        return head + tail
