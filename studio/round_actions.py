"""What people do to a table's round (the console's services): open it, void it, enter a result by hand,
correct a certified one. Each is checked (pacing, maintenance, four eyes) and journaled with who did it; the
round's steps themselves are the lifecycle's (round_lifecycle.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .rounds import Round, RoundError, RoundState

if TYPE_CHECKING:
    from .round_lifecycle import RoundLifecycle


def four_eyes(by: str, approved_by: str | None, what: str) -> None:
    if not approved_by:
        raise RoundError(f"{what} needs a supervisor's approval (four eyes)")
    if approved_by == by:
        raise RoundError(f"{what} needs a second person: {by} cannot approve their own action")


class RoundActions:
    def __init__(self, lifecycle: RoundLifecycle) -> None:
        self.lc = lifecycle
        self.t = lifecycle.t

    def open_round_by(self, by: str) -> Round:
        t = self.t
        if t.pacing != "dealer":
            raise RoundError(f"table {t.table_id} plays {t.game.game_id}: its device opens the rounds")
        if self.lc.round is not None and not self.lc.round.is_final:
            raise RoundError(f"round {self.lc.round.round_number} of table {t.table_id} is still open")
        refusal = t.maintenance.refusal() or (
            f"table {t.table_id} is paused: {t.paused_reason}" if t.slots.lost else t.opening.refusal()
        )
        if refusal is not None:
            raise RoundError(refusal)
        t.operator("open_round", by)
        return self.lc.open_round(None, by=by)

    def void_by(
        self,
        code: str,
        message: str,
        by: str,
        approved_by: str | None = None,
        started_in_betting: bool = False,
    ) -> Round:
        """`started_in_betting`: the dealer started this void while betting was open (the console checked it),
        so it needs no supervisor even if betting closed meanwhile; the journal says so."""
        r = self.lc.current("void")
        late = r.state is not RoundState.BETTING_OPEN
        if late and not started_in_betting:
            four_eyes(by, approved_by, "a void after betting closed")
        extra = (
            {"started_in": "betting_open", "state_at_void": r.state.value}
            if late and started_in_betting
            else {}
        )
        self.t.operator("void", by, approved_by, code=code, message=message, **extra)
        people = [p for p in (by, approved_by) if p]
        self.lc.void(code, message, {"type": "manual", "people": people}, by=by)
        return self.lc.current_or_last()

    def manual_result(
        self,
        result: dict[str, Any],
        by: str,
        approved_by: str | None,
        reason: str,
        device_failed: str | None = None,
    ) -> Round:
        """A result entered by people; refused while a device can still report, unless `device_failed` (why)
        declares it failed for this round (late_readings.py)."""
        four_eyes(by, approved_by, "a manual result")
        t = self.t
        r = self.lc.current("enter a result")
        result = t.game.validate_result(result)
        outcome = t.game.outcome(result, self.lc.draw.extras if self.lc.draw else None)
        t.readings.check_manual(r, by, approved_by, device_failed)
        t.operator("manual_result", by, approved_by, result=result, reason=reason)
        if r.state is RoundState.BETTING_OPEN:
            r = r.close_betting()
            self.lc.step(r, "close_betting", by=by)
            self.lc.announce_betting("betting_closed", r, by)
        if r.state is RoundState.BETTING_CLOSED:
            r = r.start_play()
            self.lc.step(r, "start_play", by=by)
        for h in r.holds:
            r = r.release(h.code)
        if r.state is RoundState.RESULT_PENDING:
            raise RoundError("the round already has a result waiting; release its hold or void it instead")
        self.lc.step(
            r.model_copy(update={"holds": ()}).result_pending(
                result, outcome, {"type": "manual", "people": [by, approved_by], "reason": reason}
            ),
            "result_pending",
            by=by,
        )
        self.lc.try_certify()
        if self.lc.round is not None and self.lc.round.state is RoundState.CERTIFIED:
            t.readings.settled(self.lc.round)
        return self.lc.current_or_last()

    def correct(
        self,
        round_id: str,
        result: dict[str, Any],
        *,
        approved_by: list[str],
        reason: str,
        readings: dict[str, Any] | None = None,
    ) -> Round:
        """A new version of a certified result (`readings`: a late device reading's and the manual result's, when
        the correction settles one; they go into the correction's source)."""
        t = self.t
        current = self.lc.round is not None and self.lc.round.round_id == round_id
        if self.lc.round is not None and current:
            r = self.lc.round
        else:
            stored = t.journal.get_round(round_id)
            if stored is None or stored["table_id"] != t.table_id:
                raise RoundError(f"table {t.table_id} has no round {round_id}")
            r = Round.model_validate(stored)
        if len(set(approved_by)) < 2:
            raise RoundError("a correction needs two different people (four eyes)")
        result = t.game.validate_result(result)
        source: dict[str, Any] = {"type": "manual", "people": list(approved_by), "reason": reason}
        if readings is not None:
            source["readings"] = readings
        draw = self.lc.draw if current else self.lc.stored_draw(round_id)
        r = r.correct(result, t.game.outcome(result, draw.extras if draw else None), source)
        message = self.lc.message(
            "correction", r, reason={"code": "correction", "message": reason}, source=source
        )
        if message is None:
            raise RoundError("the correction could not be published")
        t.operator("correct", approved_by[0], approved_by[1], round_id=round_id, result=result, reason=reason)
        if current:
            self.lc.round = r
        data = r.projection()
        data["transition"] = "correct"
        t.journal.append(
            "round_state", data, table_id=t.table_id, round_id=r.round_id, round_projection=r.projection()
        )
        t.journal.append_feed(message, checked=True)
        t.emit("round", data)
        return r
