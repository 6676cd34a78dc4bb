"""A simulated device's Modbus server (pymodbus 3.16), on an asyncio loop of its own thread.

TCP on 127.0.0.1, or RTU over a pair of ptys: the server opens one, the driver the other, and an
in-process relay carries the bytes between them like a null-modem cable, so that "pulling the
cable" is a relay that stops carrying. On TCP a pulled link is a server that closes every
connection and stops listening; plugging it back in listens again on the same port.

:class:`ModbusServerSim` is mixed into a device simulator, which calls ``_init_server(...)`` in its
``__init__`` and supplies:

* ``_sim_device()`` - the pymodbus ``SimDevice`` holding its registers;
* ``_start_ticking()`` / ``_stop_ticking()`` - start and stop its own clock on the loop;
* ``_on_stopped()`` - anything else to let go of once the server is down;
* ``_thread_name()`` and ``label`` - for the loop thread and the log.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import threading
import tty
from typing import Any, Self, TypeVar

__all__ = ["ModbusServerSim", "opened"]

_Sim = TypeVar("_Sim", bound="ModbusServerSim")


class ModbusServerSim:
    label = "Modbus simulator"

    def _init_server(self, *, transport: str, unit: int, host: str, port: int, baud: int) -> None:
        if transport not in ("tcp", "rtu"):
            raise ValueError("transport must be 'tcp' or 'rtu'")
        self.transport = transport
        self.unit = int(unit)
        self.host = host
        self.port = int(port)
        self.baud = int(baud)
        self.url: str | None = None
        self._lock = threading.RLock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: Any = None
        self._device: Any = None
        self._tick_task: asyncio.Task | None = None
        self._pushed: dict[tuple[str, int], int] = {}  # what the datastore holds, as we last pushed it
        self._link_up = True
        self._closed = False
        self._ptys: list[int] = []
        self._relay: tuple[int, int] | None = None
        self.slave_path: str | None = None  # RTU: the port the driver opens
        self.server_path: str | None = None  # RTU: the port the Modbus server opens

    @property
    def _log(self) -> logging.Logger:
        return logging.getLogger(type(self).__module__)  # log settings per simulator module keep working

    # -- what the device supplies ------------------------------------------------------

    def _sim_device(self) -> Any:
        raise NotImplementedError

    def _thread_name(self) -> str:
        raise NotImplementedError

    async def _start_ticking(self) -> None:
        """Start the device's clock (on the loop, once the server listens)."""

    async def _stop_ticking(self) -> None:
        """Stop the device's clock (on the loop, before the server shuts down)."""

    def _on_stopped(self) -> None:
        """Let go of what the device holds besides the server."""

    # -- lifecycle -----------------------------------------------------------------------

    def open(self) -> str:
        """Start the Modbus server; return the URL the driver opens."""
        with self._lock:
            if self._closed:
                raise RuntimeError("simulator was stopped")
            if self.url is not None:
                return self.url
            if self.transport == "rtu":
                self._open_ptys()
            self._loop = asyncio.new_event_loop()
            ready = threading.Event()
            errors: list[BaseException] = []
            self._thread = threading.Thread(
                target=self._run_loop, args=(ready, errors), daemon=True, name=self._thread_name()
            )
            self._thread.start()
        if not ready.wait(10) or errors:
            self.stop()
            raise RuntimeError(f"the Modbus simulator did not start: {errors[0] if errors else 'timeout'}")
        if self.transport == "tcp":
            self.url = f"modbus-tcp://{self.host}:{self.port}?unit={self.unit}"
        else:
            self.url = f"modbus-rtu://{self.slave_path}?baud={self.baud}&unit={self.unit}"
        return self.url

    def stop(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            try:
                asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=5)
            except Exception:  # noqa: BLE001 - logged; the loop is stopped next regardless
                self._log.debug("%s: shutdown failed", self.label, exc_info=True)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=5)
        if loop is not None and not loop.is_running():
            loop.close()
        for fd in self._ptys:
            try:
                os.close(fd)
            except OSError:
                pass
        self._ptys = []
        self._on_stopped()

    def start(self) -> None:
        self.open()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the loop thread -----------------------------------------------------------------

    def _run_loop(self, ready: threading.Event, errors: list[BaseException]) -> None:
        loop = self._loop
        assert loop is not None
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._setup())
        except BaseException as exc:  # noqa: BLE001  # pragma: no cover - port in use, pty trouble: open() raises it
            errors.append(exc)
            ready.set()
            return
        ready.set()
        loop.run_forever()

    async def _start_server(self) -> None:
        from pymodbus.framer import FramerType
        from pymodbus.server import ModbusSerialServer, ModbusTcpServer

        if self._device is None:
            self._device = self._sim_device()
        server: ModbusTcpServer | ModbusSerialServer
        if self.transport == "tcp":
            server = ModbusTcpServer(self._device, address=(self.host, self.port))
            await server.serve_forever(background=True)
            if self.port == 0:
                # pymodbus declares its listener a BaseTransport; a TCP one is the asyncio.Server
                self.port = server.transport.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        else:
            assert self.server_path is not None, "open() made the pty first"
            server = ModbusSerialServer(
                self._device, framer=FramerType.RTU, port=self.server_path, baudrate=self.baud
            )
            await server.serve_forever(background=True)
        self._server = server
        self._pushed = {}  # a new datastore: push the whole image again

    async def _setup(self) -> None:
        await self._start_server()
        if self._relay is not None:
            a, b = self._relay
            loop = asyncio.get_running_loop()
            loop.add_reader(a, self._relay_bytes, a, b)
            loop.add_reader(b, self._relay_bytes, b, a)
        await self._start_ticking()

    async def _shutdown(self) -> None:
        loop = asyncio.get_running_loop()
        if self._relay is not None:
            for fd in self._relay:
                loop.remove_reader(fd)
        await self._stop_ticking()
        if self._server is not None:
            await self._server.shutdown()
            self._server = None
        others = [t for t in asyncio.all_tasks(loop) if t is not asyncio.current_task()]
        for t in others:
            t.cancel()
        if others:
            await asyncio.wait(others, timeout=1.0)

    async def _cut_link(self) -> None:
        self._link_up = False
        if self.transport == "tcp" and self._server is not None:
            server, self._server = self._server, None
            await server.shutdown()

    async def _restore_link(self) -> None:
        if self._closed:
            return
        if self.transport == "tcp" and self._server is None:
            for _ in range(50):  # the port may take a moment to be free again
                try:
                    await self._start_server()
                    break
                except (OSError, RuntimeError):
                    await asyncio.sleep(0.05)
        self._link_up = True

    # -- RTU: a pty pair with a relay (an in-process null-modem cable) -------------------

    def _open_ptys(self) -> None:
        ma, sa = os.openpty()
        mb, sb = os.openpty()
        self._ptys = [ma, sa, mb, sb]
        for fd in (ma, mb):
            tty.setraw(fd)
            os.set_blocking(fd, False)
        self.server_path = os.ttyname(sa)
        self.slave_path = os.ttyname(sb)
        self._relay = (ma, mb)

    def _relay_bytes(self, src: int, dst: int) -> None:
        try:
            data = os.read(src, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:  # EIO: nobody has the slave open right now
            if exc.errno != errno.EIO:
                self._log.debug("relay read failed: %s", exc)
            return
        if not data or not self._link_up:
            return  # the cable is pulled: bytes fall on the floor
        try:
            os.write(dst, data)
        except OSError:
            pass


def opened(sim: _Sim) -> tuple[_Sim, str]:
    """``(sim, url)`` for a ``SIMULATORS`` factory; a simulator that fails to open is stopped (ptys closed)."""
    try:
        url = sim.open()
    except Exception:
        sim.stop()
        raise
    return sim, url
