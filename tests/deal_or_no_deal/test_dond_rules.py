"""Deal or No Deal Live: the result and its outcome (000:L1958-2008), the judge over briefcase reads, and the
scanner's lines."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from devices.balls.events import BallRead
from devices.briefcases.events import BriefcaseRead, BriefcaseUnreadable
from devices.briefcases.scanner import BriefcaseScannerDriver
from recognition.deal_or_no_deal import stage_of
from recognition.game import Hold, Note, Release, ResultReady, RoundSignal
from recognition.games import GAMES

DOND = GAMES["deal_or_no_deal"]
T = datetime(2026, 1, 1, tzinfo=UTC)
DEV = "dond-1/scanner"


def read(n: int | None, tag: str | None = None) -> BriefcaseRead:
    return BriefcaseRead(device_id=DEV, at=T, tag=tag or f"CASE{n:02d}", number=n)


def test_stages_open_3_4_4_3_then_the_last_two() -> None:
    assert [stage_of(i) for i in range(16)] == [1] * 3 + [2] * 4 + [3] * 4 + [4] * 3 + [5] * 2


def test_the_outcome_of_random_shows() -> None:
    rng = random.Random(16)
    for _ in range(500):
        opened = list(range(1, 17))
        rng.shuffle(opened)
        out = DOND.evaluate({"opened": opened})["outcome"]
        assert out["stages"] == [opened[0:3], opened[3:7], opened[7:11], opened[11:14]]
        assert out["closed_at_offer"][0] == sorted(opened[3:]) and out["closed_at_offer"][3] == sorted(
            opened[14:]
        )
        assert out["player_briefcase"] == opened[15] and out["other_briefcase"] == opened[14]
        assert {w["bet"]: w["briefcase"] for w in out["winning_bets"]} == {
            "no_deal": opened[15],
            "switch": opened[14],
        }


@pytest.mark.parametrize(
    "bad",
    [
        {},
        {"opened": list(range(1, 16))},
        {"opened": list(range(1, 16)) + [15]},
        {"opened": list(range(16))},
        {"opened": [str(n) for n in range(1, 17)]},
        {"opened": "1-16"},
    ],
)
def test_a_wrong_result_is_refused(bad: dict) -> None:
    with pytest.raises(ValueError):
        DOND.validate_result(bad)


def started():
    judge = DOND.new_judge()
    judge.feed(RoundSignal(signal="round_opened", round_number=1, at=T))
    judge.feed(RoundSignal(signal="betting_closed", round_number=1, at=T))
    return judge


def test_sixteen_reads_give_the_result_with_an_offer_after_each_stage() -> None:
    judge = started()
    order = [5, 9, 1, 16, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13, 14, 15]
    decisions = [d for n in order for d in judge.feed(read(n))]
    assert [d.message for d in decisions if isinstance(d, Note)] == [
        f"stage {s} opened: the Banker's offer" for s in (1, 2, 3, 4)
    ]
    (ready,) = [d for d in decisions if isinstance(d, ResultReady)]
    assert ready.result == {"opened": order} and DOND.validate_result(ready.result) == ready.result


def test_a_ball_reader_may_read_the_cards() -> None:
    judge = started()
    decisions = [
        d for n in range(1, 17) for d in judge.feed(BallRead(device_id=DEV, at=T, tag=f"T{n}", ball=str(n)))
    ]
    assert [d.result for d in decisions if isinstance(d, ResultReady)] == [{"opened": list(range(1, 17))}]


def test_a_no_read_holds_until_the_card_is_read() -> None:
    judge = started()
    judge.feed(read(3))
    (hold,) = judge.feed(BriefcaseUnreadable(device_id=DEV, at=T, reason="NOREAD"))
    assert isinstance(hold, Hold) and hold.code == "misread"
    assert [type(d) for d in judge.feed(read(7))] == [Release]


def test_a_card_scanned_twice_in_a_row_is_noted_and_a_repeat_holds() -> None:
    judge = started()
    judge.feed(read(3))
    assert [type(d) for d in judge.feed(read(3))] == [Note]
    judge.feed(read(4))
    (hold,) = judge.feed(read(3))
    assert isinstance(hold, Hold) and hold.code == "repeat"
    assert judge.feed(read(5)) == []  # the opening is stopped: nothing more counts


@pytest.mark.parametrize(("event", "code"), [(read(None, "CASE99"), "unknown_card")])
def test_an_unknown_card_holds(event: BriefcaseRead, code: str) -> None:
    (hold,) = started().feed(event)
    assert isinstance(hold, Hold) and hold.code == code


def test_a_briefcase_opened_before_betting_closed_holds() -> None:
    judge = DOND.new_judge()
    judge.feed(RoundSignal(signal="round_opened", round_number=1, at=T))
    (hold,) = judge.feed(read(1))
    assert isinstance(hold, Hold) and hold.code == "early_open"


def test_the_scanner_lines() -> None:
    events: list = []
    driver = BriefcaseScannerDriver("t/scanner", "/dev/null", events.append, fold_s=0)
    (e,) = driver.handle_line("CASE07")
    assert isinstance(e, BriefcaseRead) and e.number == 7
    (e,) = driver.handle_line("12")
    assert isinstance(e, BriefcaseRead) and e.number == 12
    (e,) = driver.handle_line("CASE17")
    assert isinstance(e, BriefcaseRead) and e.number is None
    (e,) = driver.handle_line("NOREAD")
    assert isinstance(e, BriefcaseUnreadable)
    assert driver.handle_line("HELLO SCANNER")[0].kind == "device_unknown"
    folding = BriefcaseScannerDriver("t/scanner", "/dev/null", events.append, fold_s=60)
    assert len(folding.handle_line("CASE01")) == 1 and folding.handle_line("CASE01") == []


def test_the_manual_result_dialog_shows_an_example_the_game_takes() -> None:
    from dealer_ui.result_forms import result_form

    form = result_form(DOND)
    assert form["type"] == "json" and DOND.validate_result(form["example"]) == form["example"]


def test_the_camera_barcode_reader_reads_the_number_cards() -> None:
    """A camera over the briefcases through the existing camera barcode reader: each card's Code128."""
    from devices.balls.camera_reader import CameraBallReaderDriver
    from simulators.balls import BallCameraSimulator

    camera = BallCameraSimulator(machine_id="dond-camera-test")
    try:
        driver = CameraBallReaderDriver(
            "dond-1/camera",
            "frames+tcp://127.0.0.1:9",
            lambda e: None,
            ball_set="1-16",
            tag_format="CASE{n:02d}",
        )
        judge = started()
        order = [12, 3, 7, 1, 16, 2, 4, 5, 6, 8, 9, 10, 11, 13, 14, 15]
        decisions = []
        for i, n in enumerate(order):
            (read,) = driver.handle_frame(camera.frame(f"CASE{n:02d}"), now=float(10 * i))
            decisions += judge.feed(read)
        assert [d.result for d in decisions if isinstance(d, ResultReady)] == [{"opened": order}]
    finally:
        camera.stop()
