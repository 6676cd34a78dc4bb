"""The one contract every device driver implements.

A driver owns its connection (and its reconnect loop) on its own thread, turns
bytes into typed events and hands them to `on_event`. It never blocks the
caller: `start()` returns at once and `stop()` is idempotent.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from .events import DeviceEvent

EventSink = Callable[[DeviceEvent], None]


class DeviceNotConnected(RuntimeError):
    pass


class Driver(ABC):
    #: the name used in configuration files, e.g. "cammegh-ss2"
    kind: str = ""
    #: what the device is, whatever its vendor, e.g. "roulette-wheel" (every driver of it emits the same
    #: neutral events): a game that lists the family in its device_kinds takes every driver of it
    family: str = ""

    def __init__(self, device_id: str, url: str, on_event: EventSink, **options: Any) -> None:
        self.device_id = device_id
        self.url = url
        self.on_event = on_event
        self.options = options

    @abstractmethod
    def start(self) -> None:
        """Open the device and start reading, on a thread of the driver's own."""

    @abstractmethod
    def stop(self) -> None:
        """Close the device and join the thread; safe to call twice."""

    @abstractmethod
    def send(self, command: str) -> None:
        """Send one command; raises DeviceNotConnected when the link is down."""

    @property
    @abstractmethod
    def connected(self) -> bool: ...

    def health(self) -> dict[str, Any]:
        """Connection state, last message and error counters, for technicians."""
        return {"device_id": self.device_id, "kind": self.kind, "url": self.url, "connected": self.connected}

    def __enter__(self) -> Driver:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
