"""Fixtures for the ball machine / ball reader tests: a thread-leak check, a draw harness."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from balls_helpers import DrawHarness
from thread_leaks import no_new_threads  # tests/ is on sys.path (tests/conftest.py)


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    """Like pymodbus' system_health_check: a test must not leave threads or descriptors behind."""
    fds_before = _open_fds()
    with no_new_threads():
        yield
    if fds_before is not None:
        grown = _open_fds() - fds_before  # type: ignore[operator]
        assert grown <= 2, f"{grown} file descriptors left open"


def _open_fds() -> int | None:
    """Open descriptors, not counting the studio journal's SQLite files (the journal's business, not ours)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:  # pragma: no cover - not Linux
        return None
    count = 0
    for name in names:
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if ".sqlite3" not in target:
            count += 1
    return count


@pytest.fixture(autouse=True)
def quiet_pymodbus() -> Iterator[None]:
    """pymodbus logs every failed connect as an error with a hex dump; the tests provoke many."""
    logger = logging.getLogger("pymodbus")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    yield
    logger.setLevel(level)


@pytest.fixture
def harness() -> Iterator[Callable[..., DrawHarness]]:
    made: list[DrawHarness] = []

    def make(**kw: Any) -> DrawHarness:
        h = DrawHarness(**kw)
        made.append(h)
        h.start()
        return h

    yield make
    for h in made:
        h.stop()
