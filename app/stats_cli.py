"""`studio stats`: the statistics of a data folder's journal, as a table for people or JSON for tools."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

HEAD = ("", "rounds", "certified", "voided", "held", "manual", "corrections", "mean s", "reasons")


#: studio.statistics.DIMENSIONS, written out: building the command line must not import the statistics (and
#: with them every game and numpy) for `studio --help`
DIMENSIONS = ("game", "table", "dealer", "day", "hour")


def add_stats_parser(sub: Any) -> None:
    p = sub.add_parser("stats", help="statistics of the rounds in a data folder's journal")
    p.add_argument("--data", required=True, help="the studio's data folder")
    p.add_argument("--game")
    p.add_argument("--table")
    p.add_argument("--dealer", help="a dealer's user name ('' for rounds nobody signed in to)")
    p.add_argument("--from", dest="start", help="ISO 8601 date or time (whole hours)")
    p.add_argument("--to", dest="end", help="ISO 8601 date or time, exclusive (whole hours)")
    p.add_argument("--by", choices=DIMENSIONS, help="one line per game, table, dealer, day or hour")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_stats)


def _reasons(figures: dict[str, Any]) -> str:
    parts = [f"void {k} {v}" for k, v in figures["voided"].items()]
    parts += [f"hold {k} {v}" for k, v in figures["holds"].items()]
    return ", ".join(parts)


def _row(name: str, f: dict[str, Any]) -> tuple[str, ...]:
    mean = f["mean_round_seconds"]
    return (
        name,
        str(f["rounds"]),
        str(f["certified"]),
        str(sum(f["voided"].values())),
        str(sum(f["holds"].values())),
        str(f["manual_results"]),
        str(f["corrections"]),
        "-" if mean is None else f"{mean:.1f}",
        _reasons(f),
    )


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    out = []
    for r in rows:
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:-1], widths[1:], strict=True)]
        out.append("  ".join(cells + [r[-1]]).rstrip())
    return out


def cmd_stats(args: argparse.Namespace) -> int:
    from studio.journal_writer import JOURNAL_FILE
    from studio.statistics import JournalStatistics

    path = Path(args.data) / JOURNAL_FILE
    if not path.is_file():
        print(f"studio stats: no journal in {args.data} ({JOURNAL_FILE} is missing)", file=sys.stderr)
        return 2
    try:
        start = datetime.fromisoformat(args.start) if args.start else None
        end = datetime.fromisoformat(args.end) if args.end else None
    except ValueError as exc:
        print(f"studio stats: --from/--to: {exc}", file=sys.stderr)
        return 2
    found = JournalStatistics(path).query(
        game=args.game, table=args.table, dealer=args.dealer, start=start, end=end, by=args.by
    )
    if args.format == "json":
        json.dump(found, sys.stdout, indent=2, sort_keys=True)
        print()
        return 0
    rows = [HEAD, _row("all", found)]
    rows += [_row(f"{args.by} {n or '(nobody)'}", f) for n, f in (found.get("groups") or {}).items()]
    out = _table(rows)
    if found["devices"]:
        out.append("")
        out += _table(
            [("device", "results", "faults")]
            + [
                (d, str(v["results"]), ", ".join(f"{k} {n}" for k, n in v["faults"].items()))
                for d, v in found["devices"].items()
            ]
        )
    print("\n".join(out))
    return 0
