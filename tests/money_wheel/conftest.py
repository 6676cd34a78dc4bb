"""Fixtures of the money-wheel tests: no leaked threads or descriptors, quiet pymodbus."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator

import pytest
from thread_leaks import no_new_threads  # tests/ is on sys.path (tests/conftest.py)


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """A test must not leave threads or file descriptors behind (like pymodbus' system_health_check)."""
    fds = _open_fds()
    with no_new_threads():
        yield
    if fds is not None:
        grown = (_open_fds() or 0) - fds
        assert grown <= 2, f"{grown} file descriptors left open"


def _open_fds() -> int | None:
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:  # pragma: no cover
        return None


@pytest.fixture(autouse=True)
def quiet_pymodbus() -> Iterator[None]:
    logger = logging.getLogger("pymodbus")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    yield
    logger.setLevel(level)
