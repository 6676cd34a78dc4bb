"""A whole studio with one table on simulated devices, for a game's studio test: start it, run an async
scenario, stop it, check the journal.

tests/ is on sys.path (tests/conftest.py is there), so any test imports this by name.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from waiting import until

from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio


def run_one_table(
    tmp_path: Path, table: dict[str, Any], scenario: Callable[[Studio], Awaitable[None]]
) -> Studio:
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": "one-table-test-token"}],
            "tables": [table],
        }
    )
    studio = Studio(cfg)

    async def main() -> None:
        studio.start(asyncio.get_running_loop())
        try:
            await scenario(studio)
        finally:
            await asyncio.to_thread(studio.stop)

    asyncio.run(main())
    report = verify_journal(studio.data_dir)
    assert report.ok, report.error
    return studio


def feed_results(studio: Studio) -> list[dict[str, Any]]:
    """The result messages of the signed feed, in order."""
    feed = [json.loads(t) for _, t in studio.journal.read_after(0, 100_000)]
    return [m for m in feed if m["kind"] == "result"]


async def wait_until(cond: Callable[[], Any], what: str) -> Any:
    """`waiting.until` off the studio's loop, so the studio runs while the test waits."""
    return await asyncio.to_thread(until, cond, what)
