"""Reusable driver base for line-oriented serial devices (wheels, shoes, ball readers).

Layering (shared/style.md): pyserial URL transport -> :class:`devices.framing.LineFramer`
-> subclass ``handle_line`` (parser + tracker) -> typed events to ``on_event``.

The port is opened only through ``serial.serial_for_url``, so the configured URL
may be a device path, ``socket://host:port``, ``loop://`` or
``spy://<port>?file=trace.txt`` (a technician's wire trace). Modem lines (RTS/DTR)
are never touched: a pty refuses them with Errno 25.

One daemon thread per driver, named ``<kind>:<device_id>``, owns the port: it
opens it, reads, frames, calls :meth:`SerialLineDriver.handle_line` and hands
each event to ``on_event``; when the port errors, reaches EOF or vanishes it
emits :class:`DeviceDisconnected` and reopens it with exponential backoff
until :meth:`stop`. Exceptions raised by ``handle_line`` or by ``on_event`` are
counted and logged; they never end the thread.
"""
# Engineers working in parallel: read docs/engineering.md first (file ownership, no git commands, test rules).

from __future__ import annotations

import logging
import sys
import threading
import time
from abc import abstractmethod
from datetime import datetime
from typing import Any

import serial

from .base import DeviceNotConnected, Driver, EventSink
from .events import DeviceConnected, DeviceDisconnected, DeviceEvent, DeviceUnknownMessage, utcnow
from .framing import DEFAULT_MAX_LINE, LineFramer

__all__ = ["SerialLineDriver"]

log = logging.getLogger(__name__)


class SerialLineDriver(Driver):
    """Base class: subclasses set ``kind``/``baudrate`` and implement :meth:`handle_line`."""

    #: default line speed; subclasses override (the pty and socket handlers ignore it)
    baudrate: int = 9600
    #: line terminator appended by :meth:`send`
    terminator: str = "\r\n"

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: EventSink,
        *,
        baudrate: int | None = None,
        read_timeout: float = 0.1,
        write_timeout: float = 2.0,
        reconnect_min: float = 0.05,
        reconnect_max: float = 5.0,
        max_line: int = DEFAULT_MAX_LINE,
        partial_line_timeout: float | None = 2.0,
        silence_timeout: float | None = None,
        stop_timeout: float = 5.0,
        **options: Any,
    ) -> None:
        super().__init__(device_id, url, on_event, **options)
        if not 0 < reconnect_min <= reconnect_max:
            raise ValueError("need 0 < reconnect_min <= reconnect_max")
        if baudrate is not None:
            self.baudrate = baudrate
        self.read_timeout = read_timeout
        self.write_timeout = write_timeout
        self.reconnect_min = reconnect_min
        self.reconnect_max = reconnect_max
        #: a held partial line with no new byte for this long is dropped as garbage (None: never)
        self.partial_line_timeout = partial_line_timeout
        #: a device that talks continuously and then says nothing for this long is reported lost
        #: (a wheel losing mains power leaves its serial line open but silent); None: never
        self.silence_timeout = silence_timeout
        self.silent = False
        self.stop_timeout = stop_timeout

        self._framer = LineFramer(max_line=max_line)
        self._port: serial.SerialBase | None = None
        self._port_lock = threading.Lock()  # guards _port and every write
        self._state_lock = threading.Lock()  # guards counters / last line for health()
        self._lifecycle_lock = threading.Lock()
        self._stop_event = threading.Event()
        self._thread: threading.Thread | None = None

        self._last_line: str | None = None
        self._last_line_at: datetime | None = None
        self._last_error: str | None = None
        self._backoff = reconnect_min
        self._counters: dict[str, int] = {
            "bytes_in": 0,
            "lines": 0,
            "unknown_lines": 0,
            "commands_sent": 0,
            "connects": 0,
            "reconnects": 0,
            "disconnects": 0,
            "open_failures": 0,
            "handler_errors": 0,
            "callback_errors": 0,
            "partial_lines_dropped": 0,
            "silences": 0,
        }

    # -- hooks for subclasses ------------------------------------------------
    @abstractmethod
    def handle_line(self, line: str) -> list[DeviceEvent]:
        """Turn one complete line (trailing whitespace stripped) into events."""

    def on_connected(self) -> None:
        """Called on the reader thread each time the port opens, before DeviceConnected."""

    def device_info(self) -> dict[str, Any]:
        """Device-specific part of :meth:`health`."""
        return {}

    # -- Driver contract -----------------------------------------------------
    @property
    def thread_name(self) -> str:
        return f"{self.kind or type(self).__name__}:{self.device_id}"

    def start(self) -> None:
        with self._lifecycle_lock:
            if self._thread is not None:
                return
            self._stop_event = threading.Event()
            self._thread = threading.Thread(
                target=self._run, args=(self._stop_event,), name=self.thread_name, daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        with self._lifecycle_lock:
            thread, self._thread = self._thread, None
            self._stop_event.set()
        if thread is None or thread is threading.current_thread():
            return  # never started, already stopped, or called from on_event (the thread ends by itself)
        thread.join(self.stop_timeout)
        if thread.is_alive():  # pragma: no cover - only with a write stuck past write_timeout
            log.error("%s: reader thread did not stop within %.1f s", self.thread_name, self.stop_timeout)

    @property
    def connected(self) -> bool:
        return self._port is not None

    def send(self, command: str) -> None:
        """Write ``command`` + CR LF. Thread-safe; raises DeviceNotConnected when the link is down."""
        if "\r" in command or "\n" in command:
            raise ValueError(f"command must not contain a line terminator: {command!r}")
        try:
            data = (command + self.terminator).encode("ascii")
        except UnicodeEncodeError:
            raise ValueError(f"command must be ASCII: {command!r}") from None
        with self._port_lock:
            port = self._port
            if port is None:
                raise DeviceNotConnected(f"{self.device_id}: not connected to {self.url}")
            try:
                port.write(data)
            except (serial.SerialException, OSError) as exc:
                # the reader thread sees the same failure and runs the reconnect loop
                raise DeviceNotConnected(f"{self.device_id}: write failed: {exc}") from exc
        with self._state_lock:
            self._counters["commands_sent"] += 1
        log.debug("%s: sent %r", self.thread_name, command)

    def health(self) -> dict[str, Any]:
        info = super().health()
        with self._state_lock:
            counters = dict(self._counters)
            info.update(
                last_line=self._last_line,
                last_line_at=self._last_line_at.isoformat() if self._last_line_at else None,
                last_error=self._last_error,
                reconnect_delay=self._backoff,
            )
        counters["garbage_bytes"] = self._framer.garbage_bytes
        counters["decode_errors"] = self._framer.decode_errors
        counters["overlong_lines"] = self._framer.overlong_lines
        info["running"] = self._thread is not None
        info["silent"] = self.silent
        info["counters"] = counters
        info["device"] = self.device_info()
        return info

    # -- reader thread -------------------------------------------------------
    def _run(self, stop: threading.Event) -> None:
        ever_connected = False
        down_reported = False
        self._backoff = self.reconnect_min
        while not stop.is_set():
            try:
                port = serial.serial_for_url(
                    self.url, baudrate=self.baudrate, timeout=self.read_timeout, write_timeout=self.write_timeout
                )
            except Exception as exc:  # SerialException, OSError, ValueError for a bad URL
                self._count("open_failures")
                reason = f"cannot open {self.url}: {exc}"
                self._set_error(reason)
                if not down_reported:
                    log.warning("%s: %s", self.thread_name, reason)
                    self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason))
                    down_reported = True
                else:
                    log.debug("%s: %s", self.thread_name, reason)
                self._sleep_backoff(stop)
                continue

            got_data = False
            try:
                self._framer.discard_partial()  # never join bytes from two connections
                with self._port_lock:
                    self._port = port
                self._count("connects")
                if ever_connected:
                    self._count("reconnects")
                ever_connected = True
                down_reported = False
                log.info("%s: connected to %s", self.thread_name, self.url)
                try:
                    self.on_connected()
                except Exception:
                    self._count("handler_errors")
                    log.exception("%s: on_connected failed", self.thread_name)
                self._emit(DeviceConnected(device_id=self.device_id, port=self.url))
                reason, got_data = self._read_loop(port, stop)
            finally:
                with self._port_lock:
                    self._port = None
                self._close_port(port)

            if reason is None:  # stop() was called
                self._emit(DeviceDisconnected(device_id=self.device_id, reason="stopped"))
                break
            self._count("disconnects")
            self._set_error(reason)
            log.warning("%s: disconnected: %s", self.thread_name, reason)
            self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason))
            down_reported = True
            if got_data:
                self._backoff = self.reconnect_min  # the link was healthy: retry quickly
            self._sleep_backoff(stop)

    def _close_port(self, port: serial.SerialBase) -> None:
        try:
            port.close()
        except Exception:  # pragma: no cover - closing a vanished device
            log.debug("%s: error closing port", self.thread_name, exc_info=True)
        # pyserial's spy:// handler opens its ?file= trace and never closes it: one
        # leaked descriptor per reconnect unless we close it here.
        output = getattr(getattr(port, "formatter", None), "output", None)
        if output is not None and output not in (sys.stderr, sys.stdout, sys.__stderr__, sys.__stdout__):
            try:
                output.close()
            except Exception:  # pragma: no cover
                pass

    def _sleep_backoff(self, stop: threading.Event) -> None:
        stop.wait(self._backoff)
        self._backoff = min(self._backoff * 2, self.reconnect_max)

    def _read_loop(self, port: serial.SerialBase, stop: threading.Event) -> tuple[str | None, bool]:
        """Read until stop (returns None) or a port error (returns the reason)."""
        got_data = False
        last_rx = time.monotonic()
        self.silent = False
        while not stop.is_set():
            try:
                data = port.read(port.in_waiting or 1)
            except Exception as exc:  # SerialException, OSError (EIO when a pty/USB port vanishes)
                return f"read failed: {exc}", got_data
            now = time.monotonic()
            if not data:
                if (
                    self.partial_line_timeout is not None
                    and self._framer.pending
                    and now - last_rx > self.partial_line_timeout
                ):
                    dropped = self._framer.discard_partial()
                    self._count("partial_lines_dropped")
                    log.info("%s: dropped a %d-byte partial line after silence", self.thread_name, dropped)
                if (self.silence_timeout is not None and got_data and not self.silent
                        and now - last_rx > self.silence_timeout):
                    self._went_silent(now - last_rx)
                continue
            got_data = True
            last_rx = now
            if self.silent:
                self._spoke_again()
            try:
                self._feed(data)
            except Exception:  # pragma: no cover - belt and braces: the thread must survive
                self._count("handler_errors")
                log.exception("%s: error while processing input", self.thread_name)
        return None, got_data

    def _went_silent(self, seconds: float) -> None:
        self.silent = True
        self._count("silences")
        reason = f"no data from the device for {seconds:.1f} s (powered off or cable pulled?)"
        self._set_error(reason)
        log.warning("%s: %s", self.thread_name, reason)
        self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason))

    def _spoke_again(self) -> None:
        self.silent = False
        self._framer.discard_partial()
        log.info("%s: the device is talking again", self.thread_name)
        try:
            self.on_connected()  # what happened while it was silent is unknown, as after a reconnect
        except Exception:
            self._count("handler_errors")
            log.exception("%s: on_connected failed", self.thread_name)
        self._emit(DeviceConnected(device_id=self.device_id, port=self.url))

    def _feed(self, data: bytes) -> None:
        with self._state_lock:
            self._counters["bytes_in"] += len(data)
        for line in self._framer.feed(data):
            with self._state_lock:
                self._counters["lines"] += 1
                self._last_line = line
                self._last_line_at = utcnow()
            try:
                events = list(self.handle_line(line))
            except Exception:
                self._count("handler_errors")
                log.exception("%s: handle_line failed on %r", self.thread_name, line)
                # keep the line in the journal even though we could not understand it
                events = [DeviceUnknownMessage(device_id=self.device_id, raw=line)]
            for event in events:
                if isinstance(event, DeviceUnknownMessage):
                    self._count("unknown_lines")
                self._emit(event)

    def _emit(self, event: DeviceEvent) -> None:
        try:
            self.on_event(event)
        except Exception:
            self._count("callback_errors")
            log.exception("%s: on_event failed for %s", self.thread_name, type(event).__name__)

    def _count(self, name: str, n: int = 1) -> None:
        with self._state_lock:
            self._counters[name] = self._counters.get(name, 0) + n

    def _set_error(self, reason: str) -> None:
        with self._state_lock:
            self._last_error = reason
