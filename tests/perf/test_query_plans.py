"""Every query the journal runs at start-up and on a request reads through an index: none scans the records
table, so start-up and requests cost the same on a year's journal as on an empty one (issue 25).

The queries are taken from the journal's source (every SELECT written in studio/journal.py and
studio/journal_writer.py), not from a list kept by hand, so a new query is checked as soon as it is written.
"""

from __future__ import annotations

import ast
import re
import sqlite3
from pathlib import Path

import pytest

from studio.journal_writer import SCHEMA

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "studio" / "journal.py", ROOT / "studio" / "journal_writer.py"]

#: functions that read the whole journal on purpose, in order (not start-up or request paths)
WHOLE_JOURNAL = {"verify_journal": "checks every record of the chain"}
#: queries allowed to walk the records table backwards from the newest, with why that stops early
FROM_THE_NEWEST = {
    "SELECT body FROM records WHERE kind = ? AND table_id = ? ORDER BY seq DESC LIMIT 1": (
        "last_record of a device line: most records are device lines, so the newest is among the last rows"
    ),
}


def journal_queries() -> list[tuple[str, str]]:
    """(where, SQL) of every SELECT in the journal's source, outside WHOLE_JOURNAL."""
    found = []
    for path in SOURCES:
        tree = ast.parse(path.read_text())
        skip: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in WHOLE_JOURNAL:
                skip |= {id(n) for n in ast.walk(node)}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.lstrip().upper().startswith("SELECT ")
                and id(node) not in skip
            ):
                found.append((f"{path.name}:{node.lineno}", node.value))
    return found


QUERIES = journal_queries()


def test_the_queries_are_found() -> None:
    texts = " ".join(q for _, q in QUERIES)
    for needle in ("FROM rounds", "feed_seq > ?", "round_id = ?", "kind = ? AND table_id = ?", "MAX(seq)"):
        assert needle in texts


@pytest.fixture(scope="module")
def db() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    return db


@pytest.mark.parametrize("where, query", QUERIES, ids=[w for w, _ in QUERIES])
def test_no_query_scans_the_records_table(db: sqlite3.Connection, where: str, query: str) -> None:
    plan = [row[3] for row in db.execute("EXPLAIN QUERY PLAN " + query, [1] * query.count("?"))]
    scans = [step for step in plan if re.match(r"SCAN records\b", step)]
    if query in FROM_THE_NEWEST:
        assert scans == ["SCAN records"], plan  # the rowid order, newest first, LIMIT 1
        return
    assert not scans, f"{where}: {query!r} scans the records table: {plan}"
    # other tables (the rounds projection) are read through an index too
    assert not [s for s in plan if s.startswith("SCAN ") and "USING" not in s], f"{where}: {plan}"
