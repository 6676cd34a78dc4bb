"""The append-only, hash-chained journal (SQLite, WAL, durable commits).

Every record carries the hash of the one before it, so a changed byte anywhere
breaks the chain. Results, voids and corrections are stored as the signed feed
message itself (with a studio-wide `feed_seq` that grows by exactly one), so the
feed is replayed from the journal and is exactly what was signed.

Appends go to one writer (studio/journal_writer.py; a process of its own by
default) that commits in batches (group commit): each caller gets a future that
resolves once its record is durable (device lines, `append_line`, one future for
the lines handed over together), and `on_commit` is called with every committed
batch, in order, so that nothing is published before it is on disk.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import json
import logging
import multiprocessing.connection
import os
import pickle
import queue
import signal
import socket
import sqlite3
import stat
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, get_args

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from pydantic import ValidationError

from streaming.canonical import (
    InvalidMessage,
    canonical_json,
    commitment_hash,
    public_key_b64,
    verify_message,
)
from streaming.messages import CHECKPOINT, MAX_SAFE_INTEGER, CheckpointMessage, FeedKind, FeedMessage

from .journal_future import Handed, Ledger, PendingRecord, resolve
from .journal_text import canonical_text, plain_types
from .journal_writer import (
    BARRIER,
    GENESIS_HASH,
    HEAD_QUERY,
    JOURNAL_FILE,
    NOTHING,
    BatchWriter,
    Committed,
    WriteFailed,
    group_commit,
    is_urgent,
    record_hash,
    rfc3339,
    wire,
)

log = logging.getLogger(__name__)


def _tighten(path: Path, mode: int, what: str) -> None:
    """Take every permission beyond `mode` away from `path`, and say so (it was readable by others)."""
    before = stat.S_IMODE(path.stat().st_mode)
    if before & ~mode:
        path.chmod(before & mode)
        log.warning(
            "%s %s was %s, readable by others: permissions tightened to %s",
            what,
            path,
            oct(before),
            oct(before & mode),
        )


def keep_private(journal: Path) -> None:
    """The data folder 0700 and the journal's files 0600: what the studio did is nobody else's to read.

    A new journal file is made 0600 before SQLite opens it (its -wal and -shm files take the same mode);
    existing ones are tightened, with a warning in the log."""
    folder = journal.parent
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    _tighten(folder, 0o700, "the data folder")
    os.close(os.open(journal, os.O_RDWR | os.O_CREAT, 0o600))  # an empty file is a new SQLite database
    for path in (journal, *(journal.with_name(journal.name + end) for end in ("-wal", "-shm", "-journal"))):
        if path.exists():
            _tighten(path, 0o600, "the journal file")


#: the kinds stored as signed feed messages: every kind the feed's schemas know
FEED_KINDS: tuple[str, ...] = (*get_args(FeedKind), CHECKPOINT)


def utcnow() -> datetime:
    return datetime.now(UTC)


class JournalClosed(RuntimeError):
    pass


#: records held off the event loop are queued by their appender once this many wait (see Journal._enqueue)
HELD_RECORDS = 1000

#: where the journal's writer runs: "process" (a process of its own, the default) or "thread"
WRITERS = ("process", "thread")


class Journal:
    """Appends (from any thread) and reads of the journal; the writing is done by a `BatchWriter`.

    `writer="process"`: the BatchWriter runs in a process of its own (forked from a small server process
    that only imported `studio.journal_writer`: `writer_fork_server`), fed through a pipe; a thread of this
    process takes its replies. `writer="thread"`: on a thread of this process.
    """

    def __init__(
        self,
        data_dir: Path,
        signing_key: Ed25519PrivateKey,
        on_commit: Callable[[list[Committed]], None] | None = None,
        max_batch: int = 1000,
        writer: str = "process",
        on_failure: Callable[[BaseException], None] | None = None,
    ) -> None:
        if writer not in WRITERS:
            raise ValueError(f"writer must be one of {', '.join(WRITERS)}, not {writer!r}")
        self.path = Path(data_dir) / JOURNAL_FILE
        keep_private(self.path)
        self.public_key_b64 = public_key_b64(signing_key.public_key())
        self.on_commit = on_commit
        self.on_failure = on_failure
        #: called with each batch's commit latency (its oldest record's append to durable), on the writer's
        #: reply thread; it must be quick (a metric)
        self.on_latency: Callable[[float], None] | None = None
        self.writer = writer
        self._readers = threading.local()
        self._reader_conns: list[sqlite3.Connection] = []  # every thread's, so close() can close them all
        self._reader_lock = threading.Lock()
        self._reader_generation = 0  # bumped by close(): connections of an older generation are closed
        # what is held (see _enqueue): the records, the futures of those that have one, the one future of the rest
        self._held: list[tuple] = []
        self._held_futures: list[tuple[int, PendingRecord]] = []
        self._held_lines: PendingRecord | None = None
        self._held_since = 0.0  # when the oldest held record was appended (monotonic)
        self._held_lock = threading.RLock()  # RLock: a writer that fails while taking records calls _failed
        self._flusher: threading.Thread | None = None  # started at the first append off the event loop
        self._flush_wanted = threading.Event()
        self._closed = False
        self.failure: BaseException | None = None
        if writer == "process":
            self._sink: _ProcessWriter | _ThreadWriter = _ProcessWriter(
                self.path, signing_key, max_batch, self._committed, self._failed
            )
        else:
            self._sink = _ThreadWriter(
                BatchWriter(self.path, signing_key), max_batch, self._committed, self._failed
            )
        _open_journals.add(self)

    @property
    def writer_pid(self) -> int | None:
        """The writer process's pid; None for a writer thread."""
        return self._sink.pid if isinstance(self._sink, _ProcessWriter) else None

    # --- writing -------------------------------------------------------------

    def append(
        self,
        kind: str,
        data: dict[str, Any],
        *,
        table_id: str | None = None,
        round_id: str | None = None,
        at: datetime | None = None,
        round_projection: dict[str, Any] | None = None,
    ) -> Future:
        """Queue one record; the future resolves to its `Committed` once durable.

        `round_projection`: the round's new state for the `rounds` projection. Passing `data` itself (a
        `round_state` record: the round's projection plus the step keys in ROUND_STEP_KEYS) stores the record's
        canonical text once for both; the step keys are left out when the projection is read.
        """
        if kind in FEED_KINDS:
            raise ValueError("use append_feed for results, voids and corrections")
        projection: dict[str, Any] | Literal[True] | None = (
            True if round_projection is not None and round_projection is data else round_projection
        )
        try:
            # its texts made here, on the appender's thread: what crosses to the writer is strings in plain tuples
            record = wire(kind, data, table_id, round_id, at or utcnow(), False, projection)
        except Exception as exc:  # noqa: BLE001 - a value that is not data
            return self._refuse(exc)
        return self._enqueue(record, PendingRecord(self._release_held))

    def append_line(
        self,
        kind: str,
        data: dict[str, Any],
        *,
        table_id: str | None = None,
        round_id: str | None = None,
        at: datetime | None = None,
    ) -> Future:
        """Queue a record nobody waits on by itself (a device line), the cheapest way: no future of its own, and
        no `Committed` but the one `on_commit` gets. The future returned is shared by the lines handed to the
        writer with it and resolves (to None) once all of them are durable; a failure reaches `on_failure`."""
        if kind in FEED_KINDS:
            raise ValueError("use append_feed for results, voids and corrections")
        try:
            # what `wire` makes of it, without its branches (a record a device line)
            record = (
                kind,
                canonical_text(data),
                table_id,
                round_id,
                rfc3339(at or utcnow()),
                False,
                None,
                False,
            )
        except Exception as exc:  # noqa: BLE001 - a value that is not data
            return self._refuse(exc)
        return self._enqueue(record, None)

    def append_feed(
        self,
        message: dict[str, Any],
        *,
        at: datetime | None = None,
        round_projection: dict[str, Any] | None = None,
        checked: bool = False,
    ) -> Future:
        """Queue a result, void or correction; `seq`, `prev_hash`, `hash` and `signature` are set here.

        `checked=True`: the caller has just passed this very message through `check_feed_message`
        (validation is most of the caller's cost for a result; doing it twice doubles it).
        """
        if not checked:
            check_feed_message(message)
        try:
            record = wire(
                message["kind"],
                message,
                message.get("table_id"),
                message.get("round_id"),
                at or utcnow(),
                True,
                round_projection,
                checked=True,  # just now, or by the caller
            )
        except Exception as exc:  # noqa: BLE001 - a value that is not data
            return self._refuse(exc)
        return self._enqueue(record, PendingRecord(self._release_held))

    def _refuse(self, exc: Exception) -> Future:
        """A record that is not data: the journal stops here (whatever it would have been judged with cannot be
        journaled), and its caller's future fails with `exc`."""
        self._check_open()
        item = PendingRecord(self._release_held)
        self._failed(exc, [item])
        return item

    def _check_open(self) -> None:
        if self._closed:
            raise JournalClosed("the journal is closed")
        if self.failure is not None:
            raise JournalClosed(f"the journal failed: {self.failure}")

    def _enqueue(self, record: tuple, item: PendingRecord | None) -> PendingRecord:
        """Queue `record` (a `Wire` as a plain tuple, made by `wire`) with its future `item`; None: a device line,
        whose future is the one shared by the lines of its batch (returned)."""
        if self._closed or self.failure is not None:
            self._check_open()
        # Records are held and handed to the writer together: one pipe message (one pickling) per batch, not
        # per record. On the event loop, the records of one callback (a device event, the round steps it
        # caused, the signed result) and of the callbacks run in the same loop iteration are queued together
        # at the next iteration, or at the first feed message: one transaction and one fsync, instead of the
        # result waiting behind the commit of the records appended just before it. Off the loop, the
        # `journal-flusher` thread queues them as soon as it gets the GIL (at most a switch interval, 5 ms,
        # while the appending thread keeps it), or the appender itself once HELD_RECORDS wait; and whoever
        # waits on a held record's future queues it first.
        loop = asyncio._get_running_loop()
        with self._held_lock:
            held = self._held
            if not held:
                self._held_since = time.monotonic()
            if item is None:
                item = self._held_lines
                if item is None:
                    item = self._held_lines = PendingRecord(self._release_held)
            else:
                self._held_futures.append((len(held), item))
            held.append(record)
            if (record[5] and loop is not None) or len(held) >= HELD_RECORDS:  # record[5]: Wire's feed
                # A feed message (a result, a void) ends its batch: it goes now, with what was appended before it,
                # instead of after the rest of this loop iteration (other tables' events, the consoles) has run.
                self._queue_held()
                return item
            first = len(held) == 1
        if first:
            if loop is not None:
                loop.call_soon(self._release_held)
            else:
                self._wake_flusher()
        return item

    def _wake_flusher(self) -> None:
        if self._flusher is None:
            with self._held_lock:
                if self._flusher is None and not self._closed:
                    self._flusher = threading.Thread(target=self._flush, name="journal-flusher", daemon=True)
                    self._flusher.start()
        self._flush_wanted.set()

    def _flush(self) -> None:
        """The `journal-flusher` thread: queues what threads other than the event loop's hold."""
        while True:
            self._flush_wanted.wait()
            self._flush_wanted.clear()
            self._release_held()
            if self._closed:
                return

    def _release_held(self) -> None:
        with self._held_lock:
            self._queue_held()

    def _queue_held(self) -> None:
        if self._held:
            batch = Handed(self._held, self._held_futures, self._held_lines, self._held_since)
            self._held, self._held_futures, self._held_lines = [], [], None
            self._put(batch)

    def _put(self, batch: Handed) -> None:
        """Hand `batch` to the writer (under _held_lock: the writer gets them in append order)."""
        if self.failure is not None:  # the writer is gone
            for p in batch.pending():
                p.set_exception(self.failure)
            return
        self._sink.put(batch)

    def _committed(
        self,
        committed: list[Committed | None],
        queued: float,
        futures: list[PendingRecord],
        results: list[Any],
    ) -> None:
        """The writer made records durable (`Ledger.durable`: called on the writer's thread, in order)."""
        if self.on_latency is not None:
            self.on_latency(time.monotonic() - queued)
        resolve(futures, results)
        done = [c for c in committed if c is not None]
        if self.on_commit is not None and done:
            try:
                self.on_commit(done)
            except Exception:
                log.exception("on_commit callback failed")

    def _failed(self, exc: BaseException, lost: list[PendingRecord]) -> None:
        """The writer failed (disk full, I/O error, its process died): nothing in `lost` is durable, nothing
        more will be; every later append raises JournalClosed."""
        log.error("journal write failed: %s", exc, exc_info=exc)
        with self._held_lock:
            self.failure = exc
            held = [f for _, f in self._held_futures] + ([self._held_lines] if self._held_lines else [])
            self._held, self._held_futures, self._held_lines = [], [], None
        for p in lost + held:
            if not p.done():
                p.set_exception(exc)
        if self.on_failure is not None:
            try:
                self.on_failure(exc)
            except Exception:
                log.exception("on_failure callback failed")

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything queued so far is durable."""
        self._release_held()
        self._enqueue(BARRIER, PendingRecord(self._release_held)).result(timeout)

    def close(self) -> None:
        if self._closed:
            return
        with self._held_lock:
            self._closed = True
            self._queue_held()
            flusher = self._flusher
        if flusher is not None:
            self._flush_wanted.set()
            if flusher is not threading.current_thread():  # closed by an on_failure callback it ran
                flusher.join()
        self._sink.close()
        _open_journals.discard(self)
        with self._reader_lock:
            for conn in self._reader_conns:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._reader_conns.clear()
            self._reader_generation += 1

    # --- reading (any thread) ----------------------------------------------------

    def _reader(self) -> sqlite3.Connection:
        # thread-local storage (not an ability probe): a thread has a connection once it has opened one
        conn = getattr(self._readers, "conn", None)
        if conn is None or getattr(self._readers, "generation", -1) != self._reader_generation:
            conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            self._readers.conn = conn
            self._readers.generation = self._reader_generation
            with self._reader_lock:
                self._reader_conns.append(conn)
        return conn

    def last_seq(self) -> int:
        """The last feed seq (the FeedStore contract)."""
        row = self._reader().execute("SELECT MAX(feed_seq) FROM records").fetchone()
        return row[0] or 0

    def head(self) -> tuple[int, str] | None:
        """(seq, hash) of the newest durable record; None for a journal without records."""
        row = self._reader().execute(HEAD_QUERY).fetchone()
        return (row[0], row[1]) if row else None

    def read_after(self, seq: int, limit: int) -> list[tuple[int, str]]:
        """Feed messages with feed_seq > seq, in order (the FeedStore contract)."""
        return list(
            self._reader().execute(
                "SELECT feed_seq, body FROM records WHERE feed_seq > ? ORDER BY feed_seq LIMIT ?",
                (seq, limit),
            )
        )

    def round_records(self, round_id: str) -> list[dict[str, Any]]:
        rows = self._reader().execute(
            "SELECT seq, at, kind, feed_seq, body FROM records WHERE round_id = ? ORDER BY seq", (round_id,)
        )
        return [
            {"journal_seq": s, "at": at, "kind": k, "feed_seq": f, "data": json.loads(b)}
            for s, at, k, f, b in rows
        ]

    def open_rounds(self) -> list[dict[str, Any]]:
        rows = self._reader().execute(
            "SELECT body FROM rounds WHERE state NOT IN ('certified', 'voided') ORDER BY table_id, round_number"
        )
        return [_round(b) for (b,) in rows]

    def last_record(self, kind: str, table_id: str) -> dict[str, Any] | None:
        """The body of the table's newest record of `kind` (e.g. "maintenance", at start-up: an index look-up,
        whatever the journal's size)."""
        # device lines are not in the index: the newest of the most common kind is among the last rows
        if kind == "device_event":
            query = "SELECT body FROM records WHERE kind = ? AND table_id = ? ORDER BY seq DESC LIMIT 1"
        else:
            query = (
                "SELECT body FROM records WHERE kind = ? AND table_id = ? AND kind != 'device_event' "
                "ORDER BY seq DESC LIMIT 1"
            )
        row = self._reader().execute(query, (kind, table_id)).fetchone()
        return json.loads(row[0]) if row else None

    def last_round(self, table_id: str) -> dict[str, Any] | None:
        row = (
            self._reader()
            .execute(
                "SELECT body FROM rounds WHERE table_id = ? ORDER BY round_number DESC LIMIT 1", (table_id,)
            )
            .fetchone()
        )
        return _round(row[0]) if row else None

    def get_round(self, round_id: str) -> dict[str, Any] | None:
        row = self._reader().execute("SELECT body FROM rounds WHERE round_id = ?", (round_id,)).fetchone()
        return _round(row[0]) if row else None


# --- the writers ----------------------------------------------------------------------

_open_journals: weakref.WeakSet[Journal] = weakref.WeakSet()


@atexit.register
def _close_open_journals() -> None:
    # a journal nobody closed: wait for its writer to make durable what it was given
    for journal in list(_open_journals):
        try:
            journal.close()
        except Exception:
            log.exception("journal: close at exit failed")


#: what a writer calls once records are durable: `Journal._committed`, with what `Ledger.durable` gives
Durable = Callable[[list[Committed | None], float, list[PendingRecord], list[Any]], None]


class _Sink:
    """What the two writers share: the `Ledger` of what they were handed and did not yet reply for, and the
    failure after which they take nothing more."""

    def __init__(
        self, committed: Durable, failed: Callable[[BaseException, list[PendingRecord]], None]
    ) -> None:
        self._committed = committed
        self._failed = failed
        self._ledger = Ledger()
        self._lock = threading.Lock()  # _gone, and adding to the ledger
        self._gone: BaseException | None = None

    def _take(self, batch: Handed) -> bool:
        """Put `batch` in the ledger (under _lock); False (its futures failed) if the writer is gone."""
        gone = self._gone
        if gone is None:
            self._ledger.add(batch)
            return True
        for p in batch.pending():
            p.set_exception(gone)
        return False

    def _done(self, done: list[Any]) -> None:
        """The writer's reply for one transaction (on the one thread that takes them)."""
        self._committed(*self._ledger.durable(done))

    def _stop(self, exc: BaseException) -> None:
        """The writer failed: nothing it was handed and did not reply for is durable, nor will be."""
        with self._lock:
            self._gone = exc
            lost = self._ledger.lost()
        self._failed(exc, lost)


class _ThreadWriter(_Sink):
    """The BatchWriter on a thread of this process, fed through a queue."""

    def __init__(
        self,
        writer: BatchWriter,
        max_batch: int,
        committed: Durable,
        failed: Callable[[BaseException, list[PendingRecord]], None],
    ) -> None:
        super().__init__(committed, failed)
        self._writer = writer
        self._max_batch = max_batch
        self._queue: queue.Queue[list[tuple] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="journal-writer", daemon=True)
        self._thread.start()

    def put(self, batch: Handed) -> None:
        with self._lock:
            if self._take(batch):
                self._queue.put(batch.wires)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
        self._writer.close()

    def _next(self, timeout: float | None) -> Any:
        try:
            if timeout == 0:
                return self._queue.get_nowait()
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return NOTHING

    def _write(self, batch: list[tuple]) -> None:
        try:
            prepared = self._writer.prepare(batch)
            self._writer.commit([prepared])
        except BaseException as exc:  # disk full, I/O error, anything: nothing is durable
            raise WriteFailed(exc) from exc
        self._done(prepared.done)

    def _run(self) -> None:
        try:
            group_commit(self._next, self._write, is_urgent, self._max_batch)
        except WriteFailed as failed:
            self._stop(failed.cause)


class _ForkServer:
    """The studio's end of `python -m studio.journal_writer` (journal_writer.fork_server)."""

    def __init__(self, preload: tuple[str, ...]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # the package's folder and the studio's own sys.path, whatever the working directory (-P: not the
        # working directory first, where another checkout's studio/ would be imported instead of ours)
        root = str(Path(__file__).resolve().parent.parent)
        before = os.environ.get("PYTHONPATH")
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join([root, *(p for p in sys.path if p), *([before] if before else [])]),
        )
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-P", "-m", "studio.journal_writer", str(theirs.fileno()), *preload],
                pass_fds=[theirs.fileno()],
                env=env,
                stdin=subprocess.DEVNULL,
            )
        finally:
            theirs.close()
        self._sock = ours
        self._lock = threading.Lock()

    def alive(self) -> bool:
        return self.process.poll() is None

    def start_writer(self, path: Path, key_raw: bytes, max_batch: int, fds: list[int]) -> int:
        """Fork a writer for the journal at `path`, with its two pipe ends `fds`; its pid."""
        with self._lock:
            socket.send_fds(self._sock, [pickle.dumps((str(path), key_raw, max_batch))], fds)
            reply = self._sock.recv(4)
        if len(reply) != 4:
            raise RuntimeError("the journal's writer fork server is gone")
        return struct.unpack("!i", reply)[0]


_fork_server: _ForkServer | None = None
_fork_server_lock = threading.Lock()


def writer_fork_server(preload: tuple[str, ...] = ()) -> _ForkServer:
    """The process the journal writers are forked from, started on first use (the first journal, or a test
    session's start) and kept while the studio runs. `preload`: modules it imports first (a benchmark's
    probes); only the call that starts it can give them."""
    global _fork_server
    with _fork_server_lock:
        if _fork_server is None or not _fork_server.alive():
            _fork_server = _ForkServer(preload)
        return _fork_server


class _ProcessWriter(_Sink):
    """The BatchWriter in a process of its own: records go down one pipe, replies come back on another and are
    taken by a thread of this process (`journal-replies`)."""

    START_TIMEOUT = 60.0

    def __init__(
        self,
        path: Path,
        key: Ed25519PrivateKey,
        max_batch: int,
        committed: Durable,
        failed: Callable[[BaseException, list[PendingRecord]], None],
    ) -> None:
        super().__init__(committed, failed)
        requests_r, self._requests = multiprocessing.connection.Pipe(duplex=False)
        self._replies, replies_w = multiprocessing.connection.Pipe(duplex=False)
        raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        try:
            self.pid = writer_fork_server().start_writer(
                path, raw, max_batch, [requests_r.fileno(), replies_w.fileno()]
            )
        finally:
            requests_r.close()
            replies_w.close()
        _grow_pipe(self._requests)
        if not self._replies.poll(self.START_TIMEOUT):
            self._kill()
            raise RuntimeError(f"the journal's writer process did not start in {self.START_TIMEOUT:.0f} s")
        try:
            what, payload = self._replies.recv()
        except EOFError:
            what, payload = "failed", RuntimeError("the journal's writer process ended at start")
        if what != "ready":
            self._replies.close()
            self._requests.close()
            raise payload
        self._send_lock = threading.Lock()
        self._thread = threading.Thread(target=self._receive, name="journal-replies", daemon=True)
        self._thread.start()

    def put(self, batch: Handed) -> None:
        # what crosses is strings in plain tuples (pickled in C, one message a batch), made when each record was
        # appended
        payload = pickle.dumps(batch.wires, protocol=pickle.HIGHEST_PROTOCOL)
        # _send_lock keeps the pipe in the order of the ledger; the send may block (the pipe is full while the
        # writer commits) and the replies thread must meanwhile be able to take _lock, or the writer, blocked on
        # a full pipe of replies, would never read the one it is sent
        with self._send_lock:
            with self._lock:
                taken = self._take(batch)
            if taken:
                try:
                    self._requests.send_bytes(payload)
                except (OSError, ValueError) as exc:  # the writer process is gone; _receive says why
                    log.error("journal: could not hand records to the writer process: %s", exc)

    def close(self) -> None:
        with self._send_lock:
            try:
                self._requests.send_bytes(_CLOSE)
            except (OSError, ValueError):
                pass
            self._requests.close()
        self._thread.join()
        self._replies.close()
        if not self._ended(30):
            log.error("journal: the writer process did not end; killing it")
            self._kill()

    def _ended(self, timeout: float) -> bool:
        """Wait for the writer process to be gone (it is not our child: the fork server's, reaped by the kernel)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                return True
            except PermissionError:  # pragma: no cover - the pid was reused by another user's process
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)

    def _kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass

    def _receive(self) -> None:
        while True:
            try:
                what, payload = self._replies.recv()
            except (EOFError, OSError):
                what, payload = "failed", JournalClosed("the journal's writer process ended")
            except Exception as exc:  # a reply this process cannot read: nothing after it can be trusted
                log.exception("journal: unreadable reply from the writer process")
                self._kill()
                what, payload = (
                    "failed",
                    JournalClosed(f"unreadable reply from the journal's writer process: {exc}"),
                )
            if what == "ok":
                self._done(payload)
            elif what == "closed":
                return
            else:
                self._stop(payload)
                return


_CLOSE = pickle.dumps(None)


def _grow_pipe(conn: Any) -> None:
    """Make the pipe to the writer hold up to 1 MiB, so a burst of appends does not block the event loop while
    the writer commits the batch before."""
    try:
        import fcntl

        # Linux's constant, absent from the module on some Pythons: 1031 is its value (no ability probe)
        fcntl.fcntl(conn.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except OSError:
        pass  # the kernel's own size (64 KiB) then


#: keys a `round_state` record adds to the round's projection (what step, by whom); a projection stored as the
#: record's text (see `Journal.append`) drops them when read
ROUND_STEP_KEYS = ("transition", "by")


def _round(text: str) -> dict[str, Any]:
    r = json.loads(text)
    for key in ROUND_STEP_KEYS:
        r.pop(key, None)
    return r


#: what the writer fills in, stood in for while checking; no run of digits in them (a run of 16 sends the check to
#: its slow path: see check_feed_message), so not the genesis hash (and not seq 1, which requires it)
_PLACEHOLDERS = {
    "seq": 2,
    "prev_hash": "ab" * 32,
    "hash": "ab" * 32,
    "signature": base64.b64encode(b"\xab" * 64).decode(),
}


def check_feed_message(message: dict[str, Any]) -> None:
    """Refuse, in the caller's thread, a message the feed's schema would not accept once signed.

    A bad message must never reach the writer thread: a failed batch stops the journal.
    """
    if message.get("kind") not in FEED_KINDS:
        raise ValueError(f"feed message kind must be one of {FEED_KINDS}")
    probe = {"occurred_at": rfc3339(utcnow()), **message, **_PLACEHOLDERS}
    if message["kind"] == CHECKPOINT:
        try:
            CheckpointMessage.model_validate(probe)
            canonical_json(probe)
        except (ValidationError, TypeError) as exc:
            raise ValueError(f"not a valid checkpoint: {exc}") from None
        return
    # Fast path. The schema's own portability check (no float, no integer beyond 2^53 - 1 in the free-form
    # values) walks every value in Python, ~2 KB of a roulette outcome each time. Here the schema validates the
    # message with its free-form values emptied, and one walk that is in C but for one step per nesting level
    # (plain_types) finds every key a str, no float, every integer within the bound and every string encodable:
    # what canonical_json and the portability check would find. Whatever the fast path refuses goes through
    # the full check, so what it accepts and the errors it gives are the full check's.
    try:
        ints: list[int] = []
        strings: list[str] = []
        types = plain_types(probe, ints, strings)
        if (
            types is not None
            and types <= _NO_FLOAT
            and max(ints, default=0) <= MAX_SAFE_INTEGER
            and min(ints, default=0) >= -MAX_SAFE_INTEGER
        ):
            "".join(strings).encode("utf-8")  # a lone surrogate: the full check names it
            light = dict(probe)
            for name in _FREE_FORM:
                if type(light.get(name)) is dict and light[name]:
                    light[name] = {}
            reveal = light.get("reveal")
            if type(reveal) is dict and type(reveal.get("extras")) is dict and reveal["extras"]:
                light["reveal"] = dict(reveal, extras={})
            FeedMessage.model_validate(light)
            return
    except (ValidationError, TypeError, ValueError, RecursionError):
        pass
    try:
        FeedMessage.model_validate(probe)
        canonical_json(probe)
    except (ValidationError, TypeError) as exc:
        raise ValueError(f"not a valid feed message: {exc}") from None


#: the feed message's free-form objects (`dict[str, Any]` in the schema, checked for portability)
_FREE_FORM = ("result", "outcome", "source", "detail")
#: the scalar types a feed message may hold (a float never)
_NO_FLOAT = frozenset({str, int, bool, type(None)})


def _check_commitment(
    message: dict[str, Any], seq: int, commitments: dict[str, tuple[str, int]], betting_closed: dict[str, int]
) -> str | None:
    """A computer draw must be committed before betting closed and revealed to match the commitment."""
    rid = message.get("round_id", "")
    if message.get("kind") == "commitment":
        if rid in commitments:
            return f"round {rid} is committed twice"
        if rid in betting_closed:
            return f"round {rid}'s draw was committed after betting closed"
        commitments[rid] = (message["commitment"]["hash"], seq)
        return None
    reveal = message.get("reveal")
    if message.get("kind") not in ("result", "void"):
        return None
    if rid in commitments and reveal is None:
        return f"round {rid} had a committed draw that its {message['kind']} does not reveal"
    if reveal is not None:
        if rid not in commitments:
            return f"round {rid} reveals a draw that was never committed"
        if commitment_hash(rid, reveal["extras"], reveal["nonce"]) != commitments[rid][0]:
            return f"round {rid}'s revealed draw does not match its commitment"
    return None


# --- verification ---------------------------------------------------------------


@dataclass
class VerifyReport:
    ok: bool
    records: int
    feed_messages: int
    error: str | None = None
    bad_seq: int | None = None


def verify_journal(
    data_dir: Path, public_key: Ed25519PublicKey | None = None, expect: tuple[int, str] | None = None
) -> VerifyReport:
    """Check the whole chain and every signature; stop at the first bad record.

    `expect`: (seq, hash) of a feed message a backend holds (its newest checkpoint): the journal must hold that
    very message. The chain alone cannot tell a journal whose last records were deleted from a shorter one."""
    path = Path(data_dir) / JOURNAL_FILE
    if not path.exists():
        return VerifyReport(False, 0, 0, f"{path}: no journal here")
    expected_seq, prev, feed_seq, feed_prev = 1, GENESIS_HASH, 0, GENESIS_HASH
    count = 0
    commitments: dict[str, tuple[str, int]] = {}  # round id -> (hash, journal seq of the commitment)
    betting_closed: dict[str, int] = {}  # round id -> journal seq of its close_betting
    key_b64 = public_key_b64(public_key) if public_key is not None else None

    def bad(seq: int, why: str) -> VerifyReport:
        return VerifyReport(False, count, feed_seq, f"record {seq}: {why}", seq)

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT seq, at, kind, table_id, round_id, feed_seq, body, prev_hash, hash "
            "FROM records ORDER BY seq"
        )
        for seq, at, kind, table_id, round_id, fseq, body, prev_hash, h in rows:
            if seq != expected_seq:
                return bad(seq, f"expected record {expected_seq} (a record is missing)")
            if prev_hash != prev:
                return bad(seq, "prev_hash does not match the previous record's hash")
            try:
                computed = record_hash(seq, at, kind, table_id, round_id, fseq, body, prev_hash)
            except (TypeError, ValueError) as exc:
                return bad(seq, f"unreadable record: {exc}")
            if computed != h:
                return bad(seq, "hash does not match the record's contents")
            try:
                data = json.loads(body)
            except ValueError:
                return bad(seq, "body is not valid JSON")
            if seq == 1:
                if kind != "journal_opened":
                    return bad(seq, "the journal does not start with its key record")
                if key_b64 is None:
                    from streaming.canonical import load_public_key_b64

                    key_b64 = data.get("public_key")
                    public_key = load_public_key_b64(key_b64)
                elif data.get("public_key") != key_b64:
                    return bad(seq, "the journal was opened with a different signing key")
            if kind in FEED_KINDS:
                if fseq != feed_seq + 1:
                    return bad(seq, f"feed seq {fseq} where {feed_seq + 1} was expected")
                if data.get("seq") != fseq or data.get("kind") != kind or data.get("prev_hash") != feed_prev:
                    return bad(seq, "feed message does not match its record or the feed chain")
                if public_key is None:  # record 1 (journal_opened) gave it, or the caller did
                    return bad(seq, "a feed message before the journal's signing key")
                try:
                    verify_message(data, public_key)
                except InvalidMessage as exc:
                    return bad(seq, f"bad signature or message hash: {exc}")
                problem = _check_commitment(data, seq, commitments, betting_closed)
                if kind == CHECKPOINT:
                    problem = _check_checkpoint(db, seq, data)
                if expect is not None and fseq == expect[0] and data["hash"] != expect[1]:
                    problem = f"feed message {fseq}'s hash is {data['hash']}, not the {expect[1]} expected"
                if problem:
                    return bad(seq, problem)
                feed_seq, feed_prev = fseq, data["hash"]
            elif kind == "round_state" and data.get("transition") == "close_betting" and round_id:
                betting_closed.setdefault(round_id, seq)
            if kind not in FEED_KINDS and fseq is not None:
                return bad(seq, "a non-feed record carries a feed seq")
            prev = h
            expected_seq += 1
            count += 1
    except sqlite3.DatabaseError as exc:
        return VerifyReport(
            False, count, feed_seq, f"record {expected_seq}: unreadable journal: {exc}", expected_seq
        )
    finally:
        db.close()
    if expect is not None and feed_seq < expect[0]:
        why = (
            f"the journal is shorter than expected: its feed ends at seq {feed_seq}, "
            f"feed message {expect[0]} is missing (records were removed from its end)"
        )
        return VerifyReport(False, count, feed_seq, why, None)
    return VerifyReport(True, count, feed_seq)


def _check_checkpoint(db: sqlite3.Connection, seq: int, data: dict[str, Any]) -> str | None:
    """A checkpoint names a record before it, by its number and hash."""
    head = data["head"]
    if not 1 <= head["journal_seq"] < seq:
        return f"the checkpoint names record {head['journal_seq']}, not one before it"
    row = db.execute("SELECT hash FROM records WHERE seq = ?", (head["journal_seq"],)).fetchone()
    if row is None or row[0] != head["journal_hash"]:
        return f"the checkpoint's hash of record {head['journal_seq']} is not the record's"
    return None
