"""The journal's writer: chains, signs and commits batches of records (group commit).

`BatchWriter` owns the journal's one writing SQLite connection. `studio.journal.Journal` runs it either in a
process of its own (`serve`, the default) or on a thread of the studio's process. In a process of its own its
hashing, signing and SQLite work never holds the studio's GIL, so the event loop is not kept waiting by it
between a winning number and its result (bench/latency.py).

This module is small on purpose: it is what the writer process imports.
"""

from __future__ import annotations

import gc
import json
import os
import pickle
import signal
import socket
import sqlite3
import struct
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal, NamedTuple, cast

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from streaming.canonical import public_key_b64

from .journal_text import (
    canonical_text,
    message_items,
    record_hash,
    rfc3339,
    signed_items,
    signed_text,
)

__all__ = ["canonical_text", "record_hash", "rfc3339", "signed_text"]  # what they were imported from here as

JOURNAL_FILE = "journal.sqlite3"
GENESIS_HASH = "0" * 64

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    seq       INTEGER PRIMARY KEY,
    at        TEXT NOT NULL,
    kind      TEXT NOT NULL,
    table_id  TEXT,
    round_id  TEXT,
    feed_seq  INTEGER UNIQUE,
    body      TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_round ON records(round_id) WHERE round_id IS NOT NULL;
-- a table's newest record of a kind (Journal.last_record, at start-up): every kind but the device lines, which
-- are most of the records and need no such look-up
CREATE INDEX IF NOT EXISTS records_table_kind ON records(table_id, kind)
    WHERE table_id IS NOT NULL AND kind != 'device_event';
-- a projection for fast start-up, rebuilt from records if lost; not part of the chain
CREATE TABLE IF NOT EXISTS rounds (
    round_id     TEXT PRIMARY KEY,
    table_id     TEXT NOT NULL,
    round_number INTEGER NOT NULL,
    state        TEXT NOT NULL,
    body         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS rounds_table ON rounds(table_id, round_number);
CREATE INDEX IF NOT EXISTS rounds_open ON rounds(table_id, round_number) WHERE state NOT IN ('certified', 'voided');
CREATE TRIGGER IF NOT EXISTS records_no_update BEFORE UPDATE ON records
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS records_no_delete BEFORE DELETE ON records
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
"""


#: (seq, hash) of the newest record
HEAD_QUERY = "SELECT seq, hash FROM records WHERE seq = (SELECT MAX(seq) FROM records)"


@dataclass(slots=True)
class Committed:
    seq: int
    kind: str
    table_id: str | None
    round_id: str | None
    feed_seq: int | None
    body: str  # the stored JSON text; for feed records the signed message


class Record(NamedTuple):
    """One record to write, for `BatchWriter.write` (`encode` makes the `Wire` that crosses to the writer)."""

    kind: str
    data: dict[str, Any]
    table_id: str | None
    round_id: str | None
    at: datetime
    feed: bool  # a signed feed message: `seq`, `prev_hash`, `hash` and `signature` are set by the writer
    # the round's new state for the `rounds` projection; True: `data` itself is the projection (a round_state
    # record: its canonical text is stored once for both)
    projection: dict[str, Any] | Literal[True] | None
    barrier: bool = False  # writes nothing; its reply says that everything before it is durable


class Wire(NamedTuple):
    """A record as it crosses to the writer process (`encode`): its texts made already, in the studio's
    process, so the writer unpickles strings and only chains, signs and inserts."""

    kind: str
    text: str | dict[str, str]  # the body's canonical JSON; a feed message's `message_items`
    table_id: str | None
    round_id: str | None
    at: str  # rfc3339
    feed: bool
    projection: tuple | None  # the `rounds` row; its text None: the body's
    barrier: bool


#: a barrier as it crosses to the writer
BARRIER = ("", "", None, None, "", False, None, True)


def encode(r: Record) -> tuple:
    """`r` as a plain tuple of `Wire`'s fields (pickled in C: a NamedTuple costs a Python call each).

    Raises what canonical_json raises for a value that is not JSON."""
    if r.barrier:
        return BARRIER
    return wire(r.kind, r.data, r.table_id, r.round_id, r.at, r.feed, r.projection)


def wire(
    kind: str,
    data: dict[str, Any],
    table_id: str | None,
    round_id: str | None,
    at: datetime,
    feed: bool,
    projection: dict[str, Any] | Literal[True] | None,
    checked: bool = False,
) -> tuple:
    """A record's fields (those of `Record`) as the plain tuple of `Wire`'s that crosses to the writer: its texts
    made, so that what `data` holds afterwards changes nothing. Raises what canonical_json raises for a value
    that is not JSON. `checked`: a feed message that passed `studio.journal.check_feed_message`
    (`message_items`)."""
    stamp = rfc3339(at)
    if projection is None:
        if feed:
            return (kind, message_items(data, stamp, checked), table_id, round_id, stamp, True, None, False)
        return (kind, canonical_text(data), table_id, round_id, stamp, False, None, False)
    text: str | dict[str, str] = message_items(data, stamp, checked) if feed else canonical_text(data)
    p = data if projection is True else projection
    # the round's own record is stored once, as its text; its step keys (studio.journal's ROUND_STEP_KEYS)
    # are dropped when the projection is read
    stored = None if p is data and not feed else canonical_text(p)
    return (
        kind,
        text,
        table_id,
        round_id,
        stamp,
        feed,
        (p["round_id"], p["table_id"], p["round_number"], p["state"], stored),
        False,
    )


#: what the writer made of one record, as it crosses back to the studio: (seq, feed_seq, stored text) for a feed
#: message, the seq alone for any other record (the studio has its text: a batch of device lines is replied as a
#: list of ints, not of their texts again)
Done = tuple[int, int | None, str] | int


class Prepared(NamedTuple):
    """A batch chained and signed, to be inserted (BatchWriter.prepare -> commit)."""

    rows: list[tuple]
    projections: list[tuple]
    done: list[Done | None]  # None for a barrier


def committed(batch: list[tuple], done: list[Any]) -> list[Committed | None]:
    """The `Committed` of each record of `batch` (`Wire`s, as plain tuples) from what the writer made of it: a
    `Done` (None for a barrier)."""
    return [
        Committed(d, w[0], w[2], w[3], None, w[1])
        if type(d) is int
        else None
        if d is None
        else Committed(d[0], w[0], w[2], w[3], d[1], d[2])
        for w, d in zip(batch, done)
    ]


class BatchWriter:
    def __init__(self, path: Path, key: Ed25519PrivateKey) -> None:
        self._key = key
        self._db = connect(path)
        self._db.executescript(SCHEMA)
        row = self._db.execute(HEAD_QUERY).fetchone()
        self._seq: int
        self._hash: str
        self._seq, self._hash = (row[0], row[1]) if row else (0, GENESIS_HASH)
        row = self._db.execute(
            "SELECT feed_seq, body FROM records WHERE feed_seq IS NOT NULL ORDER BY feed_seq DESC LIMIT 1"
        ).fetchone()
        if row:
            self._feed_seq, self._feed_hash = row[0], json.loads(row[1])["hash"]
        else:
            self._feed_seq, self._feed_hash = 0, GENESIS_HASH
        if self._seq == 0:
            # the first record names the key, so a verifier can tell which key signed this journal
            self.write(
                [
                    Record(
                        "journal_opened",
                        {"public_key": public_key_b64(key.public_key()), "algorithm": "ed25519"},
                        None,
                        None,
                        datetime.now(UTC),
                        False,
                        None,
                    )
                ]
            )

    def write(self, batch: list[Record]) -> list[Committed | None]:
        """Chain, sign and commit `batch` in one transaction (one fsync); None for each barrier."""
        wires = [encode(r) for r in batch]
        prepared = self.prepare(wires)
        self.commit([prepared])
        return committed(wires, prepared.done)

    def prepare(self, batch: list[tuple]) -> Prepared:
        """Chain and sign `batch` (`Wire`s, as plain tuples): the rows to insert. The chain goes on from them at
        once, so the next batch can be prepared while this one commits; after a failed commit the writer must
        stop."""
        seq, prev, feed_seq, feed_hash = self._seq, self._hash, self._feed_seq, self._feed_hash
        rows: list[tuple] = []
        done: list[Done | None] = []
        projections: list[tuple] = []
        for kind, text, table_id, round_id, at, feed, projection, barrier in batch:
            if barrier:
                done.append(None)
                continue
            seq += 1
            if feed:
                feed_seq += 1
                fseq = feed_seq
                items = cast(dict[str, str], text)  # a fresh dict: unpickled, or made by encode
                items["seq"] = f'"seq":{feed_seq}'
                items["prev_hash"] = f'"prev_hash":"{feed_hash}"'
                feed_hash, body = signed_items(items, self._key)
                done.append((seq, fseq, body))
            else:
                fseq = None
                body = text  # type: ignore[assignment]  # a str when not feed (Wire)
                done.append(seq)
            h = record_hash(seq, at, kind, table_id, round_id, fseq, body, prev)
            rows.append((seq, at, kind, table_id, round_id, fseq, body, prev, h))
            if projection is not None:
                round_id, table_id, number, state, stored = projection
                projections.append((round_id, table_id, number, state, body if stored is None else stored))
            prev = h
        self._seq, self._hash, self._feed_seq, self._feed_hash = seq, prev, feed_seq, feed_hash
        return Prepared(rows, projections, done)

    def commit(self, prepared: list[Prepared]) -> None:
        """Insert prepared batches, in order, in one transaction (one fsync)."""
        rows = prepared[0].rows if len(prepared) == 1 else [r for p in prepared for r in p.rows]
        projections = [r for p in prepared for r in p.projections]
        with self._db:
            insert(self._db, "INSERT INTO records", rows)
            insert(self._db, "INSERT OR REPLACE INTO rounds", projections)

    def close(self) -> None:
        self._db.close()


def insert(db: sqlite3.Connection, head: str, rows: list[tuple], chunk: int = 500) -> None:
    """Insert rows with one multi-row statement per `chunk` rows, in order.

    sqlite3 lets go of the GIL for every statement step, and with a hundred device and simulator
    threads runnable a writer thread may then wait a whole switch interval (5 ms) to get it back:
    executemany (one step per row) paid that once per record.
    """
    for i in range(0, len(rows), chunk):
        part = rows[i : i + chunk]
        one = "(" + ",".join("?" * len(part[0])) + ")"
        db.execute(f"{head} VALUES {','.join([one] * len(part))}", list(chain.from_iterable(part)))


def connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.isolation_level = "DEFERRED"
    return db


def portable(exc: BaseException) -> BaseException:
    """`exc` if it survives pickling (to cross back to the studio), else a RuntimeError that names it."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - pickling can fail in any way an object's __reduce__ chooses
        return RuntimeError(f"{type(exc).__name__}: {exc}")


#: the writer process's collector threshold of new containers (the interpreter's default: 700)
GC_YOUNG = 20_000

#: what a writer's `take` returns when nothing came within its timeout
NOTHING = object()

#: records without a feed message wait at most this long (seconds) to be committed with the ones behind them ...
GROUP_DELAY = 0.005
#: ... or until this many are waiting (group commit of the device lines)
GROUP_RECORDS = 500


def group_commit(
    take: Callable[[float | None], Any],
    write: Callable[[list[Any]], None],
    urgent: Callable[[Any], bool],
    max_batch: int,
    delay: float = GROUP_DELAY,
    group: int = GROUP_RECORDS,
) -> None:
    """The writer's loop: what comes in goes out in transactions of its own choosing, in order.

    `take(timeout)` gives the next list of items (None: wait as long as it takes; 0: only what is already
    there), NOTHING when none came in time, or None for the end (close, or the studio gone). `write(batch)`
    commits a batch (one transaction, one fsync), raising WriteFailed if it cannot. `urgent(item)`: a signed feed message, or a barrier someone
    waits on.

    An urgent item is committed at once, with everything before it (which is then durable before the result is
    published) and nothing after it: a result never waits for device lines that came behind it. Other records
    wait up to `delay` seconds or until `group` of them wait, so that the device lines of many tables share one
    fsync instead of each taking its own and a result waiting behind them. At the end, everything is committed.
    """
    pending: list[Any] = []
    through = 0  # pending[:through] ends with its last urgent item (0: none is pending)
    since = 0.0  # when the oldest pending item came (monotonic)
    end = False
    while not end:
        if pending:
            more = take(max(0.0, since + delay - time.monotonic()))
        else:
            more = take(None)
        while more is not NOTHING:
            if more is None:
                end = True
                break
            if not pending:
                since = time.monotonic()
            # each item is looked at once, as it comes, not at every pass over what waits
            last = next((i for i in range(len(more) - 1, -1, -1) if urgent(more[i])), -1)
            if last >= 0:
                through = len(pending) + last + 1
            pending += more
            more = take(0)
        while pending:
            if end or len(pending) >= group or time.monotonic() >= since + delay:
                cut = len(pending)
            elif through:
                cut = through
            else:
                break
            cut = min(cut, max_batch)
            batch, pending = pending[:cut], pending[cut:]
            through = max(0, through - cut)
            try:
                write(batch)
            except WriteFailed as failed:
                failed.unwritten = batch + pending
                raise
            since = time.monotonic()


class WriteFailed(Exception):
    """Raised by a `group_commit` writer's `write`: nothing of `unwritten` (the failed batch and what waited
    behind it) is durable."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.unwritten: list[Any] = []


def _take(requests: Any, timeout: float | None) -> Any:
    if timeout is not None and not requests.poll(timeout):
        return NOTHING
    try:
        return pickle.loads(requests.recv_bytes())  # a list of Wires as plain tuples, or None
    except EOFError:
        return None


def is_urgent(record: tuple) -> bool:
    return record[5] or record[7]  # Wire's feed or barrier


class CommitPipeline:
    """Commits prepared batches on a thread of its own (`journal-commit`), so that the next batch is chained
    and signed while SQLite inserts and fsyncs this one (it lets go of the GIL meanwhile).

    What waits when the thread is free is committed in one transaction; `done` is called after each commit with
    what it made durable, in order. A failed commit calls `failed` (nothing of that transaction nor of
    what waited behind it is durable) and stops the pipeline: `put` and `close` then raise WriteFailed.
    """

    def __init__(
        self,
        writer: BatchWriter,
        done: Callable[[list[Done | None]], None],
        failed: Callable[[BaseException], None],
        most: int = 4000,
    ) -> None:
        self._writer = writer
        self._done = done
        self._on_failure = failed
        self._most = most  # records prepared and waiting, beyond which `put` waits (memory)
        self._cond = threading.Condition()
        self._waiting: list[Prepared] = []
        self._count = 0
        self._end = False
        self._busy = False  # a commit is running (on the thread, or inline)
        self.failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="journal-commit", daemon=True)
        self._thread.start()

    def put(self, prepared: Prepared, inline: bool = False) -> None:
        """Commit `prepared` after what was put before it. `inline`: on this thread, if nothing is being or
        waiting to be committed (a result reaching an idle writer: no wake-up of another thread before its
        fsync)."""
        with self._cond:
            while self.failure is None and self._count >= self._most:
                self._cond.wait()
            if self.failure is not None:
                raise WriteFailed(self.failure)
            if not (inline and not self._busy and not self._waiting):
                self._waiting.append(prepared)
                self._count += len(prepared.done)
                self._cond.notify_all()
                return
            self._busy = True
        if not self._commit([prepared]):
            raise WriteFailed(self.failure)  # type: ignore[arg-type]

    def close(self) -> None:
        """Wait until everything put is committed (or the pipeline failed: WriteFailed)."""
        with self._cond:
            self._end = True
            self._cond.notify_all()
        self._thread.join()
        if self.failure is not None:
            raise WriteFailed(self.failure)

    def _run(self) -> None:
        while True:
            with self._cond:
                while (self._busy or not self._waiting) and not (self._end and not self._busy):
                    self._cond.wait()
                if not self._waiting:
                    return
                take, self._waiting, self._count = self._waiting, [], 0
                self._busy = True
                self._cond.notify_all()
            if not self._commit(take):
                return

    def _commit(self, take: list[Prepared]) -> bool:
        """Commit `take` (self._busy is set), reply; False if it failed."""
        try:
            self._writer.commit(take)
        except BaseException as exc:  # noqa: BLE001 - disk full, I/O error, anything: none of it is durable
            with self._cond:
                self.failure = exc
                self._busy = False
                self._cond.notify_all()
            self._on_failure(exc)
            return False
        self._done([d for p in take for d in p.done] if len(take) > 1 else take[0].done)
        with self._cond:
            self._busy = False
            self._cond.notify_all()
        return True


def serve(path: Path, key_raw: bytes, requests: Any, replies: Any, max_batch: int) -> None:
    """The writer process: read lists of `Wire`s (`encode`), commit them (`group_commit`: at most `max_batch` records a
    batch, batches that wait for the disk committed together), reply ("ok", [`Done` of each record]) for each
    transaction, in order.

    Ends on None ("closed" is the last reply, once the database is closed) or when the studio's end of
    `requests` closes (the studio died: what arrived is committed first). A failed write replies ("failed",
    exception) and ends: nothing of that transaction is durable, and nothing after it is written.
    """
    # Ctrl-C reaches the whole process group: the studio shuts down on it and still has records to write
    # (its voids), so this process waits for the studio to say it is done. SIGTERM likewise.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        writer = BatchWriter(path, Ed25519PrivateKey.from_private_bytes(key_raw))
    except BaseException as exc:  # noqa: BLE001 - whatever stops the writer, the studio must hear it
        replies.send(("failed", portable(exc)))
        return
    del key_raw
    # what is alive now lives as long as the process: out of the collector's way, so that a collection looks
    # only at the batches' short-lived records; and a collection every GC_YOUNG new containers rather than every
    # 700, so that a batch's records (two or three containers each, freed with the batch) are mostly gone before
    # one comes, instead of being walked again in each older generation while they wait for the disk
    gc.freeze()
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
    send_lock = threading.Lock()  # the commit thread and this one both reply

    def done(made: list[Done | None]) -> None:
        payload = pickle.dumps(("ok", made), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            with send_lock:
                replies.send_bytes(payload)
        except OSError:  # the studio is gone: what it sent is still committed
            pass

    def failed(exc: BaseException) -> None:
        with send_lock:
            replies.send(("failed", portable(exc)))

    def take(timeout: float | None) -> Any:
        # a failed commit ends the loop, even while it waits for records
        while timeout is None and pipeline.failure is None:
            if requests.poll(0.2):
                return _take(requests, None)
        return None if pipeline.failure is not None else _take(requests, timeout)

    def write(batch: list[tuple]) -> None:
        try:
            prepared = writer.prepare(batch)
        except BaseException as exc:  # a record it cannot chain: nothing of it is durable
            pipeline.close()  # what came before it is, and is replied first
            failed(exc)
            raise WriteFailed(exc) from exc
        # a result with nothing behind it: committed here, at once; under load, by the commit thread while
        # this one chains the next batch
        pipeline.put(prepared, inline=is_urgent(batch[-1]) and not requests.poll(0))

    pipeline = CommitPipeline(writer, done, failed)
    try:
        replies.send(("ready", None))
        try:
            group_commit(take, write, is_urgent, max_batch)
            pipeline.close()
        except WriteFailed:
            return  # the failure is replied already
        writer.close()
        replies.send(("closed", None))
    except OSError:  # EOFError, BrokenPipeError: the studio is gone
        return
    finally:
        writer.close()


def fork_server(control: socket.socket) -> None:
    """`python -m studio.journal_writer FD [MODULE ...]`: make writer processes for one studio.

    The studio starts this once, small (it imports this module and the MODULEs, nothing of the studio's
    running state), and asks it over the socket FD for each journal's writer: a message with the pickled
    (path, raw signing key, max_batch) and the writer's two pipe ends; the reply is the writer's pid. A fork
    of this process is cheap and safe where a fork of the studio (threads holding locks) is not, and a new
    interpreter per journal would cost a tenth of a second. Ends when the studio's end of FD closes.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the writers
    while True:
        try:
            message, fds, _flags, _addr = socket.recv_fds(control, 4096, 2)
        except OSError:
            return
        if not message:
            return
        path, key_raw, max_batch = pickle.loads(message)
        pid = os.fork()
        if pid == 0:  # the writer
            code = 0
            try:
                control.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                serve(
                    Path(path),
                    key_raw,
                    Connection(fds[0], writable=False),
                    Connection(fds[1], readable=False),
                    max_batch,
                )
            except BaseException:  # noqa: BLE001 - the forked writer must end in os._exit, never return
                code = 1
                traceback.print_exc()
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)
        del key_raw
        control.sendall(struct.pack("!i", pid))


if __name__ == "__main__":
    import importlib
    import sys

    # run this module under its own name, not __main__: the Committed records it pickles must unpickle as
    # studio.journal_writer.Committed in the studio
    module = importlib.import_module("studio.journal_writer")
    for name in sys.argv[2:]:
        importlib.import_module(name)
    module.fork_server(socket.socket(fileno=int(sys.argv[1])))
