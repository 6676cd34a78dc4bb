"""Ball draw machine (lototron) run by a PLC over Modbus TCP or Modbus RTU.

Layers, each usable on its own:

* :mod:`devices.modbus_url` - the URL (``modbus-tcp://host:port?unit=1``,
  ``modbus-rtu:///dev/ttyUSB0?baud=19200&unit=1``);
* :mod:`.registers` - the register map (which register is what, per machine model);
* :class:`MachineTracker` - pure: successive register snapshots -> events
  (:class:`MachineStatus` on change and as a heartbeat while the machine is busy,
  :class:`BallReleased` when the release counter goes up);
* :class:`ModbusBallMachineDriver` - the driver (kind ``modbus-ball-machine``): a
  polling thread with a pymodbus synchronous client (pymodbus is pinned: see
  shared/ecosystem-notes.md), reconnect with backoff, commands through
  :meth:`ModbusBallMachineDriver.send`.

Connection states. The driver reports :class:`DeviceConnected` after the first poll
that the PLC answers (a TCP connect or an opened serial port alone proves nothing:
an RTU line with no PLC on it opens fine), and :class:`DeviceDisconnected` (once)
when ``failures_before_lost`` polls in a row fail (no answer, a closed socket, the
PLC refusing the read); it then closes the client and reconnects with exponential
backoff from ``reconnect_min`` to ``reconnect_max`` seconds.

Commands (``send("release_ball")``) are the register map's ``commands``: the driver
writes them in order on its client (under the same lock as the polls), then polls at
once so the change shows without waiting for the next poll. An unknown command is a
``ValueError``; a write the link cannot carry raises :class:`DeviceNotConnected`; a
write the PLC refuses (a Modbus exception response) raises ``RuntimeError``.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from typing import Any

from ..base import DeviceNotConnected, EventSink
from ..events import DeviceEvent
from ..modbus_polling import ModbusPollingDriver, PollError, short_text
from .events import BallReleased, MachineStatus
from .registers import COUNTER_MODULUS, ReadBlock, RegisterMap, Snapshot, register_map_from_option

__all__ = ["DRIVERS", "IMPOSSIBLE_READING", "MachineTracker", "ModbusBallMachineDriver"]

#: the fault code of a MachineStatus whose registers hold values no machine can have (a PLC's codes are 16-bit
#: registers, never negative): the draw judge stops the draw on it as on any machine fault
IMPOSSIBLE_READING = -1

log = logging.getLogger(__name__)

_EXCEPTION_NAMES = {
    1: "illegal function",
    2: "illegal data address",
    3: "illegal data value",
    4: "device failure",
    6: "device busy",
    10: "gateway path unavailable",
    11: "gateway target did not respond",
}


class MachineTracker:
    """Register snapshots in, machine events out. Pure: the caller passes both clocks.

    ``now`` is a monotonic number of seconds (for the heartbeat), ``at`` the wall-clock
    time stamped on the events.

    A snapshot no machine can give is a fault, never an event of the draw: a state code the register map does
    not name, or a release counter that went up by more than ``max_release_step`` balls (or by more than the
    machine held) in one poll. It is reported as a :class:`MachineStatus` with ``fault_code``
    :data:`IMPOSSIBLE_READING` and the reason in ``fault``; no :class:`BallReleased` comes of it, and the
    counter's new value is the baseline of the next poll.
    """

    def __init__(
        self,
        device_id: str,
        register_map: RegisterMap,
        *,
        heartbeat_s: float | None = 1.0,
        command_watch_s: float = 30.0,
        max_release_step: int = 100,
    ) -> None:
        if heartbeat_s is not None and heartbeat_s <= 0:
            raise ValueError("heartbeat_s must be positive (or None for no heartbeat)")
        if max_release_step < 1:
            raise ValueError("max_release_step must be at least 1")
        self.max_release_step = max_release_step
        self.device_id = device_id
        self.map = register_map
        self.heartbeat_s = heartbeat_s
        self.command_watch_s = command_watch_s
        self._last: Snapshot | None = None
        self._last_emit = 0.0
        self._last_command: float | None = None
        self.counter_resets = 0
        self.impossible_readings = 0
        self._last_key: tuple[Any, ...] | None = None

    def reset(self) -> None:
        """After a (re)connect: the next snapshot is a new baseline (no release is inferred across the gap)."""
        self._last = None
        self._last_key = None

    def command_sent(self, now: float) -> None:
        self._last_command = now

    def busy(self, snap: Snapshot, now: float) -> bool:
        recent = self._last_command is not None and now - self._last_command < self.command_watch_s
        return bool(snap.blower or snap.gate or snap.ball_in_chute or recent)

    def update(self, snap: Snapshot, now: float, at: datetime) -> list[DeviceEvent]:
        prev, self._last = self._last, snap
        out: list[DeviceEvent] = []
        impossible = self._impossible(prev, snap)
        if impossible is not None:
            self.impossible_readings += 1
            log.warning("%s: impossible reading from the PLC: %s (%s)", self.device_id, impossible, snap.raw)
        elif prev is not None:
            step = (snap.balls_released - prev.balls_released) % COUNTER_MODULUS
            if 0 < step < COUNTER_MODULUS // 2:
                out.append(
                    BallReleased(
                        device_id=self.device_id, at=at, count=step, total=snap.balls_released, raw=snap.raw
                    )
                )
            elif step:
                self.counter_resets += 1  # the counter went back: the PLC restarted or was reset
                log.info(
                    "%s: release counter went back from %d to %d",
                    self.device_id,
                    prev.balls_released,
                    snap.balls_released,
                )
        key = (*_status_key(snap), impossible)
        changed, self._last_key = key != self._last_key, key
        beat = (
            not changed
            and self.heartbeat_s is not None
            and self.busy(snap, now)
            and now - self._last_emit >= self.heartbeat_s
        )
        if changed or beat:
            self._last_emit = now
            out.append(self.status_event(snap, at, repeated=not changed, impossible=impossible))
        return out

    def _impossible(self, prev: Snapshot | None, snap: Snapshot) -> str | None:
        """Why this snapshot cannot be a machine's (None: it can)."""
        names = self.map.state_names
        if names and snap.state_code not in names:
            known = ", ".join(f"{c} {n}" for c, n in sorted(names.items()))
            return f"state code {snap.state_code} is not one the register map names ({known})"
        if prev is None:
            return None
        step = (snap.balls_released - prev.balls_released) % COUNTER_MODULUS
        if not 0 < step < COUNTER_MODULUS // 2:
            return None
        held = prev.balls_in_machine
        if held is not None and step > held:
            limit = f"the {held} in the machine"
        elif step > self.max_release_step:
            limit = f"{self.max_release_step} (max_release_step)"
        else:
            return None
        return (
            f"the release counter went from {prev.balls_released} to {snap.balls_released} in one poll: "
            f"{step} balls, more than {limit}"
        )

    def status_event(
        self, snap: Snapshot, at: datetime, repeated: bool = False, impossible: str | None = None
    ) -> MachineStatus:
        fault: str | None
        if impossible is not None:
            fault_code, fault = IMPOSSIBLE_READING, f"impossible reading from the PLC: {impossible}"
        else:
            fault_code, fault = snap.fault_code, self.map.fault_name(snap.fault_code)
        return MachineStatus(
            device_id=self.device_id,
            at=at,
            state=self.map.state_name(snap.state_code),
            state_code=snap.state_code,
            blower=snap.blower,
            gate=snap.gate,
            ball_in_chute=snap.ball_in_chute,
            balls_released=snap.balls_released,
            balls_in_machine=snap.balls_in_machine,
            fault_code=fault_code,
            fault=fault,
            repeated=repeated,
            raw=snap.raw,
        )


def _status_key(s: Snapshot) -> tuple[Any, ...]:
    return (
        s.state_code,
        s.blower,
        s.gate,
        s.ball_in_chute,
        s.balls_released,
        s.balls_in_machine,
        s.fault_code,
    )


class ModbusBallMachineDriver(ModbusPollingDriver):
    """The ``modbus-ball-machine`` driver. Options (all optional):

    * ``register_map``: "generic" (default), a .toml path or an inline table;
    * ``poll_interval``: seconds between polls (0.05);
    * ``heartbeat_s``: repeat MachineStatus this often while the machine is busy (1.0; 0 = never);
    * ``command_watch_s``: a command keeps the machine "busy" this long (30);
    * ``max_release_step``: more balls than this released in one poll is an impossible reading (100);
    * ``failures_before_lost``: failed polls in a row that mean the link is lost (3);
    * ``reconnect_min`` / ``reconnect_max``: reconnect backoff bounds in seconds (0.1 / 5);
    * ``timeout``: seconds to wait for an answer (overrides the URL's ``timeout``).
    """

    kind = "modbus-ball-machine"
    what = "a ball machine"
    max_poll_interval = 10
    extra_counters = ("commands_sent", "command_errors")

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: EventSink,
        *,
        register_map: Any = None,
        poll_interval: float = 0.05,
        heartbeat_s: float = 1.0,
        command_watch_s: float = 30.0,
        max_release_step: int = 100,
        **options: Any,
    ) -> None:
        super().__init__(device_id, url, on_event, poll_interval=poll_interval, **options)
        self.register_map = register_map_from_option(register_map)
        self.plan: tuple[ReadBlock, ...] = self.register_map.read_plan()
        self.tracker = MachineTracker(
            device_id,
            self.register_map,
            heartbeat_s=heartbeat_s or None,
            command_watch_s=command_watch_s,
            max_release_step=max_release_step,
        )
        self._last_snapshot: Snapshot | None = None

    def send(self, command: str) -> None:
        """Carry out a register-map command ("start_blower", "release_ball", ...)."""
        writes = self.register_map.command(command.strip())
        with self._io_lock:
            client = self._client
            if client is None or not self._online:
                raise DeviceNotConnected(f"{self.device_id}: not connected to {self.target.describe()}")
            unit = self.target.unit
            for w in writes:
                try:
                    if w.table == "coil":
                        rr = client.write_coil(w.address, bool(w.value), device_id=unit)
                    else:
                        rr = client.write_register(w.address, w.value, device_id=unit)
                except Exception as exc:  # ConnectionException, ModbusIOException, OSError
                    self._count("command_errors")
                    raise DeviceNotConnected(f"{self.device_id}: {command} failed: {exc}") from exc
                if rr.isError():
                    self._count("command_errors")
                    raise RuntimeError(
                        f"{self.device_id}: the PLC refused {command} ({w.table} {w.address} = "
                        f"{w.value}): {_exception_text(rr)}"
                    )
        self.tracker.command_sent(time.monotonic())
        self._count("commands_sent")
        log.debug("%s: sent %s", self.thread_name, command)
        self._wake.set()  # poll now: the change shows at once

    def _tracker_counters(self) -> dict[str, int]:
        return {
            "counter_resets": self.tracker.counter_resets,
            "impossible_readings": self.tracker.impossible_readings,
        }

    def _device_health(self) -> dict[str, Any]:
        snap = self._last_snapshot
        return {
            "machine": None
            if snap is None
            else {
                "state": self.register_map.state_name(snap.state_code),
                "blower": snap.blower,
                "gate": snap.gate,
                "ball_in_chute": snap.ball_in_chute,
                "balls_released": snap.balls_released,
                "balls_in_machine": snap.balls_in_machine,
                "fault_code": snap.fault_code,
                "fault": self.register_map.fault_name(snap.fault_code),
            }
        }

    # -- polling thread ---------------------------------------------------------------

    def _poll(self, client: Any) -> Snapshot:
        values: dict[ReadBlock, list[Any]] = {}
        unit = self.target.unit
        for block in self.plan:
            read = {
                "coil": client.read_coils,
                "discrete_input": client.read_discrete_inputs,
                "holding_register": client.read_holding_registers,
                "input_register": client.read_input_registers,
            }[block.table]
            try:
                rr = read(block.address, count=block.count, device_id=unit)
            except Exception as exc:  # ConnectionException, ModbusIOException (no answer), OSError
                raise PollError(
                    f"no answer from the PLC ({self.target.describe()}): {short_text(exc)}"
                ) from exc
            if rr.isError():
                raise PollError(
                    f"the PLC refused to read {block.table} {block.address}-"
                    f"{block.address + block.count - 1}: {_exception_text(rr)}; check the register map"
                )
            vals = rr.bits if block.table in ("coil", "discrete_input") else rr.registers
            if len(vals) < block.count:
                raise PollError(f"the PLC answered {len(vals)} values for {block.count} {block.table}s")
            values[block] = list(vals[: block.count])
        return self.register_map.decode(values)

    def _note_poll(self, reading: Snapshot) -> None:
        self._last_snapshot = reading


def _exception_text(rr: Any) -> str:
    from pymodbus.pdu import ExceptionResponse

    if not isinstance(rr, ExceptionResponse):
        return str(rr)
    code = rr.exception_code
    return f"Modbus exception {code} ({_EXCEPTION_NAMES.get(code, 'unknown')})"


DRIVERS = {ModbusBallMachineDriver.kind: ModbusBallMachineDriver}
