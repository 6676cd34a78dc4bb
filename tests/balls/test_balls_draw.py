"""Whole draws end to end: the Modbus machine simulator (TCP, and RTU on a pty pair), the RFID reader
simulator on a pty, the real drivers and the real DrawJudge. Every fault holds (or voids) the draw and a
wrong draw is never certified."""

from __future__ import annotations

import pytest

from recognition.game import ResultReady


def test_clean_draw_over_tcp_is_certified_in_draw_order(harness):
    h = harness(transport="tcp")
    h.open_and_close()
    h.pump(lambda: h.results(), what="a result")
    result = h.results()[0]
    assert result.result["balls"] == h.drawn_labels()
    assert len(set(result.result["balls"])) == 5
    assert result.source["device_id"] == "t1/machine" and result.source["reader_device_id"] == "t1/reader"
    assert result.source["balls_released"] == 5 and len(result.source["tags"]) == 5
    assert not h.hold_codes() and not h.command_errors
    assert h.commands == ["start_blower"] + ["release_ball"] * 5 + ["stop_blower"]
    h.pump(lambda: not h.machine_sim.snapshot()["blower_cmd"], what="the blower stopped")


def test_clean_draw_over_rtu_on_a_pty(harness):
    h = harness(transport="rtu", driver={"poll_interval": 0.02})
    h.open_and_close()
    h.pump(lambda: h.results(), what="a result")
    assert h.results()[0].result["balls"] == h.drawn_labels()
    assert h.machine.url.startswith("modbus-rtu:///dev/pts/")
    assert not h.hold_codes()


def test_two_rounds_return_the_balls_to_the_drum(harness):
    h = harness(ball_set="1-6", draw_count=4)
    for _ in range(2):
        h.open_and_close()
        h.pump(lambda: len(h.results()) == h.round_number, what="a result")
        h.end_round()
        h.settle(1.2)  # the betting time of the next round: longer than the reader's fold window
    assert [len(r.result["balls"]) for r in h.results()] == [4, 4]
    assert not h.hold_codes()


@pytest.mark.parametrize("transport", ["tcp", "rtu"])
def test_two_balls_released_at_once_hold_and_stop_the_draw(harness, transport):
    h = harness(transport=transport)
    h.machine_sim.inject("double_release")
    h.open_and_close()
    h.pump(lambda: h.hold_codes(), what="a hold")
    h.settle(0.4)
    assert h.hold_codes() == ["two_balls"]  # the counter went up by 2 in one step
    assert not h.results()
    assert h.commands.count("release_ball") == 1  # the draw stopped at once
    assert h.commands[-1] == "stop_blower"
    assert h.judge.phase == "stopped"


def test_a_jammed_ball_holds_and_the_draw_goes_on_after_the_jam_is_cleared_but_stays_held(harness):
    h = harness(judge={"jam_timeout_s": 0.3})
    h.machine_sim.inject("jam")
    h.open_and_close()
    h.pump(lambda: "jam" in h.hold_codes(), what="the jam hold")
    assert h.commands.count("release_ball") == 1
    h.machine_sim.clear_jam()
    h.pump(lambda: h.results(), what="the draw after the jam")
    assert h.results()[0].result["balls"] == h.drawn_labels()
    assert "jam" not in h.release_codes()  # the dealer releases it, not the judge


def test_a_misread_holds_and_a_re_read_releases_the_hold(harness):
    h = harness()
    h.machine_sim.inject("misread")
    h.open_and_close()
    h.pump(lambda: "misread" in h.hold_codes(), what="the misread hold")
    assert not h.results()
    h.machine_sim.reread()  # the dealer presents the ball to the reader again
    h.pump(lambda: h.results(), what="the draw after the re-read")
    assert "misread" in h.release_codes()
    balls = h.results()[0].result["balls"]
    assert len(balls) == 5 and len(set(balls)) == 5
    assert balls == [b for b in h.drawn_labels() if not b.startswith("<")]


def test_an_unknown_tag_holds_and_is_never_certified(harness):
    h = harness()
    h.machine_sim.inject("unknown_tag")
    h.open_and_close()
    h.pump(lambda: "unknown_tag" in h.hold_codes(), what="the unknown-tag hold")
    h.settle(0.4)
    assert not h.results()
    assert h.commands.count("release_ball") == 1


@pytest.mark.parametrize("transport", ["tcp", "rtu"])
def test_modbus_link_lost_mid_draw_voids_the_round(harness, transport):
    h = harness(
        transport=transport, driver={"timeout": 0.1, "failures_before_lost": 2}, judge={"mix_seconds": 0.3}
    )
    h.open_and_close()
    h.pump(lambda: "release_ball" in h.commands, what="the first release")
    h.machine_sim.inject("link_lost")
    h.pump(lambda: h.voids(), what="the void")
    assert h.voids()[0].code == "device_lost"
    h.machine_sim.restore_link()
    h.pump(lambda: h.machine.connected, what="the reconnect")
    h.settle(0.3)
    assert not h.results()


def test_link_lost_with_on_link_lost_hold_stops_the_draw_with_a_hold(harness):
    h = harness(driver={"timeout": 0.1, "failures_before_lost": 2}, judge={"on_link_lost": "hold"})
    h.open_and_close()
    h.pump(lambda: "release_ball" in h.commands, what="the first release")
    h.machine_sim.inject("link_lost", seconds=0.5)
    h.pump(lambda: "link_lost" in h.hold_codes(), what="the hold")
    h.pump(lambda: h.machine.connected, what="the reconnect")
    h.settle(0.3)
    assert not h.results() and not h.voids()


def test_a_machine_fault_mid_draw_stops_the_draw(harness):
    h = harness(judge={"mix_seconds": 0.2})
    h.open_and_close()
    h.pump(lambda: "release_ball" in h.commands, what="the first release")
    h.machine_sim.inject("fault", code=2)
    h.pump(lambda: "machine_fault" in h.hold_codes(), what="the fault hold")
    hold = next(d for d in h.decisions if getattr(d, "code", None) == "machine_fault")
    assert "blower motor overload" in hold.message
    assert not h.results()


def test_a_ball_read_without_a_release_is_held(harness):
    h = harness(judge={"mix_seconds": 2.0, "pair_window_s": 0.2})
    h.open_and_close()
    h.pump(lambda: h.judge.phase == "mixing", what="mixing")
    h.reader_sim.present("BALL003")  # someone holds a ball to the reader: no release
    h.pump(lambda: "read_without_release" in h.hold_codes(), what="the hold")
    assert "release_ball" not in h.commands and not h.results()


def test_camera_reader_draw_is_certified(harness):
    h = harness(reader="camera", draw_count=3)
    h.open_and_close()
    h.pump(lambda: h.results(), what="a result")
    assert h.results()[0].result["balls"] == h.drawn_labels()


def test_draw_with_a_real_draw_game(harness):
    from recognition.games import GAMES

    h = harness(game=GAMES["lucky_5"], ball_set="1-36")
    h.open_and_close()
    h.pump(lambda: h.results(), what="a result")
    result = h.results()[0]
    assert isinstance(result, ResultReady)
    canonical = GAMES["lucky_5"].validate_result(result.result)
    assert canonical["balls"] == h.drawn_labels()
