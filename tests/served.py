"""A studio's own app under real uvicorn on a 127.0.0.1 port, on a thread of its own, for the tests that talk
to a running studio over HTTP and WebSocket. tests/ is on sys.path, so any test imports this by name."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from typing import Any

import uvicorn
from waiting import WAIT_S, until

from app.api import create_app
from studio.service import Studio


def wheel_table(table_id: str = "t1", *, speed: float = 40, seed: int = 3) -> dict[str, Any]:
    """A European roulette table on a simulated SS2 wheel (the real driver on a pty)."""
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


class Served:
    """Real uvicorn serving `studio`'s app on `port` (0: any free one); `stop()` stops both."""

    def __init__(self, studio: Studio, *, port: int = 0, name: str = "test-uvicorn") -> None:
        self.studio = studio
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a studio started again on its port
        self.sock.bind(("127.0.0.1", port))
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
            target=self.server.run, kwargs={"sockets": [self.sock]}, name=name, daemon=True
        )
        self.thread.start()
        until(lambda: self.server.started or not self.thread.is_alive(), "uvicorn to start")
        assert self.thread.is_alive(), "uvicorn stopped at start"

    def on_loop(self, fn: Callable[[], Any]) -> Any:
        """`fn()` run on the studio's event loop, its value returned here."""

        async def run() -> Any:
            return fn()

        assert self.studio.loop is not None
        return asyncio.run_coroutine_threadsafe(run(), self.studio.loop).result(WAIT_S)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(60)
        self.sock.close()
        assert not self.thread.is_alive(), "uvicorn did not stop"
