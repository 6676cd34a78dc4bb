"""The drivers: the pure machine tracker and tag reader, then the real drivers on a real Modbus server
(TCP on 127.0.0.1, RTU on a pty pair), a real pty and a real frame socket."""

from __future__ import annotations

import os
import re
import time
import tty
from datetime import UTC, datetime

import numpy as np
import pytest
from waiting import WAIT_S, until

from devices.balls.ballset import ball_set_from_option
from devices.balls.camera_reader import CameraBallReaderDriver, encode_frame
from devices.balls.modbus_machine import MachineTracker, ModbusBallMachineDriver
from devices.balls.reader import DEFAULT_TAG_PATTERN, SerialBallReaderDriver, TagReader, classify_reader_line
from devices.balls.registers import Snapshot, default_register_map
from devices.base import DeviceNotConnected
from devices.registry import all_drivers
from simulators.balls import BallCameraSimulator, BallMachineSimulator, BallReaderSimulator

AT = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def snap(released=0, blower=False, gate=False, chute=False, fault=0, state=0) -> Snapshot:
    return Snapshot(
        state_code=state,
        blower=blower,
        gate=gate,
        ball_in_chute=chute,
        balls_released=released,
        balls_in_machine=None,
        fault_code=fault,
        raw="",
    )


def test_drivers_are_registered_by_discovery():
    drivers = all_drivers()
    assert drivers["modbus-ball-machine"] is ModbusBallMachineDriver
    assert drivers["serial-ball-reader"] is SerialBallReaderDriver
    assert drivers["camera-ball-reader"] is CameraBallReaderDriver


# --- machine tracker (pure) ----------------------------------------------------------------------------------


def test_tracker_baseline_changes_and_releases():
    t = MachineTracker("m", default_register_map(), heartbeat_s=1.0)
    first = t.update(snap(released=10), 0.0, AT)
    assert [e.kind for e in first] == ["ball_machine_status"] and first[0].balls_released == 10
    assert t.update(snap(released=10), 0.1, AT) == []  # no change, not busy: nothing
    out = t.update(snap(released=11, gate=True), 0.2, AT)
    assert [e.kind for e in out] == ["ball_released", "ball_machine_status"]
    assert (out[0].count, out[0].total) == (1, 11)
    out = t.update(snap(released=13, gate=True), 0.3, AT)
    assert out[0].count == 2


def test_tracker_counter_wraps_and_going_back_is_not_a_release():
    t = MachineTracker("m", default_register_map())
    t.update(snap(released=65535), 0.0, AT)
    out = t.update(snap(released=0), 0.1, AT)
    assert out[0].kind == "ball_released" and out[0].count == 1 and out[0].total == 0
    out = t.update(snap(released=40), 0.2, AT)
    assert out[0].count == 40
    out = t.update(snap(released=3), 0.3, AT)  # the PLC restarted: the counter went back
    assert [e.kind for e in out] == ["ball_machine_status"] and t.counter_resets == 1


def test_tracker_reset_after_reconnect_sets_a_new_baseline():
    t = MachineTracker("m", default_register_map())
    t.update(snap(released=5), 0.0, AT)
    t.reset()
    out = t.update(snap(released=9), 1.0, AT)
    assert [e.kind for e in out] == ["ball_machine_status"]  # balls released while blind are not guessed


def test_tracker_heartbeat_only_while_busy():
    t = MachineTracker("m", default_register_map(), heartbeat_s=1.0, command_watch_s=5.0)
    t.update(snap(), 0.0, AT)
    assert t.update(snap(), 2.0, AT) == []  # idle: silent
    t.update(snap(blower=True), 2.1, AT)
    assert t.update(snap(blower=True), 2.9, AT) == []
    beat = t.update(snap(blower=True), 3.2, AT)
    assert len(beat) == 1 and beat[0].repeated
    t.update(snap(), 3.3, AT)
    t.command_sent(3.4)
    assert t.update(snap(), 4.5, AT)[0].repeated  # a command keeps it "busy"
    assert t.update(snap(), 8.0, AT)[0].repeated
    assert t.update(snap(), 10.5, AT) == []  # command_watch_s elapsed


# --- tag reader (pure) -----------------------------------------------------------------------------------------


def test_classify_reader_lines():
    pattern = re.compile(DEFAULT_TAG_PATTERN)
    assert classify_reader_line("E2003412012345670001", pattern) == ("tag", "E2003412012345670001")
    assert classify_reader_line("TAG:BALL007", pattern) == ("tag", "BALL007")
    assert classify_reader_line("TAG BALL007", pattern) == ("tag", "BALL007")
    assert classify_reader_line("NOREAD", pattern)[0] == "unreadable"
    assert classify_reader_line("no read", pattern)[0] == "unreadable"
    assert classify_reader_line("ERR 12 antenna", pattern)[0] == "unreadable"
    assert classify_reader_line("BALL\ufffd07", pattern)[0] == "unreadable"
    assert classify_reader_line("Reader v1.2 ready", pattern) == ("unknown", "Reader v1.2 ready")


def test_tag_reader_folds_repeats_within_a_sliding_window():
    r = TagReader("r", ball_set_from_option("1-10"), fold_s=1.0)
    assert r.tag("BALL003", now=0.0, at=AT).ball == "3"
    assert r.tag("ball003", now=0.5, at=AT) is None
    assert r.tag("BALL003", now=1.4, at=AT) is None  # the window slides with every read
    assert r.tag("BALL004", now=1.5, at=AT).ball == "4"
    assert r.tag("BALL003", now=2.6, at=AT).ball == "3"  # presented again later
    unknown = r.tag("E2FF00", now=3.0, at=AT)
    assert unknown.ball is None and unknown.tag == "E2FF00"
    assert r.counts == {"reads": 4, "unknown": 1, "folded": 2, "unreadable": 0}


# --- serial reader on a real pty -------------------------------------------------------------------------------


def test_serial_reader_driver_on_a_pty(events):
    sim = BallReaderSimulator(machine_id="pty-reader-test", repeats=3)
    drv = SerialBallReaderDriver("t/reader", sim.slave_path, events, ball_set="1-20")
    try:
        drv.start()
        events.wait_kind("device_connected")
        sim.present("BALL012")
        e = events.wait_kind("ball_read")
        assert (e.tag, e.ball, e.device_id) == ("BALL012", "12", "t/reader")
        sim.present("BALL012", "misread")
        assert events.wait_kind("ball_unreadable").raw == "NOREAD"
        sim.write_line("E2FFDEAD")
        assert events.wait_kind("ball_read").ball is None
        sim.write_line("Reader v1.2 ready")
        assert events.wait_kind("device_unknown").raw == "Reader v1.2 ready"
        assert [x.kind for x in events.drain(0.1)] == []  # the two repeats of BALL012 were folded
        assert drv.health()["device"]["folded"] == 2
    finally:
        drv.stop()
        sim.stop()


# --- Modbus machine driver against the simulator -------------------------------------------------------------


@pytest.fixture(params=["tcp", "rtu"])
def machine(request):
    sim = BallMachineSimulator(
        transport=request.param, speed=4, seed=3, machine_id=f"drv-{request.param}", ball_set="1-10"
    )
    sim.start()
    yield sim
    sim.stop()


def test_machine_driver_connects_and_carries_out_commands(machine, events):
    drv = ModbusBallMachineDriver("t/machine", machine.url, events, poll_interval=0.01, heartbeat_s=0.2)
    try:
        with pytest.raises(DeviceNotConnected):
            drv.send("start_blower")  # not yet connected
        drv.start()
        events.wait_kind("device_connected")
        first = events.wait_kind("ball_machine_status")
        assert (first.state, first.blower, first.balls_in_machine) == ("idle", False, 10)
        drv.send("start_blower")
        events.wait_for(lambda e: e.kind == "ball_machine_status" and e.blower and e.state == "mixing")
        drv.send("release_ball")
        rel = events.wait_kind("ball_released")
        assert (rel.count, rel.total) == (1, 1)
        events.wait_for(lambda e: e.kind == "ball_machine_status" and e.ball_in_chute)
        beat = events.wait_for(lambda e: getattr(e, "repeated", False))
        assert beat.blower
        with pytest.raises(ValueError, match="no command"):
            drv.send("open_everything")
        assert machine.writes[:2] == [("coil", 0, 1), ("coil", 1, 1)]
        h = drv.health()
        assert h["connected"] and h["counters"]["commands_sent"] == 2 and h["machine"]["balls_released"] == 1
        assert h["last_round_trip_us"] > 0
    finally:
        drv.stop()
    assert events.wait_kind("device_disconnected").reason == "stopped"


def test_machine_driver_reports_a_lost_link_and_reconnects(machine, events):
    drv = ModbusBallMachineDriver(
        "t/machine",
        machine.url,
        events,
        poll_interval=0.01,
        timeout=0.1,
        failures_before_lost=2,
        reconnect_min=0.05,
        reconnect_max=0.1,
    )
    try:
        drv.start()
        events.wait_kind("device_connected")
        machine.lose_link()
        lost = events.wait_kind("device_disconnected")
        assert "no answer from the PLC" in lost.reason
        assert not drv.connected
        with pytest.raises(DeviceNotConnected):
            drv.send("release_ball")
        machine.command("start_blower")  # the machine goes on while the link is down
        machine.restore_link()
        events.wait_kind("device_connected")
        status = events.wait_kind("ball_machine_status")
        assert status.blower or status.state in ("idle", "mixing")
        assert drv.health()["counters"]["reconnects"] == 1
    finally:
        drv.stop()


def test_machine_driver_with_a_wrong_register_map_says_so(events):
    sim = BallMachineSimulator(transport="tcp", speed=20, machine_id="bad-map")
    sim.start()
    bad = default_register_map().model_dump()
    bad["fault_code"] = {"table": "input_register", "address": 50}  # the PLC has no input register 50
    drv = ModbusBallMachineDriver(
        "t/machine",
        sim.url,
        events,
        register_map=bad,
        poll_interval=0.01,
        failures_before_lost=1,
        reconnect_min=0.05,
        reconnect_max=0.1,
    )
    try:
        drv.start()
        lost = events.wait_kind("device_disconnected")
        assert "refused to read input_register" in lost.reason and "check the register map" in lost.reason
    finally:
        drv.stop()
        sim.stop()


def test_machine_driver_with_nothing_listening_reports_once(events):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    drv = ModbusBallMachineDriver(
        "t/machine", f"modbus-tcp://127.0.0.1:{port}", events, reconnect_min=0.02, reconnect_max=0.05
    )
    try:
        drv.start()
        assert "cannot connect" in events.wait_kind("device_disconnected").reason
        until(lambda: drv.health()["counters"]["connect_failures"] >= 3, "three failed connects")
        assert [e.kind for e in events.drain()] == []  # retried several times, reported once
    finally:
        drv.stop()


def test_machine_driver_options_are_checked():
    for bad in (
        {"poll_interval": 0},
        {"failures_before_lost": 0},
        {"timeout": 0},
        {"reconnect_min": 2, "reconnect_max": 1},
    ):
        with pytest.raises(ValueError):
            ModbusBallMachineDriver("m", "modbus-tcp://127.0.0.1:1502", lambda e: None, **bad)
    with pytest.raises(ValueError, match="modbus-tcp"):
        ModbusBallMachineDriver("m", "/dev/ttyUSB0", lambda e: None)


def test_rtu_driver_on_a_plain_openpty_port_with_no_plc_reports_no_answer(events):
    master, slave = os.openpty()
    tty.setraw(master)
    drv = ModbusBallMachineDriver(
        "t/machine",
        f"modbus-rtu://{os.ttyname(slave)}?timeout=0.05",
        events,
        failures_before_lost=2,
        reconnect_min=0.05,
        reconnect_max=0.1,
    )
    try:
        drv.start()
        assert "no answer from the PLC" in events.wait_kind("device_disconnected").reason
    finally:
        drv.stop()
        os.close(master)
        os.close(slave)


# --- camera reader ----------------------------------------------------------------------------------------------


def test_camera_decodes_only_the_configured_symbology():
    sim = BallCameraSimulator(machine_id="cam-pure")
    try:
        drv = CameraBallReaderDriver("t/camera", "frames+tcp://127.0.0.1:9", lambda e: None, ball_set="1-20")
        (e,) = drv.handle_frame(sim.frame("BALL017"), now=0.0)
        assert (e.tag, e.ball) == ("BALL017", "17")
        assert (
            drv.handle_frame(sim.frame("BALL017"), now=0.1) == []
        )  # folded: the same ball in the next frame
        assert drv.handle_frame(sim.frame("BALL018", smudge=True), now=0.2) == []  # undecodable
        assert drv.handle_frame(sim.frame(None), now=0.3) == []
        qr = CameraBallReaderDriver(
            "t/camera", "frames+tcp://127.0.0.1:9", lambda e: None, symbology="qrcode"
        )
        assert qr.handle_frame(sim.frame("BALL017"), now=0.0) == []  # a Code128 is not looked for
        with pytest.raises(ValueError, match="symbology"):
            CameraBallReaderDriver("c", "frames+tcp://127.0.0.1:9", lambda e: None, symbology="morse")
        with pytest.raises(ValueError, match="frames\\+tcp"):
            CameraBallReaderDriver("c", "http://x", lambda e: None)
        with pytest.raises(ValueError):
            encode_frame(np.zeros((2, 2, 3), np.uint8))
    finally:
        sim.stop()


def test_camera_driver_on_the_frame_socket_and_on_a_folder(tmp_path, events):
    import cv2

    sim = BallCameraSimulator(machine_id="cam-sock")
    drv = CameraBallReaderDriver("t/camera", sim.url, events, ball_set="1-20")
    cv2.imwrite(str(tmp_path / "0001.png"), sim.frame("BALL005"))
    cv2.imwrite(str(tmp_path / "0002.png"), sim.frame(None))
    folder = CameraBallReaderDriver(
        "t/folder", f"dir://{tmp_path}", events, ball_set="1-20", frame_interval=0.02
    )
    try:
        sim.start()
        drv.start()
        events.wait_for(lambda e: e.kind == "device_connected" and e.device_id == "t/camera")
        deadline = time.monotonic() + WAIT_S
        while sim.clients < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        sim.present("BALL009")
        assert events.wait_kind("ball_read", device_id="t/camera").ball == "9"
        folder.start()
        assert events.wait_kind("ball_read", device_id="t/folder").ball == "5"
        deadline = time.monotonic() + WAIT_S
        while drv.health()["counters"]["frames"] < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert drv.health()["counters"]["frames"] == 3  # one ball in three frames: one read, two folded
        assert drv.health()["counters"]["folded"] == 2
    finally:
        drv.stop()
        folder.stop()
        sim.stop()


def test_camera_driver_replays_a_recorded_video_and_reports_its_end(tmp_path, events):
    import cv2

    sim = BallCameraSimulator(machine_id="cam-video")
    path = tmp_path / "chute.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (sim.width, sim.height))
    for text in ("BALL001", "BALL001", None, "BALL002"):
        writer.write(cv2.cvtColor(sim.frame(text), cv2.COLOR_GRAY2BGR))
    writer.release()
    sim.stop()
    drv = CameraBallReaderDriver(
        "t/video", f"file://{path}", events, ball_set="1-20", reconnect_min=5, reconnect_max=5
    )
    try:
        drv.start()
        events.wait_kind("device_connected")
        assert [events.wait_kind("ball_read").ball for _ in range(2)] == ["1", "2"]
        assert events.wait_kind("device_disconnected").reason == "end of the video"
    finally:
        drv.stop()
