"""Lightning Dice: three dice, a bet on each total 3..18, lightning multipliers drawn by the studio. Pure.

Seed 000 L3069 (digest seed-B §26): players bet on the total of three dice (3 to
18); after betting closes "lightning strikes" one or more random totals, each
with a random multiplier; a winning total that was struck pays its multiplier
instead of its ordinary odds. The seed gives neither the ordinary odds nor the
multipliers, so:

* ordinary pays are the published Lightning Dice table (Evolution): 150x, 50x,
  25x, 15x, 10x, 7x, 6x, 5x for totals 3/18 .. 10/11, i.e. net 149, 49, 24, 14,
  9, 6, 5, 4 to 1;
* lightning is drawn by :meth:`LightningDice.draw_extras` with the rng it is
  given (the studio's secure generator) when the round opens, and committed
  before betting closes: the number of struck totals (1..4, weights 1:3:3:1),
  which totals (distinct, uniformly among 3..18) and, for each, a multiplier
  from that total's table below, whose maxima are the published ones (1000x on
  3/18 down to 50x on 8..13). The weights were chosen so that every total bet
  returns 96.21% exactly to two decimals, the published return of the game;
  the tests compute each return exactly over all 216 throws.

Multipliers are gross ("x", stake included), as the game shows them: a struck
total with 50x pays 49 to 1. The extras are ``{"lightning": [{"total": 7,
"multiplier": 50}, ...]}``, totals ascending.
"""

from __future__ import annotations

import itertools
import random
import re
from functools import cached_property
from typing import Any

from recognition.evaluate_draws import EchoTails
from recognition.evaluate_fast import plain_line

from ._common import BetSpot, DiceGame, check_derived, read_faces, require_dict, require_key, won

SOURCE = "seed 000 L3069"
EXAMPLE = "{'dice': [2, 5, 5]}"
TOTALS: tuple[int, ...] = tuple(range(3, 19))


def _mirror(table: dict[int, Any]) -> dict[int, Any]:
    """A table given for totals 3..10 extended to 11..18 (t and 21 - t are equally likely)."""
    return {t: table[min(t, 21 - t)] for t in TOTALS}


#: gross ordinary pays ("x") per total
BASE_MULTIPLIER: dict[int, int] = _mirror({3: 150, 4: 50, 5: 25, 6: 15, 7: 10, 8: 7, 9: 6, 10: 5})

#: how many totals lightning strikes in a round: (count, weight)
STRIKE_COUNTS: tuple[tuple[int, int], ...] = ((1, 1), (2, 3), (3, 3), (4, 1))

#: per total, the lightning multipliers (gross "x") and their weights: (multiplier, weight)
LIGHTNING_MULTIPLIERS: dict[int, tuple[tuple[int, int], ...]] = _mirror(
    {
        3: ((250, 11), (500, 5), (750, 5), (1000, 4)),
        4: ((100, 9), (200, 3), (300, 2), (500, 1)),
        5: ((50, 9), (100, 3), (150, 2), (250, 1)),
        6: ((25, 11), (50, 5), (75, 5), (100, 4)),
        7: ((20, 6), (30, 5), (50, 3), (100, 1)),
        8: ((15, 12), (25, 9), (40, 4), (50, 3)),
        9: ((10, 12), (20, 5), (30, 5), (50, 3)),
        10: ((10, 14), (20, 6), (30, 6), (50, 5)),
    }
)


def weighted_choice(rng: random.Random, table: tuple[tuple[int, int], ...]) -> int:
    """A value drawn with integer weights, exactly (``randrange`` is exact; ``random()`` is not)."""
    pick = rng.randrange(sum(w for _, w in table))
    for value, weight in table:
        if pick < weight:
            return value
        pick -= weight
    raise AssertionError("unreachable")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class LightningDice(DiceGame):
    game_id = "lightning_dice"
    judge_dice = 3
    judge_colors = None
    name = "Lightning Dice"
    base_multiplier = BASE_MULTIPLIER
    strike_counts = STRIKE_COUNTS
    lightning_multipliers = LIGHTNING_MULTIPLIERS

    @property
    def spots(self) -> tuple[BetSpot, ...]:
        return tuple(BetSpot(f"total:{t}", "total", SOURCE, self.base_multiplier[t] - 1) for t in TOTALS)

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """``{"dice": [5, 2, "5"]}`` -> ``{"dice": [2, 5, 5]}``; the lightning is not part of the result."""
        result = require_dict(result, self.name, EXAMPLE)
        dice = read_faces(
            require_key(result, "dice", self.name, f"the three faces, e.g. {EXAMPLE}"), 3, "dice"
        )
        check_derived(result, "total", sum(dice))
        return {"dice": dice}

    def make_result(self, dice: Any) -> dict[str, Any]:
        return self.validate_result({"dice": dice})

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any]:
        """The round's lightning, drawn with ``rng`` only (the table passes its secure generator)."""
        count = weighted_choice(rng, self.strike_counts)
        struck = sorted(rng.sample(TOTALS, count))
        return {
            "lightning": [
                {"total": t, "multiplier": weighted_choice(rng, self.lightning_multipliers[t])}
                for t in struck
            ]
        }

    def validate_extras(self, extras: Any) -> dict[str, Any]:
        """The committed lightning in canonical form (totals ascending), or ValueError saying what is wrong."""
        if extras is None:
            raise ValueError(
                "lightning_dice needs the round's committed lightning draw (extras "
                "{'lightning': [{'total': 7, 'multiplier': 50}, ...]}); without it the "
                "winnings cannot be known"
            )
        if not isinstance(extras, dict) or not isinstance(extras.get("lightning"), list):
            raise ValueError(
                f"the lightning draw must be {{'lightning': [{{'total': ..., 'multiplier': ...}}, "
                f"...]}}, not {extras!r}"
            )
        strikes = extras["lightning"]
        counts = [c for c, _ in self.strike_counts]
        if not min(counts) <= len(strikes) <= max(counts):
            raise ValueError(f"lightning strikes {min(counts)} to {max(counts)} totals, not {len(strikes)}")
        seen: dict[int, int] = {}
        for strike in strikes:
            if not isinstance(strike, dict) or set(strike) != {"total", "multiplier"}:
                raise ValueError(f"a lightning strike is {{'total': t, 'multiplier': m}}, not {strike!r}")
            total, multiplier = strike["total"], strike["multiplier"]
            if not _is_int(total) or total not in TOTALS:
                raise ValueError(f"lightning struck {total!r}: the totals are the integers 3..18")
            if total in seen:
                raise ValueError(f"lightning struck total {total} twice")
            allowed = [m for m, _ in self.lightning_multipliers[total]]
            if not _is_int(multiplier) or multiplier not in allowed:
                raise ValueError(
                    f"a multiplier of {multiplier!r} on total {total} is not in its table {allowed}"
                )
            seen[total] = multiplier
        return {"lightning": [{"total": t, "multiplier": seen[t]} for t in sorted(seen)]}

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        """The winning total (the only winning spot): its lightning multiplier if struck, else its odds."""
        dice = self.validate_result(result)["dice"]
        lightning = self.validate_extras(extras)["lightning"]
        total = sum(dice)
        struck = {s["total"]: s["multiplier"] for s in lightning}
        if total in struck:
            win = won(f"total:{total}", "total", struck[total] - 1, lightning_multiplier=struck[total])
        else:
            win = won(f"total:{total}", "total", self.base_multiplier[total] - 1)
        return {"dice": dice, "total": total, "lightning": lightning, "winning_bets": [win]}

    def evaluate(self, item: dict[str, Any]) -> dict[str, Any]:
        """``{"dice": [...], "extras": {"lightning": [...]}}`` (the revealed draw of the round)."""
        if "extras" not in item:
            raise ValueError(
                "a lightning_dice round is re-checked with its revealed draw: "
                "{'dice': [...], 'extras': {'lightning': [...]}}"
            )
        return super().evaluate(item)

    # -- studio evaluate's fast path ------------------------------------------------------------

    fast_evaluate = True

    @cached_property
    def _tails(self) -> EchoTails:
        return EchoTails(self.evaluate, "lightning")

    @cached_property
    def _allowed(self) -> dict[int, frozenset[int]]:
        return {t: frozenset(m for m, _ in table) for t, table in self.lightning_multipliers.items()}

    def evaluate_json(self, line: str) -> str | None:
        """A line ``{"id": N, "dice": [a, b, c], "extras": {"lightning": [...]}}`` (integers): the answer past
        the lightning follows from the dice and their total's multiplier, if struck."""
        m = _LIGHTNING_LINE(line)
        if m is None:
            return None
        draw = self._draws.get(m[3])
        if draw is None:
            draw = self._read_lightning(m[3])
            if len(self._draws) < _KEPT_DRAWS:
                self._draws[m[3]] = draw
        if not draw:
            return None
        struck, echoed = draw
        dice_text = m[2]
        facts = (dice_text, struck.get(_DICE_TOTAL[dice_text]))
        tails = self._tails
        parts = tails.parts.get(facts)
        if parts is not None:
            return f'{{"id":{m[1]},{parts[0]}{echoed}{parts[1]}'

        def item() -> dict[str, Any]:
            lightning = [{"total": t, "multiplier": x} for t, x in struck.items()]
            return {"dice": [int(f) for f in dice_text.split(",")], "extras": {"lightning": lightning}}

        return tails.line(m[1], facts, echoed, item)

    @cached_property
    def _draws(self) -> dict[str, tuple[dict[int, int], str] | tuple[()]]:
        """The lightning as written in a line -> (total -> multiplier, the canonical text), () if refused:
        a long file repeats its draws."""
        return {}

    def _read_lightning(self, text: str) -> tuple[dict[int, int], str] | tuple[()]:
        if _STRIKES(text) is None:  # the line takes any list: only the game's draws are kept
            return ()
        allowed, struck = self._allowed, {}
        for t, x in _STRIKE(text):
            total, multiplier = int(t), int(x)
            if total not in allowed or total in struck or multiplier not in allowed[total]:
                return ()
            struck[total] = multiplier
        counts = [c for c, _ in self.strike_counts]
        if not min(counts) <= len(struck) <= max(counts):
            return ()
        return struck, "[" + ",".join(
            f'{{"total":{t},"multiplier":{struck[t]}}}' for t in sorted(struck)
        ) + "]"


#: how many distinct lightning draws `_draws` keeps
_KEPT_DRAWS = 100_000
#: three faces as a line writes them -> their total
_DICE_TOTAL = {
    f"{a}{s1}{b}{s2}{c}": a + b + c
    for a, b, c in itertools.product(range(1, 7), repeat=3)
    for s1, s2 in itertools.product((",", ", "), repeat=2)
}
_ENTRY = r'\{"total": ?([1-9][0-9]?), ?"multiplier": ?([1-9][0-9]{0,5})\}'
_LIGHTNING_LINE = plain_line(
    r'"dice": ?\[([1-6], ?[1-6], ?[1-6])\], ?' + r'"extras": ?\{"lightning": ?\[([^\]]*)\]\}'
).fullmatch
_STRIKES = re.compile(f"{_ENTRY}(?:, ?{_ENTRY})*").fullmatch
_STRIKE = re.compile(_ENTRY).findall
