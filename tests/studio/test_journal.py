"""The journal: durable, hash-chained, signed; any changed byte is caught by verify."""

import json
import os
import sqlite3
import stat
import subprocess
import sys

import pytest

from streaming.canonical import verify_message
from studio.journal import JOURNAL_FILE, Journal, verify_journal
from studio.keys import KEY_FILE, KeyError_, load_or_create_key, load_public_key


def feed_message(n: int, kind: str = "result") -> dict:
    return {
        "kind": kind,
        "table_id": "t1",
        "game": "european_roulette",
        "round_id": f"r{n}",
        "round_number": n,
        "version": 1,
        "result": {"number": str(n % 37)} if kind != "void" else None,
        "outcome": {"winning_bets": []} if kind != "void" else None,
        "reason": {"code": "miss_spin", "message": "ball"} if kind == "void" else None,
        "source": {"type": "device", "device_id": "w1", "serial_number": "S1"},
        "commitment": None,
        "reveal": None,
    }


@pytest.fixture(params=["process", "thread"])
def journal(tmp_path, request):
    committed = []
    j = Journal(tmp_path, load_or_create_key(tmp_path), on_commit=committed.extend, writer=request.param)
    j.committed = committed
    yield j
    j.close()


def fill(j: Journal, n: int = 5) -> None:
    for i in range(1, n + 1):
        j.append("device_event", {"kind": "wheel_status", "i": i}, table_id="t1", round_id=f"r{i}")
        j.append("round_state", {"state": "certified", "i": i}, table_id="t1", round_id=f"r{i}")
        j.append_feed(feed_message(i, "void" if i == 3 else "result"))
    j.flush()


def test_key_created_0600_and_reused(tmp_path):
    k1 = load_or_create_key(tmp_path)
    path = tmp_path / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    k2 = load_or_create_key(tmp_path)
    assert k1.public_key().public_bytes_raw() == k2.public_key().public_bytes_raw()
    assert load_public_key(tmp_path).public_bytes_raw() == k1.public_key().public_bytes_raw()
    os.chmod(path, 0o644)
    with pytest.raises(KeyError_, match="chmod 600"):
        load_or_create_key(tmp_path)


def test_feed_seq_contiguous_chained_and_signed(journal, tmp_path):
    fill(journal, 6)
    rows = journal.read_after(0, 100)
    assert [s for s, _ in rows] == [1, 2, 3, 4, 5, 6]
    msgs = [json.loads(t) for _, t in rows]
    pub = load_public_key(tmp_path)
    prev = "0" * 64
    for m in msgs:
        assert m["prev_hash"] == prev
        verify_message(m, pub)
        prev = m["hash"]
    assert msgs[2]["kind"] == "void" and msgs[2]["reason"]["code"] == "miss_spin"
    assert journal.read_after(4, 100) == rows[4:]
    assert journal.last_seq() == 6
    # on_commit saw every record exactly once, in order
    seqs = [c.seq for c in journal.committed]
    assert seqs == sorted(seqs) and len(seqs) == len(set(seqs)) == 18
    assert verify_journal(tmp_path).ok


def test_reopen_continues_both_chains(tmp_path):
    key = load_or_create_key(tmp_path)
    j = Journal(tmp_path, key)
    fill(j, 3)
    j.close()
    j = Journal(tmp_path, key)
    fill(j, 2)
    assert [s for s, _ in j.read_after(0, 100)] == [1, 2, 3, 4, 5]
    j.close()
    report = verify_journal(tmp_path)
    assert report.ok, report.error
    assert report.feed_messages == 5


def test_append_only_enforced_by_the_database(journal, tmp_path):
    fill(journal, 1)
    db = sqlite3.connect(tmp_path / JOURNAL_FILE)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE records SET body = '{}' WHERE seq = 2")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM records WHERE seq = 2")
    db.close()


COLUMNS = ["at", "kind", "table_id", "round_id", "feed_seq", "body", "prev_hash", "hash"]


def tamper(path, seq: int, column: str, pos: int) -> None:
    """Change one byte of one stored column, the way an attacker with file access would."""
    db = sqlite3.connect(path)
    db.execute("DROP TRIGGER records_no_update")
    (value,) = db.execute(f"SELECT {column} FROM records WHERE seq = ?", (seq,)).fetchone()
    if value is None:
        new = 999  # a feed seq on a record that has none
    elif isinstance(value, int):
        new = value + 1000
    else:
        b = bytearray(value.encode())
        i = pos % len(b)
        b[i] = ord("x") if b[i] != ord("x") else ord("y")
        new = b.decode()
    db.execute(f"UPDATE records SET {column} = ? WHERE seq = ?", (new, seq))
    db.commit()
    db.close()


@pytest.mark.parametrize("column", COLUMNS)
def test_every_changed_byte_is_caught_and_named(tmp_path, column):
    key = load_or_create_key(tmp_path)
    j = Journal(tmp_path, key)
    fill(j, 4)
    j.close()
    path = tmp_path / JOURNAL_FILE
    n = sqlite3.connect(path).execute("SELECT COUNT(*) FROM records").fetchone()[0]
    pristine = path.read_bytes()
    for seq in range(1, n + 1):
        for pos in (0, 7, 33, 10_000):
            case = tmp_path / f"case-{seq}-{pos}"
            case.mkdir()
            (case / JOURNAL_FILE).write_bytes(pristine)
            tamper(case / JOURNAL_FILE, seq, column, pos)
            report = verify_journal(case)
            assert not report.ok, (seq, column, pos)
            # the first bad record is the changed one (or, for a changed hash, the one that links to it)
            assert report.bad_seq in (seq, seq + 1), (seq, column, report.error)
            assert f"record {report.bad_seq}" in report.error


def test_deleted_middle_record_is_caught(tmp_path):
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    fill(j, 3)
    j.close()
    db = sqlite3.connect(tmp_path / JOURNAL_FILE)
    db.execute("DROP TRIGGER records_no_delete")
    db.execute("DELETE FROM records WHERE seq = 5")
    db.commit()
    db.close()
    report = verify_journal(tmp_path)
    assert not report.ok and report.bad_seq == 6 and "missing" in report.error


def test_a_journal_signed_by_another_key_fails(tmp_path):
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    fill(j, 2)
    j.close()
    (tmp_path / KEY_FILE).unlink()
    other = load_or_create_key(tmp_path)
    report = verify_journal(tmp_path, other.public_key())
    assert not report.ok and report.bad_seq == 1


def test_verify_command_exit_codes(tmp_path):
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    fill(j, 2)
    j.close()
    ok = subprocess.run(
        [sys.executable, "-m", "app.cli", "verify", "--data", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    assert "journal ok" in ok.stdout
    tamper(tmp_path / JOURNAL_FILE, 4, "body", 3)
    bad = subprocess.run(
        [sys.executable, "-m", "app.cli", "verify", "--data", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1
    assert "record 4" in bad.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "app.cli", "verify", "--data", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 1


def test_appends_after_close_are_refused(tmp_path):
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    j.close()
    j.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        j.append("note", {})
