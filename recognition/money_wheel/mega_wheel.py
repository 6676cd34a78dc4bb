"""Mega Wheel: 54 sectors numbered 1 2 5 8 10 15 20 30 40, and a Mega Lucky Number each round. Pure.

Seed 000 L3955-3965 (digest seed-C §11).

* Sectors: the numbers are given, their counts, order and colours are NOT. Default counts
  (ours, from the commercial game): 1 x20, 2 x13, 5 x7, 8 x4, 10 x4, 15 x2, 20 x2, 30 x1, 40 x1;
  the default order spreads them evenly. A table gives its wheel in ``layout``.
* A winning number pays its number to 1 ("odds corresponding to the winning number").
* "In each game, one number is randomly selected as the Mega Lucky Number ... before the wheel
  stops": drawn by the studio's secure generator when the round opens and committed before
  betting closes (``draw_extras``). A sector of the wheel is drawn (every sector equally
  likely) with a boosted payout for it ("odds up to x500"; the seed gives no table). Settings:
  ``lucky_scope``: "segment" (default: only that very sector, as the lit sector of the
  commercial wheel) or "number" (every sector with that number); ``lucky_payouts``: per
  number, a list (equally likely) or a table payout -> weight of boosted payouts (net odds to
  1, at most 500). Defaults (ours): see LUCKY_PAYOUTS.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from functools import cached_property
from typing import Any

from recognition.evaluate_draws import EchoTails
from recognition.evaluate_fast import plain_line

from .base import MoneyWheelGame, draw, need_extras, read_draw_table, won

NUMBERS = ("1", "2", "5", "8", "10", "15", "20", "30", "40")
#: boosted payouts (net odds to 1) of a Mega Lucky Number, per number: ours, the seed says only "up to x500"
LUCKY_PAYOUTS: dict[str, list[int]] = {
    "1": [10, 15, 20, 25, 50],
    "2": [20, 25, 30, 50, 100],
    "5": [25, 50, 75, 100],
    "8": [40, 80, 120, 160],
    "10": [50, 100, 150, 200],
    "15": [75, 150, 225, 300],
    "20": [100, 200, 300, 400],
    "30": [150, 300, 450],
    "40": [200, 300, 400, 500],
}
MAX_LUCKY = 500


class MegaWheel(MoneyWheelGame):
    game_id = "mega_wheel"
    name = "Mega Wheel"
    segment_counts = (
        ("1", 20),
        ("2", 13),
        ("5", 7),
        ("8", 4),
        ("10", 4),
        ("15", 2),
        ("20", 2),
        ("30", 1),
        ("40", 1),
    )
    counts_from_seed = False
    extra_settings = ("lucky_scope", "lucky_payouts")

    def bet_spots(self) -> list[dict[str, Any]]:
        return [{"bet": n, "type": "number", "source": "seed 000 L3963", "payout": int(n)} for n in NUMBERS]

    def lucky_table(self, value: Any) -> dict[str, list[tuple[int, int]]]:
        if value is None:
            return {n: [(p, 1) for p in ps] for n, ps in LUCKY_PAYOUTS.items()}
        if not isinstance(value, Mapping):
            raise ValueError("lucky_payouts is a table number -> boosted payouts")
        table = {**{n: [(p, 1) for p in ps] for n, ps in LUCKY_PAYOUTS.items()}}
        for n, v in value.items():
            label = self.read_label(n)
            rows = read_draw_table(v, f"lucky_payouts.{label}", minimum=int(label))
            if any(p > MAX_LUCKY for p, _ in rows):
                raise ValueError(f"lucky_payouts.{label}: the seed allows odds up to x{MAX_LUCKY}")
            table[label] = rows
        return table

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any]:
        s = self.wheel_settings(settings)
        scope = s.game.get("lucky_scope", "segment")
        if scope not in ("segment", "number"):
            raise ValueError("lucky_scope is 'segment' or 'number'")
        index = rng.randrange(s.layout.size)
        label = s.layout[index].label
        boosted = draw(rng, self.lucky_table(s.game.get("lucky_payouts"))[label])
        return {"lucky": {"number": label, "index": index, "payout": boosted, "scope": scope}}

    def read_lucky(self, extras: Mapping[str, Any] | None) -> dict[str, Any]:
        lucky = need_extras(extras, "lucky", self.name)
        if not isinstance(lucky, Mapping) or set(lucky) != {"number", "index", "payout", "scope"}:
            raise ValueError("extras.lucky is {number, index, payout, scope}")
        label = self.read_label(lucky["number"])
        index, boosted, scope = lucky["index"], lucky["payout"], lucky["scope"]
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < self.segments:
            raise ValueError(f"extras.lucky.index is a sector 0..{self.segments - 1}")
        if (
            isinstance(boosted, bool)
            or not isinstance(boosted, int)
            or not int(label) <= boosted <= MAX_LUCKY
        ):
            raise ValueError(f"extras.lucky.payout is a whole number {label}..{MAX_LUCKY}")
        if scope not in ("segment", "number"):
            raise ValueError("extras.lucky.scope is 'segment' or 'number'")
        return {"number": label, "index": index, "payout": boosted, "scope": scope}

    def settle(self, result: dict[str, Any], extras: dict[str, Any] | None) -> dict[str, Any]:
        lucky = self.read_lucky(extras)
        label = result["segment"]
        if lucky["scope"] == "segment":
            if result["index"] is None:
                raise ValueError("the Mega Lucky Number is one sector: the result needs its 'index'")
            hit = result["index"] == lucky["index"]
            if hit and label != lucky["number"]:
                raise ValueError(
                    f"sector {lucky['index']} carries {lucky['number']!r}, not {label!r}: the layout "
                    "differs from the one the lucky number was drawn on"
                )
        else:
            hit = label == lucky["number"]
        pays = lucky["payout"] if hit else int(label)
        return {
            "winning_bets": [won(label, "number", pays, **({"mega_win": True} if hit else {}))],
            "mega_win": hit,
            "lucky": lucky,
        }

    # -- studio evaluate's fast path ------------------------------------------------------------

    fast_evaluate = True

    @cached_property
    def _tails(self) -> EchoTails:
        return EchoTails(self.evaluate, "lucky")

    def evaluate_json(self, line: str) -> str | None:
        """A line ``{"id": N, "segment": "5", "index": 17, "extras": {"lucky": {...}}}``: the answer past the
        echoed lucky sector follows from the spin, whether it hit the lucky sector, and its boosted payout."""
        m = _SPIN_LINE(line)
        if m is None:
            return None
        lucky = self._luckies.get(m[4])
        if lucky is None:
            lucky = self._read_lucky_text(m[4])
            if len(self._luckies) < 100_000:
                self._luckies[m[4]] = lucky
        index = self._indexes.get(m[3])
        if not lucky or index is None or m[2] not in self._values:
            return None
        label = m[2]
        number, lucky_index, boosted, scope, echoed = lucky
        hit = index == lucky_index if scope == "segment" else label == number
        facts = (label, index, hit, boosted if hit else None, number if hit else None)
        tails = self._tails
        parts = tails.parts.get(facts)
        if parts is not None:
            return f'{{"id":{m[1]},{parts[0]}{echoed}{parts[1]}'

        def item() -> dict[str, Any]:
            lucky = {"number": number, "index": lucky_index, "payout": boosted, "scope": scope}
            return {"segment": label, "index": index, "extras": {"lucky": lucky}}

        # a hit on another number than the lucky one is refused by evaluate: its facts are its own
        return tails.line(m[1], facts, echoed, item)

    @cached_property
    def _values(self) -> dict[str, int]:
        return {label: int(label) for label in self.labels}

    @cached_property
    def _indexes(self) -> dict[str, int]:
        return {str(i): i for i in range(self.segments)}

    @cached_property
    def _luckies(self) -> dict[str, tuple[str, int, int, str, str] | tuple[()]]:
        """The lucky sector as a line writes it -> (number, index, payout, scope, the canonical text), ()
        if refused."""
        return {}

    def _read_lucky_text(self, text: str) -> tuple[str, int, int, str, str] | tuple[()]:
        m = _LUCKY(text)
        if m is None or m[1] not in self._values or m[2] not in self._indexes:
            return ()
        number, index, boosted, scope = m[1], int(m[2]), int(m[3]), m[4]
        if not self._values[number] <= boosted <= MAX_LUCKY:
            return ()
        echoed = f'{{"number":"{number}","index":{index},"payout":{boosted},"scope":"{scope}"}}'
        return number, index, boosted, scope, echoed


GAMES = {g.game_id: g for g in (MegaWheel(),)}


_LABEL = r'"([1-9][0-9]?)"'
_INDEX = r"(0|[1-9][0-9]?)"
_SPIN_LINE = plain_line(
    rf'"segment": ?{_LABEL}, ?"index": ?{_INDEX}, ?"extras": ?\{{"lucky": ?(\{{[^{{}}]*\}})\}}'
).fullmatch
_LUCKY = re.compile(
    rf'\{{"number": ?{_LABEL}, ?"index": ?{_INDEX}, ?"payout": ?([1-9][0-9]{{0,2}}), ?"scope": ?"(segment|number)"\}}'
).fullmatch
