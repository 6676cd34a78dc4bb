"""The one contract every device driver implements.

A driver owns its connection (and its reconnect loop) on its own thread, turns
bytes into typed events and hands them to `on_event`. It never blocks the
caller: `start()` returns at once and `stop()` is idempotent. What a driver may
do beyond that is declared here with a default (`read_on_loop`, `ball_set`), so
the studio calls it rather than asking whether the driver has it.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Self

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
    #: what a ball reader knows of the balls it reads (a `devices.balls.ballset.BallSet`: tag -> label), for a
    #: draw game's opening check; None for every other device
    ball_set: Any = None

    @property
    def thread_name(self) -> str | None:
        """The name of the thread the driver reads on, when it has one of its own (log lines carry it)."""
        return None

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
        """Send one command; raises ValueError for a command the device does not take, DeviceNotConnected
        when the link is down."""

    @property
    @abstractmethod
    def connected(self) -> bool: ...

    def read_on_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """Read the device on `loop` rather than on a thread (call before `start`): a serial port read there
        reaches its table without a thread hop. The default keeps the driver's own thread (a camera, a Modbus
        poller); `None` asks for the thread."""

    def health(self) -> dict[str, Any]:
        """Connection state, last message and error counters, for technicians."""
        return {"device_id": self.device_id, "kind": self.kind, "url": self.url, "connected": self.connected}

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
