"""The roulette-camera driver on real TCP frame streams from the simulator, and on recordings."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import cv2
import pytest
from waiting import WAIT_S

from devices.camera.frames import HEADER, open_source
from devices.events import BallDropped, BallLaunched, DeviceConnected, DeviceDisconnected, WheelResult
from devices.overhead_camera.driver import RouletteCameraDriver
from devices.registry import all_drivers
from simulators.roulette_camera import (
    BallPose,
    Renderer,
    RouletteCameraSimulator,
    Scene,
    SpinPlan,
    View,
    render,
)
from studio.simulated import all_simulators


def wait_for(cond: Callable[[], Any], timeout: float = WAIT_S, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class Sink(list):
    def of(self, kind: type) -> list:
        return [e for e in self if isinstance(e, kind)]


@pytest.fixture
def camera():
    """A simulator and a driver on its stream; both stopped afterwards."""
    made: list = []

    def make(**options):
        driver_options = options.pop("driver", {})
        sim = RouletteCameraSimulator(
            width=640,
            height=360,
            fps=30,
            follow_table=False,
            seed=3,
            launch_after_s=0.0,
            track_s=1.2,
            drop_s=0.4,
            revolutions=3.5,
            **options,
        )
        sim.start()
        sink = Sink()
        driver = RouletteCameraDriver(
            "t1/camera", sim.url, sink.append, calibration=sim.calibration(), settle_s=0.25, **driver_options
        )
        made.append((sim, driver))
        driver.start()
        return sim, driver, sink

    yield make
    for sim, driver in made:
        driver.stop()
        sim.stop()


def test_registered_by_discovery():
    assert all_drivers()["roulette-camera"] is RouletteCameraDriver
    assert "roulette-camera" in all_simulators()


def test_a_spin_over_tcp_is_counted_and_read(camera):
    sim, driver, sink = camera()
    wait_for(lambda: sink.of(DeviceConnected) and sink.of(WheelResult), what="the first reading at rest")
    sim.force_next(["17"])
    sim.spin(delay_s=0.2)
    wait_for(lambda: [e for e in sink.of(WheelResult) if e.pockets == ("17",)], what="the ball at rest in 17")
    spins = sink.of(BallDropped)
    assert [e.balls for e in sink.of(BallLaunched)] == [1] and len(spins) == 1  # launched, then counted
    assert (
        spins[0].revolutions == (3,) or not spins[0].complete
    )  # a busy machine may drop frames: never a wrong count
    rest = next(e for e in sink.of(WheelResult) if e.pockets == ("17",))
    assert rest.image is not None and rest.image[:2] == b"\xff\xd8"  # the frame, as JPEG ...
    dumped = rest.model_dump(mode="json")
    assert "image" not in dumped and "image" not in rest.model_dump_json()  # ... never in the journal
    assert json.dumps(dumped)
    health = driver.health()
    assert health["connected"] and health["counters"]["frames"] > 10 and health["rotor_found"] is True
    with pytest.raises(ValueError, match="takes no commands"):
        driver.send("*u 1")


def test_two_balls_in_one_pocket_over_tcp(camera):
    sim, _driver, sink = camera(balls=2)
    sim.force_next(["4", "4"])
    sim.spin(delay_s=0.3)
    wait_for(lambda: [e for e in sink.of(WheelResult) if e.pockets == ("4", "4")], what="two balls in 4")


def test_a_cut_cable_is_reported_and_the_stream_reopened(camera):
    sim, driver, sink = camera(driver={"reconnect_min": 0.05})
    wait_for(
        lambda: driver.health()["counters"]["frames"] > 0, what="frames"
    )  # the simulator has taken the connection
    sim.drop_clients()
    wait_for(lambda: sink.of(DeviceDisconnected), what="the disconnect")
    wait_for(lambda: len(sink.of(DeviceConnected)) >= 2, what="the reconnect")
    assert driver.connected


def test_a_frozen_stream_is_reported_lost():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.05)
    port = server.getsockname()[1]
    accepted: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            try:
                conn, _ = server.accept()
                accepted.append(conn)  # ... and never send a frame
            except OSError:
                continue

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    sink = Sink()
    driver = RouletteCameraDriver(
        "t1/camera",
        f"tcp://127.0.0.1:{port}",
        sink.append,
        calibration=View().calibration(),
        frame_timeout=0.3,
        reconnect_min=0.05,
    )
    driver.start()
    try:
        wait_for(lambda: sink.of(DeviceDisconnected), what="the frozen stream reported")
        assert "no frame for 0.3 s" in sink.of(DeviceDisconnected)[0].reason
    finally:
        driver.stop()
        done.set()
        acceptor.join(5)
        server.close()
        for c in accepted:
            c.close()


def test_a_bad_header_drops_the_connection():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(WAIT_S)
    port = server.getsockname()[1]

    def serve() -> None:
        try:
            conn, _ = server.accept()
            conn.sendall(b"JUNK" + bytes(HEADER.size))
            time.sleep(0.3)
            conn.close()
        except OSError:
            pass

    server_thread = threading.Thread(target=serve, daemon=True)
    server_thread.start()
    sink = Sink()
    driver = RouletteCameraDriver(
        "t1/camera",
        f"tcp://127.0.0.1:{port}",
        sink.append,
        calibration=View().calibration(),
        reconnect_min=1.0,
    )
    driver.start()
    try:
        wait_for(lambda: sink.of(DeviceDisconnected), what="the bad stream dropped")
        assert "bad frame header" in sink.of(DeviceDisconnected)[0].reason
    finally:
        driver.stop()
        server_thread.join(5)
        server.close()


def test_a_recorded_folder_is_replayed_once(tmp_path):
    view = View(width=640, height=360)
    plan = SpinPlan(
        pockets=("36",), revolutions=(4.5,), before=("13",), track_s=1.5, drop_s=0.4, launch_s=0.4
    )
    renderer = Renderer(view, seed=2)
    for i in range(int((plan.duration + 0.8) * 30)):
        image, _ = renderer.render(plan.scene(i / 30, view))
        cv2.imwrite(str(tmp_path / f"f{i:04d}.png"), image)
    sink = Sink()
    driver = RouletteCameraDriver(
        "t1/camera", f"dir:{tmp_path}", sink.append, calibration=view.calibration(), settle_s=0.25
    )
    driver.start()
    try:
        wait_for(lambda: sink.of(DeviceDisconnected), timeout=60, what="the end of the recording")
    finally:
        driver.stop()
    kinds = [(e.kind, getattr(e, "pockets", None)) for e in sink]
    assert kinds == [
        ("device_connected", None),
        ("wheel_result", ("13",)),
        ("ball_launched", None),
        ("ball_dropped", None),
        ("wheel_result", ("36",)),
        ("device_disconnected", None),
    ]
    dropped = sink.of(BallDropped)[0]
    assert dropped.revolutions == (4,) and dropped.complete  # frame times: exact
    assert not driver.connected


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({}, "needs its calibration"),
        ({"calibration": View().calibration(), "colour": 1}, "unknown roulette-camera option"),
        ({"calibration": {"radius": 100}}, "needs 'center'"),
    ],
)
def test_bad_options_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RouletteCameraDriver("t1/camera", "tcp://127.0.0.1:9", lambda e: None, **kwargs)


@pytest.mark.parametrize("url", ["ftp://x", "tcp://nohost", "foo"])
def test_bad_urls_are_refused(url):
    with pytest.raises(ValueError, match="URL|url|tcp://host:port"):
        open_source(url)


def test_the_simulator_refuses_pockets_its_wheel_lacks():
    sim = RouletteCameraSimulator(width=320, height=240, follow_table=False)
    try:
        with pytest.raises(ValueError, match="pocket"):
            sim.force_next(["00"])
        with pytest.raises(ValueError, match="pocket"):
            sim.force_next(["1", "2"])
        assert (
            render(Scene(0.0, (BallPose(pocket="1"),)), View(width=320, height=240))[1]["balls"][0]["pocket"]
            == "1"
        )
    finally:
        sim.stop()
