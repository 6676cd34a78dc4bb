"""One table: device events in, round lifecycle through the game's judge, journal and feed out.

Everything here runs on the studio's event loop. Device drivers call
`Table.device_event` through `loop.call_soon_threadsafe`; device commands go out
on a worker thread so that no serial call runs on the loop. Nothing a device
sends can crash a table: a refused step is journaled and shown, and the table
keeps running.
"""
from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import datetime, timezone
from typing import Any, Callable

from devices.base import Driver
from devices.events import DeviceConnected, DeviceDisconnected, DeviceEvent
from recognition.game import (
    CloseBetting, Decision, GameRules, Hold, Note, OpenRound, Release, ResultReady, SendCommand, StartPlay, Void,
)

from .journal import Journal, check_feed_message, rfc3339
from .rounds import Round, RoundError, RoundState

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Table:
    def __init__(self, table_id: str, game: GameRules, journal: Journal, *, device_kind: str,
                 serial_number: str = "unknown", judge_settings: dict[str, Any] | None = None,
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.table_id = table_id
        self.game = game
        self.journal = journal
        self.device_kind = device_kind
        self.serial_number = serial_number
        self.judge = game.new_judge(**(judge_settings or {}))
        self.clock = clock
        self.driver: Driver | None = None
        self.round: Round | None = None
        self.last_round_number = 0
        self.paused_reason: str | None = None
        self.table_holds: dict[str, str] = {}
        self.last_error: str | None = None
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._released: list[str] = []  # holds lifted from the open round, kept for its void reason
        self._restore()

    # --- start-up ------------------------------------------------------------------

    def _restore(self) -> None:
        last = self.journal.last_round(self.table_id)
        if last is None:
            return
        self.last_round_number = last["round_number"]
        previous = Round.model_validate(last)
        if not previous.is_final:
            # We cannot know what happened while the studio was down: the round is voided, never guessed.
            self.round = previous
            self._void("studio_restart", "The studio restarted during this round; it is void and stakes are returned.",
                       {"type": "studio", "reason": "restart"})

    # --- device input --------------------------------------------------------------

    def device_event(self, event: DeviceEvent) -> None:
        round_id = self.round.round_id if self.round and not self.round.is_final else None
        self.journal.append("device_event", event.model_dump(mode="json"), table_id=self.table_id,
                            round_id=round_id, at=event.at)
        if isinstance(event, DeviceDisconnected):
            self._set_paused(f"device disconnected: {event.reason}; reconnecting")
        elif isinstance(event, DeviceConnected):
            self._set_paused(None)
        try:
            decisions = self.judge.feed(event)
        except Exception as exc:  # a judge bug must not take the table down
            log.exception("table %s: judge failed on %s", self.table_id, event)
            self._refused("judge_error", f"the game rules failed on a device event: {exc}")
            return
        for decision in decisions:
            self.apply(decision, event)

    # --- decisions -----------------------------------------------------------------

    def apply(self, d: Decision, event: DeviceEvent | None = None) -> None:
        try:
            self._apply(d, event)
        except RoundError as exc:
            self._refused(d.kind, str(exc))

    def _apply(self, d: Decision, event: DeviceEvent | None) -> None:
        if isinstance(d, OpenRound):
            self._open_round(d.device_game)
        elif isinstance(d, CloseBetting):
            self._step(self._current("close betting").close_betting(), "close_betting")
        elif isinstance(d, StartPlay):
            self._step(self._current("start play").start_play(), "start_play")
        elif isinstance(d, ResultReady):
            self._take_result(d.result, dict(d.source, serial_number=self.serial_number))
        elif isinstance(d, Hold):
            self._hold(d.code, d.message)
        elif isinstance(d, Release):
            self._release(d.code)
        elif isinstance(d, Void):
            if self.round is None or self.round.is_final:
                self._note("void_without_round", f"{d.code}: {d.message} (no open round)")
                return
            source = {"type": "device", "device_id": getattr(event, "device_id", None),
                      "kind": self.device_kind, "serial_number": self.serial_number}
            self._void(d.code, d.message, source)
        elif isinstance(d, SendCommand):
            self._send(d.command)
        elif isinstance(d, Note):
            self._note(d.code, d.message)

    def _current(self, action: str) -> Round:
        if self.round is None or self.round.is_final:
            raise RoundError(f"table {self.table_id} has no open round: cannot {action}")
        return self.round

    def _open_round(self, device_game: str | None) -> None:
        if self.round is not None and not self.round.is_final:
            why = "The device started a new game before this round ended."
            if self._released:
                why += " The round had been held: " + "; ".join(self._released)
            self._void("superseded", why,
                       {"type": "device", "kind": self.device_kind, "serial_number": self.serial_number})
        self._released = []
        self.last_round_number += 1
        r = Round(round_id=str(uuid.uuid4()), table_id=self.table_id, game=self.game.game_id,
                  round_number=self.last_round_number, opened_at=self.clock(), device_game=device_game,
                  holds=tuple(_hold_infos(self.table_holds)))
        self._step(r, "open_round")

    def _step(self, r: Round, transition: str) -> None:
        self.round = r
        data = r.projection()
        data["transition"] = transition
        self.journal.append("round_state", data, table_id=self.table_id, round_id=r.round_id,
                            round_projection=r.projection())
        self._emit("round", data)

    def _take_result(self, result: dict[str, Any], source: dict[str, Any]) -> None:
        r = self._current("take a result")
        try:
            result = self.game.validate_result(result)
        except ValueError as exc:
            self._hold("invalid_result", f"The device reported a result the game does not allow: {exc}")
            return
        outcome = self.game.outcome(result)
        self._step(r.result_pending(result, outcome, source), "result_pending")
        self._try_certify()

    def _try_certify(self) -> None:
        r = self.round
        if r is None or r.state is not RoundState.RESULT_PENDING or r.held:
            return
        r = r.certify()
        message = self._message("result", r)
        if message is None:
            return
        self._step(r, "certify")
        self.journal.append_feed(message)

    def _void(self, code: str, message: str, source: dict[str, Any]) -> None:
        r = self.round
        assert r is not None
        r = r.void(code, message)
        feed = self._message("void", r, reason={"code": code, "message": message}, source=source)
        if feed is None:
            return
        self._step(r, "void")
        self.journal.append_feed(feed)

    def _hold(self, code: str, message: str) -> None:
        if self.round is not None and not self.round.is_final:
            self._step(self.round.hold(code, message), "hold")
        else:
            self.table_holds[code] = message
            self._note("table_hold", f"{code}: {message}")
        self._emit("hold", {"code": code, "message": message})

    def _release(self, code: str) -> None:
        self.table_holds.pop(code, None)
        if self.round is not None and not self.round.is_final and any(h.code == code for h in self.round.holds):
            self._released += [h.message for h in self.round.holds if h.code == code]
            self._step(self.round.release(code), "release")
            self._try_certify()

    def _message(self, kind: str, r: Round, *, reason: dict[str, str] | None = None,
                 source: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The feed message for a round, checked before anything is journaled; None (and the round held) if bad."""
        message = {
            "kind": kind, "table_id": r.table_id, "game": r.game, "round_id": r.round_id,
            "round_number": r.round_number, "version": max(r.version, 1),
            "result": r.result if kind != "void" else None,
            "outcome": r.outcome if kind != "void" else None,
            "reason": reason, "source": source or r.source or {},
            "occurred_at": rfc3339(self.clock()),
        }
        try:
            check_feed_message(message)
        except ValueError as exc:
            log.error("table %s: refused to publish: %s", self.table_id, exc)
            if self.round is not None and not self.round.is_final:
                self._hold("invalid_message", f"The {kind} could not be published: {exc}")
            else:
                self._refused(kind, str(exc))
            return None
        return message

    def correct(self, round_id: str, result: dict[str, Any], *, approved_by: list[str], reason: str) -> Round:
        """A new version of a certified result; the console's four-eyes flow calls this."""
        if self.round is None or self.round.round_id != round_id:
            stored = self.journal.get_round(round_id)
            if stored is None or stored["table_id"] != self.table_id:
                raise RoundError(f"table {self.table_id} has no round {round_id}")
            r = Round.model_validate(stored)
        else:
            r = self.round
        if len(set(approved_by)) < 2:
            raise RoundError("a correction needs two different people (four eyes)")
        result = self.game.validate_result(result)
        source = {"type": "manual", "people": list(approved_by), "reason": reason}
        r = r.correct(result, self.game.outcome(result), source)
        if self.round is not None and self.round.round_id == round_id:
            self.round = r
        message = self._message("correction", r, reason={"code": "correction", "message": reason}, source=source)
        if message is None:
            raise RoundError("the correction could not be published")
        data = r.projection()
        data["transition"] = "correct"
        self.journal.append("round_state", data, table_id=self.table_id, round_id=r.round_id,
                            round_projection=r.projection())
        self.journal.append_feed(message)
        return r

    # --- bookkeeping -------------------------------------------------------------------

    def _send(self, command: str) -> None:
        self.journal.append("device_command", {"command": command, "by": "system"}, table_id=self.table_id,
                            round_id=self.round.round_id if self.round else None)
        driver = self.driver
        if driver is None:
            return

        def send() -> None:
            try:
                driver.send(command)
            except Exception as exc:
                log.warning("table %s: could not send %r: %s", self.table_id, command, exc)

        try:
            asyncio.get_running_loop().run_in_executor(None, send)
        except RuntimeError:  # no loop (replay, tests): send inline
            send()

    def _set_paused(self, reason: str | None) -> None:
        if reason == self.paused_reason:
            return
        self.paused_reason = reason
        status = {"state": "paused" if reason else "running", "reason": reason}
        self.journal.append("table_status", status, table_id=self.table_id)
        self._emit("status", status)

    def _note(self, code: str, message: str) -> None:
        self.journal.append("note", {"code": code, "message": message}, table_id=self.table_id,
                            round_id=self.round.round_id if self.round and not self.round.is_final else None)
        self._emit("note", {"code": code, "message": message})

    def _refused(self, action: str, message: str) -> None:
        log.warning("table %s: refused %s: %s", self.table_id, action, message)
        self.last_error = message
        self.journal.append("refused", {"action": action, "message": message}, table_id=self.table_id,
                            round_id=self.round.round_id if self.round and not self.round.is_final else None)
        self._emit("refused", {"action": action, "message": message})

    def _emit(self, what: str, data: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            try:
                listener(what, data)
            except Exception:
                log.exception("table listener failed")

    def snapshot(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id, "game": self.game.game_id,
            "status": "paused" if self.paused_reason else "running", "paused_reason": self.paused_reason,
            "round": self.round.projection() if self.round else None,
            "holds": [{"code": c, "message": m} for c, m in self.table_holds.items()],
            "last_error": self.last_error,
            "device": self.driver.health() if self.driver else None,
        }


def _hold_infos(holds: dict[str, str]):
    from .rounds import HoldInfo
    return [HoldInfo(code=c, message=m) for c, m in holds.items()]
