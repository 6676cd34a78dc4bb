"""The SS2 driver's mapping of its protocol onto the vendor-neutral wheel events and commands."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import get_args

import pytest

from devices.events import (
    WHEEL_PHASES,
    AnyDeviceEvent,
    WheelPhase,
    WheelStatus,
    WheelWarning,
    WheelWarningCode,
)
from devices.roulette.cammegh_ss2 import (
    FAULT_CODES,
    FAULT_WARNINGS,
    PHASES,
    SS2Tracker,
    parse_line,
    ss2_command,
    warnings_of,
)

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def feed(tracker: SS2Tracker, *lines: str) -> list:
    out = []
    for i, line in enumerate(lines):
        out += tracker.feed(parse_line(line), T0 + timedelta(milliseconds=500 * i))
    return out


def test_every_state_and_code_has_a_neutral_name():
    assert sorted(PHASES) == list(range(1, 8))
    assert tuple(PHASES.values()) == WHEEL_PHASES == get_args(WheelPhase)
    assert set(FAULT_WARNINGS) == set(FAULT_CODES)  # every documented *F code is mapped
    assert set(FAULT_WARNINGS.values()) <= set(get_args(WheelWarningCode))
    assert warnings_of(0) == () and warnings_of(0xF) == (
        "no_ball",
        "ball_with_rotor",
        "component_fault",
        "launch_retry",
    )
    assert warnings_of(0xA) == ("ball_with_rotor", "launch_retry")  # "A" = 8 + 2


def test_a_status_line_becomes_a_neutral_status():
    (status,) = feed(SS2Tracker("w"), "*X;3;011;34;A;149;1")
    assert isinstance(status, WheelStatus)
    assert (status.phase, status.game_counter, status.last_number) == ("ball_in_rim", 11, "34")
    assert status.warnings == ("ball_with_rotor", "launch_retry")
    assert (status.speed_rpm, status.direction, status.raw) == (
        14.9,
        "counterclockwise",
        "*X;3;011;34;A;149;1",
    )


@pytest.mark.parametrize(
    "line, code",
    [
        ("*F 0", "ok"),
        ("*F 5", "motor_fault"),
        ("*F 13", "sensor_stuck_on"),
        ("*F 23", "sensor_blind"),
        ("*F 42", "unknown_fault"),
    ],
)
def test_faults_become_neutral_warnings_with_the_wheels_code(line, code):
    (warning,) = feed(SS2Tracker("w"), line)
    assert isinstance(warning, WheelWarning)
    assert (warning.code, warning.vendor_code, warning.raw) == (code, line[3:], line)
    assert warning.description  # the SS2's own words, for the technician


def test_neutral_events_round_trip_through_the_journal_form():
    from pydantic import TypeAdapter

    events = feed(SS2Tracker("w"), "*X;2;011;34;8;150;0", "*F 5", "27", "*X;5;011;27;0;150;0")
    adapter = TypeAdapter(AnyDeviceEvent)
    assert [adapter.validate_python(e.model_dump(mode="json")) for e in events] == events


def test_neutral_commands_map_onto_ss2_commands():
    assert ss2_command("start_spin") == "*K"
    assert ss2_command("start_spin clockwise") == "*u 1"
    assert ss2_command("start_spin counterclockwise") == "*u 3"
    assert ss2_command("acknowledge_void") == ss2_command("reset") == "*R"
    assert ss2_command("self_test") == "*F"
    assert ss2_command("set_mode 1159") == "*o 1159"
    assert ss2_command("*T N") == "*T N"  # the SS2's own commands pass through (technicians)
    for bad in ("set_mode", "set_mode 70000", "set_mode -1", "spin", "start_spin sideways", ""):
        with pytest.raises(ValueError, match="knows no command"):
            ss2_command(bad)


def test_the_snapshot_gives_the_console_neutral_fields():
    tracker = SS2Tracker("w")
    assert tracker.snapshot()["phase"] is None and tracker.snapshot()["manual_start"] is None
    feed(tracker, "*X;5;011;27;1;150;0", "*o 1159")
    snap = tracker.snapshot()
    assert (snap["phase"], snap["warnings"], snap["manual_start"]) == ("winning_number", ["no_ball"], True)
    feed(tracker, "*o 1157")
    assert tracker.snapshot()["manual_start"] is False  # arcade mode: the wheel starts its games itself
