"""The baccarat roads against hand-drawn ones."""

from __future__ import annotations

from studio.roads import bead_plate, big_road


def cells(road: list[dict]) -> list[tuple]:
    return [(c["col"], c["row"], c["winner"][0].upper(), c.get("ties", 0)) for c in road]


def test_the_bead_plate_fills_columns_of_six() -> None:
    plate = bead_plate(["banker", "player", "tie"] * 3)
    assert [(c["col"], c["row"]) for c in plate] == [(0, r) for r in range(6)] + [(1, r) for r in range(3)]


def test_the_big_road_starts_a_column_when_the_winner_changes_and_counts_ties_on_the_cell_before() -> None:
    road = big_road(["banker", "banker", "player", "tie", "tie", "player", "banker"])
    assert cells(road) == [(0, 0, "B", 0), (0, 1, "B", 0), (1, 0, "P", 2), (1, 1, "P", 0), (2, 0, "B", 0)]


def test_a_long_streak_turns_right_along_its_row_and_the_next_column_starts_at_the_top() -> None:
    road = big_road(["banker"] * 8 + ["player", "player"])
    assert cells(road)[5:] == [(0, 5, "B", 0), (1, 5, "B", 0), (2, 5, "B", 0), (1, 0, "P", 0), (1, 1, "P", 0)]


def test_a_streak_that_meets_the_dragon_tail_turns_right_early() -> None:
    road = big_road(["banker"] * 7 + ["player"] * 6)
    # the player column under col 1 meets the banker tail at (1, 5): it turns right at row 4
    assert cells(road)[7:] == [
        (1, 0, "P", 0),
        (1, 1, "P", 0),
        (1, 2, "P", 0),
        (1, 3, "P", 0),
        (1, 4, "P", 0),
        (2, 4, "P", 0),
    ]


def test_ties_before_anything_decided_sit_on_the_first_cell() -> None:
    assert cells(big_road(["tie", "tie", "player"])) == [(0, 0, "P", 2)]
    assert cells(big_road(["tie"])) == [(0, 0, "T", 1)]
