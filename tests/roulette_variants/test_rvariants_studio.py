"""Whole studios in this process: simulated SS2 wheels on real ptys, simulated overhead cameras on real TCP.

Each variant certifies the numbers the devices agree on, commits and reveals its draws, starts its own
games when asked to, and holds or voids (never certifies) when something is wrong.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from journal_records import records
from waiting import WAIT_S

from simulators.roulette_camera import View
from streaming.canonical import commitment_hash
from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio

TOKEN = "roulette-variants-token-01"
MANUAL_START_MODE = 135  # the simulator's 133 (reverse, NMB speed change, status) + 2 (manual start)


def wheel(speed: float, seed: int, **sim_options: Any) -> dict[str, Any]:
    sim: dict[str, Any] = {"speed": speed, "seed": seed}
    if sim_options:
        sim["options"] = sim_options
    return {
        "kind": "cammegh-ss2",
        "role": "wheel",
        "url": "simulator",
        "serial_number": f"SS2-{seed}",
        "options": {"keep_powered": True},
        "simulator": sim,
    }


def camera(balls: int, seed: int) -> dict[str, Any]:
    view = View(width=640, height=360)
    return {
        "kind": "roulette-camera",
        "role": "camera",
        "url": "simulator",
        "serial_number": f"CAM-{seed}",
        "options": {"calibration": view.calibration(), "settle_s": 0.25},
        "simulator": {
            "speed": 1,
            "seed": seed,
            "options": {
                "width": 640,
                "height": 360,
                "fps": 30,
                "balls": balls,
                "launch_after_s": 0.7,
                "track_s": 1.6,
                "drop_s": 0.35,
                "revolutions": 4.5,
            },
        },
    }


def run(tmp_path, tables: list[dict[str, Any]], scenario) -> Studio:
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": TOKEN}],
            "tables": tables,
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
    report = verify_journal(studio.data_dir)  # what `studio verify` checks: chain, signatures, commitments
    assert report.ok, report.error
    return studio


async def until(cond: Callable[[], Any], timeout: float = WAIT_S, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def feed(studio: Studio, table: str | None = None) -> list[dict]:
    msgs = [json.loads(t) for _, t in studio.journal.read_after(0, 100_000)]
    return [m for m in msgs if table is None or m["table_id"] == table]


def of(studio: Studio, table: str, kind: str, code: str | None = None) -> list[dict]:
    return [
        m for m in feed(studio, table) if m["kind"] == kind and (code is None or m["reason"]["code"] == code)
    ]


def held(studio: Studio, code: str) -> list[dict]:
    return [
        r
        for r in records(studio, "round_state")
        if r["transition"] == "hold" and any(h["code"] == code for h in r["holds"])
    ]


def test_double_ball_with_the_camera_certifies_both_balls_and_holds_a_disagreement(tmp_path):
    # an unattended wheel (manual start, started by the judge) beside the camera
    tables = [
        {
            "id": "db",
            "game": "double_ball_roulette",
            "settings": {"wheel_time_scale": 10, "auto_start": True, "wheel_mode": MANUAL_START_MODE},
            "devices": [wheel(10, 3, mode=MANUAL_START_MODE), camera(2, 4)],
        }
    ]

    async def scenario(studio: Studio) -> None:
        cam, ss2 = studio.simulator("db", "camera"), studio.simulator("db", "wheel")
        cam.link_wheel(ss2)  # the wheel is told where the first ball will land
        cam.force_next(["0", "10"])  # half a wheel apart: the camera can follow both balls
        cam.force_next(["23", "23"])  # both balls in one pocket
        cam.force_next(["17", "5"], wheel_number="6")  # the wheel misreads: 6 is neither ball
        await until(lambda: len(of(studio, "db", "result")) >= 2, what="two results")
        await until(lambda: held(studio, "camera_disagrees"), what="the hold")

    studio = run(tmp_path, tables, scenario)
    results = of(studio, "db", "result")
    assert [r["result"]["numbers"] for r in results[:2]] == [["0", "10"], ["23", "23"]]
    assert results[1]["result"]["same_pocket"] is True
    assert {w["bet"]: w["wins"] for w in results[1]["outcome"]["winning_bets"]}["double:23"] == 1
    first = results[0]
    assert first["source"]["camera_pockets"] == ["0", "10"] and first["source"]["device_id"] == "db/wheel"
    assert (
        first["source"]["revolutions_from"] in ("camera", "wheel")
        and first["source"]["ball_revolutions"] >= 4
    )
    # the misread game was never certified: held, then voided when the next game superseded it (or still held)
    hold = held(studio, "camera_disagrees")[0]
    assert "the wheel says 6, the camera sees 17 and 5" in hold["holds"][0]["message"]
    assert hold["round_id"] not in {r["round_id"] for r in results}
    assert not [r for r in results if sorted(r["result"]["numbers"]) == ["17", "5"]]
    assert all("6" not in r["result"]["numbers"] for r in results)
    # the judge started the wheel at power-on and after each certified game, and not after the held one:
    # the wheel waited for the dealer (here the studio's stop then voided the held round)
    history = records(studio, "device_command", "round_state")
    until_void = history[: next(i for i, r in enumerate(history) if r.get("transition") == "void")]
    starts = [c for c in until_void if c.get("command") == "start_spin clockwise"]
    assert len(starts) == 3 and {c["device_id"] for c in starts} == {"db/wheel"}
    events = records(studio, "device_event")
    readings = [e for e in events if e["device_id"] == "db/camera" and e["kind"] == "wheel_result"]
    assert readings and all(e["game_counter"] is None and len(e["numbers"]) == 2 for e in readings)
    assert not any("image" in e for e in events)  # the camera's frames never reach the journal


def test_lightning_commits_before_betting_closes_and_pays_a_lucky_straight_up(tmp_path):
    tables = [
        {
            "id": "lr",
            "game": "lightning_roulette",
            "settings": {"wheel_time_scale": 20},
            "device": wheel(20, 5),
        }
    ]
    forced: list[dict] = []

    async def scenario(studio: Studio) -> None:
        table, ss2 = studio.tables["lr"], studio.simulator("lr", "wheel")
        for _ in range(1):
            n = len(of(studio, "lr", "result"))
            await until(
                lambda: table.round and not table.round.is_final and table.draw, what="a committed round"
            )
            lucky = table.draw.extras["lucky_numbers"][0]  # the test peeks at the secret to make it come up
            forced.append(lucky)
            ss2.force_next_number(lucky["number"])
            await until(lambda n=n: len(of(studio, "lr", "result")) > n, what="the result")

    studio = run(tmp_path, tables, scenario)
    msgs = feed(studio, "lr")
    results = of(studio, "lr", "result")
    for lucky, result in zip(forced, results):
        round_msgs = [m for m in msgs if m["round_id"] == result["round_id"]]
        commit = round_msgs[0]
        assert commit["kind"] == "commitment" and commit["reveal"] is None
        assert "lucky_numbers" not in json.dumps(commit)  # secret until the end
        reveal = result["reveal"]
        assert (
            commitment_hash(result["round_id"], reveal["extras"], reveal["nonce"])
            == commit["commitment"]["hash"]
        )
        assert result["result"]["number"] == lucky["number"]
        straight = result["outcome"]["winning_bets"][0]
        assert straight["payout"] == lucky["payout"] and straight.get("lucky") is True
        assert result["source"]["revolutions_from"] == "wheel" and result["source"]["ball_revolutions"] >= 4
        # committed before betting closed: the commitment's journal record precedes the close
        states = [r for r in records(studio, "round_state") if r["round_id"] == result["round_id"]]
        assert states[1]["transition"] == "close_betting"
    assert len(results) >= 1 and forced


def test_american_double_zero_and_la_partage_halves_on_a_live_feed(tmp_path):
    tables = [
        {"id": "us", "game": "american_roulette", "device": wheel(20, 7, pockets=38)},
        {"id": "lp", "game": "la_partage_roulette", "device": wheel(20, 8)},
    ]

    async def scenario(studio: Studio) -> None:
        us, lp = studio.simulator("us", "wheel"), studio.simulator("lp", "wheel")
        for n in ("00", "0", "00"):
            us.force_next_number(n)
        lp.force_next_number("0")
        lp.force_next_number("19")
        await until(
            lambda: len(of(studio, "us", "result")) >= 3 and len(of(studio, "lp", "result")) >= 2,
            what="results on both tables",
        )

    studio = run(tmp_path, tables, scenario)
    assert [r["result"]["number"] for r in of(studio, "us", "result")[:3]] == ["00", "0", "00"]
    zero, nineteen = of(studio, "lp", "result")[:2]
    assert [h["returned"] for h in zero["outcome"]["half_back_bets"]] == ["1/2"] * 6
    assert nineteen["outcome"]["half_back_bets"] == []


def test_auto_roulette_starts_its_games_and_re_spins_a_short_spin(tmp_path):
    tables = [
        # a manual-start wheel the judge runs by itself: the mode at connect, then a start after every game
        {
            "id": "auto",
            "game": "la_partage_roulette",
            "settings": {
                "auto_start": True,
                "wheel_mode": MANUAL_START_MODE,
                "min_ball_revolutions": 4,
                "wheel_time_scale": 20,
            },
            "device": wheel(20, 9, mode=MANUAL_START_MODE),
        },
        # the same, but the table asks for more revolutions than the simulator's balls make (5-6 by the
        # wheel's own clock): every spin is too short, void, spun again
        {
            "id": "short",
            "game": "european_roulette",
            "settings": {"auto_start": True, "min_ball_revolutions": 10, "wheel_time_scale": 20},
            "device": wheel(20, 10, mode=MANUAL_START_MODE),
        },
    ]

    async def scenario(studio: Studio) -> None:
        await until(
            lambda: len(of(studio, "auto", "result")) >= 3 and len(of(studio, "short", "void")) >= 3,
            what="three games on each table",
        )

    studio = run(tmp_path, tables, scenario)
    commands = records(studio, "device_command")
    auto = [c["command"] for c in commands if c["device_id"] == "auto/wheel"]
    assert auto[0] == f"set_mode {MANUAL_START_MODE}" and auto.count("start_spin clockwise") >= 3
    assert all(r["source"]["ball_revolutions"] >= 4 for r in of(studio, "auto", "result"))
    voids = of(studio, "short", "void", "too_few_revolutions")
    assert len(voids) >= 3 and not of(studio, "short", "result")
    assert "revolutions by the wheel" in voids[0]["reason"]["message"]
    assert [c["command"] for c in commands if c["device_id"] == "short/wheel"].count(
        "start_spin clockwise"
    ) >= 3  # the re-spins
