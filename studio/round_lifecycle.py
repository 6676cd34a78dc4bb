"""A table's round lifecycle: open, close betting, play, result, certify or void.

Every step is journaled as the round's projection with the step ("round_state"); a certified result, a void
and a correction are feed messages, checked before anything is journaled. Computer-drawn values of a round
(lightning multipliers) are drawn when it opens and committed on the feed by their hash; they are revealed with
the result or the void. A round the studio finds open at start-up is voided, never guessed. What people do to
a round (open it, void it, enter or correct a result) is round_actions.py.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from recognition.game import RoundSignal
from streaming.canonical import commitment_hash

from .journal import check_feed_message, rfc3339
from .rounds import HoldInfo, Round, RoundError, RoundState
from .video import reference

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger(__name__)

COMMITMENT_SCHEME = "sha256-canonical-json-v1"


@dataclass
class Draw:
    """Computer-drawn values of the open round, secret until the round ends."""

    extras: dict[str, Any]
    nonce: str
    hash: str


class RoundLifecycle:
    def __init__(self, table: Table) -> None:
        self.t = table
        self.round: Round | None = None
        self.draw: Draw | None = None
        self.last_round_number = 0
        self.betting_closes_at: datetime | None = None
        self.rng = secrets.SystemRandom()

    def restore(self) -> None:
        """At start-up: the table's last round; one left open is voided (we cannot know what happened)."""
        t = self.t
        last = t.journal.last_round(t.table_id)
        if last is None:
            return
        self.last_round_number = last["round_number"]
        previous = Round.model_validate(last)
        self.round = previous
        if previous.is_final:
            self.signal("round_ended")  # a judge that carries state across rounds picks it up here
        else:
            self.draw = self.stored_draw(previous.round_id)
            self.void(
                "studio_restart",
                "The studio restarted during this round; it is void and stakes are returned.",
                {"type": "studio", "reason": "restart"},
            )

    def stored_draw(self, round_id: str) -> Draw | None:
        for rec in self.t.journal.round_records(round_id):
            if rec["kind"] == "draw_secret":
                d = rec["data"]
                return Draw(d["extras"], d["nonce"], commitment_hash(round_id, d["extras"], d["nonce"]))
        return None

    def current(self, action: str) -> Round:
        if self.round is None or self.round.is_final:
            raise RoundError(f"table {self.t.table_id} has no open round: cannot {action}")
        return self.round

    def open_round_id(self) -> str | None:
        return self.round.round_id if self.round and not self.round.is_final else None

    def signal(self, signal: Literal["round_opened", "betting_closed", "round_ended"]) -> None:
        r = self.round
        if r is None:
            return
        if signal == "round_ended":
            self.t.readings.deferred = None
        ended = signal == "round_ended" and r.is_final
        certified = ended and r.state is RoundState.CERTIFIED
        self.t.feed.feed(
            RoundSignal(
                signal=signal,
                round_number=r.round_number,
                at=self.t.clock(),
                extras=self.draw.extras if self.draw and signal != "round_opened" else None,
                final_state=r.state.value if ended else None,  # type: ignore[arg-type]
                result=r.result if certified else None,
                outcome=r.outcome if certified else None,
            )
        )

    # --- the steps ---------------------------------------------------------------------------

    def open_round(self, device_game: str | None, by: str | None = None) -> Round:
        t = self.t
        if t.maintenance.on:
            raise RoundError(f"table {t.table_id} in maintenance: no round opens")
        if t.closing or t.stopped:
            raise RoundError(f"table {t.table_id} is stopping: no round opens")
        t.readings.end_round(next_round=True)
        if self.round is not None and not self.round.is_final:
            why = "The device started a new game before this round ended."
            if t.holds.released:
                why += " The round had been held: " + "; ".join(t.holds.released)
            self.void("superseded", why, t.slots.source({}))
        t.holds.released = []
        self.last_round_number += 1
        r = Round(
            round_id=str(uuid.uuid4()),
            table_id=t.table_id,
            game=t.game.game_id,
            round_number=self.last_round_number,
            opened_at=t.clock(),
            device_game=device_game,
            holds=tuple(HoldInfo(code=c, message=m) for c, m in t.holds.table_holds.items()),
        )
        self.draw = None
        self.step(r, "open_round", by=by)
        self._commit_extras(r)
        if t.pacing == "dealer" and t.betting_seconds > 0:
            self.betting_closes_at = t.clock() + timedelta(seconds=t.betting_seconds)
            t.schedule(t.betting_seconds, partial(self._betting_timer, r.round_id))
        closes_at = rfc3339(self.betting_closes_at) if self.betting_closes_at else None
        self.announce_betting("betting_opened", r, by, {"closes_at": closes_at})
        self.signal("round_opened")
        return r

    def announce_betting(
        self, kind: str, r: Round, by: str | None, fields: dict[str, Any] | None = None
    ) -> None:
        """Tell the feed that betting opened or closed (after the commitment, before any decision window).

        Information only: a message that cannot be published is refused and logged; it never holds the round,
        so what is certified stays what it would have been without it."""
        t = self.t
        if by is None:
            source = t.slots.source({})
        elif by == "timer":
            source = {"type": "timer"}
        else:
            source = {"type": "manual", "people": [by]}
        message = self.message(kind, r, source=source, fields=fields, hold=False)
        if message is not None:
            t.journal.append_feed(message, checked=True)

    def _commit_extras(self, r: Round) -> None:
        """Draw the round's computer-drawn values now and publish their hash before betting can close."""
        t = self.t
        try:
            extras = t.game.draw_extras(self.rng, **t.settings)
        except Exception as exc:
            log.exception("table %s: draw_extras failed", t.table_id)
            t.holds.hold("draw_failed", f"The computer draw for this round failed: {exc}")
            return
        if not extras:
            return
        nonce = secrets.token_hex(32)
        self.draw = Draw(extras, nonce, commitment_hash(r.round_id, extras, nonce))
        # the secret goes to the journal (so a restart can still reveal it) but never to the feed before the end
        t.journal.append(
            "draw_secret", {"extras": extras, "nonce": nonce}, table_id=t.table_id, round_id=r.round_id
        )
        message = self.message(
            "commitment",
            r,
            commitment={"hash": self.draw.hash, "scheme": COMMITMENT_SCHEME},
            source={"type": "studio_rng", "generator": "secrets.SystemRandom"},
        )
        if message is not None:
            t.journal.append_feed(message, checked=True)

    def close_betting(self, by: str | None) -> None:
        r = self.current("close betting")
        self.betting_closes_at = None
        self.step(r.close_betting(), "close_betting", by=by)
        self.announce_betting("betting_closed", r, by)
        if self.t.pacing == "dealer":
            self.step(self.current("start play").start_play(), "start_play")
            self.signal("betting_closed")

    def _betting_timer(self, round_id: str) -> None:
        r = self.round
        if r is not None and r.round_id == round_id and r.state is RoundState.BETTING_OPEN:
            self.t.apply_action(lambda: self.close_betting(by="timer"))

    def schedule_auto_open(self) -> None:
        """A dealer-paced table with auto rounds opens its next round after `auto_round_seconds`."""
        t = self.t
        if t.pacing == "dealer" and t.auto_round_seconds is not None:
            t.schedule(t.auto_round_seconds, self._auto_open)

    def _auto_open(self) -> None:
        t = self.t
        if t.maintenance.on:
            return  # paused: turning maintenance off starts the timer again
        if self.round is None or self.round.is_final:
            if t.slots.lost or not t.opening.passed:
                t.schedule(1.0, self._auto_open)  # wait for the devices to come back
                return
            t.apply_action(lambda: self.open_round(None, by="timer"))

    def step(self, r: Round, transition: str, by: str | None = None) -> None:
        t = self.t
        self.round = r
        data = r.projection()
        data["transition"] = transition
        if by is not None:
            data["by"] = by
        # the record is the round's projection plus the step keys: the journal stores its text once for both
        t.journal.append("round_state", data, table_id=t.table_id, round_id=r.round_id, round_projection=data)
        t.emit("round", data)
        if r.is_final:
            t.decisions.close_windows()
            if not t.readings.defer_end(r):  # a round settled by hand: the judge may still read the device
                self.signal("round_ended")
            self.betting_closes_at = None
            self.schedule_auto_open()

    def take_result(self, result: dict[str, Any], source: dict[str, Any]) -> None:
        t = self.t
        r = self.current("take a result")
        try:
            result = t.game.validate_result(result)
            outcome = t.game.outcome(result, self.draw.extras if self.draw else None)
        except ValueError as exc:
            t.holds.hold("invalid_result", f"The device reported a result the game does not allow: {exc}")
            return
        self.step(r.result_pending(result, outcome, source), "result_pending")
        self.try_certify()

    def try_certify(self) -> None:
        r = self.round
        if r is None or r.state is not RoundState.RESULT_PENDING or r.held:
            return
        r = r.certify()
        message = self.message("result", r)
        if message is None:
            return
        self.step(r, "certify")
        self.t.journal.append_feed(message, checked=True)

    def void(self, code: str, message: str, source: dict[str, Any], by: str | None = None) -> None:
        r = self.round
        assert r is not None
        r = r.void(code, message)
        feed = self.message(
            "void",
            r,
            reason={"code": code, "message": message},
            source=source,
            outcome=self.t.game.void_terms(code),
        )
        if feed is None:
            return
        self.step(r, "void", by=by)
        self.t.journal.append_feed(feed, checked=True)

    def message(
        self,
        kind: str,
        r: Round,
        *,
        reason: dict[str, str] | None = None,
        source: dict[str, Any] | None = None,
        commitment: dict[str, str] | None = None,
        fields: dict[str, Any] | None = None,
        outcome: dict[str, Any] | None = None,
        hold: bool = True,
    ) -> dict[str, Any] | None:
        """The feed message for a round, checked before anything is journaled; None (and the round held) if bad.

        `fields`: the fields only one kind has (window, seat, hand, ... of the decision kinds, closes_at of a
        'betting_opened'); `outcome`: a void's terms (the game's `void_terms`), where the game settles more than
        the bets returned; `hold=False`: a bad message is refused without holding the round."""
        t = self.t
        current = self.round is not None and self.round.round_id == r.round_id
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
                if kind in ("result", "void") and self.draw and current
                else None
            ),
            **(fields or {}),
        }
        now = t.clock()
        message["occurred_at"] = rfc3339(now)
        if t.video is not None:
            message["video"] = reference(now, t.video)
        try:
            check_feed_message(message)
        except ValueError as exc:
            log.error("table %s: refused to publish: %s", t.table_id, exc)
            if hold and self.round is not None and not self.round.is_final:
                t.holds.hold("invalid_message", f"The {kind} could not be published: {exc}")
            else:
                t.refused(kind, str(exc))
            return None
        return message

    def current_or_last(self) -> Round:
        """The round after a step a person took (it may have ended it)."""
        assert self.round is not None
        return self.round
