"""The feed client: connect with the token, pin the key, verify and chain every message, hand it to the
backend, save the position after the backend's callback returned, reconnect with backoff (docs/client.md)."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import httpx
from pydantic import ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from .errors import FeedRefused, HeadWentBack, MalformedMessage, StudioClientError
from .messages import Message, parse_message
from .store import MemorySeqStore, SeqStore
from .verify import Position, Verifier, load_public_key

log = logging.getLogger("studio_client")

OnMessage = Callable[[Message], Awaitable[None] | None]


def _http_url(url: str) -> str:
    for ws, http in (("wss://", "https://"), ("ws://", "http://")):
        if url.startswith(ws):
            return http + url[len(ws) :]
    return url.rstrip("/")


def read_frame(verifier: Verifier, frame: str | bytes) -> tuple[Position, Message]:
    """One frame of the feed: parsed, checked against the chain (`verifier`, not advanced) and typed."""
    try:
        data: Any = json.loads(frame)
    except (ValueError, RecursionError) as exc:  # RecursionError: arrays nested thousands deep
        raise MalformedMessage(f"a frame after seq {verifier.position.last_seq} is not JSON") from exc
    position = verifier.check(data)
    try:
        return position, parse_message(data)
    except ValidationError as exc:  # signed, but not the shape of its kind: not a message this client can use
        problem = exc.errors()[0]
        where = ".".join(str(p) for p in problem["loc"])
        raise MalformedMessage(
            f"seq {position.last_seq}: not a feed message: {where}: {problem['msg']}", position.last_seq
        ) from None


class FeedClient:
    """Reads the studio's feed from the stored position on, exactly once per message, verified.

    `url` is the studio's base address (`http://host:port`). `public_key` pins the studio's key (base64);
    without it the key is fetched once from `GET /v1/public-key` and pinned in the store. Integrity errors
    (BadSignature, ChainBroken, HeadWentBack, MalformedMessage) and FeedRefused end `run`; network errors and
    server restarts only reconnect, after `backoff` seconds doubling up to `backoff_max`.
    """

    def __init__(
        self,
        url: str,
        token: str,
        *,
        store: SeqStore | None = None,
        public_key: str | None = None,
        backoff: float = 1.0,
        backoff_max: float = 30.0,
        open_timeout: float = 30.0,
    ) -> None:
        self.http_url = _http_url(url)
        self.ws_url = "ws" + self.http_url[len("http") :] + "/v1/feed"
        self.token = token
        self.store = store or MemorySeqStore()
        self.public_key = public_key
        self.backoff, self.backoff_max, self.open_timeout = backoff, backoff_max, open_timeout
        #: how many connections were opened (the first included)
        self.connections = 0
        #: the open connection, if any (for diagnostics; the client owns it)
        self.connection: ClientConnection | None = None
        self._stopping = asyncio.Event()
        self._closing: asyncio.Future[None] | None = None

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def pinned_key(self) -> str:
        """The studio's key: the one given, else the stored one, else fetched now and stored (pinned)."""
        position = self.store.load()
        if self.public_key and position.public_key and self.public_key != position.public_key:
            raise StudioClientError("the public key given is not the one pinned in the store")
        key = self.public_key or position.public_key
        if key is None:
            async with httpx.AsyncClient(timeout=self.open_timeout) as http:
                reply = await http.get(f"{self.http_url}/v1/public-key")
                reply.raise_for_status()
                key = str(reply.json()["public_key"])
        load_public_key(key)  # refuse a malformed key before pinning it
        if position.public_key != key:
            self.store.save(replace(position, public_key=key))
        return key

    async def run(self, on_message: OnMessage) -> None:
        """Deliver every message after the stored position to `on_message` until `stop()` or an error."""
        verifier = Verifier(await self.pinned_key(), self.store.load())
        delay = self.backoff
        while not self._stopping.is_set():
            try:
                got_one = await self._session(verifier, on_message)
            except InvalidStatus as exc:
                self._refused(exc, verifier.position.last_seq)
                got_one = False
            except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake) as exc:
                log.warning("studio feed disconnected: %s", exc)
                got_one = False
            if self._stopping.is_set():
                break
            delay = self.backoff if got_one else min(delay * 2, self.backoff_max)
            try:  # back off, but wake at once on stop()
                await asyncio.wait_for(self._stopping.wait(), delay)
            except TimeoutError:
                pass

    async def _session(self, verifier: Verifier, on_message: OnMessage) -> bool:
        after = verifier.position.last_seq
        got_one = False
        async with connect(
            f"{self.ws_url}?after={after}",
            additional_headers=self.headers,
            open_timeout=self.open_timeout,
            close_timeout=2,  # the feed reads nothing: leaving on an error need not wait long for its close
        ) as ws:
            self.connection = ws
            self.connections += 1
            try:
                async for frame in ws:
                    if self._stopping.is_set():  # frames already received after stop() are left for next time
                        break
                    position, message = read_frame(verifier, frame)
                    outcome = on_message(message)
                    if inspect.isawaitable(outcome):
                        await outcome
                    self.store.save(position)
                    verifier.accept(position)
                    got_one = True
            except Exception:
                ws.transport.abort()  # refusing this studio (or the callback failed): no close handshake
                raise
            finally:
                self.connection = None
        return got_one

    @staticmethod
    def _refused(exc: InvalidStatus, last_seq: int) -> None:
        """A refused handshake: raise unless retrying can help (503, 5xx, 429)."""
        status = exc.response.status_code
        code, text = None, exc.response.body.decode("utf-8", "replace") if exc.response.body else ""
        try:
            body = json.loads(text) if text else {}
            code, message = body.get("code"), body.get("message", text)
        except (ValueError, RecursionError, AttributeError):
            pass
        else:  # a body of another shape than the feed's ErrorMessage: only its strings are taken
            code = code if isinstance(code, str) else None
            text = message if isinstance(message, str) else text
        if code == "after_beyond_last_seq":
            raise HeadWentBack(
                f"the feed ends before seq {last_seq}, which this backend already processed: {text}"
            )
        if status >= 500 or status == 429:
            log.warning("studio feed refused the connection (HTTP %s %s), retrying", status, code)
            return
        raise FeedRefused(status, code, text or "handshake refused")

    def stop(self) -> None:
        """End `run` after the message being processed (if any); safe to call from the client's loop."""
        self._stopping.set()
        if self.connection is not None:
            self._closing = asyncio.ensure_future(self.connection.close())

    @property
    def position(self) -> Position:
        return self.store.load()
