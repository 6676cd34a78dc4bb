"""Fixtures for the shoe tests: an event sink to wait on, a scanner end of a real pty, a thread-leak check."""

from __future__ import annotations

import os
import queue
import time
import tty
from collections.abc import Callable, Iterator

import pytest
from thread_leaks import no_new_threads  # tests/ is on sys.path (tests/conftest.py)

from devices.events import DeviceEvent


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    """A test must not leave driver or simulator threads behind."""
    with no_new_threads(3.0):
        yield


class EventLog:
    """on_event sink: a queue the test waits on, with a timeout."""

    def __init__(self) -> None:
        self.queue: queue.Queue[DeviceEvent] = queue.Queue()
        self.seen: list[DeviceEvent] = []

    def __call__(self, event: DeviceEvent) -> None:
        self.queue.put(event)

    def wait_for(self, predicate: Callable[[DeviceEvent], bool], timeout: float = 5.0) -> DeviceEvent:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                kinds = [getattr(e, "kind", type(e).__name__) for e in self.seen[-20:]]
                raise AssertionError(f"timed out waiting for an event; last seen: {kinds}")
            try:
                event = self.queue.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(event)
            if predicate(event):
                return event

    def wait_kind(self, kind: str, timeout: float = 5.0, **fields: object) -> DeviceEvent:
        return self.wait_for(
            lambda e: getattr(e, "kind", None) == kind and all(getattr(e, k) == v for k, v in fields.items()),
            timeout,
        )

    def drain(self, wait: float = 0.0) -> list[DeviceEvent]:
        out = []
        deadline = time.monotonic() + wait
        while True:
            try:
                event = self.queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(event)
            out.append(event)
        return out

    def cards(self, events: list[DeviceEvent] | None = None) -> list[DeviceEvent]:
        """The card events (drawn / unreadable) among ``events`` (default: all seen so far)."""
        return [
            e
            for e in (self.seen if events is None else events)
            if e.kind in ("card_drawn", "card_unreadable")
        ]


@pytest.fixture
def events() -> EventLog:
    return EventLog()


class Scanner:
    """The scanner end of a real pty in raw mode: the driver opens ``path``; we write the master."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self.master, view)
            view = view[n:]

    def close(self) -> None:
        for fd in (self.master, self.slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = None  # type: ignore[assignment]


@pytest.fixture
def scanner() -> Iterator[Scanner]:
    s = Scanner()
    yield s
    s.close()
