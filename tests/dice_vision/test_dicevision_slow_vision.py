"""Vision slower than the camera: a camera's waiting still frame is replaced by its next one, so frames do not
pile up on the table; the skips are journaled, and the round is still certified from what the dealer threw."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from dicevision_helpers import simulated_camera, stop_late_preparers
from journal_records import records
from waiting import WAIT_S

from simulators.dice import TrayGeometry, calibration_document
from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio

W, H = 640, 360


def make_studio(tmp_path) -> Studio:
    g = TrayGeometry.for_frame(W, H)
    camera = simulated_camera("camera-1", "sicbo-1", 0, ["white", "white", "white"], W, H)
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


def test_frames_waiting_for_slow_vision_are_replaced_journaled_and_the_round_still_certified(
    tmp_path,
) -> None:
    studio = make_studio(tmp_path)
    gate = threading.Event()
    seen: dict[str, Any] = {"longest": 0}

    def results() -> list[dict]:
        return [
            json.loads(t)
            for _, t in studio.journal.read_after(0, 100_000)
            if json.loads(t)["kind"] == "result"
        ]

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
            seen["result"] = (await until(results, "a certified round after vision caught up"))[0]
            seen["throws"] = list(studio.simulator("sicbo-1").world.history)
        finally:
            gate.set()
            await asyncio.to_thread(studio.stop)
            stop_late_preparers(studio)

    asyncio.run(main())
    assert verify_journal(studio.data_dir).ok
    # 25 frames skipped while the pipeline held at most a frame being read, the frames that moved and the
    # camera's newest still frame: without the replacement it grows by every frame
    assert seen["skipped"] >= 25
    assert seen["longest"] <= 12, seen
    notes = [n for n in records(studio, "note") if n["code"] == "frames_skipped"]
    assert notes and "of sicbo-1/camera-1" in notes[0]["message"]
    # certified from one of the dealer's clean throws, read from a frame taken after vision caught up
    assert seen["result"]["result"]["dice"] in [t.faces for t in seen["throws"] if t.readable]
