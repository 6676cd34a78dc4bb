"""A whole studio in this process with simulated money wheels (real Modbus TCP, real ptys)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from journal_records import records
from waiting import WAIT_S

from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio

TOKEN = "money-wheel-test-token-01"
SEGMENTS = {"wheel_of_fortune": 19, "wheelbet": 38, "spin_and_win": 37}


def make_studio(
    tmp_path: Path,
    game: str,
    *,
    sensors: str = "encoder",
    speed: float = 40,
    seed: int = 5,
    settings: dict | None = None,
    sim: dict | None = None,
    betting: float = 0.3,
    auto_round: float | None = 0.1,
    encoder_options: dict | None = None,
) -> Studio:
    """One table "w1" playing ``game`` with a simulated wheel read by an encoder, a pointer reader or both.

    Quick settings for tests: the encoder calls the wheel still after 200 ms, the pointer reader after
    400 ms (the simulated wheel at this speed stops abruptly); the presenter waits 0.8 s after a stop."""
    n = SEGMENTS.get(game, 54)
    # the presenter's swing back takes 0.15 s of real time whatever the speed, so that the 10 ms polls see it
    sim_options = {
        "wheel_id": f"{tmp_path.name}-{game}",
        "segments": n,
        "dealer_delay_s": 1.5,
        "settle_s": 0.8,
        "counter_s": 0.15 * speed,
        "pause_s": 0.05 * speed,
        **(sim or {}),
    }
    devices = []
    if sensors in ("encoder", "both"):
        devices.append(
            {
                "kind": "wheel-encoder",
                "role": "encoder",
                "url": "simulator",
                "serial_number": "ENC-1",
                "options": {"rest_ms": 200, **(encoder_options or {})},
                "simulator": {"speed": speed, "seed": seed, "options": sim_options},
            }
        )
    if sensors in ("pointer", "both"):
        devices.append(
            {
                "kind": "wheel-pointer",
                "role": "pointer",
                "url": "simulator",
                "serial_number": "PTR-1",
                "options": {"segments": n, "rest_ms": 400},
                "simulator": {"speed": speed, "seed": seed, "options": sim_options},
            }
        )
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": TOKEN}],
            "tables": [
                {
                    "id": "w1",
                    "game": game,
                    "settings": settings or {},
                    "betting_seconds": betting,
                    "auto_round_seconds": auto_round,
                    "devices": devices,
                }
            ],
        }
    )
    return Studio(cfg)


def feed(studio: Studio) -> list[dict]:
    db = sqlite3.connect(f"file:{studio.journal.path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT body FROM records WHERE feed_seq IS NOT NULL ORDER BY feed_seq").fetchall()
    finally:
        db.close()
    return [json.loads(b) for (b,) in rows]


def results(studio: Studio) -> list[dict]:
    return [m for m in feed(studio) if m["kind"] == "result"]


def voids(studio: Studio, code: str | None = None) -> list[dict]:
    return [m for m in feed(studio) if m["kind"] == "void" and (code is None or m["reason"]["code"] == code)]


def holds(studio: Studio) -> list[str]:
    """Codes of every hold put on a round, in order."""
    out = []
    for r in records(studio, "round_state"):
        if r.get("transition") == "hold":
            out.append(r["holds"][-1]["code"])
    return out


async def until(cond: Callable[[], Any], timeout: float = WAIT_S, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def run(
    tmp_path: Path, game: str, scenario: Callable[[Studio, Any, Any], Awaitable[None]], **kw: Any
) -> Studio:
    studio = make_studio(tmp_path, game, **kw)

    async def main() -> None:
        studio.start(asyncio.get_running_loop())
        try:
            sim = next(iter(studio.simulators.values()))
            await scenario(studio, sim, studio.tables["w1"])
        finally:
            await asyncio.to_thread(studio.stop)

    asyncio.run(main())  # the studio's stop closes the journal with every thread's read connection
    report = verify_journal(studio.data_dir)
    assert report.ok, report.error
    return studio


def check_truth(studio: Studio, sim: Any, tolerance: float = 0.05) -> list[int]:
    """Every certified result is where the simulated wheel really stopped, spin by spin and in order: the
    results match a subsequence of the wheel's spins (same segment, and the turns the judge counted).
    Returns the indexes of the spins that were certified."""
    plans = list(sim.model.log)
    matched: list[int] = []
    j = 0
    for m in results(studio):
        got = (m["result"]["index"], float(m["source"]["turns"]))
        while j < len(plans) and not (
            plans[j]["segment"] == got[0] and abs(plans[j]["turns"] - got[1]) <= tolerance
        ):
            j += 1
        assert j < len(plans), (
            f"result {m['result']} (turns {got[1]}) is no spin of the wheel: "
            f"{[(p['segment'], round(p['turns'], 2)) for p in plans]}"
        )
        matched.append(j)
        j += 1
    return matched


def faulted(sim: Any) -> list[int]:
    """Indexes of the spins that had a fault injected."""
    return [i for i, p in enumerate(sim.model.log) if p["faults"]]


def money_wheel_games() -> dict[str, Any]:
    """The money-wheel games straight from their modules (not through the registry of every game)."""
    from recognition.money_wheel import (
        crazy_time,
        dream_catcher,
        mega_wheel,
        monopoly_live,
        music_wheel,
        number_wheels,
        wheel_of_fortune,
    )

    out: dict[str, Any] = {}
    for module in (
        wheel_of_fortune,
        dream_catcher,
        mega_wheel,
        monopoly_live,
        crazy_time,
        music_wheel,
        number_wheels,
    ):
        out.update(module.GAMES)
    return out
