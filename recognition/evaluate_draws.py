"""`studio evaluate`'s fast path for a game whose round carries its committed draw (the extras: Lightning
Roulette's lucky numbers, Lightning Dice's strikes) and whose answer echoes that draw. Pure.

Such rounds rarely repeat as a whole (the draw changes every round), but the answer past the echoed draw
follows from a few facts (the pocket and its own lucky payout, the dice and their total's multiplier). A game
reads a line in its usual shape with a regex, checks the draw as its `evaluate` would, and writes the draw
back in canonical form; the rest of the answer is kept per facts from the first round with them, answered by
the game's own `evaluate`: the line is then the general path's, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from typing import Any

_MARK = "\x00echo"


class EchoTails:
    """The text of the answers of one game (its `evaluate`) around the echoed value `echo` of the outcome
    (a list or an object), by the facts that decide the rest."""

    def __init__(self, evaluate: Callable[[dict[str, Any]], dict[str, Any]], echo: str) -> None:
        self.evaluate = evaluate
        self.echo = echo
        self.parts: dict[Hashable, tuple[str, str]] = {}

    def line(
        self, rid_text: str, facts: Hashable, echoed: str, item: Callable[[], dict[str, Any]]
    ) -> str | None:
        """The answer line to the round `item()` (made only when the facts are new; its id is written
        `rid_text`), the outcome's value `echo` written `echoed`. None if the game refuses the round or answers in another shape (the general path
        then answers)."""
        parts = self.parts.get(facts)
        if parts is None:
            try:
                answer = self.evaluate(item())
            except (ValueError, TypeError, KeyError):
                return None
            outcome = answer.get("outcome")
            if not isinstance(outcome, dict) or "id" in answer:
                return None
            if json.dumps(outcome.get(self.echo), separators=(",", ":")) != echoed:
                return None  # the draw is not written as this path writes it
            marked = {"valid": True, **answer, "outcome": {**outcome, self.echo: _MARK}}
            before, mark, after = json.dumps(marked, separators=(",", ":")).partition(json.dumps(_MARK))
            if not mark:
                return None
            parts = self.parts[facts] = (before[1:], after + "\n")
        return f'{{"id":{rid_text},{parts[0]}{echoed}{parts[1]}'
