"""A whole studio in this process: a Lucky 5 table whose ball machine (Modbus TCP) and RFID reader are the
simulators, read by the real drivers; results on the signed feed; a lost link pauses the table visibly."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from journal_records import records
from waiting import WAIT_S

from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio

TOKEN = "balls-studio-test-token-1"


def make_studio(tmp_path, *, transport: str = "tcp", settings: dict | None = None) -> Studio:
    sim = {
        "speed": 10,
        "seed": 5,
        "options": {"machine_id": "lucky-1", "ball_set": "1-36", "transport": transport},
    }
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": TOKEN}],
            "tables": [
                {
                    "id": "lucky-1",
                    "game": "lucky_5",
                    "betting_seconds": 0.2,
                    "auto_round_seconds": 0.3,
                    "require_opening_check": False,  # the ball-set check has its own tests (tests/studio/test_opening_check.py)
                    "settings": {
                        "mix_seconds": 0.1,
                        "jam_timeout_s": 2,
                        "read_timeout_s": 1,
                        **(settings or {}),
                    },
                    "devices": [
                        {
                            "kind": "modbus-ball-machine",
                            "role": "machine",
                            "url": "simulator",
                            "serial_number": "LOTO-1",
                            "options": {
                                "poll_interval": 0.01,
                                "heartbeat_s": 0.1,
                                "timeout": 0.1,
                                "failures_before_lost": 2,
                                "reconnect_min": 0.05,
                                "reconnect_max": 0.2,
                            },
                            "simulator": sim,
                        },
                        {
                            "kind": "serial-ball-reader",
                            "role": "reader",
                            "url": "simulator",
                            "serial_number": "RFID-1",
                            "options": {"ball_set": "1-36", "fold_s": 0.2},
                            "simulator": sim,
                        },
                    ],
                }
            ],
        }
    )
    return Studio(cfg)


def feed(studio: Studio) -> list[dict]:
    return [json.loads(t) for _, t in studio.journal.read_after(0, 100_000)]


async def until(cond: Callable[[], Any], timeout: float = WAIT_S, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def run(tmp_path, scenario, **kw) -> Studio:
    studio = make_studio(tmp_path, **kw)

    async def main() -> None:
        studio.start(asyncio.get_running_loop())
        try:
            await scenario(studio, studio.simulator("lucky-1", "machine"), studio.tables["lucky-1"])
        finally:
            await asyncio.to_thread(studio.stop)

    asyncio.run(main())
    report = verify_journal(studio.data_dir)
    assert report.ok, report.error
    return studio


def results(studio: Studio) -> list[dict]:
    return [m for m in feed(studio) if m["kind"] == "result"]


def test_draws_are_certified_on_the_signed_feed(tmp_path):
    async def scenario(studio, machine, table):
        await until(lambda: len(results(studio)) >= 2, what="two results")

    studio = run(tmp_path, scenario)
    first = results(studio)[0]
    balls = first["result"]["balls"]
    assert len(balls) == 5 and len(set(balls)) == 5 and all(1 <= int(b) <= 36 for b in balls)
    assert first["source"]["device_id"] == "lucky-1/machine" and first["source"]["serial_number"] == "LOTO-1"
    assert first["source"]["reader_device_id"] == "lucky-1/reader"
    commands = [c["command"] for c in records(studio, "device_command")]
    assert commands[:7] == ["start_blower"] + ["release_ball"] * 5 + ["stop_blower"]
    assert all(c["device_id"] == "lucky-1/machine" for c in records(studio, "device_command"))


def test_an_unknown_tag_holds_the_round_and_nothing_is_certified(tmp_path):
    async def scenario(studio, machine, table):
        await until(lambda: table.round is not None, what="a round")
        machine.inject("unknown_tag")
        await until(
            lambda: table.round and any(h.code == "unknown_tag" for h in table.round.holds), what="the hold"
        )
        await asyncio.sleep(0.5)
        assert table.round.state.value == "in_play"  # held, waiting for the dealer

    studio = run(tmp_path, scenario)
    assert not results(studio)


def test_a_lost_modbus_link_pauses_the_table_with_a_reason_and_it_reconnects(tmp_path):
    async def scenario(studio, machine, table):
        await until(lambda: results(studio), what="a first result")
        machine.inject("link_lost")
        reason = await until(lambda: table.paused_reason, what="the pause")
        assert "lucky-1/machine" in reason and "no answer from the PLC" in reason
        machine.restore_link()
        await until(lambda: table.paused_reason is None, what="the reconnect")
        n = len(results(studio))
        await until(lambda: len(results(studio)) > n, what="a result after the reconnect")

    studio = run(tmp_path, scenario)
    statuses = records(studio, "table_status")
    assert [s["state"] for s in statuses][:2] == ["paused", "running"]
