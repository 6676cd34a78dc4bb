"""`studio export`: rounds, results, outcomes or the equipment log of a data folder, as CSV or Parquet, for
auditors' own tools. pyarrow is imported only when Parquet is asked for (`pip install pyarrow`)."""

from __future__ import annotations

import argparse
import csv
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def add_export_parser(sub: Any) -> None:
    from studio.export import WHAT

    p = sub.add_parser("export", help="rounds, results, outcomes or the equipment log as CSV or Parquet")
    p.add_argument("--data", required=True, help="the studio's data folder")
    p.add_argument("what", nargs="?", choices=WHAT, default="rounds")
    p.add_argument("--from", dest="start", help="ISO 8601 date or time (UTC unless an offset is given)")
    p.add_argument("--to", dest="end", help="ISO 8601 date or time, exclusive")
    p.add_argument("--table", help="one table's rows only")
    p.add_argument("--format", choices=("csv", "parquet"), default="csv")
    p.add_argument("--out", help="write to this file (default: standard output)")
    p.set_defaults(func=cmd_export)


def _rfc3339(value: str | None) -> str | None:
    """An ISO 8601 date or time as the journal writes times (UTC, microseconds, Z), for string comparison."""
    if value is None:
        return None
    at = datetime.fromisoformat(value)
    at = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _write_csv(out: Any, columns: tuple[str, ...], found: Any) -> int:
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    count = 0
    for r in found:
        writer.writerow(r)
        count += 1
    return count


def cmd_export(args: argparse.Namespace) -> int:
    from studio.export import COLUMNS, rows
    from studio.journal_writer import JOURNAL_FILE

    path = Path(args.data) / JOURNAL_FILE
    if not path.is_file():
        print(f"studio export: no journal in {args.data} ({JOURNAL_FILE} is missing)", file=sys.stderr)
        return 2
    try:
        start, end = _rfc3339(args.start), _rfc3339(args.end)
    except ValueError as exc:
        print(f"studio export: --from/--to: {exc}", file=sys.stderr)
        return 2
    columns = COLUMNS[args.what]
    found = rows(path, args.what, start=start, end=end, table=args.table)
    if args.format == "parquet":
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            print("studio export: Parquet needs pyarrow (pip install pyarrow); CSV does not", file=sys.stderr)
            return 2
        data = list(found)
        table = pa.table({c: [r.get(c) for r in data] for c in columns})
        sink: Any = args.out or sys.stdout.buffer
        pq.write_table(table, sink)
        count = len(data)
    elif args.out:
        with open(args.out, "w", newline="", encoding="utf-8") as fh:
            count = _write_csv(fh, columns, found)
    else:
        try:
            count = _write_csv(sys.stdout, columns, found)
            sys.stdout.flush()
        except BrokenPipeError:  # `studio export ... | head`: the reader has what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    if args.out:
        print(f"studio export: {count} {args.what} rows written to {args.out}", file=sys.stderr)
    return 0
