"""The request-body limit: every HTTP request's body is refused with 413 once it is larger than its route's
limit, before anything parses it (a 50 MB JSON body to the login would otherwise be read whole first)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import HTTPException

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGI = Callable[[Scope, Receive, Send], Awaitable[None]]

#: the routes whose body is a picture (the dice calibration desk's tray and dice pictures, a shoe's card image):
#: they get the upload limit, every other route the small one
UPLOAD_ROUTES = re.compile(
    r"/console/api/dice/[^/]+/[^/]+/setup/(?:empty|dice)|/console/api/devices/[^/]+/[^/]+/decode-image"
)


class BodyTooLarge(HTTPException):
    """Raised from `receive` when the body streamed so far is over the limit: an HTTPException so that the
    route's own body reading (FastAPI turns any other error there into a 400) passes it on as the 413 it is."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")


#: after refusing, the rest of the body is read (and dropped) up to this many bytes and seconds before the
#: connection closes: closing on unread bytes resets the connection, and the client may lose the 413 with it
DRAIN_BYTES = 64 * 1024 * 1024
DRAIN_S = 10.0


class BodyLimit:
    """Refuses a body over the route's limit with 413: at once when Content-Length says so (nothing is read),
    else as soon as the bytes streamed (a chunked body) pass it. Nothing over the limit is kept."""

    def __init__(self, app: ASGI, *, max_body: int, max_upload: int) -> None:
        self.app = app
        self.max_body = max_body
        self.max_upload = max_upload

    def limit(self, path: str) -> int:
        return self.max_upload if UPLOAD_ROUTES.fullmatch(path) else self.max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope["path"])
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0  # the server itself refuses a malformed length
                if declared > limit:
                    await _refuse(receive, send, limit, more=True)
                    return
        received = 0
        over = more = started = False

        async def counted() -> Message:
            nonlocal received, over, more
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                more = bool(message.get("more_body", False))
                if received > limit:
                    over = True
                    raise BodyTooLarge(limit)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if over and not started:
                return  # the route's answer to BodyTooLarge: the refusal below answers instead
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge:
            if started:  # a response had begun before the body was read: nothing more can be said
                raise
        if over and not started:
            await _refuse(receive, send, limit, more=more)


async def _refuse(receive: Receive, send: Send, limit: int, *, more: bool) -> None:
    """413, then what is left of the body read and dropped (bounded) before the response ends."""
    body = f'{{"detail": "the request body is larger than {limit} bytes"}}'.encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": True})
    drained = 0
    try:
        async with asyncio.timeout(DRAIN_S):
            while more and drained < DRAIN_BYTES:
                message = await receive()
                if message["type"] != "http.request":
                    break
                drained += len(message.get("body", b""))
                more = bool(message.get("more_body", False))
    except TimeoutError:
        pass
    await send({"type": "http.response.body", "body": b""})
