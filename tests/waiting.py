"""Waiting in tests: for a condition, bounded generously, never for a fixed time.

tests/ is on sys.path (tests/conftest.py is there), so any test imports this by name.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: how long a test waits for something before it fails: generous, the machine may be loaded (the suite runs
#: beside other work, two tests at a time under xdist). A wait returns as soon as its condition holds, so this
#: only bounds a test that is failing anyway.
WAIT_S = 120.0


def until(
    cond: Callable[[], T], what: str = "the condition", timeout: float = WAIT_S, poll: float = 0.01
) -> T:
    """The first true value of `cond()`, polled until `timeout`; fails the test naming `what` after that."""
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(poll)
