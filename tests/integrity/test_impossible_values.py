"""Values no device can give are device faults with a reason, never events of a game.

Through the real parsers and drivers: the SS2 framer, parser and tracker (and its driver on a pty); the ball
machine's driver polling a real Modbus server (the machine simulator).
"""

from __future__ import annotations

import os
import tty
from datetime import UTC, datetime

import pytest
from event_log import EventLog

from devices.balls.modbus_machine import IMPOSSIBLE_READING, ModbusBallMachineDriver
from devices.events import WheelResult, WheelStatus, WheelWarning
from devices.roulette.cammegh_ss2 import CammeghSS2Driver, iter_capture_events
from recognition.game import ResultReady, Void
from recognition.wheel_judge import WheelJudge
from simulators.balls import BallMachineSimulator

AT = datetime(2026, 12, 1, tzinfo=UTC)


def _events(text: str) -> list:
    return list(iter_capture_events([text.encode()], "w1", clock=lambda: AT))


def test_a_spin_number_above_256_is_a_wheel_fault_and_no_result() -> None:
    stream = (
        "*X;2;011;  ;0;150;0\r\n"
        "*X;3;011;  ;0;150;0\r\n"
        "*X;4;011;  ;0;150;0\r\n"
        "*X;5;300;17;0;150;0\r\n"  # the spec's range is 1-256
        "17\r\n"
        "*X;5;300;17;0;150;0\r\n"
        "*X;2;012;  ;0;150;0\r\n"
    )
    events = _events(stream)
    faults = [e for e in events if isinstance(e, WheelWarning)]
    assert len(faults) == 1, faults  # once, not on every repeat of the status
    assert faults[0].code == "hardware_fault" and "spin number 300" in faults[0].description
    assert not [e for e in events if isinstance(e, WheelResult)]
    assert all(e.game_counter <= 256 for e in events if isinstance(e, WheelStatus))

    judge = WheelJudge()
    decisions = [d for e in events for d in judge.feed(e)]
    assert not [d for d in decisions if isinstance(d, ResultReady)]
    voids = [d for d in decisions if isinstance(d, Void)]
    assert voids and voids[0].code == "wheel_fault" and "spin number 300" in voids[0].message


def test_the_wheel_at_256_and_its_wrap_are_still_games() -> None:
    events = _events("*X;2;256;  ;0;150;0\r\n*X;5;256;17;0;150;0\r\n*X;2;001;  ;0;150;0\r\n")
    assert not [e for e in events if isinstance(e, WheelWarning)]
    assert [(e.game_counter, e.number) for e in events if isinstance(e, WheelResult)] == [(256, "17")]


def test_the_ss2_driver_reports_an_impossible_spin_number_as_a_fault(events: EventLog) -> None:
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    driver = CammeghSS2Driver("w1", os.ttyname(slave), events, silence_timeout=None)
    driver.start()
    try:
        events.wait_kind("device_connected")
        os.write(master, b"*X;5;999;17;0;150;0\r\n")
        fault = events.wait_kind("wheel_warning")
        assert "spin number 999" in fault.description and fault.raw == "*X;5;999;17;0;150;0"
        os.write(master, b"*X;2;012;  ;0;150;0\r\n")
        assert events.wait_kind("wheel_status").game_counter == 12
        assert not [e for e in events.seen if isinstance(e, WheelResult)]
        assert driver.health()["device"]["impossible_values"] == 1
    finally:
        driver.stop()
        os.close(master)
        os.close(slave)


@pytest.fixture
def machine():
    sim = BallMachineSimulator(transport="tcp", speed=4, seed=3, machine_id="impossible", ball_set="1-10")
    sim.start()
    yield sim
    sim.stop()


def _machine_driver(machine: BallMachineSimulator, events: EventLog) -> ModbusBallMachineDriver:
    drv = ModbusBallMachineDriver("t/machine", machine.url, events, poll_interval=0.01)
    drv.start()
    events.wait_kind("device_connected")
    events.wait_kind("ball_machine_status")
    return drv


def test_thousands_of_balls_released_in_one_poll_are_a_machine_fault(
    machine: BallMachineSimulator, events: EventLog
) -> None:
    drv = _machine_driver(machine, events)
    try:
        with machine._lock:
            machine.model.released += 3000  # the PLC's counter jumps: no machine holds 3,000 balls
        machine._poke()
        fault = events.wait_for(lambda e: e.kind == "ball_machine_status" and e.fault_code != 0)
        assert fault.fault_code == IMPOSSIBLE_READING
        assert "3000 balls" in fault.fault and "release counter" in fault.fault
        assert not [e for e in events.seen if e.kind == "ball_released"]
        # the next sane poll is a status again (the fault is over); the jump was never a release
        sane = events.wait_for(lambda e: e.kind == "ball_machine_status" and e.fault_code == 0)
        assert sane.balls_released == 3000
        drv.send("start_blower")
        drv.send("release_ball")
        released = events.wait_kind("ball_released")
        assert (released.count, released.total) == (1, 3001)
        assert drv.health()["counters"]["impossible_readings"] == 1
    finally:
        drv.stop()


def test_a_machine_state_out_of_range_is_a_machine_fault(
    machine: BallMachineSimulator, events: EventLog
) -> None:
    drv = _machine_driver(machine, events)
    try:
        with machine._lock:
            machine.model.state_code = lambda now: 99  # type: ignore[method-assign]  # the PLC reads 99
        machine._poke()
        fault = events.wait_for(lambda e: e.kind == "ball_machine_status" and e.fault_code != 0)
        assert fault.fault_code == IMPOSSIBLE_READING and fault.state_code == 99
        assert "state code 99" in fault.fault
        assert not [
            e
            for e in events.seen
            if e.kind == "ball_machine_status" and e.state.startswith("unknown") and e.fault_code == 0
        ]
    finally:
        drv.stop()
