"""The wheel judge, fed hand-built vendor-neutral event sequences with explicit times.

Shorthand: a status's phase is written as its place 1-7 in ``devices.events.WHEEL_PHASES``
(1 starting, 2 spin_started, 3 ball_in_rim, 4 no_more_bets, 5 winning_number, 6 closed,
7 ball_out_of_track) and its standing warnings as a sum of bits (1 no_ball, 2 ball_with_rotor,
4 component_fault, 8 launch_retry).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fixture_files import ss2_capture

from devices.events import (
    WHEEL_PHASES,
    DeviceConnected,
    DeviceDisconnected,
    DeviceUnknownMessage,
    WheelReply,
    WheelRestart,
    WheelResult,
    WheelStatus,
    WheelWarning,
)
from recognition.game import (
    CloseBetting,
    Hold,
    Note,
    OpenRound,
    Release,
    ResultReady,
    SendCommand,
    StartPlay,
    Void,
)
from recognition.roulette import EuropeanRoulette
from recognition.wheel_judge import HOLD_REASONS, NOTE_REASONS, VOID_REASONS, WheelJudge, counter_step

DEV = "table-1/wheel"
WARNINGS = ((1, "no_ball"), (2, "ball_with_rotor"), (4, "component_fault"), (8, "launch_retry"))
T0 = datetime(2026, 11, 29, 20, 0, 0, tzinfo=UTC)


def at(t: float) -> datetime:
    return T0 + timedelta(seconds=t)


def st(state: int, counter: int, t: float, flags: int = 0) -> WheelStatus:
    return WheelStatus(
        device_id=DEV,
        at=at(t),
        phase=WHEEL_PHASES[state - 1],
        game_counter=counter,
        last_number=None,
        warnings=tuple(code for bit, code in WARNINGS if flags & bit),
        speed_rpm=15.0,
        direction="clockwise",
        raw=f"status {state} {counter} {flags}",
    )


def res(counter: int, number: str, t: float) -> WheelResult:
    return WheelResult(device_id=DEV, at=at(t), game_counter=counter, number=number, raw=f"{number:>2}")


def game(counter: int, number: str, t: float) -> list:
    """A clean game from state 2: ball in rim after 8 s, no more bets at 15 s, the number at 32 s."""
    return [
        st(2, counter, t),
        st(3, counter, t + 8),
        st(4, counter, t + 15),
        res(counter, number, t + 32),
        st(5, counter, t + 32.5),
    ]


def certified(counter: int, number: str) -> ResultReady:
    return ResultReady(
        result={"number": number, "game_counter": counter},
        source={"device_id": DEV, "game_counter": counter},
    )


NORMAL = ["open_round", "close_betting", "start_play", "result_ready"]


def steps(judge, events) -> list[list]:
    """The decisions for each event; every code must be one of the documented reasons."""
    out = []
    for e in events:
        ds = judge.feed(e)
        for d in ds:
            reasons = {Void: VOID_REASONS, Hold: HOLD_REASONS, Note: NOTE_REASONS}.get(type(d))
            if reasons is not None:
                assert d.code in reasons, d
                assert d.message.startswith(reasons[d.code]), d
            if isinstance(d, Release):
                assert d.code in HOLD_REASONS
        out.append(ds)
    return out


def run(judge, events) -> list:
    return [d for ds in steps(judge, events) for d in ds]


def kinds(decisions) -> list[str]:
    return [d.kind for d in decisions]


def voids(decisions) -> list[str]:
    return [d.code for d in decisions if isinstance(d, Void)]


@pytest.fixture
def judge() -> WheelJudge:
    return WheelJudge()


def played(judge, counter=11, number="17", t=0.0) -> None:
    """Bring the judge past one certified game (from power-on)."""
    assert kinds(run(judge, [st(1, counter, t - 5)] + game(counter, number, t))) == NORMAL


# --- normal play ----------------------------------------------------------------------------------


def test_normal_game(judge):
    events = [st(1, 11, 0)] + game(11, "27", 10)
    assert steps(judge, events) == [
        [],  # state 1: before game
        [OpenRound(device_game="11")],  # state 2: place your bets
        [],  # state 3: ball in rim, betting still open
        [CloseBetting(), StartPlay()],  # state 4: no more bets
        [certified(11, "27")],  # the winning number
        [],  # state 5
    ]


def test_games_in_a_row_with_the_same_number_are_both_certified(judge):
    played(judge, 11, "17")
    decisions = run(judge, game(12, "17", 40) + game(13, "17", 80))
    assert kinds(decisions) == NORMAL * 2
    assert [d for d in decisions if isinstance(d, ResultReady)] == [certified(12, "17"), certified(13, "17")]


def test_repeats_without_changes_produce_nothing(judge):
    played(judge, 11, "4")
    # a status that repeats (e.g. a direction change inside state 2), then the game
    decisions = run(
        judge,
        [
            st(2, 12, 40),
            st(2, 12, 41),
            st(2, 12, 42),
            st(3, 12, 48),
            st(3, 12, 50),
            st(4, 12, 55),
            st(4, 12, 60),
            res(12, "9", 70),
            st(5, 12, 70.5),
            st(5, 12, 71),
        ],
    )
    assert kinds(decisions) == NORMAL


@pytest.mark.parametrize("last, first", [(256, 1), (256, 0), (255, 256)])
def test_counter_wrap_is_the_next_game(judge, last, first):
    played(judge, last, "8")
    decisions = run(judge, game(first, "30", 40))
    assert kinds(decisions) == NORMAL
    assert decisions[-1] == certified(first, "30")


def test_counter_step():
    assert counter_step(11, 12) == 1
    assert counter_step(256, 1) == 1
    assert counter_step(256, 0) == 1
    assert counter_step(0, 1) == 1
    assert counter_step(12, 12) == 0
    assert counter_step(12, 11) == 255


def test_mode_1024_five_to_one_to_two(judge):
    played(judge, 11, "2")
    decisions = run(judge, [st(1, 12, 40)] + game(12, "3", 45))
    assert kinds(decisions) == NORMAL


def test_result_after_state_5_status(judge):
    # mode 16 / port 2: the driver takes the number from the first state-5 status
    decisions = run(
        judge, [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10), st(4, 11, 20), st(5, 11, 40), res(11, "12", 40)]
    )
    assert kinds(decisions) == NORMAL


def test_relaunch_from_state_3_keeps_the_game(judge):
    # back to state 2 while betting is still open: the wheel relaunches, the round goes on
    decisions = run(
        judge,
        [
            st(1, 11, 0),
            st(2, 11, 5),
            st(3, 11, 10, flags=8),
            st(2, 11, 12, flags=8),
            st(2, 11, 14),
            st(3, 11, 16),
            st(4, 11, 25),
            res(11, "1", 40),
        ],
    )
    assert kinds(decisions) == ["open_round", "note", "close_betting", "start_play", "result_ready"]


# --- results the judge cannot vouch for --------------------------------------------------------------


def test_repeated_counter_is_never_certified_twice(judge):
    played(judge, 12, "5")
    # the wheel starts a game without counting it: same counter 12
    decisions = run(judge, game(12, "5", 40))
    assert kinds(decisions) == ["open_round", "close_betting", "start_play", "hold"]
    assert decisions[0] == OpenRound(device_game="12")
    assert decisions[-1].code == "unverified_result"
    assert "12 was already certified" in decisions[-1].message
    # the hold clears when the next game opens, and that game is certified
    nxt = run(judge, game(13, "22", 80))
    assert kinds(nxt) == ["release"] + NORMAL
    assert nxt[0] == Release(code="unverified_result")
    assert nxt[-1] == certified(13, "22")


def test_counter_behind_the_last_certified_game_is_held_once(judge):
    played(judge, 12, "5")
    played(judge, 13, "6", 40)
    behind = run(judge, game(12, "7", 80))  # an older counter than the last certified
    assert kinds(behind)[-1] == "hold" and "behind the last certified game 13" in behind[-1].message
    again = run(judge, game(13, "7", 120))  # 13 was certified already
    assert kinds(again)[-1] == "hold" and "13 was already certified" in again[-1].message
    assert run(judge, game(14, "7", 160))[-1] == certified(14, "7")


@pytest.mark.parametrize("first_state", [3, 4, 5])
def test_joined_mid_game(judge, first_state):
    # connected while the game was already past betting: its number is not certified
    seen = [DeviceConnected(device_id=DEV, at=at(0), port="/dev/ttyS0"), st(first_state, 12, 1)]
    seen += {3: [st(4, 12, 10)], 4: [], 5: []}[first_state]
    decisions = run(judge, seen + [res(12, "19", 20)])
    assert kinds(decisions) == ["hold"]
    assert decisions[0].code == "unverified_result"
    assert "did not see game 12 start" in decisions[0].message
    # the rest of that game is silent; the next game is certified
    assert run(judge, [st(5, 12, 21), res(12, "19", 21)]) == []
    nxt = run(judge, game(13, "0", 30))
    assert kinds(nxt) == ["release"] + NORMAL
    assert nxt[-1] == certified(13, "0")


def test_joined_while_betting_is_open(judge):
    # the first status shows state 2: the whole spin is still to come, so the game opens
    decisions = run(
        judge,
        [
            DeviceConnected(device_id=DEV, at=at(0), port="/dev/ttyS0"),
            st(2, 12, 1),
            st(3, 12, 8),
            st(4, 12, 15),
            res(12, "33", 30),
        ],
    )
    assert kinds(decisions) == NORMAL


def test_result_for_another_counter(judge):
    played(judge, 11, "2")
    decisions = run(judge, game(12, "3", 40)[:3] + [res(13, "3", 70)])
    assert kinds(decisions) == ["open_round", "close_betting", "start_play", "hold"]
    assert "the game in progress is 12" in decisions[-1].message


def test_result_before_no_more_bets(judge):
    decisions = run(judge, [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10), res(11, "14", 15)])
    # betting closes (a number is known) and nothing is certified
    assert kinds(decisions) == ["open_round", "close_betting", "start_play", "hold"]
    assert "before the wheel called no more bets" in decisions[-1].message


def test_skipped_ball_in_rim(judge):
    decisions = run(judge, [st(1, 11, 0), st(2, 11, 5), st(4, 11, 20), res(11, "14", 35)])
    assert kinds(decisions) == ["open_round", "close_betting", "start_play", "hold"]
    assert "without ball_in_rim" in decisions[-1].message


def test_back_to_ball_in_rim_after_no_more_bets(judge):
    decisions = run(
        judge,
        [
            st(1, 11, 0),
            st(2, 11, 5),
            st(3, 11, 10),
            st(4, 11, 20),
            st(3, 11, 22),
            st(4, 11, 25),
            res(11, "14", 35),
        ],
    )
    assert kinds(decisions) == ["open_round", "close_betting", "start_play", "hold"]


def test_number_not_on_the_wheel():
    judge = EuropeanRoulette().new_judge()
    decisions = run(judge, [st(1, 11, 0)] + game(11, "00", 5))
    assert kinds(decisions) == ["open_round", "close_betting", "start_play", "hold"]
    assert "'00' is not a pocket of this wheel" in decisions[-1].message


def test_a_different_number_for_a_certified_game(judge):
    played(judge, 11, "17")
    decisions = run(judge, [res(11, "18", 40)])
    assert kinds(decisions) == ["hold"]
    assert "certified as 17" in decisions[0].message
    assert run(judge, [res(11, "17", 41)]) == []  # the same number again: nothing


# --- flags ----------------------------------------------------------------------------------------------


def test_miss_spin(judge):
    played(judge, 11, "8")
    decisions = steps(judge, [st(2, 12, 40), st(3, 12, 48), st(3, 12, 50, flags=2)])
    assert decisions[-1] == [
        Void(code="miss_spin", message=decisions[-1][0].message),
        SendCommand(command="acknowledge_void"),
    ]
    assert "game 12" in decisions[-1][0].message
    # the rest of the voided game is silent
    assert run(judge, [st(4, 12, 55, flags=2), st(4, 12, 56), res(12, "4", 70), st(5, 12, 71)]) == []
    # the wheel re-spins (after *R: state 1, then 2) with the same counter: a new round, certified
    respin = run(judge, [st(1, 12, 75)] + game(12, "4", 80))
    assert kinds(respin) == NORMAL
    assert respin[0] == OpenRound(device_game="12")
    assert respin[-1] == certified(12, "4")


def test_miss_spin_respin_straight_from_state_3(judge):
    # the guide: after a miss-spin the wheel re-spins from state 2
    decisions = run(judge, [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10, flags=2)] + game(11, "6", 15))
    assert kinds(decisions) == ["open_round", "void", "send_command"] + NORMAL


def test_miss_spin_in_no_more_bets(judge):
    decisions = run(judge, [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10), st(4, 11, 20, flags=2)])
    assert kinds(decisions) == ["open_round", "close_betting", "start_play", "void", "send_command"]
    assert voids(decisions) == ["miss_spin"]


def test_flag_2_while_betting_is_ignored(judge):
    decisions = run(
        judge,
        [st(1, 11, 0), st(2, 11, 5, flags=2), st(2, 11, 6), st(3, 11, 10), st(4, 11, 20), res(11, "7", 35)],
    )
    assert kinds(decisions) == NORMAL


def test_no_ball_within_tolerance(judge):
    decisions = run(
        judge,
        [
            st(1, 11, 0),
            st(2, 11, 5),
            st(3, 11, 10),
            st(4, 11, 20),
            st(4, 11, 22, flags=1),
            st(4, 11, 26.5),
            res(11, "7", 35),
        ],
    )
    assert kinds(decisions) == NORMAL


def test_no_ball_exactly_at_the_tolerance_is_still_tolerated(judge):
    decisions = run(
        judge,
        [
            st(1, 11, 0),
            st(2, 11, 5),
            st(3, 11, 10),
            st(4, 11, 20),
            st(4, 11, 22, flags=1),
            st(4, 11, 27),
            res(11, "7", 35),
        ],
    )
    assert kinds(decisions) == NORMAL


@pytest.mark.parametrize(
    "late",
    [
        DeviceUnknownMessage(device_id=DEV, at=at(27.5), raw="garbage"),
        WheelReply(device_id=DEV, at=at(27.5), command="status", text="", raw="status?"),
        st(4, 11, 27.5),  # the flag clears, but it stood 5.5 s
        res(11, "7", 27.5),
    ],
)
def test_no_ball_beyond_tolerance(judge, late):
    decisions = run(
        judge, [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10), st(4, 11, 20), st(4, 11, 22, flags=1), late]
    )
    assert kinds(decisions) == ["open_round", "close_betting", "start_play", "void"]
    assert voids(decisions) == ["no_ball"]
    assert "5.5 s" in decisions[-1].message
    # nothing more for this game, whatever comes
    assert run(judge, [st(4, 11, 28), res(11, "7", 35), st(5, 11, 36), st(6, 11, 40)]) == []


def test_no_ball_flag_standing_at_the_result(judge):
    decisions = run(
        judge,
        [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10), st(4, 11, 20), st(4, 11, 30, flags=1), res(11, "7", 31)],
    )
    assert kinds(decisions)[-1] == "void"
    assert voids(decisions) == ["no_ball"]


def test_no_ball_tolerance_is_a_setting():
    events = [
        st(1, 11, 0),
        st(2, 11, 5),
        st(3, 11, 10),
        st(4, 11, 20),
        st(4, 11, 22, flags=1),
        st(4, 11, 29),
        res(11, "7", 35),
    ]
    assert kinds(run(WheelJudge(no_ball_tolerance_s=8), events)) == NORMAL
    assert voids(run(WheelJudge(), events)) == ["no_ball"]


def test_launch_retry_while_betting_is_a_note(judge):
    events = [
        st(1, 11, 0),
        st(2, 11, 5),
        st(2, 11, 6, flags=8),
        st(2, 11, 7, flags=0xA),
        st(2, 11, 8),
        st(2, 11, 9, flags=8),
        st(2, 11, 10),
        st(3, 11, 12),
        st(4, 11, 20),
        res(11, "7", 35),
    ]
    decisions = run(judge, events)
    # one note each time the flag appears, bets stay open, the game is certified
    assert kinds(decisions) == ["open_round", "note", "note", "close_betting", "start_play", "result_ready"]
    assert {d.code for d in decisions if isinstance(d, Note)} == {"launch_retry"}


def test_launch_flag_in_ball_in_rim_within_tolerance(judge):
    decisions = run(
        judge,
        [
            st(1, 11, 0),
            st(2, 11, 5),
            st(3, 11, 10, flags=8),
            st(3, 11, 12.5),
            st(4, 11, 20),
            res(11, "7", 35),
        ],
    )
    assert kinds(decisions) == NORMAL


def test_launch_flag_in_ball_in_rim_beyond_tolerance(judge):
    decisions = run(judge, [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10, flags=8), st(3, 11, 13.5)])
    assert kinds(decisions) == ["open_round", "void"]
    assert voids(decisions) == ["launch_failed"]
    assert run(judge, [st(4, 11, 20), res(11, "7", 35)]) == []


def test_launch_flag_late_in_ball_in_rim(judge):
    # the guide ignores flag 8 only in the first 3 s of state 3
    decisions = run(judge, [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10), st(3, 11, 15, flags=8)])
    assert voids(decisions) == ["launch_failed"]


def test_launch_tolerance_is_a_setting():
    events = [
        st(1, 11, 0),
        st(2, 11, 5),
        st(3, 11, 10, flags=8),
        st(3, 11, 14),
        st(4, 11, 20),
        res(11, "7", 35),
    ]
    assert kinds(run(WheelJudge(launch_tolerance_s=5), events)) == NORMAL
    assert voids(run(WheelJudge(), events)) == ["launch_failed"]


@pytest.mark.parametrize("state", [2, 3, 4])
def test_fault_flag(judge, state):
    lead = [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10), st(4, 11, 20)][:state]
    decisions = run(judge, lead + [st(state, 11, 25, flags=4 | 8)])
    assert voids(decisions) == ["wheel_fault"]
    assert "ResultReady" not in {type(d).__name__ for d in run(judge, [st(4, 11, 26), res(11, "7", 35)])}


# --- faults, power, restarts ------------------------------------------------------------------------


def test_wheel_fault_during_play(judge):
    fault = WheelWarning(
        device_id=DEV,
        at=at(22),
        code="sensor_blind",
        vendor_code="21",
        description="Sensor 1 broken Off",
        raw="F 21",
    )
    decisions = run(judge, [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10), st(4, 11, 20), fault])
    assert voids(decisions) == ["wheel_fault"]
    assert "sensor_blind (21): Sensor 1 broken Off" in decisions[-1].message
    # only one void per game
    assert run(judge, [st(4, 11, 23, flags=4), fault, st(6, 11, 25), res(11, "7", 35)]) == []


def test_wheel_fault_outside_a_game_and_self_test(judge):
    self_test = WheelWarning(
        device_id=DEV,
        at=at(1),
        code="sensor_blind",
        description="Sensor 2 broken Off",
        self_test=True,
        raw="F 22",
    )
    between = WheelWarning(device_id=DEV, at=at(2), code="motor_fault", description="Motor", raw="F 5")
    assert run(judge, [st(6, 11, 0), self_test]) == []
    assert kinds(run(judge, [between])) == ["note"]
    # a self-test answer during a game voids nothing either
    decisions = run(judge, [st(1, 11, 3), st(2, 11, 5), self_test.model_copy(update={"at": at(6)})])
    assert kinds(decisions) == ["open_round"]


@pytest.mark.parametrize(
    "state, code", [(6, "wheel_powered_down"), (7, "ball_not_in_track"), (1, "no_result")]
)
@pytest.mark.parametrize("during", [2, 3, 4])
def test_game_ends_without_a_number(judge, state, code, during):
    lead = [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10), st(4, 11, 20)][:during]
    decisions = run(judge, lead + [st(state, 11, 25)])
    assert voids(decisions) == [code]
    assert run(judge, [res(11, "7", 35)]) == []


def test_controller_restart(judge):
    played(judge, 40, "9")
    restart = WheelRestart(device_id=DEV, at=at(52), previous_counter=41, game_counter=1, raw="status 1 1 0")
    decisions = run(judge, [st(2, 41, 40), st(3, 41, 48), restart, st(1, 1, 52)])
    assert kinds(decisions) == ["open_round", "void"]
    assert voids(decisions) == ["controller_restart"]
    # the counter starts again: game 1 is certified although 1 is "behind" 40
    assert run(judge, game(1, "11", 60))[-1] == certified(1, "11")


def test_controller_restart_seen_in_the_status_first(judge):
    decisions = run(judge, [st(1, 41, 0), st(2, 41, 5), st(3, 41, 10), st(1, 1, 12)])
    assert voids(decisions) == ["controller_restart"]
    restart = WheelRestart(device_id=DEV, at=at(12), previous_counter=41, game_counter=1, raw="")
    assert run(judge, [restart]) == []  # one void per game


def test_new_game_before_a_number(judge):
    decisions = run(
        judge, [st(1, 11, 0), st(2, 11, 5), st(3, 11, 10), st(4, 11, 20), st(5, 11, 40), st(2, 12, 42)]
    )
    assert kinds(decisions) == ["open_round", "close_betting", "start_play", "void", "open_round"]
    assert voids(decisions) == ["no_result"]
    assert decisions[-1] == OpenRound(device_game="12")


# --- the link --------------------------------------------------------------------------------------------


def test_disconnect_mid_game(judge):
    played(judge, 11, "1")
    lost = DeviceDisconnected(device_id=DEV, at=at(60), reason="read timeout")
    decisions = steps(judge, [st(2, 12, 40), st(3, 12, 48), st(4, 12, 55), lost, lost])
    assert [kinds(d) for d in decisions[3:]] == [["void", "hold"], []]
    assert voids(decisions[3]) == ["device_lost"]
    assert decisions[3][1].code == "device_lost"
    back = DeviceConnected(device_id=DEV, at=at(70), port="/dev/ttyS0")
    assert run(judge, [back]) == [Release(code="device_lost")]
    # the voided game's end is silent; the next game is certified
    assert run(judge, [st(4, 12, 71), res(12, "3", 75), st(5, 12, 76)]) == []
    assert kinds(run(judge, game(13, "3", 80))) == NORMAL


def test_disconnect_between_games(judge):
    played(judge, 11, "1")
    decisions = run(judge, [DeviceDisconnected(device_id=DEV, at=at(40), reason="port closed")])
    assert kinds(decisions) == ["hold"] and decisions[0].code == "device_lost"
    assert run(judge, [DeviceConnected(device_id=DEV, at=at(50), port="/dev/ttyS0")]) == [
        Release(code="device_lost")
    ]
    assert (
        run(judge, [DeviceConnected(device_id=DEV, at=at(51), port="/dev/ttyS0")]) == []
    )  # nothing to release


def test_reconnect_while_the_voided_game_still_takes_bets(judge):
    played(judge, 11, "1")
    decisions = run(
        judge,
        [
            st(2, 12, 40),
            DeviceDisconnected(device_id=DEV, at=at(41), reason="x"),
            DeviceConnected(device_id=DEV, at=at(42), port="p"),
            st(2, 12, 43),
            st(3, 12, 48),
            st(4, 12, 55),
            res(12, "3", 70),
        ],
    )
    # game 12 was voided when the link dropped; it does not come back
    assert kinds(decisions) == ["open_round", "void", "hold", "release"]


def test_after_a_long_outage_any_new_counter_is_accepted(judge):
    played(judge, 11, "1")
    decisions = run(
        judge,
        [
            DeviceDisconnected(device_id=DEV, at=at(40), reason="x"),
            DeviceConnected(device_id=DEV, at=at(9000), port="p"),
            st(5, 200, 9001),
        ]
        + game(201, "8", 9002),
    )
    # 201 is more than half the counter cycle past 11: games went by while the studio was blind
    assert kinds(decisions) == ["hold", "release"] + NORMAL


# --- purity -----------------------------------------------------------------------------------------------


def test_same_events_same_decisions():
    events = (
        [st(1, 11, 0)]
        + game(11, "27", 10)
        + game(12, "12", 50)
        + [st(2, 13, 90), st(3, 13, 98, flags=2)]
        + game(13, "5", 100)
    )
    a, b = WheelJudge(), WheelJudge()
    assert run(a, events) == run(b, events)


def test_reason_tables_are_plain_words():
    for table in (VOID_REASONS, HOLD_REASONS, NOTE_REASONS):
        for code, message in table.items():
            assert code.isidentifier() and code == code.lower()
            assert message[0].isupper() and message.endswith(".")


# --- the real capture ---------------------------------------------------------------------------------------


def test_capture_through_the_driver_and_the_judge():
    from devices.roulette.cammegh_ss2 import iter_capture_events

    data = ss2_capture()
    ticks = iter(range(10_000))

    def clock() -> datetime:  # the capture has no times: one line every 500 ms
        return at(next(ticks) * 0.5)

    judge = EuropeanRoulette().new_judge()
    chunks = [data[i : i + 64] for i in range(0, len(data), 64)]
    decisions = run(judge, iter_capture_events(chunks, DEV, clock=clock))
    results = [d for d in decisions if isinstance(d, ResultReady)]
    assert [r.result["number"] for r in results] == ["27", "16", "6", "3", "10", "0"]
    assert [r.result["game_counter"] for r in results] == [11, 12, 13, 14, 15, 16]
    # game 17 opens and is voided when the wheel is powered down (*P 0) before its spin
    assert kinds(decisions) == NORMAL * 6 + ["open_round", "void"]
    assert voids(decisions) == ["wheel_powered_down"]
    assert [d.device_game for d in decisions if isinstance(d, OpenRound)] == [str(n) for n in range(11, 18)]
