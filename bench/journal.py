"""Benchmark: durable journal appends per second (target: at least 5,000 events/s).

Runs the real `studio.journal.Journal` (SQLite in WAL mode, synchronous=FULL, group
commit on its writer thread) in a temporary folder and prints, for each variant:

* ``device events, 1 producer``   - N `append_line("device_event", ...)` calls (what
  `Table.device_event` makes: no future a record, one a batch) as fast as one thread can
  make them, then wait for every batch's future (= every record durable);
* ``device events, a future each`` - the same with `append` (a future a record);
* ``device events, K producers``  - the same N lines from K threads at once;
* ``signed feed messages``        - N `append_feed(...)` (each message is hash-chained
  and signed with Ed25519 on the writer thread), realistic roulette results;
* ``one at a time (no grouping)`` - append, wait for that record to be durable, then
  the next: one transaction and one fsync per event, i.e. what group commit buys.

"events/s" is records made durable per second of wall time, from the first append to the
last future resolved. "commits" is the number of batches the writer committed (one
SQLite transaction and one WAL fsync each), from the journal's `on_commit` callback.

    python bench/journal.py                 # about 25 s
    python bench/journal.py --events 50000 --producers 8
    python bench/journal.py --dir /var/lib/studio   # measure on the disk the studio uses

The temporary folder is made under --dir (default: the system temp dir) and removed at
the end. Mind the file system: on tmpfs an fsync costs nothing and the figures mean
nothing for a real disk (the script says which file system it measured on).
"""

from __future__ import annotations

import argparse
import base64
import gc
import hashlib
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from devices.events import WHEEL_PHASES, WheelResult, WheelStatus
from recognition.games import game_rules
from streaming.canonical import canonical_json
from studio.journal import Committed, Journal, check_feed_message, rfc3339, verify_journal
from studio.journal_writer import SCHEMA

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import MachineLoad, process_cpu

TARGET_EVENTS_PER_S = 5000
#: issue 25: device events against bare SQLite, signed results against the minimal signer (same run)
TARGET_VS_BARE = 0.6
TARGET_VS_SIGNER = 0.9


# --- realistic records ---------------------------------------------------------------


def device_events(n: int, body_bytes: int) -> list[tuple[str, dict[str, Any], str, datetime]]:
    """(table_id, body, round_id, at) for n device events as the studio journals them.

    The bodies are real `WheelStatus`/`WheelResult` dumps (what `Table.device_event`
    stores); a ``pad`` field brings them to about ``body_bytes`` of canonical JSON.
    """
    base = datetime.now(UTC)
    out = []
    for i in range(n):
        table = i % 50 + 1
        device = f"roulette-{table}/cammegh-ss2"
        game = i // 50 % 256 + 1
        at = base + timedelta(microseconds=i * 200)
        ev: WheelResult | WheelStatus
        if i % 9 == 8:
            ev = WheelResult(
                device_id=device, at=at, game_counter=game, number=str(i % 37), raw=f"{i % 37:>2}"
            )
        else:
            state = i % 6 + 1
            ev = WheelStatus(
                device_id=device,
                at=at,
                phase=WHEEL_PHASES[state - 1],
                game_counter=game,
                last_number=str(i % 37),
                speed_rpm=28.5,
                direction="clockwise",
                raw=f"*X;{state};{game:03d};{i % 37:>2};0;285;0",
            )
        body = ev.model_dump(mode="json")
        size = len(canonical_json(body))
        if size + 10 < body_bytes:
            body["pad"] = "x" * (body_bytes - size - 10)  # 10 = len(',"pad":""')+1
        out.append((f"roulette-{table}", body, f"00000000-0000-4000-8000-{i // 50:012d}", at))
    return out


def feed_messages(n: int) -> list[dict[str, Any]]:
    """n result messages shaped exactly like `Table._publish` makes them (real roulette outcome)."""
    game = game_rules("european_roulette")
    outcomes = {}
    out = []
    for i in range(n):
        number = str(i % 37)
        if number not in outcomes:
            result = game.validate_result({"number": number})
            outcomes[number] = (result, game.outcome(result))
        result, outcome = outcomes[number]
        table = i % 50 + 1
        out.append(
            {
                "kind": "result",
                "table_id": f"roulette-{table}",
                "game": "european_roulette",
                "round_id": f"00000000-0000-4000-8000-{i:012d}",
                "round_number": i // 50 + 1,
                "version": 1,
                "result": result,
                "outcome": outcome,
                "reason": None,
                "source": {
                    "device_id": f"roulette-{table}/cammegh-ss2",
                    "game_counter": i // 50 % 256 + 1,
                    "kind": "cammegh-ss2",
                    "serial_number": f"SIM-SS2-{table:03d}",
                },
                "commitment": None,
                "reveal": None,
                "occurred_at": rfc3339(datetime.now(UTC)),
            }
        )
    return out


# --- harness ------------------------------------------------------------------------------


class Run:
    """One fresh journal in its own folder, with commit counters."""

    def __init__(self, parent: Path, name: str) -> None:
        self.dir = parent / name
        self.batches = 0
        self.committed = 0
        self.biggest = 0
        self.journal = Journal(self.dir, Ed25519PrivateKey.generate(), on_commit=self._on_commit)
        self.start()

    def start(self) -> None:
        """From here, count the CPU of this process and of the journal's writer process."""
        self._cpu0 = (time.process_time(), process_cpu(self.journal.writer_pid or 0))

    def cpu_us(self, n: int) -> tuple[float, float]:
        """CPU microseconds a record since `start`: (this process, the writer process)."""
        ours, writer = time.process_time(), process_cpu(self.journal.writer_pid or 0)
        return 1e6 * (ours - self._cpu0[0]) / n, 1e6 * (writer - self._cpu0[1]) / n

    def _on_commit(self, batch: list[Committed]) -> None:  # the writer thread
        self.batches += 1
        self.committed += len(batch)
        self.biggest = max(self.biggest, len(batch))

    def close(self) -> None:
        self.journal.close()


def wait_all(futures: list[Future]) -> None:
    for f in futures:
        f.result(timeout=120)


def report(name: str, n: int, seconds: float, run: Run, extra: str = "") -> dict[str, Any]:
    rate = n / seconds
    mean_batch = run.committed / run.batches if run.batches else 0.0
    ours, writer = run.cpu_us(n)
    print(
        f"  {name:<34} {n:>7} events in {seconds:6.2f} s = {rate:>8,.0f} events/s   "
        f"commits {run.batches:>6} (mean {mean_batch:6.1f}, max {run.biggest:>4} per commit)   "
        f"CPU a record: {ours:.1f} us here + {writer:.1f} us writer{extra}",
        flush=True,
    )
    return {
        "name": name,
        "events": n,
        "seconds": seconds,
        "rate": rate,
        "commits": run.batches,
        "mean_batch": mean_batch,
        "max_batch": run.biggest,
        "cpu_us": ours + writer,
    }


def bench_single(parent: Path, events: list, each: bool = False) -> dict[str, Any]:
    """`each`: `append`, a future a record; else `append_line`, as `Table.device_event` journals them."""
    run = Run(parent, "each" if each else "single")
    try:
        append = run.journal.append if each else run.journal.append_line
        run.start()
        t0 = time.perf_counter()
        futures = [append("device_event", body, table_id=t, round_id=r, at=at) for t, body, r, at in events]
        t_queued = time.perf_counter()
        wait_all(list(dict.fromkeys(futures)))  # append_line: a batch's lines share one future
        t1 = time.perf_counter()
        queued = f"   (producer queued all in {t_queued - t0:.2f} s)"
        name = "device events, a future each" if each else "device events, 1 producer"
        return report(name, len(events), t1 - t0, run, queued)
    finally:
        run.close()


def bench_threads(parent: Path, events: list, producers: int) -> dict[str, Any]:
    run = Run(parent, f"threads{producers}")
    try:
        append = run.journal.append_line
        shares = [events[i::producers] for i in range(producers)]
        results: list[list[Future]] = [[] for _ in range(producers)]
        go = threading.Barrier(producers + 1)

        def produce(k: int) -> None:
            go.wait()
            out = results[k]
            for t, body, r, at in shares[k]:
                out.append(append("device_event", body, table_id=t, round_id=r, at=at))

        threads = [
            threading.Thread(target=produce, args=(k,), name=f"bench-producer-{k}") for k in range(producers)
        ]
        for th in threads:
            th.start()
        go.wait()
        run.start()
        t0 = time.perf_counter()
        for th in threads:
            th.join()
        for futures in results:
            wait_all(list(dict.fromkeys(futures)))
        t1 = time.perf_counter()
        return report(f"device events, {producers} producers", len(events), t1 - t0, run)
    finally:
        run.close()


def bench_feed(parent: Path, messages: list[dict[str, Any]], checked: bool = False) -> dict[str, Any]:
    """append_feed of each message; `checked`: with checked=True, each checked beforehand (not timed)."""
    run = Run(parent, "feed-checked" if checked else "feed")
    try:
        append_feed = run.journal.append_feed
        if checked:  # as the table hands them over: it checked each one when it made it
            for m in messages:
                check_feed_message(m)
        run.start()
        t0 = time.perf_counter()
        futures = [append_feed(m, checked=checked) for m in messages]
        wait_all(futures)
        t1 = time.perf_counter()
        size = statistics.mean(len(f.result().body) for f in futures[:200])
        res = report(
            "signed feed messages, checked before" if checked else "signed feed messages (append_feed)",
            len(messages),
            t1 - t0,
            run,
            f"   (signed message ~{size:.0f} B)",
        )
        report_ok = verify_journal(run.dir)
        if not report_ok.ok:
            raise SystemExit(f"verify failed after the feed benchmark: {report_ok.error}")
        return res
    finally:
        run.close()


def bench_sequential(parent: Path, events: list, seconds: float) -> dict[str, Any]:
    run = Run(parent, "sequential")
    try:
        append = run.journal.append
        latencies = []
        n = 0
        t0 = time.perf_counter()
        deadline = t0 + seconds
        for t, body, r, at in events:
            a = time.perf_counter()
            append("device_event", body, table_id=t, round_id=r, at=at).result(timeout=30)
            b = time.perf_counter()
            latencies.append(b - a)
            n += 1
            if b >= deadline:
                break
        t1 = time.perf_counter()
        latencies.sort()
        p50 = latencies[len(latencies) // 2] * 1000
        p99 = latencies[int(len(latencies) * 0.99)] * 1000
        return report(
            "one at a time (wait for each)",
            n,
            t1 - t0,
            run,
            f"   (append->durable p50 {p50:.2f} ms, p99 {p99:.2f} ms)",
        )
    finally:
        run.close()


# --- the floors: the simplest code doing the same work, in this process --------------------------------


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _bare_db(path: Path) -> sqlite3.Connection:
    path.mkdir(parents=True)
    db = sqlite3.connect(path / "bare.sqlite3", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.executescript(SCHEMA)  # the journal's own tables and indexes
    return db


def _insert(db: sqlite3.Connection, rows: list[tuple]) -> None:
    for i in range(0, len(rows), 1000):
        db.execute("BEGIN")
        db.executemany("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?)", rows[i : i + 1000])
        db.execute("COMMIT")


def _record_hash(
    seq: int, at: str, kind: str, t: str | None, r: str | None, f: int | None, body: str, prev: str
) -> str:
    fields = {"seq": seq, "at": at, "kind": kind, "table_id": t, "round_id": r, "feed_seq": f, "body": body}
    return hashlib.sha256(_dumps(dict(fields, prev_hash=prev)).encode()).hexdigest()


def bench_bare_sqlite(parent: Path, events: list) -> dict[str, Any]:
    """The rows the journal stores, made beforehand: executemany, 1000 rows a transaction, nothing else."""
    db = _bare_db(parent / "bare")
    rows = [
        (i + 1, rfc3339(at), "device_event", t, r, None, _dumps(body), "0" * 64, "1" * 64)
        for i, (t, body, r, at) in enumerate(events)
    ]
    c0, t0 = time.process_time(), time.perf_counter()
    _insert(db, rows)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    db.close()
    return floor_report("bare SQLite (rows made beforehand)", len(events), seconds, cpu)


def bench_minimal_writer(parent: Path, events: list) -> dict[str, Any]:
    """The simplest writer doing the journal's work: canonical JSON of the body, the record hash chain."""
    db = _bare_db(parent / "minimal")
    c0, t0 = time.process_time(), time.perf_counter()
    rows, prev = [], "0" * 64
    for i, (t, body, r, at) in enumerate(events):
        seq, stamp, text = i + 1, rfc3339(at), _dumps(body)
        h = _record_hash(seq, stamp, "device_event", t, r, None, text, prev)
        rows.append((seq, stamp, "device_event", t, r, None, text, prev, h))
        prev = h
        if len(rows) == 1000:
            _insert(db, rows)
            rows = []
    _insert(db, rows)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    db.close()
    return floor_report("minimal writer (same hashing)", len(events), seconds, cpu)


def bench_minimal_signer(parent: Path, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The simplest signer: canonical JSON, SHA-256 and Ed25519 of each message, the record chain, 1000 a
    transaction."""
    db = _bare_db(parent / "signer")
    key = Ed25519PrivateKey.generate()
    c0, t0 = time.process_time(), time.perf_counter()
    rows, prev, feed_prev = [], "0" * 64, "0" * 64
    for i, message in enumerate(messages):
        seq = i + 1
        m = dict(message, seq=seq, prev_hash=feed_prev)
        m["hash"] = hashlib.sha256(_dumps(m).encode()).hexdigest()
        m["signature"] = base64.b64encode(key.sign(_dumps(m).encode())).decode()
        body, stamp, feed_prev = _dumps(m), rfc3339(datetime.now(UTC)), m["hash"]
        h = _record_hash(seq, stamp, "result", m["table_id"], m["round_id"], seq, body, prev)
        rows.append((seq, stamp, "result", m["table_id"], m["round_id"], seq, body, prev, h))
        prev = h
        if len(rows) == 1000:
            _insert(db, rows)
            rows = []
    _insert(db, rows)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    db.close()
    return floor_report("minimal signer", len(messages), seconds, cpu)


def floor_report(name: str, n: int, seconds: float, cpu: float) -> dict[str, Any]:
    rate = n / seconds
    print(
        f"  {name:<34} {n:>7} events in {seconds:6.2f} s = {rate:>8,.0f} events/s   "
        f"CPU a record: {1e6 * cpu / n:.1f} us",
        flush=True,
    )
    return {"name": name, "events": n, "seconds": seconds, "rate": rate, "cpu_us": 1e6 * cpu / n}


def fs_type(path: Path) -> str:
    best, kind = "", "?"
    try:
        with open("/proc/mounts") as f:
            for line in f:
                parts = line.split()
                mnt = parts[1]
                if str(path).startswith(mnt) and len(mnt) > len(best):
                    best, kind = mnt, f"{parts[2]} on {parts[0]} (mounted at {mnt})"
    except OSError:
        pass
    return kind


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--events", type=int, default=50000, help="device events per variant (default 50000)")
    p.add_argument("--producers", type=int, default=4, help="threads in the concurrent variant (default 4)")
    p.add_argument("--feed", type=int, default=5000, help="signed feed messages (default 5000)")
    p.add_argument(
        "--sequential-seconds",
        type=float,
        default=3.0,
        help="how long to run the one-at-a-time variant (default 3 s)",
    )
    p.add_argument("--body-bytes", type=int, default=300, help="size of a device event body (default 300)")
    p.add_argument(
        "--dir", default=None, help="make the temporary journal folder here (default: system temp)"
    )
    args = p.parse_args(argv)

    events = device_events(args.events, args.body_bytes)
    messages = feed_messages(args.feed)
    body_size = statistics.mean(len(canonical_json(b)) for _, b, _, _ in events[:500])
    tmp = Path(tempfile.mkdtemp(prefix="studio-bench-journal-", dir=args.dir))
    try:
        print(
            f"journal benchmark: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
            f"folder {tmp} on {fs_type(tmp.resolve())}"
        )
        print(
            f"  device event body ~{body_size:.0f} B of canonical JSON; "
            f"journal: WAL, synchronous=FULL, group commit (max 1000 per commit)"
        )
        # the inputs live through the run: out of the collector's way, for the floors as for the journal
        gc.freeze()
        machine = MachineLoad()
        # each journal variant next to its floors, so that a change in the host's load between them is small
        bare = bench_bare_sqlite(tmp, events)
        single = bench_single(tmp, events)
        minimal = bench_minimal_writer(tmp, events)
        each = bench_single(tmp, events, each=True)
        signer = bench_minimal_signer(tmp, messages)
        feed = bench_feed(tmp, messages)
        feed_checked = bench_feed(tmp, messages, checked=True)
        threads = bench_threads(tmp, events, args.producers)
        sequential = bench_sequential(tmp, events, args.sequential_seconds)
        vs_bare = single["rate"] / bare["rate"]
        print(
            f"  device events (1 producer) / bare SQLite: {vs_bare:.2f}x "
            f"(target >= {TARGET_VS_BARE:g}: {'MET' if vs_bare >= TARGET_VS_BARE else 'NOT MET'}); "
            f"/ minimal writer: {single['rate'] / minimal['rate']:.2f}x; CPU a record "
            f"{single['cpu_us']:.1f} us (both processes) against {bare['cpu_us']:.1f} and {minimal['cpu_us']:.1f}; "
            f"a future each: {each['rate'] / bare['rate']:.2f}x"
        )
        for name, run in (("", feed), (", checked before", feed_checked)):
            ratio = run["rate"] / signer["rate"]
            print(
                f"  signed feed messages{name} / minimal signer: {ratio:.2f}x "
                f"(target >= {TARGET_VS_SIGNER:g}: {'MET' if ratio >= TARGET_VS_SIGNER else 'NOT MET'}); CPU a "
                f"message {run['cpu_us']:.1f} us (both processes) against {signer['cpu_us']:.1f}"
            )
        print(f"  group commit vs one fsync per event: {single['rate'] / sequential['rate']:.1f}x")
        ok = all(r["rate"] >= TARGET_EVENTS_PER_S for r in (single, threads))
        print(
            f"  target >= {TARGET_EVENTS_PER_S:,} device events/s: {'MET' if ok else 'NOT MET'} "
            f"(1 producer {single['rate']:,.0f}/s, {args.producers} producers {threads['rate']:,.0f}/s); "
            f"signed feed messages {feed['rate']:,.0f}/s"
        )
        print(f"  {machine.stop().summary()}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
