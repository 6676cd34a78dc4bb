"""A Modbus device read by polling from a thread of the driver's own (the ball machine's PLC, the wheel encoder).

:class:`ModbusPollingDriver` owns the thread, the client, the link and the counters; a subclass
supplies only what is its own device's:

* ``what`` - the device in a bad-URL message ("a ball machine"); ``max_poll_interval`` - whole seconds;
* ``extra_counters`` - its own health counters (e.g. the commands it took);
* after ``super().__init__``: ``register_map`` (with ``.model``) and ``tracker`` (``reset()`` after each
  (re)connect, ``update(reading, now, at) -> events`` after each good poll);
* :meth:`_poll` - one round of reads on the client, raising :class:`PollError` when it fails;
* :meth:`send` - its commands;
* optionally :meth:`_note_poll`, :meth:`_handle_poll`, :meth:`_wait_next`, :meth:`_wait_after_error`,
  :meth:`_tracker_counters` and :meth:`_device_health`.

Connection states: :class:`DeviceConnected` after the first poll the device answers (a TCP connect
or an opened serial port alone proves nothing: an RTU line with no device on it opens fine), and
:class:`DeviceDisconnected` (once) when ``failures_before_lost`` polls in a row fail or the connect
fails; the driver then closes the client and reconnects with exponential backoff from
``reconnect_min`` to ``reconnect_max`` seconds.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from datetime import datetime
from typing import Any

from .base import EventSink
from .events import DeviceConnected, DeviceDisconnected, DeviceEvent, utcnow
from .modbus_url import ModbusUrl, parse_modbus_url
from .threaded import ThreadedDriver

__all__ = ["ModbusPollingDriver", "PollError", "short_text"]

_COUNTERS = (
    "polls",
    "poll_errors",
    "connects",
    "reconnects",
    "disconnects",
    "connect_failures",
    "events",
    "callback_errors",
)


class PollError(Exception):
    """A poll that failed (no answer, a refused read, a short answer); its text is the reason reported."""


class ModbusPollingDriver(ThreadedDriver):
    what = "a Modbus device"
    stand_in_url = "modbus-tcp://127.0.0.1:502"
    max_poll_interval = 10
    extra_counters: tuple[str, ...] = ()
    register_map: Any
    tracker: Any

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: EventSink,
        *,
        poll_interval: float,
        failures_before_lost: int = 3,
        reconnect_min: float = 0.1,
        reconnect_max: float = 5.0,
        timeout: float | None = None,
        stop_timeout: float = 5.0,
        **options: Any,
    ) -> None:
        super().__init__(device_id, url, on_event, **options)
        self.target: ModbusUrl = parse_modbus_url(url, self.what)
        if timeout is not None:
            if not 0 < timeout <= 60:
                raise ValueError("timeout must be more than 0 and at most 60 seconds")
            self.target = dataclasses.replace(self.target, timeout=float(timeout))
        limit = self.max_poll_interval
        if not 0 < poll_interval <= limit:
            raise ValueError(
                f"poll_interval must be more than 0 and at most {limit} second{'' if limit == 1 else 's'}"
            )
        if failures_before_lost < 1:
            raise ValueError("failures_before_lost must be at least 1")
        if not 0 < reconnect_min <= reconnect_max:
            raise ValueError("need 0 < reconnect_min <= reconnect_max")
        self.poll_interval = float(poll_interval)
        self.failures_before_lost = int(failures_before_lost)
        self.reconnect_min = float(reconnect_min)
        self.reconnect_max = float(reconnect_max)
        self.stop_timeout = stop_timeout
        self._init_thread(dict.fromkeys(_COUNTERS + self.extra_counters, 0))
        self._io_lock = threading.Lock()  # one request at a time on the client (polls and commands)
        self._wake = threading.Event()
        self._client: Any = None
        self._online = False
        self._backoff = self.reconnect_min
        self._last_poll_at: datetime | None = None
        self._last_round_trip_us: int | None = None

    # -- what a subclass supplies ------------------------------------------------------

    def _poll(self, client: Any) -> Any:
        """Read the device once (under the I/O lock); raise PollError when it fails."""
        raise NotImplementedError

    def _note_poll(self, reading: Any) -> None:
        """Called under the state lock with each good reading, with the poll counters."""

    def _handle_poll(self, reading: Any, now: float, at: datetime) -> None:
        for event in self.tracker.update(reading, now, at):
            self._emit(event)

    def _wait_next(self, stop: threading.Event, started: float, due: float) -> float:
        """Wait until the next poll after a good one that began at `started`; return the next `due`.

        By default a poll starts ``poll_interval`` after the last one started, or at once when
        :attr:`_wake` is set (a command wants its effect seen now).
        """
        self._pause(stop, self.poll_interval - (time.monotonic() - started))
        return due

    def _wait_after_error(self, stop: threading.Event) -> None:
        self._pause(stop, self.poll_interval)

    def _tracker_counters(self) -> dict[str, int]:
        return {}

    def _device_health(self) -> dict[str, Any]:
        """The device's own part of health(), read under the state lock."""
        return {}

    # -- Driver contract -----------------------------------------------------------------

    def _unblock(self) -> None:
        self._wake.set()

    @property
    def connected(self) -> bool:
        return self._online

    def health(self) -> dict[str, Any]:
        info = super().health()
        with self._state:
            info.update(
                target=self.target.describe(),
                register_map=self.register_map.model,
                running=self.running,
                last_poll_at=self._last_poll_at.isoformat() if self._last_poll_at else None,
                last_error=self._last_error,
                reconnect_delay=self._backoff,
                last_round_trip_us=self._last_round_trip_us,
                counters=dict(self._counters, **self._tracker_counters()),
                **self._device_health(),
            )
        return info

    # -- polling thread ------------------------------------------------------------------

    def _make_client(self) -> Any:
        return self.target.client(self.device_id)

    def _run(self, stop: threading.Event) -> None:
        ever_online = False
        down_reported = False
        self._backoff = self.reconnect_min
        while not stop.is_set():
            client = self._make_client()
            try:
                opened = client.connect()
            except Exception:  # noqa: BLE001  # pragma: no cover - pymodbus catches its own errors
                opened = False
            if not opened:
                self._count("connect_failures")
                reason = f"cannot connect to {self.target.describe()}"
                self._set_error(reason)
                client.close()
                if not down_reported:
                    self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason))
                    down_reported = True
                self._sleep_backoff(stop)
                continue

            with self._io_lock:
                self._client = client
            failures = 0
            lost: str | None = None
            online = False
            due = time.monotonic()
            while not stop.is_set():
                started = time.monotonic()
                try:
                    with self._io_lock:
                        reading = self._poll(client)
                except PollError as exc:
                    failures += 1
                    self._count("poll_errors")
                    self._set_error(str(exc))
                    if failures >= self.failures_before_lost:
                        lost = str(exc)
                        break
                    self._wait_after_error(stop)
                    continue
                now = time.monotonic()
                at = utcnow()
                failures = 0
                with self._state:
                    self._counters["polls"] += 1
                    self._last_poll_at = at
                    self._last_round_trip_us = int((now - started) * 1e6)
                    self._note_poll(reading)
                if not online:
                    online = True
                    self._online = True
                    self._count("connects")
                    if ever_online:
                        self._count("reconnects")
                    ever_online = True
                    down_reported = False
                    self._backoff = self.reconnect_min
                    self.tracker.reset()
                    self._log.info("%s: connected to %s", self.thread_name, self.target.describe())
                    self._emit(DeviceConnected(device_id=self.device_id, port=self.url, at=at))
                self._handle_poll(reading, now, at)
                due = self._wait_next(stop, started, due)

            with self._io_lock:
                self._client = None
                self._online = False
            try:
                client.close()
            except Exception:  # noqa: BLE001  # pragma: no cover - logged; closing a lost client
                self._log.debug("%s: error closing the client", self.thread_name, exc_info=True)
            if lost is None:  # stop() was called
                if online:
                    self._emit(DeviceDisconnected(device_id=self.device_id, reason="stopped"))
                break
            if online or not down_reported:
                self._count("disconnects")
                self._log.warning("%s: link lost: %s", self.thread_name, lost)
                self._emit(DeviceDisconnected(device_id=self.device_id, reason=lost))
                down_reported = True
            self._sleep_backoff(stop)

    def _pause(self, stop: threading.Event, seconds: float) -> None:
        if seconds > 0 and not stop.is_set():
            self._wake.wait(seconds)
        self._wake.clear()

    def _emit(self, event: DeviceEvent) -> None:
        self._count("events")
        super()._emit(event)


def short_text(exc: BaseException) -> str:
    """An exception's text for a reason line: its type when it says nothing, cut when it says too much."""
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."
