"""A real studio (its app under uvicorn on an ephemeral port, on a thread) for the client library's tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

import served
from waiting import WAIT_S

from studio.config import parse_config
from studio.service import Studio

FEED_TOKEN = "client-test-feed-token-01"
DECISIONS_TOKEN = "client-test-decisions-token-01"
T = TypeVar("T")


def wheel_table(table_id: str = "t1", *, speed: float = 60) -> dict[str, Any]:
    return served.wheel_table(table_id, speed=speed, seed=5)


class ServedStudio(served.Served):
    """A studio on `data` with the given tables, served until `stop()`."""

    def __init__(self, data: Path, tables: list[dict[str, Any]], port: int = 0, **settings: Any) -> None:
        studio = Studio(
            parse_config(
                {
                    "studio": {"data_dir": str(data), "journal_writer": "thread", **settings},
                    "consumers": [
                        {"name": "feed", "token": FEED_TOKEN},
                        {"name": "backend", "token": DECISIONS_TOKEN, "decision_tables": ["*"]},
                    ],
                    "tables": tables,
                }
            )
        )
        super().__init__(studio, port=port, name="client-uvicorn")


def run(coro: Awaitable[T]) -> T:
    """Run a test's coroutine, bounded generously (a hung client fails the test rather than the suite)."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, WAIT_S)

    return asyncio.run(bounded())
