"""bench/latency.py --stages: time the journal writer's batches, wherever the writer runs.

Imported by the benchmark's studio child and, when the journal's writer runs in a process of its own, by the
writer processes' fork server (added to its preload list), so the probe is in place in both. When the
environment variable STUDIO_BENCH_WRITER_STAMPS names a file, `BatchWriter.prepare` and `.commit` are wrapped
(in this process only, no file is changed) to append one JSON line per batch once it is committed:

    {"t": ns (CLOCK_REALTIME) its chaining and signing started, "wall": ns from then to durable, "cpu": thread
     CPU ns (its preparing; the transaction's, with the first batch of it), "commit": COMMIT + fsync ns of its
     transaction, "n": records, "feed": [round ids of the feed messages in it]}
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

ENV = "STUDIO_BENCH_WRITER_STAMPS"
#: also cProfile the writer's batches, dumped to this file every 500 batches (--profile)
PROFILE_ENV = "STUDIO_BENCH_WRITER_PROFILE"
#: "1": experiment (--lazy-device-sync): batches without a feed message are committed with synchronous=NORMAL (no
#: fsync of their own: durable with the next result's), results with FULL
LAZY_ENV = "STUDIO_BENCH_LAZY_DEVICE_SYNC"


class _TimedConnection:
    """Stands in for the writer's sqlite3 connection to time the commit (`with self._db:`)."""

    def __init__(self, db: Any) -> None:
        self._db = db
        self.commit_ns = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    def __enter__(self) -> Any:
        self._db.__enter__()
        return self

    def __exit__(self, *exc: object) -> Any:
        t = time.perf_counter_ns()
        try:
            return self._db.__exit__(*exc)
        finally:
            self.commit_ns = time.perf_counter_ns() - t


def install(path: str | None, profile_path: str | None = None) -> None:
    from studio.journal_writer import BatchWriter

    prepare, commit = BatchWriter.prepare, BatchWriter.commit
    lock = threading.Lock()
    out: list[Any] = []
    #: id(Prepared) -> (start ns, prepare's CPU ns, records, feed round ids), until it is committed
    started: dict[int, tuple[int, int, int, list[Any]]] = {}

    profiler: Any = None
    if profile_path:
        import cProfile

        profiler = cProfile.Profile()
    batches = [0]

    lazy = os.environ.get(LAZY_ENV) == "1"
    synchronous = ["FULL"]

    def probe_prepare(self: Any, batch: list[Any]) -> Any:
        t, c = time.time_ns(), time.thread_time_ns()
        if profiler is not None:  # the writer's main thread: chaining and signing
            profiler.enable()
            try:
                prepared = prepare(self, batch)
            finally:
                profiler.disable()
            batches[0] += 1
            if batches[0] % 500 == 0:  # the writer process ends with os._exit: no chance to dump at its end
                profiler.dump_stats(profile_path)
        else:
            prepared = prepare(self, batch)
        started[id(prepared)] = (
            t,
            time.thread_time_ns() - c,
            len(batch),
            [w[3] for w in batch if w[5]],  # a Wire: (kind, text, table_id, round_id, at, feed, ...)
        )
        return prepared

    def probe_commit(self: Any, prepared: list[Any]) -> None:
        if not isinstance(self._db, _TimedConnection):
            self._db = _TimedConnection(self._db)
        if lazy:  # experiment: no fsync of its own for a batch without a feed message
            urgent = any(d is None or d[1] is not None for p in prepared for d in p.done)
            wanted = "FULL" if urgent else "NORMAL"
            if wanted != synchronous[0]:
                self._db.execute(f"PRAGMA synchronous={wanted}")
                synchronous[0] = wanted
        c = time.thread_time_ns()
        commit(self, prepared)
        cpu = time.thread_time_ns() - c
        if path is None:
            return
        now = time.time_ns()
        lines = []
        for p in prepared:
            t, prepare_cpu, n, feed = started.pop(id(p))
            wall = now - t
            lines.append(json.dumps({"t": t, "wall": wall, "cpu": prepare_cpu + cpu, "commit": self._db.commit_ns,
                                     "n": n, "feed": feed}))  # fmt: skip
            cpu = 0  # the transaction's CPU counted once
        with lock:
            if not out:
                # opened in the process that writes, for the rest of its life
                out.append(open(path, "a", buffering=1))  # noqa: SIM115
            out[0].writelines(line + "\n" for line in lines)

    BatchWriter.prepare = probe_prepare  # type: ignore[method-assign]
    BatchWriter.commit = probe_commit  # type: ignore[method-assign]


if os.environ.get(ENV) or os.environ.get(PROFILE_ENV) or os.environ.get(LAZY_ENV):
    install(os.environ.get(ENV), os.environ.get(PROFILE_ENV))
