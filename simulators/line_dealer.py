"""A line device on a pty that plays the dealer's part after betting closes: the shared part of the bead
counter's and the briefcase scanner's software twins (simulators/beads.py, simulators/briefcases.py).

The simulator keeps the pty's master, the driver opens the slave path. Lines are written from one worker
thread at their due times (``speed`` divides every delay), so `table_event`, called on the studio's loop,
only queues work and never blocks.
"""

from __future__ import annotations

import heapq
import itertools
import os
import random
import select
import threading
import time
from collections.abc import Callable
from typing import Any

from .ptys import open_pty_pair

__all__ = ["LineDealerSimulator"]


class LineDealerSimulator:
    """Writes lines to a pty at due times; subclasses decide what to write when (`on_table_event`)."""

    thread_name = "line-dealer-sim"

    def __init__(
        self, *, speed: float = 1.0, seed: int | None = None, act_as_dealer: bool = True, pty: bool = True
    ) -> None:
        """`pty` False: a twin that serves its own transport (a camera's frames) and only keeps the timing."""
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.speed = float(speed)
        self.rng = random.Random(seed)
        self.act_as_dealer = act_as_dealer
        self._master: int | None = None
        self.url = ""
        if pty:
            self._master, self.url = open_pty_pair()
            os.set_blocking(self._master, False)
        #: every line written, in order (the truth, for tests)
        self.lines: list[str] = []
        self.dropped = 0
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._cv = threading.Condition()
        self._stopped = False
        self._thread: threading.Thread | None = None

    # --- Simulator contract -------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        with self._cv:
            if self._stopped:
                return
            self._stopped = True
            self._cv.notify_all()
        if self._thread is not None:
            self._thread.join(5)
        if self._master is not None:
            try:
                os.close(self._master)
            except OSError:
                pass

    def table_event(self, what: str, data: dict[str, Any]) -> None:
        """The studio's table listener (on its loop: never blocks); the dealer's part when `act_as_dealer`."""
        if self.act_as_dealer:
            self.on_table_event(what, data)

    def on_table_event(self, what: str, data: dict[str, Any]) -> None:
        """What the simulated dealer does on a table event (subclasses)."""

    # --- writing --------------------------------------------------------------------------------

    def later(self, seconds: float, action: Callable[[], None]) -> None:
        """Run `action` on the worker thread `seconds` (real-time seconds, divided by speed) from now."""
        with self._cv:
            if self._stopped:
                return
            heapq.heappush(self._due, (time.monotonic() + seconds / self.speed, next(self._seq), action))
            self._cv.notify_all()

    def write_line(self, text: str) -> None:
        """One line to the driver, now (from any thread)."""
        data = text.encode("ascii", "replace") + b"\r\n"
        with self._cv:
            if self._stopped or self._master is None:
                return
            self.lines.append(text)
            self._drain()
            try:
                os.write(self._master, data)
            except OSError:  # nobody reading (the buffer is full) or the slave side closed: the line is lost
                self.dropped += 1

    def _drain(self) -> None:
        """Throw away what the driver sent (the device takes no commands)."""
        assert self._master is not None
        while select.select([self._master], [], [], 0)[0]:
            try:
                if not os.read(self._master, 4096):
                    return
            except OSError:
                return

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._stopped and (not self._due or self._due[0][0] > time.monotonic()):
                    wait = self._due[0][0] - time.monotonic() if self._due else None
                    self._cv.wait(wait)
                if self._stopped:
                    return
                _, _, action = heapq.heappop(self._due)
            action()
