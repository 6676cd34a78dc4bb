"""A ball-draw table opens no round before its ball-set check passes; the check is journaled."""

import json
import sqlite3

import pytest
from journal_records import records

from devices.balls.events import BallRead, BallUnreadable
from recognition.games import GAMES
from studio.journal import Journal, verify_journal
from studio.keys import load_or_create_key
from studio.rounds import RoundError
from studio.table import DeviceSlot, Table


def make_table(tmp_path, **kw) -> tuple[Table, Journal]:
    journal = Journal(tmp_path, load_or_create_key(tmp_path))
    slots = [
        DeviceSlot("l6/machine", "modbus-ball-machine", "machine", "PLC-1"),
        DeviceSlot("l6/reader", "serial-ball-reader", "reader", "RFID-1"),
    ]
    return Table("l6", GAMES["lucky_6_48"], journal, devices=slots, betting_seconds=0, **kw), journal


def read(label: str, tag: str | None = None) -> BallRead:
    return BallRead(device_id="l6/reader", tag=tag or f"TAG-{label}", ball=label)


def checks(journal: Journal) -> list[dict]:
    return records(journal, "opening_check")


def test_refuses_to_open_until_every_ball_was_read_once(tmp_path):
    table, journal = make_table(tmp_path)
    with pytest.raises(RoundError, match="opening check"):
        table.open_round_by("dealer-ann")
    # a check with ball 48 missing and ball 7 read twice fails, and says why
    table.start_opening_check_by("tech-tom")
    for n in range(1, 48):
        table.device_event(read(str(n)))
    table.device_event(read("7"))
    table.device_event(BallUnreadable(device_id="l6/reader", reason="no read"))
    report = table.finish_opening_check_by("tech-tom")
    assert not report["ok"] and "48" in " ".join(report["missing"]) and report["duplicated"]
    with pytest.raises(RoundError, match="opening check"):
        table.open_round_by("dealer-ann")
    # an unknown tag fails too
    table.start_opening_check_by("tech-tom")
    for n in range(1, 49):
        table.device_event(read(str(n)))
    table.device_event(BallRead(device_id="l6/reader", tag="FOREIGN-1", ball=None))
    assert not table.finish_opening_check_by("tech-tom")["ok"]
    # a clean check opens the table
    table.start_opening_check_by("tech-tom")
    for n in range(1, 49):
        table.device_event(read(str(n)))
    assert table.snapshot()["opening_check"]["running"]
    assert table.finish_opening_check_by("tech-tom")["ok"]
    r = table.open_round_by("dealer-ann")
    assert r.state.value == "betting_open"
    with pytest.raises(RoundError, match="still open"):
        table.start_opening_check_by("tech-tom")
    got = checks(journal)
    assert [c["report"]["ok"] for c in got] == [False, False, True]
    assert got[0]["by"] == "tech-tom" and got[0]["devices"] == {"machine": "PLC-1", "reader": "RFID-1"}
    journal.close()
    assert verify_journal(tmp_path).ok


def test_the_check_can_be_waived_by_configuration_and_the_waiver_is_journaled(tmp_path):
    table, journal = make_table(tmp_path, require_opening_check=False)
    table.start()
    assert table.open_round_by("dealer-ann").state.value == "betting_open"
    journal.flush()
    db = sqlite3.connect(journal.path)
    notes = [json.loads(b)["code"] for (b,) in db.execute("SELECT body FROM records WHERE kind = 'note'")]
    db.close()
    assert "opening_check_waived" in notes
    journal.close()


def test_games_without_a_check_open_at_once(tmp_path):
    journal = Journal(tmp_path, load_or_create_key(tmp_path))
    table = Table("b1", GAMES["baccarat"], journal, betting_seconds=0)
    assert table.open_round_by("dealer-ann").round_number == 1
    with pytest.raises(RoundError, match="no opening check"):
        table.start_opening_check_by("tech-tom")
    journal.close()
