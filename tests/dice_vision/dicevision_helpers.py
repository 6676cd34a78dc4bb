"""Helpers of the dice vision tests: the golden photos, rendered frames, camera frame events. Tests import them
by this module's unique name (tests/ has other conftest modules)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from devices.camera.events import CameraFrame
from recognition.dice.calibration import Calibration, load_calibration
from simulators.dice import (
    DiceWorld,
    TrayGeometry,
    calibration_document,
    camera_view,
    frame_truth,
    render,
)

GOLDEN = Path(__file__).resolve().parent / "golden"
T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def golden_labels() -> dict[str, Any]:
    return json.loads((GOLDEN / "labels.json").read_text())


def golden_calibration() -> Calibration:
    return load_calibration((GOLDEN / "calibration.json").read_text())


class Scene:
    """A dice world seen by one or two cameras at 640x360: frames for the judge, with their truth."""

    def __init__(
        self,
        colours: Sequence[str],
        *,
        seed: int = 1,
        cameras: int = 1,
        width: int = 640,
        height: int = 360,
        hard: bool = False,
    ) -> None:
        self.geometry = TrayGeometry.for_frame(width, height)
        self.world = DiceWorld(self.geometry, colours, seed=seed, roll_s=1.0, hard=hard, touching=0.2)
        self.views = [camera_view(i, width, height) for i in range(cameras)]
        self.nrng = np.random.default_rng(seed)
        self.clock = 0.0  # seconds of scene time since T0
        self.numbers = [0] * cameras

    def calibration(self, camera: int = 0) -> dict[str, Any]:
        return calibration_document(self.geometry, self.views[camera], camera=f"camera-{camera + 1}")

    def throw(self, faces: Sequence[int] | None = None, faults: Sequence[str] = ()) -> Any:
        final = self.world.throw(self.clock, faces=faces, faults=faults)
        return frame_truth(final, self.geometry, self.views[0])

    def frame(
        self, camera: int = 0, *, device_id: str | None = None, step: float = 0.2, moving: bool | None = None
    ) -> CameraFrame:
        """The next sampled frame of a camera, `step` seconds after the previous one."""
        self.clock += step
        dice, blur, rest = self.world.scene(self.clock, 0.05)
        view = self.views[camera]
        img = render(dice, self.geometry, view, self.world.look(camera), self.nrng, blur_vectors=blur)
        self.numbers[camera] += 1
        at = T0 + timedelta(seconds=10 + self.clock)
        is_moving = (not rest) if moving is None else moving
        return CameraFrame(
            device_id=device_id or f"t1/camera-{camera + 1}",
            at=at,
            frame_number=self.numbers[camera],
            captured_at=at,
            width=view.width,
            height=view.height,
            motion=0.05 if is_moving else 0.0,
            moving=is_moving,
            still_frames=0 if is_moving else 5,
            reason="motion" if is_moving else "settling",
            image=img,
        )

    def at(self, extra: float = 0.0) -> datetime:
        return T0 + timedelta(seconds=10 + self.clock + extra)


def still_image(
    colours: Sequence[str],
    *,
    seed: int,
    faults: Sequence[str] = (),
    width: int = 640,
    height: int = 360,
    hard: bool = True,
    touching: float = 0.3,
) -> tuple[np.ndarray, Any, TrayGeometry]:
    from simulators.dice import render_still

    g = TrayGeometry.for_frame(width, height)
    img, truth = render_still(
        random.Random(seed), colours=colours, faults=faults, geometry=g, hard=hard, touching=touching
    )
    return img, truth, g


def stop_late_preparers(studio: Any) -> None:
    """Shut down a table's prepare worker if one is still there after Studio.stop() (Table.stop() now refuses
    to start one for a late frame; this guard keeps the thread-leak check above meaningful if that regresses)."""
    for table in studio.tables.values():
        pool = getattr(table, "_preparer", None)
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
            table._preparer = None


def simulated_camera(
    role: str, world: str, index: int, colors: list[str], width: int = 640, height: int = 360
) -> dict[str, Any]:
    """A table's dice camera on the simulator, as a studio test configures it (`world`: the table's tray)."""
    return {
        "kind": "dice-camera",
        "role": role,
        "url": "simulator",
        "serial_number": f"SIM-CAM-{index}",
        "options": {"sample_fps": 6, "heartbeat_s": 0.5, "linger_s": 1.5},
        "simulator": {
            "speed": 6.0,
            "seed": 40 + index,
            "options": {
                "colors": colors,
                "world": world,
                "camera": index,
                "width": width,
                "height": height,
                "fps": 10,
                "hard": False,
                "touching": 0.0,
                "throw_delay_s": 0.3,
                "rethrow_delay_s": 0.6,
            },
        },
    }
