"""Benchmark: the overhead roulette camera's ball reader, frames per second at 1280x720 on one core.

Frames are rendered beforehand by the simulator (simulators/roulette_camera.py; not timed): a
whole spin at 30 fps (ball(s) at rest, launched, round the track with motion blur, falling,
at rest again), for one ball and for two balls ending in one pocket. Then, pinned to one CPU
with OpenCV's own threads off (``cv2.setNumThreads(1)``), it times:

* ``finder``: :meth:`BallFinder.read` alone (rotor angle, balls, pockets);
* ``driver``: :meth:`RouletteCameraDriver.process_frame` (the finder, the tracker, the events,
  and a JPEG of the frame for each reading at rest), as the driver's thread runs it;
* ``+jpeg``: the same after decoding each frame from JPEG (a camera streaming MJPEG).

It also checks what the timed runs read: every reading at rest must be the planned pockets
and every spin's count the planned revolutions. Target (the issue): at least 30 frames/s.

    python bench/roulette_camera.py                 # about 30 s
    python bench/roulette_camera.py --seconds 3 --width 1920 --height 1080
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import cv2
import numpy as np

from devices.events import BallDropped, WheelResult
from devices.overhead_camera.calibration import calibration_from_options
from devices.overhead_camera.driver import RouletteCameraDriver
from devices.overhead_camera.finder import BallFinder
from simulators.roulette_camera import Renderer, SpinPlan, View


def spin_frames(view: View, plan: SpinPlan, fps: float) -> list[tuple[float, np.ndarray]]:
    renderer = Renderer(view, seed=1)
    return [
        (i / fps, renderer.render(plan.scene(i / fps, view))[0])
        for i in range(int((plan.duration + 1) * fps))
    ]


def timed(fn, frames, seconds: float) -> list[float]:
    """Per-frame times (s), going round the frames until `seconds` have passed (at least one round)."""
    times: list[float] = []
    start = time.perf_counter()
    while True:
        for item in frames:
            t0 = time.perf_counter()
            fn(item)
            times.append(time.perf_counter() - t0)
        if time.perf_counter() - start >= seconds:
            return times


def driving(events: list, calibration: dict, decode: Callable | None = None) -> Callable:
    """fn(item) for timed(): (t, frame) through a RouletteCameraDriver, a new one for each pass (t == 0)."""
    driver: list = [None]

    def drive(item: tuple) -> None:
        t, data = item
        if t == 0.0 or driver[0] is None:
            driver[0] = RouletteCameraDriver(
                "bench/camera", "tcp://127.0.0.1:9", events.append, calibration=calibration, settle_s=0.3
            )
        events.extend(driver[0].process_frame(data if decode is None else decode(data), t))

    return drive


def decode_jpeg(data: np.ndarray) -> np.ndarray:
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def report(name: str, times: list[float]) -> float:
    ms = sorted(t * 1000 for t in times)
    fps = len(times) / sum(times)
    print(
        f"  {name:<8} {fps:7.0f} frames/s   mean {statistics.fmean(ms):5.2f} ms   p50 {ms[len(ms) // 2]:5.2f} ms   "
        f"p99 {ms[int(len(ms) * 0.99)]:5.2f} ms   max {ms[-1]:5.2f} ms   ({len(ms)} frames)"
    )
    return fps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--seconds", type=float, default=4.0, help="timing per measurement")
    parser.add_argument("--fps", type=float, default=30.0, help="the camera's frame rate (rendered frames)")
    args = parser.parse_args(argv)

    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    cv2.setNumThreads(1)
    view = View(width=args.width, height=args.height)
    calibration = view.calibration()
    plans = {
        "one ball": SpinPlan(
            pockets=("17",), revolutions=(7.5,), before=("3",), launch_s=0.5, track_s=5.0, drop_s=1.2
        ),
        "two balls, one pocket": SpinPlan(
            pockets=("23", "23"),
            revolutions=(6.5,),
            before=("8", "30"),
            launch_s=0.5,
            track_s=4.5,
            drop_s=1.2,
        ),
    }
    print(
        f"roulette camera reader, {args.width}x{args.height}, one core (cpu {cpu}, cv2 threads 1), "
        f"OpenCV {cv2.__version__}, numpy {np.__version__}"
    )
    worst = float("inf")
    ok = True
    for name, plan in plans.items():
        t0 = time.perf_counter()
        frames = spin_frames(view, plan, args.fps)
        jpegs = [(t, cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 85])[1]) for t, f in frames]
        print(
            f"{name}: {len(frames)} frames of a {plan.duration:.1f} s spin (rendered in "
            f"{time.perf_counter() - t0:.1f} s, not timed)"
        )
        finder = BallFinder(calibration_from_options(calibration))
        worst = min(
            worst, report("finder", timed(lambda item, f=finder: f.read(item[1]), frames, args.seconds))
        )

        events: list = []
        worst = min(worst, report("driver", timed(driving(events, calibration), frames, args.seconds)))
        report("+jpeg", timed(driving(events, calibration, decode_jpeg), jpegs, args.seconds))
        rests = [e.pockets for e in events if isinstance(e, WheelResult)]
        spins = [(e.revolutions, e.complete) for e in events if isinstance(e, BallDropped)]
        expected_rest = sorted({tuple(sorted(plan.before)), tuple(plan.pockets)})
        wrong_rest = [
            r
            for r in rests
            if tuple(r) not in {tuple(plan.before), tuple(plan.pockets)}
            and tuple(sorted(r)) not in expected_rest
        ]
        revs = int(plan.revolutions[0])
        wrong_spins = [s for s in spins if s[1] and any(n != revs for n in s[0])]
        print(
            f"  read: {len(rests)} readings at rest ({len(wrong_rest)} wrong), {len(spins)} spins "
            f"({sum(1 for s in spins if s[1])} counted, {len(wrong_spins)} wrong counts; planned {revs})"
        )
        ok = ok and not wrong_rest and not wrong_spins
    print(
        f"slowest: {worst:.0f} frames/s; target 30 frames/s: {'met' if worst >= 30 else 'NOT met'}; "
        f"readings {'all right' if ok else 'WRONG'}"
    )
    return 0 if worst >= 30 and ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
