"""Benchmark: the feed on NATS JetStream against the WebSocket feed, in the same run (docs/nats.md).

A real journal (studio.journal.Journal, thread writer, synthetic signed roulette results from bench/journal.py,
spread over the tables) drives both paths at once: the publisher (streaming/nats_publisher.py) into a real
nats-server, and the FeedHub under real uvicorn to a WebSocket FeedClient. Every consumer verifies every
signature and the chain (the client library), as a backend would. It prints:

* latency at 50 and 200 tables in one studio process, and at 2 x 100 tables in two studio processes publishing to
  the one broker (each table one message a second, a busy table): p50 / p99 from the journal's commit to the
  broker's ack, to a JetStream consumer, and to a WebSocket consumer (each studio's consumers in its process);
* messages/s to 100 consumers, each reading the same 500 messages from the start (JetStream: 100 durable
  consumers; WebSocket: 100 connections), all in this one process, so the client's verification is the limit;
* the outbox's drain rate after an outage of 10,000 messages (the broker away while they are committed, then
  back), and a WebSocket consumer catching up the same 10,000 from the store.

    python bench/nats_delivery.py                   # about a minute and a half
    python bench/nats_delivery.py --seconds 20 --consumers 50
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import socket
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# this file is bench/nats.py: the nats-py package must be imported before bench/ is on the path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
import nats  # noqa: F401

sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(HERE))
sys.path += [str(ROOT / "tests"), str(ROOT / "tests" / "nats")]  # brokers.py: real nats-server processes

import brokers
import uvicorn
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import FastAPI
from journal import feed_messages
from machine import MachineLoad
from studio_client import FeedClient, Message
from studio_client.jetstream import JetStreamFeedClient

from streaming.feed import FeedHub, feed_router
from streaming.nats_publisher import NatsPublisher
from studio.journal import Committed, Journal

STUDIO = "bench"


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))] * 1000


class Rig:
    """A journal, its publisher, its FeedHub under uvicorn; `commit_at[seq]` is when each commit was durable."""

    def __init__(self, folder: Path, urls: list[str], studio_id: str = STUDIO) -> None:
        self.studio_id = studio_id
        self.commit_at: dict[int, float] = {}
        self.key = Ed25519PrivateKey.generate()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.journal = Journal(folder / "journal", self.key, on_commit=self._on_commit, writer="thread")
        self.publisher = NatsPublisher(self.journal, studio_id, folder / "acked.json", servers=urls)
        self.hub = FeedHub(self.journal)

        @contextlib.asynccontextmanager
        async def lifespan(app: FastAPI) -> AsyncIterator[None]:
            self.loop = asyncio.get_running_loop()
            yield

        app = FastAPI(lifespan=lifespan)
        app.include_router(feed_router(self.hub, authorize=lambda t: True, public_key_b64=self.public_key))

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws_ping_interval=None))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)
        self.publisher.start()

    @property
    def public_key(self) -> str:
        return self.journal.public_key_b64

    def _on_commit(self, batch: list[Committed]) -> None:
        now = time.perf_counter()
        feed = [(c.feed_seq, c.body) for c in batch if c.feed_seq is not None]
        if not feed:
            return
        for seq, _ in feed:
            self.commit_at[seq] = now
        self.publisher.notify(feed[-1][0])
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._publish, feed)

    def _publish(self, feed: list[tuple[int, str]]) -> None:
        for seq, body in feed:
            self.hub.publish(seq, body)

    def stop(self) -> None:
        self.publisher.stop()
        self.server.should_exit = True
        self.thread.join(30)
        self.journal.close()


class Reader:
    """Consumers on a loop of their own: `times[name]` is (seq, receive time) per message."""

    def __init__(self, make: list[tuple[str, Callable[[], Any]]]) -> None:
        self.times: dict[str, list[tuple[int, float]]] = {name: [] for name, _ in make}
        self.clients: list[Any] = []
        self.loop = asyncio.new_event_loop()
        self._make = make
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def main() -> None:
            tasks = []
            for name, make in self._make:
                client = make()
                self.clients.append(client)
                got = self.times[name]

                def on_ws(m: Message, got: list[tuple[int, float]] = got) -> None:
                    got.append((m.seq, time.perf_counter()))

                def on_js(_sid: str, m: Message, got: list[tuple[int, float]] = got) -> None:
                    got.append((m.seq, time.perf_counter()))

                tasks.append(
                    asyncio.create_task(client.run(on_ws if isinstance(client, FeedClient) else on_js))
                )
            await asyncio.gather(*tasks, return_exceptions=True)

        self.loop.run_until_complete(main())

    def count(self) -> int:
        return min((len(v) for v in self.times.values()), default=0)

    def stop(self) -> None:
        for c in self.clients:
            self.loop.call_soon_threadsafe(c.stop)
        self.thread.join(60)


def messages(n: int, tables: int) -> list[dict[str, Any]]:
    out = feed_messages(n)
    for i, m in enumerate(out):
        m["table_id"] = f"table-{i % tables + 1}"
        m["source"]["device_id"] = f"table-{i % tables + 1}/cammegh-ss2"
    return out


def wait(cond: Callable[[], bool], timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError("the benchmark stalled")
        time.sleep(0.002)


def bench_latency(folder: Path, tables: int, seconds: float) -> dict[str, Any]:
    broker = brokers.Broker(folder / "nats")
    out = one_studio(folder / "studio", broker.urls, tables, seconds)
    broker.stop()
    return out


def one_studio(
    folder: Path, urls: list[str], tables: int, seconds: float, studio_id: str = STUDIO
) -> dict[str, Any]:
    """One studio's journal at `tables` messages a second for `seconds`, its two consumers beside it."""
    rig = Rig(folder, urls, studio_id)
    js_name, ws_name = "jetstream", "websocket"
    reader = Reader(
        [
            (js_name, lambda: JetStreamFeedClient(urls, "lat", {studio_id: rig.public_key})),
            (ws_name, lambda: FeedClient(rig.url, "any-token", public_key=rig.public_key, backoff=0.05)),
        ]
    )
    time.sleep(1.0)  # both consumers connected before the first message (outside the measurement)
    n = int(tables * seconds)
    todo = messages(n, tables)
    load = MachineLoad()
    start = time.perf_counter()
    for i, m in enumerate(todo):  # paced: message i at start + i / (tables per second)
        delay = start + i / tables - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        rig.journal.append_feed(m)
    wait(lambda: reader.count() >= n)
    load.stop()
    lat = rig.publisher.status.ack_latencies[-n:]
    out = {"tables": tables, "messages": n, "ack": lat, "load": load.summary()}
    for name in (js_name, ws_name):
        out[name] = [t - rig.commit_at[seq] for seq, t in reader.times[name]]
    reader.stop()
    rig.stop()
    return out


def _child(args: tuple[Path, list[str], int, float, str]) -> dict[str, Any]:
    return one_studio(*args)


def bench_two_processes(folder: Path, tables: int, seconds: float) -> dict[str, Any]:
    """Two studio processes, `tables` each, publishing to one broker at once; their figures pooled."""
    broker = brokers.Broker(folder / "nats")
    jobs = [(folder / sid, broker.urls, tables, seconds, sid) for sid in ("hall-a", "hall-b")]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(_child, jobs)
    broker.stop()
    pooled: dict[str, Any] = {"tables": 2 * tables, "messages": sum(r["messages"] for r in results)}
    for k in ("ack", "jetstream", "websocket"):
        pooled[k] = [v for r in results for v in r[k]]
    pooled["load"] = results[0]["load"]
    return pooled


def bench_fanout(folder: Path, consumers: int, n: int) -> dict[str, float]:
    broker = brokers.Broker(folder / "nats")
    rig = Rig(folder / "studio", broker.urls)
    for f in [rig.journal.append_feed(m) for m in messages(n, 50)]:
        f.result(60)
    wait(lambda: rig.publisher.status.acked_seq >= n)
    out = {}

    def js(i: int) -> Callable[[], Any]:
        return lambda: JetStreamFeedClient(broker.urls, f"c{i}", {STUDIO: rig.public_key})

    def ws(i: int) -> Callable[[], Any]:
        return lambda: FeedClient(rig.url, "any-token", public_key=rig.public_key)

    for name, make in (("jetstream", js), ("websocket", ws)):
        t0 = time.perf_counter()
        reader = Reader([(f"{name}-{i}", make(i)) for i in range(consumers)])
        wait(lambda: reader.count() >= n)  # noqa: B023 - used in this iteration only
        out[name] = consumers * n / (time.perf_counter() - t0)
        reader.stop()
    rig.stop()
    broker.stop()
    return out


def bench_drain(folder: Path, n: int) -> dict[str, float]:
    broker = brokers.Broker(folder / "nats")
    node = broker.nodes[0]
    rig = Rig(folder / "studio", broker.urls)
    node.kill()
    wait(lambda: not rig.publisher.status.connected)
    for f in [rig.journal.append_feed(m) for m in messages(n, 50)]:
        f.result(60)
    node.start()
    wait(lambda: rig.publisher.status.connected, 120)
    t0, first = time.perf_counter(), rig.publisher.status.acked_seq
    wait(lambda: rig.publisher.status.acked_seq >= n)
    nats_rate = (n - first) / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    reader = Reader([("ws", lambda: FeedClient(rig.url, "any-token", public_key=rig.public_key))])
    wait(lambda: reader.count() >= n)
    ws_rate = n / (time.perf_counter() - t0)
    reader.stop()
    t0 = time.perf_counter()
    reader = Reader([("js", lambda: JetStreamFeedClient(broker.urls, "drain", {STUDIO: rig.public_key}))])
    wait(lambda: reader.count() >= n)
    js_read = n / (time.perf_counter() - t0)
    reader.stop()
    rig.stop()
    broker.stop()
    return {
        "outbox drain to the broker": nats_rate,
        "jetstream consumer catch-up": js_read,
        "websocket catch-up": ws_rate,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=10.0, help="length of each latency run")
    p.add_argument("--consumers", type=int, default=100)
    p.add_argument("--fanout-messages", type=int, default=500)
    p.add_argument("--outage-messages", type=int, default=10_000)
    args = p.parse_args()
    if not brokers.available():
        sys.exit("nats-server is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        print(
            f"{'tables':>6} {'msgs':>6}  {'commit->ack':>18}  {'commit->JetStream':>18}  {'commit->WebSocket':>18}"
        )
        print(f"{'':>6} {'':>6}  {'p50 / p99 ms':>18}  {'p50 / p99 ms':>18}  {'p50 / p99 ms':>18}")
        runs: list[tuple[str, Callable[[], dict[str, Any]]]] = [
            ("50", lambda: bench_latency(Path(tmp) / "lat50", 50, args.seconds)),
            ("200", lambda: bench_latency(Path(tmp) / "lat200", 200, args.seconds)),
            ("2x100", lambda: bench_two_processes(Path(tmp) / "two", 100, args.seconds)),
        ]
        for label, run in runs:
            r = run()
            cols = [f"{pct(r[k], 50):7.2f} / {pct(r[k], 99):7.2f}" for k in ("ack", "jetstream", "websocket")]
            print(f"{label:>6} {r['messages']:>6}  {cols[0]:>18}  {cols[1]:>18}  {cols[2]:>18}   {r['load']}")
        f = bench_fanout(Path(tmp) / "fanout", args.consumers, args.fanout_messages)
        print(
            f"{args.consumers} consumers x {args.fanout_messages} messages: "
            + ", ".join(f"{k} {v:,.0f} msg/s" for k, v in f.items())
        )
        d = bench_drain(Path(tmp) / "drain", args.outage_messages)
        print(
            f"after an outage of {args.outage_messages} messages: "
            + ", ".join(f"{k} {v:,.0f} msg/s" for k, v in d.items())
        )


if __name__ == "__main__":
    main()
