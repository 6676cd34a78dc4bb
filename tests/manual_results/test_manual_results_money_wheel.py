"""A result entered by hand at a dealer-paced money wheel (Wheel of Fortune) read by an encoder on its simulator
(real Modbus TCP): refused while the encoder can still report, unless declared failed; the wheel's reading
after the result by hand is journaled and compared (the judge still reads the spin of the round settled by
hand); no declaration is needed once the encoder is gone."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "money_wheel"))
from journal_records import records
from manual_helpers import DEALER, SUPERVISOR, until
from moneywheel_helpers import feed, results, run

from studio.rounds import RoundError

SPEED = 5  # the presenter spins 0.06 s after betting closes; the wheel then turns for seconds


def _at_start_play(table, action):
    """Run `action(table)` on the loop just after the round's play starts (before the wheel can stop)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()

    def listener(what, data):
        if what == "round" and data.get("transition") == "start_play" and not done.done():

            def run_it():
                try:
                    done.set_result(action(table))
                except Exception as exc:  # noqa: BLE001 - handed to the test
                    done.set_exception(exc)

            loop.call_soon(run_it)

    table.listeners.append(listener)
    return done


def _label(table, index):
    return table.game.default_layout().labels()[index]


def test_refused_while_the_encoder_can_report_then_the_wheel_is_certified(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: table.readings.reporting(), "the encoder connected")

        def try_by_hand(t):
            with pytest.raises(RoundError, match="can still report") as refused:
                t.manual_result_by({"segment": _label(t, 2)}, DEALER, SUPERVISOR, "the wheel is slow")
            return str(refused.value)

        pending = _at_start_play(table, try_by_hand)
        table.open_round_by(DEALER)
        table.close_betting_by(DEALER)
        assert "wheel-encoder w1/encoder" in await pending
        await until(lambda: results(studio), "the wheel's own result")

    studio = run(tmp_path, "wheel_of_fortune", scenario, speed=SPEED, auto_round=None)
    (result,) = results(studio)
    assert result["source"]["type"] == "device" and result["source"]["device_id"] == "w1/encoder"


def test_the_wheels_reading_after_a_result_by_hand_opens_a_correction(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: table.readings.reporting(), "the encoder connected")
        sim.force_next_segment(5)  # the wheel stops on segment 5; the people enter segment 2

        def by_hand(t):
            return t.manual_result_by(
                {"segment": _label(t, 2)}, DEALER, SUPERVISOR, "by hand", device_failed="encoder frozen"
            )

        pending = _at_start_play(table, by_hand)
        table.open_round_by(DEALER)
        table.close_betting_by(DEALER)
        assert (await pending).state.value == "certified"
        late = await until(lambda: table.snapshot()["late_readings"], "the wheel's late reading")
        assert late[0]["status"] == "correction_open"
        assert late[0]["reading"]["segment"] == _label(table, 5)
        assert late[0]["manual"]["result"]["segment"] == _label(table, 2)
        assert late[0]["device"]["device_id"] == "w1/encoder"

    studio = run(tmp_path, "wheel_of_fortune", scenario, speed=SPEED, auto_round=None)
    assert [m["source"]["type"] for m in results(studio)] == ["manual"]
    (late,) = records(studio, "late_reading")
    assert late["status"] == "correction_open" and late["manual"]["people"] == [DEALER, SUPERVISOR]
    assert not [m for m in feed(studio) if m["kind"] == "correction"]


def test_the_wheels_matching_reading_is_a_confirmation(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: table.readings.reporting(), "the encoder connected")
        sim.force_next_segment(5)

        def by_hand(t):
            return t.manual_result_by(
                {"segment": _label(t, 5)}, DEALER, SUPERVISOR, "by hand", device_failed="encoder frozen"
            )

        pending = _at_start_play(table, by_hand)
        table.open_round_by(DEALER)
        table.close_betting_by(DEALER)
        await pending
        await until(lambda: records(studio, "late_reading"), "the wheel's late reading")

    studio = run(tmp_path, "wheel_of_fortune", scenario, speed=SPEED, auto_round=None)
    (late,) = records(studio, "late_reading")
    assert late["status"] == "confirmed" and late["matches"] is True


def test_no_declaration_once_the_encoder_is_gone(tmp_path):
    async def scenario(studio, sim, table):
        await until(lambda: table.readings.reporting(), "the encoder connected")
        table.open_round_by(DEALER)
        slot = table.slots.by_role("encoder")
        await asyncio.to_thread(slot.driver.stop)  # the encoder's link is gone: it cannot report this round
        await until(lambda: not table.readings.reporting(), "the encoder not connected")
        r = table.manual_result_by({"segment": _label(table, 2)}, DEALER, SUPERVISOR, "the encoder is off")
        assert r.state.value == "certified"

    studio = run(tmp_path, "wheel_of_fortune", scenario, speed=SPEED, auto_round=None)
    assert not [x for x in records(studio, "operator_action") if x["action"] == "declare_device_failed"]
    assert [m["source"]["type"] for m in results(studio)] == ["manual"]
