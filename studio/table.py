"""One table: device events in, round lifecycle through the game's judge, journal and feed out.

Everything here runs on the studio's event loop. Device drivers call
`Table.device_event` through `loop.call_soon_threadsafe`; device commands go out
on a worker thread so that no serial call runs on the loop. Nothing a device
sends can crash a table: a refused step is journaled and shown, and the table
keeps running.

Two pacings share this one lifecycle. A device-paced game (an SS2 wheel) opens
rounds and closes betting itself, through its judge's decisions. A dealer-paced
game (cards, dice, balls) has its rounds opened by the dealer (or by the table
after `auto_round_seconds`) and betting closed by the dealer or the betting
timer; the judge is told through `RoundSignal`s and decides the result.

People act through the `*_by` methods (the console's services): every action is
journaled with who did it; a void after betting closed, a manual result and a
correction need a second person (four eyes).

`Table` composes its parts, each in its own module: the round lifecycle
(round_lifecycle.py), what people do to a round (round_actions.py), the device
slots (device_slots.py), feeding the judge (judge_feed.py), player decisions
(table_decisions.py, called as `table.decisions`), holds and the opening check
(holds.py) and maintenance mode (maintenance.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from devices.events import DeviceConnected, DeviceDisconnected, DeviceEvent
from recognition.game import (
    Decision,
    GameRules,
    Judge,
)

from .device_slots import DeviceSlot, DeviceSlots
from .holds import Holds, OpeningGate
from .journal import Journal, rfc3339
from .judge_feed import JudgeFeed
from .late_readings import LateReadings
from .maintenance import Maintenance
from .round_actions import RoundActions
from .round_lifecycle import Draw, RoundLifecycle
from .rounds import Round, RoundError, RoundState
from .table_decisions import DecisionError, Decisions, DecisionWindow
from .video import VideoSettings, reference

__all__ = ["DecisionError", "DeviceSlot", "Table"]

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Table:
    def __init__(
        self,
        table_id: str,
        game: GameRules,
        journal: Journal,
        *,
        devices: list[DeviceSlot] | None = None,
        judge_settings: dict[str, Any] | None = None,
        betting_seconds: float = 15.0,
        auto_round_seconds: float | None = None,
        require_opening_check: bool = True,
        clock: Callable[[], datetime] = utcnow,
        decision_seconds: float = 15.0,
        video: VideoSettings | None = None,
    ) -> None:
        self.table_id = table_id
        #: the table's camera stream: its device events and feed messages carry the stream's timecode (video.py)
        self.video = video
        self.game = game
        self.journal = journal
        self.settings = dict(judge_settings or {})
        self.pacing = game.pacing
        self.betting_seconds = betting_seconds
        self.auto_round_seconds = auto_round_seconds
        self.clock = clock
        self.last_error: str | None = None
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._timers: list[asyncio.TimerHandle] = []
        self.stopped = False
        #: the studio is shutting down: no new round opens (one the device starts after the shutdown voided the
        #: open round would be voided again as "device lost" when its driver stops)
        self.closing = False
        self.lifecycle = RoundLifecycle(self)
        self.actions = RoundActions(self.lifecycle)
        self.slots = DeviceSlots(
            table_id, journal, devices or [], emit=self.emit, open_round_id=self.lifecycle.open_round_id
        )
        self.holds = Holds(self)
        self.readings = LateReadings(self)
        self.opening = OpeningGate(self, required=require_opening_check)
        self.decisions = Decisions(self, has_decisions=game.has_decisions, decision_seconds=decision_seconds)
        self.feed = JudgeFeed(self, game.new_judge(**self.settings))
        self.maintenance = Maintenance(self)
        self.lifecycle.restore()
        self.readings.restore()
        self.maintenance.restore()

    # --- start and stop --------------------------------------------------------------------

    def start(self) -> None:
        """Called once the loop runs: a dealer-paced table with auto rounds opens its first round."""
        self.opening.start()
        self.lifecycle.schedule_auto_open()

    def stop(self) -> None:
        self.stopped = True
        self.closing = True
        for t in self._timers:
            t.cancel()
        self._timers.clear()
        self.decisions.close_windows()
        self.feed.stop()
        self.slots.stop()

    @property
    def paused_reason(self) -> str | None:
        return self.slots.paused_reason

    def journal_failed(self) -> None:
        """The journal stopped (Studio calls this on the loop): the table holds and says why. Nothing more can be
        journaled, so nothing more is judged either."""
        self.emit("status", {"state": "paused", "reason": self.paused_reason})

    def fresh_judge(self) -> None:
        """A new judge, as at start-up: no state of a test game carries into the real rounds."""
        self.feed.replace(self.game.new_judge(**self.settings))
        r = self.round
        if r is not None and r.is_final:
            self.lifecycle.signal("round_ended")  # the last real round, as a starting table tells its judge

    # --- device input ----------------------------------------------------------------------

    def device_event(self, event: DeviceEvent) -> None:
        self.slots.heard(event)
        data = event.model_dump(mode="json")
        if self.video is not None:
            data["video"] = reference(event.at, self.video)
        # what cannot be journaled is not judged (paused_reason says why)
        if self.journal.failure is not None:
            self.emit("device", data)
            return
        self.journal.append_line(
            "device_event", data, table_id=self.table_id, round_id=self.lifecycle.open_round_id(), at=event.at
        )
        self.emit("device", data)
        self.opening.feed(event)
        if isinstance(event, DeviceDisconnected):
            self.slots.device_state(event.device_id, f"disconnected: {event.reason}; reconnecting")
        elif isinstance(event, DeviceConnected):
            self.slots.device_state(event.device_id, None)
        self.feed.event(event)

    # --- the judge's decisions -----------------------------------------------------------------

    def apply(self, d: Decision, cause: object = None) -> None:
        """Do what the judge decided (`cause`: what it was fed); a refused step is journaled and shown."""
        self.feed.apply(d, cause)

    # --- people (the console's services) ---------------------------------------------------

    def apply_action(self, action: Callable[[], Any]) -> Any:
        """Run a step, turning a refused one into a journaled, visible refusal instead of an exception."""
        try:
            return action()
        except RoundError as exc:
            self.refused("action", str(exc))
            raise

    def operator(self, action: str, by: str, approved_by: str | None = None, **details: Any) -> None:
        data = {"action": action, "by": by, **details}
        if approved_by:
            data["approved_by"] = approved_by
        self.journal.append(
            "operator_action", data, table_id=self.table_id, round_id=self.lifecycle.open_round_id()
        )

    def open_round_by(self, by: str) -> Round:
        return self.actions.open_round_by(by)

    def start_opening_check_by(self, by: str) -> None:
        """Start the check (e.g. every ball read once); the table's device events feed it until it is finished."""
        self.opening.start_by(by)

    def finish_opening_check_by(self, by: str) -> dict[str, Any]:
        """Journal the check's report; the table opens rounds only if it passed."""
        return self.opening.finish_by(by)

    def close_betting_by(self, by: str) -> Round:
        if self.pacing != "dealer":
            raise RoundError(f"table {self.table_id} plays {self.game.game_id}: its device closes betting")
        self.operator("close_betting", by)
        self.lifecycle.close_betting(by=by)
        return self.lifecycle.current_or_last()

    def void_by(
        self,
        code: str,
        message: str,
        by: str,
        approved_by: str | None = None,
        started_in_betting: bool = False,
    ) -> Round:
        return self.actions.void_by(code, message, by, approved_by, started_in_betting)

    def manual_result_by(
        self,
        result: dict[str, Any],
        by: str,
        approved_by: str | None,
        reason: str,
        device_failed: str | None = None,
    ) -> Round:
        """A result entered by people when the device cannot give one (journaled as manual with both names);
        refused while a device can still report unless `device_failed` says why it failed (late_readings.py)."""
        return self.actions.manual_result(result, by, approved_by, reason, device_failed)

    def resolve_reading_by(
        self, round_id: str, keep: str, by: str, approved_by: str | None, reason: str
    ) -> dict[str, Any]:
        """Settle a late device reading that differs from the result entered by hand (late_readings.py)."""
        return self.readings.resolve(round_id, keep, by, approved_by, reason)

    def release_by(self, code: str, by: str) -> Round | None:
        """The dealer confirms a held condition is resolved (e.g. a re-read card)."""
        self.operator("release", by, code=code)
        self.holds.release(code, by=by)
        return self.round

    def correct(self, round_id: str, result: dict[str, Any], *, approved_by: list[str], reason: str) -> Round:
        """A new version of a certified result; the console's four-eyes flow calls this."""
        return self.actions.correct(round_id, result, approved_by=approved_by, reason=reason)

    def send_command_by(self, role: str, command: str, by: str) -> None:
        slot = self.slots.by_role(role)
        if slot is None:
            raise RoundError(f"table {self.table_id} has no device with the role {role!r}")
        self.operator("device_command", by, role=role, command=command)
        self.slots.send(command, slot.device_id, by=by)

    def set_maintenance_by(self, by: str, on: bool, reason: str) -> dict[str, Any]:
        """Turn maintenance mode on or off (asked for while a round is open: it comes on when the round ends)."""
        return self.maintenance.set_by(by, on, reason)

    def maintenance_view(self) -> dict[str, Any] | None:
        return self.maintenance.view()

    # --- the parts' state, as callers (the console, the API, tests) read it ---------------------

    @property
    def round(self) -> Round | None:
        return self.lifecycle.round

    @round.setter
    def round(self, r: Round | None) -> None:
        self.lifecycle.round = r

    @property
    def draw(self) -> Draw | None:
        return self.lifecycle.draw

    @property
    def last_round_number(self) -> int:
        return self.lifecycle.last_round_number

    @property
    def betting_closes_at(self) -> datetime | None:
        return self.lifecycle.betting_closes_at

    @property
    def judge(self) -> Judge:
        return self.feed.judge

    @judge.setter
    def judge(self, judge: Judge) -> None:
        self.feed.judge = judge

    @property
    def _preparer(self) -> ThreadPoolExecutor | None:
        return self.feed._preparer

    @_preparer.setter
    def _preparer(self, pool: ThreadPoolExecutor | None) -> None:
        self.feed._preparer = pool

    @property
    def devices(self) -> dict[str, DeviceSlot]:
        return self.slots.devices

    @property
    def table_holds(self) -> dict[str, str]:
        return self.holds.table_holds

    @property
    def has_decisions(self) -> bool:
        return self.decisions.has_decisions

    @property
    def decision_seconds(self) -> float:
        return self.decisions.decision_seconds

    @property
    def windows(self) -> dict[str, DecisionWindow]:
        return self.decisions.windows

    @property
    def in_maintenance(self) -> bool:
        return self.maintenance.on

    # --- what the parts share: timers, notes, refusals and the listeners -------------------

    def schedule(self, delay: float, fn: Callable[[], None]) -> asyncio.TimerHandle | None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None  # no loop (replays, pure tests): nothing is timed
        now = loop.time()
        self._timers = [t for t in self._timers if not t.cancelled() and t.when() > now]
        handle = loop.call_later(delay, self._guarded, fn)
        self._timers.append(handle)
        return handle

    def _guarded(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except RoundError:
            pass  # already journaled by apply_action
        except Exception:
            log.exception("table %s: timer failed", self.table_id)

    def note(self, code: str, message: str) -> None:
        self.journal.append(
            "note",
            {"code": code, "message": message},
            table_id=self.table_id,
            round_id=self.lifecycle.open_round_id(),
        )
        self.emit("note", {"code": code, "message": message})

    def refused(self, action: str, message: str) -> None:
        log.warning("table %s: refused %s: %s", self.table_id, action, message)
        self.last_error = message
        self.journal.append(
            "refused",
            {"action": action, "message": message},
            table_id=self.table_id,
            round_id=self.lifecycle.open_round_id(),
        )
        self.emit("refused", {"action": action, "message": message})

    def emit(self, what: str, data: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            try:
                listener(what, data)
            except Exception:
                log.exception("table listener failed")

    def snapshot(self) -> dict[str, Any]:
        r, draw = self.round, self.draw
        return {
            "table_id": self.table_id,
            "game": self.game.game_id,
            "pacing": self.pacing,
            "status": "paused" if self.paused_reason else "running",
            "paused_reason": self.paused_reason,
            "round": r.projection() if r else None,
            "betting_seconds": self.betting_seconds,
            "betting_closes_at": rfc3339(self.betting_closes_at) if self.betting_closes_at else None,
            "commitment": draw.hash if draw and r and not r.is_final else None,
            # shown to the presenter once betting has closed (the feed reveals them with the result)
            "extras": draw.extras if draw and r and r.state is not RoundState.BETTING_OPEN else None,
            "holds": self.holds.view(),
            "late_readings": self.readings.view(),
            "devices_reporting": self.readings.reporting_view(),
            "opening_check": self.opening.view(),
            "last_error": self.last_error,
            "maintenance": self.maintenance_view(),
            # games with player decisions: the open windows with their deadlines; the judge's status (if it has
            # one) with each awaiting window's deadline
            "decision_windows": [w.as_dict() for w in self.windows.values()],
            **({"judge": self.feed.judge_status} if self.feed.has_status else {}),
            "devices": self.slots.health(),
        }
