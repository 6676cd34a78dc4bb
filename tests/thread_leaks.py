"""A test must not leave threads behind (like pymodbus' system_health_check): one check for every test folder.

tests/ is on sys.path (tests/conftest.py is there), so each folder's conftest imports this by name.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from waiting import WAIT_S


@contextmanager
def no_new_threads(timeout: float = WAIT_S) -> Iterator[None]:
    """Fail if a thread started inside the block is still alive `timeout` seconds after it (they may be ending)."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + timeout
    while True:
        leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert not leaked, f"threads left running: {[t.name for t in leaked]}"
