"""Mega Ball: 20 of 51 balls, then one or two Mega Balls with computer-drawn multipliers. Pure.

Seed 000 L2837-L2868 (digest: rules-digest/seed-B.md §22). The only draw game
whose seed has a payout table (L2843-L2853, "10․000" is ten thousand):

    1 line x 1, 2 lines x 5, 3 lines x 50, 4 lines x 250, 5 lines x 1000, 6 lines x 10000

"the made bet amount is multiplied by the odds of the completed line(s)" (L2841):
a card returns stake x the odds for its number of lines (x 1 gives the stake back).

A result is ``{"balls": [20 main balls, then the Mega Ball(s)]}``; the round's
committed extras ``{"mega_multipliers": [m1] or [m1, m2]}`` say how many Mega
Balls there are and what each multiplies by. Choices where the seed is silent or
unclear (docs/draw-games.md has the details):

* A Mega Ball is drawn from the 31 balls not yet drawn (a drawn number could not
  complete a line), so all balls of a round differ.
* "up to 6 lines" (L2841): a card with more than 6 lines (possible from 7 on) is paid as 6.
* ``mega_rule="seed"`` (default): L2865/L2867 literally, the card keeps its main
  round win (odds for the lines completed by the 20 balls) and, if a Mega Ball
  completes a line, adds stake x that Mega Ball's multiplier, once per card.
  ``mega_rule="multiply"``: the common studio rule (Evolution's Mega Ball), the card's
  line odds counted after the Mega Balls, times the multiplier. Both pay the seed's
  example (100 EUR, no line, a 5x Mega Ball completes one line: 500 EUR).
* Two Mega Balls both completing lines on one card: the multiplier applies once
  (L2867); ``mega_pick="highest"`` (default) takes the larger, ``"first"`` the first.
* How many Mega Balls, and the multipliers' distribution, are not in the seed:
  table settings (see :meth:`MegaBall.draw_extras`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

from recognition.evaluate_fast import plain_line

from .base import DrawGame, as_exact, exact, numbers

LINE_PAYOUTS: dict[int, int] = {1: 1, 2: 5, 3: 50, 4: 250, 5: 1000, 6: 10000}  # L2843-L2853
MIN_MULTIPLIER, MAX_MULTIPLIER = 5, 100  # "in the range from 5x to 100x" (L2863)
MAIN_BALLS = 20

#: the 12 lines of a 5x5 card as cell indexes (row-major, the free square is 12)
CARD_LINES: tuple[frozenset[int], ...] = (
    tuple(frozenset(range(5 * r, 5 * r + 5)) for r in range(5))
    + tuple(frozenset(range(c, 25, 5)) for c in range(5))
    + (frozenset((0, 6, 12, 18, 24)), frozenset((4, 8, 12, 16, 20)))
)
FREE = 12
FREE_MARKS = (None, "free", "FREE", "*")

#: `studio evaluate`'s usual line: an integer id, the balls, the committed multipliers
_PLAIN_LINE = plain_line(
    r'"balls": ?\[([^\]]*)\], ?"extras": ?\{"mega_multipliers": ?\[([0-9]+(?:, ?[0-9]+)?)\]\}'
).fullmatch
_MULTIPLIER_TEXTS = frozenset(str(m) for m in range(MIN_MULTIPLIER, MAX_MULTIPLIER + 1))


class MegaBall(DrawGame):
    game_id = "mega_ball"
    title = "Mega Ball"
    seed_lines = (2837, 2868)
    ball_labels = numbers(1, 51)
    #: the most a round draws: 20 balls and two Mega Balls (draw_complete knows the round's count)
    draw_count = MAIN_BALLS + 2
    game_settings = frozenset({"mega_ball_count", "mega_second_ball_chance", "mega_multipliers"})

    def __init__(
        self,
        *,
        mega_rule: str = "seed",
        mega_pick: str = "highest",
        line_payouts: dict[int, int] | None = None,
    ) -> None:
        if mega_rule not in ("seed", "multiply"):
            raise ValueError(f"mega_rule must be 'seed' or 'multiply', not {mega_rule!r}")
        if mega_pick not in ("highest", "first"):
            raise ValueError(f"mega_pick must be 'highest' or 'first', not {mega_pick!r}")
        self.mega_rule = mega_rule
        self.mega_pick = mega_pick
        self.line_payouts = dict(line_payouts or LINE_PAYOUTS)
        self.max_lines_paid = max(self.line_payouts)
        self.markets = ()

    # --- the computer draw ---------------------------------------------------------

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any]:
        """The round's Mega Ball multipliers, drawn with the studio's rng only.

        Table settings (all optional; other settings are the judge's and ignored here):

        * ``mega_ball_count``: 1 (default) or 2 Mega Balls every round;
        * ``mega_second_ball_chance``: e.g. "1/10": with one Mega Ball by default, the
          chance of a second one this round;
        * ``mega_multipliers``: the multipliers to draw from, a list (equally likely)
          or a table multiplier -> integer weight; each within 5..100 (L2863).
          Default: every integer 5..100, equally likely.
        """
        unknown = sorted(k for k in settings if k.startswith("mega_") and k not in self.game_settings)
        if unknown:
            raise ValueError(f"unknown Mega Ball setting(s) {unknown}; known: {sorted(self.game_settings)}")
        count = settings.get("mega_ball_count", 1)
        if count not in (1, 2) or isinstance(count, bool):
            raise ValueError(f"mega_ball_count must be 1 or 2, not {count!r}")
        chance = settings.get("mega_second_ball_chance")
        if chance is not None and count == 1:
            p = exact(chance, "mega_second_ball_chance")
            if p > 1:
                raise ValueError(f"mega_second_ball_chance {chance!r} is above 1")
            if rng.randrange(p.denominator) < p.numerator:
                count = 2
        values, weights = self._multiplier_table(settings.get("mega_multipliers"))
        return {"mega_multipliers": [_weighted(rng, values, weights) for _ in range(count)]}

    @staticmethod
    def _multiplier_table(spec: Any) -> tuple[list[int], list[int]]:
        if spec is None:
            values = list(range(MIN_MULTIPLIER, MAX_MULTIPLIER + 1))
            return values, [1] * len(values)
        if isinstance(spec, dict):
            items = [(int(k) if isinstance(k, str) and k.isdigit() else k, w) for k, w in spec.items()]
        elif isinstance(spec, (list, tuple)):
            items = [(v, 1) for v in spec]
        else:
            raise ValueError(f"mega_multipliers must be a list or a table multiplier -> weight, not {spec!r}")
        if not items:
            raise ValueError("mega_multipliers is empty")
        for value, weight in items:
            _check_multiplier(value, "mega_multipliers")
            if isinstance(weight, bool) or not isinstance(weight, int) or weight < 1:
                raise ValueError(
                    f"mega_multipliers: the weight of {value} must be a positive integer, not {weight!r}"
                )
        return [v for v, _ in items], [w for _, w in items]

    def multipliers(self, extras: dict[str, Any] | None) -> list[int]:
        if not isinstance(extras, dict) or "mega_multipliers" not in extras:
            raise ValueError(
                "a Mega Ball outcome needs the round's committed extras "
                "{'mega_multipliers': [...]} (the multipliers drawn when the round opened)"
            )
        mults = extras["mega_multipliers"]
        if not isinstance(mults, list) or len(mults) not in (1, 2):
            raise ValueError(f"mega_multipliers must list one or two multipliers, not {mults!r}")
        for m in mults:
            _check_multiplier(m, "mega_multipliers")
        return list(mults)

    # --- the draw -------------------------------------------------------------------

    def _total(self, extras: dict[str, Any] | None) -> int:
        if (
            isinstance(extras, dict)
            and isinstance(extras.get("mega_multipliers"), list)
            and len(extras["mega_multipliers"]) in (1, 2)
        ):
            return MAIN_BALLS + len(extras["mega_multipliers"])
        return MAIN_BALLS + 1

    def draw_complete(self, balls: Sequence[str], extras: dict[str, Any] | None = None) -> bool:
        """20 balls and as many Mega Balls as the round's extras have multipliers (one without extras)."""
        return len(balls) >= self._total(extras)

    def validate_partial(self, balls: Sequence[Any], extras: dict[str, Any] | None = None) -> list[str]:
        labels = self._labels_of(balls)
        limit = self._total(extras) if extras is not None else self.draw_count
        if len(labels) > limit:
            raise ValueError(
                f"ball {limit + 1} ({labels[limit]!r}) came after the draw was complete "
                f"(20 balls and {limit - MAIN_BALLS} Mega Ball{'s' if limit - MAIN_BALLS > 1 else ''})"
            )
        return labels

    def _drawn_words(self) -> str:
        return "20 drawn balls and then the Mega Ball(s)"

    def _check_final(self, labels: list[str]) -> None:
        if len(labels) not in (MAIN_BALLS + 1, MAIN_BALLS + 2):
            raise ValueError(
                f"Mega Ball draws 20 balls and then one or two Mega Balls (21 or 22 balls), "
                f"got {len(labels)}" + (": the draw is incomplete" if len(labels) <= MAIN_BALLS else "")
            )

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        """The balls, the Mega Balls with their multipliers, and the seed's line odds; cards settle with settle()."""
        canonical = self.validate_result(result)
        mults = self.multipliers(extras)
        balls = canonical["balls"]
        if len(balls) != MAIN_BALLS + len(mults):
            raise ValueError(
                f"the round committed {len(mults)} Mega Ball multiplier(s), but the result has "
                f"{len(balls) - MAIN_BALLS} Mega Ball(s)"
            )
        return {
            **canonical,
            "main_balls": balls[:MAIN_BALLS],
            "mega_balls": [{"ball": b, "multiplier": m} for b, m in zip(balls[MAIN_BALLS:], mults)],
            "line_payouts": {str(k): v for k, v in sorted(self.line_payouts.items())},
            "max_lines_paid": self.max_lines_paid,
            "mega_rule": self.mega_rule,
        }

    # --- studio evaluate's fast path --------------------------------------------------------

    fast_evaluate = True

    def evaluate_json(self, line: str) -> str | None:
        """A usual line (the game's balls, each once, as many Mega Balls as multipliers, each a multiplier of
        the game): the answer written from the balls' text; None for any other line (the general path)."""
        m = _PLAIN_LINE(line)
        if m is None:
            return None
        balls = m[2].replace(", ", ",")  # '"7","12",...': the balls as the answer writes them
        labels = balls.split(",")
        mults = m[3].replace(" ", "").split(",")
        n = len(labels)
        if (
            n != MAIN_BALLS + len(mults)
            or not self._quoted_labels.issuperset(labels)
            or len(set(labels)) != n
            or not _MULTIPLIER_TEXTS.issuperset(mults)
        ):
            return None
        if n == MAIN_BALLS + 1:  # the usual round: one Mega Ball
            megas = f'{{"ball":{labels[MAIN_BALLS]},"multiplier":{mults[0]}}}'
        else:
            megas = ",".join(
                f'{{"ball":{b},"multiplier":{x}}}' for b, x in zip(labels[MAIN_BALLS:], mults, strict=True)
            )
        return (
            f'{{"id":{m[1]},"valid":true,"result":{{"balls":[{balls}]}},"outcome":{{"balls":[{balls}],'
            f'"main_balls":[{",".join(labels[:MAIN_BALLS])}],"mega_balls":[{megas}],{self._outcome_tail}}}}}\n'
        )

    @cached_property
    def _quoted_labels(self) -> frozenset[str]:
        return frozenset(f'"{b}"' for b in self.ball_labels)

    @cached_property
    def _outcome_tail(self) -> str:
        """The outcome's keys after the Mega Balls, the same every round."""
        tail = {
            "line_payouts": {str(k): v for k, v in sorted(self.line_payouts.items())},
            "max_lines_paid": self.max_lines_paid,
            "mega_rule": self.mega_rule,
        }
        return json.dumps(tail, separators=(",", ":"))[1:-1]

    # --- cards ----------------------------------------------------------------------

    def card(self, value: Any) -> list[str | None]:
        """A card as 25 cells, row-major, the centre (free square) None. Accepts 25 cells with the centre
        None/"free"/"*", or the 24 numbers without it."""
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise ValueError(
                f"a card is a list of its 24 numbers (row by row, without the free centre) or of "
                f"25 cells with the centre null, not {value!r}"
            )
        cells = list(value)
        if len(cells) == 24:
            cells = cells[:FREE] + [None] + cells[FREE:]
        elif len(cells) == 25:
            if cells[FREE] not in FREE_MARKS:
                raise ValueError(f"the centre of a card is the free square (null), not {cells[FREE]!r}")
            cells[FREE] = None
        else:
            raise ValueError(f"a card has 24 numbers and a free centre, got {len(cells)} cells")
        out: list[str | None] = []
        for i, v in enumerate(cells):
            if i == FREE:
                out.append(None)
                continue
            try:
                out.append(self.label(v))
            except ValueError as exc:
                raise ValueError(f"card cell {i + 1}: {exc}") from None
        numbers_ = [c for c in out if c is not None]
        if len(set(numbers_)) != 24:
            dup = next(c for c in numbers_ if numbers_.count(c) > 1)
            raise ValueError(f"a card has 24 different numbers (L2841); {dup!r} appears twice")
        return out

    @staticmethod
    def lines(card: Sequence[str | None], marked: set[str]) -> int:
        done = {i for i, c in enumerate(card) if c is None or c in marked}
        return sum(1 for line in CARD_LINES if line <= done)

    def odds_for(self, lines: int) -> int:
        return self.line_payouts.get(min(lines, self.max_lines_paid), 0)

    def settle(
        self, bet: dict[str, Any], result: dict[str, Any], extras: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """One card: ``{"market": "card", "card": [...], "stake": S}`` -> its lines, Mega Ball and return.

        The odds are the seed's line table, not the bet's: a bet with 'odds' is refused.
        """
        if not isinstance(bet, dict) or bet.get("market", "card") != "card":
            raise ValueError(
                f"Mega Ball bets are cards: {{'market': 'card', 'card': [...], 'stake': S}}, not {bet!r}"
            )
        if "odds" in bet:
            raise ValueError("a Mega Ball card pays the line table (L2843-L2853); it has no 'odds'")
        out = self.outcome(result, extras)
        card = self.card(bet.get("card"))
        stake = exact(bet.get("stake"), "stake")
        marked = set(out["main_balls"])
        main_lines = self.lines(card, marked)
        lines = main_lines
        completing: list[dict[str, Any]] = []
        for mega in out["mega_balls"]:
            marked.add(mega["ball"])
            after = self.lines(card, marked)
            if after > lines:
                completing.append(mega)
            lines = after
        chosen = None
        if completing:
            chosen = (
                max(completing, key=lambda m: m["multiplier"])
                if self.mega_pick == "highest"
                else completing[0]
            )
        if self.mega_rule == "seed":
            total = stake * self.odds_for(main_lines) + (stake * chosen["multiplier"] if chosen else 0)
        else:
            total = stake * self.odds_for(lines) * (chosen["multiplier"] if chosen else 1)
        total = Fraction(total)
        return {
            "market": "card",
            "lines": main_lines,
            "lines_with_mega_balls": lines,
            "mega_ball": chosen,
            "won": total > 0,
            "void": False,
            "return": as_exact(total),
        }


def _check_multiplier(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_MULTIPLIER <= value <= MAX_MULTIPLIER:
        raise ValueError(
            f"{what}: {value!r} is not a whole multiplier from {MIN_MULTIPLIER} to {MAX_MULTIPLIER} (L2863)"
        )


def _weighted(rng: random.Random, values: list[int], weights: list[int]) -> int:
    r = rng.randrange(sum(weights))
    for value, weight in zip(values, weights):
        if r < weight:
            return value
        r -= weight
    raise AssertionError("unreachable")
