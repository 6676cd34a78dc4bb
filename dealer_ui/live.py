"""Live updates: the console follows every table through `Table.listeners` and fans out to WebSockets.

Runs on the studio's event loop only (table listeners are called there: "device" for every device event,
"round", "hold", "status", "note", "refused"). For each table it keeps what a page opened late still needs:
the device events of the open round (cards as they are drawn, the wheel's number), the recent final rounds
(for corrections), the table's recent notes and refusals, and a log of each device's events and of the
commands people sent.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .auth import Session

if TYPE_CHECKING:  # pragma: no cover
    from studio.service import Studio

log = logging.getLogger(__name__)

FINAL = ("certified", "voided")
#: device events that repeat a state many times a second (wheel status, encoder samples, machine status):
#: kept in the device's log, but never among the round's readings, and passed on live at most twice a second
NOISY_SUFFIXES = ("_status", "_sample")
NOISY_INTERVAL = 0.5


def is_noisy(kind: str | None) -> bool:
    return bool(kind) and kind.endswith(NOISY_SUFFIXES)  # type: ignore[union-attr]


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def summarize_event(data: dict[str, Any]) -> str:
    """One line a person can read for a device event (the log and the live strip)."""
    kind = data.get("kind", "?")
    if kind == "wheel_status":
        # the neutral phase and warnings; a journal written before them has the wheel's state and flags
        warnings = data.get("warnings") or data.get("flags")
        warned = (
            f", warnings {', '.join(warnings) if isinstance(warnings, list) else warnings}"
            if warnings
            else ""
        )
        return (
            f"{data.get('phase') or 'state ' + str(data.get('state'))}, game {data.get('game_counter')}, "
            f"{data.get('speed_rpm')} rpm {data.get('direction')}{warned}"
        )
    if kind == "wheel_result":
        numbers = data.get("numbers") or [data.get("number")]
        said = f"number{'s' if len(numbers) > 1 else ''} {', '.join(str(n) for n in numbers)}"
        if data.get("game_counter") is not None:
            return f"{said} (game {data.get('game_counter')})"
        # a source that counts no games (an overhead camera): the balls at rest, with how well it read them
        quality = f", ring {data['quality']}%" if data.get("quality") is not None else ""
        return f"{said} at rest{quality}"
    if kind in ("ball_dropped", "roulette_ball_spin"):  # roulette_ball_spin: a log before the neutral events
        turns = data.get("revolutions") or []
        followed = "" if data.get("complete", True) else " (not followed all the way)"
        return f"the ball left the track{' after ' + ', '.join(map(str, turns)) + ' turns' if turns else ''}{followed}"
    if kind in ("wheel_warning", "wheel_fault"):  # wheel_fault: a journal written before the neutral events
        test = "self-test: " if data.get("self_test") else ""
        code = data.get("code")
        vendor = f" ({data['vendor_code']})" if data.get("vendor_code") else ""
        return f"{test}{'fault ' if isinstance(code, int) else ''}{code}{vendor}: {data.get('description')}"
    if kind == "wheel_reply":
        return f"reply {data.get('raw')}"
    if kind == "card_drawn":
        return f"card {data.get('card') or data.get('special') or 'not in the table'} ({data.get('payload')})"
    if kind == "ball_read":
        return f"ball {data.get('ball') or 'not in the ball set'} (tag {data.get('tag')})"
    if kind == "ball_released":
        return f"{data.get('count')} ball(s) released (total {data.get('total')})"
    if kind == "wheel_pointer_read":
        index = data.get("segment_index")
        return f"pointer on segment {index if index is not None else 'unknown'} (tag {data.get('tag')})"
    if kind in ("device_disconnected", "card_unreadable"):
        return str(data.get("reason"))
    if kind == "device_connected":
        return f"connected ({data.get('port')})"
    if kind == "device_unknown":
        return f"unknown line {data.get('raw')!r}"
    skip = {"kind", "device_id", "at", "raw"}
    return ", ".join(f"{k} {v}" for k, v in data.items() if k not in skip and v is not None)


def _maintenance_words(data: dict[str, Any]) -> str:
    """A maintenance change for the table's messages: on, asked for (pending), request cancelled, off."""
    asked, cancelled = data.get("pending"), data.get("cancelled")
    if data.get("on"):
        return f"Maintenance on ({data.get('by')}): {data.get('reason')}"
    if asked:
        return (
            f"Maintenance asked for ({asked.get('by')}): {asked.get('reason')}; it comes on when round "
            f"{asked.get('round_number')} ends"
        )
    if cancelled:
        return f"Maintenance request cancelled ({cancelled.get('cancelled_by')})"
    return f"Maintenance off ({data.get('by')})" + (f": {data.get('reason')}" if data.get("reason") else "")


@dataclass(eq=False)
class Client:
    """One WebSocket: which tables it follows, whether it wants device health, and its pending news."""

    session: Session
    tables: set[str]
    devices: bool = False
    dirty: set[str] = field(default_factory=set)
    events: deque = field(default_factory=lambda: deque(maxlen=200))
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def follows(self, table_id: str) -> bool:
        return table_id in self.tables


class ConsoleHub:
    def __init__(self, studio: Studio, *, log_size: int = 300, recent_size: int = 20) -> None:
        self.studio = studio
        self.clients: set[Client] = set()
        self._log_size = log_size
        self._recent_size = recent_size
        self._device_logs: dict[str, deque] = {}
        self._round_events: dict[str, list[dict[str, Any]]] = {}
        self._recent: dict[str, deque] = {}
        self._table_events: dict[str, deque] = {}
        self._listeners: dict[str, Callable[[str, dict[str, Any]], None]] = {}
        self._last_noisy: dict[str, float] = {}
        self._check_started: dict[str, str] = {}

    # --- attach / detach --------------------------------------------------------------------

    def attach(self) -> None:
        """Follow every table of the studio (call once the studio has started)."""
        for table_id, table in self.studio.tables.items():
            if table_id in self._listeners:
                continue
            self._recent[table_id] = deque(maxlen=self._recent_size)
            self._table_events[table_id] = deque(maxlen=50)
            self._round_events[table_id] = []
            last = self.studio.journal.last_round(table_id)
            if last is not None and last.get("state") in FINAL:
                self._recent[table_id].append(last)

            def listener(what: str, data: dict[str, Any], table_id: str = table_id) -> None:
                self._on_table(table_id, what, data)

            self._listeners[table_id] = listener
            table.listeners.append(listener)

    def detach(self) -> None:
        for table_id, listener in self._listeners.items():
            table = self.studio.tables.get(table_id)
            if table is not None and listener in table.listeners:
                table.listeners.remove(listener)
        self._listeners.clear()
        for c in list(self.clients):
            c.wake.set()

    # --- input (event loop) --------------------------------------------------------------------

    def _on_table(self, table_id: str, what: str, data: dict[str, Any]) -> None:
        if what == "device":
            self._on_device(table_id, data)
            return
        if what == "round":
            transition = data.get("transition")
            if transition == "open_round":
                self._round_events[table_id] = []
            if data.get("state") in FINAL:
                recent = self._recent[table_id]
                for i, r in enumerate(recent):
                    if r.get("round_id") == data.get("round_id"):
                        del recent[i]
                        break
                recent.appendleft({k: v for k, v in data.items() if k not in ("transition", "by")})
        if what in ("note", "refused", "hold", "status"):
            entry = {"at": _now(), "what": what, **data}
            self._table_events[table_id].appendleft(entry)
        if what == "maintenance":
            on = bool(data.get("on"))
            message = _maintenance_words(data)
            self._table_events[table_id].appendleft(
                {
                    "at": _now(),
                    "what": what,
                    "on": on,
                    "by": data.get("by"),
                    "reason": data.get("reason"),
                    "message": message,
                }
            )
        if what == "maintenance_decision":
            # what the judge would have decided about a device test: in the table's messages and the device's log
            self._table_events[table_id].appendleft(
                {"at": _now(), "what": what, "message": data.get("message"), "decision": data.get("decision")}
            )
            device_id = data.get("device_id")
            if device_id:
                entry = {
                    "at": _now(),
                    "kind": "maintenance_decision",
                    "summary": data.get("message"),
                    "data": data,
                }
                self._log(device_id).appendleft(entry)
                self._notify(
                    table_id, {"type": "device", "table_id": table_id, "device_id": device_id, "event": entry}
                )
        self._notify(
            table_id, {"type": "event", "table_id": table_id, "what": what, "data": data, "at": _now()}
        )

    def _on_device(self, table_id: str, data: dict[str, Any]) -> None:
        entry = {
            "at": data.get("at") or _now(),
            "kind": data.get("kind"),
            "summary": summarize_event(data),
            "data": data,
        }
        device_id = data.get("device_id") or ""
        self._log(device_id).appendleft(entry)
        if is_noisy(data.get("kind")):
            now = time.monotonic()
            if now - self._last_noisy.get(device_id, 0.0) < NOISY_INTERVAL:
                return
            self._last_noisy[device_id] = now
        else:
            events = self._round_events.setdefault(table_id, [])
            events.append(entry)
            del events[:-100]
        self._notify(
            table_id, {"type": "device", "table_id": table_id, "device_id": device_id, "event": entry}
        )

    def opening_check_begins(self, table_id: str) -> None:
        """An opening check started at this table (the ball-set page lists the reads since then)."""
        self._check_started[table_id] = _now()

    def opening_check_started(self, table_id: str) -> str | None:
        return self._check_started.get(table_id)

    def round_changed(self, table_id: str, data: dict[str, Any]) -> None:
        """A round change the table made without telling its listeners (a correction)."""
        self._on_table(table_id, "round", data)

    def note_command(self, device_id: str, command: str, by: str) -> None:
        """A command people sent, in the device's log (the journal has it too)."""
        entry = {
            "at": _now(),
            "kind": "command",
            "summary": f"{by} sent {command}",
            "data": {"command": command, "by": by},
        }
        self._log(device_id).appendleft(entry)
        table_id = device_id.partition("/")[0]
        self._notify(
            table_id, {"type": "device", "table_id": table_id, "device_id": device_id, "event": entry}
        )

    def incident(self, table_id: str, entry: dict[str, Any]) -> None:
        self._table_events.setdefault(table_id, deque(maxlen=50)).appendleft(
            {"at": _now(), "what": "incident", **entry}
        )
        self._notify(
            table_id, {"type": "event", "table_id": table_id, "what": "incident", "data": entry, "at": _now()}
        )

    def _log(self, device_id: str) -> deque:
        log_ = self._device_logs.get(device_id)
        if log_ is None:
            log_ = self._device_logs[device_id] = deque(maxlen=self._log_size)
        return log_

    def _notify(self, table_id: str, message: dict[str, Any]) -> None:
        for c in self.clients:
            if c.follows(table_id) or c.devices:
                c.events.append(message)
                if c.follows(table_id):
                    c.dirty.add(table_id)
                c.wake.set()

    # --- queries --------------------------------------------------------------------------------

    def device_log(self, device_id: str, limit: int = 200) -> list[dict[str, Any]]:
        return list(self._device_logs.get(device_id, ()))[:limit]

    def recent_rounds(self, table_id: str) -> list[dict[str, Any]]:
        return list(self._recent.get(table_id, ()))

    def recent_round(self, table_id: str, round_id: str) -> dict[str, Any] | None:
        return next((r for r in self._recent.get(table_id, ()) if r.get("round_id") == round_id), None)

    def round_events(self, table_id: str) -> list[dict[str, Any]]:
        return list(self._round_events.get(table_id, ()))

    def table_events(self, table_id: str) -> list[dict[str, Any]]:
        return list(self._table_events.get(table_id, ()))[:20]

    # --- clients ----------------------------------------------------------------------------------

    def subscribe(self, session: Session, tables: set[str], devices: bool) -> Client:
        c = Client(session, tables, devices)
        c.dirty |= tables
        self.clients.add(c)
        return c

    def unsubscribe(self, c: Client) -> None:
        self.clients.discard(c)
