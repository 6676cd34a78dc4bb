"""The JetStream mode of the feed client: the same verification as the WebSocket mode (each studio's pinned key,
its hash chain, its checkpoints), read from NATS JetStream through one durable pull consumer per studio, for
several studios at once (docs/nats.md).

A message is handed to the backend once: it is verified against its studio's position, the callback runs, the
position is saved, and only then is the message acknowledged to the broker. A message the broker delivers again
(the ack was lost) has a seq the position already passed and is acknowledged without reaching the callback.
Which key checks a message is decided by the stream it came from, never by anything in the message, so no
message of one studio is accepted with another studio's key.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import nats
from nats.errors import ConnectionClosedError, NoServersError
from nats.errors import TimeoutError as NatsTimeout
from nats.js import api
from nats.js.errors import FetchTimeoutError

from .errors import ChainBroken, MalformedMessage
from .messages import Message, parse_message
from .store import MemorySeqStore, SeqStore
from .verify import Verifier

log = logging.getLogger("studio_client")

OnStudioMessage = Callable[[str, Message], Awaitable[None] | None]

#: the token of a message about no table (a checkpoint) in its subject
NO_TABLE = "_"


def stream_name(studio_id: str) -> str:
    return f"STUDIO_{studio_id}"


def inbox_prefix(durable: str) -> str:
    """The replies a backend's connection may subscribe to (its NATS permissions allow only these)."""
    return f"_INBOX_{durable}"


class JetStreamFeedClient:
    """Reads several studios' feeds from JetStream, each from its stored position on, exactly once, verified.

    `studios` maps a studio id to its pinned public key (base64, as `GET /v1/public-key` gives it); `stores`
    maps a studio id to where its position is kept (memory by default). `durable` is the backend's consumer
    name (its NATS user name, with the generated permissions). The callback gets the studio id and the message.
    Integrity errors (BadSignature, ChainBroken, HeadWentBack, MalformedMessage) end `run`; losing the broker
    only waits for it to come back.
    """

    def __init__(
        self,
        servers: list[str],
        durable: str,
        studios: dict[str, str],
        *,
        stores: dict[str, SeqStore] | None = None,
        connect_options: dict[str, Any] | None = None,
        batch: int = 256,
        fetch_timeout: float = 1.0,
    ) -> None:
        self.servers, self.durable, self.batch, self.fetch_timeout = servers, durable, batch, fetch_timeout
        self.stores = {sid: (stores or {}).get(sid) or MemorySeqStore() for sid in studios}
        self.verifiers = {sid: Verifier(key, self.stores[sid].load()) for sid, key in studios.items()}
        self.connect_options = connect_options or {}
        #: messages delivered again by the broker and skipped (their seq was processed already)
        self.redelivered = 0
        #: messages read from the stream by seq because the consumer handed over later ones first
        self.filled = 0
        self._stopping = asyncio.Event()

    async def run(self, on_message: OnStudioMessage) -> None:
        """Deliver every message after each studio's stored position until `stop()` or an integrity error."""

        async def quiet(exc: Exception) -> None:
            log.debug("studio_client jetstream: %s", exc)

        options = {"inbox_prefix": inbox_prefix(self.durable), **self.connect_options}
        nc = await self._connect(quiet, options)
        try:
            tasks = [asyncio.create_task(self._studio(nc, sid, on_message)) for sid in self.verifiers]
            stopping = asyncio.create_task(self._stopping.wait())
            try:
                done, _ = await asyncio.wait([*tasks, stopping], return_when=asyncio.FIRST_COMPLETED)
                for t in done:
                    if t is not stopping:
                        t.result()  # an integrity error ends the run
            finally:
                for t in (*tasks, stopping):
                    t.cancel()
                await asyncio.gather(*tasks, stopping, return_exceptions=True)
        finally:
            await nc.close()

    async def _connect(self, quiet: Any, options: dict[str, Any]) -> Any:
        delay = 0.1
        while True:
            try:
                return await nats.connect(
                    servers=self.servers,
                    connect_timeout=2,
                    max_reconnect_attempts=-1,
                    reconnect_time_wait=0.2,
                    error_cb=quiet,
                    **options,
                )
            except (NoServersError, OSError, NatsTimeout) as exc:
                log.warning("studio_client jetstream: no NATS server yet (%s)", exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def _subscription(self, js: Any, studio_id: str) -> Any:
        """The backend's durable pull consumer on the studio's stream, created from the stored position."""
        after = self.verifiers[studio_id].position.last_seq
        config = api.ConsumerConfig(
            durable_name=self.durable,
            ack_policy=api.AckPolicy.EXPLICIT,
            deliver_policy=api.DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=after + 1,
            ack_wait=30,
            max_ack_pending=20_000,
        )
        return await js.pull_subscribe(
            f"studio.{studio_id}.>", durable=self.durable, stream=stream_name(studio_id), config=config
        )

    async def _studio(self, nc: Any, studio_id: str, on_message: OnStudioMessage) -> None:
        js = nc.jetstream(timeout=5)
        sub = None
        delay = 0.1
        while not self._stopping.is_set():
            try:
                if sub is None:
                    sub = await self._subscription(js, studio_id)
                msgs = await sub.fetch(self.batch, timeout=self.fetch_timeout)
                delay = 0.1
                for msg in msgs:
                    if self._stopping.is_set():
                        return  # left unacknowledged: delivered again next time
                    await self._handle(js, studio_id, msg, on_message)
            except (TimeoutError, FetchTimeoutError, NatsTimeout):
                continue
            except (ConnectionClosedError, OSError, nats.errors.Error, nats.js.errors.Error) as exc:
                log.warning("studio_client jetstream: %s: %s; retrying", studio_id, exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue

    async def _handle(self, js: Any, studio_id: str, msg: Any, on_message: OnStudioMessage) -> None:
        verifier = self.verifiers[studio_id]
        data = _parsed(studio_id, msg.data, msg.subject)
        seq, last = data["seq"], verifier.position.last_seq
        if seq <= last:
            if seq == last and data.get("hash") != verifier.position.last_hash:
                raise ChainBroken(f"{studio_id}: seq {seq} came again with another hash", seq)
            self.redelivered += 1
            await msg.ack()
            return
        if seq > last + 1:
            await self._fill(js, studio_id, last + 1, seq, on_message)
        await self._deliver(studio_id, data, msg.subject, on_message)
        await msg.ack()

    async def _fill(
        self, js: Any, studio_id: str, first: int, upto: int, on_message: OnStudioMessage
    ) -> None:
        """Read seqs `first`..`upto - 1` from the stream itself and deliver them, in order.

        A consumer can hand over later messages before earlier ones: when its leader changes, a fetch the old
        leader answered but whose reply was lost leaves those messages pending until `ack_wait` runs out, and the
        new leader goes on with the next ones. The stream's sequence is the feed's seq (docs/nats.md), so the
        missing ones are read by seq; their late redeliveries are then acknowledged as already processed. A seq
        the stream does not hold is a broken chain, as before.
        """
        for seq in range(first, upto):
            try:
                raw = await js.get_msg(stream_name(studio_id), seq)
            except nats.js.errors.NotFoundError:
                raise ChainBroken(f"{studio_id}: seq {seq} is missing from the stream", seq) from None
            data = _parsed(studio_id, raw.data or b"", raw.subject or "")
            if data["seq"] != seq:
                raise ChainBroken(f"{studio_id}: stream message {seq} carries seq {data['seq']}", seq)
            self.filled += 1
            await self._deliver(studio_id, data, raw.subject or "", on_message)

    async def _deliver(
        self, studio_id: str, data: dict[str, Any], subject: str, on_message: OnStudioMessage
    ) -> None:
        verifier = self.verifiers[studio_id]
        seq = data["seq"]
        position = verifier.check(data)  # this studio's key, this studio's chain
        table = data.get("table_id")
        expected = f"studio.{studio_id}.{NO_TABLE if table is None else table}.{data.get('kind')}"
        if subject != expected:
            raise MalformedMessage(f"{studio_id}: seq {seq} came on {subject}, not {expected}", seq)
        outcome = on_message(studio_id, parse_message(data))
        if inspect.isawaitable(outcome):
            await outcome
        self.stores[studio_id].save(position)
        verifier.accept(position)

    def stop(self) -> None:
        """End `run` after the message being processed (if any)."""
        self._stopping.set()


def _parsed(studio_id: str, raw: bytes, subject: str) -> dict[str, Any]:
    try:
        data: Any = json.loads(raw)
    except ValueError as exc:
        raise MalformedMessage(f"{studio_id}: a message on {subject} is not JSON") from exc
    if not isinstance(data, dict) or not isinstance(data.get("seq"), int):
        raise MalformedMessage(f"{studio_id}: a message on {subject} has no integer seq")
    return data
