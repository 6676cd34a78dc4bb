"""Craps: hand-checked throws, every throw under every point against a reference, the house edge of every
bet solved exactly from the game's own throw-by-throw rules (an absorbing Markov chain over the 36 throws)
and compared with the published figures, and the point carried across rounds."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from itertools import product

import pytest

from recognition.dice_games import Craps, CrapsPointJudge, CrapsTableState
from recognition.dice_games._common import as_fraction
from recognition.game import Hold, Note, ResultReady, RoundSignal, Void

GAME = Craps()
POINTS = (4, 5, 6, 8, 9, 10)
STATES = (None,) + POINTS
THROWS = [list(t) for t in product(range(1, 7), repeat=2)]
AT = datetime(2026, 1, 1, tzinfo=UTC)


def throw(dice, point):
    return GAME.outcome({"dice": dice, "point": point})


def summary(out) -> dict[str, object]:
    """bet -> payout (won), "lost", ("returned", share), ("to", spot) or None (no action)."""
    s: dict[str, object] = {b["bet"]: b["payout"] for b in out["winning_bets"]}
    s.update({b["bet"]: "lost" for b in out["losing_bets"]})
    s.update({b["bet"]: ("returned", b["returned"]) for b in out["returned_bets"]})
    s.update({b["bet"]: ("to", b["to"]) for b in out["moved_bets"]})
    s.update({b: None for b in out["no_action_bets"]})
    return s


# --- hand-checked throws ---------------------------------------------------------------------


def test_come_out_seven():
    out = throw([3, 4], None)
    s = summary(out)
    assert (
        out["roll"] == "come_out" and out["new_point"] is None and out["total"] == 7 and out["hard"] is False
    )
    assert s["pass_line"] == 1 and s["dont_pass"] == "lost" and s["any_seven"] == 4 and s["field"] == "lost"
    assert s["come"] == 1 and s["dont_come"] == "lost"
    assert all(s[f"come:{n}"] == "lost" for n in POINTS)  # flat come points always work
    assert all(s[f"dont_come:{n}"] == 1 for n in POINTS)
    assert all(s[f"take_odds:{n}"] == ("returned", 1) for n in POINTS)  # come odds are off on the come-out
    assert s["lay_odds:4"] == "1/2" and s["lay_odds:5"] == "2/3" and s["lay_odds:6"] == "5/6"
    assert all(s[f"place_win:{n}"] is None for n in POINTS)  # off on the come-out
    assert s["place_lose:4"] == "5/11" and s["place_lose:9"] == "5/8" and s["place_lose:8"] == "4/5"
    assert all(s[f"hardway:{n}"] is None for n in (4, 6, 8, 10))  # off on the come-out


def test_come_out_eleven_and_the_craps_numbers():
    s = summary(throw([5, 6], None))
    assert s["pass_line"] == 1 and s["dont_pass"] == "lost" and s["eleven"] == 15 and s["c_and_e"] == 7
    assert s["field"] == 1 and s["any_craps"] == "lost"
    s = summary(throw([1, 1], None))
    assert s["pass_line"] == "lost" and s["dont_pass"] == 1 and s["craps_2"] == 30 and s["any_craps"] == 7
    assert s["c_and_e"] == 3 and s["field"] == 2 and s["dont_come"] == 1 and s["come"] == "lost"
    s = summary(throw([1, 2], None))
    assert s["dont_pass"] == 1 and s["craps_3"] == 15 and s["field"] == 1 and s["c_and_e"] == 3
    s = summary(throw([6, 6], None))
    assert (
        s["pass_line"] == "lost" and s["dont_pass"] == ("returned", 1) and s["dont_come"] == ("returned", 1)
    )
    assert s["craps_12"] == 30 and s["field"] == 2 and s["c_and_e"] == 3


def test_come_out_point_numbers_set_the_point_and_don_t_pass_stays():
    # the seed (L2791) says Don't Pass loses on 4-10 on the come-out; the standard rule (documented) keeps it
    for dice in ([1, 3], [2, 3], [2, 4], [3, 5], [4, 5], [4, 6]):
        out = throw(dice, None)
        s = summary(out)
        n = sum(dice)
        assert out["new_point"] == n
        assert s["pass_line"] is None and s["dont_pass"] is None
        assert s["come"] == ("to", f"come:{n}") and s["dont_come"] == ("to", f"dont_come:{n}")
        assert s[f"come:{n}"] == 1 and s[f"dont_come:{n}"] == "lost"
        assert s[f"take_odds:{n}"] == ("returned", 1) and s[f"lay_odds:{n}"] == "lost"
        assert s[f"place_win:{n}"] is None and s[f"place_lose:{n}"] == "lost"


def test_point_made_hard_and_easy():
    s = summary(throw([4, 4], 8))
    assert s["pass_line"] == 1 and s["dont_pass"] == "lost" and s["take_odds:8"] == "6/5"
    assert s["place_win:8"] == "7/6" and s["place_lose:8"] == "lost" and s["hardway:8"] == 9
    assert s["lay_odds:8"] == "lost" and s["come"] == ("to", "come:8")
    assert throw([4, 4], 8)["new_point"] is None
    s = summary(throw([3, 5], 8))
    assert s["pass_line"] == 1 and s["hardway:8"] == "lost"
    s = summary(throw([5, 5], 10))
    assert (
        s["pass_line"] == 1 and s["take_odds:10"] == 2 and s["place_win:10"] == "9/5" and s["hardway:10"] == 7
    )
    s = summary(throw([2, 3], 5))
    assert s["take_odds:5"] == "3/2" and s["place_win:5"] == "7/5" and s["field"] == "lost"


def test_seven_out():
    out = throw([6, 1], 6)
    s = summary(out)
    assert out["roll"] == "point" and out["new_point"] is None
    assert s["pass_line"] == "lost" and s["dont_pass"] == 1 and s["come"] == 1 and s["dont_come"] == "lost"
    assert all(s[f"take_odds:{n}"] == "lost" and s[f"place_win:{n}"] == "lost" for n in POINTS)
    assert all(s[f"place_lose:{n}"] != "lost" for n in POINTS)
    assert all(s[f"hardway:{n}"] == "lost" for n in (4, 6, 8, 10))


def test_other_numbers_during_a_point_leave_the_line_bets():
    out = throw([2, 4], 4)
    s = summary(out)
    assert out["new_point"] == 4
    assert s["pass_line"] is None and s["dont_pass"] is None and s["hardway:6"] == "lost"
    assert s["place_win:6"] == "7/6" and s["come:6"] == 1 and s["hardway:4"] is None
    s = summary(throw([6, 6], 5))
    assert s["pass_line"] is None and s["craps_12"] == 30 and s["dont_come"] == ("returned", 1)
    assert throw([6, 6], 5)["new_point"] == 5


def test_off_bets_can_be_turned_on():
    class WorkingCraps(Craps):
        off_on_come_out = frozenset()

    s = summary(WorkingCraps().outcome({"dice": [3, 3], "point": None}))
    assert s["hardway:6"] == 9 and s["place_win:6"] == "7/6" and s["take_odds:6"] == "6/5"
    s = summary(WorkingCraps().outcome({"dice": [3, 4], "point": None}))
    assert s["hardway:6"] == "lost" and s["place_win:6"] == "lost" and s["take_odds:6"] == "lost"


# --- every throw under every point, against a reference --------------------------------------


def reference(dice, point) -> dict[str, object]:
    t, hard = sum(dice), dice[0] == dice[1]
    r: dict[str, object] = {}
    field = {2: 2, 12: 2, 3: 1, 4: 1, 9: 1, 10: 1, 11: 1}
    r["field"] = field.get(t, "lost")
    r["any_seven"] = 4 if t == 7 else "lost"
    r["any_craps"] = 7 if t in (2, 3, 12) else "lost"
    r["craps_2"] = 30 if t == 2 else "lost"
    r["craps_3"] = 15 if t == 3 else "lost"
    r["craps_12"] = 30 if t == 12 else "lost"
    r["eleven"] = 15 if t == 11 else "lost"
    r["c_and_e"] = 3 if t in (2, 3, 12) else 7 if t == 11 else "lost"
    if point is None:
        r["pass_line"] = 1 if t in (7, 11) else "lost" if t in (2, 3, 12) else None
        r["dont_pass"] = (
            1 if t in (2, 3) else ("returned", 1) if t == 12 else "lost" if t in (7, 11) else None
        )
    else:
        r["pass_line"] = 1 if t == point else "lost" if t == 7 else None
        r["dont_pass"] = 1 if t == 7 else "lost" if t == point else None
    r["come"] = 1 if t in (7, 11) else "lost" if t in (2, 3, 12) else ("to", f"come:{t}")
    r["dont_come"] = (
        1
        if t in (2, 3)
        else ("returned", 1)
        if t == 12
        else "lost"
        if t in (7, 11)
        else ("to", f"dont_come:{t}")
    )
    odds = {4: "2", 10: "2", 5: "3/2", 9: "3/2", 6: "6/5", 8: "6/5"}
    lay = {4: "1/2", 10: "1/2", 5: "2/3", 9: "2/3", 6: "5/6", 8: "5/6"}
    place = {4: "9/5", 10: "9/5", 5: "7/5", 9: "7/5", 6: "7/6", 8: "7/6"}
    place_lose = {4: "5/11", 10: "5/11", 5: "5/8", 9: "5/8", 6: "4/5", 8: "4/5"}
    on = point is not None
    for n in POINTS:
        r[f"come:{n}"] = 1 if t == n else "lost" if t == 7 else None
        r[f"dont_come:{n}"] = 1 if t == 7 else "lost" if t == n else None
        if t in (n, 7):
            r[f"take_odds:{n}"] = (odds[n] if t == n else "lost") if on else ("returned", 1)
            r[f"place_win:{n}"] = (place[n] if t == n else "lost") if on else None
        else:
            r[f"take_odds:{n}"] = r[f"place_win:{n}"] = None
        r[f"lay_odds:{n}"] = lay[n] if t == 7 else "lost" if t == n else None
        r[f"place_lose:{n}"] = place_lose[n] if t == 7 else "lost" if t == n else None
    for n in (4, 6, 8, 10):
        if not on:
            r[f"hardway:{n}"] = None
        elif t == n and hard:
            r[f"hardway:{n}"] = 7 if n in (4, 10) else 9
        elif t in (n, 7):
            r[f"hardway:{n}"] = "lost"
        else:
            r[f"hardway:{n}"] = None
    return r


def normalise(s: dict[str, object]) -> dict[str, object]:
    return {k: (str(v) if isinstance(v, int) and not isinstance(v, bool) else v) for k, v in s.items()}


def test_every_throw_under_every_point_matches_the_reference():
    for point in STATES:
        for dice in THROWS:
            assert normalise(summary(throw(dice, point))) == normalise(reference(dice, point)), (dice, point)


def test_every_spot_is_in_exactly_one_list():
    ids = [s.id for s in GAME.spots]
    assert len(ids) == 52
    for point in STATES:
        for dice in THROWS:
            out = throw(dice, point)
            listed = [
                b["bet"]
                for k in ("winning_bets", "losing_bets", "returned_bets", "moved_bets")
                for b in out[k]
            ] + out["no_action_bets"]
            assert sorted(listed) == sorted(ids), (dice, point)


def test_the_order_of_the_dice_never_matters():
    for point in STATES:
        for a, b in THROWS:
            assert throw([a, b], point) == throw([b, a], point)


# --- house edges: an absorbing Markov chain over (bet spot, table point), solved exactly ---------


def solve(start: tuple[str, int | None]) -> Fraction:
    """Expected net return of 1 unit on a spot until it is decided, from the game's own outcome()."""
    todo = [start]
    equations: dict[tuple[str, int | None], tuple[dict, Fraction]] = {}
    while todo:
        state = todo.pop()
        if state in equations:
            continue
        spot, point = state
        coeffs: dict[tuple[str, int | None], Fraction] = {}
        const = Fraction(0)
        p = Fraction(1, 36)
        for dice in THROWS:
            out = throw(dice, point)
            nxt = out["new_point"]
            s = summary(out)[spot]
            if s == "lost":
                const -= p
            elif isinstance(s, tuple) and s[0] == "returned":
                const += p * (as_fraction(s[1]) - 1)
            elif isinstance(s, tuple) and s[0] == "to":
                coeffs[(s[1], nxt)] = coeffs.get((s[1], nxt), 0) + p
                todo.append((s[1], nxt))
            elif s is None:
                coeffs[(spot, nxt)] = coeffs.get((spot, nxt), 0) + p
                todo.append((spot, nxt))
            else:
                const += p * as_fraction(s)
        equations[state] = (coeffs, const)
    states = list(equations)
    pos = {s: i for i, s in enumerate(states)}
    n = len(states)
    # V = C V + d  ->  (I - C) V = d
    matrix = [[Fraction(int(i == j)) for j in range(n)] + [Fraction(0)] for i in range(n)]
    for s, (coeffs, const) in equations.items():
        i = pos[s]
        for t, c in coeffs.items():
            matrix[i][pos[t]] -= c
        matrix[i][n] = const
    for col in range(n):
        pivot = next(r for r in range(col, n) if matrix[r][col] != 0)
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        lead = matrix[col][col]
        matrix[col] = [v / lead for v in matrix[col]]
        for r in range(n):
            if r != col and matrix[r][col] != 0:
                f = matrix[r][col]
                matrix[r] = [a - f * b for a, b in zip(matrix[r], matrix[col])]
    return matrix[pos[start]][n]


def edge(spot: str, point: int | None) -> str:
    return f"{float(-solve((spot, point)) * 100):.2f}"


# Wizard of Odds, "Craps" (house edge per bet resolved, percent, as published)
PUBLISHED_MULTI = [
    ("pass_line", None, "1.41"),
    ("dont_pass", None, "1.36"),
    *[("come", p, "1.41") for p in POINTS],
    *[("dont_come", p, "1.36") for p in POINTS],
    *[(f"take_odds:{n}", n, "0.00") for n in POINTS],
    *[(f"lay_odds:{n}", n, "0.00") for n in POINTS],
    *[(f"take_odds:{n}", None, "0.00") for n in POINTS],
    ("place_win:4", 6, "6.67"),
    ("place_win:10", None, "6.67"),
    ("place_win:5", 8, "4.00"),
    ("place_win:9", 9, "4.00"),
    ("place_win:6", None, "1.52"),
    ("place_win:8", 4, "1.52"),
    ("place_lose:4", None, "3.03"),
    ("place_lose:10", 5, "3.03"),
    ("place_lose:5", 6, "2.50"),
    ("place_lose:9", None, "2.50"),
    ("place_lose:6", 8, "1.82"),
    ("place_lose:8", None, "1.82"),
    ("hardway:4", 4, "11.11"),
    ("hardway:10", None, "11.11"),
    ("hardway:6", 8, "9.09"),
    ("hardway:8", None, "9.09"),
]
PUBLISHED_ONE_ROLL = {
    "field": "5.56",
    "any_seven": "16.67",
    "any_craps": "11.11",
    "craps_2": "13.89",
    "craps_3": "11.11",
    "craps_12": "13.89",
    "eleven": "11.11",
    "c_and_e": "11.11",
}


@pytest.mark.parametrize("spot, point, published", PUBLISHED_MULTI)
def test_multi_roll_house_edges_match_the_published_figures(spot, point, published):
    assert edge(spot, point) == published


@pytest.mark.parametrize("spot, published", sorted(PUBLISHED_ONE_ROLL.items()))
def test_one_roll_house_edges_match_the_published_figures(spot, published):
    for point in STATES:
        assert edge(spot, point) == published


def test_exact_line_bet_edges():
    assert solve(("pass_line", None)) == Fraction(-7, 495)
    assert solve(("dont_pass", None)) == Fraction(-3, 220)
    assert solve(("come", 6)) == Fraction(-7, 495)
    assert solve(("dont_come", 9)) == Fraction(-3, 220)


# --- the point across rounds ---------------------------------------------------------------------


def test_next_point_over_every_throw():
    for point in STATES:
        for dice in THROWS:
            t = sum(dice)
            expected = (t if t in POINTS else None) if point is None else (None if t in (7, point) else point)
            assert CrapsTableState.next_point(point, dice) == expected
            assert throw(dice, point)["new_point"] == expected
    assert CrapsTableState.next_point("6", ["1", 4]) == 6
    assert CrapsTableState.next_point("6", ["3", 4]) is None
    with pytest.raises(ValueError):
        CrapsTableState.next_point(7, [1, 2])
    with pytest.raises(ValueError):
        CrapsTableState.next_point(None, [1, 2, 3])
    with pytest.raises(ValueError):
        CrapsTableState(point=11)
    assert CrapsTableState("6") == CrapsTableState(6) and CrapsTableState("6").point == 6


def test_a_shooter_s_hand_carried_round_by_round():
    state = CrapsTableState()
    history = []
    for dice in ([3, 4], [2, 2], [5, 6], [3, 3], [1, 3], [2, 5], [6, 6], [4, 5], [4, 5]):
        out = GAME.outcome({"dice": dice, "point": state.point})
        history.append(out)
        state = state.after(dice)
        assert state.point == out["new_point"]
    assert [o["point"] for o in history] == [None, None, 4, 4, 4, None, None, None, 9]
    assert state.point is None and state.puck == "off"
    assert CrapsTableState.replay(history) == state
    assert CrapsTableState.replay(history[:3]) == CrapsTableState(4)
    assert CrapsTableState(4).puck == "on"
    with pytest.raises(ValueError, match="throw 2"):
        CrapsTableState.replay([history[0], history[2]])
    broken = dict(history[1], new_point=5)
    with pytest.raises(ValueError, match="new point"):
        CrapsTableState.replay([history[0], broken])


class ScriptedJudge:
    """The inner dice judge: hands over the decisions it is given, one list per fed event."""

    def __init__(self, script):
        self.script = list(script)
        self.fed = []

    def feed(self, event):
        self.fed.append(event)
        return self.script.pop(0) if self.script else []


def signal(kind: str, n: int) -> RoundSignal:
    return RoundSignal(signal=kind, round_number=n, at=AT)


def result(dice, **more) -> ResultReady:
    return ResultReady(result={"dice": dice, **more}, source={"camera": "cam-1"})


def test_the_point_judge_adds_the_point_and_moves_it_when_the_round_ends():
    inner = ScriptedJudge(
        [
            [],
            [],
            [result([2, 2])],
            [],  # round 1: come-out 4
            [],
            [],
            [result([1, 5])],
            [],  # round 2: 6, point stays 4
            [],
            [],
            [result([3, 4])],
            [],  # round 3: seven out
        ]
    )
    judge = CrapsPointJudge(inner)
    seen = []
    for n in (1, 2, 3):
        for event in (
            signal("round_opened", n),
            signal("betting_closed", n),
            "throw",
            signal("round_ended", n),
        ):
            for d in judge.feed(event):
                if isinstance(d, ResultReady):
                    seen.append(d.result)
                    assert d.source == {"camera": "cam-1"}
                    GAME.validate_result(d.result)
    assert [r["point"] for r in seen] == [None, 4, 4]
    assert judge.point is None
    assert len(inner.fed) == 12, "every event reaches the inner judge"


def test_the_point_judge_does_not_move_the_point_on_a_void_or_without_a_result():
    inner = ScriptedJudge(
        [
            [],
            [result([3, 3])],
            [Void(code="dice_cocked", message="a die is cocked")],
            [],
            [],
            [Note(code="n", message="nothing")],
            [],
        ]
    )
    judge = CrapsPointJudge(inner)
    for event in (
        signal("round_opened", 1),
        "throw",
        "recheck",
        signal("round_ended", 1),
        signal("round_opened", 2),
        "noise",
        signal("round_ended", 2),
    ):
        judge.feed(event)
    assert judge.point is None


def test_the_point_judge_holds_when_the_dice_judge_disagrees_on_the_point():
    judge = CrapsPointJudge(
        ScriptedJudge([[result([1, 2], point=6)], [result([1, 2], point="x")], [result([1, 2], point=None)]])
    )
    first = judge.feed("a")[0]
    assert isinstance(first, Hold) and first.code == "craps_point_mismatch"
    assert isinstance(judge.feed("b")[0], Hold)
    agreed = judge.feed("c")[0]
    assert isinstance(agreed, ResultReady) and agreed.result["point"] is None


def test_the_point_judge_can_be_corrected_from_certified_outcomes():
    judge = CrapsPointJudge(ScriptedJudge([[result([6, 6, 6])]]), CrapsTableState(8))
    bad = judge.feed("a")[0]
    assert isinstance(bad, ResultReady) and bad.result["point"] == 8  # the table refuses the dice and holds
    with pytest.raises(ValueError):
        GAME.validate_result(bad.result)
    judge.feed(signal("round_ended", 1))
    assert judge.point == 8
    judge.certified(throw([2, 3], 8))
    assert judge.point == 8
    judge.certified(throw([2, 6], 8))
    assert judge.point is None
    with pytest.raises(ValueError, match="not a craps outcome"):
        CrapsTableState.replay([{"dice": [1, 2]}])
    assert judge.inner.fed == ["a", signal("round_ended", 1)], "every event reaches the dice judge"
    judge.set_point("10")
    assert judge.point == 10
    with pytest.raises(ValueError):
        judge.set_point(12)


def test_point_follows_the_tables_word_on_how_rounds_ended():
    """The table's round_ended signal (certified outcome or void) moves the point; a restart restores it."""
    from datetime import datetime

    from recognition.dice_games.craps import CrapsPointJudge
    from recognition.game import RoundSignal

    class Inner:
        def feed(self, event):
            return []

    at = datetime(2026, 11, 29, tzinfo=UTC)
    judge = CrapsPointJudge(Inner())
    assert judge.point is None
    judge.feed(
        RoundSignal(
            signal="round_ended",
            round_number=7,
            at=at,
            final_state="certified",
            result={"dice": [2, 4], "point": None},
            outcome={"new_point": 6},
        )
    )
    assert judge.point == 6
    judge.feed(RoundSignal(signal="round_ended", round_number=8, at=at, final_state="voided"))
    assert judge.point == 6
    judge.feed(
        RoundSignal(
            signal="round_ended",
            round_number=9,
            at=at,
            final_state="certified",
            result={"dice": [3, 4], "point": 6},
            outcome={"new_point": None},
        )
    )
    assert judge.point is None


def test_the_point_judge_declares_what_the_studio_asks_of_a_dice_camera_judge():
    """The dice camera's console page and calibration (studio.dice_camera) take the craps table's judge as
    they take a dice judge: by the members it declares, not by delegating whatever is asked."""
    from recognition.dice.judge import DiceJudge
    from studio.dice_camera import DiceCameraJudge

    judge = GAME.new_judge()
    assert isinstance(judge.inner, DiceJudge) and isinstance(judge, DiceCameraJudge)
    assert (judge.dice, judge.colors, judge.evidence_ids) == (2, judge.inner.colors, [])
    assert judge.calibration_for("t/camera") is judge.inner.calibration_for("t/camera")
    assert judge.evidence("none") is None
    assert judge.prepare("not a frame") == "not a frame"
    assert judge.status is None  # the dice judge shows the dealer nothing
    with pytest.raises(AttributeError):
        judge.stable_frames  # noqa: B018  # nothing but what it declares
