"""The statistics read model folded from journal records: every figure against records written by hand."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import count
from typing import Any

import pytest

from studio.statistics import StatisticsModel, is_fault


class Log:
    def __init__(self) -> None:
        self.model = StatisticsModel()
        self.seq = count(1)

    def add(self, record: str, at: str, table: str | None, round_id: str | None = None, **body: Any) -> None:
        self.model.fold(next(self.seq), at, record, table, round_id, body)

    def open(self, table: str, rid: str, at: str, game: str = "european_roulette") -> None:
        self.add("round_state", at, table, rid, transition="open_round", opened_at=at, game=game)

    def hold(self, table: str, rid: str, at: str, *codes: str) -> None:
        holds = [{"code": c, "message": c} for c in codes]
        self.add("round_state", at, table, rid, transition="hold", holds=holds)

    def result(self, table: str, rid: str, at: str, source: dict[str, Any] | None = None) -> None:
        self.add("result", at, table, rid, game="european_roulette", occurred_at=at, source=source or {})

    def void(self, table: str, rid: str, at: str, code: str) -> None:
        self.add("void", at, table, rid, game="european_roulette", reason={"code": code, "message": "m"})

    def dealer(self, table: str, at: str, who: str | None, outcome: str = "done") -> None:
        action = "dealer_sign_in" if who else "dealer_sign_out"
        self.add("console_action", at, table, action=action, by=who or "sam", dealer=who, outcome=outcome)


def test_rounds_certified_voided_held_and_timed_by_table_and_dealer() -> None:
    log = Log()
    log.dealer("t1", "2026-12-01T10:00:00Z", "dana")
    log.open("t1", "r1", "2026-12-01T10:00:10Z")
    log.hold("t1", "r1", "2026-12-01T10:00:20Z", "misread")
    log.hold("t1", "r1", "2026-12-01T10:00:21Z", "misread", "device_lost")  # misread once per round
    log.result("t1", "r1", "2026-12-01T10:00:40Z", {"type": "device", "device_id": "t1/wheel"})
    log.open("t1", "r2", "2026-12-01T10:01:00Z")
    log.void("t1", "r2", "2026-12-01T10:01:30Z", "too_few_revolutions")
    log.dealer("t1", "2026-12-01T10:02:00Z", "dave")
    log.open("t1", "r3", "2026-12-01T10:02:10Z")
    log.result("t1", "r3", "2026-12-01T10:02:30Z", {"type": "manual", "people": ["dave", "sam"]})
    log.open("t2", "r4", "2026-12-01T10:03:00Z", game="baccarat")

    everything = log.model.query(by="dealer")
    assert everything["rounds"] == 4 and everything["certified"] == 2
    assert everything["voided"] == {"too_few_revolutions": 1}
    assert everything["holds"] == {"device_lost": 1, "misread": 1}
    assert everything["manual_results"] == 1
    assert everything["mean_round_seconds"] == pytest.approx((30 + 20) / 2)
    assert everything["devices"] == {"t1/wheel": {"results": 1, "faults": {}}}
    groups = everything["groups"]
    assert groups["dana"]["rounds"] == 2 and groups["dana"]["certified"] == 1 and groups["dana"]["voided"]
    assert groups["dave"]["rounds"] == 1 and groups["dave"]["manual_results"] == 1
    assert groups[""]["rounds"] == 1  # t2: nobody signed in
    assert log.model.query(game="baccarat")["rounds"] == 1
    assert log.model.query(table="t1", dealer="dave")["certified"] == 1
    assert log.model.query(by="game")["groups"].keys() == {"baccarat", "european_roulette"}


def test_a_refused_sign_in_changes_no_dealer_and_a_sign_out_ends_the_shift() -> None:
    log = Log()
    log.dealer("t1", "2026-12-01T10:00:00Z", "dana")
    log.dealer("t1", "2026-12-01T10:00:01Z", "tom", outcome="refused")
    assert log.model.dealer_at("t1") == "dana"
    log.dealer("t1", "2026-12-01T10:00:02Z", None)
    assert log.model.dealer_at("t1") is None
    log.open("t1", "r1", "2026-12-01T10:00:03Z")
    assert log.model.query(by="dealer")["groups"].keys() == {""}


def test_periods_select_whole_hours() -> None:
    log = Log()
    for i, hour in enumerate(("09", "10", "10", "11", "23")):
        log.open("t1", f"r{i}", f"2026-12-01T{hour}:30:00Z")
    q = log.model.query
    assert q()["rounds"] == 5
    assert (
        q(start=datetime(2026, 12, 1, 10, tzinfo=UTC), end=datetime(2026, 12, 1, 11, tzinfo=UTC))["rounds"]
        == 2
    )
    # an end inside an hour takes that hour in; a start inside an hour too
    assert (
        q(start=datetime(2026, 12, 1, 10, 45, tzinfo=UTC), end=datetime(2026, 12, 1, 11, 5, tzinfo=UTC))[
            "rounds"
        ]
        == 3
    )
    assert (
        q(start=datetime(2026, 12, 1, 23, 10, tzinfo=UTC), end=datetime(2026, 12, 1, 23, 50, tzinfo=UTC))[
            "rounds"
        ]
        == 1
    )
    assert q(by="day")["groups"]["2026-12-01"]["rounds"] == 5
    days = q(by="hour")["groups"]
    assert [days[h]["rounds"] for h in sorted(days)] == [1, 2, 1, 1]


def test_corrections_table_holds_and_device_faults() -> None:
    log = Log()
    log.open("t1", "r1", "2026-12-01T10:00:00Z")
    log.result("t1", "r1", "2026-12-01T10:00:30Z", {"type": "device", "device_id": "t1/shoe"})
    log.add("correction", "2026-12-01T10:05:00Z", "t1", "r1", game="baccarat", source={"type": "manual"})
    log.add("note", "2026-12-01T10:06:00Z", "t1", code="table_hold", message="shoe_lost: Contact was lost.")
    for kind in (
        "device_disconnected",
        "card_unreadable",
        "card_unreadable",
        "card_drawn",
        "device_connected",
    ):
        log.add("device_event", "2026-12-01T10:07:00Z", "t1", kind=kind, device_id="t1/shoe")
    q = log.model.query()
    assert q["corrections"] == 1 and q["certified"] == 1
    assert q["table_holds"] == {"shoe_lost": 1}
    assert q["device_faults"] == {"card_unreadable": 2, "device_disconnected": 1}
    assert q["devices"]["t1/shoe"] == {
        "results": 1,
        "faults": {"card_unreadable": 2, "device_disconnected": 1},
    }


@pytest.mark.parametrize(
    ("kind", "fault"),
    [
        ("device_disconnected", True),
        ("device_unknown", True),
        ("ball_unreadable", True),
        ("wheel_encoder_fault", True),
        ("wheel_warning", True),
        ("device_connected", False),
        ("wheel_result", False),
        ("camera_frame", False),
    ],
)
def test_what_counts_as_a_device_fault(kind: str, fault: bool) -> None:
    assert is_fault(kind) is fault


def test_a_bad_grouping_is_refused() -> None:
    with pytest.raises(ValueError, match="by must be one of"):
        StatisticsModel().query(by="colour")


def test_catching_up_reads_through_the_primary_key_not_a_scan() -> None:
    import sqlite3

    from studio.journal_writer import SCHEMA
    from studio.statistics import _RELEVANT

    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    plan = [row[3] for row in db.execute("EXPLAIN QUERY PLAN " + _RELEVANT, (0, 10))]
    assert any("INTEGER PRIMARY KEY" in step for step in plan), plan
    assert not any(step.startswith("SCAN records") for step in plan), plan


def test_the_command_offers_the_models_groupings() -> None:
    from app.stats_cli import DIMENSIONS as offered
    from studio.statistics import DIMENSIONS

    assert offered == DIMENSIONS
