"""Fixtures of the dice vision tests: a thread-leak check (helpers are in dicevision_helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from thread_leaks import no_new_threads  # tests/ is on sys.path (tests/conftest.py)


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    """A test must not leave threads (drivers, simulators) behind."""
    with no_new_threads():
        yield
