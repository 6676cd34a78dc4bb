"""The dice camera simulator: deterministic pictures with their truth, faults, the dealer's part, the registry."""

from __future__ import annotations

import json
import random
import time
import urllib.request

import cv2
import numpy as np
import pytest
from waiting import WAIT_S, until

from simulators.dice import (
    FAULTS,
    SIMULATORS,
    DiceCameraSimulator,
    DiceWorld,
    TrayGeometry,
    random_throw,
    render_still,
)


def test_same_seed_same_picture_and_truth() -> None:
    g = TrayGeometry.for_frame(640, 360)
    a, ta = render_still(random.Random(5), colours=("red", "blue"), geometry=g)
    b, tb = render_still(random.Random(5), colours=("red", "blue"), geometry=g)
    c, _ = render_still(random.Random(6), colours=("red", "blue"), geometry=g)
    assert np.array_equal(a, b) and ta == tb
    assert not np.array_equal(a, c)
    assert a.shape == (360, 640, 3) and a.dtype == np.uint8


@pytest.mark.parametrize("fault", FAULTS)
def test_faults_are_in_the_truth(fault: str) -> None:
    g = TrayGeometry.for_frame(640, 360)
    for seed in range(6):
        throw = random_throw(random.Random(seed), g, ("white", "white", "white"), faults=(fault,))
        assert throw.faults == (fault,) and not throw.readable
        if fault == "missing":
            assert len(throw.dice) == 2 and len(throw.missing) == 1
        else:
            assert len(throw.dice) == 3
            marked = [d for d in throw.dice if d.fault == fault]
            assert len(marked) == 1
            d = marked[0]
            if fault == "outside":
                assert not g.inside(d.x, d.y)
            if fault == "cocked":
                assert 0.3 < d.tilt < 0.71
            if fault == "stacked":
                assert d.level == 1
        # flat dice lie inside the tray without overlapping
        for d in throw.dice:
            if d.fault is None:
                assert g.inside(d.x, d.y) and d.tilt == 0 and d.level == 0
    with pytest.raises(ValueError):
        random_throw(random.Random(1), g, ("white",), faults=("melted",))


def test_touching_dice_are_rendered_touching() -> None:
    g = TrayGeometry.for_frame(1280, 720)
    close = 0
    for seed in range(20):
        throw = random_throw(random.Random(seed), g, ("white",) * 3, touching=1.0)
        gaps = [np.hypot(a.x - b.x, a.y - b.y) for i, a in enumerate(throw.dice) for b in throw.dice[i + 1 :]]
        close += min(gaps) < 1.45 * g.die_size
    assert close >= 18


def test_a_world_rolls_then_rests_with_the_thrown_faces() -> None:
    world = DiceWorld(TrayGeometry.for_frame(640, 360), ("white", "white"), seed=3, roll_s=1.0, speed=2.0)
    final = world.throw(100.0, faces=[6, 1])
    assert sorted(d.face for d in final.dice) == [1, 6]
    dice, blur, rest = world.scene(100.1, 0.05)
    assert not rest and any(abs(b[0]) + abs(b[1]) > 1 for b in blur)
    dice, blur, rest = world.scene(100.6, 0.05)  # 1 s roll at speed 2 is over after 0.5 s
    assert rest and [d.face for d in dice] == [d.face for d in final.dice]
    world.queue(faults=("missing",))
    assert len(world.throw(101.0).dice) == 1


def test_the_simulator_serves_mjpeg_a_snapshot_and_the_truth() -> None:
    world = DiceWorld(TrayGeometry.for_frame(640, 360), ("red", "blue"), seed=4, hard=False)
    with DiceCameraSimulator(world, fps=10) as sim:
        cap = cv2.VideoCapture(
            sim.url,
            cv2.CAP_FFMPEG,
            [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, 5000, cv2.CAP_PROP_READ_TIMEOUT_MSEC, 5000],
        )
        try:
            ok, frame = cap.read()
            assert ok and frame.shape == (360, 640, 3)
        finally:
            cap.release()
        base = sim.url.rsplit("/", 1)[0]
        with urllib.request.urlopen(base + "/snapshot.jpg", timeout=WAIT_S) as r:
            img = cv2.imdecode(np.frombuffer(r.read(), np.uint8), cv2.IMREAD_COLOR)
        assert img.shape == (360, 640, 3)
        with urllib.request.urlopen(base + "/truth", timeout=WAIT_S) as r:
            truth = json.loads(r.read())
        assert truth["expected"] == 2 and {d["color"] for d in truth["dice"]} == {"red", "blue"}


def test_the_simulator_acts_as_the_dealer_once_per_round_for_all_cameras() -> None:
    factory = SIMULATORS["dice-camera"]
    a, url_a = factory(
        speed=20.0, seed=5, world="table-x", camera=0, width=320, height=180, fps=5, throw_delay_s=0.0
    )
    b, url_b = factory(
        speed=20.0,
        seed=5,
        world="table-x",
        camera=1,
        width=320,
        height=180,
        fps=5,
        throw_delay_s=0.0,
        rethrow_delay_s=0.0,
    )
    try:
        assert url_a != url_b and a.world is b.world
        assert a.view != b.view
        before = a.world.throws
        for sim in (a, b):
            sim.table_event("round", {"round_id": "r1", "transition": "start_play"})
        deadline = time.monotonic() + WAIT_S
        while a.world.throws == before and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)
        assert a.world.throws == before + 1  # one throw for both cameras
        a.table_event("round", {"round_id": "r1", "transition": "certify"})
        time.sleep(0.05)
        assert a.world.throws == before + 1
        # the table holds for the dice: the dealer re-throws
        a.world.last_throw_at = -1e9
        b.table_event("hold", {"code": "dice_cocked", "message": "..."})
        deadline = time.monotonic() + WAIT_S
        while a.world.throws == before + 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert a.world.throws == before + 2
        b.table_event("hold", {"code": "invalid_result", "message": "..."})  # not the dice: nothing
    finally:
        a.stop()
        b.stop()


def test_still_dice_get_fresh_noise_each_frame_and_a_new_throw_a_new_picture() -> None:
    """A still scene is drawn once and only its sensor noise is new each frame; a throw draws anew."""
    from simulators.dice import render

    world = DiceWorld(TrayGeometry.for_frame(640, 360), ("red", "white"), seed=8, hard=False, roll_s=0.2)
    with DiceCameraSimulator(world, fps=20, seed=1, jpeg_quality=95) as sim:
        base = sim.url.rsplit("/", 1)[0]

        def snapshot() -> np.ndarray:
            with urllib.request.urlopen(base + "/snapshot.jpg", timeout=WAIT_S) as r:
                return cv2.imdecode(np.frombuffer(r.read(), np.uint8), cv2.IMREAD_COLOR).astype(np.int16)

        def drawn() -> np.ndarray:  # the scene as it is now, without noise
            dice, _, rest = world.scene(time.monotonic(), 0.05)
            assert rest
            g = world.geometry
            return render(dice, g, sim.view, world.look(0), np.random.default_rng(0), noise=False).astype(
                np.int16
            )

        def at_rest() -> bool:
            return world.scene(time.monotonic(), 0.05)[2]

        until(at_rest, "the first throw at rest")
        first = snapshot()
        until(lambda: not np.array_equal(snapshot(), first), "a next frame")
        second, still = snapshot(), drawn()
        assert 0 < np.abs(second - first).mean() < 8  # the noise, new
        assert np.abs(second - still).mean() < 8  # the same dice where they lie
        world.throw(time.monotonic(), faces=[6, 6])
        until(at_rest, "the second throw at rest")
        moved = drawn()
        assert np.abs(moved - still).mean() > 0.5  # the dice lie elsewhere

        def new_picture() -> tuple[np.ndarray] | None:
            s = snapshot()
            return (s,) if np.abs(s - moved).mean() < 8 else None

        (after,) = until(new_picture, "the new throw's picture")
        assert np.abs(after - moved).mean() < np.abs(after - still).mean()
