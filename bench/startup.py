"""Benchmark: start-up time against the journal's size (issue 25, target 3).

Builds a journal of `--records` records (default 5 million) directly with SQLite: rounds of 50 European roulette
tables (`roulette-1` .. `roulette-50`, the ids of `studio demo`), each round 8 device lines, 4 round steps (with
the rounds projection) and one signed result, every record chained and every result signed with the folder's
own key, as the studio writes them (so `studio verify` accepts it); each table's `maintenance` record is among the
first records, where a scan from the newest would have to read the whole journal to find it. Then it starts
`studio demo --tables 50 --no-families` (a child process) on an empty folder and on the built one, alternately,
and times spawn -> the first 200 from /v1/health.

    python bench/startup.py                          # about 3 minutes on a quiet 2-core machine
    python bench/startup.py --records 1000000 --runs 3
    python bench/startup.py --keep /var/tmp/j5m      # keep (and reuse) the built journal

Target: the built journal's start within 2x the empty one's (median of the runs).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from journal import feed_messages
from machine import MachineLoad

TABLES = 50
TARGET_RATIO = 2.0


def build(data: Path, records: int) -> int:
    """Write about `records` records into data/journal.sqlite3; the number written."""
    from studio.journal import Journal
    from studio.journal_writer import (
        JOURNAL_FILE,
        SCHEMA,
        canonical_text,
        record_hash,
        rfc3339,
        signed_text,
    )
    from studio.keys import load_or_create_key
    from studio.rounds import Round, RoundState

    key = load_or_create_key(data)
    Journal(data, key, writer="thread").close()  # the key record, written by the studio's own code
    db = sqlite3.connect(data / JOURNAL_FILE, isolation_level=None)
    db.execute("PRAGMA synchronous=OFF")
    seq, prev = db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    feed_seq, feed_prev = 0, "0" * 64
    at = datetime(2025, 12, 1, tzinfo=UTC)
    rows: list[tuple[Any, ...]] = []
    rounds: list[tuple[Any, ...]] = []

    def add(kind: str, table: str | None, round_id: str | None, body: str, fseq: int | None = None) -> None:
        nonlocal seq, prev
        seq += 1
        stamp = rfc3339(at)
        h = record_hash(seq, stamp, kind, table, round_id, fseq, body, prev)
        rows.append((seq, stamp, kind, table, round_id, fseq, body, prev, h))
        prev = h

    def flush() -> None:
        db.execute("BEGIN")
        db.executemany("INSERT INTO records VALUES (?,?,?,?,?,?,?,?,?)", rows)
        db.executemany("INSERT OR REPLACE INTO rounds VALUES (?,?,?,?,?)", rounds)
        db.execute("COMMIT")
        rows.clear()
        rounds.clear()

    for t in range(1, TABLES + 1):
        state = {"on": False, "by": "bench", "reason": "built by bench/startup.py", "since": rfc3339(at)}
        add("maintenance", f"roulette-{t}", None, canonical_text(state))
    template = Round(
        round_id="x", table_id="x", game="european_roulette", round_number=1, opened_at=at
    ).projection()
    messages = feed_messages(37)
    n = 0
    report = time.monotonic()
    while seq < records:
        n += 1
        t = n % TABLES + 1
        table, number = f"roulette-{t}", n // TABLES + 1
        round_id = f"00000000-0000-4000-8000-{n:012d}"
        at += timedelta(milliseconds=700)
        for i in range(8):
            line = {
                "kind": "wheel_status",
                "device_id": f"{table}/cammegh-ss2",
                "i": i,
                "raw": f"*X;{i};{n % 256}",
            }
            add("device_event", table, None, canonical_text(line))
        for s in (RoundState.BETTING_OPEN, RoundState.BETTING_CLOSED, RoundState.RESULT_PENDING):
            data = dict(template, round_id=round_id, table_id=table, round_number=number, state=s.value)
            add("round_state", table, round_id, canonical_text(dict(data, transition=s.value, by="bench")))
        feed_seq += 1
        m = dict(messages[n % 37], table_id=table, round_id=round_id, round_number=number)
        m.update(seq=feed_seq, prev_hash=feed_prev, occurred_at=rfc3339(at))
        feed_prev, text = signed_text(m, key)
        add("result", table, round_id, text, feed_seq)
        final = dict(template, round_id=round_id, table_id=table, round_number=number, state="certified")
        text = canonical_text(dict(final, transition="certify", by="bench"))
        add("round_state", table, round_id, text)
        rounds.append((round_id, table, number, "certified", text))
        if len(rows) >= 20000:
            flush()
            if time.monotonic() - report > 10:
                report = time.monotonic()
                print(f"    {seq:,} records ...", flush=True)
    flush()
    db.executescript(SCHEMA)  # the indexes (already there: a no-op)
    db.close()
    return seq


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_time(data: Path, python_path: str | None) -> float:
    """Seconds from spawning `studio demo` on `data` to its first 200 from /v1/health."""
    import httpx

    port = free_port()
    env = dict(os.environ)
    if python_path:
        env["PYTHONPATH"] = python_path
    cmd = [
        sys.executable,
        "-m",
        "app.cli",
        "demo",
        "--tables",
        str(TABLES),
        "--no-families",
        "--no-demo-backend",
    ]
    cmd += ["--data", str(data), "--port", str(port), "--consumer-token", "bench-startup-token-0123456789"]
    log = open(data.parent / f"{data.name}.log", "a")  # noqa: SIM115 - closed in the finally below
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=python_path or str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"the studio exited at start-up; see {log.name}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code == 200:
                    return time.monotonic() - t0
            except httpx.HTTPError:
                pass
            time.sleep(0.02)
    finally:
        proc.send_signal(2)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, default=5_000_000, help="records in the built journal (default 5M)")
    p.add_argument("--runs", type=int, default=3, help="starts on each folder (default 3)")
    p.add_argument(
        "--keep", default=None, help="build the journal in this folder and keep it (reused if there)"
    )
    p.add_argument("--dir", default=None, help="make the temporary folders here (default: system temp)")
    p.add_argument(
        "--code", default=None, help="run the studio from this source tree (e.g. an older commit's) instead"
    )
    args = p.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="studio-bench-startup-", dir=args.dir))
    try:
        big = Path(args.keep) if args.keep else tmp / "big"
        if not (big / "journal.sqlite3").exists():
            big.mkdir(parents=True, exist_ok=True, mode=0o700)
            t = time.monotonic()
            print(f"building a journal of {args.records:,} records in {big} ...", flush=True)
            n = build(big, args.records)
            print(f"  built {n:,} records in {time.monotonic() - t:.0f} s", flush=True)
        with sqlite3.connect(big / "journal.sqlite3") as db:
            size = db.execute("SELECT MAX(seq) FROM records").fetchone()[0]
        machine = MachineLoad()
        empty_times, big_times = [], []
        for run in range(args.runs):
            empty = tmp / f"empty-{run}"
            empty.mkdir(mode=0o700)
            empty_times.append(start_time(empty, args.code))
            big_times.append(start_time(big, args.code))
            print(
                f"  run {run + 1}: empty {empty_times[-1]:.2f} s, {size:,} records {big_times[-1]:.2f} s",
                flush=True,
            )
        e, b = statistics.median(empty_times), statistics.median(big_times)
        print(
            f"  {TABLES} tables, spawn -> /v1/health 200 (median of {args.runs}): empty journal {e:.2f} s, "
            f"{size:,} records {b:.2f} s: {b / e:.2f}x (target <= {TARGET_RATIO:g}x: "
            f"{'MET' if b / e <= TARGET_RATIO else 'NOT MET'})"
        )
        print(f"  {machine.stop().summary()}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
