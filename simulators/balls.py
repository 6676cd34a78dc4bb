"""Software twins of a ball draw machine (lototron) and of the ball readers at its chute.

Three simulators, one physical path:

* :class:`BallMachineSimulator` - the machine's PLC as a real Modbus server
  (pymodbus 3.16 ``SimDevice`` datastore), over **TCP** on 127.0.0.1 or **RTU** over
  a pair of ptys (the server opens one, the driver the other, and the simulator
  relays the bytes between them like a cable, so a "cable pull" is a relay that
  stops). It implements any register map (default: the generic map the driver
  ships) and behaves in time: the blower spins up, a release opens the gate, one
  ball passes it (the counter goes up), falls into the chute (the chute sensor
  goes on), is read, and rolls on into the display tube.
* :class:`BallReaderSimulator` - an RFID reader on a pty: one line per tag,
  repeated a few times as a real reader does while the ball is in its field.
* :class:`BallCameraSimulator` - a camera at the chute: frames with the ball's
  Code128 on a local TCP socket (``frames+tcp://``, the frame stream of devices/camera/frames.py).

Cooperation ("the reader reads the ball the machine released"): every simulator
joins a :class:`BallPath` named by its ``machine_id`` option (default: the seed,
else ``"default"``). The machine delivers each ball to the path when the ball
reaches the reader; every reader on the same path reports it. For a studio table
whose machine and reader both have ``url = "simulator"``, give both devices the
same ``[tables.devices.simulator] options.machine_id`` (the table id is a good
choice) or the same seed.

Layers: :class:`MachineModel` is pure (no clock, no I/O, no threads; time is passed
in, randomness comes from one seeded ``random.Random``); the simulators run it in
real time (``speed`` is the clock factor) on an asyncio loop of their own.

Faults on request (:meth:`BallMachineSimulator.inject`):

* ``double_release`` - the next release lets two balls through the gate together;
* ``jam`` - the next ball released never reaches the chute until :meth:`clear_jam`
  (``plc_fault=True`` also raises the PLC's fault code 1 after ``detect_s``);
* ``misread`` - the reader reports a no-read for the next ball (re-present it with
  :meth:`reread`, as a dealer would);
* ``unknown_tag`` - the next ball's tag is one the ball-set table does not know;
* ``fault`` - the PLC raises fault ``code`` (default 5, emergency stop) now;
* ``link_lost`` - the Modbus link drops now (TCP: the server closes every
  connection and stops listening; RTU: the relay stops carrying bytes) until
  :meth:`restore_link` (or after ``seconds=``); the machine itself carries on.

Quick start for a technician::

    python -m simulators.balls --transport rtu --balls 1-48 --speed 1
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import itertools
import logging
import os
import random
import select
import socket
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

import numpy as np

from devices.balls.ballset import BallSet, ball_set_from_option
from devices.balls.camera_reader import encode_frame
from devices.balls.registers import BIT_TABLES, RegisterMap, register_map_from_option

from .history import keep_recent
from .modbus_server import ModbusServerSim, opened

__all__ = [
    "FAULTS",
    "SIMULATORS",
    "BallCameraSimulator",
    "BallMachineSimulator",
    "BallPath",
    "BallReaderSimulator",
    "MachineModel",
    "Timings",
    "ball_path",
]

log = logging.getLogger(__name__)

FAULTS = ("double_release", "jam", "misread", "unknown_tag", "fault", "link_lost")

STATE_IDLE, STATE_MIXING, STATE_RELEASING, STATE_FAULT = 0, 1, 2, 3
FAULT_JAM, FAULT_EMERGENCY_STOP, FAULT_EMPTY = 1, 5, 6


@dataclass(frozen=True)
class Timings:
    """Seconds of machine time (divided by ``speed`` in real time)."""

    spin_up_s: float = 0.5  # start_blower -> the blower runs (feedback on)
    gate_s: float = 0.15  # release_ball -> the ball passes the gate (the counter goes up)
    gate_close_s: float = 0.15  # the ball passed -> the gate closes, the release coil clears
    travel_s: float = 0.4  # gate -> chute sensor
    read_s: float = 0.1  # chute sensor on -> the reader reads the ball
    chute_s: float = 0.5  # how long a ball stays in the chute
    double_gap_s: float = 0.15  # the second ball of a double release follows the first by this


# =============================================================================
# The pure machine
# =============================================================================


class MachineModel:
    """A ball machine's mechanics and PLC logic. Pure: every call takes the machine time ``now``.

    Commands are names ("start_blower", "stop_blower", "release_ball", "reset_fault");
    :meth:`advance` runs what is due and returns the balls that reached the reader as
    ``(tag, mode)`` with mode "ok", "misread" or "unknown" (the tag to send for an
    unknown ball is in ``tag``).
    """

    def __init__(self, tags: list[str], *, seed: int | None = None, timings: Timings = Timings()) -> None:
        if not tags:
            raise ValueError("a machine needs balls")
        self.t = timings
        self._rng = random.Random(seed)
        self.drum: list[str] = list(tags)  # balls in the machine
        self.tube: list[str] = []  # balls drawn (in the display tube)
        self.chute: list[str] = []
        self.stuck: list[str] = []  # jammed between the gate and the chute
        self.blower_cmd = False
        self._blower_on_at: float | None = None
        self.gate = False
        self.releasing = False
        self.released = 0  # 16-bit counter
        self.fault = 0
        self.last_read: str | None = None
        self.pending: dict[str, dict[str, Any]] = {}
        self._queue: list[tuple[float, int, str, tuple[Any, ...]]] = []
        self._seq = itertools.count()
        self.refused: list[str] = []
        self._recycle: set[str] = set()  # balls of the last draw still in the chute: back to the drum

    # -- observation -------------------------------------------------------------------

    def blower_running(self, now: float) -> bool:
        return self.blower_cmd and self._blower_on_at is not None and now >= self._blower_on_at

    def state_code(self, now: float) -> int:
        if self.fault:
            return STATE_FAULT
        if self.releasing or self.gate:
            return STATE_RELEASING
        if self.blower_running(now):
            return STATE_MIXING
        return STATE_IDLE

    def image(self, now: float) -> dict[str, int]:
        """Status point name -> value (the names of :class:`devices.balls.registers.RegisterMap`)."""
        return {
            "state": self.state_code(now),
            "blower": int(self.blower_running(now)),
            "gate": int(self.gate),
            "ball_in_chute": int(bool(self.chute)),
            "balls_released": self.released % 65536,
            "balls_in_machine": len(self.drum),
            "fault_code": self.fault,
        }

    def snapshot(self, now: float) -> dict[str, Any]:
        return {
            **self.image(now),
            "blower_cmd": self.blower_cmd,
            "releasing": self.releasing,
            "drum": len(self.drum),
            "tube": list(self.tube),
            "chute": list(self.chute),
            "stuck": list(self.stuck),
            "pending_faults": sorted(self.pending),
        }

    # -- commands ----------------------------------------------------------------------

    def command(self, name: str, now: float) -> bool:
        """Carry out a command; False when the PLC refuses it (a fault stands, a release is running)."""
        handler = getattr(self, "_cmd_" + name, None)
        if handler is None:
            self.refused.append(name)
            return False
        ok = bool(handler(now))
        if not ok:
            self.refused.append(name)
        return ok

    def _cmd_start_blower(self, now: float) -> bool:
        if self.fault:
            return False
        if not self.blower_cmd:
            # a new draw: the balls of the last one go back into the drum (the return chute); a ball
            # still on its way to the tube goes back when it gets there
            self.drum += self.tube
            self.tube.clear()
            self._recycle.update(self.chute)
            self.blower_cmd = True
            self._blower_on_at = now + self.t.spin_up_s
            self._at(self._blower_on_at, "blower_on")  # the status changes then
        return True

    def _cmd_stop_blower(self, now: float) -> bool:
        self.blower_cmd = False
        self._blower_on_at = None
        return True

    def _cmd_release_ball(self, now: float) -> bool:
        if self.fault or self.releasing:
            return False
        self.releasing = True
        self.gate = True
        self._at(now + self.t.gate_s, "gate_pass")
        return True

    def _cmd_reset_fault(self, now: float) -> bool:
        self.fault = 0
        return True

    # -- faults ------------------------------------------------------------------------

    def inject(self, fault: str, now: float, **options: Any) -> None:
        if fault not in FAULTS or fault == "link_lost":
            raise ValueError(
                f"unknown machine fault {fault!r}; known: double_release, jam, misread, unknown_tag, "
                "fault (link_lost is the simulator's)"
            )
        if fault == "fault":
            self._raise_fault(int(options.get("code", FAULT_EMERGENCY_STOP)))
            return
        self.pending[fault] = dict(options)

    def clear_jam(self, now: float) -> None:
        """The technician frees the jammed ball(s): they roll on into the chute."""
        for i, tag in enumerate(self.stuck):
            self._at(now + self.t.travel_s + i * self.t.double_gap_s, "chute_in", tag)
        self.stuck.clear()
        if self.fault == FAULT_JAM:
            self.fault = 0

    def reread(self, now: float, tag: str | None = None) -> list[tuple[str, str]]:
        """The dealer presents a ball (the last one that reached the reader) to the reader again."""
        tag = tag or self.last_read
        return [(tag, "ok")] if tag else []

    def _raise_fault(self, code: int) -> None:
        self.fault = code
        self.blower_cmd = False
        self._blower_on_at = None

    # -- time --------------------------------------------------------------------------

    def _at(self, when: float, action: str, *args: Any) -> None:
        heapq.heappush(self._queue, (when, next(self._seq), action, args))

    def next_due(self) -> float | None:
        return self._queue[0][0] if self._queue else None

    def advance(self, now: float) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        while self._queue and self._queue[0][0] <= now:
            when, _, action, args = heapq.heappop(self._queue)
            getattr(self, "_do_" + action)(when, out, *args)
        return out

    def _do_gate_pass(self, now: float, out: list[tuple[str, str]]) -> None:
        n = 2 if self.pending.pop("double_release", None) is not None else 1
        n = min(n, len(self.drum))
        if n == 0:
            self._raise_fault(FAULT_EMPTY)
        jam = self.pending.pop("jam", None) if n else None
        for i in range(n):
            tag = self.drum.pop(self._rng.randrange(len(self.drum)))
            self.released += 1
            if jam is not None and i == 0:
                self.stuck.append(tag)
                if jam.get("plc_fault"):
                    self._at(now + float(jam.get("detect_s", 2.0)), "jam_fault")
                continue
            self._at(now + self.t.travel_s + i * self.t.double_gap_s, "chute_in", tag)
        self._at(now + self.t.gate_close_s, "gate_close")

    def _do_blower_on(self, now: float, out: list[tuple[str, str]]) -> None:
        pass  # blower_running() turns true at _blower_on_at: this entry only wakes the clock

    def _do_gate_close(self, now: float, out: list[tuple[str, str]]) -> None:
        self.gate = False
        self.releasing = False

    def _do_jam_fault(self, now: float, out: list[tuple[str, str]]) -> None:
        if self.stuck:
            self._raise_fault(FAULT_JAM)

    def _do_chute_in(self, now: float, out: list[tuple[str, str]], tag: str) -> None:
        self.chute.append(tag)
        self._at(now + self.t.read_s, "read", tag)
        self._at(now + self.t.chute_s, "chute_out", tag)

    def _do_read(self, now: float, out: list[tuple[str, str]], tag: str) -> None:
        self.last_read = tag
        if self.pending.pop("misread", None) is not None:
            out.append((tag, "misread"))
        elif self.pending.pop("unknown_tag", None) is not None:
            out.append(("E2FF" + "".join(self._rng.choice("0123456789ABCDEF") for _ in range(12)), "unknown"))
        else:
            out.append((tag, "ok"))

    def _do_chute_out(self, now: float, out: list[tuple[str, str]], tag: str) -> None:
        if tag in self.chute:
            self.chute.remove(tag)
            if tag in self._recycle:
                self._recycle.discard(tag)
                self.drum.append(tag)
            else:
                self.tube.append(tag)


# =============================================================================
# The ball path: machine -> readers
# =============================================================================


class BallPath:
    """One chute: the machine delivers balls, every attached reader reports them."""

    def __init__(self, key: str) -> None:
        self.key = key
        self._readers: list[Any] = []
        self._users = 0
        self._lock = threading.Lock()

    def attach(self, reader: Any | None = None) -> None:
        with self._lock:
            self._users += 1
            if reader is not None:
                self._readers.append(reader)

    def detach(self, reader: Any | None = None) -> None:
        with self._lock:
            self._users -= 1
            if reader is not None and reader in self._readers:
                self._readers.remove(reader)
            empty = self._users <= 0
        if empty:
            with _PATHS_LOCK:
                if _PATHS.get(self.key) is self:
                    del _PATHS[self.key]

    @property
    def readers(self) -> list[Any]:
        with self._lock:
            return list(self._readers)

    def deliver(self, tag: str, mode: str = "ok") -> None:
        for reader in self.readers:
            try:
                reader.present(tag, mode)
            except Exception:  # a broken reader must not stop the machine
                log.exception("ball path %s: reader failed", self.key)


_PATHS: dict[str, BallPath] = {}
_PATHS_LOCK = threading.Lock()


def ball_path(key: Any) -> BallPath:
    """The ball path of one machine (created on first use; dropped when its last user stops)."""
    key = "default" if key is None else str(key)
    with _PATHS_LOCK:
        path = _PATHS.get(key)
        if path is None:
            path = _PATHS[key] = BallPath(key)
        return path


def _path_key(machine_id: Any, seed: Any) -> str:
    if machine_id is not None:
        return str(machine_id)
    return "default" if seed is None else f"seed-{seed}"


# =============================================================================
# The machine simulator: a Modbus server running the model in time
# =============================================================================


_FC_WRITE = {"coil": 5, "discrete_input": 2, "holding_register": 6, "input_register": 4}
_WRITE_FCS = {5: "coil", 15: "coil", 6: "holding_register", 16: "holding_register"}


class BallMachineSimulator(ModbusServerSim):
    """The machine's PLC on Modbus TCP (127.0.0.1) or RTU (a relayed pty pair).

    :meth:`open` starts the server and returns the URL the driver opens;
    :meth:`start` also starts the machine's clock (calling open if needed);
    :meth:`stop` stops everything and closes every port (idempotent).
    """

    label = "ball machine simulator"

    def __init__(
        self,
        *,
        transport: str = "tcp",
        speed: float = 1.0,
        seed: int | None = None,
        machine_id: str | None = None,
        ball_set: Any = "1-48",
        tag_format: str | None = None,
        register_map: Any = None,
        unit: int = 1,
        host: str = "127.0.0.1",
        port: int = 0,
        baud: int = 115200,
        tick_s: float = 0.05,
        timings: dict[str, float] | Timings | None = None,
        act_as_dealer: bool = False,
        dealer_delay_s: float = 2.0,
    ) -> None:
        self._init_server(transport=transport, unit=unit, host=host, port=port, baud=baud)
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.speed = float(speed)
        self.tick_s = float(tick_s)
        self.map: RegisterMap = register_map_from_option(register_map)
        self.ball_set: BallSet = ball_set_from_option(ball_set, tag_format=tag_format)
        t = timings if isinstance(timings, Timings) else Timings(**(timings or {}))
        self.model = MachineModel([b.tag for b in self.ball_set.balls], seed=seed, timings=t)
        self.path = ball_path(_path_key(machine_id, seed))
        self.path.attach()
        self.act_as_dealer = act_as_dealer
        self.dealer_delay_s = float(dealer_delay_s)

        self._t0: float | None = None  # monotonic time the machine clock started
        self._clock_running = False
        self._internal = False
        self._stopping = False
        #: set to run the model at once; made by the ticker on its own loop (None until it runs)
        self._wake: asyncio.Event | None = None
        #: the writes the driver made (table, address, value) and the balls delivered to the readers, in order
        #: (the newest simulators.history.KEEP at least)
        self.writes: list[tuple[str, int, int]] = []
        self.path_log: list[tuple[str, str]] = []
        self._commands = self._command_index()

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        self.open()
        with self._lock:
            if not self._clock_running:
                self._clock_running = True
                if self._t0 is None:
                    self._t0 = time.monotonic()

    def _on_stopped(self) -> None:
        self.path.detach()

    def _thread_name(self) -> str:
        return f"ball-machine-sim:{self.path.key}"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._closed

    # -- test hooks (thread-safe) -------------------------------------------------------

    def now(self) -> float:
        """Machine time in seconds (0 until start())."""
        t0 = self._t0
        return 0.0 if t0 is None or not self._clock_running else (time.monotonic() - t0) * self.speed

    def inject(self, fault: str, **options: Any) -> None:
        if fault == "link_lost":
            self.lose_link()
            seconds = options.get("seconds")
            if seconds is not None and self._loop is not None:
                loop = self._loop
                loop.call_soon_threadsafe(
                    loop.call_later, float(seconds), lambda: loop.create_task(self._restore_link())
                )
            return
        with self._lock:
            self.model.inject(fault, self.now(), **options)
        self._poke()

    def clear_jam(self) -> None:
        with self._lock:
            self.model.clear_jam(self.now())
        self._poke()

    def _poke(self) -> None:
        """Run the model now (from any thread)."""
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not self._closed:
            try:
                loop.call_soon_threadsafe(wake.set)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def reread(self, tag: str | None = None) -> None:
        """Present a ball to the reader again (default: the last ball that reached it), as a dealer does."""
        with self._lock:
            deliveries = self.model.reread(self.now(), tag)
        for t, mode in deliveries:
            keep_recent(self.path_log, (t, mode))
            self.path.deliver(t, mode)

    def command(self, name: str) -> bool:
        """Act on the machine from its own panel (not through Modbus)."""
        with self._lock:
            ok = self.model.command(name, self.now())
        self._poke()
        return ok

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return self.model.snapshot(self.now())

    def lose_link(self) -> None:
        """Cut the Modbus link (the machine carries on)."""
        self._call_on_loop(self._cut_link)

    def restore_link(self) -> None:
        """Plug the Modbus link back in (TCP: listen again on the same port)."""
        self._call_on_loop(self._restore_link)

    def table_event(self, what: str, data: dict[str, Any]) -> None:
        """Act as the dealer in the demo (``act_as_dealer``): re-read a misread ball, free a jam."""
        if not self.act_as_dealer or what != "hold" or self._loop is None:
            return
        code = data.get("code")
        delay = self.dealer_delay_s / self.speed
        action = {"misread": self.reread, "jam": self.clear_jam}.get(code)  # type: ignore[arg-type]
        if action is not None:
            loop = self._loop
            try:  # called on the studio's loop: hand the timer to the simulator's own loop
                loop.call_soon_threadsafe(loop.call_later, delay, action)
            except RuntimeError:
                pass

    # -- the loop thread ---------------------------------------------------------------

    def _call_on_loop(self, fn: Callable[[], Any]) -> None:
        loop = self._loop
        if loop is None or self._closed:
            return
        done = threading.Event()

        def run() -> None:
            try:
                result = fn()
                if asyncio.iscoroutine(result):
                    task = loop.create_task(result)
                    task.add_done_callback(lambda _t: done.set())
                    return
            except Exception:
                # any callable's name for the log (a partial has none): no ability probe
                log.exception("ball machine simulator: %s failed", getattr(fn, "__name__", fn))
            done.set()

        loop.call_soon_threadsafe(run)
        done.wait(5)

    def _sim_device(self) -> Any:
        from pymodbus.simulator import DataType, SimData, SimDevice

        used: dict[str, int] = {t: -1 for t in _FC_WRITE}
        for p in self.map.points().values():
            used[p.table] = max(used[p.table], p.address)
        for writes in self.map.commands.values():
            for w in writes:
                used[w.table] = max(used[w.table], w.address)
        blocks = []
        for table in ("coil", "discrete_input", "holding_register", "input_register"):
            n = max(used[table] + 1, 1)
            if table in BIT_TABLES:
                n = (n + 15) // 16 * 16
                blocks.append([SimData(0, count=n, values=False, datatype=DataType.BITS)])
            else:
                blocks.append([SimData(0, count=n, values=0, datatype=DataType.REGISTERS)])
        return SimDevice(id=self.unit, simdata=tuple(blocks), action=self._action)  # type: ignore[arg-type]

    async def _start_ticking(self) -> None:
        self._tick_task = asyncio.get_running_loop().create_task(self._ticker())

    async def _stop_ticking(self) -> None:
        self._stopping = True
        wake = self._wake
        if wake is not None:
            wake.set()
        if self._tick_task is not None:
            await asyncio.wait({self._tick_task}, timeout=1.0)

    async def _ticker(self) -> None:
        """Run the model: at its next due time (or every ``tick_s`` at most), and at once after a command."""
        self._wake = asyncio.Event()
        while not self._stopping:
            try:
                await self._tick()
            except asyncio.CancelledError:
                raise
            except Exception:  # pragma: no cover - keep the machine running
                log.exception("ball machine simulator: tick failed")
            with self._lock:
                due = self.model.next_due() if self._clock_running else None
                delay = self.tick_s if due is None else (due - self.now()) / self.speed
            delay = min(max(delay, 0.0005), self.tick_s)
            # not asyncio.wait_for: in 3.11 it can swallow a cancel when the event fires at the same moment
            waiter = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait({waiter}, timeout=delay)
            finally:
                waiter.cancel()
            self._wake.clear()

    async def _tick(self) -> None:
        with self._lock:
            now = self.now()
            deliveries = self.model.advance(now) if self._clock_running else []
            image = self.model.image(now)
            coils = self._command_coils(now)
        for tag, mode in deliveries:
            keep_recent(self.path_log, (tag, mode))
            self.path.deliver(tag, mode)
        await self._push(image, coils)

    async def _push(self, image: dict[str, int], coils: dict[tuple[str, int], int]) -> None:
        server = self._server
        if server is None:
            return
        want: dict[tuple[str, int], int] = dict(coils)
        for name, point in self.map.points().items():
            value = image[name]
            key = (point.table, point.address)
            if point.bit is not None:
                base = want.get(key, self._pushed.get(key, 0))
                value = (base | (1 << point.bit)) if value else (base & ~(1 << point.bit))
            want[key] = int(value)
        self._internal = True
        try:
            for target, value in want.items():
                if self._pushed.get(target) == value:
                    continue
                table, address = target
                values: list[Any] = [bool(value)] if table in BIT_TABLES else [value & 0xFFFF]
                await server.context.async_setValues(self.unit, _FC_WRITE[table], address, values)
                self._pushed[target] = value
        finally:
            self._internal = False

    def _command_index(self) -> dict[tuple[str, int, int], str]:
        index: dict[tuple[str, int, int], str] = {}
        for name, writes in self.map.commands.items():
            w = writes[0]
            index.setdefault((w.table, w.address, w.value), name)
        return index

    def _command_coils(self, now: float) -> dict[tuple[str, int], int]:
        """What the PLC shows at the command addresses: the blower command, a release in progress, 0 after a pulse."""
        out: dict[tuple[str, int], int] = {}
        m = self.model

        def first(name: str) -> Any:
            writes = self.map.commands.get(name)
            return writes[0] if writes else None

        start, stop = first("start_blower"), first("stop_blower")
        if start is not None:
            shared = stop is not None and (stop.table, stop.address) == (start.table, start.address)
            out[(start.table, start.address)] = start.value if m.blower_cmd else (stop.value if shared else 0)
        for name, active in (("release_ball", m.releasing), ("reset_fault", False)):
            w = first(name)
            if w is not None and (w.table, w.address) not in out:
                out[(w.table, w.address)] = w.value if active else 0
        return out

    async def _action(
        self,
        fc: int,
        start: int,
        address: int,
        count: int,
        registers: list[int],
        values: list[int] | list[bool] | None,
    ) -> None:
        """pymodbus calls this on every request; writes by the driver become machine commands."""
        if values is None or self._internal or fc not in _WRITE_FCS:
            return
        table = _WRITE_FCS[fc]
        with self._lock:
            now = self.now()
            for i, v in enumerate(values):
                value = int(v)
                keep_recent(self.writes, (table, address + i, value))
                self._pushed.pop((table, address + i), None)  # the driver changed it: push our view again
                name = self._commands.get((table, address + i, value))
                if name is not None:
                    self.model.command(name, now)
        wake = self._wake
        if wake is not None:
            wake.set()  # run the model now: the change shows at once
        return


# =============================================================================
# Readers
# =============================================================================


class BallReaderSimulator:
    """An RFID reader on a pty: the driver opens ``slave_path``; balls arrive from the ball path.

    ``repeats``: how many times the tag line is sent for one ball (a real reader repeats it
    while the ball is in its field; the driver folds the repeats).
    """

    #: plays no dealer's part (studio.simulated.Simulator)
    table_event: Callable[[str, dict[str, Any]], None] | None = None

    def __init__(
        self,
        *,
        seed: int | None = None,
        machine_id: str | None = None,
        repeats: int = 2,
        no_read: str = "NOREAD",
        **_ignored: Any,
    ) -> None:
        self.repeats = max(1, int(repeats))
        self.no_read = no_read
        self.master, self._slave = os.openpty()
        tty.setraw(self.master)
        os.set_blocking(self.master, False)
        self.slave_path = os.ttyname(self._slave)
        self.path = ball_path(_path_key(machine_id, seed))
        self.path.attach(self)
        self.lines: list[str] = []
        self.dropped = 0
        self._lock = threading.Lock()
        self._closed = False

    def start(self) -> None:
        pass  # nothing runs: lines are written when balls arrive

    def stop(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.path.detach(self)
        for fd in (self.master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def present(self, tag: str, mode: str = "ok") -> None:
        """A ball in the reader's field: the tag line(s), or the no-read message."""
        if mode == "misread":
            self.write_line(self.no_read)
        else:
            for _ in range(self.repeats):
                self.write_line(tag)

    def write_line(self, text: str) -> None:
        data = text.encode("ascii", "replace") + b"\r\n"
        with self._lock:
            if self._closed:
                return
            self.lines.append(text)
            try:
                self._drain()
                os.write(self.master, data)
            except OSError:  # nobody reading (buffer full) or the slave closed: the line is lost
                self.dropped += 1

    def _drain(self) -> None:
        """Throw away what the driver sent us (a reader ignores commands it does not know)."""
        while select.select([self.master], [], [], 0)[0]:
            try:
                if not os.read(self.master, 4096):
                    return
            except OSError:
                return


class BallCameraSimulator:
    """A camera at the chute: ``frames+tcp://`` frames showing each ball's Code128.

    For each ball it sends ``frames_per_ball`` frames with the code (a real camera sees the
    ball in several frames), a misread sends frames whose code is smudged (undecodable).
    """

    #: plays no dealer's part (studio.simulated.Simulator)
    table_event: Callable[[str, dict[str, Any]], None] | None = None

    def __init__(
        self,
        *,
        seed: int | None = None,
        machine_id: str | None = None,
        width: int = 320,
        height: int = 200,
        frames_per_ball: int = 3,
        host: str = "127.0.0.1",
        **_ignored: Any,
    ) -> None:
        self.width, self.height = int(width), int(height)
        self.frames_per_ball = max(1, int(frames_per_ball))
        self._listen = socket.create_server((host, 0))
        self._listen.settimeout(0.1)
        self.url = f"frames+tcp://{host}:{self._listen.getsockname()[1]}"
        self.path = ball_path(_path_key(machine_id, seed))
        self.path.attach(self)
        self._clients: list[socket.socket] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames_sent = 0
        self._seq = 0

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._accept, name="ball-camera-sim", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self._listen.close()
        with self._lock:
            for c in self._clients:
                c.close()
            self._clients.clear()
        self.path.detach(self)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listen.accept()
            except (TimeoutError, OSError):
                continue
            conn.setblocking(True)
            conn.settimeout(1.0)
            with self._lock:
                self._clients.append(conn)

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._clients)

    def frame(self, text: str | None, smudge: bool = False) -> np.ndarray:
        import zxingcpp

        img = np.full((self.height, self.width), 255, np.uint8)
        if text:
            code = np.array(
                zxingcpp.write_barcode_to_image(
                    zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.Code128), scale=2
                )
            )
            h, w = code.shape[:2]
            h, w = min(h, self.height - 20), min(w, self.width - 20)
            img[10 : 10 + h, 10 : 10 + w] = code[:h, :w]
            if smudge:
                img[10 : 10 + h, 10 + w // 3 : 10 + 2 * w // 3] = 128
        return img

    def present(self, tag: str, mode: str = "ok") -> None:
        image = self.frame(tag, smudge=(mode == "misread"))
        with self._lock:
            clients = list(self._clients)
        for _ in range(self.frames_per_ball):
            frame = encode_frame(image, self._seq)
            self._seq += 1
            for c in clients:
                try:
                    c.sendall(frame)
                    self.frames_sent += 1
                except OSError:
                    with self._lock:
                        if c in self._clients:
                            self._clients.remove(c)
                    c.close()


# =============================================================================
# Discovery (studio/simulated.py) and the command line
# =============================================================================


def _machine_factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[BallMachineSimulator, str]:
    return opened(BallMachineSimulator(speed=speed, seed=seed, **options))


def _reader_factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[BallReaderSimulator, str]:
    sim = BallReaderSimulator(seed=seed, **options)
    return sim, sim.slave_path


def _camera_factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[BallCameraSimulator, str]:
    sim = BallCameraSimulator(seed=seed, **options)
    return sim, sim.url


#: device kind -> factory, found by studio.simulated for devices whose URL is "simulator"
SIMULATORS = {
    "modbus-ball-machine": _machine_factory,
    "serial-ball-reader": _reader_factory,
    "camera-ball-reader": _camera_factory,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Ball machine (Modbus) + RFID reader simulator")
    parser.add_argument("--transport", choices=("tcp", "rtu"), default="tcp")
    parser.add_argument("--port", type=int, default=0, help="TCP port (0: any free port)")
    parser.add_argument("--balls", default="1-48", help="ball set: a range like 1-48 or a .toml table")
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    machine = BallMachineSimulator(
        transport=args.transport,
        port=args.port,
        ball_set=args.balls,
        speed=args.speed,
        seed=args.seed,
        machine_id="cli",
    )
    reader = BallReaderSimulator(machine_id="cli")
    try:
        machine.start()
        print(f"machine: {machine.url}\nreader:  {reader.slave_path}", flush=True)
        while machine.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        machine.stop()
        reader.stop()


if __name__ == "__main__":
    main()
