"""The on_event sink every driver test waits on (the `events` fixture of tests/conftest.py).

A wait for an event is bounded by waiting.WAIT_S. tests/ is on sys.path (tests/conftest.py is there), so a
test imports this by name for the type.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from typing import Any

from waiting import WAIT_S

from devices.events import DeviceEvent


class EventLog:
    """on_event sink for drivers: a queue the test waits on; every event taken from it is kept in `seen`."""

    def __init__(self) -> None:
        self.queue: queue.Queue[DeviceEvent] = queue.Queue()
        self.seen: list[DeviceEvent] = []

    def __call__(self, event: DeviceEvent) -> None:
        self.queue.put(event)

    def wait_for(
        self, predicate: Callable[[DeviceEvent], bool], timeout: float = WAIT_S, what: str = "an event"
    ) -> Any:
        """The first event from now on that satisfies `predicate` (the ones before it are kept in `seen`)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                kinds = [
                    (getattr(e, "kind", type(e).__name__), getattr(e, "reason", "")) for e in self.seen[-20:]
                ]
                raise AssertionError(f"timed out after {timeout:g} s waiting for {what}; last seen: {kinds}")
            try:
                event = self.queue.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(event)
            if predicate(event):
                return event

    def wait_kind(self, kind: str, timeout: float = WAIT_S, **fields: Any) -> Any:
        """The next event of `kind` whose attributes equal `fields`."""
        return self.wait_for(
            lambda e: getattr(e, "kind", None) == kind and all(getattr(e, k) == v for k, v in fields.items()),
            timeout,
            kind,
        )

    def drain(self, wait: float = 0.0) -> list[DeviceEvent]:
        """The events that arrive within `wait` seconds (already queued ones at least), added to `seen`.

        For "nothing more comes" checks: a loaded machine can only make it see fewer events, never more."""
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
        """The card events (drawn / unreadable) among `events` (default: all seen so far)."""
        return [
            e
            for e in (self.seen if events is None else events)
            if getattr(e, "kind", None) in ("card_drawn", "card_unreadable")
        ]
