"""Bearer tokens of the betting backends: refused attempts are journaled and slowed down per client address.

An ASGI middleware in front of the studio's consumer API (`/v1/...`: the feed, the rounds, the tables, the
decisions). A request with a missing or wrong token is journaled (`consumer_auth_refused`: address, path,
reason; never the token) and counted for its address; past the free attempts each further failure makes the
address wait twice as long (studio.throttle.Throttle, as the console's sign-in), and meanwhile its requests
with a wrong token get 429 with Retry-After (journaled once per wait). A request with a valid token always
passes: a backend must never lose its results because another client at the same address (a NAT, a proxy)
holds an old token. The routes still check the token themselves; this only counts and slows.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .throttle import Throttle

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

#: consumer API paths that need no token
PUBLIC_PATHS = frozenset({"/v1/health", "/v1/public-key"})
#: the WebSocket close code for a refusal before accept (the feed's own: policy violation)
CLOSE_POLICY_VIOLATION = 1008


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            return token if scheme.lower() == "bearer" and token else None
    return None


class ConsumerGuard:
    def __init__(
        self,
        app: Any,
        *,
        authorize: Callable[[str], bool],
        journal: Callable[[str, dict[str, Any]], None],
        throttle: Throttle | None = None,
    ) -> None:
        self.app = app
        self.authorize = authorize
        self.journal = journal
        # a backend's retry loop with a stale token is not an attack: more free attempts than a person gets
        self.throttle = throttle or Throttle(free_ip_attempts=20, base_delay=1.0, max_delay=120.0)
        self._slowed_journaled: dict[str, float] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] not in ("http", "websocket") or not path.startswith("/v1/") or path in PUBLIC_PATHS:
            await self.app(scope, receive, send)
            return
        token = _bearer(scope)
        if token is not None and self._valid(token):
            await self.app(scope, receive, send)
            return
        address = (scope.get("client") or ("unknown", 0))[0]
        key = f"ip:{address}"
        wait = self.throttle.wait(key)
        if wait > 0:
            self._journal_slowed(address, path, wait)
            await self._too_many(scope, receive, send, wait)
            return
        self.throttle.failed(key)
        self._record(address, path, "missing_token" if token is None else "wrong_token")
        await self.app(scope, receive, send)  # the route answers 401 (or closes the WebSocket) as documented

    def _valid(self, token: str) -> bool:
        try:
            return bool(self.authorize(token))
        except Exception:
            log.exception("consumer token check raised; counting it as refused")
            return False

    def _record(self, address: str, path: str, reason: str, **extra: Any) -> None:
        try:
            self.journal(
                "consumer_auth_refused", {"address": address, "path": path[:200], "reason": reason, **extra}
            )
        except Exception as exc:  # noqa: BLE001 - a failed journal refuses everything anyway
            log.error("could not journal a refused consumer token from %s: %s", address, exc)

    def _journal_slowed(self, address: str, path: str, wait: float) -> None:
        """Once per wait: a client hammering with a wrong token must not fill the journal."""
        until = self.throttle.clock() + wait
        if abs(self._slowed_journaled.get(address, -1.0) - until) < 0.5:
            return
        if len(self._slowed_journaled) > 10_000:
            self._slowed_journaled.clear()
        self._slowed_journaled[address] = until
        self._record(address, path, "slowed_down", retry_after=int(wait) + 1)

    @staticmethod
    async def _too_many(scope: Scope, receive: Receive, send: Send, wait: float) -> None:
        retry = str(int(wait) + 1)
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send(
                {
                    "type": "websocket.close",
                    "code": CLOSE_POLICY_VIOLATION,
                    "reason": "too many failed attempts",
                }
            )
            return
        body = json.dumps(
            {
                "code": "too_many_attempts",
                "message": f"too many refused tokens from this address; try again in {retry} s",
                "retry_after": int(retry),
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 429,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"retry-after", retry.encode()),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
