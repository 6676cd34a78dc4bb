"""The append-only, hash-chained journal (SQLite, WAL, durable commits).

Every record carries the hash of the one before it, so a changed byte anywhere
breaks the chain. Results, voids and corrections are stored as the signed feed
message itself (with a studio-wide `feed_seq` that grows by exactly one), so the
feed is replayed from the journal and is exactly what was signed.

Appends go through one writer thread that commits in batches (group commit):
each caller gets a future that resolves once its record is durable, and
`on_commit` is called with every committed batch, in order, so that nothing is
published before it is on disk.
"""
from __future__ import annotations

import asyncio
import base64
import json
import logging
import queue
import re
import sqlite3
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, get_args

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from pydantic import ValidationError

from streaming.canonical import (
    canonical_json, commitment_hash, public_key_b64, sha256_hex, sign_message_text, verify_message,
)
from streaming.messages import FeedKind, FeedMessage

log = logging.getLogger(__name__)

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
-- a projection for fast start-up, rebuilt from records if lost; not part of the chain
CREATE TABLE IF NOT EXISTS rounds (
    round_id     TEXT PRIMARY KEY,
    table_id     TEXT NOT NULL,
    round_number INTEGER NOT NULL,
    state        TEXT NOT NULL,
    body         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS rounds_table ON rounds(table_id, round_number);
CREATE TRIGGER IF NOT EXISTS records_no_update BEFORE UPDATE ON records
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS records_no_delete BEFORE DELETE ON records
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
"""

#: the kinds stored as signed feed messages: every kind the feed's schema knows
FEED_KINDS: tuple[str, ...] = tuple(get_args(FeedKind))


def rfc3339(at: datetime) -> str:
    return at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def record_hash(seq: int, at: str, kind: str, table_id: str | None, round_id: str | None,
                feed_seq: int | None, body: str, prev_hash: str) -> str:
    return sha256_hex(canonical_json({
        "seq": seq, "at": at, "kind": kind, "table_id": table_id, "round_id": round_id,
        "feed_seq": feed_seq, "body": body, "prev_hash": prev_hash,
    }))


@dataclass
class Committed:
    seq: int
    kind: str
    table_id: str | None
    round_id: str | None
    feed_seq: int | None
    body: str  # the stored JSON text; for feed records the signed message


@dataclass
class _Pending:
    kind: str
    data: dict[str, Any]
    table_id: str | None
    round_id: str | None
    at: datetime
    feed: bool
    round_projection: dict[str, Any] | None
    barrier: bool = False
    future: Future = field(default_factory=Future)


class JournalClosed(RuntimeError):
    pass


class _HeldFuture(Future):
    """The future of a record held on the event loop (see `Journal._enqueue`).

    Waiting on it queues the held records first, so a caller that blocks on the loop's own thread
    (flush(), a test's `.result()`) does not wait for a loop iteration that cannot come.
    """

    def __init__(self, release: Callable[[], None]) -> None:
        super().__init__()
        self._release = release

    def result(self, timeout: float | None = None) -> Any:
        self._release()
        return super().result(timeout)

    def exception(self, timeout: float | None = None) -> BaseException | None:
        self._release()
        return super().exception(timeout)


class Journal:
    def __init__(self, data_dir: Path, signing_key: Ed25519PrivateKey,
                 on_commit: Callable[[list[Committed]], None] | None = None,
                 max_batch: int = 1000) -> None:
        self.path = Path(data_dir) / JOURNAL_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._key = signing_key
        self.public_key_b64 = public_key_b64(signing_key.public_key())
        self.on_commit = on_commit
        self._max_batch = max_batch
        self._db = _connect(self.path)
        self._db.executescript(SCHEMA)
        row = self._db.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        self._seq, self._hash = (row[0], row[1]) if row else (0, GENESIS_HASH)
        row = self._db.execute(
            "SELECT feed_seq, body FROM records WHERE feed_seq IS NOT NULL ORDER BY feed_seq DESC LIMIT 1").fetchone()
        self._feed_seq, self._feed_hash = (row[0], json.loads(row[1])["hash"]) if row else (0, GENESIS_HASH)
        self._readers = threading.local()
        self._reader_conns: list[sqlite3.Connection] = []  # every thread's, so close() can close them all
        self._reader_lock = threading.Lock()
        self._reader_generation = 0  # bumped by close(): connections of an older generation are closed
        self._queue: queue.Queue[list[_Pending] | None] = queue.Queue()
        self._held: list[_Pending] = []  # appended on the event loop, queued at its next iteration
        self._held_lock = threading.Lock()
        self._closed = False
        self.failure: BaseException | None = None
        if self._seq == 0:
            # the first record names the key, so a verifier can tell which key signed this journal
            self._write_batch([_Pending("journal_opened", {"public_key": self.public_key_b64, "algorithm": "ed25519"},
                                        None, None, utcnow(), False, None)])
        self._thread = threading.Thread(target=self._run, name="journal-writer", daemon=True)
        self._thread.start()

    # --- writing -------------------------------------------------------------

    def append(self, kind: str, data: dict[str, Any], *, table_id: str | None = None,
               round_id: str | None = None, at: datetime | None = None,
               round_projection: dict[str, Any] | None = None) -> Future:
        """Queue one record; the future resolves to its `Committed` once durable.

        `round_projection`: the round's new state for the `rounds` projection. Passing `data` itself (a
        `round_state` record: the round's projection plus the step keys in ROUND_STEP_KEYS) stores the record's
        canonical text once for both; the step keys are left out when the projection is read.
        """
        if kind in FEED_KINDS:
            raise ValueError("use append_feed for results, voids and corrections")
        return self._enqueue(_Pending(kind, data, table_id, round_id, at or utcnow(), False, round_projection))

    def append_feed(self, message: dict[str, Any], *, at: datetime | None = None,
                    round_projection: dict[str, Any] | None = None, checked: bool = False) -> Future:
        """Queue a result, void or correction; `seq`, `prev_hash`, `hash` and `signature` are set here.

        `checked=True`: the caller has just passed this very message through `check_feed_message`
        (validation is most of the caller's cost for a result; doing it twice doubles it).
        """
        if not checked:
            check_feed_message(message)
        return self._enqueue(_Pending(message["kind"], dict(message), message.get("table_id"),
                                      message.get("round_id"), at or utcnow(), True, round_projection))

    def _enqueue(self, item: _Pending) -> Future:
        if self._closed:
            raise JournalClosed("the journal is closed")
        if self.failure is not None:
            raise JournalClosed(f"the journal failed: {self.failure}")
        loop = asyncio._get_running_loop()
        if loop is None:
            with self._held_lock:  # what the loop appended before stays before this
                self._queue_held()
                self._queue.put([item])
            return item.future
        # On the event loop, the records of one callback (a device event, the round steps it caused,
        # the signed result) and of the callbacks run in the same loop iteration are queued together at
        # the next iteration: one transaction and one fsync, instead of the result waiting behind the
        # commit of the records appended just before it.
        item.future = _HeldFuture(self._release_held)
        with self._held_lock:
            self._held.append(item)
            first = len(self._held) == 1
        if first:
            loop.call_soon(self._release_held)
        return item.future

    def _release_held(self) -> None:
        with self._held_lock:
            self._queue_held()

    def _queue_held(self) -> None:
        if self._held:
            held, self._held = self._held, []
            if self.failure is not None:  # the writer is gone
                for p in held:
                    p.future.set_exception(self.failure)
            else:
                self._queue.put(held)

    def _run(self) -> None:
        while True:
            items = self._queue.get()
            if items is None:
                return
            batch = list(items)
            stop = False
            while len(batch) < self._max_batch:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                batch += nxt
            try:
                committed = self._write_batch(batch)
            except BaseException as exc:  # disk full, I/O error: nothing in the batch is durable
                log.exception("journal write failed")
                self.failure = exc
                for p in batch:
                    p.future.set_exception(exc)
                self._fail_rest(exc)
                return
            for p, c in zip(batch, committed):
                p.future.set_result(c)
            committed = [c for c in committed if c is not None]
            if self.on_commit is not None and committed:
                try:
                    self.on_commit(committed)
                except Exception:
                    log.exception("on_commit callback failed")
            if stop:
                return

    def _fail_rest(self, exc: BaseException) -> None:
        with self._held_lock:
            held, self._held = self._held, []
        for p in held:
            p.future.set_exception(exc)
        while True:
            try:
                items = self._queue.get_nowait()
            except queue.Empty:
                return
            for p in items or ():
                p.future.set_exception(exc)

    def _write_batch(self, batch: list[_Pending]) -> list[Committed | None]:
        seq, prev, feed_seq, feed_hash = self._seq, self._hash, self._feed_seq, self._feed_hash
        rows: list[tuple] = []
        out: list[Committed | None] = []
        projections: list[tuple] = []
        for p in batch:
            if p.barrier:
                out.append(None)
                continue
            seq += 1
            at = rfc3339(p.at)
            fseq = None
            if p.feed:
                feed_seq += 1
                fseq = feed_seq
                msg = dict(p.data, seq=feed_seq, prev_hash=feed_hash)
                msg.setdefault("occurred_at", at)
                msg.pop("hash", None)
                msg.pop("signature", None)
                msg, text = sign_message_text(msg, self._key)
                feed_hash = msg["hash"]
                body = text.decode()
            else:
                body = canonical_json(p.data).decode()
            h = record_hash(seq, at, p.kind, p.table_id, p.round_id, fseq, body, prev)
            rows.append((seq, at, p.kind, p.table_id, p.round_id, fseq, body, prev, h))
            out.append(Committed(seq, p.kind, p.table_id, p.round_id, fseq, body))
            if p.round_projection is not None:
                r = p.round_projection
                # the round's own record (`round_projection is data`: Table._step) is stored once, as its text;
                # its step keys (ROUND_STEP_KEYS) are dropped when the projection is read
                text = body if r is p.data else canonical_json(r).decode()
                projections.append((r["round_id"], r["table_id"], r["round_number"], r["state"], text))
            prev = h
        with self._db:  # one transaction, one fsync
            _insert(self._db, "INSERT INTO records", rows)
            _insert(self._db, "INSERT OR REPLACE INTO rounds", projections)
        self._seq, self._hash, self._feed_seq, self._feed_hash = seq, prev, feed_seq, feed_hash
        return out

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything queued so far is durable."""
        self._release_held()
        self._enqueue(_Pending("", {}, None, None, utcnow(), False, None, barrier=True)).result(timeout)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._release_held()
        self._queue.put(None)
        self._thread.join()
        self._db.close()
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

    def read_after(self, seq: int, limit: int) -> list[tuple[int, str]]:
        """Feed messages with feed_seq > seq, in order (the FeedStore contract)."""
        return list(self._reader().execute(
            "SELECT feed_seq, body FROM records WHERE feed_seq > ? ORDER BY feed_seq LIMIT ?", (seq, limit)))

    def round_records(self, round_id: str) -> list[dict[str, Any]]:
        rows = self._reader().execute(
            "SELECT seq, at, kind, feed_seq, body FROM records WHERE round_id = ? ORDER BY seq", (round_id,))
        return [{"journal_seq": s, "at": at, "kind": k, "feed_seq": f, "data": json.loads(b)} for s, at, k, f, b in rows]

    def open_rounds(self) -> list[dict[str, Any]]:
        rows = self._reader().execute(
            "SELECT body FROM rounds WHERE state NOT IN ('certified', 'voided') ORDER BY table_id, round_number")
        return [_round(b) for (b,) in rows]

    def last_record(self, kind: str, table_id: str) -> dict[str, Any] | None:
        """The body of the table's newest record of `kind` (a rare kind, e.g. "maintenance": it reads backwards
        from the newest record until it finds one)."""
        row = self._reader().execute(
            "SELECT body FROM records WHERE kind = ? AND table_id = ? ORDER BY seq DESC LIMIT 1",
            (kind, table_id)).fetchone()
        return json.loads(row[0]) if row else None

    def last_round(self, table_id: str) -> dict[str, Any] | None:
        row = self._reader().execute(
            "SELECT body FROM rounds WHERE table_id = ? ORDER BY round_number DESC LIMIT 1", (table_id,)).fetchone()
        return _round(row[0]) if row else None

    def get_round(self, round_id: str) -> dict[str, Any] | None:
        row = self._reader().execute("SELECT body FROM rounds WHERE round_id = ?", (round_id,)).fetchone()
        return _round(row[0]) if row else None


#: keys a `round_state` record adds to the round's projection (what step, by whom); a projection stored as the
#: record's text (see `Journal.append`) drops them when read
ROUND_STEP_KEYS = ("transition", "by")


def _round(text: str) -> dict[str, Any]:
    r = json.loads(text)
    for key in ROUND_STEP_KEYS:
        r.pop(key, None)
    return r


_PLACEHOLDERS = {"seq": 1, "prev_hash": GENESIS_HASH, "hash": GENESIS_HASH,
                 "signature": base64.b64encode(bytes(64)).decode()}


def check_feed_message(message: dict[str, Any]) -> None:
    """Refuse, in the caller's thread, a message the feed's schema would not accept once signed.

    A bad message must never reach the writer thread: a failed batch stops the journal.
    """
    if message.get("kind") not in FEED_KINDS:
        raise ValueError(f"feed message kind must be one of {FEED_KINDS}")
    probe = {"occurred_at": rfc3339(utcnow()), **message, **_PLACEHOLDERS}
    # Fast path. The schema's own portability check (no float, no integer beyond 2^53 - 1 in the free-form
    # values) walks every value in Python, ~2 KB of a roulette outcome each time. Here the schema validates the
    # message with its free-form values emptied, canonical_json checks them (strings as keys, JSON values) and
    # reading the canonical text back with a float hook (and a look for 16-digit runs) does the portability check
    # in C. Whatever the fast path refuses goes through the full check, so what it accepts and the errors it gives
    # are the full check's.
    try:
        text = canonical_json(probe)
        light = dict(probe)
        for name in _FREE_FORM:
            if type(light.get(name)) is dict and light[name]:
                light[name] = {}
        reveal = light.get("reveal")
        if type(reveal) is dict and type(reveal.get("extras")) is dict and reveal["extras"]:
            light["reveal"] = dict(reveal, extras={})
        FeedMessage.model_validate(light)
        if not _LONG_NUMBER.search(text):
            json.loads(text, parse_float=_no_float)
            return
    except (ValidationError, TypeError, ValueError):
        pass
    try:
        FeedMessage.model_validate(probe)
        canonical_json(probe)
    except (ValidationError, TypeError) as exc:
        raise ValueError(f"not a valid feed message: {exc}") from None


#: the feed message's free-form objects (`dict[str, Any]` in the schema, checked for portability)
_FREE_FORM = ("result", "outcome", "source", "detail")
#: 16 digits in a row (maybe an integer beyond 2^53 - 1, maybe in a string): the full check decides
_LONG_NUMBER = re.compile(rb"[0-9]{16}")


def _no_float(text: str) -> Any:
    raise ValueError("a floating-point number")


def _check_commitment(message: dict[str, Any], seq: int, commitments: dict[str, tuple[str, int]],
                      betting_closed: dict[str, int]) -> str | None:
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


def _insert(db: sqlite3.Connection, head: str, rows: list[tuple], chunk: int = 500) -> None:
    """Insert rows with one multi-row statement per `chunk` rows, in order.

    sqlite3 lets go of the GIL for every statement step, and with a hundred device and simulator
    threads runnable the writer may then wait a whole switch interval (5 ms) to get it back:
    executemany (one step per row) paid that once per record.
    """
    for i in range(0, len(rows), chunk):
        part = rows[i:i + chunk]
        one = "(" + ",".join("?" * len(part[0])) + ")"
        db.execute(f"{head} VALUES {','.join([one] * len(part))}", [v for row in part for v in row])


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.isolation_level = "DEFERRED"
    return db


# --- verification ---------------------------------------------------------------


@dataclass
class VerifyReport:
    ok: bool
    records: int
    feed_messages: int
    error: str | None = None
    bad_seq: int | None = None


def verify_journal(data_dir: Path, public_key: Ed25519PublicKey | None = None) -> VerifyReport:
    """Check the whole chain and every signature; stop at the first bad record."""
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
        rows = db.execute("SELECT seq, at, kind, table_id, round_id, feed_seq, body, prev_hash, hash "
                          "FROM records ORDER BY seq")
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
                try:
                    verify_message(data, public_key)
                except Exception as exc:
                    return bad(seq, f"bad signature or message hash: {exc}")
                problem = _check_commitment(data, seq, commitments, betting_closed)
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
        return VerifyReport(False, count, feed_seq, f"record {expected_seq}: unreadable journal: {exc}", expected_seq)
    finally:
        db.close()
    return VerifyReport(True, count, feed_seq)
