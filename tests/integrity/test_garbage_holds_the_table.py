"""A wheel that sends only garbage holds its table with the reason, and the table runs again when it is sane.

A whole studio in this process; its SS2 driver reads a real pty this test writes to.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import tty
from collections.abc import Callable
from typing import Any

from journal_records import records
from waiting import WAIT_S

from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio

IDLE = b"*X;6;001;  ;0;000;0\r\n"  # the wheel is stopped: no game, the table just needs it connected


async def _until(cond: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def _table_statuses(studio: Studio) -> list[dict]:
    return records(studio, "table_status")


def test_garbage_pauses_the_table_with_the_reason_and_it_recovers(tmp_path) -> None:
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": "garbage-test-token-0001"}],
            "tables": [
                {
                    "id": "t1",
                    "game": "european_roulette",
                    "device": {
                        "kind": "cammegh-ss2",
                        "url": os.ttyname(slave),
                        "serial_number": "W-1",
                        "options": {"garbage_timeout": 0.5, "silence_timeout": 600},
                    },
                }
            ],
        }
    )
    studio = Studio(cfg)
    stop_writing = threading.Event()
    what = {"line": IDLE}

    def wheel() -> None:  # the wheel's line: whatever `what` says, as fast as it is taken
        while not stop_writing.is_set():
            try:
                os.write(master, what["line"])
            except OSError:
                return
            if what["line"] == IDLE:
                time.sleep(0.05)

    async def scenario() -> None:
        table = studio.tables["t1"]
        await _until(
            lambda: all(s.link.connected for s in table.slots.devices.values()), "the wheel connected"
        )
        await _until(lambda: table.paused_reason is None, "the table running")
        what["line"] = b"\x07\x1b[garbage]" * 40 + b"\r\n"
        reason = await _until(
            lambda: (
                (table.paused_reason or "") if "device sends garbage" in (table.paused_reason or "") else ""
            ),
            "the table paused for garbage",
        )
        assert "no valid line" in reason
        what["line"] = IDLE
        await _until(lambda: table.paused_reason is None, "the table running again")

    writer = threading.Thread(target=wheel, daemon=True)

    async def main() -> None:
        studio.start(asyncio.get_running_loop())
        writer.start()
        try:
            await scenario()
        finally:
            stop_writing.set()
            await asyncio.to_thread(studio.stop)

    try:
        asyncio.run(main())
    finally:
        stop_writing.set()
        writer.join(WAIT_S)
        os.close(master)
        os.close(slave)
    assert verify_journal(studio.data_dir).ok
    states = [(s["state"], s.get("reason") or "") for s in _table_statuses(studio)]
    paused = [r for st, r in states if st == "paused" and "device sends garbage" in r]
    assert paused, states
    i = next(k for k, (st, r) in enumerate(states) if "device sends garbage" in r)
    assert any(st == "running" for st, _ in states[i + 1 :]), states
