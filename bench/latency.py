"""Benchmark: winning number to a feed consumer, with 50 simulated wheels in one studio.

"With 50 simulated wheels in one process: time from the simulator writing the
winning-number line to a feed consumer holding the signed result, p50 and p99
(target: p99 under 10 ms on this 2-core machine)."

Two processes:

* a **studio child** (this file with ``--studio-child``): the real ``Studio`` and
  ``create_app`` (app/api.py) under uvicorn, configured exactly like
  ``studio demo --tables N --speed F`` (``app.demo.demo_config``): N European roulette
  tables, each a Cammegh SS2 simulator on a pty read by the real SS2 driver. The only
  addition is a probe wrapped around ``SS2Simulator._flush`` (in this process only, no
  file is changed) that stamps ``time.time_ns()`` just before the ``os.write`` that puts a
  winning-number line (``" 7\\r\\n"``, ``"23\\r\\n"``) on the pty, keyed by the wheel's
  game counter (the spin field of the ``*X;5;...`` line written with it). Before, not
  after: ``os.write`` releases the GIL, and the simulator thread may get it back only after
  the driver thread has parsed the line;
* **this process**, the consumer: a ``websockets`` client on ``/v1/feed?after=0`` with the
  Bearer token, which stamps ``time.time_ns()`` after ``json.loads`` of each message.

CLOCK_REALTIME is one clock for both processes, so latency = receive - write for the
matching (table_id, source.game_counter). What that includes, in order:

    simulator os.write on the pty master -> tty layer -> the event loop (loop.add_reader, see
    SerialLineDriver.read_on_loop: os.read, line framer, parse, SS2Tracker) -> loop.call_soon
    -> Table.device_event on
    the event loop (journal append of the device event, SS2 judge, round transitions
    result_pending + certify, append_feed: the held records' canonical JSON, one pipe message)
    -> journal writer process (SHA-256, Ed25519 signature, one SQLite transaction with WAL
    fsync, synchronous=FULL: group commit) -> the studio's journal-replies thread -> on_commit
    -> loop.call_soon_threadsafe -> FeedHub.publish -> consumer task
    -> websocket send (uvicorn) -> loopback TCP -> websockets client -> json.loads.

Usage::

    python bench/latency.py                       # 50 wheels at 10x real pace, 90 s of results
    python bench/latency.py --speed 1 --duration 160   # the wheels' real pace (~200 results)
    python bench/latency.py --tables 10 --speed 20

Experiments (each changes the studio child only, in memory): ``--reader-thread`` (the ports are
read on the shared ``serial-reader`` thread, as before they were read on the event loop), ``--thread-per-port`` (each
serial driver reads on its own thread, as before the shared reader), ``--switch-interval MS``,
``--profile FILE`` (cProfile of the event loop and the journal writer; slows them).

Everything runs in a temporary folder that is removed at the end; the studio child is
stopped (SIGINT, then SIGKILL if it hangs) and also dies with this process
(PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import MachineLoad, process_cpu

TARGET_P99_MS = 10.0
#: issue 25: p50 minus the run's bare-commit p50, and p99 minus the bare-commit p99 (ms)
TARGET_OWN_MS = 1.0
TARGET_TAIL_MS = 3.0
PATH_INCLUDED = (
    "pty write -> event loop reads the port (read, frame, parse, track) -> Table.device_event "
    "(journal append, judge, round steps, append_feed: the held records' canonical JSON, one pipe message) "
    "-> journal writer (SHA-256, Ed25519 signing, group commit with fsync) -> on_commit -> event loop "
    "(FeedHub.publish) -> uvicorn websocket send -> "
    "loopback TCP -> consumer process (websockets recv, json.loads)"
)


# =============================================================================
# The studio child
# =============================================================================

_WINNING = re.compile(rb"(?: [0-9]|[0-9]{2}|000|0000)")
_STATUS5 = re.compile(rb"\*X;5;([0-9]{3});")


def install_write_probe(records: list[tuple[int, int, int]]) -> None:
    """Wrap SS2Simulator._flush: stamp each winning-number line it writes to the pty.

    Appends (id(simulator), game_counter, time_ns) to ``records`` (list.append is atomic
    under the GIL; each simulator has its own thread).
    """
    from simulators.cammegh_ss2 import SS2Simulator

    original = getattr(SS2Simulator, "_flush", None)
    if not callable(original):
        raise SystemExit("bench/latency.py: SS2Simulator._flush is gone; update install_write_probe()")

    def _flush(self: Any) -> None:
        if not self._out:
            return original(self)
        pending = bytes(self._out)
        dropped = self.dropped_bytes
        # Stamp just before the write: os.write releases the GIL, so after it returns this thread may wait
        # for the GIL while the driver thread already parses the line (a stamp taken then would be late).
        t_ns = time.time_ns()
        original(self)
        if self.dropped_bytes != dropped:
            return  # nobody on the pty (or a write error): the bytes were thrown away
        written = len(pending) - len(self._out)
        if written <= 0 or b"\n" not in pending[:written]:
            return
        lines = pending[:written].split(b"\r\n")
        for i, line in enumerate(lines[:-1]):  # the last piece is after the last CRLF
            if _WINNING.fullmatch(line):
                counter = None
                for after in lines[i + 1 :]:
                    m = _STATUS5.match(after)
                    if m is not None:
                        counter = int(m.group(1))
                        break
                if counter is None:  # the status line is not out yet: the model is on this thread
                    counter = self.model.spin
                records.append((id(self), counter, t_ns))

    SS2Simulator._flush = _flush  # type: ignore[method-assign]


STAGES = (
    (
        "parsed",
        "event loop (--reader-thread: the serial-reader thread): line read, framed, parsed, WheelResult made",
    ),
    ("loop", "event loop: Table.device_event starts on the WheelResult"),
    ("append_feed", "event loop: judge + round steps done, append_feed queued"),
    ("writing", "journal writer (its process, or --writer thread): starts the batch holding the result"),
    ("committed", "studio: the writer's reply taken (signed, committed with fsync), on_commit called"),
    ("published", "event loop: FeedHub.publish"),
    ("sending", "event loop: the consumer's task hands the text to the websocket"),
)


def install_stage_probes(stamps: list[tuple[str, Any, Any]]) -> None:
    """Optional (--stages): stamp the result at each hop inside the studio.

    Wraps (in this process only) CammeghSS2Driver.handle_line, Table.device_event,
    Journal.append_feed, Studio._on_commit, Studio._publish and FeedHub._deliver. Each
    stamp is (stage, key, time_ns); keys are (table_id, game_counter), round ids or feed
    seqs, resolved by the parent. The probes themselves cost a few microseconds a hop.
    """
    from devices.events import WheelResult
    from devices.roulette.cammegh_ss2 import CammeghSS2Driver
    from streaming.feed import FeedHub
    from studio.journal import Journal
    from studio.service import Studio
    from studio.table import Table

    handle_line = CammeghSS2Driver.handle_line

    def probe_handle_line(self: Any, line: str) -> Any:
        events = handle_line(self, line)
        for e in events:
            if isinstance(e, WheelResult):
                stamps.append(("parsed", (self.device_id.split("/")[0], e.game_counter), time.time_ns()))
        return events

    device_event = Table.device_event

    def probe_device_event(self: Any, event: Any) -> Any:
        if isinstance(event, WheelResult):
            stamps.append(("loop", (self.table_id, event.game_counter), time.time_ns()))
        return device_event(self, event)

    append_feed = Journal.append_feed

    def probe_append_feed(self: Any, message: dict[str, Any], **kw: Any) -> Any:
        if message.get("kind") == "result":
            key = (message.get("table_id"), (message.get("source") or {}).get("game_counter"))
            stamps.append(("append_feed", key, time.time_ns()))
            stamps.append(("round", message.get("round_id"), key))
        return append_feed(self, message, **kw)

    on_commit = Studio._on_commit

    def probe_on_commit(self: Any, batch: list[Any]) -> None:
        t = time.time_ns()
        for c in batch:
            if c.feed_seq is not None:
                stamps.append(("committed", c.round_id, t))
                stamps.append(("seq", c.feed_seq, c.round_id))
        stamps.append(("batch", len(batch), t))
        return on_commit(self, batch)

    publish = Studio._publish

    def probe_publish(self: Any, feed: list[tuple[int, str]]) -> None:
        t = time.time_ns()
        for seq, _ in feed:
            stamps.append(("published", seq, t))
        return publish(self, feed)

    deliver = FeedHub._deliver

    async def probe_deliver(self: Any, consumer: Any, seq: int, text: str, send: Any) -> None:
        stamps.append(("sending", seq, time.time_ns()))
        await deliver(self, consumer, seq, text, send)

    CammeghSS2Driver.handle_line = probe_handle_line  # type: ignore[method-assign]
    Table.device_event = probe_device_event  # type: ignore[method-assign]
    Journal.append_feed = probe_append_feed  # type: ignore[method-assign]
    Studio._on_commit = probe_on_commit  # type: ignore[method-assign]
    Studio._publish = probe_publish  # type: ignore[method-assign]
    FeedHub._deliver = probe_deliver  # type: ignore[method-assign]


def install_profilers(profiles: list[tuple[str, Any]]) -> None:
    """Experiment (--profile): cProfile the event loop (main thread) and the journal writer thread (--writer
    thread); a writer process profiles itself (latency_writer_probe.py: FILE.journal-writer-process.prof).

    cProfile slows what it profiles (~2x), so the latency figures of such a run are not comparable.
    """
    import cProfile

    from studio.journal import _ThreadWriter

    run = _ThreadWriter._run

    def profiled_run(self: Any) -> None:
        prof = cProfile.Profile()
        profiles.append(("journal writer", prof))
        prof.enable()
        try:
            run(self)
        finally:
            prof.disable()

    _ThreadWriter._run = profiled_run  # type: ignore[method-assign]
    prof = cProfile.Profile()
    profiles.append(("event loop", prof))
    prof.enable()


def wheels_from_farm(config: Any, wheels: dict[str, str], speed: float) -> Any:
    """The demo configuration with each table's wheel on the farm's pty (a device path, as a real wheel's port)."""
    from studio.config import parse_config

    raw = config.model_dump(mode="json", exclude_none=True)
    for table in raw["tables"]:
        device = table["device"]
        device["url"] = wheels[table["id"]]
        device.pop("simulator", None)
        table.setdefault("settings", {})["wheel_time_scale"] = speed  # what config gives a simulated wheel
    return parse_config(raw, "bench wheels")


def wheel_farm(args: argparse.Namespace) -> int:
    """--sims-process: the tables' SS2 simulators in a process of their own, as real wheels are outside the
    studio. Writes {table id: pty path} to --wheels when ready, runs until SIGINT or SIGTERM, then writes the
    probed winning-number lines to --data/writes.jsonl."""
    _die_with_parent()
    from simulators.cammegh_ss2 import SS2Simulator

    records: list[tuple[int, int, int]] = []
    install_write_probe(records)
    sims: dict[str, Any] = {}
    for i in range(1, args.tables + 1):
        sim = SS2Simulator.on_pty(speed=args.speed, seed=None if args.seed is None else args.seed + i)
        sim.start()
        sims[f"roulette-{i}"] = sim
    names = {id(sim): table_id for table_id, sim in sims.items()}
    tmp = Path(args.wheels).with_suffix(".tmp")
    tmp.write_text(json.dumps({table_id: sim.slave_path for table_id, sim in sims.items()}))
    os.replace(tmp, args.wheels)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    while not stop.wait(0.5):
        pass
    for sim in sims.values():
        sim.stop()
    with open(Path(args.data) / "writes.jsonl", "w") as f:
        f.writelines(
            json.dumps({"table_id": names.get(sim_id), "game_counter": counter, "t_ns": t_ns}) + "\n"
            for sim_id, counter, t_ns in list(records)
        )
    return 0


def _die_with_parent() -> None:
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux's libc: the child outlives a killed parent
        pass


def studio_child(args: argparse.Namespace) -> int:
    _die_with_parent()
    if args.nice:
        os.nice(args.nice)  # the studio, its writers' fork server and its writers (they inherit it)
    records: list[tuple[int, int, int]] = []
    install_write_probe(records)
    stamps: list[tuple[str, Any, Any]] = []
    if args.stages:
        install_stage_probes(stamps)
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval / 1000)
    if args.thread_per_port:
        from devices.serial_line import SerialLineDriver

        SerialLineDriver.shared_reader = False
    if args.thread_per_port or args.reader_thread:
        from studio import service

        service.READ_SERIAL_ON_LOOP = False
    profiles: list[tuple[str, Any]] = []
    if args.profile:
        install_profilers(profiles)
    if args.lazy_device_sync:
        import latency_writer_probe as _probe

        os.environ[_probe.LAZY_ENV] = "1"
    if args.stages or args.profile or args.lazy_device_sync:
        # the writer's batches, timed (and profiled) where the writer runs: this process (--writer thread) or its
        # own, forked from a fork server that imports the probe first (see latency_writer_probe.py)
        import latency_writer_probe

        from studio.journal import writer_fork_server

        stamps_path = str(Path(args.data) / "writer-stamps.jsonl") if args.stages else None
        profile_path = f"{args.profile}.journal-writer-process.prof" if args.profile else None
        for key, value in (
            (latency_writer_probe.ENV, stamps_path),
            (latency_writer_probe.PROFILE_ENV, profile_path),
        ):
            if value:
                os.environ[key] = value
        if args.writer == "thread":
            latency_writer_probe.install(stamps_path, profile_path)
        writer_fork_server(preload=("latency_writer_probe",))

    import uvicorn

    from app.api import create_app
    from app.demo import demo_config
    from studio.service import Studio

    config = demo_config(
        argparse.Namespace(
            data=args.data,
            consumer_token=args.token,
            tables=args.tables,
            speed=args.speed,
            seed=args.seed,
            host="127.0.0.1",
            port=args.port,
            families=False,
            games=None,
            decisions_token=None,
            nats_url=None,
        )
    )
    config.studio.journal_writer = args.writer
    if args.wheels:
        config = wheels_from_farm(config, json.loads(Path(args.wheels).read_text()), args.speed)
    studio = Studio(config)
    app = create_app(studio)
    # the same server settings as `studio demo` (app/serve.py)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=args.port,
            log_level="warning",
            lifespan="on",
            ws_ping_interval=20,
            ws_per_message_deflate=False,
        )
    )
    # native thread id -> Python thread name, for the parent's per-thread CPU figures (Python 3.11 does not
    # name OS threads)
    mapper_stop = threading.Event()

    def map_threads() -> None:
        path = Path(args.data) / "threads.json"
        while not mapper_stop.wait(1.0):
            names = {t.native_id: t.name for t in threading.enumerate() if t.native_id is not None}
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(names))
            os.replace(tmp, path)

    mapper = threading.Thread(target=map_threads, name="bench-thread-map", daemon=True)
    mapper.start()
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn re-raises the SIGINT it shut down on
        pass
    finally:
        mapper_stop.set()
        mapper.join()
        studio.stop()
        # keyed by table id, or by device id "<table>/<role>" (the part before "/" is the table)
        names = {id(sim): key.partition("/")[0] for key, sim in studio.simulators.items()}
        out = Path(args.data) / ("writes-studio.jsonl" if args.wheels else "writes.jsonl")
        with open(out, "w") as f:
            f.writelines(
                json.dumps({"table_id": names.get(sim_id), "game_counter": counter, "t_ns": t_ns}) + "\n"
                for sim_id, counter, t_ns in list(records)
            )
        if args.stages:
            with open(Path(args.data) / "stages.json", "w") as f:
                json.dump(list(stamps), f)
        if profiles:
            import io
            import pstats

            text = io.StringIO()
            for name, prof in profiles:
                prof.disable()
                prof.dump_stats(f"{args.profile}.{name.replace(' ', '-')}.prof")
                text.write(f"\n===== {name}: top functions by cumulative time =====\n")
                pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(30)
                text.write(f"\n===== {name}: top functions by own time =====\n")
                pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(20)
            Path(args.profile).write_text(text.getvalue())
    return 0


# =============================================================================
# The consumer (this process)
# =============================================================================


def floor_child(args: argparse.Namespace) -> int:
    """The run's own durable-commit floor (--floor-child): a bare SQLite WAL commit (synchronous=FULL) of one
    row shaped as a signed result (about 2.1 KB), every 25 ms, in the studio's data folder (the same disk, the
    same load), until stdin closes; the commit times (ms) go to ``floor.json``."""
    import sqlite3

    _die_with_parent()
    db = sqlite3.connect(Path(args.data) / "floor.sqlite3", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute(
        "CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, at TEXT, kind TEXT, table_id TEXT, "
        "round_id TEXT, feed_seq INTEGER UNIQUE, body TEXT, prev_hash TEXT, hash TEXT)"
    )
    body = json.dumps({"kind": "result", "pad": "x" * 2000})
    times: list[float] = []
    done = threading.Event()

    def until_stdin_closes() -> None:
        sys.stdin.read()
        done.set()

    threading.Thread(target=until_stdin_closes, daemon=True).start()
    seq = 0
    while not done.wait(0.025):
        seq += 1
        t = time.perf_counter()
        db.execute("BEGIN")
        db.execute(
            "INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?)",
            (seq, "2026-12-01T00:00:00.000000Z", "result", "t", "r", seq, body, "0" * 64, "1" * 64),
        )
        db.execute("COMMIT")
        times.append((time.perf_counter() - t) * 1e3)
    db.close()
    (Path(args.data) / "floor.json").write_text(json.dumps(times))
    return 0


def start_floor(data: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--floor-child", "--data", str(data)],
        stdin=subprocess.PIPE,
        cwd=str(ROOT),
    )


def stop_floor(proc: subprocess.Popen, data: Path) -> list[float]:
    """The floor child's commit times (ms), ascending."""
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(30)
    try:
        return sorted(json.loads((data / "floor.json").read_text()))
    except (OSError, ValueError):
        return []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def thread_cpu(pid: int) -> dict[int, tuple[str, float]]:
    """{thread id: (thread name, CPU seconds)} of a process, from /proc."""
    out: dict[int, tuple[str, float]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            raw = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except OSError:
            continue
        name = raw[raw.index("(") + 1 : raw.rindex(")")]
        fields = raw.rsplit(")", 1)[1].split()
        out[int(tid)] = (name, (int(fields[11]) + int(fields[12])) / tick)
    return out


def thread_groups(
    pid: int,
    before: dict[int, tuple[str, float]],
    after: dict[int, tuple[str, float]],
    seconds: float,
    names: dict[int, str],
) -> str:
    groups: dict[str, float] = {}
    for tid, (name, cpu) in after.items():
        used = cpu - before.get(tid, (name, 0.0))[1]
        name = names.get(tid, name)
        if tid == pid:
            group = "event loop (main thread)"
        elif name.startswith("ss2-simulator"):
            group = "simulators"
        elif name.startswith("cammegh-ss2"):
            group = "SS2 drivers"
        elif name.startswith("serial-reader"):
            group = "serial reader (every SS2 port)"
        elif name.startswith("journal-writer"):
            group = "journal writer"
        elif name.startswith("bench-"):
            group = "benchmark probe"
        else:
            group = "other threads"
        groups[group] = groups.get(group, 0.0) + used
    return ", ".join(
        f"{g} {100 * v / seconds:.1f}%" for g, v in sorted(groups.items(), key=lambda kv: -kv[1])
    )


async def consume(
    url: str, token: str, duration: float, received: list[tuple[int, dict[str, Any]]], connected_at: list[int]
) -> None:
    import websockets

    deadline = time.monotonic() + duration
    async with websockets.connect(
        url, additional_headers={"Authorization": f"Bearer {token}"}, max_size=2**22
    ) as ws:
        connected_at.append(time.time_ns())
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                text = await asyncio.wait_for(ws.recv(), left)
            except TimeoutError:
                return
            message = json.loads(text)
            t_ns = time.time_ns()
            received.append((t_ns, message))


def wait_healthy(proc: subprocess.Popen, base: str, log: Path, timeout: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the studio exited at start-up:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(base + "/v1/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the studio did not answer /v1/health in {timeout:.0f} s")


def stop_child(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of an ascending list."""
    if not sorted_values:
        return float("nan")
    rank = max(1, -(-len(sorted_values) * q // 100))
    return sorted_values[int(rank) - 1]


def print_stages(stamps: list[list[Any]], matched: list[tuple[int, int, dict[str, Any]]]) -> None:
    """Split each matched latency into the hops stamped by install_stage_probes()."""
    by_key: dict[str, dict[Any, list[int]]] = {}
    batches: list[int] = []
    write_times: list[tuple[int, list[Any]]] = []
    for stage, key, value in stamps:
        if stage == "batch":
            batches.append(key)
            continue
        if stage == "write_time":
            write_times.append((key, value))
            continue
        if stage in ("round", "seq"):
            continue
        k = tuple(key) if isinstance(key, list) else key
        by_key.setdefault(stage, {}).setdefault(k, []).append(value)

    def at(stage: str, key: Any, t_min: int) -> int | None:
        ts = [t for t in by_key.get(stage, {}).get(key, []) if t >= t_min]
        return min(ts) if ts else None

    hops: dict[str, list[float]] = {}
    totals: list[tuple[float, int]] = []  # (latency, index into each hop's list)
    names = ["write"] + [s for s, _ in STAGES] + ["received"]
    complete = 0
    for t_write, t_recv, m in matched:
        key = (m.get("table_id"), (m.get("source") or {}).get("game_counter"))
        times: list[int | None] = [t_write]
        for stage, _ in STAGES:
            lookup = (
                key
                if stage in ("parsed", "loop", "append_feed")
                else (m.get("round_id") if stage in ("writing", "committed") else m.get("seq"))
            )
            times.append(at(stage, lookup, t_write))
        times.append(t_recv)
        stamped = [t for t in times if t is not None]
        if len(stamped) < len(times):
            continue
        complete += 1
        for a, b, ta, tb in zip(names, names[1:], stamped, stamped[1:]):
            hops.setdefault(f"{a} -> {b}", []).append((tb - ta) / 1e6)
        totals.append(((stamped[-1] - stamped[0]) / 1e6, len(totals)))
    print(f"  where the time goes ({complete} results stamped at every hop; ms):")
    # the slowest 2 % of the results: what each hop took in them (which hops make the tail)
    tail = [i for _, i in sorted(totals)[-max(1, len(totals) // 50) :]]
    print(
        f"    {'hop':<30} {'p50':>7} {'p90':>7} {'p99':>7} {'max':>7}  {'mean':>7}  {'slowest 2%: mean':>16}"
    )
    for hop, values in hops.items():
        in_tail = sum(values[i] for i in tail) / len(tail) if tail else float("nan")
        values = sorted(values)
        print(
            f"    {hop:<30} {percentile(values, 50):7.2f} {percentile(values, 90):7.2f} "
            f"{percentile(values, 99):7.2f} {values[-1]:7.2f}  {sum(values) / len(values):7.2f}  {in_tail:16.2f}"
        )
    for stage, what in STAGES:
        print(f"      {stage:<12} = {what}")
    if batches:
        print(
            f"    journal commits: {len(batches)}, records per commit mean {sum(batches) / len(batches):.1f}, "
            f"max {max(batches)}"
        )
    if write_times:

        def line(label: str, values: list[float]) -> None:
            values = sorted(values)
            print(
                f"      {label:<40} p50 {percentile(values, 50):6.2f}  p90 {percentile(values, 90):6.2f}  "
                f"p99 {percentile(values, 99):6.2f}  max {values[-1]:6.2f}  sum {sum(values) / 1e3:5.1f} s"
            )

        print("    journal writer batches, BatchWriter.write (ms):")
        for label, want in (("batches with a feed message", True), ("batches without", False)):
            rows = [v for _, v in write_times if v[3] == want]
            if not rows:
                continue
            print(
                f"     {label} ({len(rows)}, mean {sum(n for n, v in write_times if v[3] == want) / len(rows):.1f} "
                "records):"
            )
            line("wall time", [v[0] / 1e6 for v in rows])
            line("writer thread CPU time", [v[1] / 1e6 for v in rows])
            line("commit (COMMIT + WAL fsync), wall", [v[2] / 1e6 for v in rows])
            line(
                "wall - CPU - commit (waiting for the GIL)", [max(0, v[0] - v[1] - v[2]) / 1e6 for v in rows]
            )


def run(args: argparse.Namespace) -> int:
    from streaming.canonical import InvalidMessage, load_public_key_b64, verify_message

    tmp = Path(tempfile.mkdtemp(prefix="studio-bench-latency-", dir=args.dir))
    remove = True
    proc: subprocess.Popen | None = None
    farm: subprocess.Popen | None = None
    farm_cpu0 = farm_cpu = 0.0
    try:
        data = tmp / "data"
        data.mkdir()
        port = args.port or free_port()
        token = "bench-" + os.urandom(12).hex()
        log = tmp / "studio.log"
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--studio-child",
            "--data",
            str(data),
            "--port",
            str(port),
            "--token",
            token,
            "--tables",
            str(args.tables),
            "--speed",
            str(args.speed),
        ]
        if args.seed is not None:
            cmd += ["--seed", str(args.seed)]
        if args.stages:
            cmd += ["--stages"]
        if args.switch_interval:
            cmd += ["--switch-interval", str(args.switch_interval)]
        if args.thread_per_port:
            cmd += ["--thread-per-port"]
        if args.reader_thread:
            cmd += ["--reader-thread"]
        if args.lazy_device_sync:
            cmd += ["--lazy-device-sync"]
        if args.nice:
            cmd += ["--nice", str(args.nice)]
        if args.profile:
            cmd += ["--profile", str(Path(args.profile).resolve())]
        cmd += ["--writer", args.writer]
        if args.sims_process:
            wheels = tmp / "wheels.json"
            farm_cmd = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--wheel-farm",
                "--data",
                str(data),
                "--wheels",
                str(wheels),
                "--tables",
                str(args.tables),
                "--speed",
                str(args.speed),
            ]
            if args.seed is not None:
                farm_cmd += ["--seed", str(args.seed)]
            with open(tmp / "farm.log", "w") as farm_log:
                farm = subprocess.Popen(farm_cmd, stdout=farm_log, stderr=subprocess.STDOUT, cwd=str(ROOT))
            deadline = time.monotonic() + 60
            while not wheels.exists():
                if farm.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the wheel farm did not start:\n{(tmp / 'farm.log').read_text()[-3000:]}"
                    )
                time.sleep(0.1)
            cmd += ["--wheels", str(wheels)]
        where = "in a process of their own (--sims-process)" if args.sims_process else "in the studio process"
        print(
            f"latency benchmark: {args.tables} simulated SS2 wheels (simulators {where}), one studio process "
            f"(journal writer: {args.writer}), speed {args.speed:g}x real pace, {args.duration:.0f} s of results; "
            f"{os.cpu_count()} CPUs, python {sys.version.split()[0]}",
            flush=True,
        )
        with open(log, "w") as logf:
            proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, cwd=str(ROOT))
        base = f"http://127.0.0.1:{port}"
        wait_healthy(proc, base, log)

        import httpx

        public_key = load_public_key_b64(httpx.get(base + "/v1/public-key", timeout=5).json()["public_key"])
        received: list[tuple[int, dict[str, Any]]] = []
        connected_at: list[int] = []
        machine = MachineLoad(os.getpid(), proc.pid, *([farm.pid] if farm is not None else []))
        cpu0, threads0, wall0 = process_cpu(proc.pid), thread_cpu(proc.pid), time.monotonic()
        if farm is not None:
            farm_cpu0 = process_cpu(farm.pid)
        floor_proc = start_floor(data)
        asyncio.run(
            consume(f"ws://127.0.0.1:{port}/v1/feed?after=0", token, args.duration, received, connected_at)
        )
        cpu1, threads1, wall1 = process_cpu(proc.pid), thread_cpu(proc.pid), time.monotonic()
        machine.stop()
        floor = stop_floor(floor_proc, data)
        try:
            thread_names = {int(k): v for k, v in json.loads((data / "threads.json").read_text()).items()}
        except (OSError, ValueError):
            thread_names = {}
        t_end = time.time_ns()
        stop_child(proc)
        if farm is not None:
            farm_cpu = process_cpu(farm.pid)
            stop_child(farm)
        if proc.returncode not in (0, -signal.SIGINT):
            print(f"warning: the studio exited with {proc.returncode}; its log:\n{log.read_text()[-3000:]}")
        writes_file = data / "writes.jsonl"
        if not writes_file.exists():
            raise RuntimeError(f"the studio wrote no probe file; its log:\n{log.read_text()[-3000:]}")
        writes: dict[tuple[str, int], list[int]] = {}
        n_writes = 0
        for line in writes_file.read_text().splitlines():
            w = json.loads(line)
            writes.setdefault((w["table_id"], w["game_counter"]), []).append(w["t_ns"])
            n_writes += 1

        # --- match ------------------------------------------------------------------------
        t_connected = connected_at[0] if connected_at else 0
        latencies: list[float] = []
        matched: list[tuple[int, int, dict[str, Any]]] = []
        kinds: dict[str, int] = {}
        unmatched_results = 0
        bad_signatures = 0
        for t_recv, m in received:
            kinds[m.get("kind", "?")] = kinds.get(m.get("kind", "?"), 0) + 1
            try:
                verify_message(m, public_key)  # after the timing: the consumer holds a signed result
            except InvalidMessage:
                bad_signatures += 1
            if m.get("kind") != "result":
                continue
            counter = (m.get("source") or {}).get("game_counter")
            candidates = [
                t for t in writes.get((str(m.get("table_id")), int(counter or 0)), []) if t <= t_recv
            ]
            if not candidates:
                unmatched_results += 1
                continue
            t_write = max(candidates)
            if t_write < t_connected:
                continue  # written before the consumer was connected: a catch-up, not live
            latencies.append((t_recv - t_write) / 1e6)
            matched.append((t_write, t_recv, m))
        grace_ns = 2_000_000_000
        matched_keys = {
            (m.get("table_id"), (m.get("source") or {}).get("game_counter"))
            for _, m in received
            if m.get("kind") == "result"
        }
        expected = [(k, t) for k, ts in writes.items() for t in ts if t_connected <= t <= t_end - grace_ns]
        lost = sum(1 for k, _ in expected if k not in matched_keys)

        # --- report -----------------------------------------------------------------------
        latencies.sort()
        cpu_note = f"; studio process CPU {100 * (cpu1 - cpu0) / (wall1 - wall0):.0f}% of one core"
        if farm is not None:
            cpu_note += f", wheel farm process {100 * (farm_cpu - farm_cpu0) / (wall1 - wall0):.0f}%"
        total = sum(kinds.values())
        by_kind = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
        print(
            f"  feed messages received: {total} ({by_kind}), "
            f"signatures verified after timing: {total - bad_signatures} ok, {bad_signatures} bad"
        )
        print(
            f"  winning-number lines written: {n_writes}; results matched to their line: {len(latencies)}"
            f"{cpu_note}"
        )
        print(f"  {machine.summary()}")
        if threads1:
            groups = thread_groups(proc.pid, threads0, threads1, wall1 - wall0, thread_names)
            print(f"  studio CPU by thread (% of one core): {groups}")
        if lost or unmatched_results:
            print(
                f"  not delivered as results: {lost} lines written >2 s before the end (voided or held rounds); "
                f"results without a probed line: {unmatched_results}"
            )
        if not latencies:
            print(f"  no results matched: nothing to report; the studio's log:\n{log.read_text()[-3000:]}")
            return 1
        p50, p90, p99 = (percentile(latencies, q) for q in (50, 90, 99))
        mean = sum(latencies) / len(latencies)
        print("  latency, winning-number line written -> consumer holds the signed result (ms):")
        print(
            f"    count {len(latencies)}   p50 {p50:.2f}   p90 {p90:.2f}   p99 {p99:.2f}   max {latencies[-1]:.2f}"
            f"   mean {mean:.2f}   min {latencies[0]:.2f}"
        )
        print(
            f"  wheels {args.tables}, speed {args.speed:g}x; p99 target < {TARGET_P99_MS:g} ms: "
            f"{'MET' if p99 < TARGET_P99_MS else 'NOT MET'}"
        )
        if floor:
            f50, f99 = percentile(floor, 50), percentile(floor, 99)
            own = p50 - f50
            print(
                f"  the run's floor, a bare SQLite WAL commit (synchronous=FULL) of a result-sized row every 25 ms "
                f"beside the studio ({len(floor)} commits, ms): p50 {f50:.2f}   p99 {f99:.2f}   max {floor[-1]:.2f}"
            )
            print(
                f"  our own time per result (p50 - floor p50): {own:.2f} ms (target <= {TARGET_OWN_MS:g}: "
                f"{'MET' if own <= TARGET_OWN_MS else 'NOT MET'}); p99 - floor p99: {p99 - f99:.2f} ms "
                f"(target <= {TARGET_TAIL_MS:g}: {'MET' if p99 - f99 <= TARGET_TAIL_MS else 'NOT MET'})"
            )
        print(f"  included: {PATH_INCLUDED}")
        if args.stages:
            stages_file = data / "stages.json"
            if stages_file.exists():
                stamps = json.loads(stages_file.read_text())
                writer_file = data / "writer-stamps.jsonl"
                if writer_file.exists():  # latency_writer_probe.py: one line per writer batch
                    for line in writer_file.read_text().splitlines():
                        w = json.loads(line)
                        stamps += [["writing", round_id, w["t"]] for round_id in w["feed"]]
                        stamps.append(
                            ["write_time", w["n"], [w["wall"], w["cpu"], w["commit"], bool(w["feed"])]]
                        )
                print_stages(stamps, matched)
        if args.json:
            Path(args.json).write_text(
                json.dumps(
                    {
                        "tables": args.tables,
                        "speed": args.speed,
                        "duration": args.duration,
                        "count": len(latencies),
                        "p50_ms": p50,
                        "p90_ms": p90,
                        "p99_ms": p99,
                        "max_ms": latencies[-1],
                        "mean_ms": mean,
                        "floor_p50_ms": percentile(floor, 50) if floor else None,
                        "floor_p99_ms": percentile(floor, 99) if floor else None,
                        "latencies_ms": latencies,
                    },
                    indent=1,
                )
            )
        return 0
    finally:
        if args.keep:
            print(f"  kept {tmp}")
            remove = False
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)
        if farm is not None and farm.poll() is None:
            farm.kill()
            farm.wait(10)
        if remove:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--tables", type=int, default=50, help="simulated wheels (default 50)")
    p.add_argument(
        "--speed",
        type=float,
        default=10.0,
        help="simulator clock factor, 1 = the wheel's real pace of ~35 s a game (default 10)",
    )
    p.add_argument("--duration", type=float, default=90.0, help="seconds of consuming results (default 90)")
    p.add_argument("--seed", type=int, default=1, help="simulator seed base (default 1; table i gets seed+i)")
    p.add_argument("--port", type=int, default=0, help="studio port (default: a free one)")
    p.add_argument("--dir", default=None, help="make the temporary data folder here (default: system temp)")
    p.add_argument("--json", default=None, help="also write the figures and every latency to this file")
    p.add_argument("--keep", action="store_true", help=argparse.SUPPRESS)  # debugging: keep the temp folder
    p.add_argument(
        "--stages",
        action="store_true",
        help="also stamp each hop inside the studio and print where the time goes",
    )
    p.add_argument(
        "--switch-interval",
        type=float,
        default=0.0,
        metavar="MS",
        help="experiment: sys.setswitchinterval() in the studio process, in ms (default: Python's 5 ms)",
    )
    p.add_argument(
        "--thread-per-port",
        action="store_true",
        help="experiment: each serial driver reads its port on its own thread (as before the shared reader)",
    )
    p.add_argument(
        "--reader-thread",
        action="store_true",
        help="experiment: the serial ports are read on the shared serial-reader thread (as before they "
        "were read on the event loop)",
    )
    p.add_argument(
        "--profile",
        default=None,
        metavar="FILE",
        help="experiment: cProfile the studio's event loop and journal writer, write the tables to FILE "
        "(slows them: the latency figures of such a run are not comparable)",
    )
    p.add_argument(
        "--writer",
        choices=("process", "thread"),
        default="process",
        help="where the journal's writer runs ([studio] journal_writer; default: process)",
    )
    p.add_argument(
        "--nice",
        type=int,
        default=0,
        metavar="N",
        help="experiment: run the studio at nice N (negative: a higher priority; needs root)",
    )
    p.add_argument(
        "--lazy-device-sync",
        action="store_true",
        help="experiment: journal batches without a feed message are committed without an fsync of their "
        "own (SQLite synchronous=NORMAL; durable with the next result's); not what the studio does",
    )
    p.add_argument(
        "--sims-process",
        action="store_true",
        help="run the wheel simulators in a process of their own (real wheels are outside the studio; "
        "by default they run in the studio process, as in `studio demo`)",
    )
    # internal: the studio child
    p.add_argument("--studio-child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--data", help=argparse.SUPPRESS)
    p.add_argument("--token", help=argparse.SUPPRESS)
    p.add_argument("--wheel-farm", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--wheels", help=argparse.SUPPRESS)
    p.add_argument("--floor-child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.studio_child:
        return studio_child(args)
    if args.wheel_farm:
        return wheel_farm(args)
    if args.floor_child:
        return floor_child(args)
    if args.tables < 1 or args.speed <= 0 or args.duration <= 0:
        p.error("--tables, --speed and --duration must be positive")
    try:
        return run(args)
    except RuntimeError as exc:
        print(f"bench/latency.py: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
