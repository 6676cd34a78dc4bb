"""Pure spin analysis and calibration: runs with hysteresis, the validity rule, the segment under the pointer."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from recognition.money_wheel.calibration import Calibration, Layout, spread
from recognition.money_wheel.spin import PointerPath, Run, RunTracker, SpinRule, check_spin, fmt_turns

WOF = SpinRule(direction="clockwise", min_turns=F(3), counter_start=True, counter_min_turns=F(1, 20))


def runs_of(path: list[F], tol: F = F(1, 72)) -> list[Run]:
    t = RunTracker(F(0), tol)
    for x in path:
        t.feed(x)
    return t.runs()


def test_runs_follow_reversals_with_hysteresis():
    # swing back 0.12 turn, then 4.5 turns clockwise, then a flapper rocks it back 0.005 (below tolerance)
    path = (
        [F(-i, 100) for i in range(13)]
        + [F(-12, 100) + F(i, 10) for i in range(1, 46)]
        + [F(438, 100) - F(5, 1000)]
    )
    runs = runs_of(path)
    assert [r.direction for r in runs] == ["counterclockwise", "clockwise"]
    assert runs[0].turns == F(12, 100) and runs[1].turns == F(450, 100)
    # a reversal larger than the tolerance is a run of its own
    assert [r.direction for r in runs_of([F(0), F(1), F(1) - F(1, 50)])] == ["clockwise", "counterclockwise"]
    # jitter below the tolerance is no spin at all
    assert runs_of([F(1, 200), F(-1, 200), F(1, 100)]) == []


@pytest.mark.parametrize(
    "runs, ok, code",
    [
        (
            [Run("counterclockwise", F(1, 10)), Run("clockwise", F(3))],
            True,
            None,
        ),  # exactly 3 full turns counts
        ([Run("counterclockwise", F(1, 10)), Run("clockwise", F(299, 100))], False, "weak_spin"),
        ([Run("clockwise", F(5))], False, "no_counter_start"),
        (
            [Run("counterclockwise", F(1, 30)), Run("clockwise", F(5))],
            False,
            "no_counter_start",
        ),  # swing too small
        ([Run("clockwise", F(1, 10)), Run("counterclockwise", F(5))], False, "wrong_direction"),
        (
            [Run("counterclockwise", F(1, 10)), Run("clockwise", F(5)), Run("counterclockwise", F(1, 10))],
            False,
            "wrong_direction",
        ),
        ([], False, "weak_spin"),
    ],
)
def test_wheel_of_fortune_rule(runs, ok, code):
    check = check_spin(runs, WOF)
    assert check.ok is ok and check.code == code
    if not ok:
        assert check.message  # a plain sentence for the dealer and the feed


def test_other_games_rule_either_direction():
    rule = SpinRule(direction="either", min_turns=F(2))
    assert check_spin([Run("counterclockwise", F(2))], rule).ok
    assert check_spin([Run("clockwise", F(2))], rule).ok
    assert check_spin([Run("clockwise", F(19, 10))], rule).code == "weak_spin"


@pytest.mark.parametrize("counting", ["clockwise", "counterclockwise"])
@pytest.mark.parametrize("zero", [0, 1, 1000, 4095])
def test_segment_under_pointer_exhaustive(counting, zero):
    """Every position of a 4096-count encoder on a 54-segment wheel, both counting directions."""
    cpr, n = 4096, 54
    cal = Calibration(n, zero, counting)
    for position in range(cpr):
        idx, edge = cal.segment_at(position, cpr)
        # the wheel turned this far clockwise from zero; clockwise moves the pointer down the numbering
        cw = F(position - zero, cpr) * (1 if counting == "clockwise" else -1)
        u = (-cw * n) % n
        assert 0 <= edge <= F(1, 2)
        assert abs(((u - idx + F(n, 2)) % n) - F(n, 2)) == F(1, 2) - edge
    assert cal.segment_at(zero, cpr) == (0, F(1, 2))  # the zero mark is the centre of segment 0


def test_segment_boundaries_and_directions():
    cal = Calibration(4, 0, "clockwise")  # 4 segments, 100 counts per turn: 25 counts each
    # a quarter turn clockwise brings segment 3 (counterclockwise neighbour of 0) under the pointer
    assert cal.segment_at(25, 100) == (3, F(1, 2))
    assert cal.segment_at(75, 100) == (1, F(1, 2))
    # 12.5 counts is the boundary between 0 and 3: half a count each side decides
    assert cal.segment_at(12, 100)[0] == 0 and cal.segment_at(13, 100)[0] == 3
    assert cal.segment_at(12, 100)[1] == F(1, 50)
    ccw = Calibration(4, 0, "counterclockwise")
    assert ccw.segment_at(25, 100) == (1, F(1, 2))
    assert cal.with_zero_mark(25).segment_at(25, 100) == (0, F(1, 2))


def test_calibration_settings_are_checked():
    assert Calibration.from_settings(54, {"zero_offset": 7, "counting": "counterclockwise"}).sign == -1
    for bad in (
        {"zero_offset": -1},
        {"counting": "left"},
        {"zero": 1},
        {"counts_per_turn": 4},
        {"zero_offset": 5000, "counts_per_turn": 4096},
        {"segments": 19},
        "x",
    ):
        with pytest.raises(ValueError):
            Calibration.from_settings(54, bad)


def test_pointer_path_counts_turns_and_notices_missed_reads():
    p = PointerPath(54, 10, max_step=6)
    for i in range(1, 54 * 3 + 1):  # three turns clockwise: the index goes down
        p.see((10 - i) % 54)
    assert p.travel == 3 and p.broken is None
    p.see((p.index + 20) % 54)
    assert p.broken and "20 segments" in p.broken


def test_layout_and_spread():
    order = spread([("1", 23), ("2", 15), ("5", 7), ("10", 4), ("20", 2), ("40", 1), ("2x", 1), ("7x", 1)])
    assert len(order) == 54 and order.count("1") == 23 and order.count("7x") == 1
    assert all(
        a != b for a, b in itertools.pairwise(order) if a not in ("1", "2")
    )  # rare labels are not neighbours
    lay = Layout.build(["a", {"label": "b", "color": "red"}], {"a": "grey"})
    assert [(s.label, s.color) for s in lay.segments] == [("a", "grey"), ("b", "red")]
    with pytest.raises(ValueError):
        Layout.build([{"label": "a", "colour": "red"}, "b"])
    assert fmt_turns(F(1, 3)) == "0.33" and fmt_turns(F(-5, 4)) == "-1.25"
