"""Rows for auditors' own tools (`studio export`): rounds, signed results, outcomes and the equipment log, read
from the journal in seq order. Nested values (a result, a source) are kept as JSON text in their column.

- rounds: one row per round opened in the period: its table, game, number, dealer, when it opened and ended,
  how it ended (certified or voided, and why), who or what gave the result, and how many versions it had;
- results: one row per signed feed message that settles a round (result, void, correction), with its hash
  and signature, so a row can be checked against the feed;
- outcomes: one row per bet a result or correction settles (won or returned), with its payout;
- equipment: the equipment log (studio/equipment_log.py).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import dealers, equipment_log

WHAT = ("rounds", "results", "outcomes", "equipment")
SETTLING = ("result", "void", "correction")

COLUMNS: dict[str, tuple[str, ...]] = {
    "rounds": (
        "round_id",
        "table_id",
        "game",
        "round_number",
        "dealer",
        "opened_at",
        "ended_at",
        "state",
        "void_code",
        "result",
        "source_type",
        "people",
        "device_id",
        "versions",
        "feed_seq",
    ),
    "results": (
        "feed_seq",
        "kind",
        "round_id",
        "table_id",
        "game",
        "round_number",
        "occurred_at",
        "version",
        "result",
        "outcome",
        "reason_code",
        "reason",
        "source",
        "hash",
        "signature",
    ),
    "outcomes": ("feed_seq", "round_id", "table_id", "game", "version", "bet", "settled", "pays", "details"),
    "equipment": equipment_log.COLUMNS,
}


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, separators=(",", ":"))


def _records(db: sqlite3.Connection, kinds: tuple[str, ...], table: str | None) -> Iterator[tuple[Any, ...]]:
    sql = f"SELECT seq, at, kind, table_id, round_id, body FROM records WHERE kind IN ({', '.join('?' * len(kinds))})"
    args: list[Any] = list(kinds)
    if table is not None:
        sql += " AND table_id = ?"
        args.append(table)
    yield from db.execute(sql + " ORDER BY seq", args)


def _inside(at: str, start: str | None, end: str | None) -> bool:
    return (start is None or at >= start) and (end is None or at < end)


def rows(
    journal_path: Path,
    what: str,
    *,
    start: str | None = None,
    end: str | None = None,
    table: str | None = None,
) -> Iterator[dict[str, Any]]:
    """The rows of one export, oldest first; `start`/`end`: RFC 3339 UTC times (`end` exclusive)."""
    if what not in WHAT:
        raise ValueError(f"what must be one of {', '.join(WHAT)}, not {what!r}")
    if what == "equipment":
        yield from equipment_log.read(journal_path, table=table, start=start, end=end)
        return
    db = sqlite3.connect(f"file:{journal_path}?mode=ro", uri=True)
    try:
        if what == "rounds":
            yield from _rounds(db, start, end, table)
        else:
            for _seq, at, _kind, _table, _rid, body in _records(db, SETTLING, table):
                m = json.loads(body)
                if not _inside(m.get("occurred_at") or at, start, end):
                    continue
                yield from (_result_row(m) if what == "results" else _outcome_rows(m))
    finally:
        db.close()


def _result_row(m: dict[str, Any]) -> Iterator[dict[str, Any]]:
    reason = m.get("reason") or {}
    yield {
        "feed_seq": m.get("seq"),
        "kind": m.get("kind"),
        "round_id": m.get("round_id"),
        "table_id": m.get("table_id"),
        "game": m.get("game"),
        "round_number": m.get("round_number"),
        "occurred_at": m.get("occurred_at"),
        "version": m.get("version"),
        "result": _json(m.get("result")),
        "outcome": _json(m.get("outcome")),
        "reason_code": reason.get("code"),
        "reason": reason.get("message"),
        "source": _json(m.get("source")),
        "hash": m.get("hash"),
        "signature": m.get("signature"),
    }


def _outcome_rows(m: dict[str, Any]) -> Iterator[dict[str, Any]]:
    outcome = m.get("outcome") or {}
    if m.get("kind") == "void" or not isinstance(outcome, dict):
        return
    base = {k: m.get(k) for k in ("round_id", "table_id", "game", "version")} | {"feed_seq": m.get("seq")}
    for settled, key, amount in (("won", "winning_bets", "payout"), ("returned", "pushed_bets", "returned")):
        for bet in outcome.get(key) or ():
            if not isinstance(bet, dict):
                continue
            details = {k: v for k, v in bet.items() if k not in ("bet", amount)}
            yield {
                **base,
                "bet": bet.get("bet"),
                "settled": settled,
                "pays": None if bet.get(amount) is None else str(bet.get(amount)),
                "details": _json(details) if details else None,
            }


def _rounds(db: sqlite3.Connection, start: str | None, end: str | None, table: str | None) -> Iterator[dict]:
    dealer: dict[str, str] = {}
    rounds: dict[str, dict[str, Any]] = {}
    kinds = ("round_state", "console_action", *SETTLING)
    for _seq, at, kind, table_id, round_id, body in _records(db, kinds, table):
        b = json.loads(body)
        if kind == "console_action":
            dealers.follow(dealer, table_id, b)
        elif kind == "round_state" and b.get("transition") == "open_round" and round_id:
            opened = b.get("opened_at") or at
            if _inside(opened, start, end):
                rounds[round_id] = {
                    "round_id": round_id,
                    "table_id": table_id,
                    "game": b.get("game"),
                    "round_number": b.get("round_number"),
                    "dealer": dealer.get(table_id),
                    "opened_at": opened,
                    "ended_at": None,
                    "state": "open",
                    "void_code": None,
                    "result": None,
                    "source_type": None,
                    "people": None,
                    "device_id": None,
                    "versions": 0,
                    "feed_seq": None,
                }
        elif kind in SETTLING and round_id in rounds:
            r = rounds[round_id]
            source = b.get("source") if isinstance(b.get("source"), dict) else {}
            r["feed_seq"] = b.get("seq")
            if kind == "void":
                r.update(
                    state="voided",
                    ended_at=b.get("occurred_at"),
                    void_code=(b.get("reason") or {}).get("code"),
                )
            else:
                r["versions"] += 1
                r["result"] = _json(b.get("result"))
                r["source_type"] = source.get("type")
                r["people"] = _json(source.get("people"))
                r["device_id"] = source.get("device_id")
                if kind == "result":
                    r.update(state="certified", ended_at=b.get("occurred_at"))
    yield from rounds.values()
