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
import secrets
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from devices.base import Driver
from devices.events import DeviceConnected, DeviceDisconnected, DeviceEvent
from recognition.game import (
    AskDecision,
    CloseBetting,
    Decision,
    DecisionRefused,
    DecisionTaken,
    GameRules,
    Hold,
    Note,
    OpeningCheck,
    OpenRound,
    PlayerDecision,
    Release,
    ResultReady,
    RoundSignal,
    SendCommand,
    StartPlay,
    Void,
)
from streaming.canonical import commitment_hash

from .journal import Journal, check_feed_message, rfc3339
from .rounds import HoldInfo, Round, RoundError, RoundState

log = logging.getLogger(__name__)


class DecisionError(Exception):
    """A player decision the studio did not take: `code` and `message` go back to the backend (HTTP `status`)."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


class DecisionAccepted(NamedTuple):
    decision: DecisionTaken
    #: the signed "decision" feed message's seq (the message is durable in the journal)
    feed_seq: int


@dataclass
class DecisionWindow:
    """A decision window the judge opened and the table times."""

    round_id: str
    window: str
    seat: str
    hand: int
    allowed: tuple[str, ...]
    default: str
    detail: dict[str, Any]
    deadline: datetime
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "window": self.window,
            "seat": self.seat,
            "hand": self.hand,
            "allowed": list(self.allowed),
            "default": self.default,
            "detail": self.detail,
            "deadline": rfc3339(self.deadline),
        }


COMMITMENT_SCHEME = "sha256-canonical-json-v1"

#: the judge's decisions that move the round lifecycle: while a table is in maintenance they are journaled as
#: `maintenance_decision` (what the judge would have done) and change nothing; SendCommand, Note and Release (with
#: no open round it only lifts a table hold, e.g. a device that is back) still apply
MAINTENANCE_HELD_BACK = (
    OpenRound,
    CloseBetting,
    StartPlay,
    ResultReady,
    Hold,
    Void,
    AskDecision,
    DecisionTaken,
    DecisionRefused,
)
#: how many of the current maintenance period's decisions the snapshot shows
MAINTENANCE_KEEP = 10
#: the round number a dealer-paced table's judge is told for a maintenance test round (real rounds start at 1)
TEST_ROUND_NUMBER = 0


def utcnow() -> datetime:
    return datetime.now(UTC)


def _result_words(result: Any) -> str:
    """A result in a few words for the screens: {"number": 17} -> "17", else "key value, ..."."""
    if isinstance(result, dict):
        for main in ("number", "numbers"):  # a wheel's pocket(s): the rest (counter, colour) is detail
            if main in result:
                return _result_words(result[main])
        if len(result) == 1:
            return _result_words(next(iter(result.values())))
        return ", ".join(f"{k} {_result_words(v)}" for k, v in result.items())
    if isinstance(result, (list, tuple)):
        return " ".join(_result_words(v) for v in result)
    return str(result)


def _device_of(cause: object) -> str | None:
    """The device whose event caused a decision (None: a round signal, a player decision, a person)."""
    return cause.device_id if isinstance(cause, DeviceEvent) else None


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
    ) -> None:
        self.table_id = table_id
        self.game = game
        self.journal = journal
        self.devices: dict[str, DeviceSlot] = {d.device_id: d for d in devices or []}
        self.settings = dict(judge_settings or {})
        self.judge = game.new_judge(**self.settings)
        self.pacing = game.pacing
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
        self._stopped = False
        #: the studio is shutting down: no new round opens (one the device starts after the shutdown voided the
        #: open round would be voided again as "device lost" when its driver stops)
        self.closing = False
        self._rng = secrets.SystemRandom()
        # a game that defines an opening check (a ball draw's ball-set check) opens no round until one passes
        self.needs_opening_check = require_opening_check and game.opening_check is not None
        self.opening_check_passed = not self.needs_opening_check
        self.opening_check: OpeningCheck | None = None
        self.last_opening_report: dict[str, Any] | None = None
        # player decisions (blackjack, draw poker): the open windows of the open round, each with its timer
        self.has_decisions = game.has_decisions
        self.decision_seconds = decision_seconds
        self.windows: dict[str, DecisionWindow] = {}
        self._answering: tuple[str, dict[str, Any] | str | None] | None = (
            None  # (client, body) being answered
        )
        self._answer: tuple[DecisionTaken, Future] | DecisionRefused | None = None
        # a judge with `prepare` gets its device events prepared on a worker thread, fed in order on the loop
        self._prepare = self.judge.prepare
        self._preparer: ThreadPoolExecutor | None = None
        self._pipeline: deque[tuple[Future | None, Callable[[Future | None], None]]] = deque()
        self._feeding = 0
        self._draining = False
        self._status = self.judge.status
        self.judge_status: dict[str, Any] | None = None
        # maintenance mode: device tests (a test spin, a test deal) never become published rounds
        self.maintenance: dict[str, Any] | None = None
        self.maintenance_decisions: deque[dict[str, Any]] = deque(maxlen=MAINTENANCE_KEEP)
        self._test_extras: dict[str, Any] | None = None
        self._restore()
        self._restore_maintenance()

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
            self._void(
                "studio_restart",
                "The studio restarted during this round; it is void and stakes are returned.",
                {"type": "studio", "reason": "restart"},
            )

    def _stored_draw(self, round_id: str) -> Draw | None:
        for rec in self.journal.round_records(round_id):
            if rec["kind"] == "draw_secret":
                d = rec["data"]
                return Draw(d["extras"], d["nonce"], commitment_hash(round_id, d["extras"], d["nonce"]))
        return None

    def start(self) -> None:
        """Called once the loop runs: a dealer-paced table with auto rounds opens its first round."""
        if self.needs_opening_check is False and self.game.opening_check is not None:
            self.journal.append(
                "note",
                {
                    "code": "opening_check_waived",
                    "message": "the opening check is turned off in the configuration",
                },
                table_id=self.table_id,
            )
        if self.pacing == "dealer" and self.auto_round_seconds is not None:
            self._schedule(self.auto_round_seconds, self._auto_open)

    def stop(self) -> None:
        self._stopped = True
        self.closing = True
        for t in self._timers:
            t.cancel()
        self._timers.clear()
        self._close_windows()
        self._pipeline.clear()
        if self._preparer is not None:
            self._preparer.shutdown(wait=True, cancel_futures=True)
            self._preparer = None
        for slot in self.devices.values():
            if slot.sender is not None:
                slot.sender.shutdown(wait=True, cancel_futures=False)
                slot.sender = None

    @property
    def paused_reason(self) -> str | None:
        reasons = [f"{dev}: {why}" for dev, why in sorted(self.lost_devices.items())]
        if self.journal.failure is not None:
            reasons.insert(
                0,
                f"the journal stopped ({self.journal.failure}): nothing can be recorded or certified "
                "until the studio is restarted; call a technician",
            )
        return "; ".join(reasons) or None

    def journal_failed(self) -> None:
        """The journal stopped (Studio calls this on the loop): the table holds and says why. Nothing more can be
        journaled, so nothing more is judged either."""
        self._emit("status", {"state": "paused", "reason": self.paused_reason})

    # --- device input --------------------------------------------------------------

    def device_event(self, event: DeviceEvent) -> None:
        data = event.model_dump(mode="json")
        if (
            self.journal.failure is not None
        ):  # what cannot be journaled is not judged (paused_reason says why)
            self._emit("device", data)
            return
        self.journal.append(
            "device_event", data, table_id=self.table_id, round_id=self._open_round_id(), at=event.at
        )
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
        if self._prepare is None:
            self._feed_judge(event)
        else:
            self._prepare_and_feed(event)

    def _feed_judge(self, item: DeviceEvent | RoundSignal) -> None:
        if self._pipeline and not self._feeding:
            # device events ahead of this are still being prepared: the judge gets everything in order
            self._pipeline.append((None, lambda _f, item=item: self._feed_now(item, item)))
            return
        self._feed_now(item, item)

    def _feed_now(self, fed: Any, item: Any) -> None:
        """Feed the judge (`fed`: the item, or what `prepare` made of it) and apply its decisions."""
        self._feeding += 1
        try:
            try:
                decisions = self.judge.feed(fed)
            except Exception as exc:  # a judge bug must not take the table down
                log.exception("table %s: judge failed on %s", self.table_id, item)
                self._refused("judge_error", f"the game rules failed on {item.kind}: {exc}")
                return
            for decision in decisions:
                self.apply(decision, item)
        finally:
            self._feeding -= 1
            if self._status is not None:
                self._update_status()

    # --- prepare off the loop (a camera judge's vision) ----------------------------------

    def _prepare_and_feed(self, event: DeviceEvent) -> None:
        if self._stopped:
            return  # stopping: a late frame must not start a worker that nobody shuts down
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (replays, pure tests): prepare inline
            loop = None
        if loop is None:
            self._feed_prepared(None, event)
            return
        if self._preparer is None:
            self._preparer = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"prepare-{self.table_id}")
        try:
            prepared = self._preparer.submit(self._prepare, event)  # type: ignore[arg-type]
        except RuntimeError:  # stopped
            return
        self._pipeline.append((prepared, lambda f, event=event: self._feed_prepared(f, event)))

        def wake(_f: Future) -> None:
            try:
                loop.call_soon_threadsafe(self._drain)
            except RuntimeError:  # the loop closed
                pass

        prepared.add_done_callback(wake)

    def _feed_prepared(self, prepared: Future | None, event: DeviceEvent) -> None:
        fed: Any = event
        try:
            fed = prepared.result() if prepared is not None else self._prepare(event)  # type: ignore[misc]
        except Exception as exc:  # journaled like a judge error; the judge gets the raw event
            log.exception("table %s: prepare failed on %s", self.table_id, event)
            self._refused("judge_error", f"the game rules failed preparing {event.kind}: {exc}")
            fed = event
        self._feed_now(fed, event)

    def _drain(self) -> None:
        """Run what waits in the pipeline, in order, up to the first event still being prepared."""
        if self._draining:
            return
        self._draining = True
        try:
            while self._pipeline:
                prepared, run = self._pipeline[0]
                if prepared is not None and not prepared.done():
                    return
                self._pipeline.popleft()
                try:
                    run(prepared)
                except Exception:
                    log.exception("table %s: pipeline step failed", self.table_id)
        finally:
            self._draining = False

    def _in_order(self, run: Callable[[], None]) -> None:
        """Run now, or after the device events still being prepared (a timer's default decision)."""
        if self._pipeline and not self._feeding:
            self._pipeline.append((None, lambda _f: run()))
            self._drain()
        else:
            run()

    # --- the judge's status (what the dealer must know now) -------------------------------

    def _update_status(self) -> None:
        try:
            raw = self._status()  # type: ignore[misc]
        except Exception:
            log.exception("table %s: judge status failed", self.table_id)
            raw = None
        status = self._with_deadlines(raw) if isinstance(raw, dict) else None
        if status != self.judge_status:
            self.judge_status = status
            self._emit("judge", {"judge": status})

    def _with_deadlines(self, raw: dict[str, Any]) -> dict[str, Any]:
        status = dict(raw)
        awaiting = []
        for entry in raw.get("awaiting") or []:
            item = dict(entry) if isinstance(entry, dict) else {"window": entry}
            w = self.windows.get(item.get("window"))  # type: ignore[arg-type]
            item["deadline"] = rfc3339(w.deadline) if w is not None else None
            awaiting.append(item)
        if "awaiting" in raw:
            status["awaiting"] = awaiting
        return status

    def _signal(self, signal: str) -> None:
        r = self.round
        if r is None:
            return
        ended = signal == "round_ended" and r.is_final
        self._feed_judge(
            RoundSignal(
                signal=signal,
                round_number=r.round_number,
                at=self.clock(),  # type: ignore[arg-type]
                extras=self.draw.extras if self.draw and signal != "round_opened" else None,
                final_state=r.state.value if ended else None,  # type: ignore[arg-type]
                result=r.result if ended and r.state is RoundState.CERTIFIED else None,
                outcome=r.outcome if ended and r.state is RoundState.CERTIFIED else None,
            )
        )

    # --- decisions -----------------------------------------------------------------

    def apply(self, d: Decision, cause: Any = None) -> None:
        try:
            self._apply(d, cause)
        except RoundError as exc:
            self._refused(d.kind, str(exc))

    def _apply(self, d: Decision, cause: Any) -> None:
        if self.in_maintenance and isinstance(d, MAINTENANCE_HELD_BACK):
            self._maintenance_decision(d, cause)
            return
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
            self._void(d.code, d.message, self._source({"device_id": _device_of(cause)}))
        elif isinstance(d, SendCommand):
            if d.device_role is not None:
                slot = next((s for s in self.devices.values() if s.role == d.device_role), None)
                if slot is None:
                    self._refused(
                        "send_command", f"no device with the role {d.device_role!r} for {d.command!r}"
                    )
                    return
                self._send(d.command, slot.device_id)
            else:
                self._send(d.command, _device_of(cause))
        elif isinstance(d, Note):
            self._note(d.code, d.message)
        elif isinstance(d, AskDecision):
            self._open_window(d)
        elif isinstance(d, DecisionTaken):
            self._decision_taken(d)
        elif isinstance(d, DecisionRefused):
            self._decision_judge_refused(d)

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
        if self.in_maintenance:
            raise RoundError(f"table {self.table_id} in maintenance: no round opens")
        if self.closing or self._stopped:
            raise RoundError(f"table {self.table_id} is stopping: no round opens")
        if self.round is not None and not self.round.is_final:
            why = "The device started a new game before this round ended."
            if self._released:
                why += " The round had been held: " + "; ".join(self._released)
            self._void("superseded", why, self._source({}))
        self._released = []
        self.last_round_number += 1
        r = Round(
            round_id=str(uuid.uuid4()),
            table_id=self.table_id,
            game=self.game.game_id,
            round_number=self.last_round_number,
            opened_at=self.clock(),
            device_game=device_game,
            holds=tuple(HoldInfo(code=c, message=m) for c, m in self.table_holds.items()),
        )
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
        self.journal.append(
            "draw_secret", {"extras": extras, "nonce": nonce}, table_id=self.table_id, round_id=r.round_id
        )
        message = self._message(
            "commitment",
            r,
            commitment={"hash": self.draw.hash, "scheme": COMMITMENT_SCHEME},
            source={"type": "studio_rng", "generator": "secrets.SystemRandom"},
        )
        if message is not None:
            self.journal.append_feed(message, checked=True)

    def _close_betting(self, by: str | None) -> None:
        r = self._current("close betting")
        self.betting_closes_at = None
        self._step(r.close_betting(), "close_betting", by=by)
        if self.pacing == "dealer":
            self._step(self.round.start_play(), "start_play")  # type: ignore[union-attr]
            self._signal("betting_closed")

    def _betting_timer(self, round_id: str) -> None:
        if (
            self.round is not None
            and self.round.round_id == round_id
            and self.round.state is RoundState.BETTING_OPEN
        ):
            self.apply_action(lambda: self._close_betting(by="timer"))

    def _auto_open(self) -> None:
        if self.in_maintenance:
            return  # paused: turning maintenance off starts the timer again
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
        # the record is the round's projection plus the step keys: the journal stores its text once for both
        self.journal.append(
            "round_state", data, table_id=self.table_id, round_id=r.round_id, round_projection=data
        )
        self._emit("round", data)
        if r.is_final:
            self._close_windows()
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
        self.journal.append_feed(message, checked=True)

    def _void(self, code: str, message: str, source: dict[str, Any], by: str | None = None) -> None:
        r = self.round
        assert r is not None
        r = r.void(code, message)
        feed = self._message(
            "void",
            r,
            reason={"code": code, "message": message},
            source=source,
            outcome=self.game.void_terms(code),
        )
        if feed is None:
            return
        self._step(r, "void", by=by)
        self.journal.append_feed(feed, checked=True)

    def _hold(self, code: str, message: str) -> None:
        if self.round is not None and not self.round.is_final:
            self._step(self.round.hold(code, message), "hold")
        else:
            self.table_holds[code] = message
            self._note("table_hold", f"{code}: {message}")
        self._emit("hold", {"code": code, "message": message})

    def _release(self, code: str, by: str | None = None) -> None:
        self.table_holds.pop(code, None)
        if (
            self.round is not None
            and not self.round.is_final
            and any(h.code == code for h in self.round.holds)
        ):
            self._released += [h.message for h in self.round.holds if h.code == code]
            self._step(self.round.release(code), "release", by=by)
            self._try_certify()

    def _message(
        self,
        kind: str,
        r: Round,
        *,
        reason: dict[str, str] | None = None,
        source: dict[str, Any] | None = None,
        commitment: dict[str, str] | None = None,
        fields: dict[str, Any] | None = None,
        outcome: dict[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        """The feed message for a round, checked before anything is journaled; None (and the round held) if bad.

        `fields`: the fields only the decision kinds have (window, seat, hand, ...); `outcome`: a void's terms
        (the game's `void_terms`), where the game settles more than the bets returned."""
        message = {
            "kind": kind,
            "table_id": r.table_id,
            "game": r.game,
            "round_id": r.round_id,
            "round_number": r.round_number,
            "version": max(r.version, 1),
            "result": r.result if kind in ("result", "correction") else None,
            "outcome": r.outcome if kind in ("result", "correction") else outcome,
            "reason": reason,
            "source": source or r.source or {},
            "commitment": commitment,
            "reveal": (
                {"extras": self.draw.extras, "nonce": self.draw.nonce}
                if kind in ("result", "void")
                and self.draw
                and self.round is not None
                and self.round.round_id == r.round_id
                else None
            ),
            "occurred_at": rfc3339(self.clock()),
            **(fields or {}),
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

    # --- player decisions (blackjack, draw poker) -------------------------------------------

    def _open_window(self, d: AskDecision) -> None:
        r = self._current("open a decision window")
        if d.window in self.windows:
            self._note("window_reopened", f"the rules asked again for the open window {d.window}; ignored")
            return
        deadline = self.clock() + timedelta(seconds=self.decision_seconds)
        message = self._message(
            "decision_window",
            r,
            source={"type": "rules"},
            fields={
                "window": d.window,
                "seat": d.seat,
                "hand": d.hand,
                "allowed": list(d.allowed),
                "default": d.default,
                "detail": dict(d.detail),
                "deadline": rfc3339(deadline),
            },
        )
        if message is None:
            return  # held: the round cannot go on without the window on the feed
        w = DecisionWindow(
            r.round_id, d.window, d.seat, d.hand, tuple(d.allowed), d.default, dict(d.detail), deadline
        )
        self.windows[d.window] = w
        self.journal.append_feed(message, checked=True)
        w.timer = self._schedule(
            self.decision_seconds, lambda rid=r.round_id, wid=d.window: self._window_timeout(rid, wid)
        )
        self._emit("decision_window", w.as_dict())

    def _decision_taken(self, d: DecisionTaken) -> None:
        r = self._current("take a decision")
        w = self.windows.pop(d.window, None)
        if w is not None and w.timer is not None:
            w.timer.cancel()
        if d.by == "default":
            source: dict[str, Any] = {"type": "timer"}
        else:
            client = self._answering[0] if self._answering else None
            source = {"type": "backend", "consumer": client} if client else {"type": "backend"}
        message = self._message(
            "decision",
            r,
            source=source,
            fields={
                "window": d.window,
                "seat": d.seat,
                "hand": d.hand,
                "action": d.action,
                "cards": list(d.cards),
                "by": d.by,
            },
        )
        if message is None:  # the round is held (invalid_message)
            if self._answering is not None and self._answer is None:
                refused = DecisionRefused(
                    code="not_published", message="the decision could not be published; the round is held"
                )
                self._decision_judge_refused(refused)
            return
        committed = self.journal.append_feed(message, checked=True)
        if self._answering is not None and self._answer is None:
            self._answer = (d, committed)
        self._emit("decision", {k: message[k] for k in ("window", "seat", "hand", "action", "cards", "by")})

    def _decision_judge_refused(self, d: DecisionRefused) -> None:
        if self._answering is not None and self._answer is None:
            self._answer = d
            client, body = self._answering
        else:
            client, body = None, None
        self.refuse_decision(client, body, d.code, d.message)

    def refuse_decision(
        self,
        client: str | None,
        body: dict[str, Any] | str | None,
        code: str,
        message: str,
        status: int = 409,
    ) -> None:
        """Journal a refused decision (`decision_refused`) with who sent it and what they sent."""
        data = {"client": client, "body": body, "code": code, "message": message, "status": status}
        self.journal.append("decision_refused", data, table_id=self.table_id, round_id=self._open_round_id())
        self._emit("decision_refused", data)

    def _close_windows(self) -> None:
        for w in self.windows.values():
            if w.timer is not None:
                w.timer.cancel()
        self.windows.clear()

    def _window_timeout(self, round_id: str, window: str) -> None:
        w = self.windows.get(window)
        r = self.round
        if w is None or w.round_id != round_id or r is None or r.round_id != round_id or r.is_final:
            return
        early = (w.deadline - self.clock()).total_seconds()
        if early > 0:  # the loop's timer may fire a little early: never apply a default before its deadline
            w.timer = self._schedule(early + 0.001, lambda: self._window_timeout(round_id, window))
            return
        pd = PlayerDecision(
            round_number=r.round_number,
            seat=w.seat,
            hand=w.hand,
            action=w.default,
            window=window,
            by="default",
            at=self.clock(),
        )

        def run() -> None:
            if self.windows.get(window) is not w:
                return  # answered while the events ahead were prepared
            try:
                self._ask_judge(pd, "timer", {"window": window, "action": w.default})
            except DecisionError as exc:
                self.windows.pop(window, None)
                self._hold(
                    "default_refused",
                    f"The rules refused the default {w.default!r} for {window}: {exc.message}",
                )

        self._in_order(run)

    async def decide(
        self,
        round_id: str,
        seat: str,
        hand: int,
        action: str,
        cards: tuple[str, ...] | list[str] = (),
        window: str | None = None,
        by_client: str = "backend",
        body: dict[str, Any] | None = None,
    ) -> DecisionAccepted:
        """A decision from the betting backend (the decisions API; on the event loop).

        Returns once the "decision" feed message is durable in the journal; raises DecisionError (journaled as
        `decision_refused`) when the round is not open or the rules refuse it."""
        if self._pipeline and not self._feeding:  # device events ahead of it are still being prepared
            loop = asyncio.get_running_loop()
            answer: asyncio.Future = loop.create_future()

            def run() -> None:
                try:
                    out = self.decide_now(round_id, seat, hand, action, cards, window, by_client, body)
                except Exception as exc:
                    if not answer.done():
                        answer.set_exception(exc)
                else:
                    if not answer.done():
                        answer.set_result(out)

            self._in_order(run)
            taken, committed = await answer
        else:
            taken, committed = self.decide_now(round_id, seat, hand, action, cards, window, by_client, body)
        done = await asyncio.wrap_future(committed)
        return DecisionAccepted(taken, done.feed_seq)

    def decide_now(
        self,
        round_id: str,
        seat: str,
        hand: int,
        action: str,
        cards: tuple[str, ...] | list[str] = (),
        window: str | None = None,
        by_client: str = "backend",
        body: dict[str, Any] | None = None,
    ) -> tuple[DecisionTaken, Future]:
        """`decide` without waiting: (the decision taken, the future of its journal record)."""
        if body is None:
            body = {
                "round_id": round_id,
                "seat": seat,
                "hand": hand,
                "action": action,
                "cards": list(cards),
                "window": window,
            }
        r = self.round
        if not self.has_decisions:
            why = f"table {self.table_id} plays {self.game.game_id}, which takes no player decisions"
            self.refuse_decision(by_client, body, "no_decisions", why)
            raise DecisionError("no_decisions", why)
        if r is None or r.is_final or r.round_id != round_id:
            current = (
                f"its open round is {r.round_id} (round {r.round_number})"
                if r is not None and not r.is_final
                else "it has no open round"
            )
            why = f"round {round_id} is not open at table {self.table_id}: {current}"
            self.refuse_decision(by_client, body, "no_round", why)
            raise DecisionError("no_round", why)
        pd = PlayerDecision(
            round_number=r.round_number,
            seat=seat,
            hand=hand,
            action=action,
            cards=tuple(cards),
            window=window,
            by="backend",
            at=self.clock(),
        )
        return self._ask_judge(pd, by_client, body)

    def _ask_judge(
        self, pd: PlayerDecision, client: str, body: dict[str, Any] | str | None
    ) -> tuple[DecisionTaken, Future]:
        self._answering, self._answer = (client, body), None
        try:
            self._feed_now(pd, pd)
            answer = self._answer
        finally:
            self._answering, self._answer = None, None
        if isinstance(answer, DecisionRefused):
            raise DecisionError(answer.code, answer.message)
        if answer is None:
            why = "the game rules gave no answer to the decision"
            self.refuse_decision(client, body, "judge_error", why, status=500)
            raise DecisionError("judge_error", why, status=500)
        return answer

    def decision_view(self) -> dict[str, Any]:
        """The open round's open decision windows (GET /v1/tables/{id}/decisions)."""
        r = self.round
        open_round = r is not None and not r.is_final
        return {
            "table_id": self.table_id,
            "game": self.game.game_id,
            "decisions": self.has_decisions,
            "decision_seconds": self.decision_seconds,
            "round_id": r.round_id if open_round else None,  # type: ignore[union-attr]
            "round_number": r.round_number if open_round else None,  # type: ignore[union-attr]
            "state": r.state.value if open_round else None,  # type: ignore[union-attr]
            "windows": [w.as_dict() for w in self.windows.values()],
        }

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
        if self.in_maintenance:
            raise RoundError(
                f"table {self.table_id} in maintenance: {self.maintenance['reason']}"  # type: ignore[index]
                f" ({self.maintenance['by']}); no round opens until it is turned off"
            )  # type: ignore[index]
        if self.lost_devices:
            raise RoundError(f"table {self.table_id} is paused: {self.paused_reason}")
        if not self.opening_check_passed:
            why = (self.last_opening_report or {}).get(
                "message"
            ) or "it has not been run since the studio started"
            raise RoundError(f"table {self.table_id} cannot open before its opening check passes: {why}")
        self._operator("open_round", by)
        return self._open_round(None, by=by)

    def start_opening_check_by(self, by: str) -> None:
        """Start the check (e.g. every ball read once); the table's device events feed it until it is finished."""
        make_check = self.game.opening_check
        if make_check is None:
            raise RoundError(f"{self.game.game_id} has no opening check")
        if self.round is not None and not self.round.is_final:
            raise RoundError(f"round {self.round.round_number} of table {self.table_id} is still open")
        self.opening_check = make_check({s.role: s.driver for s in self.devices.values()})
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
        self.journal.append(
            "opening_check",
            {"by": by, "report": report, "devices": {s.role: s.serial_number for s in self.devices.values()}},
            table_id=self.table_id,
        )
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

    def manual_result_by(
        self, result: dict[str, Any], by: str, approved_by: str | None, reason: str
    ) -> Round:
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
        self._step(
            r.model_copy(update={"holds": ()}).result_pending(
                result, outcome, {"type": "manual", "people": [by, approved_by], "reason": reason}
            ),
            "result_pending",
            by=by,
        )
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
        draw = (
            self.draw
            if self.round is not None and self.round.round_id == round_id
            else self._stored_draw(round_id)
        )
        r = r.correct(result, self.game.outcome(result, draw.extras if draw else None), source)
        message = self._message(
            "correction", r, reason={"code": "correction", "message": reason}, source=source
        )
        if message is None:
            raise RoundError("the correction could not be published")
        self._operator(
            "correct", approved_by[0], approved_by[1], round_id=round_id, result=result, reason=reason
        )
        if self.round is not None and self.round.round_id == round_id:
            self.round = r
        data = r.projection()
        data["transition"] = "correct"
        self.journal.append(
            "round_state", data, table_id=self.table_id, round_id=r.round_id, round_projection=r.projection()
        )
        self.journal.append_feed(message, checked=True)
        self._emit("round", data)
        return r

    def send_command_by(self, role: str, command: str, by: str) -> None:
        slot = next((s for s in self.devices.values() if s.role == role), None)
        if slot is None:
            raise RoundError(f"table {self.table_id} has no device with the role {role!r}")
        self._operator("device_command", by, role=role, command=command)
        self._send(command, slot.device_id, by=by)

    # --- maintenance mode ------------------------------------------------------------------
    #
    # While a table is in maintenance a technician tests its devices (a test spin, a test deal, a test draw):
    # no round opens, the judge still gets every device event (journaled and shown as always), and what it would
    # have decided about the round is journaled as `maintenance_decision` instead of being done: nothing reaches
    # the feed. Its commands to the device (the SS2's *R after a miss-spin) still go out. A dealer-paced table
    # tells its judge about a test round (number 0) so a test deal is judged as a round would be. Turning
    # maintenance off gives the table a fresh judge, so nothing of the tests carries into real rounds.

    @property
    def in_maintenance(self) -> bool:
        return bool(self.maintenance and self.maintenance.get("on"))

    def maintenance_view(self) -> dict[str, Any] | None:
        """{"on", "by", "reason", "since", "decisions"} of the last change (None: never in maintenance)."""
        if self.maintenance is None:
            return None
        return {
            **self.maintenance,
            "decisions": list(self.maintenance_decisions) if self.in_maintenance else [],
        }

    def set_maintenance_by(self, by: str, on: bool, reason: str) -> dict[str, Any]:
        """Turn maintenance mode on or off (the console lets technicians and admins do it).

        On is refused while a round is open (finish or void it first): a round is never ended by this switch."""
        reason = (reason or "").strip()
        if on:
            if self.in_maintenance:
                raise RoundError(
                    f"table {self.table_id} is already in maintenance since "
                    f"{self.maintenance['since']} ({self.maintenance['by']}: "  # type: ignore[index]
                    f"{self.maintenance['reason']})"
                )  # type: ignore[index]
            if len(reason) < 3:
                raise RoundError("say in a few words why the table goes into maintenance")
            r = self.round
            if r is not None and not r.is_final:
                raise RoundError(
                    f"round {r.round_number} of table {self.table_id} is "
                    f"{r.state.value.replace('_', ' ')}: finish or void it before maintenance mode"
                )
        elif not self.in_maintenance:
            raise RoundError(f"table {self.table_id} is not in maintenance")
        state = {"on": bool(on), "by": by, "reason": reason, "since": rfc3339(self.clock())}
        self.journal.append("maintenance", state, table_id=self.table_id)
        self.maintenance = state
        self.maintenance_decisions.clear()
        self._test_extras = None
        if on:
            self._begin_test_round()
        else:
            self._fresh_judge()
        self._emit("maintenance", self.maintenance_view())  # type: ignore[arg-type]
        if not on and self.pacing == "dealer" and self.auto_round_seconds is not None:
            self._schedule(self.auto_round_seconds, self._auto_open)
        return self.maintenance_view()  # type: ignore[return-value]

    def _restore_maintenance(self) -> None:
        """At start-up: the table's last `maintenance` record says whether it is in maintenance."""
        try:
            record = self.journal.last_record("maintenance", self.table_id)
        except Exception:
            log.exception("table %s: could not read its maintenance state from the journal", self.table_id)
            return
        if record is None:
            return
        self.maintenance = {k: record.get(k) for k in ("on", "by", "reason", "since")}
        self.maintenance["on"] = bool(self.maintenance["on"])
        if self.in_maintenance:
            self._begin_test_round()

    def _fresh_judge(self) -> None:
        """A new judge, as at start-up: no state of a test game carries into the real rounds."""
        self._pipeline.clear()  # events prepared for the old judge were journaled and belong to the tests
        self.judge = self.game.new_judge(**self.settings)
        self._prepare = self.judge.prepare
        self._status = self.judge.status
        self.judge_status = None
        if self._status is not None:
            self._update_status()
        if self.round is not None and self.round.is_final:
            self._signal("round_ended")  # the last real round, as a starting table tells its judge

    def _begin_test_round(self) -> None:
        """A dealer-paced table's judge is told a test round opened and its betting closed (nothing else is)."""
        if self.pacing != "dealer":
            return  # a device-paced judge follows the device's own games
        try:
            self._test_extras = self.game.draw_extras(self._rng, **self.settings) or None
        except Exception:
            self._test_extras = None
        for signal in ("round_opened", "betting_closed"):
            self._feed_judge(
                RoundSignal(
                    signal=signal,
                    round_number=TEST_ROUND_NUMBER,
                    at=self.clock(),  # type: ignore[arg-type]
                    extras=self._test_extras if signal != "round_opened" else None,
                )
            )

    def _end_test_round(self, final_state: str) -> None:
        if self.pacing != "dealer":
            return
        self._feed_judge(
            RoundSignal(
                signal="round_ended",
                round_number=TEST_ROUND_NUMBER,
                at=self.clock(),  # type: ignore[arg-type]
                extras=self._test_extras,
                final_state=final_state,
            )
        )  # type: ignore[arg-type]
        if self.in_maintenance:
            self._begin_test_round()

    def _maintenance_decision(self, d: Decision, cause: Any) -> None:
        """Journal and show what the judge would have done; do none of it."""
        data: dict[str, Any] = {"decision": d.kind, **d.model_dump(mode="json", exclude={"kind"})}
        data["device_id"] = _device_of(cause)
        # every event's discriminator (the DeviceEvent base class does not declare it)
        data["cause"] = getattr(cause, "kind", None)
        summary = self._maintenance_summary(d, data)
        data["summary"] = summary
        data["message"] = f"Maintenance: {summary} - not published"
        self.journal.append("maintenance_decision", data, table_id=self.table_id)
        self.maintenance_decisions.appendleft({"at": rfc3339(self.clock()), **data})
        self._emit("maintenance_decision", data)
        if isinstance(d, (ResultReady, Void)):
            self._end_test_round(
                "voided"
            )  # a test round is never certified: a judge carrying state forgets it

    def _maintenance_summary(self, d: Decision, data: dict[str, Any]) -> str:
        if isinstance(d, ResultReady):
            try:
                result = self.game.validate_result(d.result)
            except (ValueError, TypeError, KeyError) as exc:
                data["refused"] = str(exc)
                return f"test result {_result_words(d.result)} (the game refuses it: {exc})"
            data["device_result"], data["result"] = d.result, result
            try:
                data["outcome"] = self.game.outcome(result, self._test_extras)
            except Exception:
                pass
            return f"test result {_result_words(d.result)}"  # as the judge gave it (device_result in the journal)
        if isinstance(d, Void):
            return f"the judge would void the round ({d.code}): {d.message}"
        if isinstance(d, Hold):
            return f"the judge would hold the round ({d.code}): {d.message}"
        if isinstance(d, OpenRound):
            return "the device started a test game" + (f" (game {d.device_game})" if d.device_game else "")
        if isinstance(d, CloseBetting):
            return "the judge would close betting"
        if isinstance(d, StartPlay):
            return "the judge would start play"
        return f"the judge decided {d.kind}"

    # --- bookkeeping -------------------------------------------------------------------

    def _schedule(self, delay: float, fn: Callable[[], None]) -> asyncio.TimerHandle | None:
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

    def _send(self, command: str, device_id: str | None, by: str = "system") -> None:
        slot = self.devices.get(device_id or "")
        if slot is None and len(self.devices) == 1:
            slot = next(iter(self.devices.values()))
        self.journal.append(
            "device_command",
            {"command": command, "by": by, "device_id": slot.device_id if slot else None},
            table_id=self.table_id,
            round_id=self._open_round_id(),
        )
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
        self.journal.append(
            "note", {"code": code, "message": message}, table_id=self.table_id, round_id=self._open_round_id()
        )
        self._emit("note", {"code": code, "message": message})

    def _refused(self, action: str, message: str) -> None:
        log.warning("table %s: refused %s: %s", self.table_id, action, message)
        self.last_error = message
        self.journal.append(
            "refused",
            {"action": action, "message": message},
            table_id=self.table_id,
            round_id=self._open_round_id(),
        )
        self._emit("refused", {"action": action, "message": message})

    def _emit(self, what: str, data: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            try:
                listener(what, data)
            except Exception:
                log.exception("table listener failed")

    def snapshot(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "game": self.game.game_id,
            "pacing": self.pacing,
            "status": "paused" if self.paused_reason else "running",
            "paused_reason": self.paused_reason,
            "round": self.round.projection() if self.round else None,
            "betting_seconds": self.betting_seconds,
            "betting_closes_at": rfc3339(self.betting_closes_at) if self.betting_closes_at else None,
            "commitment": self.draw.hash if self.draw and self.round and not self.round.is_final else None,
            # shown to the presenter once betting has closed (the feed reveals them with the result)
            "extras": (
                self.draw.extras
                if self.draw and self.round and self.round.state not in (RoundState.BETTING_OPEN,)
                else None
            ),
            "holds": [{"code": c, "message": m} for c, m in self.table_holds.items()],
            "opening_check": {
                "required": self.needs_opening_check,
                "passed": self.opening_check_passed,
                "running": self.opening_check is not None,
                "report": (
                    self.opening_check.report().as_dict()
                    if self.opening_check is not None
                    else self.last_opening_report
                ),
            },
            "last_error": self.last_error,
            "maintenance": self.maintenance_view(),
            # games with player decisions: the open windows with their deadlines; the judge's status (if it has
            # one) with each awaiting window's deadline
            "decision_windows": [w.as_dict() for w in self.windows.values()],
            **({"judge": self.judge_status} if self._status is not None else {}),
            "devices": [
                dict(role=s.role, **(s.driver.health() if s.driver else {"device_id": s.device_id}))
                for s in self.devices.values()
            ],
        }
