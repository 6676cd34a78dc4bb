"""A result entered by hand against an SS2 wheel on a real pty (the studio's own driver reads it).

Issue 23, item 1: in "no more bets" a dealer entered 17, a supervisor approved it and it went out at once; the
wheel read 19 for the same game 16 s later and that reading was dropped. Now: the result by hand is refused
while the wheel can still report unless the dealer declares it failed for the round (with a supervisor, and
journaled); the wheel's late reading is journaled and shown beside the result by hand; a different one opens a
correction that a supervisor settles, a matching one is journaled as a confirmation.
"""

from __future__ import annotations

import pytest
from journal_records import records
from manual_helpers import (
    DEALER,
    SUPERVISOR,
    SUPERVISOR2,
    feed,
    run_wheel,
    status,
    until,
    wheel_in_no_more_bets,
)

from studio.rounds import RoundError


def test_a_result_by_hand_is_refused_while_the_wheel_can_still_report(tmp_path) -> None:
    async def scenario(studio, wheel, table) -> None:
        await wheel_in_no_more_bets(wheel, table, 11)
        with pytest.raises(RoundError, match="can still report") as refused:
            table.manual_result_by({"number": "17"}, DEALER, SUPERVISOR, "the ball is about to drop")
        assert "declares the device failed" in str(refused.value) and "t1/main" in str(refused.value)
        assert table.round.state.value == "in_play" and table.round.result is None
        # the wheel was right to be waited for: its number is certified as usual
        wheel.send(status(5, 11, "19"))
        await until(lambda: feed(studio, "result"), "the wheel's result")

    studio = run_wheel(tmp_path, scenario)
    assert [m["result"]["number"] for m in feed(studio, "result")] == ["19"]
    assert not [x for x in records(studio, "operator_action") if x["action"] == "manual_result"]


def test_declaring_the_wheel_failed_needs_a_supervisor_and_a_reason(tmp_path) -> None:
    async def scenario(studio, wheel, table) -> None:
        await wheel_in_no_more_bets(wheel, table, 11)
        with pytest.raises(RoundError, match="supervisor"):
            table.manual_result_by(
                {"number": "17"}, DEALER, None, "by hand", device_failed="the sensor is dead"
            )
        with pytest.raises(RoundError, match="why the device has failed"):
            table.manual_result_by({"number": "17"}, DEALER, SUPERVISOR, "by hand", device_failed=" ")
        assert table.round.result is None and not feed(studio, "result")
        table.manual_result_by(
            {"number": "17"}, DEALER, SUPERVISOR, "by hand", device_failed="the sensor is dead"
        )

    studio = run_wheel(tmp_path, scenario)
    declared = [x for x in records(studio, "operator_action") if x["action"] == "declare_device_failed"]
    assert len(declared) == 1
    d = declared[0]
    assert (d["by"], d["approved_by"], d["reason"]) == (DEALER, SUPERVISOR, "the sensor is dead")
    assert d["devices"] == [{"device_id": "t1/main", "kind": "cammegh-ss2", "serial_number": "W-1"}]
    result = feed(studio, "result")[-1]
    assert result["result"]["number"] == "17" and result["source"]["people"] == [DEALER, SUPERVISOR]


def test_a_late_reading_that_differs_opens_a_correction_a_supervisor_settles(tmp_path) -> None:
    async def scenario(studio, wheel, table) -> None:
        await wheel_in_no_more_bets(wheel, table, 11)
        r = table.manual_result_by(
            {"number": "17"}, DEALER, SUPERVISOR, "the ball is about to drop", device_failed="no reading"
        )
        assert r.state.value == "certified"
        wheel.send(status(5, 11, "19"))  # the wheel reads 19 for the same game
        late = await until(lambda: table.snapshot()["late_readings"], "the late reading on the table view")
        entry = late[0]
        assert entry["status"] == "correction_open" and entry["matches"] is False
        assert entry["reading"]["number"] == "19" and entry["manual"]["result"]["number"] == "17"
        assert entry["manual"]["people"] == [DEALER, SUPERVISOR]
        assert entry["device"] == {"device_id": "t1/main", "kind": "cammegh-ss2", "serial_number": "W-1"}
        assert entry["declared"]["reason"] == "no reading"
        assert not feed(studio, "correction")  # open, not published: a supervisor settles it
        with pytest.raises(RoundError, match="second person"):
            table.resolve_reading_by(r.round_id, "device", SUPERVISOR2, SUPERVISOR2, "the wheel was right")
        out = table.resolve_reading_by(r.round_id, "device", SUPERVISOR2, SUPERVISOR, "the wheel was right")
        assert out["status"] == "corrected" and out["round"]["version"] == 2
        assert table.snapshot()["late_readings"][0]["status"] == "corrected"
        with pytest.raises(RoundError, match="no open correction"):
            table.resolve_reading_by(r.round_id, "manual", SUPERVISOR2, SUPERVISOR, "twice")

    studio = run_wheel(tmp_path, scenario)
    assert [m["result"]["number"] for m in feed(studio, "result")] == [
        "17"
    ]  # one result, then its correction
    (late,) = records(studio, "late_reading")
    assert late["status"] == "correction_open" and late["reading"]["number"] == "19"
    (correction,) = feed(studio, "correction")
    assert correction["result"]["number"] == "19" and correction["version"] == 2
    src = correction["source"]
    assert src["type"] == "manual" and src["people"] == [SUPERVISOR2, SUPERVISOR]
    assert src["readings"]["manual"]["result"]["number"] == "17"
    assert src["readings"]["manual"]["people"] == [DEALER, SUPERVISOR]
    assert src["readings"]["device"]["result"]["number"] == "19"
    assert src["readings"]["device"]["serial_number"] == "W-1"
    (resolved,) = records(studio, "late_reading_resolved")
    assert (resolved["keep"], resolved["by"], resolved["approved_by"]) == ("device", SUPERVISOR2, SUPERVISOR)


def test_a_late_reading_kept_by_hand_publishes_nothing(tmp_path) -> None:
    async def scenario(studio, wheel, table) -> None:
        await wheel_in_no_more_bets(wheel, table, 11)
        r = table.manual_result_by({"number": "17"}, DEALER, SUPERVISOR, "by hand", device_failed="misread")
        wheel.send(status(5, 11, "19"))
        await until(lambda: table.readings.open_corrections(), "the open correction")
        out = table.resolve_reading_by(r.round_id, "manual", SUPERVISOR2, SUPERVISOR, "the ball was in 17")
        assert out["status"] == "kept_manual" and out["round"] is None

    studio = run_wheel(tmp_path, scenario)
    assert not feed(studio, "correction")
    (resolved,) = records(studio, "late_reading_resolved")
    assert resolved["keep"] == "manual" and resolved["readings"]["device"]["result"]["number"] == "19"


def test_a_late_reading_that_matches_is_journaled_as_a_confirmation(tmp_path) -> None:
    async def scenario(studio, wheel, table) -> None:
        await wheel_in_no_more_bets(wheel, table, 11)
        table.manual_result_by({"number": "17"}, DEALER, SUPERVISOR, "by hand", device_failed="frozen")
        wheel.send(status(5, 11, "17"))
        await until(lambda: records(studio, "late_reading"), "the late reading journaled")
        assert table.snapshot()["late_readings"][0]["status"] == "confirmed"
        assert not table.readings.open_corrections()
        # the wheel goes on: its next game is a round of its own, certified from the wheel
        wheel.send(status(2, 12), status(3, 12), status(4, 12), status(5, 12, "3"))
        await until(lambda: len(feed(studio, "result")) == 2, "the next game's result")

    studio = run_wheel(tmp_path, scenario)
    (late,) = records(studio, "late_reading")
    assert late["status"] == "confirmed" and late["matches"] is True
    assert not feed(studio, "correction")
    assert [m["source"]["type"] for m in feed(studio, "result")] == ["manual", "device"]


def test_a_reading_of_a_round_declared_failed_before_its_result_by_hand_is_set_aside(tmp_path) -> None:
    async def scenario(studio, wheel, table) -> None:
        await wheel_in_no_more_bets(wheel, table, 11)
        r = table.round
        table.readings.declare(r, DEALER, SUPERVISOR, "the ball sensor is dead", table.readings.reporting())
        wheel.send(status(5, 11, "19"))
        await until(lambda: records(studio, "late_reading"), "the reading set aside")
        assert table.round.state.value == "in_play" and not feed(studio, "result")  # not taken
        table.manual_result_by({"number": "17"}, DEALER, SUPERVISOR, "by hand")  # declared already
        assert table.readings.open_corrections()[0]["reading"]["number"] == "19"

    studio = run_wheel(tmp_path, scenario)
    assert [x["status"] for x in records(studio, "late_reading")] == ["waiting_for_manual", "correction_open"]
    assert [m["result"]["number"] for m in feed(studio, "result")] == ["17"]


def test_the_wheel_ending_a_game_settled_by_hand_without_a_number_is_journaled_beside_it(tmp_path) -> None:
    async def scenario(studio, wheel, table) -> None:
        await wheel_in_no_more_bets(wheel, table, 11)
        table.manual_result_by({"number": "17"}, DEALER, SUPERVISOR, "by hand", device_failed="no ball seen")
        wheel.send(status(6, 11))  # the wheel stops during the game: the judge voids it, no number comes
        late = await until(lambda: table.snapshot()["late_readings"], "the judge's word beside the result")
        assert late[0]["status"] == "no_reading" and late[0]["judge"]["code"] == "wheel_powered_down"
        assert late[0]["manual"]["result"]["number"] == "17"
        assert not table.table_holds and not table.readings.open_corrections()

    studio = run_wheel(tmp_path, scenario)
    (late,) = records(studio, "late_reading")
    assert late["status"] == "no_reading" and late["judge"]["decision"] == "void"
    assert [m["result"]["number"] for m in feed(studio, "result")] == ["17"] and not feed(studio, "void")


def test_an_open_correction_is_still_open_after_a_restart(tmp_path) -> None:
    async def first(studio, wheel, table) -> None:
        await wheel_in_no_more_bets(wheel, table, 11)
        table.manual_result_by({"number": "17"}, DEALER, SUPERVISOR, "by hand", device_failed="frozen")
        wheel.send(status(5, 11, "19"))
        await until(lambda: table.readings.open_corrections(), "the open correction")

    run_wheel(tmp_path, first)
    seen: dict = {}

    async def second(studio, wheel, table) -> None:
        (entry,) = table.snapshot()["late_readings"]
        seen["entry"] = entry
        table.resolve_reading_by(entry["round_id"], "device", SUPERVISOR2, SUPERVISOR, "the video shows 19")

    studio = run_wheel(tmp_path, second)  # the same data folder: a restart
    assert seen["entry"]["status"] == "correction_open" and seen["entry"]["reading"]["number"] == "19"
    (correction,) = feed(studio, "correction")
    assert correction["result"]["number"] == "19" and correction["round_id"] == seen["entry"]["round_id"]
