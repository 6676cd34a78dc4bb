"""End-to-end tests of the results feed with real parts: a uvicorn server on
127.0.0.1 (ephemeral port) in a background thread, the `websockets` client,
and an in-memory FeedStore (a list guarded by a lock) that the test commits
to before publishing on the server's event loop, as the studio does."""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import hashlib
import json
import socket
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import uvicorn
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import FastAPI
from waiting import WAIT_S
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from streaming.canonical import (
    canonical_json,
    load_public_key_b64,
    public_key_b64,
    sign_message,
    verify_message,
)
from streaming.feed import FeedHub, FeedStore, feed_router
from streaming.messages import GENESIS_PREV_HASH, ErrorMessage, FeedMessage, PublicKey, format_timestamp

TOKEN = "test-token-7f3a"
PRIVATE_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
PUBLIC_KEY = PRIVATE_KEY.public_key()


# -- in-memory store and signed messages --------------------------------------


class InMemoryStore:
    """FeedStore over a list guarded by a lock (seq n is rows[n - 1])."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: list[str] = []
        self.read_calls: list[tuple[int, int]] = []
        self.last_seq_calls = 0

    def append(self, text: str) -> int:
        with self._lock:
            self._rows.append(text)
            return len(self._rows)

    def last_seq(self) -> int:
        with self._lock:
            self.last_seq_calls += 1
            return len(self._rows)

    def read_after(self, seq: int, limit: int) -> list[tuple[int, str]]:
        with self._lock:
            self.read_calls.append((seq, limit))
            end = min(len(self._rows), seq + limit)
            return [(n + 1, self._rows[n]) for n in range(seq, end)]


class GappyStore(InMemoryStore):
    """A broken store that lost seq 5."""

    def read_after(self, seq: int, limit: int) -> list[tuple[int, str]]:
        return [row for row in super().read_after(seq, limit) if row[0] != 5]


def message_dict(seq: int, prev_hash: str, *, pad: int = 0) -> dict[str, Any]:
    occurred = datetime(2026, 11, 29, 12, 0, tzinfo=UTC) + timedelta(seconds=seq, microseconds=123456)
    number = (seq * 7) % 37
    result: dict[str, Any] = {"number": number}
    if pad:  # incompressible (the feed negotiates permessage-deflate)
        result["pad"] = base64.b64encode(hashlib.shake_256(b"%d" % seq).digest(pad * 3 // 4)).decode()
    return {
        "seq": seq,
        "kind": "result",
        "table_id": "RL-01",
        "game": "roulette",
        "round_id": f"RL-01-{seq:08d}",
        "round_number": seq,
        "version": 1,
        "result": result,
        "outcome": {"colour": "green" if number == 0 else ("red" if number % 2 else "black")},
        "reason": None,
        "source": {"device_id": "wheel-1", "serial_number": "SN-0042"},
        "commitment": None,
        "reveal": None,
        "occurred_at": format_timestamp(occurred),
        "prev_hash": prev_hash,
    }


_CHAINS: dict[tuple[int, int], list[str]] = {}


def chain(n: int, *, pad: int = 0) -> list[str]:
    """Texts of n signed, hash-chained feed messages (seq 1..n), cached."""
    if (n, pad) not in _CHAINS:
        texts: list[str] = []
        prev = GENESIS_PREV_HASH
        for seq in range(1, n + 1):
            signed = sign_message(message_dict(seq, prev, pad=pad), PRIVATE_KEY)
            prev = signed["hash"]
            texts.append(canonical_json(signed).decode("utf-8"))
        _CHAINS[(n, pad)] = texts
    return _CHAINS[(n, pad)]


# -- a real server ----------------------------------------------------------


class FeedServer:
    """A real uvicorn server serving feed_router() on 127.0.0.1:<ephemeral port>."""

    def __init__(
        self,
        *,
        ring_size: int = 10_000,
        send_timeout: float = 30.0,
        store_batch: int = 500,
        store: InMemoryStore | None = None,
        sndbuf: int | None = None,
        **uvicorn_options: Any,
    ) -> None:
        self.store = store if store is not None else InMemoryStore()
        assert isinstance(self.store, FeedStore)
        self.hub = FeedHub(self.store, ring_size=ring_size, store_batch=store_batch)
        app = FastAPI()
        app.include_router(
            feed_router(
                self.hub,
                authorize=lambda token: token == TOKEN,
                public_key_b64=public_key_b64(PUBLIC_KEY),
                send_timeout=send_timeout,
            )
        )
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if sndbuf is not None:
            # Accepted sockets inherit it: bounds what the kernel absorbs for a
            # client that stops reading (loopback would otherwise take MBs).
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        options: dict[str, Any] = {"log_config": None, "log_level": "warning", "lifespan": "off"}
        options["timeout_graceful_shutdown"] = 5
        options.update(uvicorn_options)
        self.config = uvicorn.Config(app, **options)
        self.server = uvicorn.Server(self.config)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, name=f"uvicorn-{self.port}", daemon=True)
        self._error: BaseException | None = None
        self._stopped = False
        self.leftover_tasks: list[asyncio.Task[Any]] = []

    def _run(self) -> None:
        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            await self.server.serve(sockets=[self._sock])
            await asyncio.sleep(0)  # let tasks cancelled by the shutdown finish
            self.leftover_tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

        try:
            with asyncio.Runner(loop_factory=self.config.get_loop_factory()) as runner:
                runner.run(main())
        except BaseException as exc:  # noqa: BLE001  # pragma: no cover - stop() raises it
            self._error = exc

    def start(self) -> FeedServer:
        self._thread.start()
        deadline = time.monotonic() + WAIT_S
        while not (self.server.started and self.loop is not None):
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start: {self._error!r}")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self.server.should_exit = True
        self._thread.join(timeout=WAIT_S)
        assert not self._thread.is_alive(), "uvicorn thread did not stop"
        self._sock.close()
        if self._error is not None:
            raise self._error
        assert self.leftover_tasks == [], f"tasks left on the server loop: {self.leftover_tasks}"
        assert self.hub.consumers() == []

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/v1/feed"

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run fn(*args) on the server's event loop; return its result."""
        assert self.loop is not None
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def run() -> None:
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # noqa: BLE001 - the caller's future.result() raises it
                future.set_exception(exc)

        self.loop.call_soon_threadsafe(run)
        return future.result(timeout=WAIT_S)

    def commit_and_publish(self, text: str) -> int:
        """What the studio does: commit to the store, then publish on the loop (in order)."""
        assert self.loop is not None
        seq = self.store.append(text)
        self.loop.call_soon_threadsafe(self.hub.publish, seq, text)
        return seq

    def publish_timed(self, texts: list[str]) -> list[float]:
        """Commit and publish texts on the server loop; return each publish() duration (s)."""

        def run() -> list[float]:
            durations = []
            for text in texts:
                seq = self.store.append(text)
                t0 = time.perf_counter()
                self.hub.publish(seq, text)
                durations.append(time.perf_counter() - t0)
            return durations

        return self.call(run)

    def consumers(self) -> list[Any]:
        return self.call(self.hub.consumers)


@pytest.fixture
def feed_server() -> Iterator[Callable[..., FeedServer]]:
    """Factory of started FeedServers; all are stopped, threads joined, at teardown."""
    servers: list[FeedServer] = []
    threads_before = set(threading.enumerate())

    def factory(**kwargs: Any) -> FeedServer:
        server = FeedServer(**kwargs).start()
        servers.append(server)
        return server

    yield factory
    for server in servers:
        server.stop()
    leftover = [t for t in threading.enumerate() if t not in threads_before and t.is_alive()]
    assert not leftover, f"threads left running: {leftover}"


@pytest.fixture(scope="module")
def auth_server() -> Iterator[FeedServer]:
    """One server (3 messages) shared by the refused-token cases."""
    server = FeedServer().start()
    for text in chain(3):
        server.commit_and_publish(text)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def after_server() -> Iterator[FeedServer]:
    """One server (5 messages) shared by the malformed-after cases."""
    server = FeedServer().start()
    for text in chain(5):
        server.commit_and_publish(text)
    yield server
    server.stop()


# -- client helpers -----------------------------------------------------------


def bearer(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def open_feed(server: FeedServer, query: str = "", **kwargs: Any) -> Any:
    kwargs.setdefault("additional_headers", bearer())
    kwargs.setdefault("open_timeout", WAIT_S)
    return ws_connect(server.url + query, **kwargs)


async def collect(ws: ClientConnection, until_seq: int, timeout: float = WAIT_S) -> list[tuple[int, str]]:
    got: list[tuple[int, str]] = []
    async with asyncio.timeout(timeout):
        while not got or got[-1][0] < until_seq:
            text = await ws.recv()
            assert isinstance(text, str)
            got.append((json.loads(text)["seq"], text))
    return got


async def refusal(
    server: FeedServer, query: str = "", headers: dict[str, str] | None = None
) -> InvalidStatus:
    with pytest.raises(InvalidStatus) as info:
        async with ws_connect(server.url + query, additional_headers=headers or {}, open_timeout=WAIT_S):
            pass
    return info.value


def small_rcvbuf_socket(port: int) -> socket.socket:
    """A client socket with a tiny receive buffer, so a client that stops
    reading stalls the server's sends quickly."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.setblocking(False)
    return sock


def assert_exact(got: list[tuple[int, str]], first: int, last: int, texts: list[str]) -> None:
    """got is exactly seq first..last, in order, each the stored text as is."""
    assert [seq for seq, _ in got] == list(range(first, last + 1))
    for seq, text in got:
        assert text == texts[seq - 1]


def assert_verified_chain(got: list[tuple[int, str]], prev_hash: str) -> None:
    """Every message verifies with the public key and links to the previous one."""
    for _, text in got:
        message = json.loads(text)
        verify_message(message, PUBLIC_KEY)
        assert message["prev_hash"] == prev_hash
        FeedMessage.model_validate(message)
        prev_hash = message["hash"]


def hash_of(texts: list[str], seq: int) -> str:
    return GENESIS_PREV_HASH if seq == 0 else json.loads(texts[seq - 1])["hash"]


# -- tests ---------------------------------------------------------------------


def test_public_key_endpoint(feed_server: Callable[..., FeedServer]) -> None:
    server = feed_server()
    response = httpx.get(f"http://127.0.0.1:{server.port}/v1/public-key", timeout=WAIT_S)
    assert response.status_code == 200
    body = response.json()
    assert body == {"algorithm": "ed25519", "public_key": public_key_b64(PUBLIC_KEY)}
    PublicKey.model_validate(body)
    key = load_public_key_b64(body["public_key"])
    verify_message(json.loads(chain(1)[0]), key)  # the served key verifies the feed


def test_feed_router_rejects_a_bad_public_key() -> None:
    with pytest.raises(ValueError):
        feed_router(FeedHub(InMemoryStore()), authorize=lambda t: True, public_key_b64="not-a-key")


@pytest.mark.parametrize(
    "headers",
    [
        {},
        bearer("wrong-token"),
        bearer(""),
        {"Authorization": TOKEN},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": f"Bearer {TOKEN}x"},
    ],
    ids=["missing", "wrong", "empty", "no-scheme", "basic", "prefix-of-token"],
)
def test_missing_or_wrong_token_is_refused_without_data(
    auth_server: FeedServer, headers: dict[str, str]
) -> None:
    server = auth_server

    async def main() -> None:
        refused = await refusal(server, "?after=0", headers)
        assert refused.response.status_code == 403
        assert refused.response.body == b""  # no data at all
        # A bad token with a bad `after` too: still 403, auth comes first.
        refused = await refusal(server, "?after=abc", headers)
        assert refused.response.status_code == 403

    asyncio.run(main())
    assert server.store.last_seq_calls == 0  # refused before the feed was even looked at
    assert server.store.read_calls == []
    assert server.consumers() == []


def test_bearer_scheme_is_case_insensitive(feed_server: Callable[..., FeedServer]) -> None:
    server = feed_server()
    server.commit_and_publish(chain(1)[0])

    async def main() -> None:
        async with open_feed(
            server, "?after=0", additional_headers={"Authorization": f"bearer {TOKEN}"}
        ) as ws:
            assert_exact(await collect(ws, 1), 1, 1, chain(1))

    asyncio.run(main())


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("?after=abc", "invalid_after"),
        ("?after=-1", "invalid_after"),
        ("?after=1.5", "invalid_after"),
        ("?after=", "invalid_after"),
        ("?after=%201", "invalid_after"),
        ("?after=1e3", "invalid_after"),
        ("?after=0x1", "invalid_after"),
        ("?after=%EF%BC%91", "invalid_after"),  # a full-width digit 1
        ("?after=1&after=2", "invalid_after"),
        ("?after=6", "after_beyond_last_seq"),
        ("?after=99999999999999999999999", "invalid_after"),
    ],
)
def test_malformed_after_is_refused(after_server: FeedServer, query: str, code: str) -> None:
    server = after_server

    async def main() -> None:
        refused = await refusal(server, query, bearer())
        assert refused.response.status_code == 400
        error = ErrorMessage.model_validate_json(refused.response.body)
        assert error.code == code
        assert error.message
        if code == "after_beyond_last_seq":
            assert error.last_seq == 5

    asyncio.run(main())
    assert server.consumers() == []


def test_after_bounds_and_live_from_now(feed_server: Callable[..., FeedServer]) -> None:
    server = feed_server()
    texts = chain(12)

    async def main() -> None:
        # after=0 on an empty feed is valid: it waits for the first message.
        async with open_feed(server, "?after=0") as from_start:
            for text in texts[:5]:
                server.commit_and_publish(text)
            assert_exact(await collect(from_start, 5), 1, 5, texts)
            # after = last seq: nothing to replay, live messages only.
            async with open_feed(server, "?after=5") as at_last, open_feed(server) as live:
                # Without `after`: live from now (after = last seq at connect).
                await wait_until(lambda: len(server.consumers()) == 3)
                infos = server.consumers()
                assert [info.after for info in infos] == [0, 5, 5]
                for text in texts[5:12]:
                    server.commit_and_publish(text)
                assert_exact(await collect(at_last, 12), 6, 12, texts)
                assert_exact(await collect(live, 12), 6, 12, texts)
            assert_exact(await collect(from_start, 12), 6, 12, texts)

    asyncio.run(main())


@pytest.mark.parametrize("ring_size", [10_000, 64], ids=["big-ring", "small-ring"])
def test_resume_mid_stream_gets_exactly_the_rest_while_publishing(
    feed_server: Callable[..., FeedServer], ring_size: int
) -> None:
    total = 2000
    texts = chain(total)
    server = feed_server(ring_size=ring_size, store_batch=100)
    started = threading.Event()

    def publisher() -> None:
        started.wait()
        for index, text in enumerate(texts):
            server.commit_and_publish(text)
            if index % 10 == 9:
                time.sleep(0.004)

    thread = threading.Thread(target=publisher, name="test-publisher")
    thread.start()

    async def main() -> None:
        started.set()
        while server.store.last_seq() < 400:
            await asyncio.sleep(0.005)
        n = server.store.last_seq() - 300  # some behind the head, mid-stream
        last_before_live = server.store.last_seq()
        async with (
            open_feed(server, f"?after={n}") as resumed,
            open_feed(server, "?after=0") as from_start,
            open_feed(server) as live,
        ):
            assert server.store.last_seq() < total, "the consumers must connect while the publisher publishes"
            got_resumed, got_start, got_live = await asyncio.gather(
                collect(resumed, total), collect(from_start, total), collect(live, total)
            )
        assert_exact(got_resumed, n + 1, total, texts)
        assert_verified_chain(got_resumed, hash_of(texts, n))
        assert_exact(got_start, 1, total, texts)
        first_live = got_live[0][0]
        assert first_live - 1 >= last_before_live
        assert_exact(got_live, first_live, total, texts)

    try:
        asyncio.run(main())
    finally:
        started.set()
        thread.join(timeout=WAIT_S)
    assert not thread.is_alive()


def test_ring_overflow_and_unpublished_backlog_are_served_from_the_store(
    feed_server: Callable[..., FeedServer],
) -> None:
    texts = chain(1500)
    server = feed_server(ring_size=50, store_batch=100)
    # 300 committed before the hub ever published anything (e.g. after a restart).
    for text in texts[:300]:
        server.store.append(text)
    # Then 900 published: only the last 50 stay in the ring.
    for text in texts[300:1200]:
        server.commit_and_publish(text)
    assert server.call(lambda: server.hub.ring_range) == (1151, 1200)

    async def main() -> None:
        reads_before = len(server.store.read_calls)
        async with open_feed(server, "?after=10") as ws:
            got = await collect(ws, 1200)
            assert len(server.store.read_calls) - reads_before >= (1150 - 10) // 100
            # ...then live, including more ring overflows.
            for text in texts[1200:]:
                server.commit_and_publish(text)
            got += await collect(ws, 1500)
        assert_exact(got, 11, 1500, texts)
        assert_verified_chain(got, hash_of(texts, 10))

    asyncio.run(main())


def test_slow_consumer_falls_behind_then_catches_up_from_the_store(
    feed_server: Callable[..., FeedServer],
) -> None:
    total = 800
    texts = chain(total, pad=4000)
    ring_size = 100
    server = feed_server(ring_size=ring_size, send_timeout=10, sndbuf=65536)

    async def main() -> None:
        sock = small_rcvbuf_socket(server.port)
        async with open_feed(server, "?after=0", sock=sock, max_queue=1) as slow:
            await wait_until(lambda: len(server.consumers()) == 1)
            # The consumer does not read while the table publishes.
            durations: list[float] = []
            max_lag = 0
            for start in range(0, total, 50):
                durations += await asyncio.to_thread(server.publish_timed, texts[start : start + 50])
                (info,) = await asyncio.to_thread(server.consumers)
                max_lag = max(max_lag, info.lag)
                await asyncio.sleep(0.005)
            assert max_lag > ring_size, "the consumer should have fallen out of the ring"
            reads_before = len(server.store.read_calls)
            got = await collect(slow, total)
            assert len(server.store.read_calls) > reads_before, "catch-up must come from the store"
        assert_exact(got, 1, total, texts)
        # a publish that waited for the slow socket would take about the send timeout (10 s); a loaded
        # machine can stretch one that did not by a time slice or two, never by seconds
        assert max(durations) < 2.5, f"publish blocked: {max(durations) * 1000:.1f} ms"
        assert statistics.median(durations) < 0.001

    asyncio.run(main())


def test_stalled_consumer_does_not_slow_publish_and_is_dropped(
    feed_server: Callable[..., FeedServer], caplog: pytest.LogCaptureFixture
) -> None:
    total = 1200
    texts = chain(total, pad=4000)
    server = feed_server(ring_size=100, send_timeout=2, sndbuf=65536)

    async def main() -> None:
        sock = small_rcvbuf_socket(server.port)
        stalled_peer = f"127.0.0.1:{sock.getsockname()[1]}"
        async with (
            open_feed(server, "?after=0", sock=sock, max_queue=1) as stalled,
            open_feed(server, "?after=0") as healthy,
        ):
            await wait_until(lambda: len(server.consumers()) == 2)
            healthy_task = asyncio.create_task(collect(healthy, total))
            durations: list[float] = []
            for start in range(0, total, 50):
                durations += await asyncio.to_thread(server.publish_timed, texts[start : start + 50])
                await asyncio.sleep(0.01)
            # Healthy consumer: everything, undisturbed by the stalled one.
            assert_exact(await healthy_task, 1, total, texts)
            # Stalled consumer: dropped after the send timeout.
            deadline = time.monotonic() + WAIT_S
            while any(info.peer == stalled_peer for info in await asyncio.to_thread(server.consumers)):
                assert time.monotonic() < deadline, "stalled consumer was not dropped"
                await asyncio.sleep(0.05)
            # It reads what reached it before the drop, then resumes with ?after=.
            got: list[tuple[int, str]] = []
            with pytest.raises(ConnectionClosed):
                async with asyncio.timeout(WAIT_S):
                    while True:
                        text = await stalled.recv()
                        got.append((json.loads(text)["seq"], text))
        assert 0 < len(got) < total
        last = got[-1][0]
        async with open_feed(server, f"?after={last}") as resumed:
            got += await collect(resumed, total)
        assert_exact(got, 1, total, texts)
        # blocked, a publish would wait the send timeout (2 s) for the stalled consumer
        assert max(durations) < 0.5, f"publish blocked: {max(durations) * 1000:.1f} ms"
        assert statistics.median(durations) < 0.001

    asyncio.run(main())
    assert "send stalled" in caplog.text


def test_consumers_are_visible_and_cleaned_up_on_disconnect(feed_server: Callable[..., FeedServer]) -> None:
    texts = chain(20)
    server = feed_server()
    for text in texts[:10]:
        server.commit_and_publish(text)

    async def main() -> None:
        async with open_feed(server, "?after=0") as a, open_feed(server, "?after=4") as b:
            await collect(a, 10)
            await collect(b, 10)
            infos = server.consumers()
            assert len(infos) == 2
            assert [(i.after, i.cursor, i.lag, i.catching_up) for i in infos] == [
                (0, 10, 0, False),
                (4, 10, 0, False),
            ]
            assert infos[0].sent == 10 and infos[1].sent == 6
            assert infos[0].peer.startswith("127.0.0.1:")
            # An abrupt disconnect (no closing handshake) is cleaned up too.
            c = await open_feed(server, "?after=10")
            await wait_until(lambda: len(server.consumers()) == 3)
            assert c.transport is not None
            c.transport.abort()
            await wait_until(lambda: len(server.consumers()) == 2)
            for text in texts[10:]:
                server.commit_and_publish(text)
            await collect(a, 20)
        await wait_until(lambda: server.consumers() == [])

    asyncio.run(main())


async def wait_until(predicate: Callable[[], bool], timeout: float = WAIT_S) -> None:
    async with asyncio.timeout(timeout):
        while not await asyncio.to_thread(predicate):
            await asyncio.sleep(0.02)


def test_client_messages_are_ignored(feed_server: Callable[..., FeedServer]) -> None:
    texts = chain(6)
    server = feed_server()
    for text in texts[:3]:
        server.commit_and_publish(text)

    async def main() -> None:
        async with open_feed(server, "?after=0") as ws:
            for _ in range(50):
                await ws.send("hello")
            # The server keeps reading (and answering pings) after client messages.
            pong = await ws.ping()
            await asyncio.wait_for(pong, WAIT_S)
            for text in texts[3:]:
                server.commit_and_publish(text)
            assert_exact(await collect(ws, 6), 1, 6, texts)

    asyncio.run(main())


def test_ping_timeout_drops_a_silent_consumer_and_keeps_a_live_one(
    feed_server: Callable[..., FeedServer],
) -> None:
    """A consumer that stops reading (so answers no ping) is dropped by the ping timeout; an idle
    consumer that still reads answers the same pings, stays connected and still gets a live message.
    The timeout is generous so that a loaded machine answers in time; the silent consumer's drop is
    the condition waited on, and it comes only after several pings to both."""
    texts = chain(2)
    server = feed_server(ws_ping_interval=0.2, ws_ping_timeout=3.0)
    server.commit_and_publish(texts[0])

    async def main() -> None:
        async with (
            open_feed(server, "?after=0", ping_interval=None) as live,
            open_feed(server, "?after=0", ping_interval=None) as silent,
        ):
            assert_exact(await collect(live, 1), 1, 1, texts)
            assert_exact(await collect(silent, 1), 1, 1, texts)
            await wait_until(lambda: len(server.consumers()) == 2)
            recv = asyncio.create_task(live.recv())
            assert silent.transport is not None
            silent.transport.pause_reading()  # its pings go unanswered from here on
            await wait_until(lambda: len(server.consumers()) == 1)
            assert not recv.done()
            server.commit_and_publish(texts[1])
            assert json.loads(await asyncio.wait_for(recv, WAIT_S))["seq"] == 2
            silent.transport.resume_reading()
            with pytest.raises(ConnectionClosed):
                while True:
                    await asyncio.wait_for(silent.recv(), WAIT_S)

    asyncio.run(main())


def test_store_gap_closes_the_connection_with_1011(feed_server: Callable[..., FeedServer]) -> None:
    texts = chain(10)
    server = feed_server(store=GappyStore())
    for text in texts:
        server.store.append(text)  # committed, not published: served from the store

    async def main() -> None:
        async with open_feed(server, "?after=0") as ws:
            got: list[str] = []
            with pytest.raises(ConnectionClosed) as info:
                while True:
                    got.append(await ws.recv())
            assert [json.loads(t)["seq"] for t in got] == [1, 2, 3, 4]
            assert info.value.rcvd is not None and info.value.rcvd.code == 1011

    asyncio.run(main())


def test_server_shutdown_closes_consumers(feed_server: Callable[..., FeedServer]) -> None:
    server = feed_server()
    server.commit_and_publish(chain(1)[0])

    async def main() -> None:
        async with open_feed(server, "?after=0") as ws:
            await collect(ws, 1)
            await asyncio.to_thread(server.stop)
            with pytest.raises(ConnectionClosed) as info:
                await asyncio.wait_for(ws.recv(), WAIT_S)
            assert info.value.rcvd is not None and info.value.rcvd.code == 1012

    asyncio.run(main())


def test_publish_contract(feed_server: Callable[..., FeedServer]) -> None:
    hub = FeedHub(InMemoryStore(), ring_size=4)
    hub.publish(1, "a")
    with pytest.raises(ValueError):
        hub.publish(1, "a again")
    with pytest.raises(ValueError):
        hub.publish(0, "zero")
    hub.publish(5, "jump")  # committed-but-unpublished 2..4 come from the store
    assert hub.ring_range == (5, 5)
    for seq in range(6, 12):
        hub.publish(seq, str(seq))
    assert hub.ring_range == (8, 11)

    # publish() from another thread while consumers are attached is refused.
    server = feed_server()
    server.commit_and_publish(chain(1)[0])

    async def main() -> None:
        async with open_feed(server, "?after=0") as ws:
            await collect(ws, 1)
            with pytest.raises(RuntimeError, match="event loop"):
                server.hub.publish(2, chain(2)[1])

    asyncio.run(main())


class GatedStore(InMemoryStore):
    """read_after takes its snapshot, then (once armed) blocks until released:
    lets a test publish exactly while a consumer is reading the store."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def read_after(self, seq: int, limit: int) -> list[tuple[int, str]]:
        rows = super().read_after(seq, limit)
        if self.armed:
            self.armed = False
            self.entered.set()
            assert self.release.wait(WAIT_S)
        return rows


@pytest.mark.parametrize("backlog", [0, 3], ids=["empty-store", "store-backlog"])
def test_publish_during_a_store_read_is_not_missed(backlog: int) -> None:
    """The catch-up/live race, made deterministic: messages published while a
    consumer is inside store.read_after (whose snapshot lacks them) must still
    be delivered, once each, in order."""
    texts = chain(backlog + 2)

    async def main() -> None:
        store = GatedStore()
        hub = FeedHub(store, ring_size=8)
        for text in texts[:backlog]:
            store.append(text)  # committed, not (yet) published
        got: list[int] = []

        async def send(text: str) -> None:
            got.append(json.loads(text)["seq"])

        store.armed = True
        consumer = asyncio.create_task(hub.run_consumer(0, send, peer="test"))
        assert await asyncio.to_thread(store.entered.wait, WAIT_S)
        for seq in (backlog + 1, backlog + 2):  # published during the read
            store.append(texts[seq - 1])
            hub.publish(seq, texts[seq - 1])
        store.release.set()
        async with asyncio.timeout(WAIT_S):
            while len(got) < backlog + 2:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        assert got == list(range(1, backlog + 3))
        assert [(c.cursor, c.lag) for c in hub.consumers()] == [(backlog + 2, 0)]
        consumer.cancel()
        with pytest.raises(asyncio.CancelledError):
            await consumer
        assert hub.consumers() == []

    asyncio.run(main())


@pytest.mark.parametrize("reads_while_closing", [False, True])
def test_a_closing_consumer_is_released_by_the_server_whatever_is_pending(
    feed_server: Callable[..., FeedServer], reads_while_closing: bool
) -> None:
    """The server lets go of a consumer (its pump, its place in the hub, its connection) as soon as the consumer's
    close frame arrives, with 2,000 messages still on their way to it, without waiting for it to take them.

    A client that stops reading once it holds `max_queue` messages (websockets' default, 16) cannot see the
    server's answering close frame behind the messages it left unread, and waits its own close timeout whatever
    the server does; one that reads on while closing (max_queue=None) is released with a clean 1000."""
    server = feed_server(ws="websockets-sansio")
    for text in chain(2001):
        server.commit_and_publish(text)

    async def main() -> tuple[bool, int | None]:
        queue = None if reads_while_closing else 16
        async with open_feed(server, "?after=0", max_queue=queue, close_timeout=WAIT_S) as ws:
            await collect(ws, 1)
            async with asyncio.timeout(WAIT_S):  # many more on their way
                while not server.consumers() or server.consumers()[0].sent < 100:
                    await asyncio.sleep(0.005)
            closing = asyncio.ensure_future(ws.close())
            async with asyncio.timeout(WAIT_S):
                while server.consumers() or server.server.server_state.connections:
                    await asyncio.sleep(0.001)
            released_first = not closing.done() or reads_while_closing
            if not reads_while_closing:
                ws.transport.abort()  # rather than wait for the close timeout
            await closing
            return released_first, ws.close_code

    released_first, code = asyncio.run(main())
    assert released_first  # the server did not wait for the client's close timeout
    if reads_while_closing:
        assert code == 1000
