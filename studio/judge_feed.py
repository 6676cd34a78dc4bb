"""Feeding a table's judge (device events, round signals and player decisions, in the order they came) and
doing what it decides.

A judge with `prepare` (a camera judge's vision) has its device events prepared on a worker thread, one at a
time, and fed on the loop in order: anything fed meanwhile (a round signal, a timer's default decision, a
backend's decision) waits in the pipeline behind the events still being prepared. A judge with `status` has it
asked after every feed; a change is shown on the console.

When vision is slower than the cameras, frames would pile up without end (memory: 1.4 MB a 720p picture, and
a result read from a picture seconds old). So of a camera's frames waiting for the worker, only what the judge
needs is kept:

* a still frame replaces the camera's still frames waiting since its last moving frame: still frames are
  samples of a scene at rest, and the newest describes it;
* a moving frame replaces every frame of the camera still waiting: it says the scene moved, which makes the
  older pictures moot (what rested before it rests no more; an older motion says nothing the newer does not).

Nothing is skipped across anything else queued (a round signal, a decision, another device's event): the
judge still gets everything in order, and a motion after betting closed is never folded into one before it. A
camera therefore has at most a moving and a still frame waiting between two such steps, besides the one being
read. Skipping never joins two rests into one (no still frame before a skipped motion is kept), so a throw
cannot go unseen and a result is only ever read from a rest after the newest motion. Skips are counted and
journaled as a `frames_skipped` note, at most every SKIP_NOTE_EVERY seconds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from devices.camera.events import CameraFrame
from devices.events import DeviceEvent
from recognition.game import (
    AskDecision,
    CloseBetting,
    Decision,
    DecisionRefused,
    DecisionTaken,
    Hold,
    Judge,
    Note,
    OpenRound,
    Release,
    ResultReady,
    RoundSignal,
    SendCommand,
    StartPlay,
    Void,
)

from .device_slots import device_of, kind_of
from .journal import rfc3339
from .maintenance import MAINTENANCE_HELD_BACK
from .rounds import RoundError

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger(__name__)

#: a step waiting in the pipeline: the event's preparation (None: nothing to prepare) and what runs after it
_Step = tuple["Future[Any] | None", Callable[["Future[Any] | None"], None]]

#: seconds between two `frames_skipped` notes of a table
SKIP_NOTE_EVERY = 30.0


class JudgeFeed:
    def __init__(self, table: Table, judge: Judge) -> None:
        self.t = table
        self.judge = judge
        self._preparer: ThreadPoolExecutor | None = None
        self._pipeline: deque[_Step] = deque()
        self._feeding = 0
        self._draining = False
        self._stopped = False
        #: each camera's frames waiting for the worker since the last step that is not a camera frame: their steps
        #: in the pipeline, in order, each with whether the frame moved
        self._waiting: dict[str, list[tuple[_Step, bool]]] = {}
        self.frames_skipped = 0  # since the studio started
        self._skips_unsaid: dict[str, int] = {}  # per camera, since the last note
        self._skip_said_at = -SKIP_NOTE_EVERY
        #: the judge's last status with each awaiting window's deadline (None: nothing to show)
        self.judge_status: dict[str, Any] | None = None

    @property
    def has_status(self) -> bool:
        return self.judge.status is not None

    @property
    def busy(self) -> bool:
        """Device events are still being prepared: what is fed now waits behind them."""
        return bool(self._pipeline) and not self._feeding

    def replace(self, judge: Judge) -> None:
        """A fresh judge (maintenance off): events prepared for the old one belong to the tests."""
        self._pipeline.clear()
        self._waiting.clear()
        self.judge = judge
        self.judge_status = None
        if self.has_status:
            self.update_status()

    def stop(self) -> None:
        self._stopped = True
        self._pipeline.clear()
        self._waiting.clear()
        if self._preparer is not None:
            self._preparer.shutdown(wait=True, cancel_futures=True)
            self._preparer = None

    # --- feeding ---------------------------------------------------------------------------

    def event(self, event: DeviceEvent) -> None:
        if self.judge.prepare is None:
            self.feed(event)
        else:
            self._prepare_and_feed(event)

    def feed(self, item: DeviceEvent | RoundSignal) -> None:
        if self.busy:
            # device events ahead of this are still being prepared: the judge gets everything in order
            self._waiting.clear()
            self._pipeline.append((None, lambda _f: self.feed_now(item, item)))
            return
        self.feed_now(item, item)

    def feed_now(self, fed: Any, item: Any) -> None:
        """Feed the judge (`fed`: the item, or what `prepare` made of it) and apply its decisions."""
        self._feeding += 1
        try:
            try:
                decisions = self.judge.feed(fed)
            except Exception as exc:  # a judge bug must not take the table down
                log.exception("table %s: judge failed on %s", self.t.table_id, item)
                self.t.refused("judge_error", f"the game rules failed on {item.kind}: {exc}")
                return
            for decision in decisions:
                self.apply(decision, item)
        finally:
            self._feeding -= 1
            if self.has_status:
                self.update_status()

    def in_order(self, run: Callable[[], None]) -> None:
        """Run now, or after the device events still being prepared (a timer's default decision)."""
        if self.busy:
            self._waiting.clear()
            self._pipeline.append((None, lambda _f: run()))
            self._drain()
        else:
            run()

    # --- the judge's decisions ------------------------------------------------------------------

    def apply(self, d: Decision, cause: object = None) -> None:
        try:
            self._apply(d, cause)
        except RoundError as exc:
            self.t.refused(d.kind, str(exc))

    def _apply(self, d: Decision, cause: object) -> None:
        t = self.t
        life = t.lifecycle
        if t.in_maintenance and isinstance(d, MAINTENANCE_HELD_BACK):
            t.maintenance.decision(d, cause)
        elif isinstance(d, OpenRound):
            life.open_round(d.device_game)
        elif isinstance(d, CloseBetting):
            life.close_betting(by=None)
        elif isinstance(d, StartPlay):
            life.step(life.current("start play").start_play(), "start_play")
        elif isinstance(d, ResultReady):
            source = t.slots.source(d.source)
            # a reading for a round settled by hand (or declared failed) is journaled and compared, not taken
            if not t.readings.took(d.result, source):
                life.take_result(d.result, source)
        elif isinstance(d, Hold):
            if not t.readings.late_doubt("hold", d.code, d.message):
                t.holds.hold(d.code, d.message)
        elif isinstance(d, Release):
            t.holds.release(d.code)
        elif isinstance(d, Void):
            if t.readings.late_doubt("void", d.code, d.message):
                return
            if t.round is None or t.round.is_final:
                t.note("void_without_round", f"{d.code}: {d.message} (no open round)")
                return
            life.void(d.code, d.message, t.slots.source({"device_id": device_of(cause)}))
        elif isinstance(d, SendCommand):
            self._send_command(d, cause)
        elif isinstance(d, Note):
            t.note(d.code, d.message)
        elif isinstance(d, AskDecision):
            t.decisions.open_window(d)
        elif isinstance(d, DecisionTaken):
            t.decisions.taken(d)
        elif isinstance(d, DecisionRefused):
            t.decisions.judge_refused(d)

    def _send_command(self, d: SendCommand, cause: object) -> None:
        t = self.t
        if d.device_role is None:
            t.slots.send(d.command, device_of(cause))
            return
        slot = t.slots.by_role(d.device_role)
        if slot is None:
            t.refused("send_command", f"no device with the role {d.device_role!r} for {d.command!r}")
            return
        t.slots.send(d.command, slot.device_id)

    # --- prepare off the loop (a camera judge's vision) ----------------------------------------

    def _prepare_and_feed(self, event: DeviceEvent) -> None:
        prepare = self.judge.prepare
        if self._stopped or prepare is None:
            return  # stopping: a late frame must not start a worker that nobody shuts down
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (replays, pure tests): prepare inline
            self._feed_prepared(None, event)
            return
        if self._preparer is None:
            self._preparer = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix=f"prepare-{self.t.table_id}"
            )
        try:
            prepared = self._preparer.submit(prepare, event)
        except RuntimeError:  # stopped
            return
        step: _Step = (prepared, lambda f: self._feed_prepared(f, event))
        if isinstance(event, CameraFrame):
            waiting = self._waiting.setdefault(event.device_id, [])
            self._skip_moot(event.device_id, waiting, event.moving)
            waiting.append((step, event.moving))
        else:
            self._waiting.clear()
        self._pipeline.append(step)

        def wake(_f: Future[Any]) -> None:
            try:
                loop.call_soon_threadsafe(self._drain)
            except RuntimeError:  # the loop closed
                pass

        prepared.add_done_callback(wake)

    def _skip_moot(self, device_id: str, waiting: list[tuple[_Step, bool]], moving: bool) -> None:
        """Skip the camera's waiting frames a new frame makes moot: all of them for a moving frame, the still
        ones after the last moving frame for a still one. A frame whose reading has started stays."""
        keep: list[tuple[_Step, bool]] = []
        moot = True  # walking back from the newest: a still frame is moot until a moving one is passed
        for entry in reversed(waiting):
            step, moved = entry
            if moved and not moving:
                moot = False
            future = step[0]
            if moot and future is not None and future.cancel():  # not started yet
                self._pipeline.remove(step)  # and its picture with it
                self._skipped(device_id)
            else:
                keep.append(entry)
        waiting[:] = reversed(keep)

    def _skipped(self, device_id: str) -> None:
        self.frames_skipped += 1
        self._skips_unsaid[device_id] = self._skips_unsaid.get(device_id, 0) + 1
        now = time.monotonic()
        if now - self._skip_said_at >= SKIP_NOTE_EVERY:
            self._skip_said_at = now
            said = ", ".join(f"{n} of {d}" for d, n in sorted(self._skips_unsaid.items()))
            self._skips_unsaid.clear()
            self.t.note(
                "frames_skipped",
                f"vision is slower than the cameras: still frames skipped ({said}); each camera's newest is read",
            )

    def _feed_prepared(self, prepared: Future[Any] | None, event: DeviceEvent) -> None:
        waiting = self._waiting.get(event.device_id)
        if waiting and waiting[0][0][0] is prepared:  # fed in order: a camera's oldest waiting frame
            del waiting[0]
        fed: Any = event
        try:
            if prepared is not None:
                fed = prepared.result()
            elif self.judge.prepare is not None:
                fed = self.judge.prepare(event)
        except Exception as exc:  # journaled like a judge error; the judge gets the raw event
            log.exception("table %s: prepare failed on %s", self.t.table_id, event)
            self.t.refused("judge_error", f"the game rules failed preparing {kind_of(event)}: {exc}")
            fed = event
        self.feed_now(fed, event)

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
                    log.exception("table %s: pipeline step failed", self.t.table_id)
        finally:
            self._draining = False

    # --- the judge's status (what the dealer must know now) ---------------------------------------

    def update_status(self) -> None:
        status_of = self.judge.status
        if status_of is None:
            return
        try:
            raw = status_of()
        except Exception:
            log.exception("table %s: judge status failed", self.t.table_id)
            raw = None
        status = self._with_deadlines(raw) if isinstance(raw, dict) else None
        if status != self.judge_status:
            self.judge_status = status
            self.t.emit("judge", {"judge": status})

    def _with_deadlines(self, raw: dict[str, Any]) -> dict[str, Any]:
        status = dict(raw)
        awaiting = []
        for entry in raw.get("awaiting") or []:
            item = dict(entry) if isinstance(entry, dict) else {"window": entry}
            w = self.t.decisions.windows.get(str(item.get("window")))
            item["deadline"] = rfc3339(w.deadline) if w is not None else None
            awaiting.append(item)
        if "awaiting" in raw:
            status["awaiting"] = awaiting
        return status
