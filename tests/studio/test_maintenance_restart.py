"""Maintenance asked for during a round survives a crash of the studio: the restart voids the round it waited
for, so maintenance comes on as the table starts; a request cancelled or already applied does not come back."""

from pathlib import Path

from journal_records import records

from recognition.games import GAMES
from studio.journal import Journal
from studio.keys import load_or_create_key
from studio.table import DeviceSlot, Table


def start(folder: Path) -> tuple[Table, Journal]:
    """A baccarat table on the journal in `folder`, as the studio builds it at start-up."""
    journal = Journal(folder, load_or_create_key(folder))
    slot = DeviceSlot("bac-1/shoe", "serial-shoe", "shoe", "SHOE-1")
    return Table("bac-1", GAMES["baccarat"], journal, devices=[slot], betting_seconds=0), journal


def crash(journal: Journal) -> None:
    """The process dies: what was journaled is durable, nothing of a graceful stop (no voids) happens."""
    journal.flush()
    journal.close()


def test_a_request_pending_at_a_crash_comes_on_as_the_table_starts(tmp_path):
    table, journal = start(tmp_path)
    table.open_round_by("dealer-dana")
    view = table.set_maintenance_by("tech-tom", True, "reader swap after this round")
    assert view["pending"]["by"] == "tech-tom" and not table.in_maintenance
    crash(journal)

    table, journal = start(tmp_path)
    assert table.round is not None and table.round.state.value == "voided"  # the restart voided the round
    assert table.in_maintenance
    asked = records(journal, "maintenance_requested")[-1]
    switched = records(journal, "maintenance")[-1]
    assert switched["on"] is True and switched["after_restart"] is True
    assert switched["requested_at"] == asked["requested_at"]
    assert (switched["by"], switched["reason"]) == ("tech-tom", "reader swap after this round")
    table.set_maintenance_by("tech-tom", False, "reader swapped")
    crash(journal)

    # once applied (and turned off again) the request does not come back
    table, journal = start(tmp_path)
    assert not table.in_maintenance
    assert [m["on"] for m in records(journal, "maintenance")] == [True, False]
    crash(journal)


def test_a_cancelled_request_does_not_come_on_at_a_restart(tmp_path):
    table, journal = start(tmp_path)
    table.open_round_by("dealer-dana")
    table.set_maintenance_by("tech-tom", True, "maybe a check")
    table.set_maintenance_by("tech-tom", False, "not needed")
    crash(journal)

    table, journal = start(tmp_path)
    assert not table.in_maintenance and table.maintenance.pending is None
    assert records(journal, "maintenance") == []
    crash(journal)
