"""Benchmark: what a durable commit costs on this machine when its CPUs are idle, half busy and all busy.

    python bench/fsync_floor.py [--commits 2000] [--dir DIR]

Every certified result waits for one SQLite commit with fsync (the journal: WAL, synchronous=FULL), so the
disk's flush latency is a floor under bench/latency.py's figures. This measures that floor with nothing of the
studio running: 4 KiB overwrites + fdatasync, and the real `studio.journal_writer.BatchWriter` committing batches
shaped as the studio's (device events, and every sixth batch a signed result), first with the machine's CPUs idle,
then with one busy-looping process per CPU but one, then with every CPU busy, and last with every CPU busy and
this process at real-time priority (SCHED_FIFO, when allowed).

Found on the 2-vCPU VM these benchmarks ran on: with both CPUs busy about 5-10 % of the flushes take ~4 ms longer
(the host's timer tick), whatever this process's priority, even SCHED_FIFO; with one CPU free they do not. The
delay is outside the guest's scheduler, so no setting of the studio removes it; what the studio can do is keep
its own CPU use low.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "bench"):  # the studio, and bench/journal.py's record shapes
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def fdatasync_times(folder: Path, n: int) -> list[float]:
    path = folder / "flush.bin"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.write(fd, b"\0" * (4096 * 256))
        os.fsync(fd)
        out = []
        for i in range(n):
            os.pwrite(fd, os.urandom(4096), (i % 256) * 4096)
            t = time.perf_counter()
            os.fdatasync(fd)
            out.append((time.perf_counter() - t) * 1e3)
        return out
    finally:
        os.close(fd)
        path.unlink()


def commit_times(folder: Path, n: int) -> list[float]:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from journal import device_events, feed_messages  # bench/journal.py's real record shapes

    from studio.journal_writer import BatchWriter, Record

    work = Path(tempfile.mkdtemp(dir=folder))
    writer = BatchWriter(work / "journal.sqlite3", Ed25519PrivateKey.generate())
    messages, events = feed_messages(200), device_events(4000, 300)
    now = datetime.now(UTC)
    out = []
    try:
        for i in range(n):
            base = (3 * i) % (len(events) - 3)
            batch = [Record(k, body, t, None, at, False, None) for k, body, t, at in events[base : base + 2]]
            if i % 6 == 5:
                m = messages[(i // 6) % len(messages)]
                batch.append(Record(m["kind"], m, m["table_id"], m["round_id"], now, True, None))
            t = time.perf_counter()
            writer.write(batch)
            out.append((time.perf_counter() - t) * 1e3)
        return out
    finally:
        writer.close()
        for f in work.iterdir():
            f.unlink()
        work.rmdir()


def spinners(count: int) -> list[int]:
    pids = []
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            try:
                end = time.monotonic() + 600  # never outlive a stuck parent by long
                while time.monotonic() < end:
                    pass
            finally:
                os._exit(0)
        pids.append(pid)
    time.sleep(0.3)
    return pids


def stop(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except OSError:
            pass


def row(name: str, values: list[float]) -> str:
    over = sum(v > 3.0 for v in values)
    return (
        f"  {name:<28} p50 {pct(values, 0.5):6.2f}  p90 {pct(values, 0.9):6.2f}  p99 {pct(values, 0.99):6.2f}  "
        f"max {max(values):6.2f}  mean {statistics.fmean(values):5.2f}  over 3 ms {100 * over / len(values):5.1f} %"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--commits", type=int, default=2000, help="flushes and commits per condition")
    p.add_argument("--dir", default=None, help="folder on the disk to measure (default: the system temp dir)")
    args = p.parse_args(argv)
    folder = Path(args.dir or tempfile.gettempdir())
    cpus = os.cpu_count() or 1
    print(f"durable commit floor: {args.commits} per condition in {folder}, {cpus} CPUs; ms")
    conditions = [
        ("CPUs idle", 0, False),
        (f"{cpus - 1} of {cpus} CPUs busy", cpus - 1, False),
        (f"all {cpus} CPUs busy", cpus, False),
        (f"all {cpus} busy, SCHED_FIFO", cpus, True),
    ]
    for name, busy, fifo in conditions:
        if busy == 0 and name != "CPUs idle":
            continue
        pids = spinners(busy)
        try:
            if fifo:
                try:
                    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
                except (PermissionError, AttributeError, OSError) as exc:
                    print(f"  ({name}: skipped, {exc})")
                    continue
            print(f" {name}:")
            print(row("4 KiB overwrite + fdatasync", fdatasync_times(folder, args.commits)))
            print(row("journal batch commit", commit_times(folder, args.commits)))
        finally:
            if fifo:
                os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
            stop(pids)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
