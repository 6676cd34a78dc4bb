"""Software twin of a money wheel and of its two sensor kinds.

* :class:`WheelModel` - the wheel: inertia and friction (a Coulomb term ``friction`` in
  turns/s² plus a viscous ``decay`` in 1/s, so a spin slows smoothly and stops in finite
  time), a presenter who may swing it back first (``counter_start``) and then spins it
  in ``direction``; pure (time is passed in, randomness comes from one seeded
  ``random.Random``). Angles are in turns, clockwise positive as seen from the front;
  at angle 0 the centre of segment 0 is under the pointer at the top.
* :class:`EncoderSimulator` - an angle encoder on the wheel's axle with a Modbus server
  (pymodbus 3.16 ``SimDevice`` datastore) over **TCP** on 127.0.0.1, or **RTU** over a
  relayed pair of ptys; it implements the driver's register map (default: the generic
  map of devices/money_wheel/modbus.py): a free-running 32-bit count, the index-pulse
  counter and the count latched at the index.
* :class:`PointerSimulator` - a pointer reader on a pty speaking the reference line
  protocol of devices/money_wheel/pointer.py (``TAG S17``, ``TAG S17 S18`` on a boundary,
  ``NOREAD``), repeated every ``repeat_s``.

Both sensors of one table watch one wheel: simulators with the same ``wheel_id`` option
(default: the seed, else "default") share a :class:`WheelModel`. For a studio table give
both devices ``options.wheel_id = "<table id>"``.

Faults on request (:meth:`WheelModel.inject`, one-shot: they apply to the next spin):

* ``weak_spin`` - the wheel makes less than ``weak_turns`` turns (default 1.2);
* ``wrong_direction`` - the presenter spins the other way (no swing back first);
* ``no_counter_start`` - the presenter forgets the swing back before the spin;
* ``boundary`` - the wheel stops exactly on a segment boundary;
* ``dropout`` - the sensors go quiet ``at_s`` (default 1.0) wheel seconds into the spin for
  ``seconds`` real seconds (encoder: the Modbus server goes away; pointer: the reader is silent);
* ``unreadable`` - the pointer reader cannot read the tag the wheel stops on (NOREAD);
* ``unknown_tag`` - the pointer reader reads a tag that is not in the tag table;
* ``segment`` (``index=i``) - the wheel stops on segment ``i`` (also :meth:`force_next_segment`).

Acting as the dealer (``act_as_dealer``, default True, for the demo): when the table
closes betting the presenter spins; when the table holds a round for a boundary, an
unreadable tag, a lost sensor or a wheel moving when betting closed, the presenter
spins again after ``dealer_delay_s`` (and never before the wheel has stood still for
``settle_s`` real seconds, so the sensors have reported it at rest).

Wheel options (either simulator; the first user of a ``wheel_id`` sets them): ``segments``
(54), ``friction``, ``decay``, ``turns`` (range of a normal spin, (4, 7)), ``weak_turns``,
``direction``, ``counter_start``, ``counter_turns`` / ``counter_s`` / ``pause_s`` (the swing
back: 0.12 turn in 0.6 s, then a 0.25 s pause; wheel seconds), ``pin_zone`` (0.1 segment),
``start_angle``. ``speed`` is the clock factor of the wheel (not of the sensors' timing).

Quick start for a technician::

    python -m simulators.money_wheel --speed 1
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import os
import random
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from devices.money_wheel.modbus import EncoderRegisterMap, register_map_from_option

from .history import keep_recent, remember
from .modbus_server import ModbusServerSim, opened

__all__ = [
    "FAULTS",
    "SIMULATORS",
    "Coast",
    "EncoderSimulator",
    "Move",
    "PointerSimulator",
    "WheelModel",
    "wheel_model",
]

log = logging.getLogger(__name__)

FAULTS = (
    "weak_spin",
    "wrong_direction",
    "no_counter_start",
    "boundary",
    "dropout",
    "unreadable",
    "unknown_tag",
    "segment",
)
CLOCKWISE, COUNTERCLOCKWISE = "clockwise", "counterclockwise"
#: holds after which the presenter spins again (acting as dealer)
RESPIN_HOLDS = (
    "on_boundary",
    "tag_unreadable",
    "unknown_tag",
    "sensor_lost",
    "sensor_fault",
    "moving_at_close",
    "spin_not_verified",
    "sensors_disagree",
    "not_referenced",
)
_FC_WRITE = {"holding_register": 6, "input_register": 4}
#: function code of a read -> the register table it reads
_FC_READ = {3: "holding_register", 4: "input_register"}


# =============================================================================
# Physics (pure)
# =============================================================================


@dataclass(frozen=True)
class Move:
    """The presenter moves the wheel by ``delta`` turns in ``duration`` s (smooth start and stop)."""

    start: float
    angle0: float
    delta: float
    duration: float

    @property
    def end(self) -> float:
        return self.start + self.duration

    def angle(self, t: float) -> float:
        u = min(max((t - self.start) / self.duration, 0.0), 1.0)
        return self.angle0 + self.delta * (1 - math.cos(math.pi * u)) / 2

    def velocity(self, t: float) -> float:
        u = (t - self.start) / self.duration
        if not 0 <= u <= 1:
            return 0.0
        return self.delta * math.pi * math.sin(math.pi * u) / (2 * self.duration)


@dataclass(frozen=True)
class Coast:
    """A free spin from ``omega0`` turns/s (signed): dω/dt = -sign(ω)(friction + decay·|ω|)."""

    start: float
    angle0: float
    omega0: float
    friction: float
    decay: float

    @property
    def duration(self) -> float:
        return coast_time(abs(self.omega0), self.friction, self.decay)

    @property
    def end(self) -> float:
        return self.start + self.duration

    def angle(self, t: float) -> float:
        s = math.copysign(1.0, self.omega0)
        tau = min(max(t - self.start, 0.0), self.duration)
        return self.angle0 + s * _coast_distance_at(abs(self.omega0), self.friction, self.decay, tau)

    def velocity(self, t: float) -> float:
        tau = t - self.start
        if not 0 <= tau <= self.duration:
            return 0.0
        w0, c, k = abs(self.omega0), self.friction, self.decay
        w = (w0 + c / k) * math.exp(-k * tau) - c / k
        return math.copysign(max(w, 0.0), self.omega0)

    @property
    def final_angle(self) -> float:
        return self.angle(self.end)


def coast_time(omega0: float, friction: float, decay: float) -> float:
    return math.log(1 + decay * omega0 / friction) / decay


def coast_distance(omega0: float, friction: float, decay: float) -> float:
    """Turns a free spin from ``omega0`` covers before it stops."""
    return omega0 / decay - friction / decay**2 * math.log(1 + decay * omega0 / friction)


def _coast_distance_at(w0: float, c: float, k: float, tau: float) -> float:
    return (w0 + c / k) * (1 - math.exp(-k * tau)) / k - (c / k) * tau


def omega_for_distance(distance: float, friction: float, decay: float) -> float:
    """The launch speed (turns/s) for a free spin of ``distance`` turns (bisection; exact to 1e-12 turn)."""
    lo, hi = 0.0, 1.0
    while coast_distance(hi, friction, decay) < distance:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if coast_distance(mid, friction, decay) < distance:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


class WheelModel:
    """The physical wheel. Pure: every method takes the wheel time ``now`` in seconds."""

    def __init__(
        self,
        *,
        segments: int = 54,
        seed: int | None = None,
        friction: float = 0.02,
        decay: float = 0.08,
        turns: tuple[float, float] = (4.0, 7.0),
        weak_turns: float = 1.2,
        direction: str = CLOCKWISE,
        counter_start: bool = True,
        counter_turns: float = 0.12,
        start_angle: float | None = None,
        pin_zone: float = 0.1,
        counter_s: float = 0.6,
        pause_s: float = 0.25,
    ) -> None:
        if segments < 2:
            raise ValueError("a wheel has at least 2 segments")
        if direction not in (CLOCKWISE, COUNTERCLOCKWISE):
            raise ValueError("direction is 'clockwise' or 'counterclockwise'")
        self.segments = int(segments)
        self.rng = random.Random(seed)
        self.friction = float(friction)
        self.decay = float(decay)
        self.turns = (float(turns[0]), float(turns[1]))
        self.weak_turns = float(weak_turns)
        self.direction = direction
        self.counter_start = bool(counter_start)
        self.counter_turns = float(counter_turns)
        #: how long the swing back takes, and the pause before the spin (wheel seconds)
        self.counter_s = float(counter_s)
        self.pause_s = float(pause_s)
        #: the pins and the flapper keep the pointer this far (in segments) from a boundary at rest
        self.pin_zone = float(pin_zone)
        a0 = self.rng.random() if start_angle is None else float(start_angle)
        self.phases: list[Move | Coast] = []
        self._rest_angle = a0
        self.faults: dict[str, dict[str, Any]] = {}
        self.forced: list[int] = []
        self.spins = 0
        self.spin_faults: dict[str, dict[str, Any]] = {}  # the faults of the spin now running
        self.spin_started: float | None = None
        self.stop_time: float | None = None  # wheel time the current/last spin comes to rest
        self.log: list[dict[str, Any]] = []

    # -- state -------------------------------------------------------------------------------

    def angle(self, now: float) -> float:
        for ph in reversed(self.phases):
            if now >= ph.start:
                return ph.angle(now)
        return self._rest_angle

    def velocity(self, now: float) -> float:
        for ph in reversed(self.phases):
            if now >= ph.start:
                return ph.velocity(now)
        return 0.0

    def moving(self, now: float) -> bool:
        return self.stop_time is not None and now < self.stop_time

    def segment_at(self, angle: float) -> tuple[int, float]:
        """(segment under the pointer, distance to the nearest boundary in segments: 0 .. 0.5)."""
        u = (-angle * self.segments) % self.segments
        k = math.floor(u + 0.5)
        return k % self.segments, 0.5 - abs(u - k)

    def boundary_pair(self, angle: float) -> tuple[int, int]:
        """The two segments either side of the boundary nearest the pointer (in index order)."""
        u = (-angle * self.segments) % self.segments
        lo = math.floor(u)  # the nearest boundary is at floor(u) + 0.5
        return lo % self.segments, (lo + 1) % self.segments

    # -- the presenter ---------------------------------------------------------------------------

    def inject(self, fault: str, **options: Any) -> None:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        if fault == "segment":
            self.force_next_segment(int(options["index"]))
            return
        self.faults[fault] = dict(options)

    def force_next_segment(self, index: int) -> None:
        if not 0 <= index < self.segments:
            raise ValueError(f"segment {index} is not on a {self.segments}-segment wheel")
        self.forced.append(index)

    def spin(self, now: float) -> dict[str, Any]:
        """Start a spin at ``now`` (ignored while the wheel still turns); returns what was planned."""
        if self.moving(now):
            return {}
        faults, self.faults = self.faults, {}
        start_angle = self.angle(now)
        direction = self.direction
        if "wrong_direction" in faults:
            direction = COUNTERCLOCKWISE if direction == CLOCKWISE else CLOCKWISE
        sign = 1.0 if direction == CLOCKWISE else -1.0
        phases: list[Move | Coast] = []
        t, a = now, start_angle
        if self.counter_start and "no_counter_start" not in faults and "wrong_direction" not in faults:
            back = Move(t, a, -sign * self.counter_turns, self.counter_s)
            phases.append(back)
            t, a = back.end + self.pause_s, back.angle(back.end)
            phases.append(Move(back.end, a, 0.0, self.pause_s))
        if "weak_spin" in faults:
            lo, hi = 0.5 * self.weak_turns, self.weak_turns
        else:
            lo, hi = self.turns
        distance = lo + (hi - lo) * self.rng.random()
        target: float | None = None
        forced = self.forced.pop(0) if self.forced else None
        if "boundary" in faults:
            k = forced if forced is not None else self.rng.randrange(self.segments)
            target = k + 0.5  # the boundary after segment k
        elif forced is not None:
            target = forced + (self.rng.random() - 0.5) * 0.5  # well inside the segment
        if target is not None:
            # final angle a + sign·D must put u = target under the pointer: -θ·N ≡ target (mod N)
            want = (-target / self.segments - a) * sign  # distance mod 1
            base = want % 1.0
            n = max(0, math.ceil(lo - base))
            distance = base + n
        omega = omega_for_distance(distance, self.friction, self.decay)
        coast = Coast(t, a, sign * omega, self.friction, self.decay)
        phases.append(coast)
        end, final = coast.end, coast.final_angle
        seg, edge = self.segment_at(final)
        if edge < self.pin_zone and "boundary" not in faults:
            # the flapper will not stay on a pin: it pushes the wheel off it, into the nearer segment
            u = (-final * self.segments) % self.segments
            side = -1.0 if (u - math.floor(u)) < 0.5 else 1.0  # below the boundary: move down, else up
            push_segments = side * (self.pin_zone + 0.03 - edge)  # move u away from the boundary
            nudge = Move(end, final, -push_segments / self.segments, 0.3)
            phases.append(nudge)
            end, final = nudge.end, nudge.angle(nudge.end)
            seg, edge = self.segment_at(final)
        self._rest_angle = start_angle  # where it stood before this spin
        self.phases = phases
        self.spins += 1
        self.spin_faults = faults
        self.spin_started = now
        self.stop_time = end
        plan = {
            "spin": self.spins,
            "direction": direction,
            "turns": distance,
            "start": now,
            "stop": end,
            "final_angle": final,
            "segment": seg,
            "edge_distance": edge,
            "faults": sorted(faults),
        }
        keep_recent(self.log, plan)
        return plan


# =============================================================================
# Shared wheels
# =============================================================================


class _SharedWheel:
    def __init__(self, key: str, model: WheelModel, speed: float) -> None:
        self.key = key
        self.model = model
        self.speed = speed
        self.lock = threading.RLock()
        self.t0 = time.monotonic()
        self.users = 0
        self.dropout_from: float | None = None  # monotonic time the sensors go quiet
        self.dropout_until: float | None = None  # monotonic time the sensors come back
        self.dealt: dict[tuple[str, str], None] = {}  # the newest KEEP (simulators.history)

    def now(self) -> float:
        return (time.monotonic() - self.t0) * self.speed

    def real_time(self, wheel_time: float) -> float:
        """The monotonic time at which the wheel clock shows ``wheel_time``."""
        return self.t0 + wheel_time / self.speed


_WHEELS: dict[str, _SharedWheel] = {}
_WHEELS_LOCK = threading.Lock()


def wheel_model(key: Any, speed: float = 1.0, **model_options: Any) -> _SharedWheel:
    """The shared wheel called ``key`` (created by its first user with ``model_options``)."""
    name = str(key)
    with _WHEELS_LOCK:
        w = _WHEELS.get(name)
        if w is None:
            w = _SharedWheel(name, WheelModel(**model_options), speed)
            _WHEELS[name] = w
        w.users += 1
        return w


def _release_wheel(w: _SharedWheel) -> None:
    with _WHEELS_LOCK:
        w.users -= 1
        if w.users <= 0 and _WHEELS.get(w.key) is w:
            del _WHEELS[w.key]


_MODEL_KEYS = (
    "segments",
    "friction",
    "decay",
    "turns",
    "weak_turns",
    "direction",
    "counter_start",
    "counter_turns",
    "start_angle",
    "pin_zone",
    "counter_s",
    "pause_s",
)


class _WheelUser:
    """What both sensor simulators share: the wheel, the presenter's hooks, acting as dealer."""

    def __init__(
        self,
        speed: float,
        seed: int | None,
        wheel_id: str | None,
        act_as_dealer: bool,
        dealer_delay_s: float,
        model_options: dict[str, Any],
        settle_s: float = 2.0,
    ) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        if "turns" in model_options and not isinstance(model_options["turns"], tuple):
            model_options["turns"] = tuple(model_options["turns"])
        self.wheel = wheel_model(
            wheel_id if wheel_id is not None else (seed if seed is not None else "default"),
            speed=speed,
            seed=seed,
            **model_options,
        )
        self.act_as_dealer = act_as_dealer
        self.dealer_delay_s = float(dealer_delay_s)
        self._released = False
        self._timer_list: list[threading.Timer] = []
        #: a presenter waits this long (real seconds) after the wheel stopped before spinning it again, so that
        #: the sensors have reported it at rest
        self.settle_s = float(settle_s)

    @property
    def model(self) -> WheelModel:
        return self.wheel.model

    def now(self) -> float:
        return self.wheel.now()

    def spin(self) -> dict[str, Any]:
        """The presenter spins now; returns the plan (final segment, stop time in wheel seconds, ...)."""
        w = self.wheel
        with w.lock:
            plan = self.model.spin(w.now())
            faults = self.model.spin_faults
            if plan and "dropout" in faults:
                opts = faults["dropout"]
                at = w.real_time(plan["start"] + float(opts.get("at_s", 1.0)))
                w.dropout_from = at
                w.dropout_until = at + float(opts.get("seconds", 1.5))
        return plan

    def inject(self, fault: str, **options: Any) -> None:
        with self.wheel.lock:
            self.model.inject(fault, **options)

    def force_next_segment(self, index: int) -> None:
        with self.wheel.lock:
            self.model.force_next_segment(index)

    def stop_monotonic(self) -> float | None:
        """The monotonic time the last spin comes (came) to rest."""
        st = self.model.stop_time
        return None if st is None else self.wheel.real_time(st)

    def sensors_down(self, mono: float) -> bool:
        w = self.wheel
        start = w.dropout_from
        return start is not None and w.dropout_until is not None and start <= mono < w.dropout_until

    def table_event(self, what: str, data: dict[str, Any]) -> None:
        """Act as the presenter (``act_as_dealer``): spin when betting closes, spin again after a hold."""
        if not self.act_as_dealer:
            return
        rid = str(data.get("round_id", ""))
        if what == "round" and data.get("transition") == "start_play":
            key = (rid, "spin")
        elif what == "hold" and data.get("code") in RESPIN_HOLDS:
            key = (rid or str(time.monotonic()), f"hold:{data.get('code')}")
        else:
            return
        w = self.wheel
        with w.lock:
            if key in w.dealt and key[1] == "spin":
                return
            remember(w.dealt, key)
        delay = (0.3 if key[1] == "spin" else self.dealer_delay_s) / w.speed
        timer = threading.Timer(delay, self._dealer_spin)
        timer.daemon = True
        timer.start()
        self._timers.append(timer)

    def _dealer_spin(self) -> None:
        if self._released:
            return
        with self.wheel.lock:
            if self.model.moving(self.now()):
                # still turning: spin once it stops
                wait = max(0.05, (self.stop_monotonic() or 0) - time.monotonic() + self.settle_s)
            else:
                wait = None
        if wait is None:
            self.spin()
            return
        timer = threading.Timer(wait, self._dealer_spin)
        timer.daemon = True
        timer.start()
        self._timers.append(timer)

    @property
    def _timers(self) -> list[threading.Timer]:
        self._timer_list[:] = [t for t in self._timer_list if t.is_alive()]
        return self._timer_list

    def _release(self) -> None:
        if self._released:
            return
        self._released = True
        for t in list(self._timers):
            t.cancel()
        _release_wheel(self.wheel)


def _split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    model = {k: options.pop(k) for k in list(options) if k in _MODEL_KEYS}
    return model, options


# =============================================================================
# Encoder on Modbus
# =============================================================================


class EncoderSimulator(_WheelUser, ModbusServerSim):
    """An encoder on the wheel's axle behind a Modbus server (TCP on 127.0.0.1, or RTU on ptys).

    ``counts_per_turn`` (4096); ``counts_clockwise`` (True: the count goes up when the wheel turns
    clockwise); ``index_angle`` (turns, 0: the index mark fires when segment 0 is under the pointer);
    ``referenced`` (False: like a real incremental encoder, the index is unknown until the wheel first
    turns past it); ``count_base`` (the raw count at angle 0). :attr:`zero_offset` is the calibration a
    technician would find (the position, in counts from the index, with segment 0 under the pointer).
    """

    label = "wheel encoder simulator"

    def __init__(
        self,
        *,
        transport: str = "tcp",
        speed: float = 1.0,
        seed: int | None = None,
        wheel_id: str | None = None,
        counts_per_turn: int = 4096,
        counts_clockwise: bool = True,
        index_angle: float = 0.0,
        referenced: bool = False,
        count_base: int = 1_000_000,
        register_map: Any = None,
        unit: int = 1,
        host: str = "127.0.0.1",
        port: int = 0,
        baud: int = 115200,
        tick_s: float = 0.002,
        act_as_dealer: bool = True,
        dealer_delay_s: float = 3.0,
        settle_s: float = 2.0,
        device_fault: int = 0,
        **options: Any,
    ) -> None:
        self._init_server(transport=transport, unit=unit, host=host, port=port, baud=baud)
        model_options, rest = _split_options(dict(options))
        if rest:
            raise ValueError(f"unknown encoder simulator option(s): {', '.join(sorted(rest))}")
        super().__init__(speed, seed, wheel_id, act_as_dealer, dealer_delay_s, model_options, settle_s)
        self.cpr = int(counts_per_turn)
        self.sign = 1 if counts_clockwise else -1
        self.index_angle = float(index_angle)
        self.count_base = int(count_base)
        self.map: EncoderRegisterMap = register_map_from_option(register_map)
        self.tick_s = float(tick_s)
        self.device_fault = int(device_fault)
        self.count_slip = 0  # counts lost (the "index_drift" test hook adds to it)
        self._auto_down = False
        # index tracking
        a = self.model.angle(self.now())
        self._last_mark = math.floor(a - self.index_angle)
        self.index_count = 1 if referenced else 0
        self.index_latch = self._count_at(self.index_angle + self._last_mark) if referenced else 0

    @property
    def zero_offset(self) -> int:
        return (self.sign * round(-self.index_angle * self.cpr)) % self.cpr

    def _count_at(self, angle: float) -> int:
        return self.count_base + self.sign * round(angle * self.cpr)

    def registers_now(self) -> dict[str, int]:
        with self.wheel.lock:
            a = self.model.angle(self.now())
        mark = math.floor(a - self.index_angle)
        if mark != self._last_mark:
            crossed = abs(mark - self._last_mark)
            last = mark if mark > self._last_mark else mark + 1
            self.index_count = (self.index_count + crossed) & 0xFFFF
            self.index_latch = self._count_at(self.index_angle + last) + self.count_slip
            self._last_mark = mark
        count = self._count_at(a) + self.count_slip
        count = count % self.cpr if self.map.single_turn else count & 0xFFFFFFFF
        return {
            "count": count,
            "index_count": self.index_count,
            "index_position": self.index_latch & 0xFFFFFFFF,
            "status": self.device_fault,
        }

    # -- lifecycle -----------------------------------------------------------------------------

    def _on_stopped(self) -> None:
        self._release()

    def _thread_name(self) -> str:
        return f"wheel-encoder-sim:{self.wheel.key}"

    def lose_link(self) -> None:
        self._call_on_loop(self._lose)

    def restore_link(self) -> None:
        self._call_on_loop(self._restore)

    # -- the loop thread -----------------------------------------------------------------------

    def _call_on_loop(self, fn: Callable[[], Any]) -> None:
        loop = self._loop
        if loop is None or self._closed:
            return
        fut = asyncio.run_coroutine_threadsafe(fn(), loop)
        try:
            fut.result(timeout=5)
        except Exception:
            log.debug("wheel encoder simulator: %s failed", fn, exc_info=True)

    def _sim_device(self) -> Any:
        from pymodbus.simulator import DataType, SimData, SimDevice

        used = {"holding_register": 0, "input_register": 0}
        for p in self.map.points().values():
            used[p.table] = max(used[p.table], p.address + p.words)
        blocks: list[list[Any]] = [
            [SimData(0, count=16, values=False, datatype=DataType.BITS)],
            [SimData(0, count=16, values=False, datatype=DataType.BITS)],
        ]
        for table in ("holding_register", "input_register"):
            blocks.append([SimData(0, count=max(used[table], 1), values=0, datatype=DataType.REGISTERS)])
        return SimDevice(id=self.unit, simdata=tuple(blocks), action=self._answer_read)  # type: ignore[arg-type]

    async def _answer_read(
        self,
        function_code: int,
        start_address: int,
        _address: int,
        _count: int,
        registers: list[int],
        set_values: list[int] | list[bool] | None,
    ) -> None:
        """pymodbus's hook on every access: a read is answered with the registers of this moment, from the
        simulator's clock, as the encoder's own electronics would. The ticker alone would let a loop stall
        of a rest window (a loaded machine) show the driver a still wheel in the middle of a spin."""
        table = _FC_READ.get(function_code)
        if set_values is not None or table is None:
            return  # a write (the ticker's own), or the bits
        values = self.registers_now()
        for name, point in self.map.points().items():
            if point.table == table:
                for i, reg in enumerate(point.encode(values[name])):
                    registers[point.address + i - start_address] = reg
                    self._pushed[(table, point.address + i)] = reg

    async def _start_ticking(self) -> None:
        await self._tick()
        self._tick_task = asyncio.get_running_loop().create_task(self._ticker())

    async def _stop_ticking(self) -> None:
        if self._tick_task is not None:
            self._tick_task.cancel()

    async def _ticker(self) -> None:
        while True:
            try:
                down = self.sensors_down(time.monotonic())
                if down and self._link_up:
                    await self._lose()
                elif not down and not self._link_up and self._auto_down:
                    await self._restore()
                await self._tick()
            except asyncio.CancelledError:
                raise
            except Exception:  # pragma: no cover - keep the wheel running
                log.exception("wheel encoder simulator: tick failed")
            await asyncio.sleep(self.tick_s)

    async def _tick(self) -> None:
        server = self._server
        values = self.registers_now()
        if server is None:
            return
        for name, point in self.map.points().items():
            regs = point.encode(values[name])
            for i, reg in enumerate(regs):
                key = (point.table, point.address + i)
                if self._pushed.get(key) == reg:
                    continue
                await server.context.async_setValues(
                    self.unit, _FC_WRITE[point.table], point.address + i, [reg]
                )
                self._pushed[key] = reg

    # The dropout fault pulls the link by itself: remember that, so that it plugs it back in by itself too.
    async def _lose(self) -> None:
        self._auto_down = self.sensors_down(time.monotonic())
        await self._cut_link()

    async def _restore(self) -> None:
        self._auto_down = False
        await self._restore_link()


# =============================================================================
# Pointer reader on a pty
# =============================================================================


class PointerSimulator(_WheelUser):
    """A pointer reader on a pty: the driver opens :attr:`slave_path`.

    ``scan_s``: how often (real seconds) the simulator writes; ``read_step``: the reader's own read
    interval in wheel seconds (every read in between is sent, so a sped-up clock skips no segment);
    ``repeat_s``: it repeats an unchanged
    read this often; ``boundary_zone``: within this fraction of a segment from a boundary it sees
    both tags; ``tag_format``: the tag of segment i (must match the driver's tag table).
    """

    def __init__(
        self,
        *,
        speed: float = 1.0,
        seed: int | None = None,
        wheel_id: str | None = None,
        scan_s: float = 0.002,
        repeat_s: float = 0.1,
        boundary_zone: float = 0.04,
        read_step: float = 0.004,
        tag_format: str = "S{index:02d}",
        act_as_dealer: bool = True,
        dealer_delay_s: float = 3.0,
        settle_s: float = 2.0,
        **options: Any,
    ) -> None:
        model_options, rest = _split_options(dict(options))
        if rest:
            raise ValueError(f"unknown pointer simulator option(s): {', '.join(sorted(rest))}")
        super().__init__(speed, seed, wheel_id, act_as_dealer, dealer_delay_s, model_options, settle_s)
        self.scan_s = float(scan_s)
        self.read_step = float(read_step)
        self.repeat_s = float(repeat_s)
        self.boundary_zone = float(boundary_zone)
        self.tag_format = tag_format
        self.master, self._slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.slave_path = os.ttyname(self._slave)
        self.url = self.slave_path
        self.lines: list[str] = []
        self.dropped = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._last_line: str | None = None
        self._last_sent = 0.0

    def tag(self, index: int) -> str:
        return self.tag_format.format(index=index)

    def read_at(self, now: float) -> str:
        """The line the reader sends when the wheel clock shows ``now``."""
        m = self.model
        a = m.angle(now)
        seg, edge = m.segment_at(a)
        if edge < self.boundary_zone:
            lo, hi = m.boundary_pair(a)
            return f"TAG {self.tag(lo)} {self.tag(hi)}"
        if not m.moving(now) and m.spins:
            if "unreadable" in m.spin_faults:
                return "NOREAD"
            if "unknown_tag" in m.spin_faults:
                return "TAG XX-UNKNOWN"
        return f"TAG {self.tag(seg)}"

    def read_now(self) -> str:
        with self.wheel.lock:
            return self.read_at(self.wheel.now())

    def reads_since(self, since: float, now: float) -> list[str]:
        """Every read a real-speed reader makes between two wheel times (steps of ``read_step`` wheel
        seconds), so that a sped-up clock does not skip segments."""
        out: list[str] = []
        with self.wheel.lock:
            t = since
            steps = 0
            while t < now and steps < 20_000:
                t = min(now, t + self.read_step)
                steps += 1
                line = self.read_at(t)
                if not out or out[-1] != line:
                    out.append(line)
        return out

    def start(self) -> None:
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(
                target=self._run, name=f"wheel-pointer-sim:{self.wheel.key}", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        for fd in (self.master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass
        self._release()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        last = self.now()
        while not self._stop.is_set():
            mono = time.monotonic()
            now = self.now()
            if self.sensors_down(mono):
                last = now
            else:
                for line in self.reads_since(last, now):
                    if line != self._last_line:
                        self._write(line)
                        self._last_line, self._last_sent = line, mono
                last = now
                if mono - self._last_sent >= self.repeat_s and self._last_line is not None:
                    self._write(self._last_line)
                    self._last_sent = mono
            self._stop.wait(self.scan_s)

    def _write(self, line: str) -> None:
        try:
            os.write(self.master, (line + "\r\n").encode("ascii"))
            self.lines.append(line)
            if len(self.lines) > 5000:
                del self.lines[:1000]
        except (BlockingIOError, OSError):
            self.dropped += 1  # nobody reads the port: the bytes fall on the floor


# =============================================================================
# Discovery (studio/simulated.py) and the command line
# =============================================================================


def _encoder_factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[EncoderSimulator, str]:
    return opened(EncoderSimulator(speed=speed, seed=seed, **options))


def _pointer_factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[PointerSimulator, str]:
    sim = PointerSimulator(speed=speed, seed=seed, **options)
    return sim, sim.slave_path


#: device kind -> factory, found by studio.simulated for devices whose URL is "simulator"
SIMULATORS = {"wheel-encoder": _encoder_factory, "wheel-pointer": _pointer_factory}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Money wheel simulator: encoder (Modbus) + pointer reader (pty)"
    )
    parser.add_argument("--transport", choices=("tcp", "rtu"), default="tcp")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--segments", type=int, default=54)
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--every", type=float, default=30.0, help="spin every this many seconds")
    args = parser.parse_args(argv)
    enc = EncoderSimulator(
        transport=args.transport,
        port=args.port,
        segments=args.segments,
        speed=args.speed,
        seed=args.seed,
        wheel_id="cli",
        act_as_dealer=False,
    )
    ptr = PointerSimulator(segments=args.segments, speed=args.speed, wheel_id="cli", act_as_dealer=False)
    try:
        enc.start()
        ptr.start()
        print(f"encoder: {enc.url} (zero_offset {enc.zero_offset})\npointer: {ptr.slave_path}", flush=True)
        while True:
            plan = enc.spin()
            print(f"spin: {plan}", flush=True)
            time.sleep(args.every / args.speed)
    except KeyboardInterrupt:
        pass
    finally:
        enc.stop()
        ptr.stop()


if __name__ == "__main__":
    main()
