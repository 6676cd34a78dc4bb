"""The baccarat roads, as live-dealer studios show a table's history: the bead plate and the big road, drawn
from a table's recent winners (any game whose result names a `winner`: baccarat, Dragon Tiger, ...). Pure.

- **bead plate**: one cell per round, top to bottom then left to right, `rows` cells a column;
- **big road**: a new column each time the winner changes; a tie is counted on the cell before it (ties before
  the first decided round on the first cell); a streak longer than `rows`, or one that meets a cell already
  taken, turns right along its row (the "dragon tail").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

TIE = "tie"


def bead_plate(winners: Sequence[str], rows: int = 6) -> list[dict[str, Any]]:
    return [{"col": i // rows, "row": i % rows, "winner": w} for i, w in enumerate(winners)]


def big_road(winners: Sequence[str], rows: int = 6) -> list[dict[str, Any]]:
    cells: list[dict[str, Any]] = []
    taken: set[tuple[int, int]] = set()
    col = -1  # the column the current streak started in
    pos: tuple[int, int] | None = None
    leading_ties = 0
    for w in winners:
        if w == TIE:
            if cells:
                cells[-1]["ties"] += 1
            else:
                leading_ties += 1
            continue
        if not cells or cells[-1]["winner"] != w:
            col += 1
            while (col, 0) in taken:
                col += 1
            pos = (col, 0)
        else:
            assert pos is not None
            c, r = pos
            down = (c, r + 1)
            pos = down if r + 1 < rows and down not in taken else (c + 1, r)
        taken.add(pos)
        cells.append({"col": pos[0], "row": pos[1], "winner": w, "ties": leading_ties})
        leading_ties = 0
    if leading_ties:
        cells.insert(0, {"col": 0, "row": 0, "winner": TIE, "ties": leading_ties})
    return cells
