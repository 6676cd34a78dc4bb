"""What a simulator keeps of what it did (writes, deliveries, spins, cards), for tests to compare: the oldest go
once there are twice `KEEP`, so a simulator that runs for days (the demo) holds a bounded history."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

#: entries kept of each history (tests read the first few; at speed 20 a ball machine writes ~500 a minute)
KEEP = 10_000


def keep_recent(history: list[T], *items: T) -> None:
    """Append `items`; past 2 x KEEP entries the history keeps its newest KEEP (one copy per KEEP appends)."""
    history.extend(items)
    if len(history) > 2 * KEEP:
        del history[:-KEEP]


def remember(seen: dict[T, None], item: T) -> None:
    """Add `item` to an insertion-ordered set; past KEEP items the oldest goes."""
    seen[item] = None
    if len(seen) > KEEP:
        del seen[next(iter(seen))]
