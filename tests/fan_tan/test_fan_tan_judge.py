"""Fan Tan's judge: a count after betting closed is the result; an early count, a no-read and a lost counter
hold; and the bead counter's line protocol."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from devices.beads.counter import classify_counter_line
from devices.beads.events import BeadCount, BeadCountUnreadable
from devices.events import DeviceConnected, DeviceDisconnected
from recognition.game import Hold, Note, Release, ResultReady, RoundSignal
from recognition.games import GAMES

T = datetime(2026, 1, 1, tzinfo=UTC)
DEV = "fan-tan-1/counter"


def signal(kind: str, n: int = 1) -> RoundSignal:
    return RoundSignal(signal=kind, round_number=n, at=T)  # type: ignore[arg-type]


def count(n: int) -> BeadCount:
    return BeadCount(device_id=DEV, at=T, count=n, raw=f"COUNT {n}")


def opened_and_closed():
    judge = GAMES["fan_tan"].new_judge()
    assert judge.feed(signal("round_opened")) == [] and judge.feed(signal("betting_closed")) == []
    return judge


def test_the_first_count_after_betting_closed_is_the_result() -> None:
    judge = opened_and_closed()
    (ready,) = judge.feed(count(42))
    assert isinstance(ready, ResultReady) and ready.result == {"result": 2, "beads": 42}
    assert ready.source["device_id"] == DEV
    assert GAMES["fan_tan"].validate_result(ready.result) == ready.result
    (note,) = judge.feed(count(43))  # a second count changes nothing
    assert isinstance(note, Note)


def test_a_count_while_betting_is_open_holds_and_nothing_is_certified() -> None:
    judge = GAMES["fan_tan"].new_judge()
    judge.feed(signal("round_opened"))
    (hold,) = judge.feed(count(12))
    assert isinstance(hold, Hold) and hold.code == "early_count"
    judge.feed(signal("betting_closed"))
    assert not [d for d in judge.feed(count(12)) if isinstance(d, ResultReady)]


def test_a_no_read_holds_until_the_dealer_counts_again() -> None:
    judge = opened_and_closed()
    (hold,) = judge.feed(BeadCountUnreadable(device_id=DEV, at=T, reason="overlap", raw="NOREAD"))
    assert isinstance(hold, Hold) and hold.code == "misread"
    release, ready = judge.feed(count(8))
    assert isinstance(release, Release) and release.code == "misread"
    assert isinstance(ready, ResultReady) and ready.result["result"] == 4


def test_a_lost_counter_holds_and_its_return_releases() -> None:
    judge = opened_and_closed()
    (hold,) = judge.feed(DeviceDisconnected(device_id=DEV, at=T, reason="cable"))
    assert isinstance(hold, Hold) and hold.code == "device_lost"
    assert judge.feed(DeviceDisconnected(device_id=DEV, at=T, reason="still out")) == []  # one hold
    (release,) = judge.feed(DeviceConnected(device_id=DEV, at=T, port="/dev/pts/9"))
    assert isinstance(release, Release)


def test_a_count_of_no_beads_holds() -> None:
    (hold,) = opened_and_closed().feed(count(0))
    assert isinstance(hold, Hold) and hold.code == "no_beads"


def test_a_count_between_rounds_is_only_noted() -> None:
    judge = GAMES["fan_tan"].new_judge()
    assert [type(d) for d in judge.feed(count(5))] == [Note]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("COUNT 37", ("count", 37)),
        ("count=5", ("count", 5)),
        ("COUNT:120", ("count", 120)),
        ("NOREAD", ("unreadable", None)),
        ("ERR overlap", ("unreadable", None)),
        ("READY v1.2", ("unknown", "READY v1.2")),
        ("COUNT -3", ("unknown", "COUNT -3")),
    ],
)
def test_the_counter_line_protocol(line: str, expected: tuple) -> None:
    what, value = classify_counter_line(line)
    assert what == expected[0]
    if expected[1] is not None:
        assert value == expected[1]
