"""The decisions API (docs/decisions.md): post a player's decision, read the open windows; errors typed."""

from __future__ import annotations

from typing import Any, Self

import httpx
from pydantic import BaseModel, ConfigDict

from .errors import BY_STATUS, DecisionError


class DecisionTaken(BaseModel):
    """A 200 answer: the decision as the rules took it and the seq of its `decision` feed message."""

    model_config = ConfigDict(extra="allow")
    decision: dict[str, Any]
    feed_seq: int


class DecisionsClient:
    """An async client of `POST/GET /v1/tables/{table_id}/decisions`; use it as `async with`."""

    def __init__(self, url: str, token: str, *, timeout: float = 30.0) -> None:
        self.http = httpx.AsyncClient(
            base_url=url.rstrip("/"), headers={"Authorization": f"Bearer {token}"}, timeout=timeout
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def decide(
        self,
        table_id: str,
        round_id: str,
        seat: str,
        action: str,
        *,
        hand: int = 1,
        window: str | None = None,
        cards: list[str] | None = None,
    ) -> DecisionTaken:
        """Post one decision; raise the DecisionError subclass of the refusal (DecisionRefused for a 409, ...)."""
        body: dict[str, Any] = {"round_id": round_id, "seat": seat, "hand": hand, "action": action}
        if window is not None:
            body["window"] = window
        if cards:
            body["cards"] = cards
        reply = await self.http.post(f"/v1/tables/{table_id}/decisions", json=body)
        return DecisionTaken.model_validate(_checked(reply))

    async def windows(self, table_id: str) -> dict[str, Any]:
        """The table's open round and windows (for a backend that restarts mid-round; the feed is the authority)."""
        return _checked(await self.http.get(f"/v1/tables/{table_id}/decisions"))


def _checked(reply: httpx.Response) -> dict[str, Any]:
    try:
        body = reply.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    if reply.status_code == 200:
        return body
    error = BY_STATUS.get(reply.status_code, DecisionError)
    raise error(
        reply.status_code,
        str(body.get("code", f"http_{reply.status_code}")),
        str(body.get("message", reply.text[:200])),
        body,
    )
