"""Vision slower than the camera: a camera's waiting frames that a newer one makes moot are skipped, so frames
do not pile up on the table; the skips are journaled, and the round is still certified from what the dealer
threw."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np
from dicevision_helpers import simulated_camera, stop_late_preparers
from journal_records import records
from waiting import WAIT_S

from devices.camera.events import CameraFrame
from simulators.dice import TrayGeometry, calibration_document
from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio

W, H = 640, 360


def make_studio(tmp_path) -> Studio:
    g = TrayGeometry.for_frame(W, H)
    camera = simulated_camera("camera-1", "sicbo-1", 0, ["white", "white", "white"], W, H)
    # still frames ten times a second (a studio's camera sends two): the pile-up shows in seconds
    camera["options"]["heartbeat_s"] = 0.1
    table = {
        "id": "sicbo-1",
        "game": "sic_bo",
        "betting_seconds": 0.3,
        "auto_round_seconds": 0.3,
        "settings": {"calibration": calibration_document(g), "hold_after_s": 1.0},
        "devices": [camera],
    }
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": "dice-slow-vision-token-1"}],
            "tables": [table],
        }
    )
    return Studio(cfg)


async def until(cond: Callable[[], Any], what: str, each: Callable[[], None] = lambda: None) -> Any:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        each()
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def results(studio: Studio) -> list[dict]:
    """The studio's certified results, from its feed messages."""
    return [
        json.loads(t) for _, t in studio.journal.read_after(0, 100_000) if json.loads(t)["kind"] == "result"
    ]


def test_frames_waiting_for_slow_vision_are_replaced_journaled_and_the_round_still_certified(
    tmp_path,
) -> None:
    studio = make_studio(tmp_path)
    gate = threading.Event()
    seen: dict[str, Any] = {"longest": 0}

    async def main() -> None:
        studio.start(asyncio.get_running_loop())
        try:
            table = studio.tables["sicbo-1"]
            feed = table.feed
            judge = feed.judge
            reading = judge.prepare

            def slow(event: Any) -> Any:  # vision stuck on one frame until the test lets it go
                gate.wait(WAIT_S)
                return reading(event)

            judge.prepare = slow

            def watch() -> None:
                seen["longest"] = max(seen["longest"], len(feed._pipeline))

            await until(lambda: feed.frames_skipped >= 25, "25 still frames skipped", watch)
            seen["skipped"] = feed.frames_skipped
            seen["waiting"] = len(feed._pipeline)
            gate.set()
            seen["result"] = (
                await until(lambda: results(studio), "a certified round after vision caught up")
            )[0]
            seen["throws"] = list(studio.simulator("sicbo-1").world.history)
        finally:
            gate.set()
            await asyncio.to_thread(studio.stop)
            stop_late_preparers(studio)

    asyncio.run(main())
    assert verify_journal(studio.data_dir).ok
    # 25 frames skipped while the pipeline held at most a frame being read, the camera's newest moving and
    # still frames and the round's signals: without the skipping it grows by every frame
    assert seen["skipped"] >= 25
    assert seen["longest"] <= 12, seen
    notes = [n for n in records(studio, "note") if n["code"] == "frames_skipped"]
    assert notes and "of sicbo-1/camera-1" in notes[0]["message"]
    # certified from one of the dealer's clean throws, read from a frame taken after vision caught up
    assert seen["result"]["result"]["dice"] in [t.faces for t in seen["throws"] if t.readable]


def test_a_flood_of_moving_frames_waits_as_one_frame_and_the_round_is_still_certified(tmp_path) -> None:
    """A camera that keeps seeing motion (a hand over the tray, a shaker) while vision is stuck: each moving
    frame makes the older ones moot, so the camera has at most a moving and a still frame waiting."""
    studio = make_studio(tmp_path)
    gate = threading.Event()
    seen: dict[str, Any] = {}
    camera = "sicbo-1/camera-1"
    picture = np.zeros((H, W, 3), np.uint8)

    def frame(n: int, moving: bool) -> CameraFrame:
        return CameraFrame(
            device_id=camera,
            frame_number=1_000_000 + n,
            captured_at=datetime.now(UTC),
            width=W,
            height=H,
            motion=0.2 if moving else 0.0,
            moving=moving,
            still_frames=0 if moving else 1,
            reason="motion" if moving else "still",
            image=picture,
        )

    async def main() -> None:
        studio.start(asyncio.get_running_loop())
        try:
            table = studio.tables["sicbo-1"]
            feed = table.feed
            reading = feed.judge.prepare
            assert reading is not None

            def slow(event: Any) -> Any:
                gate.wait(WAIT_S)
                return reading(event)

            feed.judge.prepare = slow
            await until(lambda: feed.busy, "vision busy on a frame")
            skipped = feed.frames_skipped
            for n in range(400):  # three moving frames and a still one, over and over; the last one moves
                table.device_event(frame(n, moving=n % 4 != 3 or n == 399))
                if n % 50 == 0:
                    await asyncio.sleep(0)  # the simulated camera's own frames come in between
            seen["waiting"] = len(feed._waiting.get(camera, []))
            seen["pipeline"] = len(feed._pipeline)
            seen["skipped"] = feed.frames_skipped - skipped
            gate.set()
            seen["result"] = (
                await until(lambda: results(studio), "a certified round after vision caught up")
            )[0]
            seen["throws"] = list(studio.simulator("sicbo-1").world.history)
        finally:
            gate.set()
            await asyncio.to_thread(studio.stop)
            stop_late_preparers(studio)

    asyncio.run(main())
    assert verify_journal(studio.data_dir).ok
    # of 400 frames in a row, the newest waits (one frame being read besides): without the rule, every
    # moving frame stays queued with its picture
    assert seen["waiting"] <= 2, seen
    assert seen["pipeline"] <= 8, seen
    assert seen["skipped"] >= 390, seen
    assert seen["result"]["result"]["dice"] in [t.faces for t in seen["throws"] if t.readable]
