"""Hypothesis strategies over the fuzz targets: a seed with a few edits (fuzz_targets.apply_edits), or raw
bytes; and the settings every fuzz test runs with (derandomized, no example database: CI sees the same
inputs every run)."""

from __future__ import annotations

from typing import Any

from fuzz_base import EDIT_OPS, Target, apply_edits
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

edits = st.lists(
    st.tuples(
        st.integers(0, EDIT_OPS - 1),
        st.integers(0, 1 << 16),
        st.integers(0, 1 << 16),
        st.binary(min_size=1, max_size=8),
    ),
    min_size=1,
    max_size=6,
)


def inputs(target: Target) -> st.SearchStrategy[bytes]:
    """Mostly mutations of the target's seeds, some raw bytes."""
    seeds = target.seeds
    mutated = st.builds(lambda i, e: apply_edits(seeds[i], e, seeds), st.integers(0, len(seeds) - 1), edits)
    return st.one_of(mutated, mutated, mutated, st.binary(max_size=512))


def fuzz(max_examples: int) -> Any:
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
