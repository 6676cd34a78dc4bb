"""SS2Tracker: parsed messages -> device events (spec §9.12-9.23, §9.38)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from devices.events import (
    DeviceUnknownMessage,
    WheelReply,
    WheelRestart,
    WheelResult,
    WheelStatus,
    WheelWarning,
)
from devices.roulette.cammegh_ss2 import FLAG_WARNINGS, PHASES, SS2Tracker, iter_capture_events, parse_line

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)

STATE = {phase: n for n, phase in PHASES.items()}


def state(e) -> int:
    """The SS2 state a neutral status was mapped from."""
    return STATE[e.phase]


def flags(e) -> int:
    """The SS2 warning flags a neutral status was mapped from."""
    return sum(int(bit) for bit, code in FLAG_WARNINGS if code in e.warnings)


class Feeder:
    def __init__(self) -> None:
        self.tracker = SS2Tracker("wheel-1")
        self.at = T0

    def __call__(self, *lines: str) -> list:
        out = []
        for line in lines:
            self.at += timedelta(milliseconds=500)
            out += self.tracker.feed(parse_line(line), self.at)
        return out


@pytest.fixture
def feed() -> Feeder:
    return Feeder()


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


def results(events):
    return [(e.game_counter, e.number) for e in of(events, WheelResult)]


def game(counter: int, number: str, prev: str = "34", direction: str = "0") -> list[str]:
    """One game as the wheel sends it: states 2, 3, 4, winning-number line, 5."""
    c = f"{counter:03d}"
    n = number.rjust(2)
    return [
        f"*X;2;{c};{prev};0;150;{direction}",
        f"*X;2;{c};{prev};0;150;{direction}",
        f"*X;3;{c};{prev};0;160;{direction}",
        f"*X;4;{c};{prev};0;155;{direction}",
        n,
        f"*X;5;{c};{n};0;150;{direction}",
        f"*X;5;{c};{n};0;150;{direction}",
    ]


# -- the real capture ---------------------------------------------------------------


@pytest.fixture(scope="module")
def capture_events(capture_bytes):
    return list(iter_capture_events([capture_bytes], "wheel-1", clock=lambda: T0))


def test_capture_results_once_each(capture_events):
    assert results(capture_events) == [(11, "27"), (12, "16"), (13, "6"), (14, "3"), (15, "10"), (16, "0")]
    assert [e.raw for e in of(capture_events, WheelResult)] == ["27", "16", " 6", " 3", "10", " 0"]


def test_capture_status_changes_match_the_spec_table(capture_events):
    # §8.1: per game 2 (old direction), 2 (new direction), 3, 4, 5; state 1 first; 6 at the end
    statuses = [(state(e), e.game_counter, e.direction) for e in of(capture_events, WheelStatus)]
    expected = [(1, 11, "clockwise"), (2, 11, "clockwise")]
    direction = "counterclockwise"
    for counter in range(11, 17):
        if counter > 11:
            old = "clockwise" if direction == "counterclockwise" else "counterclockwise"
            expected += [(2, counter, old)]
        expected += [(2, counter, direction)] + [(s, counter, direction) for s in (3, 4, 5)]
        direction = "clockwise" if direction == "counterclockwise" else "counterclockwise"
    expected += [(2, 17, "clockwise"), (6, 17, "clockwise")]
    assert statuses == expected
    assert len(statuses) == 33  # 452 status lines, 33 changes


def test_capture_power_events_state_6_and_no_warnings(capture_events):
    replies = [(e.command, e.text, e.raw) for e in of(capture_events, WheelReply)]
    assert replies == [("P", "1", "*P 1"), ("P", "OK", "*P OK"), ("P", "0", "*P 0"), ("P", "OK", "*P OK")]
    assert capture_events[0].raw == "*P 1" and capture_events[1].raw == "*P OK"
    last = of(capture_events, WheelStatus)[-1]
    assert (state(last), last.game_counter, last.last_number, last.speed_rpm) == (6, 17, "0", 0.4)
    assert not of(capture_events, (WheelWarning, WheelRestart, DeviceUnknownMessage))
    assert all(flags(e) == 0 for e in of(capture_events, WheelStatus))
    assert all(e.device_id == "wheel-1" and e.at == T0 for e in capture_events)


def test_capture_logs_no_warning(capture_bytes, caplog):
    with caplog.at_level(logging.INFO):
        list(iter_capture_events([capture_bytes], "wheel-1"))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_result_comes_before_the_state5_status_when_the_line_leads(capture_events):
    i = next(i for i, e in enumerate(capture_events) if isinstance(e, WheelResult))
    nxt = capture_events[i + 1]
    assert (
        isinstance(nxt, WheelStatus)
        and state(nxt) == 5
        and nxt.game_counter == 11
        and nxt.last_number == "27"
    )


# -- status on change only ----------------------------------------------------------------


def test_repeated_status_lines_give_one_event(feed):
    events = feed(*["*X;4;011;34;0;136;1"] * 9)
    assert len(events) == 1 and isinstance(events[0], WheelStatus)
    assert (state(events[0]), events[0].game_counter, events[0].speed_rpm) == (4, 11, 13.6)


def test_speed_alone_is_not_a_change_but_state_flags_direction_counter_are(feed):
    assert len(feed("*X;3;011;34;0;150;1")) == 1
    assert feed("*X;3;011;34;0;151;1", "*X;3;011;34;0;149;1") == []
    assert [flags(e) for e in feed("*X;3;011;34;2;149;1")] == [2]
    assert [e.direction for e in feed("*X;3;011;34;2;149;0")] == ["clockwise"]
    assert [state(e) for e in feed("*X;4;011;34;2;149;0")] == [4]
    assert [e.game_counter for e in feed("*X;4;012;34;2;149;0")] == [12]


def test_flags_are_reported_as_an_int_bit_field(feed):
    (status,) = feed("*X;3;011;27;A;150;1")
    assert flags(status) == 10
    assert flags(status) & 8 and flags(status) & 2 and not flags(status) & 1


# -- results ------------------------------------------------------------------------------


def test_one_result_per_game_from_the_winning_number_line(feed):
    events = feed(*game(11, "27"))
    assert results(events) == [(11, "27")]
    assert of(events, WheelResult)[0].raw == "27"


def test_same_number_twice_in_a_row_is_reported_twice(feed):
    events = feed(*game(11, "27"), *game(12, "27", prev="27"))
    assert results(events) == [(11, "27"), (12, "27")]


def test_without_the_winning_number_line_the_first_state5_status_gives_the_result(feed):
    lines = [line for line in game(11, "6") + game(12, "6", prev=" 6") if not line.startswith(" ")]
    events = feed(*lines)
    assert results(events) == [(11, "6"), (12, "6")]
    assert of(events, WheelResult)[0].raw == "*X;5;011; 6;0;150;0"


def test_zero_and_double_zero(feed):
    events = feed(*game(11, "0"), *game(12, "00", prev=" 0"))
    assert results(events) == [(11, "0"), (12, "00")]


def test_counter_kept_across_5_to_2_still_gives_a_new_game(feed):
    # the guide's examples keep 011 across 5 -> 2 (§7.4): the next game's result is new
    events = feed(*game(11, "25"), *game(11, "25", prev="25"))
    assert results(events) == [(11, "25"), (11, "25")]


def test_late_winning_number_line_of_the_same_game_is_not_reported_again(feed):
    events = feed("*X;4;011;34;0;150;0", "*X;5;011;27;0;150;0", "27", "*X;5;011;27;0;150;0")
    assert results(events) == [(11, "27")]


def test_conflicting_number_keeps_the_first_and_warns(feed, caplog):
    with caplog.at_level(logging.WARNING):
        events = feed("*X;4;011;34;0;150;0", "27", "*X;5;011;26;0;150;0")
    assert results(events) == [(11, "27")]
    assert feed.tracker.stats["result_conflicts"] == 1
    assert any("already reported" in r.getMessage() for r in caplog.records)


def test_no_result_while_field4_is_blank(feed):
    events = feed("*X;5;001;  ;0;150;0")
    assert results(events) == []


def test_field4_change_alone_is_not_a_result(feed):
    events = feed("*X;2;012;27;0;150;0", "*X;2;012;16;0;150;0", "*X;3;012;16;0;150;0")
    assert results(events) == []


# -- winning number with no known counter ----------------------------------------------------


def test_winning_number_first_after_connect_is_tied_to_the_next_status(feed):
    assert feed(" 6") == []  # held: no counter known yet
    events = feed("*X;5;013; 6;0;177;1", "*X;5;013; 6;0;177;1")
    assert results(events) == [(13, "6")]
    assert of(events, WheelResult)[0].raw == " 6"


def test_unconfirmed_winning_number_is_reported_as_unknown(feed):
    assert feed("27") == []
    events = feed("*X;2;012;16;0;150;0")
    assert results(events) == []
    assert [e.raw for e in of(events, DeviceUnknownMessage)] == ["27"]
    assert feed.tracker.stats["orphan_numbers"] == 1


def test_after_a_reconnect_a_winning_number_waits_for_a_status(feed):
    feed(*game(11, "27"))
    feed.tracker.link_reset()
    assert feed("16") == []  # not credited to game 11 (or to a stale counter)
    events = feed("*X;5;014;16;0;150;0")
    assert results(events) == [(14, "16")]
    assert of(events, WheelResult)[0].raw == "16"  # from the held line, tied to the new counter
    assert feed.tracker.stats["result_conflicts"] == 0


def test_reconnect_in_state5_does_not_repeat_the_result_but_repeats_the_status(feed):
    feed(*game(11, "27"))
    feed.tracker.link_reset()
    events = feed("*X;5;011;27;0;150;0")
    assert results(events) == []
    assert [(state(e), e.game_counter) for e in of(events, WheelStatus)] == [(5, 11)]


def test_connecting_during_state5_reports_that_game(feed):
    assert results(feed("*X;5;011;27;0;150;0", "*X;5;011;27;0;150;0")) == [(11, "27")]


# -- counter wrap and restarts ---------------------------------------------------------------


@pytest.mark.parametrize("after", ["001", "000"])
def test_counter_wrap_is_not_a_restart(feed, after):
    events = feed("*X;5;256;10;0;150;0", f"*X;2;{after};10;0;150;0")
    assert not of(events, WheelRestart)
    assert [e.game_counter for e in of(events, WheelStatus)] == [256, int(after)]
    assert (feed.tracker.stats["wraps"], feed.tracker.stats["restarts"]) == (1, 0)


def test_counter_drop_is_a_restart(feed):
    events = feed(*game(15, "10"), "*X;1;003;  ;0;050;0", *game(3, "5", prev="  ")[1:])
    (restart,) = of(events, WheelRestart)
    assert (restart.previous_counter, restart.game_counter) == (15, 3)
    assert restart.raw == "*X;1;003;  ;0;050;0"
    assert results(events) == [(15, "10"), (3, "5")]
    assert feed.tracker.stats["restarts"] == 1


def test_counter_going_up_is_not_a_restart(feed):
    assert not of(feed("*X;2;011;34;0;150;0", "*X;2;012;34;0;150;0", "*X;2;020;34;0;150;0"), WheelRestart)


def test_restart_is_also_detected_after_a_reconnect(feed):
    feed("*X;2;015;34;0;150;0")
    feed.tracker.link_reset()
    assert [(e.previous_counter, e.game_counter) for e in of(feed("*X;6;001;  ;0;000;0"), WheelRestart)] == [
        (15, 1)
    ]


# -- faults and self-test -----------------------------------------------------------------------


def test_unsolicited_fault_is_not_a_self_test(feed):
    (fault,) = feed("*F 21")
    assert isinstance(fault, WheelWarning)
    assert (int(fault.vendor_code), fault.self_test, fault.raw) == (21, False, "*F 21")
    assert "sensor 1" in fault.description


def test_f0_is_always_a_self_test_answer(feed):
    (fault,) = feed("*F 0")
    assert (int(fault.vendor_code), fault.self_test) == (0, True)


def test_self_test_answers_are_marked_until_the_burst_ends(feed):
    feed.tracker.self_test_requested(feed.at)
    assert feed.tracker.self_test_pending
    feed("*X;6;017; 0;0;000;0", "*X;6;017; 0;0;000;0")  # status while the test runs
    answers = feed("*F 11", "*F 22")
    assert [(int(e.vendor_code), e.self_test) for e in answers] == [(11, True), (22, True)]
    feed("*X;6;017; 0;0;000;0")  # the burst is over
    assert not feed.tracker.self_test_pending
    assert [(int(e.vendor_code), e.self_test) for e in feed("*F 4")] == [(4, False)]


def test_self_test_f0_ends_the_test(feed):
    feed.tracker.self_test_requested(feed.at)
    assert [e.self_test for e in feed("*F 0")] == [True]
    assert [e.self_test for e in feed("*F 5")] == [False]


def test_f_busy_cancels_the_self_test(feed):
    feed.tracker.self_test_requested(feed.at)
    (reply,) = feed("*F BUSY")
    assert isinstance(reply, WheelReply) and (reply.command, reply.text) == ("F", "BUSY")
    assert [e.self_test for e in feed("*F 4")] == [False]


def test_f_echo_in_the_stream_marks_a_self_test(feed):
    (echo,) = feed("*F")
    assert isinstance(echo, WheelReply) and echo.command == "F" and echo.text == ""
    assert [e.self_test for e in feed("*F 6")] == [True]


def test_self_test_mark_expires(feed):
    feed.tracker.self_test_requested(feed.at)
    feed.at += timedelta(minutes=7)
    assert [e.self_test for e in feed("*F 2")] == [False]


# -- replies, other lines, unknowns ----------------------------------------------------------


def test_replies_and_device_info(feed):
    events = feed("*S 1.20", "*V SS2 2.52", "*v FPGA 4", "*o 1159", "*T OK", "*Z OK", "*W BUSY")
    assert [(e.command, e.text) for e in events] == [
        ("S", "1.20"),
        ("V", "SS2 2.52"),
        ("v", "FPGA 4"),
        ("o", "1159"),
        ("T", "OK"),
        ("T", "OK"),
        ("W", "BUSY"),
    ]
    assert events[5].raw == "*Z OK"
    snap = feed.tracker.snapshot()
    assert (snap["firmware_version"], snap["firmware_full"], snap["coprocessor_version"], snap["mode"]) == (
        "1.20",
        "SS2 2.52",
        "FPGA 4",
        1159,
    )


def test_bonus_calibration_and_sensor_lines_are_replies(feed):
    events = feed("*Y;1;123;30", "*C BALL : OK Clockwise", "*bs 2", "*bn 17")
    assert [(e.command, e.text) for e in events] == [
        ("Y", "1;123;30"),
        ("C", "BALL : OK Clockwise"),
        ("bs", "2"),
        ("bn", "17"),
    ]
    assert all(isinstance(e, WheelReply) for e in events)


def test_unknown_lines_become_unknown_events_and_parsing_carries_on(feed):
    events = feed("garbage", "*X;4;01", "\ufffd*P OK", "*X;4;011;34;0;136;1")
    assert [e.raw for e in of(events, DeviceUnknownMessage)] == ["garbage", "*X;4;01", "\ufffd*P OK"]
    assert [state(e) for e in of(events, WheelStatus)] == [4]
    assert feed.tracker.stats["unknown"] == 3


def test_events_carry_device_id_and_the_given_time(feed):
    (status,) = feed("*X;4;011;34;0;136;1")
    assert status.device_id == "wheel-1"
    assert status.at == feed.at
    assert status.raw == "*X;4;011;34;0;136;1"


def test_snapshot_follows_the_last_status(feed):
    feed("*X;4;011;34;5;136;1", "*X;4;011;34;5;140;1")
    snap = feed.tracker.snapshot()
    assert (snap["state"], snap["game_counter"], snap["flags"], snap["speed_rpm"], snap["direction"]) == (
        4,
        11,
        5,
        14.0,
        "counterclockwise",
    )
    assert snap["flag_names"] == ["NO_BALL", "COMPONENT_FAULT"]


# -- the wheel's own clock: reports counted in each state ------------------------------------------


def rim_game(counter: int, rim: int, nmb: int = 3) -> list[str]:
    c = f"{counter:03d}"
    return [f"*X;2;{c};34;0;150;1"] * 2 + [f"*X;3;{c};34;0;160;1"] * rim + [f"*X;4;{c};34;0;155;1"] * nmb


def rim_reports(events) -> list:
    return [
        (e.phase, e.previous_phase_reports, e.report_period_ms)
        for e in of(events, WheelStatus)
        if e.phase == "no_more_bets"
    ]


@pytest.mark.parametrize("rim", [1, 2, 15, 40])
def test_the_no_more_bets_status_says_how_many_reports_the_wheel_sent_in_the_rim(feed, rim):
    events = feed("*X;5;010;34;0;150;1", *rim_game(11, rim))
    assert rim_reports(events) == [("no_more_bets", rim, 500)]
    # a report the wheel repeats (or a change of flags in a phase) carries no count: the phase went on
    statuses = of(events, WheelStatus)
    assert [e.previous_phase_reports for e in statuses if e.phase == "ball_in_rim"] == [2]
    assert statuses[0].previous_phase_reports is None  # the first status on a link: nothing before it
    assert statuses[1].previous_phase_reports is None  # state 5 began before the link: its count is unknown


def test_the_capture_of_a_real_wheel_gives_each_game_its_rim_reports(capture_events):
    # docs/protocol notes §8: the capture's six games spend 13-17 reports in state 3
    counts = [e.previous_phase_reports for e in of(capture_events, WheelStatus) if e.phase == "no_more_bets"]
    assert len(counts) == 6 and all(13 <= n <= 17 for n in counts), counts


def test_a_link_that_comes_up_within_a_phase_cannot_count_it(feed):
    feed(*rim_game(11, 4, nmb=0))
    feed.tracker.link_reset()
    events = feed(*["*X;3;011;34;0;160;1"] * 3, "*X;4;011;34;0;155;1")
    assert rim_reports(events) == [("no_more_bets", None, None)]
    events = feed("*X;5;011;17;0;150;1", *rim_game(12, 5))  # the next phases were seen from their start
    assert rim_reports(events) == [("no_more_bets", 5, 500)]


def test_a_poll_answered_in_a_phase_voids_its_count_and_the_next_ones_are_counted_again(feed):
    feed(*rim_game(11, 0, nmb=0), "*X;3;011;34;0;160;1")
    feed.tracker.poll_sent()
    events = feed(*["*X;3;011;34;0;160;1"] * 5, "*X;4;011;34;0;155;1")  # (one of them answered the poll)
    assert rim_reports(events) == [("no_more_bets", None, None)]
    assert rim_reports(feed(*rim_game(12, 6))) == [("no_more_bets", 6, 500)]


def test_a_poll_answered_as_the_phase_changes_gives_the_new_phase_no_count(feed):
    feed(*rim_game(11, 0, nmb=0))
    feed.tracker.poll_sent()  # the answer may be the first report of state 3, or an extra one in it
    events = feed(*["*X;3;011;34;0;160;1"] * 5, "*X;4;011;34;0;155;1")
    assert rim_reports(events) == [("no_more_bets", None, None)]


def test_a_poll_echoed_in_the_stream_voids_the_count(feed):
    events = feed(*rim_game(11, 3, nmb=0), "*X", "*X;3;011;34;0;160;1", "*X;4;011;34;0;155;1")
    assert rim_reports(events) == [("no_more_bets", None, None)]


def test_an_impossible_line_cuts_the_phase_it_falls_in(feed):
    events = feed(
        *rim_game(11, 3, nmb=0), "*X;3;300;34;0;160;1", "*X;3;011;34;0;160;1", "*X;4;011;34;0;155;1"
    )
    assert rim_reports(events) == [("no_more_bets", None, None)]


def test_a_report_lost_to_noise_only_lowers_the_count(feed):
    events = feed(*rim_game(11, 2, nmb=0), "*X;3;01", "garbage", "*X;3;011;34;0;160;1", "*X;4;011;34;0;155;1")
    assert rim_reports(events) == [("no_more_bets", 3, 500)]  # 4 reports were sent, 3 read


def test_a_status_without_the_wheels_clock_keeps_its_journal_shape():
    plain = WheelStatus(device_id="w", phase="ball_in_rim", game_counter=1)
    assert "previous_phase_reports" not in plain.model_dump() and "report_period_ms" not in plain.model_dump()
    counted = WheelStatus(
        device_id="w", phase="no_more_bets", game_counter=1, previous_phase_reports=15, report_period_ms=500
    )
    assert WheelStatus.model_validate(counted.model_dump()) == counted
    with pytest.raises(ValueError):
        WheelStatus(device_id="w", phase="no_more_bets", game_counter=1, previous_phase_reports=0)
