"""Shared by the roulette variants' tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from thread_leaks import no_new_threads  # tests/ is on sys.path (tests/conftest.py)


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    """A test must not leave threads (drivers, simulators, the journal's replies) running behind it."""
    with no_new_threads():
        yield
