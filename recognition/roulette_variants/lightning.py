"""Lightning Roulette: a single-zero wheel plus lucky numbers with lucky payouts. Pure.

Seed 000 L113-115: "the rules of Roulette apply, with one exception: at the end of the
time of betting randomly selected one or more "lucky numbers" with a "lucky win". If one
of the "lucky numbers" falls out, and the player has placed a bet on at least one of these
numbers, then the "lucky win" is not 35:1, but can range from 29:1 to 499:1 depending on
the odds randomly selected for this draw." Seed 004 L809-813 (the provider's help text):
"from one to five" lucky numbers, "50x up to 500x (49:1 - to 499:1)", paid "on a Straight
Up bet".

Choices (docs/roulette.md, "Lightning Roulette"):

* Only a **straight-up** bet on a lucky number gets its lucky payout (seed 004 L813; seed
  000 compares the lucky win with 35:1, the straight-up payout). Every other bet pays as in
  European roulette.
* A straight-up on a number that is **not** lucky pays ``straight_up_payout``, **29:1** by
  default. Seed 000 says the straight-up's win "can range from 29:1 to 499:1" in this game
  and seed 004 puts the lucky payouts at 49:1-499:1, so 29:1 is the only reading in which
  the seed's lower bound is a payout that occurs; it is also the standard Lightning table,
  whose lucky payouts are funded by the lower base. An operator reading "the rules of
  Roulette apply" literally sets the game option ``straight_up_payout = 35`` (its return to
  player is then far above 100 %, see the tests).
* The draw (:meth:`LightningRoulette.draw_extras`, with the studio's secure generator only):
  how many lucky numbers by ``lucky_count_weights`` (default 1-5, equally likely: seed 004),
  which numbers (distinct, any pocket including 0, equally likely), and for each a net
  payout by ``lucky_payout_weights`` (default 49, 99, ..., 499 to 1, weighted so that a
  straight-up returns 97.32 %; every payout must lie in the seed's 29-499 range).
* The draw is made when the round opens and committed on the feed at once (its hash); it
  stays secret until betting has closed (the presenter's screen) and is revealed on the
  feed with the result. Seed 000's "at the end of the time of betting" is thus met: nobody
  can see it while bets are taken.

Extras: ``{"lucky_numbers": [{"number": "17", "payout": 99}, ...]}``, in layout order; the
payouts are net odds to 1, integers.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from functools import cached_property
from typing import Any

from recognition.evaluate_draws import EchoTails
from recognition.evaluate_fast import plain_line
from recognition.roulette import EUROPEAN, RouletteRules

__all__ = [
    "DEFAULT_COUNT_WEIGHTS",
    "DEFAULT_PAYOUT_WEIGHTS",
    "GAMES",
    "LUCKY_PAYOUT_RANGE",
    "LightningRoulette",
]

#: the seed's range of a lucky straight-up's net payout (seed 000 L115)
LUCKY_PAYOUT_RANGE = (29, 499)
#: how many lucky numbers a round has -> weight (seed 004 L813: one to five)
DEFAULT_COUNT_WEIGHTS: dict[int, int] = {1: 1, 2: 1, 3: 1, 4: 1, 5: 1}
#: a lucky number's net payout -> weight (seed 004 L809: 50x-500x, i.e. 49:1-499:1), per mille
DEFAULT_PAYOUT_WEIGHTS: dict[int, int] = {
    49: 460,
    99: 290,
    149: 120,
    199: 60,
    249: 30,
    299: 15,
    349: 10,
    399: 7,
    449: 4,
    499: 4,
}


def _weights(value: Any, what: str, allowed: range) -> dict[int, int]:
    """A weight table from settings ({"3": 2} in TOML has string keys) -> {int: int}, checked."""
    if not isinstance(value, Mapping) or not value:
        raise ValueError(f'{what} is a table of value -> weight, e.g. {{"1" = 1, "2" = 1}}')
    table: dict[int, int] = {}
    for k, w in value.items():
        try:
            key = int(k) if not isinstance(k, bool) else None
        except (TypeError, ValueError):
            key = None
        if key is None or str(k).strip() != str(key):
            raise ValueError(f"{what}: {k!r} is not a whole number")
        if key not in allowed:
            raise ValueError(f"{what}: {key} is outside {allowed.start}..{allowed.stop - 1}")
        if isinstance(w, bool) or not isinstance(w, int) or w < 0:
            raise ValueError(f"{what}: the weight of {key} must be a whole number >= 0, not {w!r}")
        table[key] = w
    if not any(table.values()):
        raise ValueError(f"{what}: at least one weight must be positive")
    return dict(sorted(table.items()))


class LightningRoulette(RouletteRules):
    """Lightning Roulette (seed 000 L113-115, seed 004 L805-894) on a European wheel."""

    game_id = "lightning_roulette"
    wheel = EUROPEAN
    uses_table_judge = True
    draw_settings = frozenset({"lucky_count_weights", "lucky_payout_weights"})

    def __init__(self, *, straight_up_payout: int = 29) -> None:
        _, high = LUCKY_PAYOUT_RANGE
        if (
            isinstance(straight_up_payout, bool)
            or not isinstance(straight_up_payout, int)
            or not 1 <= straight_up_payout <= high
        ):
            raise ValueError(f"straight_up_payout is a net payout 1-{high}, not {straight_up_payout!r}")
        self.straight_up_payout = straight_up_payout

    # -- the draw -------------------------------------------------------------------------

    def draw_tables(self, **settings: Any) -> tuple[dict[int, int], dict[int, int]]:
        """The count and payout weight tables of the table settings (defaults when absent)."""
        low, high = LUCKY_PAYOUT_RANGE
        counts = _weights(
            settings.get("lucky_count_weights", DEFAULT_COUNT_WEIGHTS),
            "lucky_count_weights",
            range(1, len(self.wheel.pockets) + 1),
        )
        payouts = _weights(
            settings.get("lucky_payout_weights", DEFAULT_PAYOUT_WEIGHTS),
            "lucky_payout_weights",
            range(low, high + 1),
        )
        return counts, payouts

    def new_judge(self, **settings: Any) -> Any:
        self.draw_tables(**settings)  # a bad draw setting stops the table at start, not at its first round
        return super().new_judge(**settings)

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any]:
        """Lucky numbers and their payouts, drawn with ``rng`` only (the studio's secure generator)."""
        counts, payouts = self.draw_tables(**settings)
        (k,) = rng.choices(list(counts), weights=list(counts.values()))
        numbers = rng.sample(self.wheel.pockets, k)
        drawn = {n: rng.choices(list(payouts), weights=list(payouts.values()))[0] for n in numbers}
        order = {p: i for i, p in enumerate(self.wheel.pockets)}
        return {
            "lucky_numbers": [{"number": n, "payout": drawn[n]} for n in sorted(drawn, key=order.__getitem__)]
        }

    def lucky(self, extras: dict[str, Any] | None) -> dict[str, int]:
        """The committed lucky numbers -> net payout, or ValueError saying what is wrong with the extras."""
        if not isinstance(extras, dict) or "lucky_numbers" not in extras:
            raise ValueError(
                "a lightning roulette outcome needs the round's lucky numbers (the committed extras "
                "{'lucky_numbers': [...]}); without them no straight-up can be paid"
            )
        entries = extras["lucky_numbers"]
        if not isinstance(entries, list) or not entries:
            raise ValueError("lucky_numbers is a list of one or more {'number': ..., 'payout': ...}")
        low, high = LUCKY_PAYOUT_RANGE
        table: dict[str, int] = {}
        for e in entries:
            if not isinstance(e, dict) or set(e) != {"number", "payout"}:
                raise ValueError(f"a lucky number is {{'number': '17', 'payout': 99}}, not {e!r}")
            number = self.wheel.pocket(e["number"])
            payout = e["payout"]
            if isinstance(payout, bool) or not isinstance(payout, int) or not low <= payout <= high:
                raise ValueError(f"lucky payout {payout!r} of {number} is not a whole number {low}-{high}")
            if number in table:
                raise ValueError(f"{number} is a lucky number twice")
            table[number] = payout
        order = {p: i for i, p in enumerate(self.wheel.pockets)}
        return {n: table[n] for n in sorted(table, key=order.__getitem__)}

    # -- the outcome ----------------------------------------------------------------------

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        """European winning bets; the straight-up pays its lucky payout or ``straight_up_payout``.

        The straight-up entry carries ``"lucky": true`` when the number was lucky; the outcome
        repeats the round's ``lucky_numbers``.
        """
        lucky = self.lucky(extras)
        out = super().outcome(result)
        number = out["number"]
        for w in out["winning_bets"]:
            if w["type"] == "straight":
                if number in lucky:
                    w["payout"], w["lucky"] = lucky[number], True
                else:
                    w["payout"] = self.straight_up_payout
        out["lucky_numbers"] = [{"number": n, "payout": p} for n, p in lucky.items()]
        out["lucky"] = number in lucky
        return out

    # -- studio evaluate's fast path ------------------------------------------------------------

    fast_evaluate = True

    @cached_property
    def _tails(self) -> EchoTails:
        return EchoTails(self.evaluate, "lucky_numbers")

    def evaluate_json(self, line: str) -> str | None:
        """A line ``{"id": N, "number": "17", "extras": {"lucky_numbers": [...]}}`` (labels, integer payouts):
        the answer past the lucky numbers follows from the pocket and its own lucky payout, if any."""
        m = _LUCKY_LINE(line)
        if m is None:
            return None
        number, order = m[2], self._order
        low, high = LUCKY_PAYOUT_RANGE
        table: dict[str, int] = {}
        for n, p in _LUCKY_ENTRY(m[3]):
            payout = int(p)
            if n not in order or n in table or not low <= payout <= high:
                return None
            table[n] = payout
        if number not in order:
            return None
        entries = (f'{{"number":"{n}","payout":{table[n]}}}' for n in sorted(table, key=order.__getitem__))
        echoed = "[" + ",".join(entries) + "]"

        def item() -> dict[str, Any]:
            lucky = [{"number": n, "payout": p} for n, p in table.items()]
            return {"number": number, "extras": {"lucky_numbers": lucky}}

        return self._tails.line(m[1], (number, table.get(number)), echoed, item)

    @cached_property
    def _order(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self.wheel.pockets)}


_POCKET = r'"(0|[1-9][0-9]?)"'
_ENTRY = r'\{"number": ?' + _POCKET + r', ?"payout": ?([1-9][0-9]{0,5})\}'
_LUCKY_LINE = plain_line(
    r'"number": ?'
    + _POCKET
    + r', ?"extras": ?\{"lucky_numbers": ?\[('
    + _ENTRY
    + r"(?:, ?"
    + _ENTRY
    + r")*)\]\}"
).fullmatch
_LUCKY_ENTRY = re.compile(_ENTRY).findall

GAMES = {g.game_id: g for g in (LightningRoulette(),)}
