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


async def enter_result_with_a_supervisor(studio: Studio, table_id: str, result: dict[str, Any]) -> None:
    """The dealer enters `result` for the table's open round in play: refused alone, taken with a supervisor."""
    from studio.rounds import RoundError, RoundState

    table = studio.tables[table_id]

    def in_play() -> bool:
        r = table.lifecycle.round
        return r is not None and r.state in (RoundState.IN_PLAY, RoundState.BETTING_CLOSED)

    await wait_until(in_play, "a round in play")
    try:
        table.manual_result_by(result, by="dealer-1", approved_by=None, reason="no device reading")
    except RoundError as exc:
        assert "supervisor" in str(exc)
    else:
        raise AssertionError("a manual result without a supervisor was taken")
    # the device is connected but gives no reading: it is declared failed for the round (docs/design.md)
    table.manual_result_by(
        result,
        by="dealer-1",
        approved_by="supervisor-1",
        reason="no device reading",
        device_failed="the device gives no reading for this round",
    )
