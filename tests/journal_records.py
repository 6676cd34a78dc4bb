"""What a test reads back from a studio's journal: the bodies of its records, in order.

One reader for every test folder (tests/ is on sys.path, as for waiting.py: `from journal_records import
records`). It reads the journal's SQLite file read-only, as `studio verify` does, after the journal (when it is
still open) has made durable everything appended so far: a record appended before the call is there.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from studio.journal import JOURNAL_FILE, Journal, JournalClosed

#: a running or stopped studio (anything with a `journal`), a journal, or a studio's data folder
Where = Any


def _path(where: Where) -> Path:
    if isinstance(where, str | Path):
        path = Path(where)
        return path / JOURNAL_FILE if path.is_dir() else path
    journal: Journal = where if isinstance(where, Journal) else where.journal
    try:
        journal.flush()
    except JournalClosed:
        pass  # closed: everything it was given is on disk
    return Path(journal.path)


def rows(where: Where, *kinds: str) -> list[tuple[int, str, str | None, dict[str, Any]]]:
    """(seq, kind, table_id, body) of the records of `kinds` (every kind when none is given), by seq."""
    query = "SELECT seq, kind, table_id, body FROM records"
    if kinds:
        query += f" WHERE kind IN ({','.join('?' * len(kinds))})"
    db = sqlite3.connect(f"file:{_path(where)}?mode=ro", uri=True)
    try:
        return [(s, k, t, json.loads(b)) for s, k, t, b in db.execute(query + " ORDER BY seq", kinds)]
    finally:
        db.close()


def records(where: Where, *kinds: str) -> list[dict[str, Any]]:
    """The bodies of the records of `kinds` (every kind when none is given), by seq."""
    return [body for *_, body in rows(where, *kinds)]
