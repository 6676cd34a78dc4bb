"""Benchmark: ball machines over Modbus, and the reader's line to the certified draw, 20 machines in one process.

Two parts, both against the simulators in simulators/balls.py read by the real drivers:

1. **Modbus round trip** (``--rtt-samples``): one machine simulator in a child process (like a PLC:
   ``--rtt-in-process`` puts it in this one), the driver's own pymodbus client
   (``ModbusBallMachineDriver._make_client``), over TCP on 127.0.0.1 and RTU on the simulator's relayed
   pty pair: one read request (4 input registers), one full status poll of the generic register map
   (the driver's ``_poll``: 2 requests, decoded), and one command (a coil write).
2. **Reader line -> certified draw** (``--tables``, default 20): the real ``Studio`` (studio/service.py) in
   this process, configured with ``--tables`` tables of ``--game`` (default ``lucky_5``), each a Modbus
   ball machine (``--transport``) and an RFID reader, both ``url = "simulator"``, drawing round after round
   (betting ``--betting`` s, auto rounds). Two probes, in this process only (no file is changed):

   * ``BallReaderSimulator.write_line`` stamps ``time.perf_counter_ns()`` right before the ``os.write``
     that puts a tag line on the reader's pty;
   * ``Studio._publish`` stamps each feed message as the event loop hands it to the feed hub
     (``FeedHub.publish``: what a connected consumer's task sends next).

   For each certified draw, latency = publish time - the write time of the line of its last ball (the
   first line of that ball: the reader repeats it and the driver folds the repeats). That covers:

       reader pty write -> driver thread (pyserial read, line framer, classify, ball-set lookup, fold)
       -> loop.call_soon_threadsafe -> Table.device_event on the event loop (journal append of the
       BallRead, DrawJudge: pair with the release, checks, ResultReady; lucky_5 validate_result + outcome;
       result_pending, certify, append_feed) -> journal writer thread (canonical JSON, SHA-256, Ed25519,
       SQLite commit with fsync) -> on_commit -> loop.call_soon_threadsafe -> Studio._publish.

   It does not include the WebSocket hop to a consumer (bench/latency.py measures that path for roulette).

    python bench/balls.py                         # about 60 s
    python bench/balls.py --tables 20 --duration 60 --transport rtu
    python bench/balls.py --skip-rtt --tables 5 --duration 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    k = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return s[k]


def summary(values_ms: list[float]) -> str:
    if not values_ms:
        return "no samples"
    return (
        f"n={len(values_ms)}  p50={pct(values_ms, 50):.3f} ms  p90={pct(values_ms, 90):.3f} ms  "
        f"p99={pct(values_ms, 99):.3f} ms  max={max(values_ms):.3f} ms  mean={statistics.fmean(values_ms):.3f} ms"
    )


# =============================================================================
# 1. Modbus round trip
# =============================================================================


def modbus_round_trip(transport: str, samples: int, in_process: bool = False) -> dict[str, list[float]]:
    """Round trips with the driver's client; the simulator in a child process (like a PLC) unless in_process."""
    import subprocess

    from devices.balls.modbus_machine import ModbusBallMachineDriver
    from simulators.balls import BallMachineSimulator

    child = sim = None
    if in_process:
        sim = BallMachineSimulator(
            transport=transport, speed=1.0, machine_id=f"rtt-{transport}", ball_set="1-48"
        )
        sim.start()
        url = sim.url
    else:
        child = subprocess.Popen(
            [sys.executable, "-m", "simulators.balls", "--transport", transport, "--balls", "1-48"],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        line = child.stdout.readline() if child.stdout else ""
        if not line.startswith("machine: "):
            child.kill()
            raise SystemExit(f"the simulator process did not start: {line!r}")
        url = line.split(" ", 1)[1].strip()
    assert url is not None
    drv = ModbusBallMachineDriver("bench/machine", url, lambda e: None)  # not started: we drive its client
    client = drv._make_client()
    out: dict[str, list[float]] = {
        "read 4 input registers": [],
        "status poll (2 requests, decoded)": [],
        "command (write 1 coil)": [],
    }
    try:
        deadline = time.monotonic() + 10
        while not client.connect():
            if time.monotonic() > deadline:
                raise SystemExit(f"cannot connect to {url}")
            time.sleep(0.05)
        for _ in range(50):  # warm up
            client.read_input_registers(0, count=4, device_id=1)
        for _ in range(samples):
            t0 = time.perf_counter_ns()
            rr = client.read_input_registers(0, count=4, device_id=1)
            t1 = time.perf_counter_ns()
            assert not rr.isError()
            drv._poll(client)
            t2 = time.perf_counter_ns()
            client.write_coil(2, True, device_id=1)  # reset_fault: harmless
            t3 = time.perf_counter_ns()
            out["read 4 input registers"].append((t1 - t0) / 1e6)
            out["status poll (2 requests, decoded)"].append((t2 - t1) / 1e6)
            out["command (write 1 coil)"].append((t3 - t2) / 1e6)
    finally:
        client.close()
        if sim is not None:
            sim.stop()
        if child is not None:
            import signal

            child.send_signal(signal.SIGINT)
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    return out


# =============================================================================
# 2. Reader line -> certified draw on the feed
# =============================================================================


def install_probes(
    writes: list[tuple[str, str, int]],
    published: list[tuple[int, str, int]],
    stages: list[tuple[str, str, str, int]],
) -> None:
    from devices.balls.events import BallRead
    from devices.balls.reader import SerialBallReaderDriver
    from simulators.balls import BallReaderSimulator
    from studio.journal import Journal
    from studio.service import Studio
    from studio.table import Table

    handle_line = SerialBallReaderDriver.handle_line

    def probe_handle_line(self: Any, line: str) -> Any:
        events = handle_line(self, line)
        for e in events:
            if isinstance(e, BallRead):
                stages.append(("driver", self.device_id.partition("/")[0], e.tag, time.perf_counter_ns()))
        return events

    SerialBallReaderDriver.handle_line = probe_handle_line  # type: ignore[method-assign]

    device_event = Table.device_event

    def probe_device_event(self: Any, event: Any) -> None:
        if event.kind == "ball_read":
            stages.append(("loop", self.table_id, event.tag, time.perf_counter_ns()))
        device_event(self, event)

    Table.device_event = probe_device_event  # type: ignore[method-assign]

    append_feed = Journal.append_feed

    def probe_append_feed(self: Any, message: dict[str, Any], **options: Any) -> Any:
        if message.get("kind") == "result":
            stages.append(
                ("append_feed", message["table_id"], message["source"]["tags"][-1], time.perf_counter_ns())
            )
        return append_feed(self, message, **options)

    Journal.append_feed = probe_append_feed  # type: ignore[method-assign]

    write_line = BallReaderSimulator.write_line

    def probe_write_line(self: Any, text: str) -> None:
        # stamped just before the os.write: stamped after it, the driver thread may already have read, parsed
        # and stamped the line before this thread gets the GIL back
        writes.append((self.path.key, text, time.perf_counter_ns()))
        write_line(self, text)

    BallReaderSimulator.write_line = probe_write_line  # type: ignore[method-assign]

    publish = Studio._publish

    def probe_publish(self: Any, feed: list[tuple[int, str]]) -> None:
        t = time.perf_counter_ns()
        publish(self, feed)
        for seq, body in feed:
            published.append((seq, body, t))

    Studio._publish = probe_publish  # type: ignore[method-assign]


def studio_config(data: Path, args: argparse.Namespace) -> Any:
    from recognition.draw_games import DrawGame
    from recognition.games import GAMES
    from studio.config import parse_config

    game = GAMES[args.game]
    if not isinstance(game, DrawGame):
        raise SystemExit(f"--game {args.game}: not a ball draw")
    labels = game.ball_labels
    if not all(label.isdigit() for label in labels):
        raise SystemExit(f"--game {args.game}: this bench needs a game with numbered balls")
    ball_set = f"{labels[0]}-{labels[-1]}"
    tables = []
    for i in range(1, args.tables + 1):
        sim = {
            "speed": args.speed,
            "seed": 1000 + i,
            "options": {"machine_id": f"balls-{i}", "ball_set": ball_set, "transport": args.transport},
        }
        tables.append(
            {
                "id": f"balls-{i}",
                "game": args.game,
                "betting_seconds": args.betting,
                "auto_round_seconds": 0.2,
                "require_opening_check": False,
                "settings": {"mix_seconds": 0.3, "linger_s": 0.5},
                "devices": [
                    {
                        "kind": "modbus-ball-machine",
                        "role": "machine",
                        "url": "simulator",
                        "serial_number": f"LOTO-{i}",
                        "options": {"poll_interval": args.poll},
                        "simulator": sim,
                    },
                    {
                        "kind": "serial-ball-reader",
                        "role": "reader",
                        "url": "simulator",
                        "serial_number": f"RFID-{i}",
                        "options": {"ball_set": ball_set, "fold_s": 0.3},
                        "simulator": sim,
                    },
                ],
            }
        )
    return parse_config(
        {
            "studio": {"data_dir": str(data)},
            "consumers": [{"name": "bench", "token": "b" * 24}],
            "tables": tables,
        },
        "bench/balls.py",
    )


def draw_latency(args: argparse.Namespace) -> dict[str, Any]:
    writes: list[tuple[str, str, int]] = []
    published: list[tuple[int, str, int]] = []
    stages: list[tuple[str, str, str, int]] = []
    install_probes(writes, published, stages)
    from studio.service import Studio

    tmp = Path(tempfile.mkdtemp(prefix="bench-balls-", dir=args.dir))
    try:
        studio = Studio(studio_config(tmp / "data", args))
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        t_wall0 = time.perf_counter()

        stop_at: list[int] = []

        async def main() -> None:
            studio.start(asyncio.get_running_loop())
            try:
                await asyncio.sleep(args.duration)
            finally:
                stop_at.append(time.perf_counter_ns())
                await asyncio.to_thread(studio.stop)

        asyncio.run(main())
        wall = time.perf_counter() - t_wall0
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        fs = _filesystem(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    # the first write of each tag line per reader, in order (the repeats fold in the driver)
    by_key: dict[str, list[tuple[str, int]]] = {}
    for key, text, t in writes:
        by_key.setdefault(key, []).append((text, t))
    latencies: list[float] = []
    hops: dict[str, list[float]] = {
        "line -> driver (BallRead made)": [],
        "driver -> event loop": [],
        "event loop -> append_feed (judge, certify)": [],
        "append_feed -> published (sign, commit, fsync)": [],
    }
    kinds: dict[str, int] = {}
    voids: dict[str, int] = {}
    for seq, body, t_pub in published:
        msg = json.loads(body)
        kinds[msg["kind"]] = kinds.get(msg["kind"], 0) + 1
        if msg["kind"] == "void":
            when = "at the stop" if stop_at and t_pub >= stop_at[0] else "during the run"
            code = f"{msg['reason']['code']} {when}"
            voids[code] = voids.get(code, 0) + 1
        if msg["kind"] != "result":
            continue
        last_tag = msg["source"]["tags"][-1]
        key = msg["table_id"]  # machine_id == table id in this config
        candidates = [t for text, t in by_key.get(key, []) if text == last_tag and t <= t_pub]
        if not candidates:
            continue
        # the first line of the last ball: walk back over its repeats
        t_line = candidates[-1]
        for text, t in reversed(by_key[key]):
            if t > t_pub:
                continue
            if text != last_tag:
                break
            t_line = t
        latencies.append((t_pub - t_line) / 1e6)
        marks: dict[str, int] = {}
        for stage, table, tag, t in stages:  # the last stamp of each stage for this ball before the publish
            if table == key and tag == last_tag and t_line <= t <= t_pub:
                marks.setdefault(stage, t)
        if len(marks) == 3:
            hops["line -> driver (BallRead made)"].append((marks["driver"] - t_line) / 1e6)
            hops["driver -> event loop"].append((marks["loop"] - marks["driver"]) / 1e6)
            hops["event loop -> append_feed (judge, certify)"].append(
                (marks["append_feed"] - marks["loop"]) / 1e6
            )
            hops["append_feed -> published (sign, commit, fsync)"].append(
                (t_pub - marks["append_feed"]) / 1e6
            )
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    return {
        "latencies": latencies,
        "hops": hops,
        "kinds": kinds,
        "voids": voids,
        "wall": wall,
        "cpu": cpu,
        "fs": fs,
    }


def _filesystem(path: Path) -> str:
    try:
        best = ("?", "")
        with open("/proc/mounts") as f:
            for line in f:
                _dev, mnt, fstype = line.split()[:3]
                if str(path.resolve()).startswith(mnt) and len(mnt) >= len(best[1]):
                    best = (fstype, mnt)
        return best[0]
    except OSError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rtt-samples", type=int, default=2000)
    parser.add_argument("--skip-rtt", action="store_true")
    parser.add_argument(
        "--rtt-in-process",
        action="store_true",
        help="run the Modbus simulator in this process (default: a child process, like a PLC)",
    )
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--game", default="lucky_5")
    parser.add_argument("--transport", choices=("tcp", "rtu"), default="tcp")
    parser.add_argument("--speed", type=float, default=4.0, help="machine clock factor (1 = real mechanics)")
    parser.add_argument("--betting", type=float, default=1.0, help="betting seconds per round")
    parser.add_argument("--poll", type=float, default=0.05, help="machine driver poll interval, seconds")
    parser.add_argument("--duration", type=float, default=45.0, help="seconds of drawing")
    parser.add_argument("--dir", default=None, help="where the temporary studio data goes")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("pymodbus").setLevel(logging.CRITICAL)

    print(f"# bench/balls.py  python {sys.version.split()[0]}  cpus={os.cpu_count()}")
    if not args.skip_rtt:
        for transport in ("tcp", "rtu"):
            where = "in this process" if args.rtt_in_process else "in a child process"
            print(
                f"\n## Modbus round trip over {transport.upper()} ({args.rtt_samples} samples, the driver's sync "
                f"client, simulator {where})"
            )
            for name, values in modbus_round_trip(transport, args.rtt_samples, args.rtt_in_process).items():
                print(f"  {name:36s} {summary(values)}")

    if args.tables > 0:
        print(
            f"\n## Reader line -> certified draw on the feed: {args.tables} tables of {args.game} in one process "
            f"(Modbus {args.transport.upper()}, machine speed x{args.speed:g}, poll {args.poll * 1000:g} ms, "
            f"{args.duration:g} s)"
        )
        r = draw_latency(args)
        print(f"  feed messages: {r['kinds']}  journal on {r['fs']}")
        if r["voids"]:
            print(
                f"  voids by reason: {r['voids']} (device_lost at the stop: rounds still drawing when the "
                "studio stopped its drivers at the end of the run)"
            )
        print(f"  line -> published   {summary(r['latencies'])}")
        for name, values in r["hops"].items():
            print(f"    {name:46s} {summary(values)}")
        print(
            f"  process CPU {r['cpu']:.1f} s over {r['wall']:.1f} s wall ({100 * r['cpu'] / r['wall']:.0f}% of one core)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
