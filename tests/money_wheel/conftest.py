"""Fixtures of the money-wheel tests: no leaked threads or descriptors, quiet pymodbus, an event sink."""

from __future__ import annotations

import logging
import os
import queue
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from thread_leaks import no_new_threads  # tests/ is on sys.path (tests/conftest.py)

from devices.events import DeviceEvent


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """A test must not leave threads or file descriptors behind (like pymodbus' system_health_check)."""
    fds = _open_fds()
    with no_new_threads(5.0):
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


class EventLog:
    """on_event sink for drivers: the test waits on it with a timeout."""

    def __init__(self) -> None:
        self.queue: queue.Queue[DeviceEvent] = queue.Queue()
        self.seen: list[DeviceEvent] = []

    def __call__(self, event: DeviceEvent) -> None:
        self.queue.put(event)

    def wait_for(self, predicate: Callable[[DeviceEvent], bool], timeout: float = 10.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                kinds = [getattr(e, "kind", type(e).__name__) for e in self.seen[-15:]]
                raise AssertionError(f"timed out waiting for an event; last seen: {kinds}")
            try:
                event = self.queue.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(event)
            if predicate(event):
                return event

    def wait_kind(self, kind: str, timeout: float = 10.0, **fields: Any) -> Any:
        return self.wait_for(
            lambda e: getattr(e, "kind", None) == kind and all(getattr(e, k) == v for k, v in fields.items()),
            timeout,
        )

    def drain(self) -> list[DeviceEvent]:
        while True:
            try:
                self.seen.append(self.queue.get_nowait())
            except queue.Empty:
                return self.seen


@pytest.fixture
def events() -> EventLog:
    return EventLog()
