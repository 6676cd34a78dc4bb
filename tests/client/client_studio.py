"""A real studio (its app under uvicorn on an ephemeral port, on a thread) for the client library's tests."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

import uvicorn
from waiting import WAIT_S, until

from app.api import create_app
from studio.config import parse_config
from studio.service import Studio

FEED_TOKEN = "client-test-feed-token-01"
DECISIONS_TOKEN = "client-test-decisions-token-01"
T = TypeVar("T")


def wheel_table(table_id: str = "t1", *, speed: float = 60) -> dict[str, Any]:
    return {
        "id": table_id,
        "game": "european_roulette",
        "device": {
            "kind": "cammegh-ss2",
            "role": "wheel",
            "url": "simulator",
            "serial_number": f"SIM-{table_id}",
            "options": {"keep_powered": True},
            "simulator": {"speed": speed, "seed": 5},
        },
    }


class ServedStudio:
    """A studio on `data` with the given tables, served until `stop()`."""

    def __init__(self, data: Path, tables: list[dict[str, Any]], port: int = 0, **settings: Any) -> None:
        self.studio = Studio(
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
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a studio started again on its port
        self.sock.bind(("127.0.0.1", port))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(
            uvicorn.Config(
                create_app(self.studio), log_level="warning", lifespan="on", timeout_graceful_shutdown=2
            )
        )
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, name="client-uvicorn", daemon=True
        )
        self.thread.start()
        until(lambda: self.server.started or not self.thread.is_alive(), "uvicorn to start")
        assert self.thread.is_alive(), "uvicorn stopped at start"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(60)
        self.sock.close()
        assert not self.thread.is_alive(), "uvicorn did not stop"


def run(coro: Awaitable[T]) -> T:
    """Run a test's coroutine, bounded generously (a hung client fails the test rather than the suite)."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, WAIT_S)

    return asyncio.run(bounded())
