"""Lotto Express 5/35 Plus: 5 of 35 balls, then a 6th from the remaining 30 (L4573-L4581). Pure.

Seed 000 L4571-L4583 (digest: rules-digest/seed-C.md §24). No odds in the seed.

A ticket has five numbers. First round: it wins with at least 3 of the first five
balls (categories "3/5", "4/5", "5/5"). Second round: a ticket with 1 or 2 of them
wins if the 6th ball is one of its numbers ("2/6", "3/6": "at least two / three
numbers out of six", L4583); otherwise it loses. Each category has its own odds,
so a ticket settles with a table of odds keyed by category.

Choices where the seed is silent:

* The 6th ball is always drawn (``draw_count`` = 6); a ticket that won in the first
  round keeps that win and takes no part in the second.
* A Combo ticket with 6 to 8 numbers (L4573) is the lotto "system" bet: every
  5-number combination of its numbers is a ticket (6, 21 or 56 tickets), each with
  ``stake_per_line``; its return is the sum of theirs.
* A group of 5 to 50 tickets is that many separate ``ticket`` bets.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import combinations
from typing import Any

from recognition.evaluate_fast import plain_line

from .base import DrawGame, Drawn, as_exact, exact, numbers, odds_table, picked


def category(d: Drawn, ticket: tuple[str, ...]) -> str | None:
    first = sum(1 for n in ticket if n in d.balls[:5])
    if first >= 3:
        return f"{first}/5"
    if first in (1, 2) and d.balls[5] in ticket:
        return f"{first + 1}/6"
    return None


class LottoExpress535(DrawGame):
    game_id = "lotto_express_5_35"
    title = "Lotto Express 5/35 Plus"
    seed_lines = (4571, 4583)
    ball_labels = numbers(1, 35)
    draw_count = 6
    categories = ("5/5", "4/5", "3/5", "3/6", "2/6")

    def __init__(self) -> None:
        self.markets = (
            picked("ticket", 4573, 5, category, keyed=True),
            picked("combo", 4573, (6, 7, 8), lambda d, s: None, keyed=True),
        )

    # studio evaluate's fast path: every bet is a ticket, so the answer is the draw written three ways
    fast_evaluate = True
    #: whether the fast path's first answer was the game's own (None: not checked yet)
    _fast_ok: bool | None = None

    def evaluate_json(self, line: str) -> str | None:
        """A line ``{"id": N, "balls": ["9", "5", ...]}`` of six distinct balls: the answer written directly
        (checked once against the game's own `evaluate`)."""
        m = _SIX_BALLS(line)
        if m is None or self._fast_ok is False:
            return None
        balls = m[2].replace(", ", ",")  # '"9","5",...': the balls as the answer writes them
        labels = balls.split(",")
        if len(set(labels)) != 6:
            return None
        first, sixth = balls.rsplit(",", 1)
        text = (
            f'{{"id":{m[1]},"valid":true,"result":{{"balls":[{balls}]}},"outcome":{{"balls":[{balls}],'
            f'"first_round":[{first}],"sixth_ball":{sixth}}}}}\n'
        )
        if self._fast_ok is None:
            answer = {"id": int(m[1]), "valid": True, **self.evaluate({"balls": [b[1:-1] for b in labels]})}
            self._fast_ok = json.dumps(answer, separators=(",", ":")) + "\n" == text
            if not self._fast_ok:
                return None
        return text

    def _drawn_words(self) -> str:
        return "5 balls of the first round and the 6th ball"

    def facts(self, d: Drawn) -> dict[str, Any]:
        return {"first_round": list(d.balls[:5]), "sixth_ball": d.balls[5]}

    def settle(
        self, bet: dict[str, Any], result: dict[str, Any], extras: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """A ``ticket`` settles as every keyed bet (``stake``, ``odds`` by category); a ``combo`` takes
        ``stake_per_line`` and the same odds table, and returns every 5-number line's category."""
        if not isinstance(bet, dict) or bet.get("market") != "combo":
            if isinstance(bet, dict) and "stake_per_line" in bet:
                raise ValueError("only a combo ticket has 'stake_per_line'; a ticket has 'stake'")
            return super().settle(bet, result, extras)
        if "stake" in bet:
            raise ValueError(
                "a combo ticket takes 'stake_per_line' (the stake of each 5-number line), not 'stake'"
            )
        canonical = self.validate_result(result)
        market = self.market("combo")
        sel = self.selection(market, bet.get("selection"))
        per_line = exact(bet.get("stake_per_line"), "stake_per_line")
        table = odds_table(bet.get("odds"))
        d = self.drawn(canonical)
        total = Fraction(0)
        wins = []
        for line in combinations(sel, 5):
            cat = category(d, line)
            if cat is None:
                continue
            if cat not in table:
                raise ValueError(f"line {list(line)} won {cat!r}, but the odds table has no entry for it")
            total += per_line * table[cat]
            wins.append({"line": list(line), "at": cat})
        n = len(list(combinations(sel, 5)))
        return {
            "market": "combo",
            "selection": list(sel),
            "lines": n,
            "total_stake": as_exact(per_line * n),
            "winning_lines": wins,
            "won": bool(wins),
            "void": False,
            "return": as_exact(total),
        }


_BALL = r'"(?:[1-9]|[12][0-9]|3[0-5])"'
_SIX_BALLS = plain_line(rf'"balls": ?\[({_BALL}(?:, ?{_BALL}){{5}})\]').fullmatch
