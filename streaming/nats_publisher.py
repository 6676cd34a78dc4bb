"""The journal is the outbox: publish every committed feed message to the studio's JetStream stream, in seq
order, exactly once in the stream (docs/nats.md).

Data flow::

    studio: commit to the journal -> hub.publish (WebSocket) and publisher.notify(seq)      [never waits]
    publisher thread (its own event loop): read the messages after the acknowledged seq from the journal,
        send up to `window` of them, each with Nats-Msg-Id = <studio>:<seq> (the broker drops a repeat) and
        Nats-Expected-Last-Sequence = seq - 1 (the broker refuses a gap), wait for the acks, record the
        acknowledged seq in a file of the data folder, repeat; on any failure reconnect with backoff and go on
        from the acknowledged seq.

The stream's sequence is the feed's seq (the publisher is the stream's only writer), so a message sent again
after a crash (committed and sent, the ack not recorded) is either dropped as a duplicate or, beyond the
duplicate window, refused as a wrong last sequence: then the publisher asks the broker where the stream ends,
checks that the last message is the studio's own, and goes on from there. Nothing here waits on the tables' loop
and nothing the tables do waits on NATS; this module carries the messages as opaque text, as streaming/feed.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

import nats
from nats.js import JetStreamContext
from nats.js.errors import APIError, NotFoundError

from streaming.feed import FeedStore
from streaming.nats_state import AckFile, PublisherStatus
from streaming.nats_stream import (
    EXPECTED_LAST_SEQ,
    MSG_ID,
    WRONG_LAST_SEQUENCE,
    StreamSettings,
    msg_id,
    stream_name,
    subject_of,
)

__all__ = ["AckFile", "NatsPublisher", "PublisherStatus", "StreamMismatch"]

log = logging.getLogger(__name__)


class StreamMismatch(RuntimeError):
    """The stream holds what this journal did not publish (another studio with the same id, another journal):
    publishing on would mix two feeds, so the publisher keeps refusing until an operator sorts it out."""


class _Resync(Exception):
    pass


class NatsPublisher:
    """Drains the journal into `STUDIO_<studio_id>` on a thread of its own; `notify(seq)` after each commit."""

    def __init__(
        self,
        store: FeedStore,
        studio_id: str,
        ack_path: Path,
        *,
        servers: list[str],
        settings: StreamSettings | None = None,
        connect_options: dict[str, Any] | None = None,
        window: int = 256,
        ack_timeout: float = 10.0,
        backoff: float = 0.1,
        backoff_max: float = 5.0,
    ) -> None:
        self.store = store
        self.studio_id = studio_id
        self.stream = stream_name(studio_id)
        self.servers = servers
        self.settings = settings or StreamSettings()
        self.connect_options = connect_options or {}
        self.window, self.ack_timeout = window, ack_timeout
        self.backoff, self.backoff_max = backoff, backoff_max
        self.ack_file = AckFile(ack_path, self.stream)
        self.status = PublisherStatus(acked_seq=self.ack_file.load())
        self._notified: dict[int, float] = {}
        #: stream messages up to this seq were checked to be this journal's (a duplicate ack needs no check)
        self._vouched = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._stopping = threading.Event()
        self._main_task: asyncio.Task[None] | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    # --- the studio's side (any thread) ---------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(
            target=self._run, name=f"nats-publisher {self.studio_id}", daemon=True
        )
        self._thread.start()
        self._ready.wait(30)

    def notify(self, seq: int) -> None:
        """`seq` is committed: publish it soon. O(1), never waits."""
        self.status.head_seq = max(self.status.head_seq, seq)
        if len(self._notified) < 100_000:
            self._notified[seq] = time.perf_counter()
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(wake.set)
            except RuntimeError:  # the publisher's loop closed meanwhile
                pass

    def stop(self, timeout: float = 5.0) -> None:
        """Publish what is committed for up to `timeout` seconds (the shutdown's voids and checkpoint), then
        close; what is left stays in the journal for the next start."""
        self._stopping.set()
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(wake.set)
            except RuntimeError:
                pass
        if self._thread is None:
            return
        self._thread.join(timeout)
        if self._thread.is_alive() and loop is not None and self._main_task is not None:
            try:
                loop.call_soon_threadsafe(self._main_task.cancel)
            except RuntimeError:
                pass
            self._thread.join(10)

    # --- the publisher's thread -------------------------------------------------------

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._main_task = asyncio.current_task()
        self._ready.set()
        try:
            head = await asyncio.to_thread(self.store.last_seq)
            self.status.head_seq = max(self.status.head_seq, head)
        except Exception as exc:  # noqa: BLE001 - the journal failing: the loop below retries
            log.warning("nats publisher: cannot read the journal's last seq: %s", exc)
        delay = self.backoff
        while True:
            progressed = False
            try:
                progressed = await self._connection()
                if self._stopping.is_set():
                    return
            except asyncio.CancelledError:
                return
            except Exception as exc:  # noqa: BLE001 - any failure: back off, reconnect, resume from the ack
                self.status.connected = False
                self.status.failures += 1
                self.status.last_error = f"{type(exc).__name__}: {exc}"
                self.status.since = time.time()
                log.warning("nats publisher (%s): %s; retrying", self.stream, self.status.last_error)
            if self._stopping.is_set():
                return
            delay = self.backoff if progressed else min(delay * 2, self.backoff_max)
            until = time.monotonic() + delay  # commits do not cut a backoff short; stop() does
            while not self._stopping.is_set() and time.monotonic() < until:
                await asyncio.sleep(min(0.05, until - time.monotonic()))
            try:
                self.status.head_seq = max(self.status.head_seq, await asyncio.to_thread(self.store.last_seq))
            except Exception:  # noqa: BLE001, S110 - the journal is read again at the next try
                pass

    async def _sleep(self, seconds: float) -> None:
        """Until `seconds` pass or a notify (or stop) sets the wake event (the caller clears it first)."""
        assert self._wake is not None
        try:
            await asyncio.wait_for(self._wake.wait(), seconds)
        except TimeoutError:
            pass

    async def _connection(self) -> bool:
        """One connection: ensure the stream, then drain until stopped or a failure; True if it published."""
        lost = asyncio.Event()

        async def on_gone() -> None:
            lost.set()
            assert self._wake is not None
            self._wake.set()

        async def on_error(exc: Exception) -> None:
            log.debug("nats publisher (%s): %s", self.stream, exc)

        nc = await nats.connect(
            servers=self.servers,
            connect_timeout=2,
            allow_reconnect=False,
            disconnected_cb=on_gone,
            closed_cb=on_gone,
            error_cb=on_error,
            name=f"studio {self.studio_id} publisher",
            **self.connect_options,
        )
        progressed = False
        try:
            js = nc.jetstream(timeout=self.ack_timeout, publish_async_max_pending=self.window * 2)
            last = await self._ensure_stream(js)
            # Before sending anything: the stream's end (or the acknowledged seq) is this journal's. The broker
            # drops a repeated id before checking the sequence, so a window sent on a stream that another journal
            # wrote would pass as duplicates up to that journal's end and be accepted after it. The hashes chain,
            # so one message that is the journal's own vouches for every one before it.
            self._vouched = 0  # checked again on each connection: the stream may be another one now
            await self._check_is_ours(js, max(self.status.acked_seq, last))
            self.status.connected, self.status.last_error, self.status.since = True, None, time.time()
            while not lost.is_set():
                assert self._wake is not None
                self._wake.clear()  # before reading: a notify from now on wakes the wait below
                rows = await asyncio.to_thread(self.store.read_after, self.status.acked_seq, self.window)
                if rows:
                    try:
                        await self._send(js, rows, lost)
                    except _Resync:
                        await self._resync(js)
                    progressed = True
                    continue
                if self._stopping.is_set():
                    return progressed
                await self._sleep(1.0)  # a notify wakes it at once; the timeout only re-reads the journal
            raise ConnectionError("the connection to NATS was lost")
        finally:
            self.status.connected = False
            try:
                await asyncio.wait_for(nc.close(), 2)
            except Exception:  # noqa: BLE001, S110 - closing a connection already gone
                pass

    async def _ensure_stream(self, js: JetStreamContext) -> int:
        """The stream made or brought to the configured settings; its last sequence."""
        wanted = self.settings.config(self.studio_id)
        try:
            info = await js.stream_info(self.stream)
        except NotFoundError:
            await js.add_stream(wanted)
            log.info("nats publisher: created stream %s (replicas %d)", self.stream, wanted.num_replicas)
            return 0
        have = info.config
        if (have.max_age or None, have.duplicate_window, have.num_replicas) != (
            wanted.max_age or None,
            wanted.duplicate_window,
            wanted.num_replicas,
        ):
            await js.update_stream(wanted)
            log.info("nats publisher: updated the settings of stream %s", self.stream)
        return int(info.state.last_seq)

    async def _send(self, js: JetStreamContext, rows: list[tuple[int, str]], lost: asyncio.Event) -> None:
        first = self.status.acked_seq + 1
        futures: list[tuple[int, asyncio.Future[Any]]] = []
        try:
            for i, (seq, text) in enumerate(rows):
                if seq != first + i:
                    raise RuntimeError(f"the journal returned seq {seq} where {first + i} was expected")
                headers = {MSG_ID: msg_id(self.studio_id, seq), EXPECTED_LAST_SEQ: str(seq - 1)}
                fut = await js.publish_async(subject_of(self.studio_id, text), text.encode(), headers=headers)
                futures.append((seq, fut))
                self.status.sent_seq = seq
            deadline = time.monotonic() + self.ack_timeout
            for seq, fut in futures:
                ack = await self._ack(fut, deadline, lost)
                if ack.stream != self.stream or ack.seq != seq:
                    raise StreamMismatch(
                        f"the broker stored seq {seq} as {ack.stream} #{ack.seq}: the stream is not this journal's"
                    )
                if ack.duplicate:
                    # the broker drops a repeat by its id before any other check: make sure what it kept under
                    # this id is this journal's message, not another journal's under the same studio id
                    if seq > self._vouched:
                        await self._check_is_ours(js, seq)
                    self.status.duplicates += 1
                self.status.published += 1
                sent = self._notified.pop(seq, None)
                if sent is not None:
                    lat = self.status.ack_latencies
                    lat.append(time.perf_counter() - sent)
                    if len(lat) > 20_000:
                        del lat[:10_000]
                self.status.acked_seq = seq
        finally:
            for _, fut in futures:
                fut.cancel()
            if futures:
                await asyncio.to_thread(self.ack_file.save, self.status.acked_seq)

    async def _ack(self, fut: asyncio.Future[Any], deadline: float, lost: asyncio.Event) -> Any:
        try:
            return await asyncio.wait_for(asyncio.shield(fut), max(0.001, deadline - time.monotonic()))
        except TimeoutError:
            raise TimeoutError(
                "connection lost" if lost.is_set() else "no ack from the broker in time"
            ) from None
        except APIError as exc:
            if exc.err_code == WRONG_LAST_SEQUENCE:
                raise _Resync from exc
            raise

    async def _resync(self, js: JetStreamContext) -> None:
        """The stream does not end at the acknowledged seq: find where it ends and go on from there, if the
        last message there is this studio's own."""
        info = await js.stream_info(self.stream)
        last, acked, head = info.state.last_seq, self.status.acked_seq, self.status.head_seq
        if last > head:
            raise StreamMismatch(
                f"stream {self.stream} ends at #{last}, beyond the journal's last seq {head}"
            )
        await self._check_is_ours(js, last)
        if last < acked:
            log.error(
                "nats publisher: stream %s ends at #%d though the broker acknowledged up to %d (the stream was "
                "recreated or a node lost it): publishing again from %d",
                self.stream,
                last,
                acked,
                last + 1,
            )
        else:
            log.info(
                "nats publisher: stream %s already holds up to #%d; going on from there", self.stream, last
            )
        self.status.acked_seq = last
        await asyncio.to_thread(self.ack_file.save, last)

    async def _check_is_ours(self, js: JetStreamContext, seq: int) -> None:
        """Stream message `seq` is this journal's seq `seq` (same id, same hash), or it aged out: else raise
        StreamMismatch (another studio with this id, or a new journal under an old stream)."""
        if seq < 1:
            return
        try:
            msg = await js.get_msg(self.stream, seq)
        except NotFoundError:  # aged out (max_age) or not there yet: the numbering is all there is to check
            return
        rows = await asyncio.to_thread(self.store.read_after, seq - 1, 1)
        mine = json.loads(rows[0][1]).get("hash") if rows and rows[0][0] == seq else None
        try:
            theirs = json.loads(msg.data or b"").get("hash")
        except ValueError:
            theirs = None
        found = (msg.headers or {}).get(MSG_ID)
        if found != msg_id(self.studio_id, seq) or mine is None or theirs != mine:
            raise StreamMismatch(
                f"stream {self.stream} #{seq} ({found!r}) is not this journal's seq {seq}: another studio with "
                "this id, or a new journal under an old stream; publishing stops until an operator sorts it out"
            )
        self._vouched = max(self._vouched, seq)  # the chain: every message up to it is the journal's too
