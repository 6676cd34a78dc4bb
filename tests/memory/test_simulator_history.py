"""A simulator's history (writes, deliveries, spins, cards) keeps its newest entries, not every one."""

from __future__ import annotations

from simulators.history import KEEP, keep_recent, remember


def test_a_history_keeps_at_most_twice_its_bound_and_always_the_newest_entries() -> None:
    history: list[int] = []
    for n in range(5 * KEEP + 7):
        keep_recent(history, n)
        assert len(history) <= 2 * KEEP
    assert len(history) >= KEEP
    assert history == list(range(5 * KEEP + 7 - len(history), 5 * KEEP + 7))  # in order, none missing


def test_several_entries_at_once_stay_in_order() -> None:
    history: list[str] = ["a"]
    keep_recent(history, "b", "c")
    assert history == ["a", "b", "c"]


def test_a_remembered_set_forgets_its_oldest_past_the_bound() -> None:
    seen: dict[tuple[str, str], None] = {}
    for n in range(KEEP + 3):
        remember(seen, (f"round-{n}", "spin"))
    assert len(seen) == KEEP
    assert ("round-2", "spin") not in seen and ("round-3", "spin") in seen
    assert (f"round-{KEEP + 2}", "spin") in seen
    remember(seen, ("round-3", "spin"))  # seen again: still one entry
    assert len(seen) == KEEP
