"""Money-wheel angle encoder read over Modbus TCP or RTU (driver kind ``wheel-encoder``).

Layers, each usable on its own:

* :mod:`.modbus` - the URL and the register map (which registers hold the count, the
  index-pulse counter, the count latched at the index, the status);
* :class:`EncoderTracker` - pure: register values in, events out (it unwraps the
  counter, measures the angle from the index pulse, checks every index pulse lands
  a whole number of turns from the last, tells moving from still, marks reversals);
* :class:`EncoderWheelDriver` - a polling thread with a pymodbus synchronous client
  (pymodbus is pinned, see shared/ecosystem-notes.md), reconnect with backoff.

What the driver emits (devices/money_wheel/events.py): :class:`EncoderSample` when the
wheel starts moving, at each reversal (the turning point itself), at most every
``sample_interval`` while it moves and every ``heartbeat_s`` while it is still;
:class:`WheelAtRest` once the wheel has moved less than ``rest_tolerance`` counts for
``rest_ms``; :class:`EncoderFault` when the encoder cannot be trusted;
:class:`EncoderZeroMark` when a technician sends ``mark_zero``.

Connection states: :class:`DeviceConnected` after the first poll the device answers,
:class:`DeviceDisconnected` (once) when ``failures_before_lost`` polls in a row fail;
the driver then reconnects with exponential backoff from ``reconnect_min`` to
``reconnect_max`` seconds. After a reconnect the count continues from where it was
(travel while the link was down is not added: the judge does not trust that spin).
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime
from typing import Any

from ..abilities import ReadsWheelPosition
from ..base import DeviceNotConnected, EventSink
from ..events import DeviceEvent
from ..modbus_polling import ModbusPollingDriver, PollError, short_text
from .events import EncoderFault, EncoderSample, EncoderZeroMark, WheelAtRest
from .modbus import EncoderRegisterMap, ReadBlock, register_map_from_option

__all__ = ["COMMANDS", "DRIVERS", "EncoderTracker", "EncoderWheelDriver"]

log = logging.getLogger(__name__)

#: commands the driver takes through send()
COMMANDS = ("mark_zero", "sample")


class EncoderTracker:
    """Register values in, encoder events out. Pure: the caller passes the monotonic and wall clocks.

    ``counts_per_turn``: the encoder's counts per wheel turn (after any gearing);
    ``rest_ms``/``rest_tolerance``: still means moving at most ``rest_tolerance`` counts for
    ``rest_ms``; ``reversal_tolerance``: counts the wheel must come back from its furthest point
    before a reversal is reported (default: a 360th of a turn, at least 2 counts);
    ``index_tolerance``: counts an index pulse may be off a whole number of turns.
    """

    def __init__(
        self,
        device_id: str,
        register_map: EncoderRegisterMap,
        *,
        counts_per_turn: int,
        rest_ms: int = 400,
        rest_tolerance: int = 1,
        sample_interval: float = 0.05,
        heartbeat_s: float = 1.0,
        reversal_tolerance: int | None = None,
        index_tolerance: int | None = None,
    ) -> None:
        if counts_per_turn < 8:
            raise ValueError("counts_per_turn must be at least 8")
        if rest_ms < 1:
            raise ValueError("rest_ms must be at least 1")
        self.device_id = device_id
        self.map = register_map
        self.cpr = int(counts_per_turn)
        bits = register_map.count.bits
        #: the count register wraps at this value
        self.modulus = self.cpr if register_map.single_turn else 1 << bits
        if register_map.single_turn and self.cpr > 1 << bits:
            raise ValueError(f"a {bits}-bit register cannot hold {self.cpr} counts per turn")
        if register_map.index_position is None and not register_map.single_turn and (1 << bits) % self.cpr:
            raise ValueError(
                f"the {bits}-bit counter wraps at {1 << bits}, not a whole number of turns of "
                f"{self.cpr} counts: give the register map an index_position (or single_turn = true "
                "for an absolute encoder)"
            )
        self.rest_s = rest_ms / 1000
        self.rest_ms = int(rest_ms)
        self.rest_tolerance = int(rest_tolerance)
        self.sample_interval = float(sample_interval)
        self.heartbeat_s = float(heartbeat_s)
        self.reversal_tolerance = int(
            reversal_tolerance if reversal_tolerance is not None else max(2, self.cpr // 360)
        )
        self.index_tolerance = int(
            index_tolerance if index_tolerance is not None else max(2, self.cpr // 720)
        )
        self.count = 0
        self._last_raw: int | None = None
        self._index_raw: tuple[int, int] | None = None  # (index_count, index_position) last seen
        self._seen_index = False
        self._status = 0
        self._anchor = 0  # count where the wheel was last seen still
        self._still_since = 0.0
        self.moving = False
        self._confirming = False  # just (re)connected: a WheelAtRest follows once the wheel is seen still
        self._direction = 0
        self._extreme: EncoderSample | None = None
        self._last_emit = -1e9
        self._history: list[tuple[float, int]] = []
        self.last: EncoderSample | None = None
        self.faults = 0

    # -- inputs ----------------------------------------------------------------------------------

    def reset(self) -> None:
        """After a (re)connect: the next poll is a new baseline; the count continues from where it was."""
        self._last_raw = None
        self._index_raw = None
        self._history.clear()
        self._direction = 0
        self._extreme = None

    def update(self, raw: dict[str, int], now: float, at: datetime) -> list[DeviceEvent]:
        out: list[DeviceEvent] = []
        modulus = self.modulus
        value = raw["count"] % modulus
        first = self._last_raw is None
        if not first:
            step = (value - self._last_raw) % modulus  # type: ignore[operator]
            if step >= modulus // 2:
                step -= modulus
            if abs(step) > modulus // 4:
                out.append(
                    self._fault(
                        "tracking_lost",
                        f"the counter moved {step} counts in one poll: more than "
                        f"a quarter of its range; the wheel's travel is unknown",
                        at,
                        raw,
                    )
                )
            self.count += step
        self._last_raw = value
        position = self._position(raw, out, at)
        status = raw.get("status", 0)
        if status != self._status:
            self._status = status
            if status:
                out.append(self._fault("device_fault", f"the encoder reports status {status}", at, raw))
        velocity = self._velocity(now)
        sample = EncoderSample(
            device_id=self.device_id,
            at=at,
            count=self.count,
            position=position,
            counts_per_turn=self.cpr,
            index_count=raw.get("index_count", 0),
            velocity=velocity,
            moving=True,
            raw=_raw_text(raw),
        )
        if first:
            # what the wheel did before we could see it is unknown: it counts as moving until it has stood
            # still for rest_ms, so a WheelAtRest follows every (re)connect of a still wheel
            self._anchor, self._still_since = self.count, now
            self.moving = False
            self._confirming = True
            self._extreme = sample
            self.last = sample.model_copy(update={"moving": False})
            self._last_emit = now
            out.append(self.last)
            return out

        # reversals: the furthest point in the current direction, reported once the wheel came back from it
        ext = self._extreme
        assert ext is not None
        if self._direction == 0:
            if abs(self.count - ext.count) >= self.reversal_tolerance:  # ext is where it started from
                self._direction = 1 if self.count > ext.count else -1
                self._extreme = sample
        elif (self.count - ext.count) * self._direction > 0:
            self._extreme = sample  # further the same way
        elif abs(self.count - ext.count) >= self.reversal_tolerance:
            out.append(ext.model_copy(update={"reversal": True, "velocity": 0}))
            self._last_emit = now
            self._direction = -self._direction
            self._extreme = sample

        if abs(self.count - self._anchor) > self.rest_tolerance:
            started = not self.moving
            self.moving = True
            self._confirming = False
            self._anchor, self._still_since = self.count, now
            if started or now - self._last_emit >= self.sample_interval:
                out.append(sample)
                self._last_emit = now
        elif (self.moving or self._confirming) and now - self._still_since >= self.rest_s:
            self.moving = self._confirming = False
            self._direction = 0
            self._extreme = sample
            still = sample.model_copy(update={"moving": False, "velocity": 0})
            out.append(still)
            out.append(
                WheelAtRest(
                    device_id=self.device_id,
                    at=at,
                    sensor="encoder",
                    still_ms=round((now - self._still_since) * 1000),
                    count=self.count,
                    position=position,
                    counts_per_turn=self.cpr,
                    raw=sample.raw,
                )
            )
            self._last_emit = now
        elif self.moving and now - self._last_emit >= self.sample_interval:
            out.append(sample)
            self._last_emit = now
        elif not self.moving and now - self._last_emit >= self.heartbeat_s:
            out.append(sample.model_copy(update={"moving": False, "velocity": 0}))
            self._last_emit = now
        self.last = sample.model_copy(update={"moving": self.moving})
        return out

    def zero_mark(self, at: datetime) -> EncoderZeroMark | None:
        last = self.last
        if last is None:
            return None
        return EncoderZeroMark(
            device_id=self.device_id,
            at=at,
            position=last.position,
            count=last.count,
            counts_per_turn=self.cpr,
            raw=last.raw,
        )

    # -- helpers ---------------------------------------------------------------------------------

    def _position(self, raw: dict[str, int], out: list[DeviceEvent], at: datetime) -> int | None:
        if self.map.index_position is None:
            return self.map.count.signed(raw["count"]) % self.cpr
        index_count = raw.get("index_count")
        index_position = raw["index_position"]
        had_index = self._seen_index
        if index_count is None:
            self._seen_index = True  # no counter to tell: trust the latch
        elif index_count != 0:
            self._seen_index = True
        if (
            had_index
            and self._index_raw is not None
            and index_count is not None
            and index_count != self._index_raw[0]
        ):
            # every index pulse is at the same mark: the latched counts differ by whole turns
            d = self._diff(index_position, self._index_raw[1])
            r = d % self.cpr
            off = min(r, self.cpr - r)
            if off > self.index_tolerance:
                out.append(
                    self._fault(
                        "index_drift",
                        f"two index pulses {d} counts apart: {off} counts off a "
                        f"whole number of turns of {self.cpr} (counts lost or the encoder slips)",
                        at,
                        raw,
                    )
                )
        self._index_raw = (index_count if index_count is not None else 0, index_position)
        if not self._seen_index:
            return None
        return self._diff(raw["count"], index_position) % self.cpr

    def _diff(self, a: int, b: int) -> int:
        modulus = 1 << self.map.count.bits
        d = (a - b) % modulus
        return d - modulus if d >= modulus // 2 else d

    def _velocity(self, now: float) -> int:
        self._history.append((now, self.count))
        while len(self._history) > 2 and now - self._history[0][0] > 0.1:
            self._history.pop(0)
        t0, c0 = self._history[0]
        if now - t0 <= 0:
            return 0
        return round((self.count - c0) / (now - t0))

    def _fault(self, code: str, description: str, at: datetime, raw: dict[str, int]) -> EncoderFault:
        self.faults += 1
        return EncoderFault(
            device_id=self.device_id, at=at, code=code, description=description, raw=_raw_text(raw)
        )


def _raw_text(raw: dict[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in raw.items())


class EncoderWheelDriver(ModbusPollingDriver, ReadsWheelPosition):
    """The ``wheel-encoder`` driver. Options (all optional but ``counts_per_turn`` matters):

    * ``counts_per_turn``: encoder counts per wheel turn (default 4096);
    * ``register_map``: "generic" (default), a table or a .toml path (devices/money_wheel/modbus.py);
    * ``poll_interval``: seconds between polls (0.01);
    * ``rest_ms`` / ``rest_tolerance``: at rest = moved at most this many counts for this long (400 / 1);
    * ``sample_interval``: at most one sample this often while moving (0.05 s), plus every reversal;
    * ``heartbeat_s``: a sample this often while still (1.0);
    * ``reversal_tolerance``, ``index_tolerance``: counts (see :class:`EncoderTracker`);
    * ``failures_before_lost`` (3), ``reconnect_min`` / ``reconnect_max`` (0.1 / 5 s), ``timeout``.

    Commands (``send``): ``mark_zero`` (emit :class:`EncoderZeroMark` with the position now),
    ``sample`` (emit a sample now).
    """

    kind = "wheel-encoder"
    what = "a wheel encoder"
    max_poll_interval = 1
    extra_counters = ("commands",)

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: EventSink,
        *,
        counts_per_turn: int = 4096,
        register_map: Any = None,
        poll_interval: float = 0.01,
        rest_ms: int = 400,
        rest_tolerance: int = 1,
        sample_interval: float = 0.05,
        heartbeat_s: float = 1.0,
        reversal_tolerance: int | None = None,
        index_tolerance: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__(device_id, url, on_event, poll_interval=poll_interval, **options)
        self.register_map = register_map_from_option(register_map)
        self.plan: tuple[ReadBlock, ...] = self.register_map.read_plan()
        self.tracker = EncoderTracker(
            device_id,
            self.register_map,
            counts_per_turn=int(counts_per_turn),
            rest_ms=int(rest_ms),
            rest_tolerance=int(rest_tolerance),
            sample_interval=sample_interval,
            heartbeat_s=heartbeat_s,
            reversal_tolerance=reversal_tolerance,
            index_tolerance=index_tolerance,
        )
        self._pending: list[str] = []  # commands sent, for the next poll
        self._due: list[str] = []  # commands taken by this poll (polling thread only)

    def send(self, command: str) -> None:
        """``mark_zero`` or ``sample``; carried out by the polling thread at its next poll."""
        command = command.strip()
        if command not in COMMANDS:
            raise ValueError(f"unknown command {command!r}; the wheel encoder takes: {', '.join(COMMANDS)}")
        if not self._online:
            raise DeviceNotConnected(f"{self.device_id}: not connected to {self.target.describe()}")
        with self._state:
            self._pending.append(command)
            self._counters["commands"] += 1

    def _tracker_counters(self) -> dict[str, int]:
        return {"faults": self.tracker.faults}

    def _device_health(self) -> dict[str, Any]:
        last = self.tracker.last
        return {
            "device": {
                "counts_per_turn": self.tracker.cpr,
                "count": last.count if last else None,
                "position": last.position if last else None,
                "index_count": last.index_count if last else None,
                "moving": self.tracker.moving,
                "referenced": bool(last and last.position is not None),
            }
        }

    # -- polling thread ----------------------------------------------------------------------------

    def _poll(self, client: Any) -> dict[str, int]:
        values: dict[ReadBlock, list[int]] = {}
        unit = self.target.unit
        for block in self.plan:
            read = (
                client.read_holding_registers
                if block.table == "holding_register"
                else client.read_input_registers
            )
            try:
                rr = read(block.address, count=block.count, device_id=unit)
            except Exception as exc:  # ConnectionException, ModbusIOException, OSError
                raise PollError(
                    f"no answer from the encoder ({self.target.describe()}): {short_text(exc)}"
                ) from exc
            if rr.isError():
                raise PollError(
                    f"the encoder refused to read {block.table} {block.address}-"
                    f"{block.address + block.count - 1}: {rr}; check the register map"
                )
            regs = list(rr.registers)
            if len(regs) < block.count:
                raise PollError(f"the encoder answered {len(regs)} registers for {block.count}")
            values[block] = regs[: block.count]
        return self.register_map.decode(values)

    def _note_poll(self, reading: dict[str, int]) -> None:
        self._due, self._pending = self._pending, []

    def _handle_poll(self, reading: dict[str, int], now: float, at: datetime) -> None:
        super()._handle_poll(reading, now, at)
        for command in self._due:
            if command == "mark_zero":
                mark = self.tracker.zero_mark(at)
                if mark is not None:
                    self._emit(mark)
            elif command == "sample" and self.tracker.last is not None:
                self._emit(self.tracker.last.model_copy(update={"at": at}))

    # Polls keep to a fixed grid, so one slow answer does not shift every later sample; nothing cuts a
    # wait short, as commands are queued for the next poll anyway.
    def _wait_next(self, stop: threading.Event, started: float, due: float) -> float:
        due += self.poll_interval
        delay = due - time.monotonic()
        if delay < -self.poll_interval:  # fell behind (a slow answer): do not try to catch up
            due = time.monotonic()
            delay = 0
        if delay > 0:
            stop.wait(delay)
        return due

    def _wait_after_error(self, stop: threading.Event) -> None:
        stop.wait(self.poll_interval)


DRIVERS = {EncoderWheelDriver.kind: EncoderWheelDriver}
