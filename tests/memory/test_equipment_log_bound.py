"""The statistics keep a bounded number of equipment log entries in memory; the whole log stays in the journal
(a ball machine's every release is an entry: a year of them would not fit)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

Record = tuple[str, str | None, dict[str, Any]]

from studio import equipment_log
from studio.journal_writer import SCHEMA
from studio.statistics import EQUIPMENT_KEEP, JournalStatistics

AT = "2026-12-01T10:00:00.000Z"


def journal(path: Path, records: list[Record]) -> Path:
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.executemany(
        "INSERT INTO records (seq, at, kind, table_id, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, '', '')",
        [(seq, AT, kind, table, json.dumps(body)) for seq, (kind, table, body) in enumerate(records, 1)],
    )
    db.commit()
    db.close()
    return path


def release(device: str) -> Record:
    return ("device_command", "lucky-1", {"by": "system", "command": "release_ball", "device_id": device})


def test_the_newest_entries_of_each_device_are_kept_and_the_whole_log_is_counted(tmp_path: Path) -> None:
    records: list[Record] = [
        ("maintenance", "lucky-1", {"on": True, "reason": "balls"})
    ]  # the table's, device-less
    records += [("software_check", None, {"summary": "ok"})]  # the studio's
    records += [release("lucky-1/machine") for _ in range(3 * EQUIPMENT_KEEP)]
    records += [release("lucky-1/other") for _ in range(5)]
    path = journal(tmp_path / "journal.sqlite3", records)
    stats = JournalStatistics(path)

    entries, total = stats.equipment_log("lucky-1/machine")

    assert total == 2 + 3 * EQUIPMENT_KEEP
    assert all(len(log) <= EQUIPMENT_KEEP for log in stats.model.equipment.values())
    assert [e["what"] for e in entries[:2]] == ["maintenance", "software_check"]  # oldest first
    machine = [e for e in entries if e["device_id"] == "lucky-1/machine"]
    assert [e["seq"] for e in machine] == list(range(3 + 2 * EQUIPMENT_KEEP, 3 + 3 * EQUIPMENT_KEEP))
    assert len(entries) == 2 + EQUIPMENT_KEEP  # the other device's entries are not this one's
    # the whole log is still the journal's, to download
    assert len(list(equipment_log.read(path, device="lucky-1/machine"))) == total
