"""The camera driver against real streams: the simulator's MJPEG over HTTP, video files, dead URLs."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest
from event_log import EventLog
from waiting import until

from devices.base import DeviceNotConnected
from devices.camera.driver import CameraDriver, motion_fraction, small_grey
from devices.camera.events import CameraFrame, CameraStatus
from devices.events import DeviceConnected, DeviceDisconnected
from devices.registry import driver_class
from simulators.dice import DiceCameraSimulator, DiceWorld, TrayGeometry, render_still


def make_sim(**kw) -> DiceCameraSimulator:
    world = DiceWorld(
        TrayGeometry.for_frame(640, 360), ("white", "white"), seed=kw.pop("seed", 1), roll_s=1.0, hard=False
    )
    return DiceCameraSimulator(world, fps=kw.pop("fps", 15), jpeg_quality=80, **kw).start()


def frames(log: EventLog) -> list[CameraFrame]:
    return [e for e in log.seen if isinstance(e, CameraFrame)]


def test_the_registry_knows_the_dice_camera() -> None:
    assert driver_class("dice-camera") is CameraDriver


def test_frames_from_the_simulator_stream_with_motion_then_rest(events: EventLog) -> None:
    sim = make_sim()
    driver = CameraDriver("t1/camera-1", sim.url, events, sample_fps=6, heartbeat_s=0.5, linger_s=0.8)
    try:
        driver.start()
        connected = events.wait_kind("device_connected")
        assert connected.port == sim.url
        first = events.wait_kind("camera_frame")
        assert isinstance(first, CameraFrame) and first.reason == "first"
        assert first.image.shape == (360, 640, 3) and (first.width, first.height) == (640, 360)
        # the journal keeps the frame's facts, never the picture
        dumped = first.model_dump(mode="json")
        assert "image" not in dumped and dumped["frame_number"] == first.frame_number
        json.dumps(dumped)
        assert first.frame_id == f"t1/camera-1#{first.frame_number}"
        # still dice: heartbeats only
        still = events.wait_for(
            lambda e: isinstance(e, CameraFrame) and e.reason == "still", what="a heartbeat"
        )
        assert not still.moving
        sim.throw()
        moving = events.wait_for(lambda e: isinstance(e, CameraFrame) and e.moving, what="a moving frame")
        assert moving.motion > driver.motion_threshold and moving.reason in ("motion", "first")
        settled = events.wait_for(
            lambda e: isinstance(e, CameraFrame) and e.reason == "settling" and not e.moving,
            8,
            "the dice at rest",
        )
        assert settled.frame_number > moving.frame_number
        numbers = [f.frame_number for f in frames(events)]
        assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
        health = driver.health()
        assert health["connected"] and health["counters"]["frames"] >= health["counters"]["events"] > 3
        assert health["frame_size"] == [640, 360]
        latest = driver.latest()
        assert latest is not None and latest[1].shape == (360, 640, 3)
        # a frame on request
        driver.send("frame")
        events.wait_for(
            lambda e: isinstance(e, CameraFrame) and e.reason == "requested", what="a requested frame"
        )
        with pytest.raises(ValueError):
            driver.send("zoom in")
    finally:
        driver.stop()
        sim.stop()
    assert isinstance(events.wait_kind("device_disconnected"), DeviceDisconnected)
    assert not driver.connected
    with pytest.raises(DeviceNotConnected):
        driver.send("frame")


def test_a_dropped_stream_is_reported_and_reconnected(events: EventLog) -> None:
    sim = make_sim(seed=2)
    driver = CameraDriver(
        "t1/camera-1",
        sim.url,
        events,
        read_timeout_s=1.0,
        reconnect_min=0.1,
        reconnect_max=0.4,
        heartbeat_s=0.3,
    )
    try:
        driver.start()
        events.wait_kind("camera_frame")
        before = max(f.frame_number for f in frames(events))
        sim.drop(1.0)
        lost = events.wait_kind("device_disconnected")
        assert "stream" in lost.reason or "cannot open" in lost.reason
        events.wait_kind("device_connected")
        after = events.wait_kind("camera_frame")
        assert after.frame_number > before and after.reason == "first"
        # one report per outage, however many reconnect attempts failed meanwhile
        assert sum(isinstance(e, DeviceDisconnected) for e in events.seen) == 1
        assert driver.health()["counters"]["connects"] == 2
    finally:
        driver.stop()
        sim.stop()


def test_a_frozen_picture_is_a_drop(events: EventLog) -> None:
    sim = make_sim(seed=3)
    driver = CameraDriver("t1/camera-1", sim.url, events, frozen_s=0.6, reconnect_min=0.1, heartbeat_s=0.3)
    try:
        driver.start()
        events.wait_kind("camera_frame")
        sim.freeze(30)
        lost = events.wait_kind("device_disconnected")
        assert "froze" in lost.reason
        assert any(isinstance(e, CameraStatus) and e.frozen for e in events.seen)
    finally:
        driver.stop()
        sim.stop()


def test_a_video_file_is_replayed_at_its_pace_and_looped(tmp_path, events: EventLog) -> None:
    path = tmp_path / "throw.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (320, 180))
    assert writer.isOpened()
    rng = random.Random(4)
    base, _ = render_still(
        rng, colours=("red", "blue"), geometry=TrayGeometry.for_frame(320, 180), hard=False
    )
    for i in range(12):
        frame = base.copy()
        if i < 6:  # something moves through the first half
            cv2.circle(frame, (30 + 40 * i, 90), 12, (255, 255, 255), -1)
        writer.write(frame)
    writer.release()
    driver = CameraDriver(
        "t1/replay", str(path), events, fps=60, sample_fps=30, heartbeat_s=0.05, linger_s=0.05
    )
    try:
        driver.start()
        events.wait_kind("device_connected")
        events.wait_for(lambda e: isinstance(e, CameraFrame) and e.frame_number > 30, what="a second loop")
    finally:
        driver.stop()
    got = frames(events)
    assert got[0].image.shape == (180, 320, 3)
    assert any(f.moving for f in got) and any(not f.moving for f in got)
    assert any(f.stream_ms is not None for f in got)
    # looping is seamless: connected once, disconnected only when stopped
    assert [e.reason for e in events.seen if isinstance(e, DeviceDisconnected)] in ([], ["stopped"])
    assert driver.health()["counters"]["loops"] >= 2


def test_an_unreachable_source_is_reported_once_and_retried(events: EventLog, tmp_path) -> None:
    for url in ("http://127.0.0.1:1/stream.mjpg", str(tmp_path / "no-such-video.mp4")):
        log = EventLog()
        driver = CameraDriver("t1/camera-9", url, log, reconnect_min=0.05, reconnect_max=0.1)
        try:
            driver.start()
            first = log.wait_kind("device_disconnected")
            assert "cannot open" in first.reason
            until(lambda d=driver: d.health()["counters"]["open_failures"] >= 2, "more failed opens")
        finally:
            driver.stop()
        while not log.queue.empty():
            log.seen.append(log.queue.get())
        assert sum(isinstance(e, DeviceDisconnected) for e in log.seen) == 1
        assert not any(isinstance(e, DeviceConnected) for e in log.seen)
        assert driver.health()["counters"]["open_failures"] >= 2


def test_motion_measure() -> None:
    a = np.full((360, 640, 3), 80, np.uint8)
    b = a.copy()
    cv2.rectangle(b, (100, 100), (200, 200), (250, 250, 250), -1)
    sa, sb = small_grey(a), small_grey(b)
    assert sa.shape[1] == 160
    assert motion_fraction(None, sa) == 0.0
    assert motion_fraction(sa, sa) == 0.0
    assert 0.03 < motion_fraction(sa, sb) < 0.1


def test_options_are_checked() -> None:
    with pytest.raises(ValueError):
        CameraDriver("x", "0", lambda e: None, sample_fps=0)
    with pytest.raises(ValueError):
        CameraDriver("x", "simulator", lambda e: None)
    assert CameraDriver("x", "0", lambda e: None).source_kind == "index"
    assert CameraDriver("x", "/dev/video2", lambda e: None).source_kind == "device"
    assert CameraDriver("x", "rtsp://cam/1", lambda e: None).source_kind == "stream"
    assert CameraDriver("x", "file:///tmp/a.mp4", lambda e: None).source == "/tmp/a.mp4"
