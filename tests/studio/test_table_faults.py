"""A whole studio in this process against simulated wheels on real ptys, with the wheel's faults injected.

Each fault must hold or void the round as the SS2 spec says and never certify; the table keeps running.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from journal_records import records
from waiting import WAIT_S

from studio.config import parse_config
from studio.journal import verify_journal
from studio.service import Studio

TOKEN = "table-fault-test-token-01"


def make_studio(
    tmp_path, *, speed: float = 60, seed: int = 11, settings: dict | None = None, options: dict | None = None
) -> Studio:
    cfg = parse_config(
        {
            "studio": {"data_dir": str(tmp_path / "data")},
            "consumers": [{"name": "t", "token": TOKEN}],
            "tables": [
                {
                    "id": "t1",
                    "game": "european_roulette",
                    "settings": settings or {},
                    "device": {
                        "kind": "cammegh-ss2",
                        "url": "simulator",
                        "serial_number": "SIM-1",
                        "options": {"keep_powered": True, **(options or {})},
                        "simulator": {"speed": speed, "seed": seed},
                    },
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
            await scenario(studio, studio.simulator("t1"), studio.tables["t1"])
        finally:
            await asyncio.to_thread(studio.stop)

    asyncio.run(main())
    report = verify_journal(studio.data_dir)
    assert report.ok, report.error
    return studio


def results(studio: Studio) -> list[dict]:
    return [m for m in feed(studio) if m["kind"] == "result"]


def voids(studio: Studio, code: str | None = None) -> list[dict]:
    """Voids, leaving out the one the shutdown at the end of each scenario gives the round still open."""
    return [
        m
        for m in feed(studio)
        if m["kind"] == "void"
        and m["reason"]["code"] != "studio_stopped"
        and (code is None or m["reason"]["code"] == code)
    ]


def test_shutdown_voids_the_open_round(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: results(studio), what="a result")
        await until(lambda: table.round and not table.round.is_final, what="an open round")

    studio = run(tmp_path, scenario)
    stopped = [m for m in feed(studio) if m["kind"] == "void" and m["reason"]["code"] == "studio_stopped"]
    assert len(stopped) == 1 and stopped[0]["source"]["type"] == "manual"


def test_normal_games_certify_the_wheels_numbers(tmp_path):
    async def scenario(studio, sim, table):
        # a forced game voided by the judge (too few revolutions on a loaded machine) is forced again
        for number in ("17", "0"):
            for _ in range(5):
                seen = len(results(studio)), len(voids(studio))
                sim.force_next_number(number)
                await until(
                    lambda seen=seen: (len(results(studio)), len(voids(studio))) != seen, what="the next game"
                )
                if len(results(studio)) > seen[0]:
                    break

    studio = run(tmp_path, scenario)
    got = results(studio)
    assert [m["result"]["number"] for m in got[:2]] == ["17", "0"]
    zero = got[1]["outcome"]["winning_bets"]
    assert all(b["type"] != "even_money" for b in zero)  # on 0 every even-money bet loses
    assert [m["round_number"] for m in got] == sorted(m["round_number"] for m in got)
    assert not voids(studio)


def test_miss_spin_voids_acknowledges_and_the_respin_certifies(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: table.round and table.round.state.value == "betting_open", what="a round")
        sim.inject("miss_spin")
        await until(lambda: voids(studio, "miss_spin"), what="miss-spin void")
        await until(lambda: results(studio), what="a result after the re-spin")

    studio = run(tmp_path, scenario)
    void = voids(studio, "miss_spin")[0]
    assert void["result"] is None and void["reason"]["message"]
    assert any(
        c["command"] == "acknowledge_void" for c in records(studio, "device_command")
    )  # *R on the wire
    # the voided round is never certified later
    assert void["round_id"] not in {m["round_id"] for m in results(studio)}


def test_sensor_fault_voids_and_nothing_is_certified(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: table.round and table.round.state.value == "in_play", what="a round in play")
        sim.inject("sensor_fault")
        await until(lambda: voids(studio), what="a void")
        await asyncio.sleep(0.5)

    studio = run(tmp_path, scenario)
    assert voids(studio)[0]["reason"]["code"] == "wheel_fault"
    assert not results(studio)


def test_power_down_mid_game_voids_pauses_and_recovers(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: table.round and table.round.state.value == "in_play", what="a round in play")
        sim.power_loss()
        await until(lambda: voids(studio), what="a void")
        await until(lambda: table.paused_reason, what="the table paused")
        assert "no data" in table.paused_reason
        paused_round = table.round.round_id
        sim.restore_power()
        await until(lambda: table.paused_reason is None, what="the table running again")
        await until(
            lambda: any(m["round_id"] != paused_round for m in results(studio)),
            what="a result after power returns",
        )

    studio = run(tmp_path, scenario, options={"silence_timeout": 0.5})
    v = voids(studio)[0]
    assert v["reason"]["code"] in ("device_lost", "wheel_powered_down")
    states = [s["state"] for s in records(studio, "table_status")]
    assert states[:2] == ["paused", "running"], (
        states
    )  # lost, then back (a last 'paused' comes from the shutdown)
    # the wheel came back at counter 1 and the new games were certified
    assert results(studio)[-1]["source"]["game_counter"] >= 1


def test_garbage_on_the_line_is_journaled_and_play_goes_on(tmp_path):
    async def scenario(studio, sim, table):
        for _ in range(5):
            sim.inject("garbage")
            await asyncio.sleep(0.05)
        await until(lambda: len(results(studio)) >= 2, what="results despite garbage")

    studio = run(tmp_path, scenario)
    unknown = [e for e in records(studio, "device_event") if e["kind"] == "device_unknown"]
    assert unknown
    assert not voids(studio)


def test_no_ball_voids(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: table.round and table.round.state.value == "betting_open", what="a round")
        sim.inject("no_ball")
        await until(lambda: voids(studio), what="a void")

    studio = run(tmp_path, scenario, settings={"no_ball_tolerance_s": 0.05})
    assert voids(studio)[0]["reason"]["code"] == "no_ball"
    assert not [m for m in results(studio) if m["round_id"] == voids(studio)[0]["round_id"]]


def test_same_number_twice_is_two_results_and_launch_retry_is_only_noted(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: table.round, what="a round")
        sim.inject("launch_retry")
        sim.inject("repeat_result")
        await until(lambda: len(results(studio)) >= 3, what="three results")

    studio = run(tmp_path, scenario)
    numbers = [m["result"]["number"] for m in results(studio)]
    assert any(a == b for a, b in itertools.pairwise(numbers)), numbers
    assert any(n["code"] == "launch_retry" for n in records(studio, "note"))
    assert not voids(studio)


def test_correction_is_a_new_signed_version(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: results(studio), what="a result")
        first = results(studio)[0]
        wrong = "1" if first["result"]["number"] != "1" else "2"
        import pytest

        with pytest.raises(ValueError, match="four eyes"):
            table.correct(first["round_id"], {"number": wrong}, approved_by=["ann"], reason="x")
        with pytest.raises(ValueError):
            table.correct(first["round_id"], {"number": "37"}, approved_by=["ann", "bob"], reason="x")
        table.correct(
            first["round_id"], {"number": wrong}, approved_by=["ann", "bob"], reason="camera review"
        )
        await until(lambda: [m for m in feed(studio) if m["kind"] == "correction"], what="the correction")

    studio = run(tmp_path, scenario)
    corr = next(m for m in feed(studio) if m["kind"] == "correction")
    first = results(studio)[0]
    assert corr["round_id"] == first["round_id"] and corr["version"] == 2
    assert corr["source"]["people"] == ["ann", "bob"] and corr["reason"]["message"] == "camera review"
    assert corr["result"]["number"] != first["result"]["number"]
    history = studio.round_history(first["round_id"])
    assert history["round"]["version"] == 2


def test_a_dead_journal_writer_holds_every_table_and_says_why(tmp_path) -> None:
    import os
    import signal

    seen: list[dict] = []

    async def scenario(studio: Studio, sim, table) -> None:
        table.listeners.append(
            lambda what, data: seen.append({"what": what, **data}) if what == "status" else None
        )
        await until(lambda: results(studio), what="a first certified result")
        os.kill(studio.journal._sink.pid, signal.SIGKILL)  # the OOM killer, say
        await until(lambda: table.paused_reason and "journal stopped" in table.paused_reason, what="the hold")
        assert any("journal stopped" in (s.get("reason") or "") for s in seen)  # the console was told
        assert table.snapshot()["status"] == "paused"
        certified = len(results(studio))
        await asyncio.sleep(60 / 60 * 2)  # two more spins' worth at 60x: the wheel keeps talking
        assert len(results(studio)) == certified  # nothing judged, nothing certified without a journal

    studio = make_studio(tmp_path)

    async def main() -> None:
        studio.start(asyncio.get_running_loop())
        try:
            await scenario(studio, studio.simulator("t1"), studio.tables["t1"])
        finally:
            await asyncio.to_thread(studio.stop)  # and the shutdown does not hang on the dead writer

    asyncio.run(main())
    report = verify_journal(studio.data_dir)
    assert report.ok, report.error  # everything the writer said was durable is intact
