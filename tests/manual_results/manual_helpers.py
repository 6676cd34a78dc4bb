"""A whole studio in this process for the manual-result tests: an SS2 driver on a real pty the test writes the
wheel's lines to, or a dealer-paced money wheel on its simulator; the journal and the feed read back."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import time
import tty
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from waiting import WAIT_S

from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio

TOKEN = "manual-results-token-0001"
DEALER, SUPERVISOR, SUPERVISOR2 = "dana", "sam", "sue"


def status(state: int, game: int, number: str = "  ") -> bytes:
    """One SS2 status line: state (2 spin started, 3 ball in rim, 4 no more bets, 5 winning number)."""
    return f"*X;{state};{game:03d};{number:>2};0;150;0\r\n".encode()


async def until(cond: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def feed(studio: Studio, kind: str | None = None) -> list[dict[str, Any]]:
    db = sqlite3.connect(f"file:{studio.journal.path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT body FROM records WHERE feed_seq IS NOT NULL ORDER BY feed_seq").fetchall()
    finally:
        db.close()
    return [m for m in (json.loads(b) for (b,) in rows) if kind is None or m["kind"] == kind]


class Wheel:
    """The wheel's end of a pty: the test writes its lines."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.url = os.ttyname(self.slave)

    def send(self, *lines: bytes) -> None:
        for line in lines:
            os.write(self.master, line)

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


def wheel_studio(tmp_path: Path, wheel: Wheel) -> Studio:
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": TOKEN}],
            "tables": [
                {
                    "id": "t1",
                    "game": "european_roulette",
                    # the test writes a game's states at once: no ball revolutions to count from their times
                    "settings": {"min_ball_revolutions": 0},
                    "device": {
                        "kind": "cammegh-ss2",
                        "url": wheel.url,
                        "serial_number": "W-1",
                        "options": {"silence_timeout": 600},
                    },
                }
            ],
        }
    )
    return Studio(cfg)


def run_wheel(tmp_path: Path, scenario: Callable[[Studio, Wheel, Any], Awaitable[None]]) -> Studio:
    """Run `scenario(studio, wheel, table)` on the studio's loop; the journal verifies afterwards."""
    wheel = Wheel()
    studio = wheel_studio(tmp_path, wheel)

    async def main() -> None:
        studio.start(asyncio.get_running_loop())
        try:
            table = studio.tables["t1"]
            await until(lambda: all(s.link.connected for s in table.slots.devices.values()), "the wheel")
            await scenario(studio, wheel, table)
        finally:
            await asyncio.to_thread(studio.stop)

    try:
        asyncio.run(main())
    finally:
        wheel.close()
    report = verify_journal(studio.data_dir)
    assert report.ok, report.error
    return studio


async def wheel_in_no_more_bets(wheel: Wheel, table: Any, game: int) -> None:
    """Game `game` opened, the ball in the rim, no more bets: the round is in play, the number to come."""
    wheel.send(status(2, game), status(3, game), status(4, game))
    await until(
        lambda: table.round is not None and table.round.state.value == "in_play", f"game {game} in play"
    )
