"""Do valid roulette spins lose revolutions under CPU load? Where is the time lost?

Runs an SS2 wheel simulator (in this process on a thread, as the studio runs it, or in a process of its own
serving a pty) and the real SS2 driver, asked to read on an asyncio loop as the studio asks (``read_on_loop``;
the SS2 keeps the shared reader thread, ``timed_reads``), really on the loop (``loop-untimed``, as before) or on
the reader thread; optionally beside CPU hogs (busy processes) and with a busy event loop (callbacks that hold
it for 0-``--loop-busy-ms`` at a time, like a studio with many tables). For every game it takes the
``ball_in_rim`` -> ``no_more_bets`` time four ways and counts the games that would be voided
``too_few_revolutions`` (fewer than 4 revolutions, ``revolutions_from_wheel`` at time scale = speed): from the
events' own ``at`` alone, from the events' ``at`` held to the wheel's own count of rim reports that the
``no_more_bets`` event carries (what the judge uses), from when the simulator wrote the two lines (its thread's clock) and
from the simulator's count of rim reports (its model's clock, which nothing can starve: every game is valid).
``read_lag_ms``: from the simulator's write to the driver's event.

    python -m bench.spin_load --spins 60 --speed 60 --sim process --hog 2 --loop-busy-ms 200 --reader loop-untimed
    python -m bench.spin_load --spins 60 --speed 60 --sim thread --hog 2 --loop-busy-ms 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from devices.events import DeviceEvent, WheelStatus
from devices.roulette.cammegh_ss2 import CammeghSS2Driver
from recognition.roulette_variants.spin_validity import DEFAULT_MIN_REVOLUTIONS, revolutions_from_wheel, whole
from simulators.cammegh_ss2 import TICK_SECONDS, SS2Simulator


def _burn() -> None:  # pragma: no cover - runs in a hog process until it is killed
    while True:
        pass


@contextmanager
def cpu_hogs(n: int) -> Iterator[list[Any]]:
    """`n` busy processes for the block's duration, killed at the end."""
    ctx = multiprocessing.get_context("spawn")
    hogs = [ctx.Process(target=_burn, daemon=True) for _ in range(n)]
    for h in hogs:
        h.start()
    try:
        yield hogs
    finally:
        for h in hogs:
            h.kill()
        for h in hogs:
            h.join(10)


class StampedSimulator(SS2Simulator):
    """The simulator, noting when it wrote each game's first ``ball_in_rim`` and ``no_more_bets`` report
    (``time.monotonic()``, one clock for every process of the machine) and how many ``ball_in_rim`` reports it
    sent: the wheel's own count of its rim time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.written: dict[tuple[int, int], float] = {}  # (state, game) -> first write
        self.rim_reports: dict[int, int] = {}

    def _queue_output(self, lines: list[bytes]) -> None:
        now = time.monotonic()
        for line in lines:
            if line.startswith(b"*X;"):
                _, state, spin = line.split(b";")[:3]
                key = (int(state), int(spin))
                self.written.setdefault(key, now)
                if key[0] == 3:
                    self.rim_reports[key[1]] = self.rim_reports.get(key[1], 0) + 1
        super()._queue_output(lines)

    def record(self) -> dict[str, Any]:
        return {"written": list(self.written.items()), "rim_reports": self.rim_reports}


def _open_stamped(speed: float, seed: int) -> StampedSimulator:
    sim = StampedSimulator.on_pty(speed=speed, seed=seed)
    assert isinstance(sim, StampedSimulator)
    sim.model.command("*P 1")
    return sim


def _serve(speed: float, seed: int, out: Any, stop: Any) -> None:  # in the simulator's own process
    with _open_stamped(speed, seed) as sim:
        out.put(sim.slave_path)
        stop.wait()
        out.put(sim.record())


@contextmanager
def wheel_in_process(speed: float, seed: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """A simulator in a process of its own, open (``*P 1``); yields the pty path the driver opens and a dict
    that holds the simulator's record once the block ends."""
    ctx = multiprocessing.get_context("spawn")
    out, stop = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=_serve, args=(speed, seed, out, stop), daemon=True)
    proc.start()
    record: dict[str, Any] = {}
    try:
        yield out.get(timeout=60), record
        stop.set()
        record.update(out.get(timeout=60))
    finally:
        proc.join(10)
        if proc.is_alive():
            proc.kill()
            proc.join(10)


@contextmanager
def wheel_in_thread(speed: float, seed: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """A simulator on a thread of this process (as the studio runs one), open (``*P 1``)."""
    record: dict[str, Any] = {}
    with _open_stamped(speed, seed) as sim:
        assert sim.slave_path is not None
        yield sim.slave_path, record
        record.update(sim.record())


@dataclass
class Spins:
    """The rim times of the games a driver reported: from the events' own times (``at``, what the judge uses)
    and the monotonic clock when the event was handed on (the same moment: the driver stamps at read time)."""

    speed: float
    state3: dict[int, datetime] = field(default_factory=dict)
    state4: dict[int, datetime] = field(default_factory=dict)
    reports: dict[int, tuple[int, Fraction]] = field(default_factory=dict)  # the wheel's count, on the event
    read: dict[tuple[int, int], float] = field(default_factory=dict)

    def on_event(self, event: DeviceEvent) -> None:
        if isinstance(event, WheelStatus):
            g = event.game_counter
            if event.phase == "ball_in_rim":
                self.state3.setdefault(g, event.at)
                self.read.setdefault((3, g), time.monotonic())
            elif event.phase == "no_more_bets" and g in self.state3:
                self.state4.setdefault(g, event.at)
                if event.previous_phase_reports and event.report_period_ms and g not in self.reports:
                    self.reports[g] = (event.previous_phase_reports, Fraction(event.report_period_ms, 1000))
                self.read.setdefault((4, g), time.monotonic())

    def games(self) -> list[int]:
        return sorted(self.state4)


def _revs(seconds: float, speed: float, reports: tuple[int, Fraction] | None = None) -> int:
    return whole(
        revolutions_from_wheel(timedelta(seconds=seconds), time_scale=Fraction(str(speed)), reports=reports)
    )


def judged(seen: Spins, sim: dict[str, Any]) -> dict[str, Any]:
    """Voids by three clocks: the events' `at` (the judge's), the simulator's writes, the wheel's report count."""
    written = {tuple(k): v for k, v in sim.get("written", [])}
    by_at, by_judge, by_write, by_reports, late3, late4 = [], [], [], [], [], []
    for g in seen.games():
        read_s = (seen.state4[g] - seen.state3[g]).total_seconds()
        by_at.append(_revs(read_s, seen.speed))
        by_judge.append(_revs(read_s, seen.speed, seen.reports.get(g)))
        if (3, g) in written and (4, g) in written:
            by_write.append(_revs(written[(4, g)] - written[(3, g)], seen.speed))
            late3.append(seen.read[(3, g)] - written[(3, g)])
            late4.append(seen.read[(4, g)] - written[(4, g)])
        if g in sim.get("rim_reports", {}):
            by_reports.append(_revs(sim["rim_reports"][g] * TICK_SECONDS / seen.speed, seen.speed))

    def voids(revs: list[int]) -> int:
        return sum(r < DEFAULT_MIN_REVOLUTIONS for r in revs)

    return {
        "games": len(by_at),
        "voids_by_event_at": voids(by_at),
        "voids_by_judge": voids(by_judge),
        "games_with_wheel_count": len(seen.reports),
        "voids_by_sim_writes": voids(by_write),
        "voids_by_report_count": voids(by_reports),
        "min_revs_event_at": min(by_at, default=None),
        "min_revs_judge": min(by_judge, default=None),
        "min_revs_sim_writes": min(by_write, default=None),
        "read_lag_ms_max": round(1000 * max(late3 + late4, default=0), 1),
        "read_lag_ms_mean": round(1000 * sum(late3 + late4) / max(1, len(late3 + late4)), 2),
    }


async def _busy_loop(stop: asyncio.Event, busy_ms: float) -> None:
    """Hold the loop for 0-busy_ms at a time (burst work: a loaded studio's loop), then let it run others."""
    rng = random.Random(7)
    while not stop.is_set():
        end = time.perf_counter() + rng.uniform(0, busy_ms) / 1000
        while time.perf_counter() < end:
            pass
        await asyncio.sleep(0)


async def run_spins(
    path: str,
    *,
    spins: int,
    speed: float,
    reader: str = "loop",
    loop_busy_ms: float = 0,
    timeout: float = 600,
) -> Spins:
    """Read the wheel at `path` with the SS2 driver until `spins` games have reached no_more_bets."""
    loop = asyncio.get_running_loop()
    seen = Spins(speed=speed)
    stop = asyncio.Event()
    driver = CammeghSS2Driver("bench/wheel", path, seen.on_event)
    if reader == "loop-untimed":
        driver.timed_reads = False  # the studio's loop reads the port and stamps the lines (before the fix)
    if reader != "thread":
        driver.read_on_loop(loop)
    busy = asyncio.create_task(_busy_loop(stop, loop_busy_ms)) if loop_busy_ms else None
    driver.start()
    try:
        deadline = time.monotonic() + timeout
        while len(seen.state4) < spins and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        if busy is not None:
            await busy
        await asyncio.to_thread(driver.stop)
    return seen


def measure(
    *, spins: int, speed: float, sim: str, hog: int, reader: str, loop_busy_ms: float, seed: int
) -> dict[str, Any]:
    wheel = wheel_in_process if sim == "process" else wheel_in_thread
    started = time.monotonic()
    with cpu_hogs(hog), wheel(speed, seed) as (path, record):
        seen = asyncio.run(
            run_spins(path, spins=spins, speed=speed, reader=reader, loop_busy_ms=loop_busy_ms)
        )
    return {
        "sim": sim,
        "reader": reader,
        "hog": hog,
        "loop_busy_ms": loop_busy_ms,
        "speed": speed,
        **judged(seen, record),
        "seconds": round(time.monotonic() - started, 1),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--spins", type=int, default=40)
    p.add_argument("--speed", type=float, default=10.0)
    p.add_argument("--sim", choices=("process", "thread"), default="process")
    p.add_argument("--hog", type=int, default=0, help="busy processes beside the run")
    p.add_argument(
        "--reader",
        choices=("loop", "loop-untimed", "thread"),
        default="loop",
        help="read_on_loop as the studio asks (the SS2 keeps the reader thread: timed_reads); loop-untimed: "
        "really on the loop; thread: the shared reader thread",
    )
    p.add_argument("--loop-busy-ms", type=float, default=0, help="hold the loop 0-N ms at a time")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    row = measure(
        spins=a.spins,
        speed=a.speed,
        sim=a.sim,
        hog=a.hog,
        reader=a.reader,
        loop_busy_ms=a.loop_busy_ms,
        seed=a.seed,
    )
    print(json.dumps(row))


if __name__ == "__main__":
    main()
