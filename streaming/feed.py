"""The results feed: in-process fan-out of committed feed messages to WebSocket consumers.

Data flow::

    studio: commit message to the store (SQLite) -> hub.publish(seq, text)   [on the event loop]
    hub:    ring of recent messages + wake every consumer                     [O(consumers), never awaits]
    each consumer task: deliver seq = cursor + 1, from the ring if it is there,
                        else from the store (asyncio.to_thread), then wait for a wake-up

A consumer never receives anything but ``cursor + 1`` next, so it can neither
skip nor repeat a message, whatever the interleaving of catch-up reads and
live publishing; a consumer that is slow only ever delays itself.

This module carries signed messages as opaque JSON text: it knows nothing of
rounds, tables or devices (and must not import studio/, devices/ or
recognition/).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable

from fastapi import APIRouter, WebSocket
from fastapi.responses import Response
from starlette.websockets import WebSocketDisconnect

from streaming.canonical import load_public_key_b64
from streaming.messages import ErrorMessage, PublicKey

__all__ = [
    "CLOSE_INTERNAL_ERROR",
    "CLOSE_POLICY_VIOLATION",
    "CLOSE_TRY_AGAIN_LATER",
    "DEFAULT_RING_SIZE",
    "DEFAULT_SEND_TIMEOUT",
    "DEFAULT_STORE_BATCH",
    "ConsumerInfo",
    "FeedHub",
    "FeedIntegrityError",
    "FeedStore",
    "feed_router",
]

log = logging.getLogger(__name__)

DEFAULT_RING_SIZE = 10_000
DEFAULT_STORE_BATCH = 500
DEFAULT_SEND_TIMEOUT = 30.0

#: Handshake refused before accept (bad or missing token). uvicorn answers HTTP 403.
CLOSE_POLICY_VIOLATION = 1008
#: The server could not read the store, or the store is inconsistent. Reconnect with ?after=.
CLOSE_INTERNAL_ERROR = 1011
#: The consumer stopped reading for longer than the send timeout. Reconnect with ?after=.
CLOSE_TRY_AGAIN_LATER = 1013

# Hand the event loop back to other tasks (the table) every so many sends: a
# send into a writable transport does not suspend, so a consumer catching up
# thousands of ring messages would otherwise hold the loop for the whole batch.
_YIELD_EVERY = 64

_AFTER_RE = re.compile(r"[0-9]{1,19}")
_BEARER_RE = re.compile(r"[Bb][Ee][Aa][Rr][Ee][Rr] +([^ ].*)")


@runtime_checkable
class FeedStore(Protocol):
    """Durable store of feed messages (the real one is SQLite, in studio/).

    Both methods are blocking and thread-safe; the feed only calls them
    through ``asyncio.to_thread``.
    """

    def last_seq(self) -> int:
        """Seq of the last committed message, 0 when the feed is empty."""
        ...

    def read_after(self, seq: int, limit: int) -> list[tuple[int, str]]:
        """Up to ``limit`` committed messages with seq > ``seq``, in seq order,
        as (seq, exact JSON text)."""
        ...


class FeedIntegrityError(RuntimeError):
    """The store does not hold a message the feed knows was committed
    (a gap or a reordering): delivering further would break gap-freeness."""


@dataclass(frozen=True)
class ConsumerInfo:
    """Snapshot of one connected consumer (for the technician view)."""

    id: int
    peer: str
    connected_at: datetime
    #: the ``after`` the consumer connected with (resolved, for a missing ``after``)
    after: int
    #: seq of the last message handed to the consumer's connection
    cursor: int
    #: messages handed over since connecting
    sent: int
    #: hub.last_seq - cursor (0 when up to date)
    lag: int
    #: True while the consumer is being served from the store (behind the ring)
    catching_up: bool


class _Consumer:
    __slots__ = ("after", "catching_up", "connected_at", "cursor", "id", "peer", "sent", "wake")

    def __init__(self, consumer_id: int, peer: str, after: int) -> None:
        self.id = consumer_id
        self.peer = peer
        self.connected_at = datetime.now(UTC)
        self.after = after
        self.cursor = after
        self.sent = 0
        self.catching_up = False
        self.wake = asyncio.Event()


class FeedHub:
    """In-process fan-out of committed feed messages.

    ``publish`` is called by the studio on the event loop, in seq order,
    after the message is durably committed to ``store``. It appends to a
    bounded ring of recent messages and wakes the consumers; it never awaits
    and never waits for a consumer. Each consumer (``run_consumer``) keeps its
    own cursor and always delivers ``cursor + 1`` next: from the ring when the
    ring holds it, otherwise from the store (catch-up).
    """

    def __init__(
        self,
        store: FeedStore,
        *,
        ring_size: int = DEFAULT_RING_SIZE,
        store_batch: int = DEFAULT_STORE_BATCH,
    ) -> None:
        if ring_size < 1:
            raise ValueError("ring_size must be >= 1")
        if store_batch < 1:
            raise ValueError("store_batch must be >= 1")
        self._store = store
        self._ring_size = ring_size
        self._store_batch = store_batch
        self._ring: list[str | None] = [None] * ring_size
        # The ring holds the contiguous seqs _first.._last (both 0 while empty).
        self._first = 0
        self._last = 0
        self._consumers: dict[int, _Consumer] = {}
        self._ids = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- producer side ---------------------------------------------------

    @property
    def store(self) -> FeedStore:
        return self._store

    @property
    def last_seq(self) -> int:
        """Last published seq (0 before the first publish)."""
        return self._last

    @property
    def ring_range(self) -> tuple[int, int] | None:
        """(first, last) seq held in memory, or None while the ring is empty."""
        return (self._first, self._last) if self._last else None

    def publish(self, seq: int, text: str) -> None:
        """Make the committed message ``seq`` available to consumers.

        Call on the event loop that serves the feed, in seq order, after the
        message is durably in the store. Never awaits, never blocks, O(number
        of consumers). Raises ``ValueError`` if ``seq`` is not greater than
        the last published seq. A jump forward (a seq that was committed but
        not published) is tolerated: consumers read the missing ones from the
        store.
        """
        if type(seq) is not int or seq < 1:
            raise ValueError(f"seq must be an int >= 1, got {seq!r}")
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        if seq <= self._last:
            raise ValueError(f"publish out of order: seq {seq} after {self._last}")
        if self._consumers and self._loop is not None:
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is not self._loop:
                raise RuntimeError(
                    "FeedHub.publish must be called on the event loop serving the feed "
                    "(from another thread use loop.call_soon_threadsafe)"
                )
        if self._last and seq != self._last + 1:
            log.warning(
                "feed publish jumped from seq %d to %d; consumers will read the gap from the store",
                self._last,
                seq,
            )
        if not self._last or seq != self._last + 1:
            self._first = seq
        self._ring[seq % self._ring_size] = text
        self._last = seq
        if seq - self._first >= self._ring_size:
            self._first = seq - self._ring_size + 1
        for consumer in self._consumers.values():
            consumer.wake.set()

    # -- consumer side ---------------------------------------------------

    def consumers(self) -> list[ConsumerInfo]:
        """Snapshot of the connected consumers, oldest first (call on the event loop)."""
        last = self._last
        return [
            ConsumerInfo(
                id=c.id,
                peer=c.peer,
                connected_at=c.connected_at,
                after=c.after,
                cursor=c.cursor,
                sent=c.sent,
                lag=max(0, last - c.cursor),
                catching_up=c.catching_up,
            )
            for c in self._consumers.values()
        ]

    def _ring_get(self, seq: int) -> str | None:
        if self._last and self._first <= seq <= self._last:
            return self._ring[seq % self._ring_size]
        return None

    async def run_consumer(
        self,
        after: int,
        send: Callable[[str], Awaitable[None]],
        *,
        peer: str = "",
    ) -> None:
        """Deliver every message with seq > ``after`` through ``send``, in
        order, then live ones, until cancelled or until ``send`` (or the
        store) raises; the exception propagates.

        ``send`` is awaited once per message with the stored JSON text; the
        consumer's cursor advances when it returns.
        """
        if type(after) is not int or after < 0:
            raise ValueError(f"after must be an int >= 0, got {after!r}")
        loop = asyncio.get_running_loop()
        if not self._consumers:
            self._loop = loop
        elif self._loop is not loop:
            raise RuntimeError("FeedHub consumers must all run on one event loop")
        consumer = _Consumer(next(self._ids), peer, after)
        self._consumers[consumer.id] = consumer
        log.info("feed consumer %d (%s) connected after seq %d", consumer.id, peer, after)
        try:
            await self._pump(consumer, send)
        finally:
            del self._consumers[consumer.id]
            log.info(
                "feed consumer %d (%s) disconnected at seq %d (%d sent)",
                consumer.id,
                peer,
                consumer.cursor,
                consumer.sent,
            )

    async def _deliver(
        self, consumer: _Consumer, seq: int, text: str, send: Callable[[str], Awaitable[None]]
    ) -> None:
        await send(text)
        consumer.cursor = seq
        consumer.sent += 1
        if consumer.sent % _YIELD_EVERY == 0:
            await asyncio.sleep(0)

    async def _pump(self, consumer: _Consumer, send: Callable[[str], Awaitable[None]]) -> None:
        while True:
            # Clear first, then look: a publish after this point sets the event
            # again, so the wait below cannot miss it.
            consumer.wake.clear()
            wanted = consumer.cursor + 1
            text = self._ring_get(wanted)
            if text is not None:
                consumer.catching_up = False
                await self._deliver(consumer, wanted, text, send)
                continue
            if self._last and wanted > self._last:
                # Up to date with everything published: wait for the next publish.
                consumer.catching_up = False
                await consumer.wake.wait()
                continue
            # Behind the ring (or nothing published yet): catch up from the store.
            ring_behind = bool(self._last)  # the hub published past `wanted`, so the store must hold it
            consumer.catching_up = True
            rows = await asyncio.to_thread(self._store.read_after, consumer.cursor, self._store_batch)
            if not rows:
                if ring_behind:
                    raise FeedIntegrityError(
                        f"store has nothing after seq {consumer.cursor} although seq {self._last} was published"
                    )
                consumer.catching_up = False
                await consumer.wake.wait()
                continue
            for seq, row_text in rows:
                if seq != consumer.cursor + 1:
                    raise FeedIntegrityError(
                        f"store returned seq {seq} where seq {consumer.cursor + 1} was expected"
                    )
                await self._deliver(consumer, seq, row_text, send)


# -- WebSocket / HTTP --------------------------------------------------------


def _bearer_token(header: str | None) -> str | None:
    if not header:
        return None
    match = _BEARER_RE.fullmatch(header.strip())
    if match is None:
        return None
    token = match.group(1).strip()
    return token or None


def _close_reason(text: str) -> str:
    """A close reason must fit in 123 bytes of UTF-8."""
    encoded = text.encode("utf-8")
    if len(encoded) <= 123:
        return text
    return encoded[:120].decode("utf-8", "ignore") + "..."


def _peer(websocket: WebSocket) -> str:
    client = websocket.client
    return f"{client.host}:{client.port}" if client else "?"


async def _refuse(websocket: WebSocket, status: int, error: ErrorMessage) -> None:
    """Refuse the handshake with an HTTP error and a JSON ErrorMessage body.

    Servers without the ASGI WebSocket Denial Response extension get a close
    before accept instead (HTTP 403 without a body). A client's mistake, logged
    as a WARNING (as a refused token is), not an error of the studio.
    """
    log.warning("feed connection from %s refused: %s: %s", _peer(websocket), error.code, error.message)
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        body = error.model_dump_json(exclude_none=True)
        await websocket.send_denial_response(
            Response(body, status_code=status, media_type="application/json")
        )
    else:  # pragma: no cover - uvicorn supports the extension
        await websocket.close(code=CLOSE_POLICY_VIOLATION, reason=_close_reason(error.message))


async def _close_quietly(websocket: WebSocket, code: int, reason: str, timeout: float) -> None:
    """Best-effort close: a consumer that stopped reading may never take the frame."""
    try:
        async with asyncio.timeout(timeout):
            await websocket.close(code=code, reason=_close_reason(reason))
    except (TimeoutError, WebSocketDisconnect, RuntimeError, OSError):
        pass


async def _drain_until_disconnect(websocket: WebSocket) -> None:
    """Read (and ignore) whatever the client sends until it disconnects.

    uvicorn stops reading the socket while a received message is waiting for
    the app, which would also stop it from seeing pongs and close frames: so
    the feed keeps reading, even though consumers have nothing to say.
    """
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return


def feed_router(
    hub: FeedHub,
    *,
    authorize: Callable[[str], bool],
    public_key_b64: str,
    send_timeout: float = DEFAULT_SEND_TIMEOUT,
) -> APIRouter:
    """Routes of the results feed.

    * WebSocket ``/v1/feed?after=SEQ`` - needs ``Authorization: Bearer <token>``
      accepted by ``authorize(token)`` (a fast, non-blocking check run on the
      event loop). ``after`` is an integer 0 <= after <= last seq; without
      ``after`` the feed starts live from now (after = the store's last seq at
      connect). Every message with seq > after is sent, in order, one text
      frame each (the stored JSON text as is), then live ones.
    * ``GET /v1/public-key`` - ``{"algorithm": "ed25519", "public_key": ...}``.

    A send that does not complete within ``send_timeout`` seconds drops the
    consumer (close code 1013, best effort); it can resume with ?after=.
    Keepalive pings are uvicorn's (``ws_ping_interval``/``ws_ping_timeout``,
    20 s/20 s by default); set uvicorn's ``timeout_graceful_shutdown`` too, as
    a consumer that stopped reading can otherwise hold a shutdown until its
    TCP connection dies.

    Refusals: bad/missing token -> close 1008 before accept (HTTP 403, no
    body); bad ``after`` -> HTTP 400 with an ErrorMessage JSON body
    (``invalid_after`` / ``after_beyond_last_seq``); store failing at connect
    -> HTTP 503 (``store_unavailable``). After accept: 1013 slow consumer,
    1011 store/integrity error; uvicorn sends 1012 on shutdown.
    """
    if send_timeout <= 0:
        raise ValueError("send_timeout must be > 0")
    public_key = PublicKey(algorithm="ed25519", public_key=public_key_b64)
    load_public_key_b64(public_key_b64)  # fail at startup, not at the first request
    close_grace = min(1.0, send_timeout)

    router = APIRouter()

    @router.get("/v1/public-key", response_model=PublicKey)
    async def get_public_key() -> PublicKey:
        return public_key

    @router.websocket("/v1/feed")
    async def feed(websocket: WebSocket) -> None:
        peer = _peer(websocket)

        # 1. Authenticate before anything else: no data, no hint about the feed.
        token = _bearer_token(websocket.headers.get("authorization"))
        allowed = False
        if token is not None:
            try:
                allowed = bool(authorize(token))
            except Exception:
                log.exception("feed authorize() raised; refusing %s", peer)
        if not allowed:
            log.warning("feed connection from %s refused: missing or invalid bearer token", peer)
            await websocket.close(code=CLOSE_POLICY_VIOLATION, reason="unauthorized")
            return

        # 2. Validate ?after= against the store.
        raw_after = websocket.query_params.getlist("after")
        if len(raw_after) > 1:
            await _refuse(
                websocket, 400, ErrorMessage(code="invalid_after", message="'after' given more than once")
            )
            return
        if raw_after and not _AFTER_RE.fullmatch(raw_after[0]):
            await _refuse(
                websocket,
                400,
                ErrorMessage(
                    code="invalid_after",
                    message=f"'after' must be an integer >= 0 (the last seq received), got {raw_after[0][:40]!r}",
                ),
            )
            return
        try:
            last_seq = await asyncio.to_thread(hub.store.last_seq)
        except Exception:
            log.exception("feed store last_seq() failed; refusing %s", peer)
            await _refuse(
                websocket,
                503,
                ErrorMessage(code="store_unavailable", message="feed store unavailable, retry"),
            )
            return
        after = int(raw_after[0]) if raw_after else last_seq
        if after > last_seq:
            await _refuse(
                websocket,
                400,
                ErrorMessage(
                    code="after_beyond_last_seq",
                    message=f"'after' ({after}) is beyond the feed's last seq ({last_seq})",
                    last_seq=last_seq,
                ),
            )
            return

        # 3. Stream.
        await websocket.accept()

        async def send(text: str) -> None:
            async with asyncio.timeout(send_timeout):
                await websocket.send_text(text)

        pump = asyncio.create_task(hub.run_consumer(after, send, peer=peer), name=f"feed-pump {peer}")
        reader = asyncio.create_task(_drain_until_disconnect(websocket), name=f"feed-reader {peer}")
        done: set[asyncio.Task[None]] = set()
        try:
            done, _ = await asyncio.wait((pump, reader), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (pump, reader):
                task.cancel()
            await asyncio.gather(pump, reader, return_exceptions=True)

        if pump not in done or pump.cancelled():
            return  # the client went away
        exc = pump.exception()
        if isinstance(exc, TimeoutError):
            log.warning("feed consumer %s dropped: a send stalled for more than %.1f s", peer, send_timeout)
            await _close_quietly(
                websocket,
                CLOSE_TRY_AGAIN_LATER,
                "send timeout: consumer too slow; reconnect with ?after=<last seq received>",
                close_grace,
            )
        elif isinstance(exc, (WebSocketDisconnect, OSError)):
            return
        elif exc is not None:
            log.error("feed consumer %s stopped", peer, exc_info=exc)
            await _close_quietly(
                websocket,
                CLOSE_INTERNAL_ERROR,
                "feed error; reconnect with ?after=<last seq received>",
                close_grace,
            )

    return router
