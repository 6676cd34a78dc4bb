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

Reads take what has come, up to 64 KiB, on every transport (pyserial's socket handler says at most one byte is
waiting, so after the first byte a ``socket://`` port is drained without waiting). A device path is opened
exclusively (``flock``): a second studio on the same wheel is refused with "port in use" and its table pauses.
A device that sends bytes but no line its driver understands (only unknown lines, over-long lines, no
newline) for ``garbage_timeout`` seconds (10) is reported like a lost one, ``DeviceDisconnected`` with the
reason "device sends garbage: ...", so its table holds; the first valid line brings ``DeviceConnected``.

A plain device path (a tty or pty; not ``socket://``, ``loop://`` or ``spy://``)
is read by one thread shared by all such drivers, ``serial-reader``: it waits
on every open port at once, and for each port that has bytes it frames, parses
and calls ``on_event`` (so ``handle_line`` and ``on_event`` run on that thread
and must not block); it also runs the partial-line and silence timers. The
driver's own thread then only opens the port, waits (without waking) while the
link is up and reconnects. The shared thread ends when no port is open.

:meth:`SerialLineDriver.read_on_loop` (called before :meth:`start`) reads such a port on
an asyncio event loop instead (``loop.add_reader``): ``handle_line``, ``on_event`` and
the timers then run on the loop's thread, with no thread hop between the port and the
loop. The driver's thread still opens, reconnects and backs off; the port is taken off
the loop before it is closed. A driver whose event times are judged (``timed_reads``: a
wheel's time in the rim) stays on the shared reader, so that a busy loop cannot delay the
moment its lines are stamped.
"""

from __future__ import annotations

import asyncio
import logging
import os
import select
import selectors
import sys
import threading
import time
from abc import abstractmethod
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import serial

from .base import DeviceNotConnected, EventSink
from .events import DeviceConnected, DeviceDisconnected, DeviceEvent, DeviceUnknownMessage, utcnow
from .framing import DEFAULT_MAX_LINE, LineFramer
from .threaded import ThreadedDriver

__all__ = ["SerialLineDriver"]

log = logging.getLogger(__name__)


#: the pyserial URL handlers a serial device's URL may name (anything else is a device path)
_URL_SCHEMES = ("socket", "rfc2217", "loop", "spy", "hwgrep", "alt")

#: the most one read takes from a port (a pty's reads, a socket's drain)
_CHUNK = 65536

#: the words a port another program holds opens with (a second studio on the same wheel)
PORT_IN_USE = "port in use"


def _is_device_path(url: str) -> bool:
    """A tty or pty path (not one of pyserial's URL handlers): opened exclusively."""
    scheme, sep, _ = url.partition("://")
    return not (sep and scheme.lower() in _URL_SCHEMES)


class SerialLineDriver(ThreadedDriver):
    """Base class: subclasses set ``kind``/``baudrate`` and implement :meth:`handle_line`."""

    @classmethod
    def check_options(cls, url: str | None, options: Mapping[str, Any]) -> list[str]:
        """Besides the options: a URL pyserial would refuse only when the thread opens it (a missing tty is no
        problem here: the device may be plugged in later, and its table pauses until then)."""
        problems = super().check_options(url, options)
        scheme, sep, rest = (url or "").partition("://")
        if sep and scheme.lower() not in _URL_SCHEMES:
            problems.append(
                f"{url!r}: not a serial port: a device path (/dev/ttyUSB0), socket://host:port, "
                "rfc2217://host:port, spy://PORT or loop://"
            )
        elif sep and scheme.lower() in ("socket", "rfc2217"):
            host, _, port = rest.split("/", 1)[0].rpartition(":")
            if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
                problems.append(f"{url!r}: {scheme}:// needs host:port with a port 1-65535")
        return problems

    #: default line speed; subclasses override (the pty and socket handlers ignore it)
    baudrate: int = 9600
    #: line terminator appended by :meth:`send`
    terminator: str = "\r\n"
    #: read a plain device path on the shared ``serial-reader`` thread (False: on this driver's thread)
    shared_reader: bool = True
    #: this driver's event times are judged (a wheel's time in the rim gives the ball's revolutions): its plain
    #: device path is read on the shared reader thread even when read_on_loop() asks for the loop, so that an
    #: event's `at` is when the bytes came, not when a busy loop got round to them (docs/roulette.md)
    timed_reads: bool = False

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
        garbage_timeout: float | None = 10.0,
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
        if garbage_timeout is not None and garbage_timeout <= 0:
            raise ValueError("garbage_timeout must be positive (or None: never)")
        #: a device that sends bytes but no valid line for this long is reported (wrong baud rate, wrong
        #: port, a broken device); None: never
        self.garbage_timeout = garbage_timeout
        self.garbage = False
        #: when the bytes began that have not made a valid line yet (None: the last line was valid)
        self._junk_since: float | None = None
        self.stop_timeout = stop_timeout

        # _state (ThreadedDriver) guards the counters and the last line for health()
        self._init_thread(
            dict.fromkeys(
                (
                    "bytes_in",
                    "reads",
                    "lines",
                    "unknown_lines",
                    "commands_sent",
                    "connects",
                    "reconnects",
                    "disconnects",
                    "open_failures",
                    "handler_errors",
                    "callback_errors",
                    "partial_lines_dropped",
                    "silences",
                    "garbage_spells",
                ),
                0,
            )
        )
        self._framer = LineFramer(max_line=max_line)
        self._port: serial.SerialBase | None = None
        self._port_lock = threading.Lock()  # guards _port and every write
        self._link: _Link | None = None  # while the shared reader (or the loop) reads this driver's port
        self._loop: asyncio.AbstractEventLoop | None = None  # read_on_loop()

        self._last_line: str | None = None
        self._last_line_at: datetime | None = None
        self._backoff = reconnect_min

    # -- hooks for subclasses ------------------------------------------------
    @abstractmethod
    def handle_line(self, line: str) -> list[DeviceEvent]:
        """Turn one complete line (trailing whitespace stripped) into events."""

    def on_connected(self) -> None:
        """Called on the reader thread each time the port opens, before DeviceConnected."""

    def device_info(self) -> dict[str, Any]:
        """Device-specific part of :meth:`health`."""
        return {}

    def read_on_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """Read a plain device path on ``loop`` (``loop.add_reader``) rather than on the shared reader thread.

        Call before :meth:`start`. ``handle_line`` and ``on_event`` then run on the loop's thread (they must not
        block it); the connect/disconnect events still come from the driver's own thread. ``None``: the shared
        reader thread (the default). socket://, loop:// and spy:// ports keep their own thread either way, and a
        driver with ``timed_reads`` keeps the shared reader thread.
        """
        self._loop = None if self.timed_reads else loop

    # -- Driver contract -----------------------------------------------------
    def _unblock(self) -> None:
        with self._lifecycle:
            link = self._link
        if link is not None:
            if link.loop is not None and asyncio._get_running_loop() is link.loop:
                _loop_detach(link)  # on the loop itself: the driver's thread cannot wait for it while we join
            link.wake.set()

    def _called_from_reader(self) -> bool:
        return _READER.is_current()

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
        with self._state:
            self._counters["commands_sent"] += 1
        log.debug("%s: sent %r", self.thread_name, command)

    def health(self) -> dict[str, Any]:
        info = super().health()
        with self._state:
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
        info["running"] = self.running
        info["silent"] = self.silent
        info["garbage"] = self.garbage
        info["counters"] = counters
        info["device"] = self.device_info()
        return info

    # -- reader thread -------------------------------------------------------
    def _run(self, stop: threading.Event) -> None:
        ever_connected = False
        down_reported = False
        reason: str | None  # why the port is down; None once stop() was called
        self._backoff = self.reconnect_min
        while not stop.is_set():
            try:
                port = serial.serial_for_url(
                    self.url,
                    baudrate=self.baudrate,
                    timeout=self.read_timeout,
                    write_timeout=self.write_timeout,
                    # two studios reading one wheel would both certify its results: the second is refused
                    **({"exclusive": True} if _is_device_path(self.url) else {}),
                )
            except Exception as exc:  # noqa: BLE001 - SerialException, OSError, ValueError (bad URL), ...: retry
                self._count("open_failures")
                reason = f"cannot open {self.url}: {exc}"
                if "exclusively lock" in str(exc):
                    reason = (
                        f"cannot open {self.url}: {PORT_IN_USE}: another program (a second studio?) "
                        f"has it open ({exc})"
                    )
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
                self.garbage, self._junk_since = False, None
                with self._port_lock:
                    self._port = port
                self._count("connects")
                if ever_connected:
                    self._count("reconnects")
                ever_connected = True
                down_reported = False
                log.info("%s: connected to %s", self.thread_name, self.url)
                self._announce_connected()
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
        from serial.urlhandler.protocol_spy import Serial as SpySerial

        formatter = port.formatter if isinstance(port, SpySerial) else None
        output = formatter.output if formatter is not None else None
        if output is not None and output not in (sys.stderr, sys.stdout, sys.__stderr__, sys.__stdout__):
            try:
                output.close()
            except Exception:  # pragma: no cover
                log.debug("%s: error closing the spy trace", self.thread_name, exc_info=True)

    def _read_loop(self, port: serial.SerialBase, stop: threading.Event) -> tuple[str | None, bool]:
        """Read until stop (returns None) or a port error (returns the reason)."""
        # only pyserial's own posix class: spy:// (a subclass) must go through its read() to be traced
        if self.shared_reader and type(port) is serial.Serial and isinstance(port.fd, int):
            loop = self._loop
            if loop is not None and not loop.is_closed():
                return self._loop_read_loop(loop, port.fd, stop)
            return self._shared_read_loop(port.fd, stop)
        got_data = False
        last_rx = time.monotonic()
        self.silent = False
        from serial.urlhandler.protocol_socket import Serial as SocketSerial

        # pyserial's socket:// says at most one byte is waiting: read what has come at once after the first
        drain = isinstance(port, SocketSerial)
        while not stop.is_set():
            try:
                data = port.read(max(1, port.in_waiting))  # waits up to read_timeout for the first byte
                if data and drain:
                    port.timeout = 0  # (the socket handler's reconfigure does nothing)
                    try:
                        data += port.read(_CHUNK)
                    finally:
                        port.timeout = self.read_timeout
            except Exception as exc:  # noqa: BLE001 - SerialException, OSError (EIO: the port vanished), ...
                return f"read failed: {exc}", got_data
            now = time.monotonic()
            if not data:
                self._run_timers(now - last_rx, got_data)
                continue
            got_data = True
            last_rx = now
            self._received(data)
        return None, got_data

    def _shared_read_loop(self, fd: int, stop: threading.Event) -> tuple[str | None, bool]:
        """The shared reader reads the port; this thread sleeps until the link fails or stop()."""
        self.silent = False
        link = _Link(self, fd)
        with self._lifecycle:
            self._link = link
        _READER.add(link)
        try:
            while not stop.is_set() and link.reason is None:
                link.wake.wait()
                link.wake.clear()
        finally:
            _READER.remove(link)  # once it returns, the reader calls nothing of ours
            with self._lifecycle:
                self._link = None
        return (None if stop.is_set() else link.reason), link.got_data

    def _loop_read_loop(
        self, loop: asyncio.AbstractEventLoop, fd: int, stop: threading.Event
    ) -> tuple[str | None, bool]:
        """The loop reads the port (read_on_loop); this thread sleeps until the link fails or stop()."""
        self.silent = False
        link = _Link(self, fd)
        link.loop = loop
        with self._lifecycle:
            self._link = link
        try:
            try:
                loop.call_soon_threadsafe(_loop_attach, link)
            except RuntimeError:  # the loop closed meanwhile
                link.down("read failed: the event loop that reads this port is closed")
            while not stop.is_set() and link.reason is None:
                link.wake.wait()
                link.wake.clear()
        finally:
            _loop_detach(link)  # once it returns, the loop calls nothing of ours and the port may close
            with self._lifecycle:
                self._link = None
        return (None if stop.is_set() else link.reason), link.got_data

    def _read_ready(self, link: _Link) -> None:
        """On the shared reader: the port has bytes (or an error)."""
        try:
            data = os.read(link.fd, _CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:  # EIO when a pty/USB port vanishes (the same words as pyserial's read)
            link.down(f"read failed: read failed: {exc}")
            return
        if not data:
            link.down(
                "read failed: device reports readiness to read but returned no data "
                "(device disconnected or multiple access on port?)"
            )
            return
        link.got_data = True
        link.last_rx = time.monotonic()
        self._received(data)

    def _check_timers(self, link: _Link, now: float) -> None:
        """On the shared reader, every read_timeout: the partial-line, silence and garbage timers."""
        self._check_garbage(now)  # before the wait for a quiet moment: a flood has none
        if not any(self._timers_due(now - link.last_rx, link.got_data)):
            return
        if select.select([link.fd], [], [], 0)[0]:
            return  # bytes came while this thread waited for the CPU: read them before calling it silence
        self._run_timers(now - link.last_rx, link.got_data)

    def _timers_due(self, quiet: float, got_data: bool) -> tuple[bool, bool]:
        """(drop the partial line, call the device silent) after `quiet` seconds without a byte."""
        return (
            self.partial_line_timeout is not None
            and bool(self._framer.pending)
            and quiet > self.partial_line_timeout,
            self.silence_timeout is not None
            and got_data
            and not self.silent
            and quiet > self.silence_timeout,
        )

    def _run_timers(self, quiet: float, got_data: bool) -> None:
        drop, silent = self._timers_due(quiet, got_data)
        if drop:
            dropped = self._framer.discard_partial()
            self._count("partial_lines_dropped")
            log.info("%s: dropped a %d-byte partial line after silence", self.thread_name, dropped)
        if silent:
            self._went_silent(quiet)
        self._check_garbage(time.monotonic())

    def _check_garbage(self, now: float) -> None:
        """Bytes but no valid line for longer than garbage_timeout: the device is reported (as a lost one)."""
        since = self._junk_since
        if self.garbage or self.garbage_timeout is None or since is None or self.silent:
            return
        if now - since <= self.garbage_timeout:
            return
        self.garbage = True
        self._count("garbage_spells")
        reason = (
            f"device sends garbage: no valid line for {now - since:.1f} s "
            "(wrong port or baud rate, or a faulty device?)"
        )
        self._set_error(reason)
        log.warning("%s: %s", self.thread_name, reason)
        self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason))

    def _sane_again(self) -> None:
        self.garbage = False
        log.info("%s: the device sends valid lines again", self.thread_name)
        self._announce_connected()  # what it meant meanwhile is unknown, as after a reconnect

    def _received(self, data: bytes) -> None:
        """Bytes from the port, on whichever reader read them (its own thread, the shared reader, the loop)."""
        if self.silent:
            self._spoke_again()
        try:
            self._feed(data)
        except Exception:  # pragma: no cover - belt and braces: the reader must survive
            self._count("handler_errors")
            log.exception("%s: error while processing input", self.thread_name)

    def _went_silent(self, seconds: float) -> None:
        self.silent = True
        self._count("silences")
        reason = f"no data from the device for {seconds:.1f} s (powered off or cable pulled?)"
        self._set_error(reason)
        log.warning("%s: %s", self.thread_name, reason)
        self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason))

    def _spoke_again(self) -> None:
        self.silent = False
        self.garbage, self._junk_since = False, None  # a fresh start: it has been quiet
        self._framer.discard_partial()
        log.info("%s: the device is talking again", self.thread_name)
        self._announce_connected()  # what happened while it was silent is unknown, as after a reconnect

    def _announce_connected(self) -> None:
        try:
            self.on_connected()
        except Exception:
            self._count("handler_errors")
            log.exception("%s: on_connected failed", self.thread_name)
        self._emit(DeviceConnected(device_id=self.device_id, port=self.url))

    def _feed(self, data: bytes) -> None:
        now = time.monotonic()
        with self._state:
            self._counters["bytes_in"] += len(data)
            self._counters["reads"] += 1  # bytes_in / reads: how well the transport is read in chunks
        garbage_before = self._framer.garbage_bytes
        for line in self._framer.feed(data):
            with self._state:
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
            if all(isinstance(e, DeviceUnknownMessage) for e in events) and events:
                if self._junk_since is None:
                    self._junk_since = now
            else:  # a line the driver understood (even one that changes nothing)
                self._junk_since = None
                if self.garbage:
                    self._sane_again()
            for event in events:
                if isinstance(event, DeviceUnknownMessage):
                    self._count("unknown_lines")
                self._emit(event)
        if self._junk_since is None and (
            self._framer.pending or self._framer.garbage_bytes != garbage_before
        ):
            self._junk_since = now  # the start of a line, or an over-long one thrown away
        self._check_garbage(now)


class _Link:
    """One open port read by the shared reader."""

    def __init__(self, driver: SerialLineDriver, fd: int) -> None:
        self.driver = driver
        self.fd = fd
        self.reason: str | None = None  # set by the reader when the port fails
        self.got_data = False
        self.last_rx = time.monotonic()
        self.next_check = self.last_rx + driver.read_timeout
        self.wake = threading.Event()  # wakes the driver's thread (failure or stop)
        self.removed = threading.Event()
        # read_on_loop: the loop that reads the port, whether its reader is registered, the timer handle
        self.loop: asyncio.AbstractEventLoop | None = None
        self.attached = False
        self.detached = False
        self.timer: asyncio.TimerHandle | None = None

    def down(self, reason: str) -> None:
        self.reason = reason
        self.wake.set()


def _loop_attach(link: _Link) -> None:
    """On the loop: start reading the port (unless the link was already given up)."""
    loop = link.loop
    assert loop is not None
    if link.detached or link.reason is not None:
        return
    try:
        loop.add_reader(link.fd, _loop_ready, link)
    except (OSError, ValueError, KeyError) as exc:
        link.down(f"read failed: {exc}")
        return
    link.attached = True
    link.timer = loop.call_later(link.driver.read_timeout, _loop_tick, link)


def _loop_unregister(link: _Link) -> None:
    """On the loop (or with the loop not running): stop reading the port."""
    if link.attached:
        link.attached = False
        if link.timer is not None:
            link.timer.cancel()
        try:
            link.loop.remove_reader(link.fd)  # type: ignore[union-attr]
        except (OSError, ValueError, RuntimeError):  # pragma: no cover - a closed loop
            pass


def _loop_ready(link: _Link) -> None:
    if not link.attached:
        return
    try:
        link.driver._read_ready(link)
    finally:
        if link.reason is not None:
            _loop_unregister(link)  # before the driver's thread closes the port


def _loop_tick(link: _Link) -> None:
    if not link.attached:
        return
    try:
        link.driver._check_timers(link, time.monotonic())
    except Exception:  # pragma: no cover - the timers must keep running
        log.exception("%s: timer check failed", link.driver.thread_name)
    if link.attached:
        link.timer = link.loop.call_later(link.driver.read_timeout, _loop_tick, link)  # type: ignore[union-attr]


def _loop_finish(link: _Link) -> None:
    _loop_unregister(link)
    link.removed.set()


def _loop_detach(link: _Link) -> None:
    """Take the port off its loop and wait until the loop no longer reads it (from any thread)."""
    loop = link.loop
    assert loop is not None
    link.detached = True  # an attach that has not run yet does nothing
    if link.removed.is_set():
        return
    if asyncio._get_running_loop() is loop or loop.is_closed():
        _loop_finish(link)
        return
    try:
        loop.call_soon_threadsafe(_loop_finish, link)
    except RuntimeError:  # closed meanwhile: nothing reads the port any more
        link.removed.set()
        return
    while not link.removed.wait(0.05):
        if not loop.is_running():  # a stopped loop runs no callback: nobody selects on the port, drop it here
            _loop_finish(link)
            return


class _SharedReader:
    """One thread that waits on every open posix port and reads those that have bytes.

    With a thread per port, 50 wheels are 50 threads that each wake on every line and every read
    timeout and want the GIL at the moment the journal and the event loop do; one thread reading
    every ready port in a row hands the GIL over far less often.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._commands: list[tuple[str, _Link]] = []
        self._wake_w = -1

    def is_current(self) -> bool:
        return self._thread is not None and self._thread is threading.current_thread()

    def add(self, link: _Link) -> None:
        with self._lock:
            self._commands.append(("add", link))
            if self._thread is None:
                wake_r, self._wake_w = os.pipe()
                os.set_blocking(wake_r, False)
                os.set_blocking(self._wake_w, False)
                self._thread = threading.Thread(
                    target=self._run, args=(wake_r, self._wake_w), name="serial-reader", daemon=True
                )
                self._thread.start()
            else:
                self._poke()

    def remove(self, link: _Link) -> None:
        with self._lock:
            thread = self._thread
            if thread is None:
                return
            self._commands.append(("remove", link))
            self._poke()
        link.removed.wait()
        with self._lock:
            ending = self._thread is not thread
        if ending:  # that was the last port: leave no thread and no descriptor behind
            thread.join()

    def _poke(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except BlockingIOError:
            pass  # already poked

    def _run(self, wake_r: int, wake_w: int) -> None:
        sel = selectors.DefaultSelector()
        sel.register(wake_r, selectors.EVENT_READ)
        links: dict[int, _Link] = {}
        try:
            while True:
                with self._lock:  # remove() sees the removal and the decision to end together
                    commands, self._commands = self._commands, []
                    for op, link in commands:
                        if op == "remove":
                            if links.get(link.fd) is link:
                                del links[link.fd]
                                sel.unregister(link.fd)
                            link.removed.set()
                        elif link.reason is None:
                            try:
                                sel.register(link.fd, selectors.EVENT_READ, link)
                                links[link.fd] = link
                            except (OSError, ValueError, KeyError) as exc:
                                link.down(f"read failed: {exc}")
                    if not links:
                        self._thread = None  # the next add() starts a new thread
                        return
                now = time.monotonic()
                timeout = max(0.0, min(link.next_check for link in links.values()) - now)
                for key, _ in sel.select(timeout):
                    link = key.data
                    if link is None:
                        try:
                            os.read(wake_r, 4096)
                        except BlockingIOError:
                            pass
                        continue
                    link.driver._read_ready(link)
                    if link.reason is not None:
                        del links[link.fd]
                        sel.unregister(link.fd)
                now = time.monotonic()
                for link in list(links.values()):
                    if now >= link.next_check:
                        link.next_check = now + link.driver.read_timeout
                        try:
                            link.driver._check_timers(link, now)
                        except Exception:  # pragma: no cover - the reader must survive
                            log.exception("%s: timer check failed", link.driver.thread_name)
        except BaseException:  # pragma: no cover - every open link would hang: fail them all
            log.exception("serial-reader: stopped on an error")
            with self._lock:
                self._thread = None
                for _, link in self._commands:
                    link.down("the serial reader thread failed")
                    link.removed.set()
                self._commands = []
            for link in links.values():
                link.down("the serial reader thread failed")
                link.removed.set()
            raise
        finally:
            sel.close()
            os.close(wake_r)
            os.close(wake_w)


_READER = _SharedReader()
