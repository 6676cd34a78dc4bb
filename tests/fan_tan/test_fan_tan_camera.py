"""Fan Tan's camera bead counter: beads counted in rendered trays, a count reported once its layout is still,
an overlap reported as uncountable; and a table on the simulated camera certifying the beads laid out."""

from __future__ import annotations

from typing import Any

import numpy as np
from one_table import feed_results, run_one_table, wait_until

from devices.beads.camera import OVERLAP, BeadTally, CameraBeadCounterDriver, count_beads
from devices.beads.events import BeadCount, BeadCountUnreadable
from simulators.bead_camera import render_tray
from studio.service import Studio

W, H = 480, 400


def test_every_layout_from_0_to_160_beads_is_counted() -> None:
    rng = np.random.default_rng(0)
    for n in range(161):
        image = render_tray(n, width=W, height=H, rng=rng)
        assert count_beads(image, threshold=100, min_area=30, max_area=300) == n


def test_piled_beads_cannot_be_counted() -> None:
    image = render_tray(30, width=W, height=H, rng=np.random.default_rng(1), overlap=True)
    assert count_beads(image, threshold=100, min_area=30, max_area=300) == OVERLAP


def test_a_count_is_reported_once_the_layout_is_still_and_once_only() -> None:
    tally = BeadTally("t/camera", stable_s=1.0)
    assert tally.frame(12, 0.0) == [] and tally.frame(16, 0.5) == []  # the dealer is still laying out
    assert tally.frame(16, 1.0) == []  # 0.5 s still: not yet
    (event,) = tally.frame(16, 1.6)
    assert isinstance(event, BeadCount) and event.count == 16
    assert tally.frame(16, 5.0) == []  # the same layout: reported once
    assert tally.frame(0, 6.0) == []  # the tray cleared for the next round
    assert tally.frame(16, 6.1) == [] and len(tally.frame(16, 7.2)) == 1  # the same count again: a new layout
    assert tally.frame(0, 7.5) == []
    assert tally.frame(OVERLAP, 8.0) == []
    (event,) = tally.frame(OVERLAP, 9.1)
    assert isinstance(event, BeadCountUnreadable)
    tally.frame(23, 9.5)
    (event,) = tally.frame(23, 10.6)  # spread again: counted
    assert isinstance(event, BeadCount) and event.count == 23


def test_the_driver_counts_frames_it_is_given() -> None:
    driver = CameraBeadCounterDriver("t/camera", "frames+tcp://127.0.0.1:9", lambda e: None, stable_s=0)
    image = render_tray(37, width=W, height=H, rng=np.random.default_rng(2))
    assert driver.handle_frame(image, 0.0) == []
    (event,) = driver.handle_frame(np.dstack([image] * 3), 0.1)  # a colour frame is turned grey
    assert isinstance(event, BeadCount) and event.count == 37


TABLE: dict[str, Any] = {
    "id": "fan-tan-cam",
    "game": "fan_tan",
    "betting_seconds": 0.2,
    "auto_round_seconds": 0.2,
    "devices": [
        {
            "kind": "camera-bead-counter",
            "role": "camera",
            "url": "simulator",
            "serial_number": "CAM-1",
            "options": {"stable_s": 0.3},
            "simulator": {"speed": 10, "seed": 5, "options": {"count_delay": 1.0}},
        }
    ],
}


def test_a_table_on_the_simulated_camera_certifies_the_beads_laid_out(tmp_path) -> None:
    async def scenario(studio: Studio) -> None:
        sim = studio.simulator("fan-tan-cam", "camera")
        await wait_until(lambda: len(feed_results(studio)) >= 1, "a certified round")
        sim.inject("overlap")
        await wait_until(lambda: any(overlap for _, overlap in sim.laid), "the piled beads")
        n = len(feed_results(studio))
        await wait_until(lambda: len(feed_results(studio)) > n, "the round after the beads were spread")

    studio = run_one_table(tmp_path, TABLE, scenario)
    sim = studio.simulator("fan-tan-cam", "camera")
    results = [m["result"] for m in feed_results(studio)]
    assert all(r["result"] == (r["beads"] - 1) % 4 + 1 for r in results)
    # every certified count is a layout the simulated dealer made, spread out (never the piled one)
    spread = [beads for beads, overlap in sim.laid if not overlap]
    assert [r["beads"] for r in results] == spread[: len(results)]
    piled = [i for i, (_, overlap) in enumerate(sim.laid) if overlap]
    assert piled and sim.laid[piled[0] + 1] == (sim.laid[piled[0]][0], False)  # recounted after spreading
