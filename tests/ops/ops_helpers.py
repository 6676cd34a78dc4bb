"""A whole studio in this process, on simulated SS2 wheels on real ptys, served by real uvicorn on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from app.api import create_app
from studio.config import parse_config
from studio.service import Studio

TOKEN = "ops-test-token-0001"


def wheel(table_id: str, *, speed: float = 40, seed: int = 3) -> dict[str, Any]:
    return {
        "id": table_id,
        "game": "european_roulette",
        "device": {
            "kind": "cammegh-ss2",
            "role": "wheel",
            "url": "simulator",
            "serial_number": f"SIM-{table_id}",
            "options": {"keep_powered": True},
            "simulator": {"speed": speed, "seed": seed},
        },
    }


def make_studio(data: Path, tables: list[dict[str, Any]], **studio: Any) -> Studio:
    return Studio(
        parse_config(
            {
                "studio": {"data_dir": str(data), **studio},
                "consumers": [{"name": "ops", "token": TOKEN}],
                "tables": tables,
            }
        )
    )


class Served:
    """The studio's own app under real uvicorn on an ephemeral port, on a thread of its own."""

    def __init__(self, studio: Studio) -> None:
        self.studio = studio
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(
                create_app(studio),
                log_level="warning",
                lifespan="on",
                ws_ping_interval=None,
                ws_per_message_deflate=False,
                timeout_graceful_shutdown=2,
            )
        )
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, name="ops-uvicorn", daemon=True
        )
        self.thread.start()
        wait(lambda: self.server.started or not self.thread.is_alive(), what="uvicorn to start")
        assert self.thread.is_alive(), "uvicorn stopped at start"
        self.http = httpx.Client(base_url=self.url, timeout=20)

    def on_loop(self, fn: Callable[[], Any]) -> Any:
        async def run() -> Any:
            return fn()

        assert self.studio.loop is not None
        return asyncio.run_coroutine_threadsafe(run(), self.studio.loop).result(20)

    def stop(self) -> None:
        self.http.close()
        self.server.should_exit = True
        self.thread.join(30)
        self.sock.close()
        assert not self.thread.is_alive(), "uvicorn did not stop"


def wait(cond: Callable[[], Any], timeout: float = 60, what: str = "condition") -> Any:
    """Wait for a condition, bounded generously (a loaded machine is slow, never wrong)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
