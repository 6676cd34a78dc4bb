"""The integrity tests' studio (served by tests/served.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from served import Served, wheel_table

from studio.config import parse_config
from studio.service import Studio

__all__ = ["TOKEN", "Served", "make_studio", "wheel_table"]

TOKEN = "integrity-test-token-01"


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
