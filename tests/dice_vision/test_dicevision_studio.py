"""A whole studio in this process: dice tables with simulated cameras over HTTP, the dice games' rules,
the journal and the signed feed. The simulator throws when betting closes and re-throws on a hold."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from dicevision_helpers import simulated_camera as camera
from dicevision_helpers import stop_late_preparers
from journal_records import records
from waiting import WAIT_S

from simulators.dice import TrayGeometry, calibration_document
from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio

TOKEN = "dice-vision-test-token-01"
W, H = 640, 360


def make_studio(tmp_path) -> Studio:
    g = TrayGeometry.for_frame(W, H)
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": TOKEN}],
            "tables": [
                {
                    "id": "sicbo-1",
                    "game": "sic_bo",
                    "betting_seconds": 0.3,
                    "auto_round_seconds": 0.3,
                    "settings": {"calibration": calibration_document(g), "hold_after_s": 1.0},
                    "devices": [camera("camera-1", "sicbo-1", 0, ["white", "white", "white"])],
                },
                {
                    "id": "duel-1",
                    "game": "dice_duel",
                    "betting_seconds": 0.3,
                    "auto_round_seconds": 0.3,
                    "settings": {
                        "cameras": 2,
                        "hold_after_s": 1.0,
                        "calibrations": {
                            "camera-1": calibration_document(g),
                            "camera-2": {
                                "die_size": [g.die_size * 0.85, g.die_size * 1.15],
                                "camera_height": 62,
                            },
                        },
                    },
                    "devices": [
                        camera("camera-1", "duel-1", 0, ["red", "blue"]),
                        camera("camera-2", "duel-1", 1, ["red", "blue"]),
                    ],
                },
            ],
        }
    )
    return Studio(cfg)


def feed(studio: Studio) -> list[dict]:
    return [json.loads(t) for _, t in studio.journal.read_after(0, 100_000)]


async def until(cond: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_dice_tables_certify_what_the_simulated_dealer_threw_and_hold_faults(tmp_path) -> None:
    studio = make_studio(tmp_path)
    seen: dict[str, Any] = {}

    def results(table: str) -> list[dict]:
        return [m for m in feed(studio) if m["kind"] == "result" and m["table_id"] == table]

    async def main() -> None:
        studio.start(asyncio.get_running_loop())
        try:
            sic = studio.simulator("sicbo-1")
            duel_sim = studio.simulator("duel-1", "camera-1")
            seen["sic_first"] = (await until(lambda: results("sicbo-1"), WAIT_S, "a certified Sic Bo round"))[
                0
            ]
            seen["sic_throws"] = list(sic.world.history)
            seen["duel_first"] = (
                await until(lambda: results("duel-1"), WAIT_S, "a certified Dice Duel round")
            )[0]
            seen["duel_throws"] = list(duel_sim.world.history)
            # the next Sic Bo throw loses a die: the round is held, the dealer re-throws, it is certified
            sic.world.queue(faults=("missing",))
            held = await until(
                lambda: [
                    r
                    for r in records(studio, "round_state")
                    if any(h["code"] == "dice_missing" for h in r.get("holds", []))
                ],
                25,
                "a dice_missing hold",
            )
            rid = held[0]["round_id"]
            seen["held_round"] = rid
            seen["sic_after"] = (
                await until(
                    lambda: [m for m in results("sicbo-1") if m["round_id"] == rid],
                    25,
                    "the re-thrown round certified",
                )
            )[0]
            seen["sic_after_throws"] = list(sic.world.history)
        finally:
            await asyncio.to_thread(studio.stop)
            stop_late_preparers(studio)

    asyncio.run(main())
    assert verify_journal(studio.data_dir).ok
    # every certified result is what one of the dealer's clean throws left on the tray
    first = seen["sic_first"]
    assert first["game"] == "sic_bo"
    assert first["result"]["dice"] in [t.faces for t in seen["sic_throws"] if t.readable]
    assert first["source"]["kind"] == "dice-camera"
    assert first["source"]["cameras"][0]["device_id"] == "sicbo-1/camera-1"
    duel = seen["duel_first"]
    assert duel["result"] in [{d.colour: d.face for d in t.dice} for t in seen["duel_throws"]]
    assert sorted(c["device_id"] for c in duel["source"]["cameras"]) == ["duel-1/camera-1", "duel-1/camera-2"]
    # the held round was certified with the re-throw, which came after the throw that lost a die
    throws = seen["sic_after_throws"]
    lost = max(i for i, t in enumerate(throws) if t.faults == ("missing",))
    assert seen["sic_after"]["result"]["dice"] in [t.faces for t in throws[lost + 1 :]]
    held = [r for r in records(studio, "round_state") if r["round_id"] == seen["held_round"]]
    transitions = [r["transition"] for r in held]
    assert "hold" in transitions and "release" in transitions
    assert transitions.index("hold") < transitions.index("release") < transitions.index("certify")
    message = next(h["message"] for r in held for h in r.get("holds", []) if h["code"] == "dice_missing")
    assert "picture sicbo-1/camera-1#" in message
    # frames were journaled without their pictures; the calibrations in use were noted
    frames = [r for r in records(studio, "device_event") if r.get("kind") == "camera_frame"]
    assert frames and all("image" not in r for r in frames)
    notes = [r for r in records(studio, "note") if r["code"] == "dice_calibration"]
    assert {n["message"].split(" ", 1)[0] for n in notes} >= {"sicbo-1/camera-1", "duel-1/camera-2"}
