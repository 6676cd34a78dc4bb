"""The roulette table judge (wheel + camera + revolutions + auto-start), fed hand-built events with explicit times."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from devices.events import (
    WHEEL_PHASES,
    BallDropped,
    BallLaunched,
    DeviceConnected,
    DeviceDisconnected,
    WheelResult,
    WheelStatus,
    WheelWarning,
)
from recognition.game import Hold, Note, ResultReady, RoundSignal, SendCommand, Void
from recognition.games import GAMES
from recognition.roulette import EUROPEAN, EuropeanRoulette
from recognition.roulette_variants.spin_validity import revolutions_from_wheel, whole
from recognition.roulette_variants.table_judge import (
    HOLD_REASONS,
    NOTE_REASONS,
    VOID_REASONS,
    RouletteTableJudge,
)
from recognition.wheel_judge import HOLD_REASONS as _WHEEL_HOLDS
from recognition.wheel_judge import NOTE_REASONS as _WHEEL_NOTES
from recognition.wheel_judge import VOID_REASONS as _WHEEL_VOIDS

WHEEL, CAMERA = "t1/wheel", "t1/camera"
#: st()'s shorthand: a phase is its place 1-7 in WHEEL_PHASES, standing warnings a sum of these bits
WARNINGS = ((1, "no_ball"), (2, "ball_with_rotor"), (4, "component_fault"), (8, "launch_retry"))
T0 = datetime(2026, 11, 29, 20, 0, 0, tzinfo=UTC)


def at(t: float) -> datetime:
    return T0 + timedelta(seconds=t)


def st(state: int, counter: int, t: float, flags: int = 0) -> WheelStatus:
    return WheelStatus(
        device_id=WHEEL,
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
    return WheelResult(device_id=WHEEL, at=at(t), game_counter=counter, number=number, raw=number)


def started(t: float, balls: int = 1) -> BallLaunched:
    return BallLaunched(device_id=CAMERA, at=at(t), balls=balls)


def ended(t: float, revolutions: list[int], complete: bool = True) -> BallDropped:
    return BallDropped(
        device_id=CAMERA,
        at=at(t),
        balls=len(revolutions),
        revolutions=tuple(revolutions),
        complete=complete,
        frames=100,
    )


def rest(t: float, *pockets: str) -> WheelResult:
    """The camera's reading at rest: the neutral wheel result, without a game number."""
    return WheelResult(
        device_id=CAMERA,
        at=at(t),
        number=pockets[0],
        numbers=pockets if len(pockets) > 1 else (),
        rotor_angle_cdeg=1234,
        quality=97,
        settled_ms=500,
        frames=15,
    )


def unreadable(t: float, reason: str = "ball_on_fret") -> WheelWarning:
    return WheelWarning(device_id=CAMERA, at=at(t), code=reason, description="test")


def game(counter: int, number: str, t: float, *, rim_s: float = 8.0, camera: list | None = None) -> list:
    """A wheel game from state 2 (ball in rim after 4 s for rim_s, no more bets, the number 17 s later),
    with the camera's events merged in by time."""
    wheel = [
        st(2, counter, t),
        st(3, counter, t + 4),
        st(4, counter, t + 4 + rim_s),
        res(counter, number, t + 21 + rim_s),
        st(5, counter, t + 21.5 + rim_s),
    ]
    return sorted(wheel + (camera or []), key=lambda e: e.at)


def seen(
    counter: int, t: float, *pockets: str, revs: int = 6, rim_s: float = 8.0, complete: bool = True
) -> list:
    """What the camera sees of a normal spin of that game: launched, counted, at rest before the number."""
    return [
        started(t + 3.9, len(pockets)),
        ended(t + 18 + rim_s, [revs] * len(pockets), complete),
        rest(t + 20 + rim_s, *pockets),
    ]


def run(judge, events) -> list:
    out = []
    for e in events:
        for d in judge.feed(e):
            reasons = {
                Void: {**VOID_REASONS, **_WHEEL_VOIDS},
                Hold: {**HOLD_REASONS, **_WHEEL_HOLDS},
                Note: {**NOTE_REASONS, **_WHEEL_NOTES},
            }.get(type(d))
            if reasons is not None:
                assert d.code in reasons, d
                assert d.message.startswith(reasons[d.code]), d
            out.append(d)
    return out


def kinds(decisions) -> list[str]:
    return [d.kind if not hasattr(d, "code") else f"{d.kind}:{d.code}" for d in decisions]


def results(decisions) -> list[dict]:
    return [d.result for d in decisions if isinstance(d, ResultReady)]


def camera_judge(**settings) -> RouletteTableJudge:
    settings.setdefault("camera", True)
    judge = EuropeanRoulette().new_judge(**settings)
    assert isinstance(judge, RouletteTableJudge)
    return judge


# --- the camera's cross-check --------------------------------------------------------------------------


@pytest.mark.parametrize("camera_first", [True, False], ids=["camera-first", "wheel-first"])
def test_the_camera_agrees_and_the_number_is_certified(camera_first):
    cam = seen(1, 0, "17")
    if not camera_first:
        cam[-1] = rest(31, "17")  # the camera settles after the wheel's number
    out = run(camera_judge(), game(1, "17", 0, camera=cam))
    assert kinds(out) == ["open_round", "close_betting", "start_play", "result_ready"]
    ready = out[-1]
    assert ready.result == {"number": "17", "game_counter": 1}
    assert ready.source == {
        "device_id": WHEEL,
        "game_counter": 1,
        "camera_device_id": CAMERA,
        "camera_pockets": ["17"],
        "ball_revolutions": 6,
        "revolutions_from": "camera",
    }


def test_a_camera_that_disagrees_holds_and_never_certifies():
    judge = camera_judge()
    out = run(judge, game(1, "17", 0, camera=seen(1, 0, "34")))
    assert kinds(out)[-1] == "hold:camera_disagrees"
    assert "the wheel says 17, the camera sees 34" in out[-1].message
    assert not results(out)
    # the rest of the game changes nothing; the next game is judged afresh
    out = run(judge, [rest(40, "17")] + game(2, "5", 50, camera=seen(2, 50, "5")))
    assert results(out) == [{"number": "5", "game_counter": 2}]


@pytest.mark.parametrize("when", [15.0, 30.0], ids=["before-the-number", "after-the-number"])
def test_an_unreadable_camera_holds(when):
    cam = [started(3.9), ended(26, [6]), unreadable(when)]
    out = run(camera_judge(), game(1, "17", 0, camera=cam))
    assert kinds(out)[-1] == "hold:camera_unreadable" and not results(out)


def test_an_unreadable_moment_cleared_by_a_good_reading_certifies():
    cam = [started(3.9), unreadable(10, "rotor_not_found"), ended(26, [6]), rest(28, "17")]
    assert results(run(camera_judge(), game(1, "17", 0, camera=cam))) == [{"number": "17", "game_counter": 1}]


# --- telling the sources apart: by device role, never by event type ---------------------------------------


def test_a_camera_warning_holds_the_game_and_is_not_taken_for_a_wheel_fault():
    # the same neutral WheelWarning from the wheel voids the game (wheel_fault); from the camera it is a
    # reading problem: the round is held for the dealer, the wheel's game is not voided
    cam = [started(3.9), ended(26, [6]), unreadable(27, "ball_on_fret")]
    out = run(camera_judge(), game(1, "17", 0, camera=cam))
    assert kinds(out)[-1] == "hold:camera_unreadable" and "ball_on_fret: test" in out[-1].message
    assert not [d for d in out if isinstance(d, Void)] and not results(out)
    fault = WheelWarning(device_id=WHEEL, at=at(27), code="ball_on_fret", description="test")
    out = run(camera_judge(), game(1, "17", 0, camera=[started(3.9), ended(26, [6]), fault]))
    assert "void:wheel_fault" in kinds(out) and not results(out)


def test_the_cameras_reading_is_never_taken_for_the_wheels_number():
    # a camera reading with a game number of its own is still the camera's: its device says so
    cam = seen(1, 0, "34")
    cam[-1] = WheelResult(device_id=CAMERA, at=cam[-1].at, game_counter=1, number="34")
    out = run(camera_judge(), game(1, "17", 0, camera=cam))
    assert kinds(out)[-1] == "hold:camera_disagrees" and not results(out)
    # and without the wheel's number the camera's alone certifies nothing
    out = run(
        camera_judge(),
        [
            e
            for e in game(1, "17", 0, camera=seen(1, 0, "17"))
            if e.device_id == CAMERA or not isinstance(e, WheelResult)
        ],
    )
    assert not results(out)


def test_the_camera_is_found_by_its_configured_role():
    judge = camera_judge(camera_role="overhead")
    cam = [e.model_copy(update={"device_id": "t1/overhead"}) for e in seen(1, 0, "17")]
    out = run(judge, game(1, "17", 0, camera=cam))
    assert results(out) == [{"number": "17", "game_counter": 1}]
    assert out[-1].source["camera_device_id"] == "t1/overhead"
    # under the default role name the same events are another wheel's, not this table's camera: no result
    out = run(camera_judge(camera_role="overhead"), game(1, "17", 0, camera=seen(1, 0, "17")))
    assert not results(out)


@pytest.mark.parametrize(
    "roles, why",
    [
        ({"wheel_role": "cam", "camera_role": "cam"}, "different roles"),
        ({"camera_role": "t1/camera"}, "device role"),
    ],
)
def test_roles_that_cannot_tell_the_devices_apart_are_refused(roles, why):
    with pytest.raises(ValueError, match=why):
        camera_judge(**roles)


def test_the_plain_wheel_judge_takes_a_number_without_a_game_number_for_nobodys():
    from recognition.wheel_judge import WheelJudge

    judge = WheelJudge(pockets=EUROPEAN.pockets)
    events = game(1, "17", 0)
    events.insert(3, WheelResult(device_id=CAMERA, at=at(20), number="5"))
    assert results(run(judge, events)) == [{"number": "17", "game_counter": 1}]


def test_a_camera_lost_during_the_game_holds_and_its_return_releases_only_the_table_hold():
    judge = camera_judge()
    cam = [
        started(3.9),
        DeviceDisconnected(device_id=CAMERA, at=at(10), reason="cable"),
        DeviceConnected(device_id=CAMERA, at=at(11), port="tcp://cam"),
        ended(26, [6]),
        rest(28, "17"),
    ]
    out = run(judge, game(1, "17", 0, camera=cam))
    assert kinds(out) == [
        "open_round",
        "hold:camera_lost",
        "release:camera_lost",
        "close_betting",
        "start_play",
        "hold:camera_missed_game",
    ]
    assert not results(out)
    # a camera connect or disconnect never voids the wheel's game (that is the wheel's own link)
    assert not [d for d in out if isinstance(d, Void)]


def test_a_camera_that_never_reads_voids_the_game_when_the_next_one_opens():
    judge = camera_judge()
    out = run(judge, game(1, "17", 0, camera=[started(3.9), ended(26, [6])]))
    assert kinds(out) == ["open_round", "close_betting", "start_play"]
    out = run(judge, [st(2, 2, 40)])
    assert kinds(out) == ["void:no_camera_reading", "open_round"]
    assert "wheel number 17" in out[0].message


def test_balls_at_rest_without_a_launch_are_the_last_game_and_cannot_confirm():
    judge = camera_judge()
    out = run(judge, game(1, "17", 0, camera=[rest(1, "17")]))  # still lying where the last game left it
    assert kinds(out)[-1] == "hold:camera_missed_game" and not results(out)


def test_the_last_games_ball_at_rest_before_the_launch_does_not_disturb():
    cam = [rest(1, "3")] + seen(1, 0, "17")
    assert results(run(camera_judge(), game(1, "17", 0, camera=cam))) == [{"number": "17", "game_counter": 1}]


def test_a_camera_reading_outside_the_wheel_is_a_disagreement():
    out = run(
        camera_judge(), game(1, "0", 0, camera=seen(1, 0, "00"))
    )  # an American calibration on a European wheel
    assert kinds(out)[-1] == "hold:camera_disagrees" and "not a pocket of this wheel" in out[-1].message


def test_two_balls_seen_on_a_single_ball_table_hold():
    out = run(camera_judge(), game(1, "17", 0, camera=seen(1, 0, "17", "5")))
    assert kinds(out)[-1] == "hold:camera_disagrees" and "2 balls" in out[-1].message


def test_a_round_the_dealer_voided_is_not_certified_by_the_wheel_playing_on():
    judge = camera_judge()
    out = run(
        judge,
        [
            st(2, 1, 0),
            st(3, 1, 4),
            started(3.9),
            RoundSignal(signal="round_ended", round_number=1, at=at(5), final_state="voided"),
        ],
    )
    out += run(judge, [st(4, 1, 12), ended(26, [6]), rest(28, "17"), res(1, "17", 30), st(5, 1, 30.5)])
    assert not results(out) and not [d for d in out if isinstance(d, Hold)]


def test_the_bare_wheel_judge_ignores_another_devices_link():
    """A camera configured on a table whose game does not use it must not void the wheel's game."""
    judge = EuropeanRoulette().new_judge()
    out = run(
        judge,
        [
            st(2, 1, 0),
            st(3, 1, 4),
            DeviceDisconnected(device_id=CAMERA, at=at(5), reason="cable"),
            DeviceConnected(device_id=CAMERA, at=at(6), port="x"),
            st(4, 1, 12),
            res(1, "17", 30),
        ],
    )
    assert results(out) == [{"number": "17", "game_counter": 1}]
    out = run(judge, [DeviceDisconnected(device_id=WHEEL, at=at(40), reason="cable")])
    assert kinds(out) == ["hold:device_lost"]  # its own link still counts


def test_camera_events_on_a_table_that_does_not_use_the_camera_are_noted_once():
    judge = EuropeanRoulette().new_judge(min_ball_revolutions=4)
    out = run(
        judge,
        game(
            1,
            "17",
            0,
            camera=seen(1, 0, "5") + [DeviceDisconnected(device_id=CAMERA, at=at(29), reason="cable")],
        ),
    )
    assert kinds(out) == [
        "open_round",
        "note:camera_events_ignored",
        "close_betting",
        "start_play",
        "result_ready",
    ]


def test_the_wheels_own_voids_pass_through_and_acknowledge():
    judge = camera_judge()
    out = run(judge, [st(2, 1, 0), st(3, 1, 4), started(3.9), st(3, 1, 6, flags=2)])
    assert kinds(out) == ["open_round", "void:miss_spin", "send_command"]
    assert out[-1].command == "acknowledge_void"
    # the camera's reading of the voided game changes nothing
    assert run(judge, [ended(8, [1]), rest(9, "17")]) == []


# --- ball revolutions -----------------------------------------------------------------------------------


def test_the_wheels_timing_bound_is_the_spec_arithmetic():
    # state 3 lasts t3; each revolution in it is shorter than the no-more-bets threshold n / 2048 s (1.43 s by default)
    assert revolutions_from_wheel(timedelta(seconds=0)) == 1
    assert whole(revolutions_from_wheel(timedelta(seconds=7.5))) == 6  # the capture's games: 14-16 reports
    assert whole(revolutions_from_wheel(timedelta(seconds=4.27))) == 3
    assert whole(revolutions_from_wheel(timedelta(seconds=4.28))) == 4  # 1 + 4.28 * 2048 / 2920 = 4.0019
    assert whole(revolutions_from_wheel(timedelta(seconds=2.5), nmb_threshold=2500)) == 3
    from fractions import Fraction

    assert (
        whole(revolutions_from_wheel(timedelta(seconds=0.5), time_scale=Fraction(20))) == 8
    )  # 1 + 10 * 2048 / 2920


@pytest.mark.parametrize("rim_s, certified", [(8.0, True), (4.28, True), (4.27, False), (1.0, False)])
def test_revolutions_from_the_wheel_timings(rim_s, certified):
    judge = EuropeanRoulette().new_judge(min_ball_revolutions=4)
    out = run(judge, game(1, "17", 0, rim_s=rim_s))
    if certified:
        assert results(out) == [{"number": "17", "game_counter": 1}]
        assert out[-1].source["revolutions_from"] == "wheel"
        assert out[-1].source["ball_revolutions"] == whole(revolutions_from_wheel(timedelta(seconds=rim_s)))
    else:
        assert kinds(out)[-1] == "void:too_few_revolutions" and not results(out)
        assert "at least 4 needed; the wheel said 17" in out[-1].message


def test_a_simulated_wheels_time_is_scaled():
    # a simulator at speed 20 plays state 3 in 0.4 s: 8 s of a real wheel
    out = run(
        EuropeanRoulette().new_judge(min_ball_revolutions=4, wheel_time_scale=20), game(1, "9", 0, rim_s=0.4)
    )
    assert out[-1].source["ball_revolutions"] == 6
    out = run(EuropeanRoulette().new_judge(min_ball_revolutions=4), game(1, "9", 0, rim_s=0.4))
    assert kinds(out)[-1] == "void:too_few_revolutions"


def counted_game(counter: int, number: str, *, read_rim_s: float, reports: int | None) -> list:
    """A wheel game whose no-more-bets status says how many 500 ms reports the wheel sent in the rim, while
    we read the two statuses read_rim_s apart (late or bunched reads on a starved machine)."""
    events = game(counter, number, 0, rim_s=read_rim_s)
    nmb = next(i for i, e in enumerate(events) if isinstance(e, WheelStatus) and e.phase == "no_more_bets")
    if reports is not None:
        events[nmb] = events[nmb].model_copy(
            update={"previous_phase_reports": reports, "report_period_ms": 500}
        )
    return events


@pytest.mark.parametrize(
    "read_rim_s, reports, revolutions",
    [
        (0.004, 16, 6),  # read in one go: the wheel's 15 whole periods (7.5 s) hold, not our 4 ms
        (7.8, 16, 6),  # read on time: the read times, within the wheel's window
        (30.0, 3, 2),  # the no-more-bets line read 30 s late: the wheel's 3 reports (at most 1.5 s) hold
        (0.004, None, 1),  # a wheel that gives no count: the read times alone
        (0.004, 1, 1),
    ],
)
def test_the_wheels_own_count_of_reports_bounds_the_read_times(read_rim_s, reports, revolutions):
    judge = EuropeanRoulette().new_judge(min_ball_revolutions=1)
    out = run(judge, counted_game(1, "17", read_rim_s=read_rim_s, reports=reports))
    assert results(out) == [{"number": "17", "game_counter": 1}]
    assert out[-1].source["ball_revolutions"] == revolutions


def test_a_valid_spin_read_in_one_go_is_certified_and_a_short_one_stays_void_however_late_we_read():
    judge = EuropeanRoulette().new_judge(min_ball_revolutions=4)
    out = run(judge, counted_game(1, "17", read_rim_s=0.004, reports=15))  # 7 s at least: 5.9 revolutions
    assert results(out) == [{"number": "17", "game_counter": 1}] and out[-1].source["ball_revolutions"] == 5
    out = run(judge, counted_game(2, "4", read_rim_s=20.0, reports=6))  # 3 s at most: 3.1 revolutions
    assert kinds(out)[-1] == "void:too_few_revolutions" and "3 revolutions by the wheel" in out[-1].message


@pytest.mark.parametrize(
    "revs, expected", [(3, "void:too_few_revolutions"), (4, "result_ready"), (11, "result_ready")]
)
def test_revolutions_counted_by_the_camera(revs, expected):
    out = run(camera_judge(), game(1, "17", 0, camera=seen(1, 0, "17", revs=revs)))
    assert kinds(out)[-1] == expected
    if expected == "result_ready":
        assert out[-1].source["ball_revolutions"] == revs


def test_an_incomplete_camera_count_falls_back_to_the_wheel_or_holds():
    cam = seen(1, 0, "17", revs=2, complete=False)
    out = run(camera_judge(), game(1, "17", 0, camera=cam))
    assert out[-1].source["revolutions_from"] == "wheel" and out[-1].source["ball_revolutions"] == 6
    out = run(
        camera_judge(revolution_source="camera"), game(1, "17", 0, camera=seen(1, 0, "17", complete=False))
    )
    assert kinds(out)[-1] == "hold:revolutions_unknown" and not results(out)


def test_a_spin_the_camera_saw_in_two_pieces_is_not_its_count():
    # the ball went out of sight in the track (a hand, glare): two partial spins, neither the whole count
    cam = [started(3.9), ended(10, [2]), started(11), ended(26, [3]), rest(28, "17")]
    out = run(camera_judge(), game(1, "17", 0, camera=cam))
    assert results(out) and out[-1].source["revolutions_from"] == "wheel"


def test_a_short_spin_by_the_camera_is_void_even_if_the_wheel_timing_looks_long():
    out = run(camera_judge(), game(1, "17", 0, camera=seen(1, 0, "17", revs=2)))
    assert kinds(out)[-1] == "void:too_few_revolutions" and "2 revolutions by the camera" in out[-1].message


def test_no_revolution_check_when_switched_off():
    out = run(
        camera_judge(min_ball_revolutions=0), game(1, "17", 0, rim_s=0.1, camera=seen(1, 0, "17", revs=0))
    )
    assert results(out) and "ball_revolutions" not in out[-1].source


def test_every_roulette_game_checks_four_revolutions_by_default():
    roulettes = [g for g in GAMES.values() if getattr(g, "time_scale_setting", None) == "wheel_time_scale"]
    assert {"european_roulette", "american_roulette", "lightning_roulette", "double_ball_roulette"} <= {
        g.game_id for g in roulettes
    }
    for game in roulettes:
        judge = game.new_judge()
        assert isinstance(judge, RouletteTableJudge) and judge.min_revolutions == 4, game.game_id


def test_a_short_spin_on_a_bare_european_wheel_is_void():
    out = run(EuropeanRoulette().new_judge(), game(1, "9", 0, rim_s=0.4))
    assert kinds(out)[-1] == "void:too_few_revolutions"
    out = run(EuropeanRoulette().new_judge(), game(1, "9", 0, rim_s=8))
    assert [r["number"] for r in results(out)] == ["9"]


# --- double ball ----------------------------------------------------------------------------------------


def double_judge(**settings):
    return GAMES["double_ball_roulette"].new_judge(**settings)


@pytest.mark.parametrize("pockets, wheel", [(("17", "5"), "5"), (("17", "5"), "17"), (("0", "0"), "0")])
def test_double_ball_takes_both_pockets_from_the_camera(pockets, wheel):
    out = run(double_judge(), game(1, wheel, 0, camera=seen(1, 0, *pockets)))
    assert results(out) == [{"game_counter": 1, "numbers": list(pockets)}]
    assert out[-1].source["camera_pockets"] == list(pockets)


@pytest.mark.parametrize(
    "pockets, wheel, why",
    [
        (("17", "5"), "6", "the wheel says 6, the camera sees 17 and 5"),
        (("17",), "17", "the camera sees 1 ball at rest (17), this game throws 2"),
    ],
)
def test_double_ball_holds_when_the_wheel_is_not_one_of_the_balls(pockets, wheel, why):
    out = run(double_judge(), game(1, wheel, 0, camera=seen(1, 0, *pockets)))
    assert kinds(out)[-1] == "hold:camera_disagrees" and why in out[-1].message and not results(out)


def test_double_ball_needs_both_balls_counted():
    out = run(
        double_judge(), game(1, "5", 0, camera=[started(3.9, 2), ended(26, [6, 3]), rest(28, "5", "9")])
    )
    assert kinds(out)[-1] == "void:too_few_revolutions"
    out = run(double_judge(), game(1, "5", 0, camera=[started(3.9, 2), ended(26, [6]), rest(28, "5", "9")]))
    assert out[-1].source["revolutions_from"] == "wheel"  # one track for two balls: not the camera's count


def test_double_ball_without_a_camera_is_refused():
    with pytest.raises(ValueError, match="two balls need the overhead camera"):
        double_judge(camera=False)


# --- auto-start -----------------------------------------------------------------------------------------


def test_auto_start_sets_the_mode_at_connect_and_starts_each_settled_game():
    judge = EuropeanRoulette().new_judge(auto_start=True, wheel_mode=135)
    out = run(judge, [DeviceConnected(device_id=WHEEL, at=at(0), port="/dev/pts/9"), st(1, 1, 0.5)])
    assert [d.command for d in out if isinstance(d, SendCommand)] == [
        "set_mode 135",
        "start_spin clockwise",
    ]  # power-on: start
    assert all(d.device_role is None for d in out)  # a wheel alone: the table's only device
    out = run(judge, [st(1, 1, 1)] + game(1, "17", 2))
    sends = [d.command for d in out if isinstance(d, SendCommand)]
    assert (
        sends == ["start_spin clockwise"] and kinds(out)[-1] == "send_command"
    )  # once, after the certified game, in state 5
    assert kinds(out)[-2] == "result_ready"
    # a repeated status of the same waiting state sends nothing more
    assert run(judge, [st(5, 1, 40)]) == []


def test_auto_start_waits_for_the_dealer_on_a_held_game():
    judge = camera_judge(auto_start=True)
    out = run(judge, game(1, "17", 0, camera=seen(1, 0, "34")))
    assert kinds(out)[-1] == "hold:camera_disagrees"
    assert not [d for d in out if isinstance(d, SendCommand)]
    # the dealer voids it: the wheel (named by its role, beside the camera) starts the next game
    out = run(judge, [RoundSignal(signal="round_ended", round_number=1, at=at(60), final_state="voided")])
    assert out == [SendCommand(command="start_spin clockwise", device_role="wheel")]


def test_auto_start_after_the_dealer_settles_a_wheel_only_table():
    judge = EuropeanRoulette().new_judge(auto_start=True, start_command="start_spin")
    out = run(
        judge, [st(2, 1, 0), st(3, 1, 4), st(4, 1, 12), res(1, "00", 30), st(5, 1, 30.2)]
    )  # not a pocket
    assert kinds(out)[-1] == "hold:unverified_result"
    assert not [d for d in out if isinstance(d, SendCommand)]
    out = run(judge, [RoundSignal(signal="round_ended", round_number=1, at=at(60), final_state="voided")])
    assert [d.command for d in out if isinstance(d, SendCommand)] == ["start_spin"]


def test_auto_start_re_spins_a_short_spin():
    judge = EuropeanRoulette().new_judge(auto_start=True, min_ball_revolutions=4)
    out = run(judge, game(1, "17", 0, rim_s=2))
    assert kinds(out)[-2:] == ["void:too_few_revolutions", "send_command"]


def test_auto_start_with_a_camera_names_the_wheel_whoever_decides():
    judge = camera_judge(auto_start=True, wheel_role="roulette")
    out = run(
        judge, game(1, "17", 0, camera=seen(1, 0, "17"))
    )  # the camera read first: the wheel's event decides
    assert kinds(out)[-2:] == ["result_ready", "send_command"]
    assert out[-1] == SendCommand(command="start_spin clockwise", device_role="roulette")
    judge = camera_judge(auto_start=True)
    cam = seen(1, 0, "17")
    cam[-1] = rest(40, "17")  # the camera reads after the wheel waits in state 5: its event decides
    out = run(judge, game(1, "17", 0, camera=cam))
    assert kinds(out)[-2:] == ["result_ready", "send_command"]
    assert out[-1] == SendCommand(command="start_spin clockwise", device_role="wheel")


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"auto_start": True, "wheel_mode": 70000}, "operating mode 0-65535"),
        ({"start_command": "start_spin sideways"}, "start_command must be one of"),
        ({"min_ball_revolutions": -1}, "min_ball_revolutions"),
        ({"min_ball_revolutions": 4.5}, "min_ball_revolutions"),
        ({"wheel_time_scale": 0}, "wheel_time_scale"),
        ({"nmb_threshold": 0}, "nmb_threshold"),
        ({"revolution_source": "camera"}, "needs the camera"),
        ({"camera": "yes"}, "camera is true or false"),
    ],
)
def test_bad_settings_are_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        EuropeanRoulette().new_judge(**settings)


def test_a_misspelt_setting_is_an_error():
    with pytest.raises(TypeError):
        EuropeanRoulette().new_judge(camera=True, no_ball_tolerence_s=3)
    with pytest.raises(TypeError):
        GAMES["lightning_roulette"].new_judge(min_ball_revolution=3)


# --- never a wrong number --------------------------------------------------------------------------------


def test_random_faults_never_certify_a_number_the_ball_is_not_in():
    """Thousands of games where the wheel or the camera may misread, lose the link or go quiet: whatever is
    certified is where the ball lies (only both devices misreading alike could fool the judge, never tried)."""
    rng = random.Random(20261129)
    pockets = EUROPEAN.pockets
    judge = camera_judge()
    t, counter = 0.0, 0
    truth: dict[int, str] = {}
    certified = 0
    for _ in range(1500):
        counter = counter % 256 + 1
        ball = rng.choice(pockets)
        truth[counter] = ball
        wrong = rng.choice([p for p in pockets if p != ball])
        fault = rng.choice(
            [
                "none",
                "none",
                "wheel_wrong",
                "camera_wrong",
                "camera_lost",
                "camera_quiet",
                "unreadable",
                "short",
                "miss_spin",
            ]
        )
        cam = seen(counter, t, wrong if fault == "camera_wrong" else ball, revs=2 if fault == "short" else 6)
        if fault == "camera_lost":
            cam.insert(1, DeviceDisconnected(device_id=CAMERA, at=at(t + 9), reason="cable"))
            cam.insert(2, DeviceConnected(device_id=CAMERA, at=at(t + 10), port="x"))
        elif fault == "camera_quiet":
            cam = cam[:1]
        elif fault == "unreadable":
            cam[-1] = unreadable(t + 28)
        events = game(counter, wrong if fault == "wheel_wrong" else ball, t, camera=cam)
        if fault == "miss_spin":
            events = [e for e in events if e.at < at(t + 6)] + [st(3, counter, t + 6, flags=2)]
        for d in run(judge, events):
            if isinstance(d, ResultReady):
                certified += 1
                assert d.result["number"] == truth[d.result["game_counter"]], (fault, d)
                assert fault == "none", (fault, d)
        t += 60
    assert certified > 200  # the clean games do get certified


# --- the configuration check: the roles the judge reads are the devices' ---------------------------------


def test_the_configuration_check_matches_the_devices_to_the_roles_the_judge_reads():
    european, double = EuropeanRoulette(), GAMES["double_ball_roulette"]
    european.check_devices({}, {"wheel": "cammegh-ss2"})
    european.check_devices({"camera": True}, {"wheel": "cammegh-ss2", "camera": "roulette-camera"})
    european.check_devices({"camera_role": "top"}, {"wheel": "cammegh-ss2", "top": "roulette-camera"})
    double.check_devices({}, {"wheel": "cammegh-ss2", "camera": "roulette-camera"})
    refused = [
        (european, {}, {"wheel": "cammegh-ss2", "top": "roulette-camera"}, "set camera_role = 'top'"),
        (european, {}, {"ss2": "cammegh-ss2", "camera": "roulette-camera"}, "set wheel_role = 'ss2'"),
        (european, {"camera": True}, {"wheel": "cammegh-ss2"}, "add a roulette-camera device"),
        (double, {}, {"wheel": "cammegh-ss2"}, "add a roulette-camera device"),
        (european, {}, {"a": "roulette-camera", "b": "roulette-camera"}, "one overhead camera at most"),
        (european, {}, {"a": "cammegh-ss2", "b": "cammegh-ss2"}, "one wheel"),
    ]
    for game_rules, settings, kinds_, why in refused:
        with pytest.raises(ValueError, match=why):
            game_rules.check_devices(settings, kinds_)


def test_check_config_refuses_a_camera_the_judge_would_take_for_a_wheel():
    from simulators.roulette_camera import View
    from studio.config import parse_config

    calibration = View(width=640, height=360).calibration()
    table = {
        "id": "t1",
        "game": "european_roulette",
        "settings": {"camera": True},
        "devices": [
            {"kind": "cammegh-ss2", "role": "wheel", "url": "serial:///dev/ttyUSB0"},
            {
                "kind": "roulette-camera",
                "role": "overhead",
                "url": "tcp://cam:9000",
                "options": {"calibration": calibration},
            },
        ],
    }
    with pytest.raises(ValueError, match="camera_role = 'overhead'"):
        parse_config({"studio": {}, "tables": [table]})
