"""The money-wheel judge: after betting closes it watches for a spin, checks it, and reads where it stopped.

Dealer-paced (recognition/game.py): the table opens rounds and closes betting and tells
the judge with RoundSignals. Pure: it decides from the events it is fed, in order, and
their times; no clock, no I/O.

What it decides for the round in play:

* a valid spin stopped clearly inside a segment -> ``ResultReady({"segment", "index", ...})``
  (after releasing the holds it put on the round, if a re-spin resolved them);
* a spin that does not count (too few turns, the wrong direction, no swing back first where
  the game needs one) -> ``Void`` with code ``weak_spin``, ``wrong_direction`` or
  ``no_counter_start``: the round's bets are returned and the wheel is spun in the next round;
* anything that leaves the result uncertain -> ``Hold`` with a plain message; nothing is
  certified while it stands. The dealer re-spins (a valid re-spin releases it and gives the
  result), or a supervisor voids the round or enters the result. Codes: ``on_boundary``
  (pointer within ``boundary_margin`` of a boundary, or the reader sees two tags),
  ``tag_unreadable``, ``unknown_tag``, ``sensors_disagree``, ``sensor_lost`` (a sensor
  disconnected while the wheel was to be read), ``sensor_fault`` (the encoder reported a
  fault), ``moving_at_close`` (the wheel was already turning when betting closed: that spin
  never counts), ``spin_not_verified`` (a pointer reader missed segments, so the turns are
  unknown), ``not_referenced`` (the encoder has not seen its index mark since power-up),
  ``calibration`` (the encoder's counts per turn differ from the calibration).

Sensors: an encoder (``wheel-encoder``) gives the turns, the direction and the position;
a pointer reader (``wheel-pointer``) gives the tag under the pointer. With both, they must
agree. ``sensors = "auto"`` (default) uses every kind of sensor the judge has heard from.

Carried multipliers (games with ``carries_multipliers``): the judge puts the multipliers in
force into every result; the table's ``round_ended`` signal moves them on (the certified
outcome's ``next_multipliers``; a void ends them unless ``carry_after_void``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from devices.events import DeviceConnected, DeviceDisconnected, DeviceEvent
from devices.money_wheel.events import (
    EncoderFault,
    EncoderSample,
    EncoderZeroMark,
    PointerRead,
    PointerUnreadable,
    WheelAtRest,
)
from recognition.game import BaseJudge, Decision, Hold, Note, Release, ResultReady, RoundSignal, Void

from .base import MoneyWheelGame, WheelSettings
from .spin import PointerPath, RunTracker, check_spin, fmt_turns

__all__ = ["MoneyWheelJudge"]

ENCODER, POINTER = "encoder", "pointer"


@dataclass
class _Spin:
    """One spin being watched."""

    enc_start: int | None = None  # encoder count where it started
    enc_runs: RunTracker | None = None
    ptr_path: PointerPath | None = None
    ptr_runs: RunTracker | None = None
    tainted: list[str] = field(default_factory=list)
    enc_rest: WheelAtRest | None = None
    ptr_rest: WheelAtRest | None = None


def _read_of(e: PointerRead | PointerUnreadable) -> tuple[str, str | None]:
    """What a pointer read says: its kind and the tag read (None: unreadable)."""
    return (e.kind, e.tag if isinstance(e, PointerRead) else None)


class MoneyWheelJudge(BaseJudge):
    def __init__(self, game: MoneyWheelGame, settings: WheelSettings) -> None:
        self.game = game
        self.settings = settings
        self.calibration = settings.calibration
        self.layout = settings.layout
        self.multipliers: list[int] = list(settings.multipliers)
        #: "idle" (no round or betting open), "armed" (waiting for a spin), "spinning", "done"
        self.phase = "idle"
        self.holds: dict[str, str] = {}
        self.spin: _Spin | None = None
        self.kinds: dict[str, str] = {}  # device id -> "encoder" / "pointer"
        self.seen: set[str] = set()
        self.down: dict[str, str] = {}
        self.blind: set[str] = set()  # devices back from a disconnect that have not yet shown a still wheel
        self.fresh: set[str] = set()  # devices whose next sample is the first after a reconnect
        self.enc: EncoderSample | None = None
        self.enc_moving = False
        self.enc_anchor: int | None = None  # count where the wheel last stood still
        self.ptr: PointerRead | PointerUnreadable | None = None
        self.ptr_moving = False
        self.ptr_anchor: int | None = None  # segment index the pointer last stood on
        self.extras: dict[str, Any] | None = None

    # -- helpers -----------------------------------------------------------------------------

    @property
    def sensors(self) -> set[str]:
        s = self.settings.sensors
        return set(self.seen) if s == "auto" else set(s)

    def _hold(self, code: str, message: str) -> list[Decision]:
        self.holds[code] = message
        return [Hold(code=code, message=message)]

    # -- feed --------------------------------------------------------------------------------

    def feed(self, event: DeviceEvent | RoundSignal) -> list[Decision]:
        if isinstance(event, RoundSignal):
            return self._signal(event)
        if isinstance(event, DeviceDisconnected):
            return self._lost(event)
        if isinstance(event, DeviceConnected):
            self.down.pop(event.device_id, None)
            return []
        if isinstance(event, EncoderSample):
            return self._encoder_sample(event)
        if isinstance(event, WheelAtRest):
            return self._at_rest(event)
        if isinstance(event, (PointerRead, PointerUnreadable)):
            return self._pointer(event)
        if isinstance(event, EncoderFault):
            return self._fault(event)
        if isinstance(event, EncoderZeroMark):
            return self._zero_mark(event)
        return []

    # -- round signals -------------------------------------------------------------------------

    def _signal(self, sig: RoundSignal) -> list[Decision]:
        if sig.signal == "round_opened":
            self.phase, self.holds, self.spin, self.extras = "idle", {}, None, None
            return []
        if sig.signal == "round_ended":
            self.phase, self.spin = "idle", None
            if self.game.carries_multipliers:
                if sig.final_state == "certified" and sig.outcome and "next_multipliers" in sig.outcome:
                    self.multipliers = [int(m) for m in sig.outcome["next_multipliers"]]
                elif sig.final_state == "voided" and not self.settings.carry_after_void:
                    self.multipliers = []
            return []
        # betting closed: watch for the spin
        self.extras = sig.extras
        self.phase = "armed"
        out: list[Decision] = []
        if self.down:
            out += self._hold(
                "sensor_lost",
                "A wheel sensor is disconnected ("
                + "; ".join(f"{d}: {r}" for d, r in sorted(self.down.items()))
                + "). Wait for it to reconnect, then spin the wheel.",
            )
        moving = self.enc_moving if ENCODER in self.sensors else self.ptr_moving
        if moving:
            self._start_spin()
            assert self.spin is not None
            self.spin.tainted.append("the wheel was already turning when betting closed")
            out += self._hold(
                "moving_at_close",
                "The wheel was already turning when betting closed. That spin "
                "does not count: let the wheel stop, then spin it again.",
            )
        return out

    # -- sensors -------------------------------------------------------------------------------

    def _know(self, device_id: str, kind: str) -> None:
        self.kinds[device_id] = kind
        self.seen.add(kind)

    def _lost(self, event: DeviceDisconnected) -> list[Decision]:
        if event.reason == "stopped":
            return []
        self.down[event.device_id] = event.reason
        self.blind.add(event.device_id)
        self.fresh.add(event.device_id)
        if self.phase not in ("armed", "spinning"):
            return []
        if self.spin is not None:
            self.spin.tainted.append(f"{event.device_id} disconnected during the spin")
        return self._hold(
            "sensor_lost",
            f"The wheel sensor {event.device_id} disconnected ({event.reason}) while the "
            "wheel was to be read. When it is back, spin the wheel again (or void the round).",
        )

    def _encoder_sample(self, e: EncoderSample) -> list[Decision]:
        self._know(e.device_id, ENCODER)
        self.down.pop(e.device_id, None)
        baseline = e.device_id in self.fresh  # the first poll after a reconnect proves nothing
        self.fresh.discard(e.device_id)
        self.enc = e
        self.enc_moving = e.moving
        if e.device_id in self.blind:
            if e.moving and self.spin is not None:
                self._taint(f"{e.device_id} did not see the whole spin")
            elif not e.moving and not baseline:
                # back, and the wheel stands still: we know where it is. A spin that stopped while the
                # sensor was away ends here, unused (no rest event will come for it).
                out: list[Decision] = []
                if self.spin is not None:
                    self._taint(f"{e.device_id} did not see the whole spin")
                    out = self._decide(self.spin)
                self.blind.discard(e.device_id)
                self.enc_anchor = e.count
                return out
        if self.enc_anchor is None and not e.moving:
            self.enc_anchor = e.count
        if (
            self.phase == "armed"
            and self.spin is None
            and ENCODER in self.sensors
            and self.enc_anchor is not None
        ):
            moved = abs(self.calibration.clockwise_turns(e.count - self.enc_anchor, e.counts_per_turn))
            if moved >= self.settings.reversal_tolerance:
                self._start_spin()
                if e.device_id in self.blind:
                    self._taint(f"{e.device_id} did not see the whole spin")
        if self.spin is not None and self.spin.enc_runs is not None and self.spin.enc_start is not None:
            self.spin.enc_runs.feed(
                self.calibration.clockwise_turns(e.count - self.spin.enc_start, e.counts_per_turn)
            )
            if e.moving:
                self.spin.enc_rest = None
        elif not e.moving and self.spin is None and e.device_id not in self.blind:
            self.enc_anchor = e.count
        return []

    def _pointer(self, e: PointerRead | PointerUnreadable) -> list[Decision]:
        self._know(e.device_id, POINTER)
        self.down.pop(e.device_id, None)
        before = None if self.ptr is None else _read_of(self.ptr)
        if before is not None and before != _read_of(e):
            self.ptr_moving = True  # the read changed: the wheel turns (the first read proves nothing)
        self.ptr = e
        if self.spin is not None:
            self.spin.ptr_rest = None
        index = e.segment_index if isinstance(e, PointerRead) and e.other_tag is None else None
        if index is None:
            return []
        if self.ptr_anchor is None:
            self.ptr_anchor = index
        if (
            self.phase == "armed"
            and self.spin is None
            and POINTER in self.sensors
            and index != self.ptr_anchor
        ):
            self._start_spin()
            if e.device_id in self.blind:
                self._taint(f"{e.device_id} did not see the whole spin")
        if self.spin is not None and self.spin.ptr_path is not None and self.spin.ptr_runs is not None:
            self.spin.ptr_runs.feed(self.spin.ptr_path.see(index))
        elif self.spin is None and self.phase != "armed":
            self.ptr_anchor = index
        return []

    def _fault(self, e: EncoderFault) -> list[Decision]:
        self._know(e.device_id, ENCODER)
        if self.phase not in ("armed", "spinning"):
            return [Note(code="sensor_fault", message=f"{e.device_id}: {e.description}")]
        if self.spin is not None:
            self._taint(f"{e.device_id}: {e.description}")
        else:
            self.blind.add(e.device_id)  # the next spin must be seen whole after the wheel stood still
        return self._hold(
            "sensor_fault",
            f"The wheel encoder reported a fault: {e.description}. This spin cannot "
            "be read; spin the wheel again once the sensor is checked (or void the round).",
        )

    def _zero_mark(self, e: EncoderZeroMark) -> list[Decision]:
        self._know(e.device_id, ENCODER)
        if self.phase == "spinning":
            return [Note(code="calibration", message="Zero mark ignored: the wheel is spinning.")]
        if e.position is None:
            return [
                Note(
                    code="calibration",
                    message="Zero mark ignored: the encoder has not seen its index mark "
                    "since power-up; turn the wheel once past it, bring segment 0 under the pointer again and "
                    "repeat.",
                )
            ]
        cal = self.calibration
        if cal.counts_per_turn is not None and cal.counts_per_turn != e.counts_per_turn:
            return [
                Note(
                    code="calibration",
                    message=f"Zero mark ignored: the encoder counts {e.counts_per_turn} per "
                    f"turn, the calibration says {cal.counts_per_turn}.",
                )
            ]
        self.calibration = cal.with_zero_mark(e.position)
        return [
            Note(
                code="calibration",
                message=f"Zero offset set to {e.position} counts (segment 0 "
                f"'{self.layout[0].label}' under the pointer). Put calibration.zero_offset = {e.position} in "
                "the table's settings to keep it after a restart.",
            )
        ]

    # -- the spin ------------------------------------------------------------------------------

    def _start_spin(self) -> None:
        tol = self.settings.reversal_tolerance
        spin = _Spin()
        if self.enc is not None and ENCODER in self.sensors:
            start = self.enc_anchor if self.enc_anchor is not None else self.enc.count
            spin.enc_start = start
            spin.enc_runs = RunTracker(Fraction(0), tol)
        if self.ptr_anchor is not None and POINTER in self.sensors:
            spin.ptr_path = PointerPath(self.layout.size, self.ptr_anchor, self.settings.max_pointer_step)
            spin.ptr_runs = RunTracker(Fraction(0), tol)
        self.spin = spin
        self.phase = "spinning"

    def _taint(self, why: str) -> None:
        if self.spin is not None and why not in self.spin.tainted:
            self.spin.tainted.append(why)

    def _at_rest(self, e: WheelAtRest) -> list[Decision]:
        self._know(e.device_id, e.sensor)
        if e.sensor == ENCODER:
            self.enc_moving = False
            if self.enc is not None and e.count is not None:
                self.enc = self.enc.model_copy(
                    update={"count": e.count, "position": e.position, "moving": False}
                )
        else:
            self.ptr_moving = False
        spin = self.spin
        if spin is None:
            if e.sensor == ENCODER and e.count is not None:
                self.enc_anchor = e.count
            elif e.sensor == POINTER and e.segment_index is not None and e.other_tag is None:
                self.ptr_anchor = e.segment_index
            self.blind.discard(e.device_id)
            return []
        if e.sensor == ENCODER:
            spin.enc_rest = e
        else:
            spin.ptr_rest = e
        sensors = self.sensors
        if ENCODER in sensors and spin.enc_runs is not None:
            if spin.enc_rest is None:
                return []  # the encoder decides when the wheel has stopped
        elif spin.ptr_rest is None:
            return []
        return self._decide(spin)

    def _end_spin(self) -> None:
        """The wheel stands still: the next spin starts from here."""
        if self.enc is not None:
            self.enc_anchor = self.enc.count
        ptr = self.ptr
        if isinstance(ptr, PointerRead) and ptr.segment_index is not None and ptr.other_tag is None:
            self.ptr_anchor = ptr.segment_index
        self.blind.clear()
        self.spin = None
        if self.phase == "spinning":
            self.phase = "armed"

    def _decide(self, spin: _Spin) -> list[Decision]:
        sensors = self.sensors
        use_encoder = ENCODER in sensors and spin.enc_runs is not None
        if ENCODER in sensors and spin.enc_runs is None:
            spin.tainted.append("the encoder was not heard from when the spin started")
        if POINTER in sensors and not use_encoder and spin.ptr_runs is None:
            spin.tainted.append("the pointer reader was not heard from when the spin started")
        if self.phase != "spinning":
            self._end_spin()
            return []
        if self.down:
            spin.tainted.append(
                "a wheel sensor is disconnected ("
                + "; ".join(f"{d}: {r}" for d, r in sorted(self.down.items()))
                + ")"
            )
        if spin.tainted:
            why = "; ".join(spin.tainted)
            self._end_spin()
            out: list[Decision] = [Note(code="spin_not_used", message=f"That spin is not used: {why}.")]
            if not self.holds:
                out += self._hold(
                    "sensor_lost", f"The spin could not be followed ({why}). Spin the wheel again."
                )
            return out

        # 1. was it a valid spin?
        if use_encoder:
            runs = spin.enc_runs.runs()  # type: ignore[union-attr]
        else:
            path = spin.ptr_path
            broken = "the pointer reader did not see the spin start" if path is None else path.broken
            if broken:
                self._end_spin()
                return self._hold(
                    "spin_not_verified", f"The spin cannot be checked: {broken}. Spin the wheel again."
                )
            runs = spin.ptr_runs.runs()  # type: ignore[union-attr]
        check = check_spin(runs, self.settings.rule)
        if not check.ok:
            self._end_spin()
            self.phase = "done"
            return [Void(code=check.code or "invalid_spin", message=check.message)]

        # 2. where did it stop?
        source: dict[str, Any] = {
            "sensors": sorted(sensors),
            "turns": fmt_turns(check.turns),
            "direction": check.direction,
        }
        index: int | None = None
        if use_encoder:
            rest = spin.enc_rest
            assert rest is not None and rest.count is not None and rest.counts_per_turn is not None
            cal = self.calibration
            source.update(
                device_id=rest.device_id, position=rest.position, counts_per_turn=rest.counts_per_turn
            )
            if cal.counts_per_turn is not None and cal.counts_per_turn != rest.counts_per_turn:
                self._end_spin()
                return self._hold(
                    "calibration",
                    f"The encoder counts {rest.counts_per_turn} per turn but the "
                    f"wheel was calibrated with {cal.counts_per_turn}: a technician must check the "
                    "calibration. Enter the result by hand or void the round.",
                )
            if rest.position is None:
                self._end_spin()
                return self._hold(
                    "not_referenced",
                    "The encoder has not seen its index mark since it was powered "
                    "up, so the position is unknown. Spin the wheel again.",
                )
            index, edge = cal.segment_at(rest.position, rest.counts_per_turn)
            source["edge"] = fmt_turns(edge)
            if edge < self.settings.boundary_margin:
                self._end_spin()
                return self._hold(
                    "on_boundary",
                    f"The pointer stopped on the boundary between two segments (within "
                    f"{fmt_turns(edge)} of a segment). Spin the wheel again, or a supervisor enters "
                    "the result or voids the round.",
                )
        if POINTER in sensors:
            ptr = self.ptr if use_encoder else spin.ptr_rest
            hold = self._pointer_problem(ptr)
            if hold is not None:
                self._end_spin()
                return self._hold(*hold)
            # _pointer_problem has checked that the pointer read a known segment
            assert isinstance(ptr, (PointerRead, WheelAtRest)) and ptr.segment_index is not None
            p_index = ptr.segment_index
            source.setdefault("device_id", ptr.device_id)
            source["pointer_tag"] = ptr.tag
            if index is not None and p_index != index:
                self._end_spin()
                return self._hold(
                    "sensors_disagree",
                    f"The encoder reads segment {index} "
                    f"('{self.layout[index].label}') but the pointer reader reads segment {p_index} "
                    f"('{self.layout[p_index].label}'). A technician must check the calibration; "
                    "spin again, or a supervisor enters the result or voids the round.",
                )
            index = p_index
        assert index is not None

        # 3. a result
        seg = self.layout[index]
        result: dict[str, Any] = {"segment": seg.label, "index": index}
        if self.game.default_colors is not None:
            result["color"] = seg.color
        if self.game.carries_multipliers:
            result["multipliers"] = list(self.multipliers)
        out = [Release(code=code) for code in self.holds]
        self.holds = {}
        self._end_spin()
        self.phase = "done"
        return out + [ResultReady(result=result, source=source)]

    def _pointer_problem(self, ptr: Any) -> tuple[str, str] | None:
        if ptr is None:
            return (
                "tag_unreadable",
                (
                    "The pointer reader reported nothing for this spin. Check the reader, then spin "
                    "again (or a supervisor enters the result)."
                ),
            )
        if isinstance(ptr, PointerUnreadable) or (isinstance(ptr, WheelAtRest) and ptr.tag is None):
            return (
                "tag_unreadable",
                (
                    "The pointer reader cannot read the tag of the segment under the pointer. "
                    "Clean or check the tag, then spin again (or a supervisor enters the result)."
                ),
            )
        if ptr.other_tag is not None:
            return (
                "on_boundary",
                (
                    f"The pointer reader sees two tags ({ptr.tag} and {ptr.other_tag}): the pointer "
                    "is on a segment boundary. Spin the wheel again, or a supervisor enters the result or voids "
                    "the round."
                ),
            )
        if ptr.segment_index is None or not 0 <= ptr.segment_index < self.layout.size:
            return (
                "unknown_tag",
                (
                    f"The pointer reader read the tag {ptr.tag!r}, which is not in the wheel's tag "
                    "table. Check the tag, then spin again (or a supervisor enters the result)."
                ),
            )
        return None
