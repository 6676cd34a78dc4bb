"""A studio's own app under real uvicorn on an ephemeral 127.0.0.1 port, on a thread of its own."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import uvicorn
from waiting import until

from app.api import create_app
from studio.config import parse_config
from studio.service import Studio

TOKEN = "integrity-test-token-01"


def wheel_table(table_id: str = "t1", *, speed: float = 40, seed: int = 3) -> dict[str, Any]:
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


def make_studio(data: Path, tables: list[dict[str, Any]], **settings: Any) -> Studio:
    return Studio(
        parse_config(
            {
                "studio": {"data_dir": str(data), "journal_writer": "thread", **settings},
                "consumers": [{"name": "integrity", "token": TOKEN}],
                "tables": tables,
            }
        )
    )


class Served:
    """Real uvicorn serving the studio's app; `stop()` stops both."""

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
            target=self.server.run, kwargs={"sockets": [self.sock]}, name="integrity-uvicorn", daemon=True
        )
        self.thread.start()
        until(lambda: self.server.started or not self.thread.is_alive(), "uvicorn to start")
        assert self.thread.is_alive(), "uvicorn stopped at start"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(60)
        self.sock.close()
        assert not self.thread.is_alive(), "uvicorn did not stop"
