"""Benchmark: from the money wheel coming to rest to its certified result on the feed.

One studio in this process (the real ``Studio``: drivers, tables, judge, signed journal), with
``--tables`` money-wheel tables, each a simulated wheel (simulators/money_wheel.py) read over real
Modbus TCP on 127.0.0.1 (encoder) and/or a real pty (pointer reader). For every certified result:

    latency = the journal made the signed result durable (its on_commit callback, the moment the
              feed can serve it)
            - the simulated wheel physically stopped (its physics' exact stop time, in monotonic time)

What that includes: the sensor's rest detection (the encoder driver's ``rest_ms`` of stillness,
or the pointer driver's ``rest_ms`` of a steady read), the Modbus polls (every 10 ms) or the pty,
the driver thread, the event loop (journal append of the device event, the judge, the round's
result_pending and certify), the journal writer (canonical JSON, SHA-256, Ed25519, one SQLite
transaction with fsync). The WebSocket hop to a consumer is not included (bench/latency.py
measures it for roulette: well under a millisecond on loopback).

Each configuration runs ``--duration`` seconds. ``--speed`` is the simulators' clock factor: 1 is a
real wheel (a spin lasts about 18 s); the default 5 gives more spins per minute. The rest detection
window is in real time whatever the speed.

    python bench/money_wheel.py                     # every configuration, 4 tables, 40 s each
    python bench/money_wheel.py --configs encoder --rest-ms 200 400 --duration 60 --speed 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sqlite3
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.machine import MachineLoad
from studio.config import parse_config
from studio.service import Studio

CONFIGS = {
    # name: (game, sensors)
    "encoder": ("dream_catcher", ("encoder",)),
    "pointer": ("dream_catcher", ("pointer",)),
    "both": ("mega_wheel", ("encoder", "pointer")),
}


def build(tmp: Path, name: str, tables: int, speed: float, rest_ms: int, pointer_rest_ms: int) -> Studio:
    game, sensors = CONFIGS[name]
    tcfg = []
    for i in range(1, tables + 1):
        sim = {
            "speed": speed,
            "seed": 100 + i,
            "options": {"wheel_id": f"{name}-{i}-{rest_ms}", "settle_s": 2.0},
        }
        devices = []
        if "encoder" in sensors:
            devices.append(
                {
                    "kind": "wheel-encoder",
                    "role": "encoder",
                    "url": "simulator",
                    "options": {"rest_ms": rest_ms},
                    "simulator": sim,
                }
            )
        if "pointer" in sensors:
            devices.append(
                {
                    "kind": "wheel-pointer",
                    "role": "pointer",
                    "url": "simulator",
                    "options": {"rest_ms": pointer_rest_ms},
                    "simulator": sim,
                }
            )
        tcfg.append(
            {
                "id": f"{name}-{i}",
                "game": game,
                "betting_seconds": 1.0,
                "auto_round_seconds": 0.5,
                "devices": devices,
            }
        )
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp / f"{name}-{rest_ms}")},
            "consumers": [{"name": "bench", "token": "bench-token-0123456789"}],
            "tables": tcfg,
        }
    )
    return Studio(cfg)


def run_config(tmp: Path, name: str, args: argparse.Namespace, rest_ms: int) -> dict[str, Any]:
    studio = build(tmp, name, args.tables, args.speed, rest_ms, args.pointer_rest_ms)
    committed: list[tuple[float, dict[str, Any]]] = []
    inner = studio.journal.on_commit

    walls: list[float] = []

    def probe(batch: list[Any]) -> None:
        now, wall = time.monotonic(), time.time()
        for c in batch:
            if c.feed_seq is not None:
                msg = json.loads(c.body)
                if msg["kind"] in ("result", "void"):
                    committed.append((now, msg))
                    walls.append(wall)
        if inner is not None:
            inner(batch)

    studio.journal.on_commit = probe
    load = MachineLoad()

    async def main() -> None:
        studio.start(asyncio.get_running_loop())
        try:
            await asyncio.sleep(args.duration)
        finally:
            await asyncio.to_thread(studio.stop)

    asyncio.run(main())
    load.stop()
    reader = getattr(studio.journal._readers, "conn", None)
    if reader is not None:
        reader.close()
    latencies: list[float] = []
    pipeline: list[float] = []
    unmatched = 0
    sensor = "encoder" if "encoder" in CONFIGS[name][1] else "pointer"
    rests: dict[str, list[float]] = {}
    db = sqlite3.connect(f"file:{studio.journal.path}?mode=ro", uri=True)
    try:
        for (body,) in db.execute("SELECT body FROM records WHERE kind = 'device_event' ORDER BY seq"):
            ev = json.loads(body)
            if ev.get("kind") == "wheel_at_rest" and ev.get("sensor") == sensor:
                at = datetime.fromisoformat(ev["at"]).timestamp()
                rests.setdefault(ev["device_id"].split("/")[0], []).append(at)
    finally:
        db.close()
    for (_, msg), wall in zip(committed, walls):
        if msg["kind"] == "result":
            before = [t for t in rests.get(msg["table_id"], []) if t <= wall]
            if before:
                pipeline.append((wall - max(before)) * 1000)
    for at, msg in committed:
        if msg["kind"] != "result":
            continue
        sim = studio.simulators[
            f"{msg['table_id']}/{'encoder' if 'encoder' in CONFIGS[name][1] else 'pointer'}"
        ]
        turns = float(msg["source"]["turns"])
        stops = [
            sim.wheel.real_time(p["stop"])
            for p in sim.model.log
            if p["segment"] == msg["result"]["index"]
            and abs(p["turns"] - turns) < 0.06
            and sim.wheel.real_time(p["stop"]) <= at
        ]
        if not stops:
            unmatched += 1
            continue
        latencies.append((at - max(stops)) * 1000)
    voids = sum(1 for _, m in committed if m["kind"] == "void")
    reasons = sorted({m["reason"]["code"] for _, m in committed if m["kind"] == "void"})
    return {
        "config": name,
        "rest_ms": rest_ms if "encoder" in CONFIGS[name][1] else args.pointer_rest_ms,
        "pipeline": pipeline,
        "results": len(latencies),
        "voids": voids,
        "void_codes": reasons,
        "unmatched": unmatched,
        "latencies": latencies,
        "others_cpu": load.others_percent,
    }


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--speed", type=float, default=5.0)
    parser.add_argument("--duration", type=float, default=40.0)
    parser.add_argument(
        "--rest-ms",
        type=int,
        nargs="+",
        default=[400, 200],
        help="encoder rest windows to measure (the driver's default is 400)",
    )
    parser.add_argument("--pointer-rest-ms", type=int, default=1500, help="the pointer driver's rest window")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("pymodbus").setLevel(logging.CRITICAL)
    print(f"money wheels: {args.tables} tables, speed {args.speed}, {args.duration:.0f} s per configuration")
    print(
        f"{'config':<9} {'rest_ms':>7} {'results':>7} {'voids':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} "
        f"{'min ms':>8} {'other CPU %':>11}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-money-wheel-") as d:
        tmp = Path(d)
        for name in args.configs:
            windows = args.rest_ms if "encoder" in CONFIGS[name][1] else [args.pointer_rest_ms]
            for rest_ms in windows:
                r = run_config(tmp, name, args, rest_ms)
                lat = r["latencies"]
                print(
                    f"{name:<9} {r['rest_ms']:>7} {r['results']:>7} {r['voids']:>5} {pct(lat, 50):>8.1f} "
                    f"{pct(lat, 95):>8.1f} {max(lat) if lat else float('nan'):>8.1f} "
                    f"{min(lat) if lat else float('nan'):>8.1f} {r['others_cpu']:>11.0f}",
                    flush=True,
                )
                if r["voids"]:
                    print(f"  voids: {', '.join(r['void_codes'])}")
                if r["unmatched"]:
                    print(f"  ({r['unmatched']} results could not be matched to a spin)")
                if r["pipeline"]:
                    p = r["pipeline"]
                    print(
                        f"  rest reported by the driver -> certified on the feed: p50 {pct(p, 50):.1f} ms, "
                        f"p95 {pct(p, 95):.1f} ms, max {max(p):.1f} ms"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
