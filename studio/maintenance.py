"""Maintenance mode: a technician tests a table's devices (a test spin, a test deal, a test draw).

While a table is in maintenance no round opens, the judge still gets every device event (journaled and shown
as always), and what it would have decided about the round is journaled as `maintenance_decision` instead of
being done: nothing reaches the feed. Its commands to the device (the SS2's *R after a miss-spin) still go out.
A dealer-paced table tells its judge about a test round (number 0) so a test deal is judged as a round would be.
Turning maintenance off gives the table a fresh judge, so nothing of the tests carries into real rounds.

Asked for while a round is open, maintenance is *pending*: the round plays on to its end (a round is never
ended by this switch), no new round opens meanwhile, and maintenance comes on as soon as the round is
certified or voided. The request and its cancellation are journaled (`maintenance_requested`,
`maintenance_request_cancelled`); the `maintenance` record that turns it on carries `requested_at`. A request
still pending when the studio stops is kept: the restart voids the round it waited for, so maintenance comes on as
the table starts (its `maintenance` record also carries `after_restart`).
"""

from __future__ import annotations

import logging
from collections import deque
from typing import TYPE_CHECKING, Any, Literal

from recognition.game import (
    AskDecision,
    CloseBetting,
    Decision,
    DecisionRefused,
    DecisionTaken,
    Hold,
    OpenRound,
    ResultReady,
    RoundSignal,
    StartPlay,
    Void,
)

from .device_slots import device_of, kind_of
from .journal import rfc3339
from .rounds import RoundError

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger(__name__)

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


class Maintenance:
    def __init__(self, table: Table) -> None:
        self.t = table
        #: the last change: {"on", "by", "reason", "since"} (None: never in maintenance)
        self.state: dict[str, Any] | None = None
        self.decisions: deque[dict[str, Any]] = deque(maxlen=MAINTENANCE_KEEP)
        self._test_extras: dict[str, Any] | None = None
        #: maintenance asked for while a round is open: {"by", "reason", "requested_at", "round_id",
        #: "round_number"}; it comes on when that round ends
        self.pending: dict[str, Any] | None = None

    @property
    def on(self) -> bool:
        return bool(self.state and self.state.get("on"))

    def view(self) -> dict[str, Any] | None:
        """{"on", "by", "reason", "since", "decisions", "pending"} of the last change (None: never in
        maintenance and none asked for)."""
        if self.state is None and self.pending is None:
            return None
        state = self.state or {"on": False, "by": None, "reason": None, "since": None}
        return {**state, "decisions": list(self.decisions) if self.on else [], "pending": self.pending}

    def set_by(self, by: str, on: bool, reason: str) -> dict[str, Any]:
        """Turn maintenance mode on or off (the console lets technicians and admins do it).

        On while a round is open is a request: it comes on when the round ends (a round is never ended by this
        switch). Off while a request is pending cancels the request."""
        t = self.t
        reason = (reason or "").strip()
        if on:
            if self.state is not None and self.on:
                raise RoundError(
                    f"table {t.table_id} is already in maintenance since "
                    f"{self.state['since']} ({self.state['by']}: {self.state['reason']})"
                )
            if self.pending is not None:
                p = self.pending
                raise RoundError(
                    f"maintenance of table {t.table_id} is already asked for ({p['by']}: {p['reason']}); it "
                    f"comes on when round {p['round_number']} ends"
                )
            if len(reason) < 3:
                raise RoundError("say in a few words why the table goes into maintenance")
            r = t.round
            if r is not None and not r.is_final:
                return self._request(by, reason)
        elif self.pending is not None and not self.on:
            return self._cancel(by, reason)
        elif not self.on:
            raise RoundError(f"table {t.table_id} is not in maintenance")
        return self._switch(by, bool(on), reason)

    def _request(self, by: str, reason: str) -> dict[str, Any]:
        """Maintenance asked for while a round is open: journaled, shown, and turned on when the round ends."""
        t = self.t
        r = t.round
        assert r is not None
        self.pending = {
            "by": by,
            "reason": reason,
            "requested_at": rfc3339(t.clock()),
            "round_id": r.round_id,
            "round_number": r.round_number,
        }
        t.journal.append(
            "maintenance_requested", dict(self.pending), table_id=t.table_id, round_id=r.round_id
        )
        if self._on_round not in t.listeners:
            t.listeners.append(self._on_round)
        view = self.view()
        t.emit("maintenance", view or {})
        return view or {}

    def _cancel(self, by: str, reason: str) -> dict[str, Any]:
        t = self.t
        assert self.pending is not None
        data = {**self.pending, "cancelled_by": by, "note": reason, "at": rfc3339(t.clock())}
        t.journal.append("maintenance_request_cancelled", data, table_id=t.table_id)
        self._forget_request()
        view = self.view() or {"on": False, "decisions": [], "pending": None}
        t.emit("maintenance", {**view, "cancelled": data})
        return view

    def _forget_request(self) -> None:
        self.pending = None
        if self._on_round in self.t.listeners:
            self.t.listeners.remove(self._on_round)

    def _on_round(self, what: str, data: dict[str, Any]) -> None:
        """The round asked about ended: maintenance comes on once the round's own ending is done (the judge
        hears of the round's end before it hears of the test round)."""
        if what != "round" or self.pending is None or data.get("state") not in ("certified", "voided"):
            return
        if self.t.schedule(0, self._apply_request) is None:
            self._apply_request()  # no event loop (replays, pure tests)

    def _apply_request(self) -> None:
        p, t = self.pending, self.t
        if p is None or self.on:
            return
        r = t.round
        if r is not None and not r.is_final:
            return  # a new round opened meanwhile (a device started it): wait for its end too
        self._forget_request()
        self._switch(p["by"], True, p["reason"], requested_at=p["requested_at"])

    def _switch(
        self, by: str, on: bool, reason: str, requested_at: str | None = None, after_restart: bool = False
    ) -> dict[str, Any]:
        t = self.t
        state: dict[str, Any] = {"on": bool(on), "by": by, "reason": reason, "since": rfc3339(t.clock())}
        if requested_at is not None:
            state["requested_at"] = requested_at
        if after_restart:
            state["after_restart"] = True
        t.journal.append("maintenance", state, table_id=t.table_id)
        self.state = state
        self.decisions.clear()
        self._test_extras = None
        if on:
            self._begin_test_round()
        else:
            t.fresh_judge()
        view = {**state, "decisions": list(self.decisions) if on else [], "pending": None}
        t.emit("maintenance", view)
        if not on:
            t.lifecycle.schedule_auto_open()
        return view

    def refusal(self) -> str | None:
        """Why no round opens (None: the table is not in maintenance and none is asked for)."""
        if self.pending is not None and not self.on:
            p = self.pending
            return (
                f"table {self.t.table_id} goes into maintenance when round {p['round_number']} ends "
                f"({p['by']}: {p['reason']}); no new round opens"
            )
        if self.state is None or not self.on:
            return None
        return (
            f"table {self.t.table_id} in maintenance: {self.state['reason']}"
            f" ({self.state['by']}); no round opens until it is turned off"
        )

    def restore(self) -> None:
        """At start-up: the table's last `maintenance` record says whether it is in maintenance."""
        t = self.t
        try:
            record = t.journal.last_record("maintenance", t.table_id)
        except Exception:
            log.exception("table %s: could not read its maintenance state from the journal", t.table_id)
            return
        if record is not None:
            self.state = {k: record.get(k) for k in ("on", "by", "reason", "since")}
            self.state["on"] = bool(self.state["on"])
            if self.on:
                self._begin_test_round()
                return
        self._restore_request(record)

    def _restore_request(self, switched: dict[str, Any] | None) -> None:
        """A request still pending when the studio stopped: its round was voided by the restart (the lifecycle
        restores first), so maintenance comes on now. A request is pending when no cancellation of it and no
        switch since it was made are journaled."""
        t = self.t
        try:
            asked = t.journal.last_record("maintenance_requested", t.table_id)
            cancelled = t.journal.last_record("maintenance_request_cancelled", t.table_id)
        except Exception:
            log.exception("table %s: could not read a pending maintenance request", t.table_id)
            return
        if asked is None or not asked.get("requested_at"):
            return
        when = asked["requested_at"]
        if cancelled is not None and cancelled.get("requested_at") == when:
            return
        if switched is not None and (
            switched.get("requested_at") == when or (switched.get("since") or "") >= when
        ):
            return
        r = t.round
        if r is not None and not r.is_final:
            return  # cannot happen after the lifecycle's restore; never end a round by this switch
        self._switch(asked["by"], True, asked["reason"], requested_at=when, after_restart=True)

    def _begin_test_round(self) -> None:
        """A dealer-paced table's judge is told a test round opened and its betting closed (nothing else is)."""
        t = self.t
        if t.pacing != "dealer":
            return  # a device-paced judge follows the device's own games
        try:
            self._test_extras = t.game.draw_extras(t.lifecycle.rng, **t.settings) or None
        except Exception:
            log.exception("table %s: draw_extras failed for a test round", t.table_id)
            self._test_extras = None
        for signal in ("round_opened", "betting_closed"):
            t.feed.feed(
                RoundSignal(
                    signal=signal,  # type: ignore[arg-type]
                    round_number=TEST_ROUND_NUMBER,
                    at=t.clock(),
                    extras=self._test_extras if signal != "round_opened" else None,
                )
            )

    def _end_test_round(self, final_state: Literal["certified", "voided"]) -> None:
        t = self.t
        if t.pacing != "dealer":
            return
        t.feed.feed(
            RoundSignal(
                signal="round_ended",
                round_number=TEST_ROUND_NUMBER,
                at=t.clock(),
                extras=self._test_extras,
                final_state=final_state,
            )
        )
        if self.on:
            self._begin_test_round()

    def decision(self, d: Decision, cause: object) -> None:
        """Journal and show what the judge would have done; do none of it."""
        t = self.t
        data: dict[str, Any] = {"decision": d.kind, **d.model_dump(mode="json", exclude={"kind"})}
        data["device_id"] = device_of(cause)
        data["cause"] = kind_of(cause)
        summary = self._summary(d, data)
        data["summary"] = summary
        data["message"] = f"Maintenance: {summary} - not published"
        t.journal.append("maintenance_decision", data, table_id=t.table_id)
        self.decisions.appendleft({"at": rfc3339(t.clock()), **data})
        t.emit("maintenance_decision", data)
        if isinstance(d, (ResultReady, Void)):
            self._end_test_round(
                "voided"
            )  # a test round is never certified: a judge carrying state forgets it

    def _summary(self, d: Decision, data: dict[str, Any]) -> str:
        game = self.t.game
        if isinstance(d, ResultReady):
            try:
                result = game.validate_result(d.result)
            except (ValueError, TypeError, KeyError) as exc:
                data["refused"] = str(exc)
                return f"test result {_result_words(d.result)} (the game refuses it: {exc})"
            data["device_result"], data["result"] = d.result, result
            try:
                data["outcome"] = game.outcome(result, self._test_extras)
            except Exception:
                log.debug("table %s: no outcome for the test result", self.t.table_id, exc_info=True)
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
