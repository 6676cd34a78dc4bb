"""The Cammegh SS2 simulator against the spec (fixtures/protocols/cammegh-ss2.md) and the real capture.

The pure model is checked line by line with a small parser of our own; the threaded
runner over a real pty. A round trip through the real driver runs when the driver
module is importable.
"""

from __future__ import annotations

import collections
import itertools
import os
import random
import re
import select
import threading
import time
from dataclasses import dataclass
from datetime import UTC

import pytest
import serial
from fixture_files import ss2_capture
from waiting import WAIT_S

from simulators.cammegh_ss2 import (
    FAULTS,
    SS2Model,
    SS2Simulator,
    open_pty_pair,
    pocket_labels,
    ss2_pty,
    wire_number,
)

STATUS_RE = re.compile(r"^\*X;([1-7]);(\d{3});(  | \d|\d\d|000|0000);([0-9A-Fa-f]);(\d{3});([01])$")
WIN_RE = re.compile(r"^( \d|\d\d|000|0000)$")


# --------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class X:
    state: int
    spin: int
    number: str  # wire form, "  " when none
    flags: int
    speed: int
    direction: int


def parse(raw: bytes) -> X | str:
    """A status line as X, anything else as its text (terminator removed)."""
    assert raw.endswith(b"\r\n"), raw
    body = raw[:-2]
    assert b"\r" not in body and b"\n" not in body, raw
    text = body.decode("latin-1")
    m = STATUS_RE.match(text)
    if not m:
        return text
    return X(int(m[1]), int(m[2]), m[3], int(m[4], 16), int(m[5]), int(m[6]))


def run(model: SS2Model, ticks: int) -> list[X | str]:
    out: list[X | str] = []
    for _ in range(ticks):
        out += [parse(line) for line in model.tick()]
    return out


def run_until(model: SS2Model, predicate, limit: int = 5000) -> list[X | str]:
    """Tick until predicate(item) holds for an emitted item; return everything up to it."""
    out: list[X | str] = []
    for _ in range(limit):
        for line in model.tick():
            item = parse(line)
            out.append(item)
            if predicate(item):
                return out
    raise AssertionError(f"condition not reached in {limit} ticks; last: {out[-5:]}")


def is_state(state: int, **fields):
    return lambda i: (
        isinstance(i, X) and i.state == state and all(getattr(i, k) == v for k, v in fields.items())
    )


def run_games(model: SS2Model, games: int) -> list[X | str]:
    """Tick until `games` winning numbers were revealed and the next game began (5 -> 2, or 5 -> 1)."""
    out: list[X | str] = []
    seen = 0
    while True:
        for line in model.tick():
            item = parse(line)
            out.append(item)
            if isinstance(item, str) and WIN_RE.match(item):
                seen += 1
            elif (
                isinstance(item, X) and item.state in (1, 2) and seen == games and _last_state(out[:-1]) == 5
            ):
                return out
        assert len(out) < 200 * games + 500, "games do not finish"


def _last_state(items) -> int | None:
    for item in reversed(items):
        if isinstance(item, X):
            return item.state
    return None


def statuses(items) -> list[X]:
    return [i for i in items if isinstance(i, X)]


def runs(items) -> list[tuple[int, int, list[X]]]:
    """Consecutive status lines grouped by (state, spin)."""
    groups: list[tuple[int, int, list[X]]] = []
    for s in statuses(items):
        if groups and groups[-1][0] == s.state and groups[-1][1] == s.spin:
            groups[-1][2].append(s)
        else:
            groups.append((s.state, s.spin, [s]))
    return groups


def games(items) -> list[dict[int, list[X]]]:
    """Complete games (state 2 .. state 5) as {state: lines}."""
    out, current = [], None
    for state, _spin, lines in runs(items):
        if state == 2:
            current = {2: lines}
        elif current is not None:
            current[state] = lines
            if state == 5:
                out.append(current)
                current = None
    return out


def started(**kwargs) -> SS2Model:
    model = SS2Model(**kwargs)
    assert model.command("*P 1") == [b"*P OK\r\n"]
    return model


# --------------------------------------------------------------------------- format and shape


def test_opening_reproduces_the_capture_shape():
    model = SS2Model(seed=7, spin=11, last_result="34", echo_commands=True)
    assert model.command("*P 1") == [b"*P 1\r\n", b"*P OK\r\n"]  # capture L1-2
    items = run_until(model, is_state(3))
    first = items[0]
    assert isinstance(first, X) and (first.state, first.spin, first.number, first.flags) == (1, 11, "34", 0)
    assert 40 <= first.speed <= 70  # spins up from a low speed (057 in the capture)
    state1 = [s for s in statuses(items) if s.state == 1]
    assert 16 <= len(state1) <= 18
    assert all(140 - 6 <= s.speed <= 175 + 6 for s in state1[1:])
    assert all(s.spin == 11 for s in statuses(items))  # no +1 on 1 -> 2 after *P 1


def test_every_line_is_a_spec_line():
    model = started(seed=1)
    items = run_games(model, 25)
    assert items, "nothing sent"
    for item in items:
        if isinstance(item, str):
            assert WIN_RE.match(item), f"not a status or winning-number line: {item!r}"
    for line in SS2Model(seed=2).tick():
        assert STATUS_RE.match(line[:-2].decode()) and line.endswith(b"\r\n")


def mean_speed(lines: list[X]) -> float:
    return sum(s.speed for s in lines) / len(lines)


def check_game_shape(game: dict[int, list[X]]) -> None:
    """One complete game (states 2-5) against spec §8.1 / §9.32-34: the real capture passes it too."""
    assert 14 <= len(game[3]) <= 16
    assert 34 <= len(game[4]) <= 43
    assert 2 <= len(game[5]) <= 3
    assert all(s.flags == 0 for lines in game.values() for s in lines)
    lines = game[2]
    old_direction = lines[0].direction
    zero_at = next(i for i, s in enumerate(lines) if s.speed == 0)
    zeros = [s for s in lines if s.speed == 0]
    launch = lines[zero_at + len(zeros) :]
    braking = lines[:zero_at]
    # optional lines at the old speed, then braking about 25 units a report down to 000
    chain = len(braking) - 1
    while chain > 0 and braking[chain - 1].speed - braking[chain].speed >= (
        15 if chain < len(braking) - 1 else 1
    ):
        chain -= 1
    assert 1 <= chain + 1 <= 8  # lines at the old speed (the last one starts the braking)
    steps = [a.speed - b.speed for a, b in zip(braking[chain:], braking[chain + 1 :])]
    assert 4 <= len(steps) <= 9 and all(0 < d <= 36 for d in steps)
    assert 18 <= sum(steps[:-1]) / len(steps[:-1]) <= 32
    assert braking[-1].speed < 32
    # 3-4 reports of 000 in the old direction, all together
    assert 3 <= len(zeros) <= 4 and lines[zero_at : zero_at + len(zeros)] == zeros
    assert all(s.direction == old_direction for s in braking + zeros)
    # exactly two lines in the new direction (mode bit 1), then state 3 at the game speed
    assert len(launch) == 2
    assert all(s.direction != old_direction for s in launch)
    target = mean_speed(game[3])
    assert 37 <= launch[0].speed <= 80
    assert target - 36 <= launch[1].speed <= target + 6
    assert all(s.direction == launch[0].direction for s in game[3] + game[4] + game[5])
    # the game speed is drawn inside *T s (14.0-17.5 rpm), changed by up to *T m (1.5 rpm) at NMB
    assert 140 - 3 <= target <= 175 + 3
    assert abs(mean_speed(game[4]) - target) <= 15 + 3
    assert max(s.speed for s in game[3]) - min(s.speed for s in game[3]) <= 10  # small noise


def test_the_shape_checks_hold_on_the_real_capture():
    items = [parse(line + b"\r\n") for line in ss2_capture().split(b"\r\n")[:-1]]
    played = games(items)
    assert [g[5][0].number for g in played] == ["27", "16", " 6", " 3", "10", " 0"]
    for game in played:
        check_game_shape(game)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_games_have_the_capture_shape(seed):
    played = games(run_games(started(seed=seed), 30))
    assert len(played) == 30
    for game in played:
        check_game_shape(game)
    assert len({round(mean_speed(g[3])) for g in played}) > 5  # the speed is drawn per game


def test_speeds_follow_t_s_and_t_m():
    model = started(seed=5)
    assert model.command("*T s 10.0 11.0") == [b"T OK\r\n"]
    assert model.command("*T m 0.0") == [b"*T m 0.0\r\n"]
    for game in games(run_games(model, 6))[1:]:
        assert 100 - 3 <= mean_speed(game[3]) <= 110 + 3
        assert abs(mean_speed(game[4]) - mean_speed(game[3])) <= 2


def test_winning_line_sits_before_the_first_state5_line_with_the_same_spin():
    items = run_games(started(seed=6), 20)
    wins = [i for i, item in enumerate(items) if isinstance(item, str)]
    assert len(wins) == 20
    for i in wins:
        before, after = items[i - 1], items[i + 1]
        assert isinstance(before, X) and before.state == 4
        assert isinstance(after, X) and after.state == 5
        assert before.spin == after.spin
        assert after.number == items[i]  # field 4 already carries it
    # every 4 -> 5 has its winning line in between
    assert not any(
        isinstance(a, X) and isinstance(b, X) and (a.state, b.state) == (4, 5)
        for a, b in itertools.pairwise(items)
    )


def test_spin_number_goes_up_only_on_5_to_2():
    s = statuses(run_games(started(seed=8, spin=11), 12))
    for a, b in itertools.pairwise(s):
        if b.spin != a.spin:
            assert (a.state, b.state) == (5, 2) and b.spin == a.spin + 1
        elif (a.state, b.state) == (5, 2):
            raise AssertionError("5 -> 2 without a new spin number")
    assert s[0].spin == 11 and s[-1].spin == 23


def test_spin_number_wraps_256_to_1():
    model = started(seed=9, spin=255)
    s = statuses(run_games(model, 2))
    assert [k for k, _ in itertools.groupby(x.spin for x in s)] == [255, 256, 1]


def test_direction_alternates_every_game_with_mode_bit_1():
    played = games(run_games(started(seed=10), 8))
    dirs = [g[3][0].direction for g in played]
    assert all(a != b for a, b in itertools.pairwise(dirs))

    clockwise = games(run_games(started(seed=10, mode=4 + 128), 4))
    assert {s.direction for g in clockwise for lines in g.values() for s in lines} == {0}

    model = started(seed=10, mode=4 + 128)
    assert model.command("*T g 16") == [b"*T OK\r\n"]
    anti = games(run_games(model, 4))
    assert {g[3][0].direction for g in anti} == {1}  # *T g 16 without bit 1: every game anti-clockwise


def test_last_result_and_spin_survive_p0_p1():
    model = started(seed=11, spin=40)
    run_games(model, 2)
    spin, last = model.spin, model.last_result
    assert model.command("*P 0") == [b"*P OK\r\n"]
    run_until(model, is_state(6, speed=0))
    assert model.command("*P 1") == [b"*P OK\r\n"]
    items = run_until(model, is_state(3))
    first = statuses(items)[0]
    assert (first.state, first.spin, first.number) == (1, spin, wire_number(last))
    assert first.speed <= 70
    assert {s.spin for s in statuses(items)} == {spin}


def test_p0_during_state2_slows_in_state2_then_state6():
    """Fixture L443-462: *P 0 while braking in state 2."""
    model = SS2Model(seed=12, spin=16, last_result="0", echo_commands=True)
    model.command("*P 1")
    run_games(model, 1)
    items = run_until(model, lambda i: isinstance(i, X) and i.state == 2 and 120 <= i.speed <= 145)
    braking_at = items[-1].speed
    assert model.command("*P 0") == [b"*P 0\r\n", b"*P OK\r\n"]
    after = statuses(run(model, 20))
    in2 = [s for s in after if s.state == 2]
    in6 = [s for s in after if s.state == 6]
    assert after[: len(in2)] == in2 and after[len(in2) :] == in6  # 2 ... 2 then 6 ... 6
    assert 3 <= len(in2) <= 7  # ~2.5 s in the capture
    speeds = [braking_at] + [s.speed for s in in2]
    assert all(0 < a - b <= 35 for a, b in itertools.pairwise(speeds))  # still slowing ~25/report
    assert all(s.speed >= 10 for s in in2)
    assert in6[0].speed < 10 and all(s.speed == 0 for s in in6[1:])
    assert len(in6) >= 10  # status keeps flowing in state 6
    assert {(s.spin, s.number, s.flags, s.direction) for s in after} == {
        (model.spin, wire_number(model.last_result), 0, items[-1].direction)
    }


def test_p0_after_a_finished_game_never_reuses_its_spin_number():
    model = started(seed=13, spin=5)
    run_until(model, lambda i: isinstance(i, str))  # the result of game 5
    model.command("*P 0")
    assert {s.spin for s in statuses(run(model, 15))} == {5}
    model.command("*P 1")
    assert {s.spin for s in statuses(run(model, 20))} == {6}


# --------------------------------------------------------------------------- numbers


def test_numbers_are_uniform_over_a_few_thousand_seeded_games():
    model = started(seed=2024, mode=1 + 4)  # no automatic status: only winning lines come out
    counts: collections.Counter[str] = collections.Counter()
    total = 0
    while total < 3700:
        for line in model.tick():
            counts[line[:-2].decode()] += 1
            total += 1
    assert set(counts) == {wire_number(label) for label in pocket_labels(37)}
    expected = total / 37
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in counts)
    assert chi2 < 67.99, counts  # chi-square, 36 degrees of freedom, p = 0.001


@pytest.mark.parametrize(
    ("pockets", "label", "wire"),
    [
        (37, "0", b" 0"),
        (37, "6", b" 6"),
        (37, "27", b"27"),
        (38, "00", b"00"),
        (39, "000", b"000"),
        (40, "0000", b"0000"),
    ],
)
def test_forced_numbers_on_every_wheel(pockets, label, wire):
    model = started(seed=14, pockets=pockets)
    model.force_next_number(label)
    items = run_until(model, is_state(5))
    assert items[-2] == wire.decode()
    assert items[-1].number == wire.decode()
    assert model.last_result == label


def test_forced_numbers_are_queued_and_validated():
    model = started(seed=15)
    for label in ("17", " 6", 0):
        model.force_next_number(label)
    wins = [i for i in run_games(model, 3) if isinstance(i, str)]
    assert wins == ["17", " 6", " 0"]
    for bad in ("00", "37", "x", 37):
        with pytest.raises(ValueError):
            model.force_next_number(bad)
    with pytest.raises(ValueError):
        SS2Model(pockets=36)


def test_pockets_follow_t_z():
    model = started(seed=16)
    assert model.command("*T z 40") == [b"*Z OK\r\n"]
    assert model.command("*T Z") == [b"*T z 40\r\n"]
    model.force_next_number("0000")
    model.force_next_number("00")
    wins = [i for i in run_games(model, 2) if isinstance(i, str)]
    assert wins == ["0000", "00"]
    assert model.command("*T z 41") == []  # not a wheel: ignored


def test_numbers_on_a_38_pocket_wheel_cover_double_zero():
    model = started(seed=17, pockets=38, mode=1 + 4)
    wins = set()
    while len(wins) < 38:
        wins |= {line[:-2].decode() for line in model.tick()}
    assert "00" in wins and " 0" in wins and len(wins) == 38


def test_same_seed_same_bytes_different_seed_different_bytes():
    def transcript(seed: int) -> bytes:
        model = SS2Model(seed=seed)
        out = model.command("*P 1")
        for i in range(600):
            out += model.tick()
            if i == 300:
                out += model.command("*X")
        return b"".join(out)

    assert transcript(99) == transcript(99)
    assert transcript(99) != transcript(100)


# --------------------------------------------------------------------------- commands


def test_command_replies():
    model = SS2Model(seed=18)
    assert model.command("*X") == [model.status_line()]
    assert model.command("*X\r\n") == [model.status_line()]
    assert STATUS_RE.match(model.command("*X")[0][:-2].decode())
    assert model.command("*S")[0].startswith(b"*S ") and model.command("*S")[0].endswith(b"\r\n")
    assert model.command("*V")[0].startswith(b"*V ")
    assert model.command("*v")[0].startswith(b"*v ")
    assert model.command("*K") == [b"*K CAM\r\n"]
    assert model.command("*o 1157") == [b"*o 1157\r\n"] and model.mode == 1157
    assert model.command("*o 133") == [b"*o 133\r\n"]
    assert model.command("*R") == [b"*R OK\r\n"]
    assert model.command("*F") == [b"*F 0\r\n"]  # idle: self-test passes
    assert model.command("*W")[0] == b"*W 0\r\n"
    assert model.command("*M")[0] == b"*M 0\r\n"
    assert model.command("*q 0") == [b"*q OK\r\n"]
    assert model.command("*X") == [] and run(model, 3) == []  # all *X output off
    assert model.command("*q 1") == [b"*q OK\r\n"]
    assert len(run(model, 3)) == 3

    model.command("*P 1")
    run(model, 3)
    assert model.command("*F") == [b"*F BUSY\r\n"]
    assert model.command("*W") == [b"*W BUSY\r\n"]
    assert model.command("*M") == [b"*M BUSY\r\n"]
    assert model.command("*u 1") == [b"*u OK\r\n"]


def test_setup_commands_set_and_get():
    model = SS2Model(seed=19)
    assert model.command("*T S") == [b"*T s 14.0 17.5\r\n"]
    assert model.command("*T s 13.5 16.0") == [b"T OK\r\n"]  # the guide's printed reply
    assert model.command("*T S") == [b"*T s 13.5 16.0\r\n"]
    assert model.command("*T M") == [b"*T m 1.5\r\n"]
    assert model.command("*T m 2.0") == [b"*T m 2.0\r\n"]
    assert model.command("*T Z") == [b"*T z 37\r\n"]
    assert model.command("*T z 38") == [b"*Z OK\r\n"]
    assert model.command("*T h 90") == [b"*T OK\r\n"]
    assert model.command("*T H") == [b"*T h 90\r\n"]
    assert model.command("*T N") == [b"*T n 2920\r\n"]
    assert model.command("*T n 2500") == [b"*T OK\r\n"]
    assert model.command("*T g 40") == [b"*T OK\r\n"]
    assert model.command("*T G") == [b"*T g 40\r\n"]
    assert model.command("*T c 1234") == [b"T OK\r\n"]
    assert model.command("*T C") == [b"*T c 1234\r\n"]
    assert model.command("*T f") == [b"*T OK\r\n"]
    for bad in ("*T s 17.5 14.0", "*T s fast", "*T z 36", "*T h 0", "*T n", "*T q 1 2", "*T x 1", "*T"):
        assert model.command(bad) == [], bad


def test_t_n_moves_the_nmb_point():
    model = started(seed=20)
    model.command("*T n 2500")  # lower threshold: NMB earlier, longer state 4
    played = games(run_games(model, 8))[1:]
    assert all(len(g[3]) < 14 and len(g[4]) > 40 for g in played)


def test_garbage_and_unknown_commands_never_crash():
    model = started(seed=21, echo_commands=False)
    rng = random.Random(5)
    for _ in range(500):
        junk = "".join(rng.choice("*XPRTKuoqFSWMvVAO0123456789 ;.-abcz\t") for _ in range(rng.randint(0, 12)))
        assert isinstance(model.command(junk), list)
        model.tick()
    for text in (
        "",
        "   ",
        "hello",
        "*",
        "*Z",
        "*P",
        "*P 2",
        "*u 2",
        "*o x",
        "*q 5",
        "*I 4",
        "*C",
        "\x00\xff",
    ):
        assert model.command(text) == [], text


def test_echo_reproduces_command_lines():
    model = SS2Model(seed=22, echo_commands=True)
    assert model.command("*P 1\r") == [b"*P 1\r\n", b"*P OK\r\n"]
    assert model.command("*Q nonsense") == [b"*Q nonsense\r\n"]


def test_manual_start_mode():
    model = SS2Model(seed=23, mode=1 + 2 + 4 + 128)
    model.command("*P 1")
    waiting = statuses(run(model, 60))
    assert {s.state for s in waiting} == {1}  # spun up, waits for a start command
    assert model.command("*K") == [b"*K OK\r\n"]
    items = run_until(model, is_state(5))
    assert statuses(items)[0].state == 2 and statuses(items)[0].spin == 1
    held = statuses(run(model, 40))
    assert {(s.state, s.spin) for s in held} == {(5, 1)}  # waits in state 5
    assert model.command("*K") == [b"*K OK\r\n"]
    first = statuses(run(model, 1))[0]
    assert (first.state, first.spin) == (2, 2)


def test_manual_start_waits_and_u_sets_direction():
    model = SS2Model(seed=23, mode=1 + 2 + 4 + 128)
    model.command("*T g 16")
    model.command("*P 1")
    run(model, 30)
    for command, direction in (("*u 3", 1), ("*u 3", 1), ("*u 1", 0), ("*u 1", 0)):
        assert model.command(command) == [b"*u OK\r\n"]
        items = run_until(model, is_state(5))
        held = statuses(run(model, 30))
        assert {s.state for s in held} == {5}  # waits again
        assert {s.direction for s in statuses(items) if s.state == 3} == {direction}
    assert model.command("*K") == [b"*K OK\r\n"]


def test_mode_16_disables_the_winning_line():
    model = started(seed=24, mode=1 + 4 + 16 + 128)
    model.force_next_number("19")
    items = run_until(model, is_state(5))
    assert all(isinstance(i, X) for i in items)
    assert items[-1].number == "19"


def test_mode_1024_goes_5_to_1_to_2():
    model = started(seed=25, mode=1 + 4 + 128 + 1024)
    s = statuses(run_games(model, 3))
    transitions = [(a.state, b.state) for a, b in itertools.pairwise(s) if a.state != b.state]
    assert (5, 1) in transitions and (5, 2) not in transitions
    for a, b in itertools.pairwise(s):
        if b.spin != a.spin:
            assert (a.state, b.state) == (5, 1)
    played = games(s)
    assert all(len(g[5]) >= 12 for g in played)  # two rotor revolutions at ~15 rpm


def test_without_mode_128_status_only_on_poll():
    model = started(seed=26, mode=1 + 4)
    model.force_next_number("8")
    out = run_until(model, lambda i: True, limit=500)
    assert out == [" 8"]
    assert STATUS_RE.match(model.command("*X")[0][:-2].decode())
    assert model.command("*X")[0].startswith(b"*X;5;")


def test_games_per_hour_limit_holds_the_cycle():
    model = started(seed=27)
    model.command("*T h 40")  # 90 s = 180 reports per game
    s = statuses(run_games(model, 4))
    starts = [i for i, (a, b) in enumerate(itertools.pairwise(s), 1) if (a.state, b.state) == (2, 3)]
    assert len(starts) == 4
    assert all(b - a >= 170 for a, b in itertools.pairwise(starts[1:]))  # 180 between releases, +- state 2
    assert max(len(g[5]) for g in games(s)[1:]) > 60  # the wait is in state 5


# --------------------------------------------------------------------------- faults


def test_inject_rejects_unknown_faults():
    with pytest.raises(ValueError):
        SS2Model().inject("meteor")
    assert set(FAULTS) == {
        "launch_retry",
        "miss_spin",
        "no_ball",
        "sensor_fault",
        "ball_not_in_track",
        "power_loss",
        "garbage",
        "repeat_result",
    }


def test_launch_retry_sets_flag_8_in_state_2_then_launches():
    model = started(seed=30)
    model.inject("launch_retry", reports=5)
    model.force_next_number("12")
    items = run_until(model, is_state(5))
    s = statuses(items)
    flagged = [x for x in s if x.flags]
    assert len(flagged) == 5 and all(x.state == 2 and x.flags == 8 and x.speed > 100 for x in flagged)
    first3 = next(i for i, x in enumerate(s) if x.state == 3)
    assert s[first3 - 1].flags == 8 and all(x.flags == 0 for x in s[first3:])
    assert items[-2] == "12"


def test_launch_retry_with_t_g_8_stops_the_wheel():
    model = started(seed=31)
    model.command("*T g 8")
    model.inject("launch_retry")
    s = statuses(run(model, 150))
    assert any(x.state == 2 and x.flags == 8 for x in s)
    assert 3 not in {x.state for x in s}
    assert s[-1].state == 6 and s[-1].speed == 0


def test_miss_spin_waits_for_r_then_respins_with_the_same_spin_number():
    model = started(seed=32, spin=70)
    model.inject("miss_spin")
    items = run(model, 400)
    s = statuses(items)
    assert not any(isinstance(i, str) for i in items)  # no result
    missed = [x for x in s if x.flags]
    assert missed and all(x.state == 3 and x.flags == 2 for x in missed)
    assert s[-1].state == 3 and s[-1].flags == 2  # still waiting for *R
    assert model.command("*R") == [b"*R OK\r\n"]
    model.force_next_number("5")
    items = run_until(model, is_state(5))
    s2 = statuses(items)
    assert s2[0].state == 2 and {x.spin for x in s2} == {70}  # re-spin from state 2, same game number
    assert items[-2] == " 5" and items[-1].spin == 70
    assert all(x.flags == 0 for x in s2)


def test_miss_spin_injected_during_state_3_applies_at_once():
    model = started(seed=33)
    run_until(model, is_state(3))
    model.inject("miss_spin")
    s = statuses(run(model, 10))
    assert all(x.state == 3 for x in s) and s[-1].flags == 2


def test_miss_spin_with_t_g_8_goes_to_state_6():
    model = started(seed=34)
    model.command("*T g 8")
    model.inject("miss_spin")
    s = statuses(run(model, 120))
    assert any(x.state == 3 and x.flags == 2 for x in s)
    assert s[-1].state == 6 and s[-1].speed == 0
    assert 4 not in {x.state for x in s}


def test_no_ball_keeps_flag_1_then_stops_after_75_s():
    model = started(seed=35, spin=9)
    model.inject("no_ball")
    items = run(model, 400)
    s = statuses(items)
    flagged = [x for x in s if x.flags == 1]
    assert all(x.state == 4 for x in flagged)
    first = s.index(flagged[0])
    assert s[first : first + len(flagged)] == flagged  # persists until the wheel is stopped
    assert 150 <= len(flagged) <= 150 + 8  # 75 s at 500 ms, then braking (state 4 kept while slowing)
    assert s[first + len(flagged)].state == 6
    assert s[-1].state == 6 and s[-1].speed == 0 and s[-1].flags == 0
    assert 5 not in {x.state for x in s} and not any(isinstance(i, str) for i in items)
    assert {x.spin for x in s} == {9}


@pytest.mark.parametrize("mode", [133 + 256, 133])
def test_sensor_fault(mode):
    model = started(seed=36, mode=mode)
    run_until(model, is_state(4))
    model.inject("sensor_fault", codes=(21, 13))
    items = run(model, 30)
    if mode & 256:
        assert items[:2] == ["*F 21", "*F 13"]  # unsolicited, at detection
        items = items[2:]
    else:
        assert not any(isinstance(i, str) for i in items)
    s = statuses(items)
    assert s == items
    assert s[0].flags == 4 and s[0].state == 4
    assert s[-1].state == 6 and s[-1].speed == 0 and s[-1].flags == 4
    assert model.command("*F") == [b"*F 21\r\n", b"*F 13\r\n"]  # the self-test names them
    assert statuses(run(model, 1))[0].flags == 0
    assert model.command("*F") == [b"*F 0\r\n"]


def test_ball_not_in_track_enters_state_7_with_t_g_32():
    model = started(seed=37, spin=3)
    model.command("*T g 32")
    model.inject("ball_not_in_track")
    s = statuses(run(model, 120))
    assert s[-1].state == 7 and [x.state for x in s].count(7) > 50
    assert 3 not in {x.state for x in s}
    assert model.command("*W") == [b"*W BUSY\r\n"]
    assert model.command("*R") == [b"*R OK\r\n"]
    model.force_next_number("36")
    items = run_until(model, is_state(5))
    assert statuses(items)[0].state == 2 and items[-1].spin == 3 and items[-2] == "36"


def test_ball_not_in_track_without_t_g_32_is_a_failed_launch():
    model = started(seed=38)
    model.inject("ball_not_in_track")
    s = statuses(run_until(model, is_state(3)))
    assert 7 not in {x.state for x in s}
    assert any(x.state == 2 and x.flags == 8 for x in s)


def test_power_loss_and_restore_is_a_controller_restart():
    model = started(seed=39, spin=100, last_result="7")
    model.command("*T s 10.0 11.0")  # not saved with *T f: lost at mains-off
    model.command("*T h 100")
    model.command("*T f")
    model.command("*T m 3.0")  # not saved
    model.command("*o 389")
    run_games(model, 1)
    model.inject("power_loss")
    assert run(model, 20) == []
    assert model.command("*X") == [] and model.command("*P 1") == []  # no answer without mains
    model.restore_power()
    ticks = 0
    while not (out := model.tick()):
        ticks += 1
        assert ticks < 20
    assert 2 <= ticks <= 8  # a few silent ticks while initialising
    first = parse(out[0])
    assert (first.state, first.spin, first.number, first.flags, first.speed) == (6, 1, "  ", 0, 0)
    assert {(x.state, x.spin) for x in statuses(run(model, 10))} == {(6, 1)}
    assert model.command("*T S") == [b"*T s 10.0 11.0\r\n"] and model.command("*T H") == [b"*T h 100\r\n"]
    assert model.command("*T M") == [b"*T m 1.5\r\n"]
    assert model.command("*o") == [b"*o 389\r\n"]  # the operating mode is non-volatile


def test_garbage_adds_junk_and_a_torn_line_then_the_stream_goes_on():
    model = started(seed=40)
    run(model, 5)
    model.inject("garbage")
    raw = model.tick()
    assert len(raw) == 3 and all(line.endswith(b"\r\n") for line in raw)
    junk, torn, status = raw
    assert any(b >= 0x80 for b in junk[:-2]) or any(b < 0x20 for b in junk[:-2])
    assert not STATUS_RE.match(torn[:-2].decode()) and status.startswith(torn[:-2])
    assert STATUS_RE.match(status[:-2].decode())
    following = [line for _ in range(5) for line in model.tick()]
    assert len(following) == 5 and all(STATUS_RE.match(line[:-2].decode()) for line in following)


def test_repeat_result_gives_the_same_number_twice():
    model = started(seed=41)
    model.force_next_number("22")
    run_games(model, 1)
    model.inject("repeat_result")
    items = run_games(model, 1)
    wins = [i for i in items if isinstance(i, str)]
    assert wins == ["22"]
    fives = [x for x in statuses(items) if x.state == 5]
    assert {x.number for x in fives} == {"22"}


# --------------------------------------------------------------------------- threaded runner over a pty


class LineReader:
    """Reads CRLF lines from an fd with a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def lines_until(self, predicate, timeout: float = WAIT_S) -> list[bytes]:
        out: list[bytes] = []
        deadline = time.monotonic() + timeout
        while True:
            while b"\r\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\r\n", 1)
                out.append(line)
                if predicate(line):
                    return out
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out; last lines: {out[-5:]}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                self.buffer += os.read(self.fd, 4096)


def ss2_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "ss2-simulator"]


def test_runner_over_a_pty_answers_and_plays():
    sim = SS2Simulator.on_pty(speed=200, seed=50, spin=12)
    with sim:
        port = serial.Serial(sim.slave_path, timeout=0)
        try:
            reader = LineReader(port.fileno())
            lines = reader.lines_until(lambda l: l.startswith(b"*X;6;012;"))
            assert all(STATUS_RE.match(l.decode()) for l in lines[-1:])
            port.write(b"*P 1\r\n")
            lines = reader.lines_until(lambda l: l.startswith(b"*X;1;"))
            assert b"*P OK" in lines
            for label in ("27", "0", "13"):
                sim.force_next_number(label)
            lines = reader.lines_until(lambda l: l.startswith(b"*X;2;015;"))
            assert [l for l in lines if WIN_RE.match(l.decode("latin-1"))] == [b"27", b" 0", b"13"]
            assert all(
                STATUS_RE.match(l.decode()) or WIN_RE.match(l.decode()) for l in lines if l != b"*P OK"
            )
            port.write(b"*P 0\r")  # a bare \r terminates a command too
            lines = reader.lines_until(lambda l: l.startswith(b"*X;6;"))
            assert b"*P OK" in lines
            reader.lines_until(lambda l: l.startswith(b"*X;6;015;13;0;000;"))
            port.write(b"*X\n*F\r\n")
            lines = reader.lines_until(lambda l: l == b"*F 0")
            assert any(l.startswith(b"*X;6;015;13;0;000;") for l in lines)
        finally:
            port.close()
    assert not sim.running and not ss2_threads()
    sim.stop()  # idempotent


def test_runner_injection_is_thread_safe_and_visible():
    with SS2Simulator.on_pty(speed=200, seed=51) as sim:
        fd = os.open(sim.slave_path, os.O_RDWR | os.O_NOCTTY)
        try:
            reader = LineReader(fd)
            os.write(fd, b"*P 1\r\n")
            reader.lines_until(lambda l: l.startswith(b"*X;3;"))
            sim.inject("miss_spin")
            reader.lines_until(lambda l: l.startswith(b"*X;3;") and l.split(b";")[4] == b"2")
            assert sim.snapshot()["state"] == 3
            sim.power_loss()
            while select.select([fd], [], [], 0.05)[0]:  # drain what was in flight
                os.read(fd, 65536)
            reader.buffer = b""
            ready, _, _ = select.select([fd], [], [], 0.15)  # 60 ticks of silence
            assert not ready
            sim.restore_power()
            reader.lines_until(lambda l: l.startswith(b"*X;6;001;  ;"))
        finally:
            os.close(fd)
    assert not ss2_threads()


def test_ss2_pty_context_manager_yields_the_slave_path():
    with ss2_pty(speed=100, seed=52) as path:
        assert isinstance(path, str) and path.startswith("/dev/")
        with serial.Serial(path, timeout=2) as port:
            line = port.read_until(b"\r\n")
            line = port.read_until(b"\r\n")  # the first read may start mid-line
            assert STATUS_RE.match(line[:-2].decode()) and line.endswith(b"\r\n")
    assert not ss2_threads()


def test_runner_over_a_pyserial_object():
    master, path = open_pty_pair()
    port = serial.Serial(path, timeout=0, write_timeout=0.5)
    sim = SS2Simulator(port, speed=200, seed=53)
    try:
        sim.start()
        sim.start()  # idempotent
        assert len(ss2_threads()) == 1
        reader = LineReader(master)
        reader.lines_until(lambda l: l.startswith(b"*X;6;"))
        os.write(master, b"*P 1\r\n")
        lines = reader.lines_until(lambda l: l.startswith(b"*X;1;"))
        assert b"*P OK" in lines
    finally:
        sim.stop()
        port.close()
        os.close(master)
    assert not ss2_threads()


def test_runner_never_blocks_when_nobody_reads():
    # nobody has the slave open: output is dropped
    sim = SS2Simulator.on_pty(speed=2000, seed=54)
    sim.start()
    time.sleep(0.2)
    assert sim.running
    t0 = time.monotonic()
    sim.stop()
    assert time.monotonic() - t0 < WAIT_S  # a blocked writer would never stop
    # the slave is open but never read: the pty fills up, the simulator keeps playing
    sim = SS2Simulator.on_pty(speed=5000, seed=55, max_buffer=2048)
    sim.model.command("*P 1")
    fd = os.open(sim.slave_path, os.O_RDWR | os.O_NOCTTY)
    try:
        sim.start()
        deadline = time.monotonic() + WAIT_S
        while sim.snapshot()["spin"] < 3 or sim.dropped_bytes == 0:
            assert time.monotonic() < deadline, (sim.snapshot(), sim.dropped_bytes)
            time.sleep(0.02)
        t0 = time.monotonic()
        sim.stop()
        assert time.monotonic() - t0 < WAIT_S  # a blocked writer would never stop
    finally:
        sim.stop()
        os.close(fd)
    assert not ss2_threads()


# --------------------------------------------------------------------------- round trip through the driver


def test_round_trip_through_the_driver():
    from datetime import datetime

    from devices.roulette import cammegh_ss2 as driver

    model = SS2Model(seed=60, spin=11, last_result="34", echo_commands=True)
    forced = ["27", "16", "6", "3", "10", "0"]  # the capture's results
    for label in forced:
        model.force_next_number(label)
    chunks = model.command("*P 1")
    while model.last_result != "0" or model.state != 2:
        chunks += model.tick()
    chunks += model.tick() + model.tick()
    chunks += model.command("*P 0")
    for _ in range(15):
        chunks += model.tick()
    data = b"".join(chunks)
    cut = random.Random(1)
    pieces, i = [], 0
    while i < len(data):
        n = cut.randint(1, 64)
        pieces.append(data[i : i + n])
        i += n
    events = list(
        driver.iter_capture_events(pieces, "wheel-1", clock=lambda: datetime(2026, 1, 1, tzinfo=UTC))
    )
    results = [(e.game_counter, e.number) for e in events if e.kind == "wheel_result"]
    assert results == list(zip(range(11, 17), forced))
    assert not [e for e in events if e.kind in ("device_unknown", "wheel_restart", "wheel_warning")]
    assert not [e for e in events if e.kind == "wheel_status" and e.warnings]
    phases = [e.phase for e in events if e.kind == "wheel_status"]
    assert phases[0] == "starting" and phases[-1] == "closed"  # SS2 states 1 and 6
