"""The one contract every device driver implements.

A driver owns its connection (and its reconnect loop) on its own thread, turns
bytes into typed events and hands them to `on_event`. It never blocks the
caller: `start()` returns at once and `stop()` is idempotent. What a driver may
do beyond that is declared here with a default (`read_on_loop`, `ball_set`), so
the studio calls it rather than asking whether the driver has it.
"""

from __future__ import annotations

import asyncio
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, Self

from .events import DeviceEvent

EventSink = Callable[[DeviceEvent], None]


class DeviceNotConnected(RuntimeError):
    pass


def _no_events(event: DeviceEvent) -> None:
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
    #: a URL of the kind this driver opens, for checking a simulated device's options before its simulator
    #: gives the real URL (check_options with url None)
    stand_in_url: str = "/dev/null"

    @classmethod
    def check_options(cls, url: str | None, options: Mapping[str, Any]) -> list[str]:
        """What is wrong with this URL and these options, in words for the configuration's author (empty:
        nothing), without opening anything; `url` None: a simulator's, known once it starts.

        The default builds the driver, whose constructor checks both and opens nothing (`start()` opens), and
        reports what it refuses. A driver overrides this to say more, or to check what it would only find out
        when it opens."""
        device_id = f"check/{cls.kind}"  # drivers name the device in their errors: here there is none yet
        try:
            driver = cls(device_id, cls.stand_in_url if url is None else url, _no_events, **options)
        except TypeError as exc:  # an option the constructor does not take, or a value of the wrong type
            unknown = re.search(r"unexpected keyword argument '(\w+)'", str(exc))
            return [f"{cls.kind} takes no option {unknown[1]!r}" if unknown else str(exc)]
        except (ValueError, OSError) as exc:  # OSError: a file option (a map, a table) that cannot be read
            return [str(exc).replace(f" {device_id}:", ":").replace(f"{device_id}: ", "")]
        if driver.options:  # what no constructor of the class took: a typo the device would never see
            return [f"{cls.kind} takes no option(s) {', '.join(sorted(driver.options))}"]
        return []

    @property
    def thread_name(self) -> str | None:
        """The name of the thread the driver reads on, when it has one of its own (log lines carry it)."""
        return None

    def __init__(self, device_id: str, url: str, on_event: EventSink, **options: Any) -> None:
        self.device_id = device_id
        self.url = url
        self.on_event = on_event
        #: the options no subclass's constructor took (a subclass passes on only what it does not know)
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
