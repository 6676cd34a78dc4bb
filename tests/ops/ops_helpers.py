"""A whole studio in this process, on simulated SS2 wheels on real ptys, served by real uvicorn on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import served
from served import wheel_table
from waiting import WAIT_S, until

from studio.config import parse_config
from studio.service import Studio

TOKEN = "ops-test-token-0001"


wheel = wheel_table


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


class Served(served.Served):
    """The studio's own app under real uvicorn, with an HTTP client on it."""

    def __init__(self, studio: Studio) -> None:
        super().__init__(studio, name="ops-uvicorn")
        self.http = httpx.Client(base_url=self.url, timeout=WAIT_S)

    def stop(self) -> None:
        self.http.close()
        super().stop()


def wait(cond: Callable[[], Any], timeout: float = 60, what: str = "condition") -> Any:
    """Wait for a condition, bounded generously (a loaded machine is slow, never wrong)."""
    return until(cond, what, timeout)
