"""A studio publishing to NATS, a backend reading it, and what the stream holds, for the NATS tests."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import nats
import served
from studio_client import FeedClient, Message
from studio_client.jetstream import JetStreamFeedClient
from waiting import WAIT_S, until

from streaming.nats_stream import MSG_ID, stream_name
from studio.config import parse_config
from studio.service import Studio

TOKEN = "nats-test-feed-token-0001"


def nats_config(
    data: Path,
    urls: list[str],
    *,
    name: str = "hall-a",
    tables: int = 3,
    replicas: int = 1,
    speed: float = 200,
    **nats: Any,
) -> dict[str, Any]:
    return {
        "studio": {"name": name, "data_dir": str(data), "journal_writer": "thread", "checkpoint_seconds": 60},
        "consumers": [{"name": "backend-1", "token": TOKEN}],
        "tables": [served.wheel_table(f"t{i}", speed=speed, seed=i) for i in range(1, tables + 1)],
        "delivery": {
            "nats": {"servers": urls, "stream": {"replicas": replicas}, "ack_timeout_seconds": 3, **nats}
        },
    }


def toml(config: dict[str, Any]) -> str:
    """The little TOML this test's configuration needs (tomllib reads, it does not write)."""
    out: list[str] = []

    def value(v: Any) -> str:
        return json.dumps(v) if not isinstance(v, bool) else str(v).lower()

    def table(prefix: str, d: dict[str, Any]) -> None:
        plain = {
            k: v
            for k, v in d.items()
            if not isinstance(v, (dict, list))
            or (isinstance(v, list) and not any(isinstance(x, dict) for x in v))
        }
        out.append(f"[{prefix}]")
        out.extend(f"{k} = {value(v)}" for k, v in plain.items())
        for k, v in d.items():
            if isinstance(v, dict):
                table(f"{prefix}.{k}", v)

    for key, section in config.items():
        if isinstance(section, list):
            for item in section:
                out.append(f"[[{key}]]")
                for k, v in item.items():
                    if not isinstance(v, dict):
                        out.append(f"{k} = {value(v)}")
                for k, v in item.items():
                    if isinstance(v, dict):
                        table(f"{key}.{k}", v)
        else:
            table(key, section)
    return "\n".join(out) + "\n"


class NatsStudio(served.Served):
    """A studio with [delivery.nats], served by real uvicorn (its WebSocket feed too)."""

    def __init__(self, data: Path, urls: list[str], config: Any = None, **kw: Any) -> None:
        config = config or parse_config(nats_config(data, urls, **kw))
        super().__init__(Studio(config), name="nats-uvicorn")

    @property
    def last_seq(self) -> int:
        return self.studio.journal.last_seq()

    @property
    def publisher_status(self) -> Any:
        assert self.studio.nats is not None
        return self.studio.nats.status

    def settle(self, at_least: int = 3) -> int:
        """No new round from now on (once the feed has `at_least` messages); once the open ones end and the
        outbox is drained: the feed's last seq."""
        until(lambda: self.last_seq >= at_least, f"{at_least} messages on the feed")

        def close() -> None:
            for t in self.studio.tables.values():
                t.closing = True

        def idle() -> bool:
            return all(t.round is None or t.round.is_final for t in self.studio.tables.values())

        self.on_loop(close)
        until(lambda: self.on_loop(idle), "the open rounds to end")
        self.studio.journal.flush(WAIT_S)  # the last round's messages are appended: wait for their commit
        until(lambda: self.publisher_status.acked_seq == self.last_seq, "the outbox to drain")
        return self.last_seq


def stream_contents(urls: list[str], studio_id: str) -> list[tuple[int, str, dict[str, Any], str]]:
    """(stream seq, Nats-Msg-Id, message, subject) of every message the studio's stream holds, in order."""

    async def read() -> list[tuple[int, str, dict[str, Any], str]]:
        nc = await nats.connect(servers=urls, connect_timeout=5)
        try:
            js = nc.jetstream(timeout=10)
            info = await js.stream_info(stream_name(studio_id))
            out: list[tuple[int, str, dict[str, Any], str]] = []
            for seq in range(info.state.first_seq, info.state.last_seq + 1):
                msg = await js.get_msg(stream_name(studio_id), seq)
                out.append(
                    (
                        msg.seq or 0,
                        (msg.headers or {}).get(MSG_ID, ""),
                        json.loads(msg.data or b""),
                        msg.subject or "",
                    )
                )
            return out
        finally:
            await nc.close()

    return asyncio.run(read())


class Backend:
    """A backend reading with the client library on a thread of its own (JetStream mode, or the WebSocket
    mode with `ws_url`); `got` is every (studio id, seq) handed to it, in order."""

    def __init__(
        self,
        urls: list[str] | None = None,
        studios: dict[str, str] | None = None,
        *,
        durable: str = "backend-1",
        ws_url: str | None = None,
        public_key: str | None = None,
        connect_options: dict[str, Any] | None = None,
    ) -> None:
        self.got: list[tuple[str, int]] = []
        self.error: BaseException | None = None
        self.client: Any = None
        self._loop = asyncio.new_event_loop()
        if ws_url is not None:
            self.client = FeedClient(ws_url, TOKEN, public_key=public_key, backoff=0.05, backoff_max=0.5)
        else:
            assert urls is not None and studios is not None
            self.client = JetStreamFeedClient(urls, durable, studios, connect_options=connect_options)
        self._thread = threading.Thread(target=self._run, daemon=True, name="nats-backend")
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)

        def on_ws(message: Message) -> None:
            self.got.append(("ws", message.seq))

        def on_js(studio_id: str, message: Message) -> None:
            self.got.append((studio_id, message.seq))

        callback: Any = on_ws if isinstance(self.client, FeedClient) else on_js
        try:
            self._loop.run_until_complete(self.client.run(callback))
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            self.error = exc

    def seqs(self, studio_id: str) -> list[int]:
        return [s for sid, s in list(self.got) if sid == studio_id]

    def wait_for(self, studio_id: str, seq: int, what: str = "") -> None:
        until(
            lambda: self.error is not None or (self.seqs(studio_id) or [0])[-1] >= seq,
            what or f"the backend to reach {studio_id} seq {seq}",
        )
        assert self.error is None, self.error

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self.client.stop)
        self._thread.join(WAIT_S)
        assert not self._thread.is_alive(), "the backend did not stop"
        self._loop.close()
