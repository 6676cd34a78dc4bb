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
"""
from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from devices.base import Driver
from devices.events import DeviceConnected, DeviceDisconnected, DeviceEvent
from recognition.game import (
    CloseBetting, Decision, GameRules, Hold, Note, OpenRound, Release, ResultReady, RoundSignal, SendCommand,
    StartPlay, Void,
)
from streaming.canonical import commitment_hash

from .journal import Journal, check_feed_message, rfc3339
from .rounds import HoldInfo, Round, RoundError, RoundState

log = logging.getLogger(__name__)

COMMITMENT_SCHEME = "sha256-canonical-json-v1"


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class DeviceSlot:
    device_id: str
    kind: str
    role: str
    serial_number: str
    driver: Driver | None = None
    #: one worker per device, made on first use, so its commands reach it in the order they were given
    sender: ThreadPoolExecutor | None = None


@dataclass
class Draw:
    """Computer-drawn values of the open round, secret until the round ends."""

    extras: dict[str, Any]
    nonce: str
    hash: str


class Table:
    def __init__(self, table_id: str, game: GameRules, journal: Journal, *,
                 devices: list[DeviceSlot] | None = None, judge_settings: dict[str, Any] | None = None,
                 betting_seconds: float = 15.0, auto_round_seconds: float | None = None,
                 require_opening_check: bool = True, clock: Callable[[], datetime] = utcnow) -> None:
        self.table_id = table_id
        self.game = game
        self.journal = journal
        self.devices: dict[str, DeviceSlot] = {d.device_id: d for d in devices or []}
        self.settings = dict(judge_settings or {})
        self.judge = game.new_judge(**self.settings)
        self.pacing = getattr(game, "pacing", "device")
        self.betting_seconds = betting_seconds
        self.auto_round_seconds = auto_round_seconds
        self.clock = clock
        self.round: Round | None = None
        self.draw: Draw | None = None
        self.last_round_number = 0
        self.betting_closes_at: datetime | None = None
        self.lost_devices: dict[str, str] = {}
        self.table_holds: dict[str, str] = {}
        self.last_error: str | None = None
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._released: list[str] = []  # holds lifted from the open round, kept for its void reason
        self._timers: list[asyncio.TimerHandle] = []
        self._rng = secrets.SystemRandom()
        # a game that defines an opening check (a ball draw's ball-set check) opens no round until one passes
        self.needs_opening_check = require_opening_check and callable(getattr(game, "opening_check", None))
        self.opening_check_passed = not self.needs_opening_check
        self.opening_check: Any = None
        self.last_opening_report: dict[str, Any] | None = None
        self._restore()

    # --- start-up ------------------------------------------------------------------

    def _restore(self) -> None:
        last = self.journal.last_round(self.table_id)
        if last is None:
            return
        self.last_round_number = last["round_number"]
        previous = Round.model_validate(last)
        if previous.is_final:
            self.round = previous
            self._signal("round_ended")  # a judge that carries state across rounds picks it up here
        else:
            # We cannot know what happened while the studio was down: the round is voided, never guessed.
            self.round = previous
            self.draw = self._stored_draw(previous.round_id)
            self._void("studio_restart", "The studio restarted during this round; it is void and stakes are returned.",
                       {"type": "studio", "reason": "restart"})

    def _stored_draw(self, round_id: str) -> Draw | None:
        for rec in self.journal.round_records(round_id):
            if rec["kind"] == "draw_secret":
                d = rec["data"]
                return Draw(d["extras"], d["nonce"], commitment_hash(round_id, d["extras"], d["nonce"]))
        return None

    def start(self) -> None:
        """Called once the loop runs: a dealer-paced table with auto rounds opens its first round."""
        if self.needs_opening_check is False and callable(getattr(self.game, "opening_check", None)):
            self.journal.append("note", {"code": "opening_check_waived",
                                         "message": "the opening check is turned off in the configuration"},
                                table_id=self.table_id)
        if self.pacing == "dealer" and self.auto_round_seconds is not None:
            self._schedule(self.auto_round_seconds, self._auto_open)

    def stop(self) -> None:
        for t in self._timers:
            t.cancel()
        self._timers.clear()
        for slot in self.devices.values():
            if slot.sender is not None:
                slot.sender.shutdown(wait=True, cancel_futures=False)
                slot.sender = None

    @property
    def paused_reason(self) -> str | None:
        if not self.lost_devices:
            return None
        return "; ".join(f"{dev}: {why}" for dev, why in sorted(self.lost_devices.items()))

    # --- device input --------------------------------------------------------------

    def device_event(self, event: DeviceEvent) -> None:
        data = event.model_dump(mode="json")
        self.journal.append("device_event", data, table_id=self.table_id, round_id=self._open_round_id(), at=event.at)
        self._emit("device", data)
        if self.opening_check is not None:
            try:
                if self.opening_check.feed(event):
                    self._emit("opening_check", self.opening_check.report().as_dict())
            except Exception:
                log.exception("table %s: opening check failed on %s", self.table_id, event)
        if isinstance(event, DeviceDisconnected):
            self._device_state(event.device_id, f"disconnected: {event.reason}; reconnecting")
        elif isinstance(event, DeviceConnected):
            self._device_state(event.device_id, None)
        self._feed_judge(event)

    def _feed_judge(self, item: DeviceEvent | RoundSignal) -> None:
        try:
            decisions = self.judge.feed(item)
        except Exception as exc:  # a judge bug must not take the table down
            log.exception("table %s: judge failed on %s", self.table_id, item)
            self._refused("judge_error", f"the game rules failed on {item.kind}: {exc}")
            return
        for decision in decisions:
            self.apply(decision, item)

    def _signal(self, signal: str) -> None:
        r = self.round
        if r is None:
            return
        ended = signal == "round_ended" and r.is_final
        self._feed_judge(RoundSignal(
            signal=signal, round_number=r.round_number, at=self.clock(),  # type: ignore[arg-type]
            extras=self.draw.extras if self.draw and signal != "round_opened" else None,
            final_state=r.state.value if ended else None,  # type: ignore[arg-type]
            result=r.result if ended and r.state is RoundState.CERTIFIED else None,
            outcome=r.outcome if ended and r.state is RoundState.CERTIFIED else None))

    # --- decisions -----------------------------------------------------------------

    def apply(self, d: Decision, cause: Any = None) -> None:
        try:
            self._apply(d, cause)
        except RoundError as exc:
            self._refused(d.kind, str(exc))

    def _apply(self, d: Decision, cause: Any) -> None:
        if isinstance(d, OpenRound):
            self._open_round(d.device_game)
        elif isinstance(d, CloseBetting):
            self._close_betting(by=None)
        elif isinstance(d, StartPlay):
            self._step(self._current("start play").start_play(), "start_play")
        elif isinstance(d, ResultReady):
            self._take_result(d.result, self._source(d.source))
        elif isinstance(d, Hold):
            self._hold(d.code, d.message)
        elif isinstance(d, Release):
            self._release(d.code)
        elif isinstance(d, Void):
            if self.round is None or self.round.is_final:
                self._note("void_without_round", f"{d.code}: {d.message} (no open round)")
                return
            self._void(d.code, d.message, self._source({"device_id": getattr(cause, "device_id", None)}))
        elif isinstance(d, SendCommand):
            if d.device_role is not None:
                slot = next((s for s in self.devices.values() if s.role == d.device_role), None)
                if slot is None:
                    self._refused("send_command", f"no device with the role {d.device_role!r} for {d.command!r}")
                    return
                self._send(d.command, slot.device_id)
            else:
                self._send(d.command, getattr(cause, "device_id", None))
        elif isinstance(d, Note):
            self._note(d.code, d.message)

    def _source(self, source: dict[str, Any]) -> dict[str, Any]:
        out = {"type": "device", **source}
        slot = self.devices.get(source.get("device_id") or "")
        if slot is None and len(self.devices) == 1:
            slot = next(iter(self.devices.values()))
        if slot is not None:
            out.setdefault("device_id", slot.device_id)
            out["kind"] = slot.kind
            out["serial_number"] = slot.serial_number
        return out

    def _current(self, action: str) -> Round:
        if self.round is None or self.round.is_final:
            raise RoundError(f"table {self.table_id} has no open round: cannot {action}")
        return self.round

    def _open_round_id(self) -> str | None:
        return self.round.round_id if self.round and not self.round.is_final else None

    def _open_round(self, device_game: str | None, by: str | None = None) -> Round:
        if self.round is not None and not self.round.is_final:
            why = "The device started a new game before this round ended."
            if self._released:
                why += " The round had been held: " + "; ".join(self._released)
            self._void("superseded", why, self._source({}))
        self._released = []
        self.last_round_number += 1
        r = Round(round_id=str(uuid.uuid4()), table_id=self.table_id, game=self.game.game_id,
                  round_number=self.last_round_number, opened_at=self.clock(), device_game=device_game,
                  holds=tuple(HoldInfo(code=c, message=m) for c, m in self.table_holds.items()))
        self.draw = None
        self._step(r, "open_round", by=by)
        self._commit_extras(r)
        if self.pacing == "dealer" and self.betting_seconds > 0:
            self.betting_closes_at = self.clock() + timedelta(seconds=self.betting_seconds)
            self._schedule(self.betting_seconds, lambda rid=r.round_id: self._betting_timer(rid))
        self._signal("round_opened")
        return r

    def _commit_extras(self, r: Round) -> None:
        """Draw the round's computer-drawn values now and publish their hash before betting can close."""
        try:
            extras = self.game.draw_extras(self._rng, **self.settings)
        except Exception as exc:
            log.exception("table %s: draw_extras failed", self.table_id)
            self._hold("draw_failed", f"The computer draw for this round failed: {exc}")
            return
        if not extras:
            return
        nonce = secrets.token_hex(32)
        self.draw = Draw(extras, nonce, commitment_hash(r.round_id, extras, nonce))
        # the secret goes to the journal (so a restart can still reveal it) but never to the feed before the end
        self.journal.append("draw_secret", {"extras": extras, "nonce": nonce}, table_id=self.table_id,
                            round_id=r.round_id)
        message = self._message("commitment", r, commitment={"hash": self.draw.hash, "scheme": COMMITMENT_SCHEME},
                                source={"type": "studio_rng", "generator": "secrets.SystemRandom"})
        if message is not None:
            self.journal.append_feed(message)

    def _close_betting(self, by: str | None) -> None:
        r = self._current("close betting")
        self.betting_closes_at = None
        self._step(r.close_betting(), "close_betting", by=by)
        if self.pacing == "dealer":
            self._step(self.round.start_play(), "start_play")  # type: ignore[union-attr]
            self._signal("betting_closed")

    def _betting_timer(self, round_id: str) -> None:
        if self.round is not None and self.round.round_id == round_id and self.round.state is RoundState.BETTING_OPEN:
            self.apply_action(lambda: self._close_betting(by="timer"))

    def _auto_open(self) -> None:
        if self.round is None or self.round.is_final:
            if self.lost_devices or not self.opening_check_passed:
                self._schedule(1.0, self._auto_open)  # wait for the devices to come back
                return
            self.apply_action(lambda: self._open_round(None, by="timer"))

    def _step(self, r: Round, transition: str, by: str | None = None) -> None:
        self.round = r
        data = r.projection()
        data["transition"] = transition
        if by is not None:
            data["by"] = by
        self.journal.append("round_state", data, table_id=self.table_id, round_id=r.round_id,
                            round_projection=r.projection())
        self._emit("round", data)
        if r.is_final:
            self._signal("round_ended")
            self.betting_closes_at = None
            if self.pacing == "dealer" and self.auto_round_seconds is not None:
                self._schedule(self.auto_round_seconds, self._auto_open)

    def _take_result(self, result: dict[str, Any], source: dict[str, Any]) -> None:
        r = self._current("take a result")
        try:
            result = self.game.validate_result(result)
            outcome = self.game.outcome(result, self.draw.extras if self.draw else None)
        except ValueError as exc:
            self._hold("invalid_result", f"The device reported a result the game does not allow: {exc}")
            return
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

    def _void(self, code: str, message: str, source: dict[str, Any], by: str | None = None) -> None:
        r = self.round
        assert r is not None
        r = r.void(code, message)
        feed = self._message("void", r, reason={"code": code, "message": message}, source=source)
        if feed is None:
            return
        self._step(r, "void", by=by)
        self.journal.append_feed(feed)

    def _hold(self, code: str, message: str) -> None:
        if self.round is not None and not self.round.is_final:
            self._step(self.round.hold(code, message), "hold")
        else:
            self.table_holds[code] = message
            self._note("table_hold", f"{code}: {message}")
        self._emit("hold", {"code": code, "message": message})

    def _release(self, code: str, by: str | None = None) -> None:
        self.table_holds.pop(code, None)
        if self.round is not None and not self.round.is_final and any(h.code == code for h in self.round.holds):
            self._released += [h.message for h in self.round.holds if h.code == code]
            self._step(self.round.release(code), "release", by=by)
            self._try_certify()

    def _message(self, kind: str, r: Round, *, reason: dict[str, str] | None = None,
                 source: dict[str, Any] | None = None,
                 commitment: dict[str, str] | None = None) -> dict[str, Any] | None:
        """The feed message for a round, checked before anything is journaled; None (and the round held) if bad."""
        message = {
            "kind": kind, "table_id": r.table_id, "game": r.game, "round_id": r.round_id,
            "round_number": r.round_number, "version": max(r.version, 1),
            "result": r.result if kind in ("result", "correction") else None,
            "outcome": r.outcome if kind in ("result", "correction") else None,
            "reason": reason, "source": source or r.source or {},
            "commitment": commitment,
            "reveal": ({"extras": self.draw.extras, "nonce": self.draw.nonce}
                       if kind in ("result", "void") and self.draw and self.round is not None
                       and self.round.round_id == r.round_id else None),
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

    # --- people (the console's services) ---------------------------------------------

    def apply_action(self, action: Callable[[], Any]) -> Any:
        """Run a step, turning a refused one into a journaled, visible refusal instead of an exception."""
        try:
            return action()
        except RoundError as exc:
            self._refused("action", str(exc))
            raise

    def _operator(self, action: str, by: str, approved_by: str | None = None, **details: Any) -> None:
        data = {"action": action, "by": by, **details}
        if approved_by:
            data["approved_by"] = approved_by
        self.journal.append("operator_action", data, table_id=self.table_id, round_id=self._open_round_id())

    @staticmethod
    def _four_eyes(by: str, approved_by: str | None, what: str) -> None:
        if not approved_by:
            raise RoundError(f"{what} needs a supervisor's approval (four eyes)")
        if approved_by == by:
            raise RoundError(f"{what} needs a second person: {by} cannot approve their own action")

    def open_round_by(self, by: str) -> Round:
        if self.pacing != "dealer":
            raise RoundError(f"table {self.table_id} plays {self.game.game_id}: its device opens the rounds")
        if self.round is not None and not self.round.is_final:
            raise RoundError(f"round {self.round.round_number} of table {self.table_id} is still open")
        if self.lost_devices:
            raise RoundError(f"table {self.table_id} is paused: {self.paused_reason}")
        if not self.opening_check_passed:
            why = (self.last_opening_report or {}).get("message") or "it has not been run since the studio started"
            raise RoundError(f"table {self.table_id} cannot open before its opening check passes: {why}")
        self._operator("open_round", by)
        return self._open_round(None, by=by)

    def start_opening_check_by(self, by: str) -> None:
        """Start the check (e.g. every ball read once); the table's device events feed it until it is finished."""
        if not callable(getattr(self.game, "opening_check", None)):
            raise RoundError(f"{self.game.game_id} has no opening check")
        if self.round is not None and not self.round.is_final:
            raise RoundError(f"round {self.round.round_number} of table {self.table_id} is still open")
        self.opening_check = self.game.opening_check({s.role: s.driver for s in self.devices.values()})
        self.opening_check_passed = False
        self._operator("start_opening_check", by)

    def finish_opening_check_by(self, by: str) -> dict[str, Any]:
        """Journal the check's report; the table opens rounds only if it passed."""
        if self.opening_check is None:
            raise RoundError(f"table {self.table_id} has no opening check running")
        report = self.opening_check.report().as_dict()
        self.opening_check = None
        self.opening_check_passed = bool(report.get("ok"))
        self.last_opening_report = report
        self.journal.append("opening_check", {"by": by, "report": report,
                                              "devices": {s.role: s.serial_number for s in self.devices.values()}},
                            table_id=self.table_id)
        self._emit("opening_check", report)
        if self.opening_check_passed and self.pacing == "dealer" and self.auto_round_seconds is not None:
            self._schedule(self.auto_round_seconds, self._auto_open)
        return report

    def close_betting_by(self, by: str) -> Round:
        if self.pacing != "dealer":
            raise RoundError(f"table {self.table_id} plays {self.game.game_id}: its device closes betting")
        self._operator("close_betting", by)
        self._close_betting(by=by)
        return self.round  # type: ignore[return-value]

    def void_by(self, code: str, message: str, by: str, approved_by: str | None = None) -> Round:
        r = self._current("void")
        if r.state is not RoundState.BETTING_OPEN:
            self._four_eyes(by, approved_by, "a void after betting closed")
        self._operator("void", by, approved_by, code=code, message=message)
        people = [p for p in (by, approved_by) if p]
        self._void(code, message, {"type": "manual", "people": people}, by=by)
        return self.round  # type: ignore[return-value]

    def manual_result_by(self, result: dict[str, Any], by: str, approved_by: str | None, reason: str) -> Round:
        """A result entered by people when the device cannot give one (journaled as manual with both names)."""
        self._four_eyes(by, approved_by, "a manual result")
        r = self._current("enter a result")
        result = self.game.validate_result(result)
        outcome = self.game.outcome(result, self.draw.extras if self.draw else None)
        self._operator("manual_result", by, approved_by, result=result, reason=reason)
        if r.state is RoundState.BETTING_OPEN:
            r = r.close_betting()
            self._step(r, "close_betting", by=by)
        if r.state is RoundState.BETTING_CLOSED:
            r = r.start_play()
            self._step(r, "start_play", by=by)
        for h in r.holds:
            r = r.release(h.code)
        if r.state is RoundState.RESULT_PENDING:
            raise RoundError("the round already has a result waiting; release its hold or void it instead")
        self._step(r.model_copy(update={"holds": ()}).result_pending(
            result, outcome, {"type": "manual", "people": [by, approved_by], "reason": reason}), "result_pending", by=by)
        self._try_certify()
        return self.round  # type: ignore[return-value]

    def release_by(self, code: str, by: str) -> Round | None:
        """The dealer confirms a held condition is resolved (e.g. a re-read card)."""
        self._operator("release", by, code=code)
        self._release(code, by=by)
        return self.round

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
        draw = self.draw if self.round is not None and self.round.round_id == round_id else self._stored_draw(round_id)
        r = r.correct(result, self.game.outcome(result, draw.extras if draw else None), source)
        message = self._message("correction", r, reason={"code": "correction", "message": reason}, source=source)
        if message is None:
            raise RoundError("the correction could not be published")
        self._operator("correct", approved_by[0], approved_by[1], round_id=round_id, result=result, reason=reason)
        if self.round is not None and self.round.round_id == round_id:
            self.round = r
        data = r.projection()
        data["transition"] = "correct"
        self.journal.append("round_state", data, table_id=self.table_id, round_id=r.round_id,
                            round_projection=r.projection())
        self.journal.append_feed(message)
        self._emit("round", data)
        return r

    def send_command_by(self, role: str, command: str, by: str) -> None:
        slot = next((s for s in self.devices.values() if s.role == role), None)
        if slot is None:
            raise RoundError(f"table {self.table_id} has no device with the role {role!r}")
        self._operator("device_command", by, role=role, command=command)
        self._send(command, slot.device_id, by=by)

    # --- bookkeeping -------------------------------------------------------------------

    def _schedule(self, delay: float, fn: Callable[[], None]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (replays, pure tests): nothing is timed
        self._timers = [t for t in self._timers if not t.cancelled()]
        self._timers.append(loop.call_later(delay, self._guarded, fn))

    def _guarded(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except RoundError:
            pass  # already journaled by apply_action
        except Exception:
            log.exception("table %s: timer failed", self.table_id)

    def _send(self, command: str, device_id: str | None, by: str = "system") -> None:
        slot = self.devices.get(device_id or "")
        if slot is None and len(self.devices) == 1:
            slot = next(iter(self.devices.values()))
        self.journal.append("device_command", {"command": command, "by": by,
                                               "device_id": slot.device_id if slot else None},
                            table_id=self.table_id, round_id=self._open_round_id())
        driver = slot.driver if slot else None
        if driver is None:
            return

        def send() -> None:
            try:
                driver.send(command)
            except Exception as exc:
                log.warning("table %s: could not send %r: %s", self.table_id, command, exc)

        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop (replay, tests): send inline
            send()
            return
        if slot.sender is None:  # type: ignore[union-attr]
            slot.sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"send-{slot.device_id}")  # type: ignore[union-attr]
        slot.sender.submit(send)  # type: ignore[union-attr]

    def _device_state(self, device_id: str, lost: str | None) -> None:
        before = self.paused_reason
        if lost is None:
            self.lost_devices.pop(device_id, None)
        else:
            self.lost_devices[device_id] = lost
        after = self.paused_reason
        if after != before:
            status = {"state": "paused" if after else "running", "reason": after}
            self.journal.append("table_status", status, table_id=self.table_id)
            self._emit("status", status)

    def _note(self, code: str, message: str) -> None:
        self.journal.append("note", {"code": code, "message": message}, table_id=self.table_id,
                            round_id=self._open_round_id())
        self._emit("note", {"code": code, "message": message})

    def _refused(self, action: str, message: str) -> None:
        log.warning("table %s: refused %s: %s", self.table_id, action, message)
        self.last_error = message
        self.journal.append("refused", {"action": action, "message": message}, table_id=self.table_id,
                            round_id=self._open_round_id())
        self._emit("refused", {"action": action, "message": message})

    def _emit(self, what: str, data: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            try:
                listener(what, data)
            except Exception:
                log.exception("table listener failed")

    def snapshot(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id, "game": self.game.game_id, "pacing": self.pacing,
            "status": "paused" if self.paused_reason else "running", "paused_reason": self.paused_reason,
            "round": self.round.projection() if self.round else None,
            "betting_seconds": self.betting_seconds,
            "betting_closes_at": rfc3339(self.betting_closes_at) if self.betting_closes_at else None,
            "commitment": self.draw.hash if self.draw and self.round and not self.round.is_final else None,
            # shown to the presenter once betting has closed (the feed reveals them with the result)
            "extras": (self.draw.extras if self.draw and self.round
                       and self.round.state not in (RoundState.BETTING_OPEN,) else None),
            "holds": [{"code": c, "message": m} for c, m in self.table_holds.items()],
            "opening_check": {"required": self.needs_opening_check, "passed": self.opening_check_passed,
                              "running": self.opening_check is not None,
                              "report": (self.opening_check.report().as_dict() if self.opening_check is not None
                                         else self.last_opening_report)},
            "last_error": self.last_error,
            "devices": [dict(role=s.role, **(s.driver.health() if s.driver else {"device_id": s.device_id}))
                        for s in self.devices.values()],
        }
