"""The technician's family pages for ball draws, money wheels and the overhead roulette camera, and what every
page builder shares: the device log the console keeps, a driver's health and its declared abilities.

* ``balls``: the ball-set check (the table's opening check and the reads since it started) and the machine's
  Modbus state;
* ``money_wheel``: segments, layout, zero offset and counting direction as the judge uses them, the live
  position and the segment under the pointer, the zero offset a ``mark_zero`` would set now;
* ``roulette_camera``: the camera's calibration, its latest reading and whether the driver keeps a frame.

Whatever a driver does not expose is named in the page data under ``missing`` (the page says "not
available from this driver"), so a page never guesses.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from devices.abilities import KeepsFrames, LocatesWheel, ReadsBalls, ReadsWheelPointer, ReadsWheelPosition
from devices.registry import all_drivers
from recognition.draw_games.base import DrawGame
from recognition.money_wheel.base import MoneyWheelGame, WheelSettings
from recognition.money_wheel.judge import MoneyWheelJudge

if TYPE_CHECKING:  # pragma: no cover
    from recognition.money_wheel.calibration import Calibration, Layout

    from .table import DeviceSlot, Table


class DeviceLog(Protocol):
    """What the pages need of the device log the console keeps (newest first)."""

    def device_log(self, device_id: str) -> list[dict[str, Any]]: ...

    def opening_check_started(self, table_id: str) -> str | None: ...

    def table_events(self, table_id: str) -> list[dict[str, Any]]: ...


log = logging.getLogger(__name__)

_BALL_EVENTS = ("ball_read", "ball_unreadable")


def health_of(slot: DeviceSlot) -> dict[str, Any]:
    if slot.driver is None:
        return {"device_id": slot.device_id, "connected": False}
    try:
        return dict(slot.driver.health())
    except Exception as exc:  # a driver bug must not break the page
        log.exception("technician: health() of %s failed", slot.device_id)
        return {"device_id": slot.device_id, "connected": False, "last_error": f"health() failed: {exc}"}


def driver_type(slot: DeviceSlot) -> type | None:
    """The driver's class: the running driver's, else the one its kind is configured with."""
    if slot.driver is not None:
        return type(slot.driver)
    return all_drivers().get(slot.kind)


def declares(slot: DeviceSlot, ability: type) -> bool:
    cls = driver_type(slot)
    return cls is not None and issubclass(cls, ability)


# --- ball draws --------------------------------------------------------------------------------------


def balls_page(table: Table, slot: DeviceSlot, hub: DeviceLog) -> dict[str, Any]:
    snap_check = _opening_check(table)
    machine = reader = None
    missing: list[str] = []
    for s in table.devices.values():
        h = health_of(s)
        if declares(s, ReadsBalls) or "reader" in s.role:
            reader = _reader_view(s, h)
        else:
            machine = {
                "device_id": s.device_id,
                "role": s.role,
                "connected": bool(h.get("connected")),
                "target": h.get("target"),
                "register_map": h.get("register_map"),
                "state": h.get("machine"),
                "counters": h.get("counters") or {},
                "last_poll_at": h.get("last_poll_at"),
                "last_round_trip_us": h.get("last_round_trip_us"),
                "last_error": h.get("last_error"),
            }
            if s.driver is not None and h.get("machine") is None and h.get("connected"):
                missing.append("machine_state")
    since = hub.opening_check_started(table.table_id)
    reads = []
    if reader is not None:
        for entry in hub.device_log(reader["device_id"]):
            if entry.get("kind") not in _BALL_EVENTS:
                continue
            if since and (entry.get("at") or "") < since:
                break
            data = entry.get("data") or {}
            reads.append(
                {
                    "at": entry.get("at"),
                    "kind": entry["kind"],
                    "tag": data.get("tag"),
                    "ball": data.get("ball"),
                    "color": data.get("color"),
                    "reason": data.get("reason"),
                }
            )
        reads.reverse()  # in the order they were read
    game = table.game
    return {
        "game": game.game_id,
        "balls": [str(x) for x in game.ball_labels] if isinstance(game, DrawGame) else [],
        "opening_check": snap_check,
        "check_started_at": since,
        "reads": reads[-200:],
        "machine": machine,
        "reader": reader,
        "missing": missing,
    }


def _reader_view(s: DeviceSlot, h: dict[str, Any]) -> dict[str, Any]:
    device = h.get("device") or {}
    ball_set = s.driver.ball_set if s.driver is not None else None
    return {
        "device_id": s.device_id,
        "role": s.role,
        "kind": s.kind,
        "connected": bool(h.get("connected")),
        "ball_set": device.get("ball_set")
        or h.get("ball_set")
        or (ball_set.name if ball_set is not None else None),
        "counters": {
            **(h.get("counters") or {}),
            **{k: v for k, v in device.items() if isinstance(v, int)},
        },
    }


def _opening_check(table: Table) -> dict[str, Any]:
    try:
        return dict(table.snapshot().get("opening_check") or {})
    except Exception:  # pragma: no cover - a table that cannot make its snapshot
        log.exception("technician: the snapshot of %s failed", table.table_id)
        return {}


# --- money wheels --------------------------------------------------------------------------------------


def _wheel_settings(table: Table) -> tuple[Calibration | None, Layout | None, WheelSettings | None]:
    """(calibration, layout, settings) as the judge uses them now (a zero mark taken at run time included), else
    as the game reads the table's settings, else Nones."""
    judge = table.judge
    if isinstance(judge, MoneyWheelJudge):
        return judge.calibration, judge.layout, judge.settings
    if not isinstance(table.game, MoneyWheelGame):
        return None, None, None
    try:
        settings = table.game.wheel_settings(table.settings)
    except Exception:  # settings the game refuses: the page says the calibration is missing
        log.debug("technician: the wheel settings of %s are unreadable", table.table_id, exc_info=True)
        return None, None, None
    return settings.calibration, settings.layout, settings


def money_wheel_page(table: Table, slot: DeviceSlot, hub: DeviceLog) -> dict[str, Any]:
    cal, layout, settings = _wheel_settings(table)
    missing: list[str] = []
    out: dict[str, Any] = {"kind": slot.kind, "missing": missing}
    if cal is None or layout is None:
        missing.append("calibration")
        out.update(segments=None, layout=[], calibration=None)
    else:
        configured = (
            ((table.settings or {}).get("calibration") or {}) if isinstance(table.settings, dict) else {}
        )
        out.update(
            segments=layout.size,
            layout=[{"index": seg.index, "label": seg.label, "color": seg.color} for seg in layout.segments],
            calibration={
                "zero_offset": cal.zero_offset,
                "counting": cal.counting,
                "counts_per_turn": cal.counts_per_turn,
                "configured_zero_offset": configured.get("zero_offset", 0)
                if isinstance(configured, dict)
                else None,
            },
            direction=settings.rule.direction if settings is not None else None,
            min_turns=str(settings.rule.min_turns) if settings is not None else None,
            sensors_setting=None
            if settings is None
            else settings.sensors
            if isinstance(settings.sensors, str)
            else sorted(settings.sensors),
        )
    sensors = []
    for s in table.devices.values():
        encoder = declares(s, ReadsWheelPosition)
        if not encoder and not declares(s, ReadsWheelPointer):
            continue
        h = health_of(s)
        device = h.get("device") or {}
        view: dict[str, Any] = {
            "device_id": s.device_id,
            "role": s.role,
            "kind": s.kind,
            "connected": bool(h.get("connected")),
        }
        if encoder:
            position, cpr = device.get("position"), device.get("counts_per_turn")
            view.update(
                position=position,
                counts_per_turn=cpr,
                count=device.get("count"),
                moving=device.get("moving"),
                referenced=device.get("referenced"),
            )
            if (
                cal is not None
                and layout is not None
                and isinstance(position, int)
                and isinstance(cpr, int)
                and cpr
            ):
                index, edge = cal.segment_at(position, cpr)
                view.update(
                    segment=index,
                    label=layout[index].label,
                    edge_percent=int(edge * 100),  # distance to the nearest boundary, % of a segment
                    mark_zero_would_set=position,
                )
        else:
            last = device.get("last_read") or {}
            read_at = last.get("segment_index")
            view.update(
                tag=last.get("tag"),
                other_tag=last.get("other_tag"),
                segment=read_at,
                label=layout[read_at].label
                if layout is not None and isinstance(read_at, int) and 0 <= read_at < layout.size
                else None,
                unreadable=last.get("kind") == "wheel_pointer_unreadable",
            )
        sensors.append(view)
    out["sensors"] = sensors
    # the judge's own words about the calibration (e.g. "Zero offset set to 1234 counts ...")
    out["notes"] = [e for e in hub.table_events(table.table_id) if e.get("code") == "calibration"][:5]
    out["runtime_zero_mark"] = (
        True  # the encoder's mark_zero reaches the judge at once (docs/money-wheels.md §2)
    )
    return out


# --- the overhead roulette camera -------------------------------------------------------------------------


def roulette_camera_page(table: Table, slot: DeviceSlot, hub: DeviceLog) -> dict[str, Any]:
    h = health_of(slot)
    camera = slot.driver if isinstance(slot.driver, LocatesWheel) else None
    missing: list[str] = []
    calibration = None
    if camera is not None:
        cal = camera.calibration
        calibration = {
            "center": list(cal.center),
            "radius": cal.radius,
            "order": list(cal.order),
            "colors": list(cal.colors),
            "clockwise": cal.clockwise,
            "pocket_offset_deg": cal.pocket_offset_deg,
        }
    else:
        missing += ["calibration", "overlay"]
    # the camera's readings at rest are its WheelResults (roulette_balls_at_rest in a log written before
    # the camera spoke the neutral wheel events)
    last_rest = next(
        (
            e
            for e in hub.device_log(slot.device_id)
            if e.get("kind") in ("wheel_result", "roulette_balls_at_rest")
        ),
        None,
    )
    has_frame = isinstance(slot.driver, KeepsFrames)
    if not has_frame:
        missing.append("frame")
    return {
        "calibration": calibration,
        "figures": {
            "connected": bool(h.get("connected")),
            "spinning": h.get("spinning"),
            "rotor_found": h.get("rotor_found"),
            "ring_quality": h.get("ring_quality"),
            "balls": h.get("balls"),
            "mean_read_ms": h.get("mean_read_ms"),
            "counters": h.get("counters") or {},
        },
        "last_at_rest": (last_rest or {}).get("data"),
        "last_at_rest_at": (last_rest or {}).get("at"),
        "overlay": call_hook(camera.overlay) if camera is not None else None,
        "has_frame": has_frame,
        "missing": missing,
    }


def call_hook(fn: Callable[[], Any]) -> Any:
    """What a driver's page hook returns; None when it fails (a driver bug must not break the page)."""
    try:
        return fn()
    except Exception:
        log.exception("technician: a driver's page hook failed")
        return None
