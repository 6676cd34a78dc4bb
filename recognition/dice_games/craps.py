"""Craps: two dice, a come-out roll and a point carried across rounds at the table. Pure.

Seed 000 L2745-2805 (digest seed-B §20). Each throw is one round. Whether a
throw wins, loses or leaves a multi-roll bet standing depends on the table's
point, so a craps result carries the point in force BEFORE the throw:

    {"dice": [a, b], "point": null | 4 | 5 | 6 | 8 | 9 | 10}

and the outcome carries ``new_point``, the point for the next throw.
:class:`CrapsTableState` is the pure rule that carries the point from one
certified throw to the next; :class:`CrapsPointJudge` wraps the dice judge of
the table and adds the point to every result it hands over.

Every bet spot of the layout is in exactly one list of the outcome:
``winning_bets`` (net odds ``payout``), ``losing_bets``, ``returned_bets``
(stake returned: a push, or odds that are off), ``moved_bets`` (a Come / Don't
Come bet travelling to its come point, ``to``) and ``no_action_bets`` (ids of
bets that stay as they are).

Rule choices (docs/dice-games.md):

* Don't Pass follows the standard rule, not L2791's text: on the come-out roll
  2 or 3 wins, 12 is returned, 7 or 11 loses, and 4-10 sets the point (the bet
  stays, wins on a 7 before the point, loses on the point). L2791 says 4-10 lose
  on the come-out, which contradicts L2799 (Lay Odds on Don't Pass "after the
  Point has been decided") and the game.
* L2757 "until a total result of 7 or ... 4, 5, 6, 8, 9, 10 is rolled" is read
  as 7 or the point.
* On a come-out roll, Place to Win bets, Hardways and the Take Odds on come
  points are off (standard casino practice): the first two take no action, and
  come-point odds are returned when their come bet is decided. Place to Lose and
  Lay Odds work on every roll. ``off_on_come_out`` changes this per table.
* Payouts are the standard ones (the seed says only that the odds are shown).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

from recognition.game import BaseJudge

if TYPE_CHECKING:
    from recognition.game import Decision, ResultReady

from ._common import (
    BetSpot,
    DiceGame,
    check_derived,
    payout,
    read_faces,
    require_dict,
    require_key,
    returned,
    won,
)

if TYPE_CHECKING:  # the vision stack is imported when a judge is made, not with the rules
    from recognition.dice.calibration import Calibration
    from recognition.dice.judge import DiceJudge, Evidence

POINTS: tuple[int, ...] = (4, 5, 6, 8, 9, 10)
HARDWAYS: tuple[int, ...] = (4, 6, 8, 10)
EXAMPLE = "{'dice': [3, 4], 'point': None}"
NO_POINT: Any = object()  # make_result without a point: the dice judge's part of the result


def seed(line: int) -> str:
    return f"seed 000 L{line}"


def read_point(value: Any) -> int | None:
    """The point in force before a throw: None (come-out, puck OFF) or 4, 5, 6, 8, 9, 10."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"the point is {value!r}: it is null (come-out roll) or one of {list(POINTS)}")
    if isinstance(value, str):
        if value not in {str(p) for p in POINTS}:
            raise ValueError(f"the point is {value!r}: it is null (come-out roll) or one of {list(POINTS)}")
        value = int(value)
    if value not in POINTS:
        raise ValueError(f"the point is {value}: it is null (come-out roll) or one of {list(POINTS)}")
    return value


@dataclass(frozen=True)
class CrapsTableState:
    """The table's point between throws: None is the come-out (puck OFF), 4..10 the point (puck ON).

    Pure: a table keeps one, starts it at ``CrapsTableState()`` and moves it on
    only with CERTIFIED throws (``state = state.after(dice)``); a voided throw
    leaves it as it was. :meth:`replay` rebuilds it from the certified outcomes.
    """

    point: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "point", read_point(self.point))  # "6" -> 6; anything else refused

    @staticmethod
    def next_point(point: Any, dice: Any) -> int | None:
        """The point after a throw of ``dice`` (two faces) when ``point`` was in force.

        Come-out: 4, 5, 6, 8, 9, 10 becomes the point; 2, 3, 7, 11, 12 leave it off.
        Point on: the point or a 7 ends it (off); anything else keeps it.
        """
        point = read_point(point)
        total = sum(read_faces(dice, 2, "dice"))
        if point is None:
            return total if total in POINTS else None
        return None if total in (point, 7) else point

    def after(self, dice: Any) -> CrapsTableState:
        return CrapsTableState(self.next_point(self.point, dice))

    @property
    def puck(self) -> str:
        return "off" if self.point is None else "on"

    @classmethod
    def replay(
        cls, outcomes: Iterable[Mapping[str, Any]], start: CrapsTableState | None = None
    ) -> CrapsTableState:
        """The state after certified craps outcomes, oldest first; ValueError where they do not chain."""
        state = start or cls()
        for i, outcome in enumerate(outcomes):
            if "point" not in outcome:
                raise ValueError(f"certified throw {i + 1} has no 'point': it is not a craps outcome")
            if read_point(outcome["point"]) != state.point:
                raise ValueError(
                    f"certified throw {i + 1} was judged with point {outcome.get('point')!r}, "
                    f"but the throws before it leave the point at {state.point!r}"
                )
            state = state.after(outcome.get("dice"))
            if "new_point" in outcome and read_point(outcome["new_point"]) != state.point:
                raise ValueError(
                    f"certified throw {i + 1} says the new point is {outcome['new_point']!r}, "
                    f"but its dice give {state.point!r}"
                )
        return state


class CrapsPointJudge(BaseJudge):
    """Wraps the table's dice judge and puts the table's point into every result it hands over.

    The point moves on when a round ends certified: the table's ``round_ended``
    signal carries the certified outcome (its ``new_point``), which also covers a
    manual result and, at start-up, the last round in the journal; a voided round
    leaves the point where it was. After a correction of a past throw, a person
    must set the point (:meth:`set_point`): later throws were judged with the old one.
    """

    def __init__(self, inner: DiceJudge, state: CrapsTableState | None = None) -> None:
        self.inner = inner
        self.state = state or CrapsTableState()
        self._pending: CrapsTableState | None = None

    # What the studio asks of a dice camera's judge (studio.dice_camera.DiceCameraJudge) is the dice judge's:
    # declared here one by one, so that the wrapper has what it says it has and nothing else.

    def prepare(self, event: Any) -> Any:
        """The dice judge's vision of a frame (recognition.game.Judge): the same with a point. The dice judge
        shows the dealer nothing, so neither does this one (BaseJudge's ``status``)."""
        return self.inner.prepare(event)

    @property
    def dice(self) -> int:
        return self.inner.dice

    @property
    def colors(self) -> tuple[str, ...] | None:
        return self.inner.colors

    def calibration_for(self, device_id: str) -> Calibration | None:
        return self.inner.calibration_for(device_id)

    def evidence(self, evidence_id: str) -> Evidence | None:
        return self.inner.evidence(evidence_id)

    @property
    def evidence_ids(self) -> list[str]:
        return self.inner.evidence_ids

    @property
    def point(self) -> int | None:
        return self.state.point

    def set_point(self, point: Any) -> None:
        self.state = CrapsTableState(read_point(point))
        self._pending = None

    def certified(self, outcome: Mapping[str, Any]) -> None:
        """The round's certified outcome: its ``new_point`` is the table's point from now on."""
        self.set_point(outcome["new_point"])

    def feed(self, event: Any) -> list[Decision]:
        # the decision models (pydantic) on first use: a game's rules alone (`studio evaluate`) need none
        from recognition.game import ResultReady, RoundSignal, Void

        if isinstance(event, RoundSignal):
            if event.signal == "round_opened":
                self._pending = None
            elif (
                event.signal == "round_ended"
                and event.final_state == "certified"
                and event.outcome
                and "new_point" in event.outcome
            ):
                # the table's word wins: it covers manual results and the last round before a restart
                self.certified(event.outcome)
            elif event.signal == "round_ended" and event.final_state == "voided":
                self._pending = None  # a voided throw leaves the point where it was
            elif event.signal == "round_ended" and self._pending is not None:
                self.state, self._pending = self._pending, None
        out: list[Decision] = []
        for decision in self.inner.feed(event):
            if isinstance(decision, ResultReady):
                decision = self._with_point(decision)
            elif isinstance(decision, Void):
                self._pending = None
            out.append(decision)
        return out

    def _with_point(self, decision: ResultReady) -> Decision:
        from recognition.game import Hold, ResultReady

        result = dict(decision.result)
        if "point" in result:
            try:
                theirs = read_point(result["point"])
            except ValueError as exc:
                return Hold(code="craps_point_mismatch", message=f"the dice judge sent a bad point: {exc}")
            if theirs != self.state.point:
                return Hold(
                    code="craps_point_mismatch",
                    message=f"the dice judge says the point is {theirs!r}, the table's is {self.state.point!r}",
                )
        result["point"] = self.state.point
        try:
            self._pending = self.state.after(result.get("dice"))
        except ValueError:
            self._pending = None  # the table refuses the result (validate_result) and holds the round
        return ResultReady(result=result, source=decision.source)


# --- the layout -------------------------------------------------------------------

#: one-roll bets: spot id -> (seed line, winning totals -> net odds)
ONE_ROLL: dict[str, tuple[int, dict[int, int]]] = {
    "field": (2769, {2: 2, 3: 1, 4: 1, 9: 1, 10: 1, 11: 1, 12: 2}),
    "any_seven": (2771, {7: 4}),
    "any_craps": (2773, {2: 7, 3: 7, 12: 7}),
    "craps_2": (2775, {2: 30}),
    "craps_3": (2777, {3: 15}),
    "craps_12": (2779, {12: 30}),
    "eleven": (2781, {11: 15}),
    "c_and_e": (2783, {2: 3, 3: 3, 12: 3, 11: 7}),  # half on any craps (7:1), half on eleven (15:1)
}
TRUE_ODDS: dict[int, Fraction] = {
    4: Fraction(2),
    5: Fraction(3, 2),
    6: Fraction(6, 5),
    8: Fraction(6, 5),
    9: Fraction(3, 2),
    10: Fraction(2),
}
PLACE_WIN: dict[int, Fraction] = {
    4: Fraction(9, 5),
    5: Fraction(7, 5),
    6: Fraction(7, 6),
    8: Fraction(7, 6),
    9: Fraction(7, 5),
    10: Fraction(9, 5),
}
PLACE_LOSE: dict[int, Fraction] = {
    4: Fraction(5, 11),
    5: Fraction(5, 8),
    6: Fraction(4, 5),
    8: Fraction(4, 5),
    9: Fraction(5, 8),
    10: Fraction(5, 11),
}
HARDWAY_PAYS: dict[int, int] = {4: 7, 6: 9, 8: 9, 10: 7}

# what happens to one bet spot on one throw
WON, LOST, RETURNED, MOVED, NONE = "won", "lost", "returned", "moved", "none"


class Craps(DiceGame):
    game_id = "craps"
    judge_dice = 2
    judge_colors = None
    name = "Craps"
    one_roll = ONE_ROLL
    #: bet types that are off on a come-out roll (see the module docstring)
    off_on_come_out: frozenset[str] = frozenset({"place_win", "hardway", "take_odds"})

    @cached_property
    def spots(self) -> tuple[BetSpot, ...]:
        spots = [
            BetSpot(spot_id, spot_id, seed(line), payout(max(pays.values())))
            if len(set(pays.values())) == 1
            else BetSpot(spot_id, spot_id, seed(line), None, describe(pays))
            for spot_id, (line, pays) in self.one_roll.items()
        ]
        spots += [
            BetSpot("pass_line", "pass_line", seed(2789), 1),
            BetSpot("dont_pass", "dont_pass", seed(2791), 1),
            BetSpot("come", "come", seed(2793), 1),
            BetSpot("dont_come", "dont_come", seed(2795), 1),
        ]
        spots += [BetSpot(f"come:{n}", "come_point", seed(2793), 1) for n in POINTS]
        spots += [BetSpot(f"dont_come:{n}", "dont_come_point", seed(2795), 1) for n in POINTS]
        spots += [BetSpot(f"take_odds:{n}", "take_odds", seed(2797), payout(TRUE_ODDS[n])) for n in POINTS]
        spots += [BetSpot(f"lay_odds:{n}", "lay_odds", seed(2799), payout(1 / TRUE_ODDS[n])) for n in POINTS]
        spots += [BetSpot(f"place_win:{n}", "place_win", seed(2801), payout(PLACE_WIN[n])) for n in POINTS]
        spots += [BetSpot(f"place_lose:{n}", "place_lose", seed(2803), payout(PLACE_LOSE[n])) for n in POINTS]
        spots += [BetSpot(f"hardway:{n}", "hardway", seed(2805), HARDWAY_PAYS[n]) for n in HARDWAYS]
        return tuple(spots)

    def new_judge(self, **settings: Any) -> CrapsPointJudge:
        """The dice judge (two plain dice) wrapped in a :class:`CrapsPointJudge`.

        ``point`` in the settings (None or 4..10) starts the table with that point
        (after a restart, the ``new_point`` of the last certified throw).
        """
        settings = dict(settings)
        state = CrapsTableState(read_point(settings.pop("point", None)))
        return CrapsPointJudge(super().new_judge(**settings), state)

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """``{"dice": [4, "3"], "point": "6"}`` -> ``{"dice": [3, 4], "point": 6}``; ``point`` is required."""
        result = require_dict(result, self.name, EXAMPLE)
        dice = read_faces(
            require_key(result, "dice", self.name, f"the two faces and the point, e.g. {EXAMPLE}"), 2, "dice"
        )
        point = read_point(
            require_key(
                result,
                "point",
                self.name,
                f"the point in force before the throw (null on a come-out roll), e.g. {EXAMPLE}",
            )
        )
        check_derived(result, "total", sum(dice))
        return {"dice": dice, "point": point}

    def make_result(self, dice: Any, point: Any = NO_POINT) -> dict[str, Any]:
        """The throw a camera read: ``{"dice": [a, b]}``, which :class:`CrapsPointJudge` completes with the
        table's point; with ``point`` given, the complete canonical result."""
        if point is NO_POINT:
            return {"dice": read_faces(dice, 2, "dice")}
        return self.validate_result({"dice": dice, "point": point})

    def resolve(self, spot: BetSpot, point: int | None, dice: list[int]) -> tuple[str, Any]:
        """What one throw does to one bet spot: (WON, net odds), (LOST, None), (RETURNED, share),
        (MOVED, new spot id) or (NONE, None)."""
        total = dice[0] + dice[1]
        come_out = point is None
        working = not (come_out and spot.type in self.off_on_come_out)
        kind, _, arg = spot.id.partition(":")
        number = int(arg) if arg else None
        if spot.id in self.one_roll:
            table = self.one_roll[spot.id][1]  # total -> odds
            return (WON, table[total]) if total in table else (LOST, None)
        if kind in ("pass_line", "dont_pass"):
            if come_out:
                if kind == "pass_line":
                    return (
                        (WON, 1)
                        if total in (7, 11)
                        else (LOST, None)
                        if total in (2, 3, 12)
                        else (NONE, None)
                    )
                return (
                    (WON, 1)
                    if total in (2, 3)
                    else (RETURNED, 1)
                    if total == 12
                    else (LOST, None)
                    if total in (7, 11)
                    else (NONE, None)
                )
            number = point
            kind = "come" if kind == "pass_line" else "dont_come"  # decided like a come point on the point
        if spot.id == "come":
            return (
                (WON, 1)
                if total in (7, 11)
                else (LOST, None)
                if total in (2, 3, 12)
                else (MOVED, f"come:{total}")
            )
        if spot.id == "dont_come":
            return (
                (WON, 1)
                if total in (2, 3)
                else (RETURNED, 1)
                if total == 12
                else (LOST, None)
                if total in (7, 11)
                else (MOVED, f"dont_come:{total}")
            )
        assert number is not None
        if kind in ("come", "take_odds", "place_win"):  # win on the number before a 7
            if total not in (number, 7):
                return NONE, None
            if not working:
                # come-point odds that are off come back when their come bet is decided; place bets just wait
                return (RETURNED, 1) if kind == "take_odds" else (NONE, None)
            pays = {"come": Fraction(1), "take_odds": TRUE_ODDS[number], "place_win": PLACE_WIN[number]}[kind]
            return (WON, pays) if total == number else (LOST, None)
        if kind in ("dont_come", "lay_odds", "place_lose"):  # win on a 7 before the number
            if total not in (number, 7):
                return NONE, None
            if not working:
                return (RETURNED, 1) if kind == "lay_odds" else (NONE, None)
            pays = {
                "dont_come": Fraction(1),
                "lay_odds": 1 / TRUE_ODDS[number],
                "place_lose": PLACE_LOSE[number],
            }[kind]
            return (WON, pays) if total == 7 else (LOST, None)
        if kind == "hardway":
            if not working:
                return NONE, None
            if total == number and dice[0] == dice[1]:
                return WON, HARDWAY_PAYS[number]
            return (LOST, None) if total in (number, 7) else (NONE, None)
        raise AssertionError(f"no rule for {spot.id}")

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        """What the throw does to every bet spot, and the point for the next throw."""
        canonical = self.validate_result(result)
        dice, point = canonical["dice"], canonical["point"]
        lists: dict[str, list[Any]] = {WON: [], LOST: [], RETURNED: [], MOVED: [], NONE: []}
        for spot in self.spots:
            what, arg = self.resolve(spot, point, dice)
            if what == WON:
                lists[WON].append(won(spot.id, spot.type, arg))
            elif what == LOST:
                lists[LOST].append({"bet": spot.id, "type": spot.type})
            elif what == RETURNED:
                lists[RETURNED].append(returned(spot.id, spot.type, arg))
            elif what == MOVED:
                lists[MOVED].append({"bet": spot.id, "type": spot.type, "to": arg})
            else:
                lists[NONE].append(spot.id)
        return {
            **canonical,
            "total": sum(dice),
            "hard": dice[0] == dice[1],
            "roll": "come_out" if point is None else "point",
            "new_point": CrapsTableState.next_point(point, dice),
            "winning_bets": lists[WON],
            "losing_bets": lists[LOST],
            "returned_bets": lists[RETURNED],
            "moved_bets": lists[MOVED],
            "no_action_bets": lists[NONE],
        }


def describe(pays: Mapping[int, int]) -> str:
    """A one-roll payout that depends on the total, e.g. "2 to 1 on 2, 12; 1 to 1 on 3, 4, 9, 10, 11"."""
    by_odds: dict[int, list[int]] = {}
    for total, odds in sorted(pays.items()):
        by_odds.setdefault(odds, []).append(total)
    return "; ".join(
        f"{odds} to 1 on {', '.join(map(str, totals))}"
        for odds, totals in sorted(by_odds.items(), reverse=True)
    )
