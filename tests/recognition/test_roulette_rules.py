"""Roulette rules against a layout built independently of recognition/roulette.py.

The reference layout here comes from the seed's column lists (seed 000 L108) and
from geometry: each number is a unit square, 0 is a bar above the first row,
and an inside chip placed where two, three or four squares meet covers exactly
those squares (split, trio, corner). Streets, six lines and the first four are
rows. Nothing below reuses the module's own arithmetic.
"""

from __future__ import annotations

import ast
import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from recognition.roulette import (
    AMERICAN,
    EUROPEAN,
    AmericanRoulette,
    EuropeanRoulette,
    LaPartageRoulette,
)
from recognition.wheel_judge import WheelJudge

RULES = EuropeanRoulette()

# --- the reference layout ---------------------------------------------------------------

SEED_COLUMNS = (  # seed 000 L108, verbatim
    "1,4,7,10,13,16,19,22,25,28,31,34",
    "2,5,8,11,14,17,20,23,26,29,32,35",
    "3,6,9,12,15,18,21,24,27,30,33,36",
)
COLUMNS = [[int(n) for n in col.split(",")] for col in SEED_COLUMNS]
GRID = [[COLUMNS[c][r] for c in range(3)] for r in range(12)]  # GRID[row][col]; row 0 = 1, 2, 3
RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}

# seed 000 L102-111: net odds to 1 ("multiplied by 35 times" ... "tripled" = 2:1, "doubled" = 1:1)
SEED_PAYOUT = {
    "straight": 35,
    "split": 17,
    "street": 11,
    "corner": 8,
    "six_line": 5,
    "dozen": 2,
    "column": 2,
    "even_money": 1,
}


def _cells() -> dict[str, tuple[float, float, float, float]]:
    """Each pocket's rectangle (x0, y0, x1, y1) on the layout; x is the column, y the row."""
    cells = {str(GRID[r][c]): (c, r, c + 1, r + 1) for r in range(12) for c in range(3)}
    cells["0"] = (0, -1, 3, 0)
    return cells


def reference_spots() -> set[tuple[str, frozenset[str]]]:
    cells = _cells()
    spots: set[tuple[str, frozenset[str]]] = {("straight", frozenset({p})) for p in cells}
    by_size = {2: "split", 3: "street", 4: "corner"}  # a chip touching 3 squares is a trio (paid as a street)
    for x2 in range(7):  # chip positions on a half-unit lattice
        for y2 in range(-2, 25):
            x, y = x2 / 2, y2 / 2
            covered = frozenset(p for p, (x0, y0, x1, y1) in cells.items() if x0 <= x <= x1 and y0 <= y <= y1)
            if len(covered) in by_size and not (x2 % 2 and y2 % 2):
                # a chip on an edge between the same two squares is the same split wherever it sits
                spots.add((by_size[len(covered)], covered))
    rows = [frozenset(str(n) for n in row) for row in GRID]
    spots |= {("street", row) for row in rows}
    spots |= {("six_line", a | b) for a, b in itertools.pairwise(rows)}
    spots.add(("corner", rows[0] | {"0"}))  # first four
    spots |= {("dozen", frozenset(str(n) for n in range(lo, lo + 12))) for lo in (1, 13, 25)}  # seed L107
    spots |= {("column", frozenset(str(n) for n in col)) for col in COLUMNS}
    even_money = [
        range(1, 19),
        range(19, 37),
        RED,
        set(range(1, 37)) - RED,
        [n for n in range(1, 37) if n % 2],
        [n for n in range(1, 37) if n % 2 == 0],
    ]
    spots |= {("even_money", frozenset(str(n) for n in ns)) for ns in even_money}
    return spots


REFERENCE = reference_spots()


def key(spot) -> tuple[str, frozenset[str]]:
    return (spot.type, frozenset(spot.numbers))


# --- the spots -------------------------------------------------------------------------------


def test_the_reference_layout_has_the_known_european_totals():
    # guards the reference itself: a wrong reference would make the comparisons below meaningless
    assert Counter(t for t, _ in REFERENCE) == {
        "straight": 37,
        "split": 60,
        "street": 14,
        "corner": 23,
        "six_line": 11,
        "dozen": 3,
        "column": 3,
        "even_money": 6,
    }


def test_spot_counts_per_type():
    counts = Counter(s.type for s in RULES.spots)
    assert counts == {
        "straight": 37,
        "split": 60,
        "street": 14,
        "corner": 23,
        "six_line": 11,
        "dozen": 3,
        "column": 3,
        "even_money": 6,
    }
    assert len(RULES.spots) == 157


def test_spots_are_exactly_the_reference_layout():
    keys = [key(s) for s in RULES.spots]
    assert len(keys) == len(set(keys)), "a bet spot is listed twice"
    assert set(keys) == REFERENCE


def test_zero_spots():
    zero = {s.id for s in RULES.spots if "0" in s.numbers}
    assert zero == {
        "straight:0",
        "split:0-1",
        "split:0-2",
        "split:0-3",
        "street:0-1-2",
        "street:0-2-3",
        "corner:0-1-2-3",
    }


def test_payouts_are_the_seed_table():
    for s in RULES.spots:
        assert s.payout == SEED_PAYOUT[s.type], s


def test_spot_ids_are_unique_stable_and_name_their_numbers():
    ids = [s.id for s in RULES.spots]
    assert len(ids) == len(set(ids))
    for s in RULES.spots:
        if s.type in ("straight", "split", "street", "corner", "six_line"):
            assert s.id == f"{s.type}:" + "-".join(s.numbers)
            assert list(s.numbers) == sorted(s.numbers, key=int)
    for spot_id, numbers in {
        "straight:17": ["17"],
        "split:17-20": ["17", "20"],
        "split:0-1": ["0", "1"],
        "street:34-35-36": ["34", "35", "36"],
        "street:0-2-3": ["0", "2", "3"],
        "corner:0-1-2-3": ["0", "1", "2", "3"],
        "corner:32-33-35-36": ["32", "33", "35", "36"],
        "six_line:31-32-33-34-35-36": ["31", "32", "33", "34", "35", "36"],
        "dozen:3": [str(n) for n in range(25, 37)],
        "column:1": SEED_COLUMNS[0].split(","),
        "low": [str(n) for n in range(1, 19)],
        "even": [str(n) for n in range(2, 37, 2)],
    }.items():
        assert list(RULES.spot(spot_id).numbers) == numbers
    with pytest.raises(ValueError, match="not a bet spot"):
        RULES.spot("split:1-5")
    # the order of the list is part of the contract (winning bets are sorted the same way)
    assert ids[:3] == ["straight:0", "straight:1", "straight:2"]
    assert ids[-6:] == ["low", "high", "red", "black", "odd", "even"]
    assert EuropeanRoulette().spots == RULES.spots


# --- outcomes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(37))
def test_winning_spots_of_every_number(n):
    number = str(n)
    out = RULES.outcome({"number": number})
    won = out["winning_bets"]
    expected = {k for k in REFERENCE if number in k[1]}  # the reference inverted: every spot covering n
    assert {(w["type"], frozenset(w["numbers"])) for w in won} == expected
    assert len(won) == len(expected)
    by_id = {s.id: s for s in RULES.spots}
    for w in won:
        assert set(w) == {"bet", "type", "numbers", "payout"}
        spot = by_id[w["bet"]]
        assert (w["type"], w["numbers"], w["payout"]) == (
            spot.type,
            list(spot.numbers),
            SEED_PAYOUT[spot.type],
        )
    # sorted stably: the order of the spot list
    assert [w["bet"] for w in won] == [s.id for s in RULES.spots if number in s.numbers]
    assert out["number"] == number
    assert out["color"] == ("green" if n == 0 else "red" if n in RED else "black")
    if n:
        assert Counter(w["type"] for w in won)["even_money"] == 3
        assert sum(w["type"] in ("dozen", "column") for w in won) == 2


def test_known_outcome_of_17():
    won = [w["bet"] for w in RULES.outcome({"number": 17})["winning_bets"]]
    assert won == [
        "straight:17",
        "split:14-17",
        "split:16-17",
        "split:17-18",
        "split:17-20",
        "street:16-17-18",
        "corner:13-14-16-17",
        "corner:14-15-17-18",
        "corner:16-17-19-20",
        "corner:17-18-20-21",
        "six_line:13-14-15-16-17-18",
        "six_line:16-17-18-19-20-21",
        "dozen:2",
        "column:2",
        "low",
        "black",
        "odd",
    ]


def test_zero_loses_every_even_money_bet_and_every_outside_bet():
    out = RULES.outcome({"number": "0"})
    assert out["color"] == "green"
    assert [w["bet"] for w in out["winning_bets"]] == [
        "straight:0",
        "split:0-1",
        "split:0-2",
        "split:0-3",
        "street:0-1-2",
        "street:0-2-3",
        "corner:0-1-2-3",
    ]
    assert "half_back_bets" not in out  # no la partage on the standard European game


def test_outcome_keys_and_determinism():
    out = RULES.outcome({"number": "36"})
    assert set(out) == {"number", "color", "winning_bets"}
    assert out == RULES.outcome({"number": 36}) == EuropeanRoulette().outcome({"number": "36"})


def test_every_bet_type_returns_36_of_37():
    # each spot on its own ...
    for s in RULES.spots:
        assert Fraction(s.payout + 1) * len(s.numbers) / 37 == Fraction(36, 37), s
    # ... and by playing every number through outcome(): one unit on every spot of a type
    returned: Counter[str] = Counter()
    for n in range(37):
        for w in RULES.outcome({"number": n})["winning_bets"]:
            returned[w["type"]] += w["payout"] + 1
    count = Counter(s.type for s in RULES.spots)
    for t in count:
        assert Fraction(returned[t], 37 * count[t]) == Fraction(36, 37), t
    # the house edge of single-zero roulette: 1/37 on every bet
    total_staked = 37 * len(RULES.spots)
    assert 1 - Fraction(sum(returned.values()), total_staked) == Fraction(1, 37)


# --- results ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given, number, color",
    [
        ({"number": "17"}, "17", "black"),
        ({"number": 17}, "17", "black"),
        ({"number": "0"}, "0", "green"),
        ({"number": 0}, "0", "green"),
        ({"number": "32"}, "32", "red"),
        ({"number": 36}, "36", "red"),
        ({"number": "10", "color": "black"}, "10", "black"),
        ({"number": "5", "game_counter": 14}, "5", "red"),  # the judge's extra keys are dropped
    ],
)
def test_validate_result_canonical_form(given, number, color):
    assert RULES.validate_result(given) == {"number": number, "color": color}


@pytest.mark.parametrize(
    "given, message",
    [
        ({"number": "00"}, r"'00' is not a pocket of the European single-zero wheel"),
        ({"number": "000"}, r"'000' is not a pocket"),
        ({"number": 37}, r"37 is not a pocket"),
        ({"number": -1}, r"-1 is not a pocket"),
        ({"number": "37"}, r"'37' is not a pocket"),
        ({"number": "07"}, r"'07' is not a pocket label; write '7'"),
        ({"number": " 6"}, r"' 6' is not a pocket label; write '6'"),
        ({"number": ""}, r"'' is not a pocket"),
        ({"number": "red"}, r"'red' is not a pocket"),
        ({"number": True}, r"pocket label .* not bool"),
        ({"number": None}, r"pocket label .* not NoneType"),
        ({"number": 17.0}, r"pocket label .* not float"),
        ({"number": "17", "color": "red"}, r"pocket 17 is black, not 'red'"),
        ({"number": "0", "color": "black"}, r"pocket 0 is green"),
        ({}, r"needs a 'number'"),
        ({"result": "17"}, r"needs a 'number'"),
        (["17"], r"is a dict"),
        ("17", r"is a dict"),
    ],
)
def test_validate_result_errors(given, message):
    with pytest.raises(ValueError, match=message):
        RULES.validate_result(given)
    with pytest.raises(ValueError):
        RULES.outcome(given)


def test_colours():
    colours = Counter(RULES.validate_result({"number": n})["color"] for n in range(37))
    assert colours == {"red": 18, "black": 18, "green": 1}
    assert {n for n in range(37) if RULES.validate_result({"number": n})["color"] == "red"} == RED


@pytest.mark.parametrize("wheel", [EUROPEAN, AMERICAN], ids=["european", "american"])
def test_wheel_order(wheel):
    assert sorted(wheel.order) == sorted(wheel.pockets)
    assert wheel.order[0] == "0"
    # red and black alternate all around the wheel, the zeros aside
    colours = [wheel.color(p) for p in wheel.order if p not in wheel.zeros]
    if wheel is AMERICAN:
        i = wheel.order.index("00")
        assert i == len(wheel.order) // 2  # 00 opposite 0
        runs = [colours[: i - 1], colours[i - 1 :]]
    else:
        runs = [colours]
    for run in runs:
        assert all(a != b for a, b in itertools.pairwise(run))


# --- the game contract ----------------------------------------------------------------------------


def test_game_contract():
    assert RULES.game_id == "european_roulette"
    assert RULES.device_kinds == (
        "roulette-wheel",
        "roulette-camera",
    )  # any wheel driver, and optionally an overhead camera
    judge = RULES.new_judge().wheel  # the table judge (revolution check) wraps the wheel judge
    assert isinstance(judge, WheelJudge)
    assert judge.pockets == frozenset(EUROPEAN.pockets)
    tuned = RULES.new_judge(no_ball_tolerance_s=7, launch_tolerance_s=2.5).wheel
    assert tuned.no_ball_tolerance.total_seconds() == 7
    assert tuned.launch_tolerance.total_seconds() == 2.5
    with pytest.raises(TypeError):
        RULES.new_judge(no_ball_tolerence_s=7)  # a misspelt setting is an error, not ignored
    with pytest.raises(ValueError):
        RULES.new_judge(no_ball_tolerance_s=-1)


def test_recognition_modules_are_pure():
    allowed = {
        "__future__",
        "collections",
        "collections.abc",
        "dataclasses",
        "datetime",
        "fractions",
        "functools",
        "random",
        "re",
        "typing",
        "devices.events",
        "devices.overhead_camera.events",
        "recognition",
        "recognition.game",
        "recognition.evaluate_draws",  # studio evaluate's fast path: text in, text out
        "recognition.evaluate_fast",
        "recognition.wheel_judge",
        "recognition.roulette",
        "recognition.roulette_variants.table_judge",
        "spin_validity",
        "table_judge",
    }
    root = Path(__file__).resolve().parents[2] / "recognition"
    for name in (
        "roulette.py",
        "wheel_judge.py",
        "roulette_variants/__init__.py",
        "roulette_variants/table_judge.py",
        "roulette_variants/spin_validity.py",
        "roulette_variants/lightning.py",
        "roulette_variants/double_ball.py",
    ):
        tree = ast.parse((root / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            assert set(modules) <= allowed, f"{name} imports {modules}"
        for node in ast.walk(tree):  # no clock, no I/O
            if isinstance(node, ast.Call):
                f = node.func
                called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                assert called not in {
                    "now",
                    "utcnow",
                    "today",
                    "time",
                    "monotonic",
                    "open",
                    "print",
                    "input",
                }, f"{name} calls {called}() on line {node.lineno}"


# --- variants ------------------------------------------------------------------------------------------


def test_american_layout():
    rules = AmericanRoulette()
    counts = Counter(s.type for s in rules.spots)
    assert counts == {
        "straight": 38,
        "split": 62,
        "street": 15,
        "corner": 22,
        "five_bet": 1,
        "six_line": 11,
        "dozen": 3,
        "column": 3,
        "even_money": 6,
    }
    assert rules.spot("five_bet:0-00-1-2-3").payout == 6  # seed L183
    assert rules.validate_result({"number": "00"}) == {"number": "00", "color": "green"}
    assert rules.validate_result({"number": 0}) == {"number": "0", "color": "green"}  # 0 is never 00
    zero = [w["bet"] for w in rules.outcome({"number": "0"})["winning_bets"]]
    double_zero = [w["bet"] for w in rules.outcome({"number": "00"})["winning_bets"]]
    assert zero == [
        "straight:0",
        "split:0-00",
        "split:0-1",
        "split:0-2",
        "street:0-00-2",
        "street:0-1-2",
        "five_bet:0-00-1-2-3",
    ]
    assert double_zero == [
        "straight:00",
        "split:0-00",
        "split:00-2",
        "split:00-3",
        "street:0-00-2",
        "street:00-2-3",
        "five_bet:0-00-1-2-3",
    ]
    for n in ("1", "2", "3"):
        assert "five_bet:0-00-1-2-3" in [w["bet"] for w in rules.outcome({"number": n})["winning_bets"]]
    # the inside bets among 1..36 are the European ones
    assert {key(s) for s in rules.spots if not set(s.numbers) & {"0", "00"}} == {
        k for k in REFERENCE if "0" not in k[1]
    }
    # every bet returns 36/38, except the Five Bet at 35/38
    for s in rules.spots:
        expected = Fraction(35, 38) if s.type == "five_bet" else Fraction(36, 38)
        assert Fraction(s.payout + 1) * len(s.numbers) / 38 == expected, s
    assert rules.new_judge().wheel.pockets == frozenset(AMERICAN.pockets)


def test_la_partage_returns_half_of_even_money_on_zero():
    rules = LaPartageRoulette()
    zero = rules.outcome({"number": "0"})
    assert zero["winning_bets"] == RULES.outcome({"number": "0"})["winning_bets"]
    # exactly half, as a fraction string: feed messages carry no floats
    assert [(h["bet"], h["returned"]) for h in zero["half_back_bets"]] == [
        ("low", "1/2"),
        ("high", "1/2"),
        ("red", "1/2"),
        ("black", "1/2"),
        ("odd", "1/2"),
        ("even", "1/2"),
    ]
    assert not any(isinstance(h["returned"], float) for h in zero["half_back_bets"])
    seven = rules.outcome({"number": 7})
    assert seven["half_back_bets"] == []
    assert seven["winning_bets"] == RULES.outcome({"number": 7})["winning_bets"]
    # an even-money bet now returns 18 wins x 2 + a half on zero, over 37 numbers
    returned = sum(
        sum(2 for w in rules.outcome({"number": n})["winning_bets"] if w["bet"] == "red")
        + sum(
            Fraction(h["returned"])
            for h in rules.outcome({"number": n})["half_back_bets"]
            if h["bet"] == "red"
        )
        for n in range(37)
    )
    assert Fraction(returned) / 37 == Fraction(73, 74)
