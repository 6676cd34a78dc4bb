"""The thread every reading driver runs on: start, stop, and the event callback guarded.

A subclass calls ``self._init_thread()`` in its ``__init__`` and defines ``_run(stop)``, which reads the
device until ``stop`` (a ``threading.Event``) is set; one that reconnects keeps ``_backoff`` and
``reconnect_max`` for ``_sleep_backoff(stop)``. Hooks: ``_before_start()`` (under the lifecycle lock, before
the thread starts: build what may fail for the user who configured it) and ``_unblock()`` (after ``stop`` is
set: unblock a read that would not see it, e.g. shut a socket down).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from .base import Driver
from .events import DeviceEvent


class ThreadedDriver(Driver):
    #: how long stop() waits for the thread
    stop_timeout: float = 5.0
    #: set by a subclass that reconnects (see _sleep_backoff): the next wait and the longest one, in seconds
    _backoff: float
    reconnect_max: float

    def _init_thread(self, counters: dict[str, Any] | None = None) -> None:
        self._lifecycle = threading.Lock()
        #: guards the counters, the last error and what the subclass shares with its thread
        self._state = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._counters: dict[str, Any] = dict(counters or {})
        self._last_error: str | None = None

    @property
    def _log(self) -> logging.Logger:
        return logging.getLogger(type(self).__module__)  # technicians filter logs by the driver's module

    @property
    def thread_name(self) -> str:
        return f"{self.kind or type(self).__name__}:{self.device_id}"

    def start(self) -> None:
        with self._lifecycle:
            if self._thread is not None:
                return
            self._before_start()
            self._stop = threading.Event()
            self._thread = threading.Thread(
                target=self._run, args=(self._stop,), name=self.thread_name, daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        with self._lifecycle:
            thread, self._thread = self._thread, None
            self._stop.set()
        self._unblock()
        if thread is None or thread is threading.current_thread() or self._called_from_reader():
            return  # never started, already stopped, or called from on_event (the thread ends by itself)
        thread.join(self.stop_timeout)
        if thread.is_alive():  # pragma: no cover - a read stuck past its timeout
            self._log.error(
                "%s: reader thread did not stop within %.1f s", self.thread_name, self.stop_timeout
            )

    @property
    def running(self) -> bool:
        return self._thread is not None

    def _before_start(self) -> None:
        """Under the lifecycle lock, before the thread starts."""

    def _unblock(self) -> None:
        """After the stop event is set: unblock a read that would not notice it."""

    def _called_from_reader(self) -> bool:
        """True on a thread that delivers this driver's events but is not its own (it must not join)."""
        return False

    def _run(self, stop: threading.Event) -> None:
        raise NotImplementedError

    def _sleep_backoff(self, stop: threading.Event) -> None:
        """Wait before the next reconnect, twice as long as the last time (at most `reconnect_max`)."""
        stop.wait(self._backoff)
        self._backoff = min(self._backoff * 2, self.reconnect_max)

    def _emit(self, event: DeviceEvent) -> None:
        try:
            self.on_event(event)
        except Exception:  # noqa: BLE001 - logged: a consumer's bug must not stop the device's thread
            self._count("callback_errors")
            self._log.exception("%s: on_event failed for %s", self.thread_name, type(event).__name__)

    def _count(self, name: str, n: int = 1) -> None:
        with self._state:
            self._counters[name] = self._counters.get(name, 0) + n

    def _set_error(self, reason: str | None) -> None:
        with self._state:
            self._last_error = reason
