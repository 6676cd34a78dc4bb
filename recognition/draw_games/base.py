"""What every ball-draw game shares: the ball set, draw validation, a market catalogue, exact settlement. Pure.

A draw game's result is ``{"balls": [label, ...]}`` in draw order (ball labels are
strings: "1".."80", "red-7", "green", "plum"). A game says which balls exist
(:attr:`DrawGame.ball_labels`, each at most :meth:`DrawGame.max_count` times in a
round), how many are drawn (:attr:`DrawGame.draw_count`, the most a round can
draw) and when a draw is complete (:meth:`DrawGame.draw_complete`). The shared
`DrawJudge` (recognition/balls/judge.py) reads these; docs/draw-games.md has the
contract.

Payouts. Except Mega Ball, the seeds give no odds: "Fixed odds are set for the
offered outcomes … that the player sees when making a bet" (Keno Express L2113,
and the same words in every other draw game). So an outcome lists the facts of
the draw and the fixed bets (those without a player's selection) that win, and
:meth:`DrawGame.settle` settles one accepted bet with the odds that bet was taken
at: ``return = stake x odds`` (decimal odds, stake included: "the bet amount is
multiplied by the corresponding odds"). Amounts are exact (ints, or strings
such as ``"39/8"``); floats are refused everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from recognition import equipment
from recognition.game import BaseGame, Judge
from recognition.payouts import exact_text

#: the device kinds whose events the shared DrawJudge understands
DEVICE_KINDS: tuple[str, ...] = ("modbus-ball-machine", "serial-ball-reader", "camera-ball-reader")

#: a market test's verdict when the seed's rule cannot settle the bet and the operator chose to void it
VOID = "void"

Verdict = Any  # bool, VOID, or (keyed markets) the key into the bet's odds table / None for a loss


@dataclass(frozen=True)
class Market:
    """One bet of a game's catalogue.

    ``pick`` is empty for a fixed bet (no selection), else the allowed numbers of
    selected values; ``choices`` restricts the selected values (default: the game's
    ball labels); ``ordered`` keeps the selection's order (else it is sorted and must
    not repeat); ``keyed`` bets return a key into the bet's table of odds (the ball
    at which six numbers completed, a match count, ...) instead of True/False.
    """

    id: str
    line: int
    test: Callable[..., Verdict]
    pick: tuple[int, ...] = ()
    choices: tuple[str, ...] | None = None
    ordered: bool = False
    keyed: bool = False

    @property
    def fixed(self) -> bool:
        return not self.pick


# A test is test(drawn) for a fixed bet, test(drawn, selection) for a picked one. It is typed `...`: the tests
# built in loops bind their loop values as defaults (lambda d, t=t: ...), which mypy cannot match against a
# fixed signature (python/mypy#15459).


def fixed(id: str, line: int, test: Callable[..., Verdict]) -> Market:
    return Market(id, line, lambda d, sel: test(d))


def picked(
    id: str,
    line: int,
    pick: int | tuple[int, ...],
    test: Callable[..., Verdict],
    **kw: Any,
) -> Market:
    return Market(id, line, test, pick=(pick,) if isinstance(pick, int) else tuple(pick), **kw)


# --- exact numbers -------------------------------------------------------------------------------

_DECIMAL = re.compile(r"^[0-9]+(\.[0-9]+)?$")
_RATIO = re.compile(r"^[0-9]+/[1-9][0-9]*$")


def exact(value: Any, what: str) -> Fraction:
    """An int, a decimal string ("1.95") or a ratio string ("39/20") as an exact Fraction; never a float."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(
            f"{what} must be an integer or an exact string such as '1.95' or '39/20', "
            f"not {type(value).__name__} {value!r} (floats are not exact)"
        )
    if isinstance(value, int):
        return Fraction(value)
    text = value.strip()
    if not (_DECIMAL.match(text) or _RATIO.match(text)):
        raise ValueError(f"{what} {value!r} is not an exact non-negative number such as '1.95' or '39/20'")
    return Fraction(text)


#: an int when whole, else the reduced ratio as a string ("39/8"): JSON without floats
as_exact = exact_text


def odds_value(value: Any, what: str = "odds") -> Fraction:
    odds = exact(value, what)
    if odds < 1:
        raise ValueError(
            f"{what} {value!r} is below 1: odds are decimal (the return per unit staked, stake included)"
        )
    return odds


def odds_table(value: Any, what: str = "odds") -> dict[str, Fraction]:
    if not isinstance(value, Mapping) or not value:
        raise ValueError(f"{what} must be a table of odds, e.g. {{'12': '250'}}, not {value!r}")
    return {str(k): odds_value(v, f"{what}[{k!r}]") for k, v in value.items()}


# --- facts of a draw -----------------------------------------------------------------------------


class Drawn:
    """The facts of a validated draw that the markets test (built once per settlement)."""

    def __init__(self, game: DrawGame, balls: Sequence[str]) -> None:
        self.balls = tuple(balls)
        self.set = frozenset(self.balls)
        self.position: dict[str, int] = {}  # label -> 1-based position of its first appearance
        for i, b in enumerate(self.balls, 1):
            self.position.setdefault(b, i)
        self.colors = tuple(game.colors[b] for b in self.balls) if game.colors else ()
        self.numbers: tuple[int, ...] = tuple(int(b) for b in self.balls) if game.numeric else ()

    @property
    def first(self) -> int:
        return self.numbers[0]

    @property
    def last(self) -> int:
        return self.numbers[-1]

    def count(self, color: str) -> int:
        return self.colors.count(color)

    def color_sum(self, color: str) -> int:
        return sum(n for n, c in zip(self.numbers, self.colors) if c == color)

    @property
    def odd(self) -> int:
        return sum(n % 2 for n in self.numbers)

    @property
    def even(self) -> int:
        return len(self.numbers) - self.odd


def hits(d: Drawn, sel: Sequence[str]) -> int:
    return sum(1 for s in sel if s in d.set)


def completed_at(d: Drawn, sel: Sequence[str]) -> int | None:
    """The 1-based position of the ball that completed the selection (all drawn), else None."""
    if any(s not in d.set for s in sel):
        return None
    return max(d.position[s] for s in sel)


def nth_hit_at(d: Drawn, sel: Sequence[str], n: int) -> int | None:
    """The 1-based position at which the n-th selected number was drawn, else None."""
    positions = sorted(d.position[s] for s in sel if s in d.set)
    return positions[n - 1] if len(positions) >= n else None


# --- the game ------------------------------------------------------------------------------------


class DrawGame(BaseGame):
    """A live ball draw: the game contract of :mod:`recognition.game` plus the DrawJudge contract.

    Subclasses set ``game_id``, ``title``, ``seed_lines``, ``ball_labels``,
    ``draw_count``, optionally ``colors`` and ``counts`` (label -> how many balls
    carry it; default one each), and build ``markets``.
    """

    def opening_check(self, devices: Mapping[str, Any]) -> Any:
        """The ball-set check the table must pass before it opens: every ball read once (docs/balls.md §6).

        `devices`: the table's drivers by role; the reader's ball-set table (its `ball_set`) names missing balls
        by tag.
        """
        from recognition.balls.ballset_check import BallSetCheck

        ball_set = next(
            (d.ball_set for d in devices.values() if d is not None and d.ball_set is not None),
            None,
        )
        return BallSetCheck.for_game(self, ball_set)

    game_id: str = ""
    title: str = ""
    #: where the rules are, in shared/seeds/000_300cbc27d72ea06a.txt
    seed_lines: tuple[int, int] = (0, 0)
    pacing = "dealer"
    device_kinds: tuple[str, ...] = DEVICE_KINDS
    ball_labels: tuple[str, ...] = ()
    #: balls drawn per round; where the count varies, the most a round can draw (see draw_complete)
    draw_count: int = 0
    colors: dict[str, str] | None = None
    #: the colours of the set, in the seed's order (games whose bets name colours)
    color_order: tuple[str, ...] = ()
    #: label -> number of balls of the set that carry it (labels not listed: 1)
    counts: dict[str, int] | None = None
    markets: tuple[Market, ...] = ()
    #: keys of the table settings that draw_extras consumes (not passed on to the judge)
    game_settings: frozenset[str] = frozenset()

    # --- the ball set ---------------------------------------------------------------

    def equipment_reading(
        self, result: Mapping[str, Any], source: Mapping[str, Any]
    ) -> list[tuple[str, str]]:
        balls = result.get("balls")
        return [("ball", str(b)) for b in balls] if isinstance(balls, list) else []

    def equipment_odds(self, quantity: str, settings: Mapping[str, Any]) -> Mapping[str, float] | None:
        return equipment.uniform(self.ball_labels) if quantity == "ball" else None

    @property
    def numeric(self) -> bool:
        return all(label.isdigit() for label in self.ball_labels)

    def max_count(self, label: str) -> int:
        """How many balls of the set carry this label (1 for numbered balls)."""
        return (self.counts or {}).get(label, 1)

    def label(self, value: Any) -> str:
        """The ball label of a reported ball (a label, or an int for numbered balls), or ValueError."""
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError(
                f"a ball is a label such as {self.ball_labels[0]!r}, not {type(value).__name__} {value!r}"
            )
        text = str(value)
        if text in self._labels:
            return text
        if isinstance(value, str):
            stripped = text.strip()
            canonical = (stripped.lstrip("0") or "0") if stripped.isdigit() else stripped.lower()
            if canonical in self._labels:
                raise ValueError(f"{text!r} is not a ball label; write {canonical!r}")
        raise ValueError(f"{text!r} is not a ball of {self.title} ({self._describe()})")

    @property
    def _labels(self) -> frozenset[str]:
        return frozenset(self.ball_labels)

    def _describe(self) -> str:
        if self.numeric:
            return f"balls {self.ball_labels[0]!r}..{self.ball_labels[-1]!r}"
        return "balls " + ", ".join(repr(b) for b in self.ball_labels)

    def color_of(self, label: str) -> str | None:
        return (self.colors or {}).get(label)

    # --- the draw (also the DrawJudge contract) -------------------------------------

    def draw_complete(self, balls: Sequence[str], extras: dict[str, Any] | None = None) -> bool:
        """True once the balls drawn so far (in draw order) complete the round's draw.

        The judge calls this after each ball, passing the round's committed extras
        (RoundSignal.extras) where it has them; only Mega Ball needs them.
        """
        return len(balls) >= self.draw_count

    def validate_partial(self, balls: Sequence[Any], extras: dict[str, Any] | None = None) -> list[str]:
        """The labels of a draw in progress, or ValueError if no complete draw can start this way
        (unknown ball, a ball seen more often than the set has it, a ball after the draw completed)."""
        labels = self._labels_of(balls)
        for i in range(1, len(labels)):
            if self.draw_complete(labels[:i], extras) and not self._may_follow_completion:
                raise ValueError(
                    f"ball {i + 1} ({labels[i]!r}) came after the draw was complete "
                    f"({self._complete_words(i)})"
                )
        return labels

    _may_follow_completion = False

    def _complete_words(self, n: int) -> str:
        if n == self.draw_count:
            return f"{self.title} draws {n} ball" + ("s" if n != 1 else "")
        return f"complete after {n} balls"

    def _labels_of(self, balls: Any) -> list[str]:
        if isinstance(balls, (str, bytes)) or not isinstance(balls, Sequence):
            raise ValueError(
                f"'balls' must be a list of ball labels in draw order, not {type(balls).__name__}"
            )
        labels: list[str] = []
        seen: dict[str, int] = {}
        for i, value in enumerate(balls, 1):
            try:
                label = self.label(value)
            except ValueError as exc:
                raise ValueError(f"ball {i}: {exc}") from None
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > self.max_count(label):
                first = labels.index(label) + 1
                if self.max_count(label) == 1:
                    raise ValueError(
                        f"ball {i} ({label!r}) repeats ball {first}: the set has one ball {label!r}"
                    )
                raise ValueError(
                    f"ball {i}: {seen[label]} balls {label!r}, but the set has only {self.max_count(label)}"
                )
            labels.append(label)
        return labels

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """``{"balls": [...]}`` in draw order -> the canonical ``{"balls": [labels]}``.

        Ints are accepted for numbered balls; other keys are not part of the result
        and are dropped, except ``colors`` (one per ball), which must agree with the set.
        """
        balls = self._result_balls(result)
        labels = self.validate_partial(balls)
        self._check_final(labels)
        self._check_colors(result, labels)
        return {"balls": labels}

    def _result_balls(self, result: Any) -> Any:
        if not isinstance(result, dict):
            raise ValueError(
                f"a {self.title} result is a dict like {{'balls': [...]}}, not {type(result).__name__}"
            )
        if "balls" not in result:
            raise ValueError(f"a {self.title} result needs 'balls': the {self._drawn_words()} in draw order")
        return result["balls"]

    def _drawn_words(self) -> str:
        return f"{self.draw_count} drawn ball" + ("s" if self.draw_count != 1 else "")

    def _check_final(self, labels: list[str]) -> None:
        if len(labels) != self.draw_count:
            raise ValueError(
                f"{self.title} draws {self.draw_count} ball{'s' if self.draw_count != 1 else ''}, "
                f"got {len(labels)}" + (": the draw is incomplete" if len(labels) < self.draw_count else "")
            )

    def _check_colors(self, result: dict[str, Any], labels: list[str]) -> None:
        if "colors" not in result:
            return
        given = result["colors"]
        if not self.colors:
            raise ValueError(f"{self.title} balls have no colours, but the result gives 'colors'")
        if not isinstance(given, list) or len(given) != len(labels):
            raise ValueError(f"'colors' must list one colour per ball ({len(labels)}), got {given!r}")
        for i, (label, color) in enumerate(zip(labels, given), 1):
            if color != self.colors[label]:
                raise ValueError(f"ball {i} ({label!r}) is {self.colors[label]}, not {color!r}")

    # --- outcome -------------------------------------------------------------------

    def drawn(self, result: dict[str, Any]) -> Drawn:
        return Drawn(self, result["balls"])

    def facts(self, d: Drawn) -> dict[str, Any]:
        """Derived facts of the draw that the settlement system needs (ints and strings only)."""
        return {}

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        """The draw, its facts, and the fixed bets that win (``{"bet", "line"}``, catalogue order).

        Bets on a player's selection are settled with :meth:`settle` from the same result.
        """
        canonical = self.validate_result(result)
        d = self.drawn(canonical)
        out: dict[str, Any] = {**canonical}
        if self.colors:
            out["colors"] = list(d.colors)
        out.update(self.facts(d))
        fixed_bets = [m for m in self.markets if m.fixed and not m.keyed]
        if fixed_bets:  # a game whose bets all need a selection or a table settles only through settle()
            out["winning_bets"] = [
                {"bet": m.id, "line": m.line} for m in fixed_bets if m.test(d, None) is True
            ]
            void = [{"bet": m.id, "line": m.line} for m in fixed_bets if m.test(d, None) == VOID]
            if void:
                out["void_bets"] = void
        return out

    # --- settlement ----------------------------------------------------------------

    def market(self, market_id: Any) -> Market:
        for m in self.markets:
            if m.id == market_id:
                return m
        raise ValueError(
            f"{market_id!r} is not a bet of {self.title}; bets: {', '.join(m.id for m in self.markets)}"
        )

    def selection(self, market: Market, value: Any) -> tuple[str, ...]:
        if market.fixed:
            if value not in (None, []):
                raise ValueError(f"bet {market.id!r} takes no selection, got {value!r}")
            return ()
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise ValueError(
                f"bet {market.id!r} needs a 'selection' list of "
                f"{' or '.join(map(str, market.pick))} value(s), got {value!r}"
            )
        if len(value) not in market.pick:
            raise ValueError(
                f"bet {market.id!r} selects {' or '.join(map(str, market.pick))} value(s), got {len(value)}"
            )
        if market.choices is None:
            sel = [self.label(v) for v in value]
        else:
            sel = [str(v) for v in value if not isinstance(v, bool)]
            bad = [v for v in value if isinstance(v, bool) or str(v) not in market.choices]
            if bad:
                raise ValueError(f"bet {market.id!r}: {bad[0]!r} is not one of {', '.join(market.choices)}")
        if len(set(sel)) != len(sel):
            raise ValueError(f"bet {market.id!r}: the selection {value!r} repeats a value")
        if not market.ordered:
            sel.sort(key=self._sort_key(market))
        return tuple(sel)

    def _sort_key(self, market: Market) -> Callable[[str], Any]:
        order = {c: i for i, c in enumerate(market.choices or self.ball_labels)}
        return order.__getitem__

    def settle(
        self, bet: dict[str, Any], result: dict[str, Any], extras: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Settle one accepted bet against a result.

        ``bet`` = ``{"market": id, "stake": S, "odds": O, "selection": [...]}`` with
        ``odds`` the decimal odds the bet was accepted at (for keyed bets a table,
        key -> odds). Returns ``{"market", "won", "void", "return"}`` where
        ``return`` is what the player gets back (stake x odds on a win, the stake on
        a void, 0 on a loss), exact.
        """
        if not isinstance(bet, dict):
            raise ValueError(
                f"a bet is a dict like {{'market': ..., 'stake': ..., 'odds': ...}}, not {bet!r}"
            )
        canonical = self.validate_result(result)
        market = self.market(bet.get("market"))
        sel = self.selection(market, bet.get("selection"))
        stake = exact(bet.get("stake"), "stake")
        verdict = market.test(self.drawn(canonical), sel)
        out: dict[str, Any] = {"market": market.id}
        if sel:
            out["selection"] = list(sel)
        if market.keyed:
            table = odds_table(bet.get("odds"))
            if verdict is None:
                return {**out, "won": False, "void": False, "return": 0}
            if str(verdict) not in table:
                raise ValueError(
                    f"bet {market.id!r} won at {verdict!r}, but its odds table has no entry for it "
                    f"(entries: {', '.join(table)})"
                )
            return {
                **out,
                "won": True,
                "void": False,
                "at": verdict,
                "return": as_exact(stake * table[str(verdict)]),
            }
        odds = odds_value(bet.get("odds"))
        if verdict == VOID:
            return {**out, "won": False, "void": True, "return": as_exact(stake)}
        if verdict is True:
            return {**out, "won": True, "void": False, "return": as_exact(stake * odds)}
        return {**out, "won": False, "void": False, "return": 0}

    # --- the judge -----------------------------------------------------------------

    def new_judge(self, **settings: Any) -> Judge:
        """The shared ball-draw judge for this game (imported here so recognition stays importable without it)."""
        from recognition.balls.judge import DrawJudge  # type: ignore[import-not-found]

        judge_settings = {k: v for k, v in settings.items() if k not in self.game_settings}
        return DrawJudge(game=self, **judge_settings)


# --- catalogue helpers ---------------------------------------------------------------------------


def numbers(first: int, last: int) -> tuple[str, ...]:
    return tuple(str(n) for n in range(first, last + 1))


def half(threshold: str) -> Fraction:
    """A '92.5'-style threshold as an exact Fraction (ids keep the seed's text)."""
    return Fraction(threshold)


def over(value: int, threshold: str) -> bool:
    return value > half(threshold)


def under(value: int, threshold: str) -> bool:
    return value < half(threshold)
