"""Player decisions (blackjack, draw poker): the decision windows a judge opens, their timers and the answers.

A judge asks with `AskDecision`: the table journals the window, publishes it on the feed and times it. An answer
comes from the betting backend (`decide`, the decisions API) or, when the window runs out, is the rules' default;
either way the judge decides (DecisionTaken or DecisionRefused) and the table journals and publishes what it
decided. A refused answer goes back to the backend with its code and is journaled with what was sent.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from recognition.game import AskDecision, DecisionRefused, DecisionTaken, PlayerDecision

from .journal import Committed, rfc3339

if TYPE_CHECKING:
    from .table import Table


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


class Decisions:
    def __init__(self, table: Table, *, has_decisions: bool, decision_seconds: float) -> None:
        self.t = table
        self.has_decisions = has_decisions
        self.decision_seconds = decision_seconds
        #: the open round's open windows, each with its timer
        self.windows: dict[str, DecisionWindow] = {}
        self._answering: tuple[str, dict[str, Any] | str | None] | None = (
            None  # (client, body) being answered
        )
        self._answer: tuple[DecisionTaken, Future[Committed]] | DecisionRefused | None = None

    def open_window(self, d: AskDecision) -> None:
        t = self.t
        r = t.lifecycle.current("open a decision window")
        if d.window in self.windows:
            t.note("window_reopened", f"the rules asked again for the open window {d.window}; ignored")
            return
        deadline = t.clock() + timedelta(seconds=self.decision_seconds)
        message = t.lifecycle.message(
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
        t.journal.append_feed(message, checked=True)
        w.timer = t.schedule(self.decision_seconds, partial(self._window_timeout, r.round_id, d.window))
        t.emit("decision_window", w.as_dict())

    def taken(self, d: DecisionTaken) -> None:
        t = self.t
        r = t.lifecycle.current("take a decision")
        w = self.windows.pop(d.window, None)
        if w is not None and w.timer is not None:
            w.timer.cancel()
        if d.by == "default":
            source: dict[str, Any] = {"type": "timer"}
        else:
            client = self._answering[0] if self._answering else None
            source = {"type": "backend", "consumer": client} if client else {"type": "backend"}
        message = t.lifecycle.message(
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
                self.judge_refused(refused)
            return
        committed = t.journal.append_feed(message, checked=True)
        if self._answering is not None and self._answer is None:
            self._answer = (d, committed)
        t.emit("decision", {k: message[k] for k in ("window", "seat", "hand", "action", "cards", "by")})

    def judge_refused(self, d: DecisionRefused) -> None:
        if self._answering is not None and self._answer is None:
            self._answer = d
            client, body = self._answering
        else:
            client, body = None, None
        self.refuse(client, body, d.code, d.message)

    def refuse(
        self,
        client: str | None,
        body: dict[str, Any] | str | None,
        code: str,
        message: str,
        status: int = 409,
    ) -> None:
        """Journal a refused decision (`decision_refused`) with who sent it and what they sent."""
        t = self.t
        data = {"client": client, "body": body, "code": code, "message": message, "status": status}
        t.journal.append("decision_refused", data, table_id=t.table_id, round_id=t.lifecycle.open_round_id())
        t.emit("decision_refused", data)

    def close_windows(self) -> None:
        for w in self.windows.values():
            if w.timer is not None:
                w.timer.cancel()
        self.windows.clear()

    def _window_timeout(self, round_id: str, window: str) -> None:
        t = self.t
        w = self.windows.get(window)
        r = t.round
        if w is None or w.round_id != round_id or r is None or r.round_id != round_id or r.is_final:
            return
        early = (w.deadline - t.clock()).total_seconds()
        if early > 0:  # the loop's timer may fire a little early: never apply a default before its deadline
            w.timer = t.schedule(early + 0.001, lambda: self._window_timeout(round_id, window))
            return
        pd = PlayerDecision(
            round_number=r.round_number,
            seat=w.seat,
            hand=w.hand,
            action=w.default,
            window=window,
            by="default",
            at=t.clock(),
        )

        def run() -> None:
            if self.windows.get(window) is not w:
                return  # answered while the events ahead were prepared
            try:
                self._ask_judge(pd, "timer", {"window": window, "action": w.default})
            except DecisionError as exc:
                self.windows.pop(window, None)
                t.holds.hold(
                    "default_refused",
                    f"The rules refused the default {w.default!r} for {window}: {exc.message}",
                )

        t.feed.in_order(run)

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
        if self.t.feed.busy:  # device events ahead of it are still being prepared
            loop = asyncio.get_running_loop()
            answer: asyncio.Future[tuple[DecisionTaken, Future[Committed]]] = loop.create_future()

            def run() -> None:
                try:
                    out = self.decide_now(round_id, seat, hand, action, cards, window, by_client, body)
                except Exception as exc:  # noqa: BLE001 - handed to the caller awaiting the answer
                    if not answer.done():
                        answer.set_exception(exc)
                else:
                    if not answer.done():
                        answer.set_result(out)

            self.t.feed.in_order(run)
            taken, committed = await answer
        else:
            taken, committed = self.decide_now(round_id, seat, hand, action, cards, window, by_client, body)
        done = await asyncio.wrap_future(committed)
        assert done.feed_seq is not None  # the record of a feed message has its seq
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
    ) -> tuple[DecisionTaken, Future[Committed]]:
        """`decide` without waiting: (the decision taken, the future of its journal record)."""
        t = self.t
        if body is None:
            body = {
                "round_id": round_id,
                "seat": seat,
                "hand": hand,
                "action": action,
                "cards": list(cards),
                "window": window,
            }
        r = t.round
        if not self.has_decisions:
            why = f"table {t.table_id} plays {t.game.game_id}, which takes no player decisions"
            self.refuse(by_client, body, "no_decisions", why)
            raise DecisionError("no_decisions", why)
        if r is None or r.is_final or r.round_id != round_id:
            current = (
                f"its open round is {r.round_id} (round {r.round_number})"
                if r is not None and not r.is_final
                else "it has no open round"
            )
            why = f"round {round_id} is not open at table {t.table_id}: {current}"
            self.refuse(by_client, body, "no_round", why)
            raise DecisionError("no_round", why)
        pd = PlayerDecision(
            round_number=r.round_number,
            seat=seat,
            hand=hand,
            action=action,
            cards=tuple(cards),
            window=window,
            by="backend",
            at=t.clock(),
        )
        return self._ask_judge(pd, by_client, body)

    def _ask_judge(
        self, pd: PlayerDecision, client: str, body: dict[str, Any] | str | None
    ) -> tuple[DecisionTaken, Future[Committed]]:
        self._answering, self._answer = (client, body), None
        try:
            self.t.feed.feed_now(pd, pd)
            answer = self._answer
        finally:
            self._answering, self._answer = None, None
        if isinstance(answer, DecisionRefused):
            raise DecisionError(answer.code, answer.message)
        if answer is None:
            why = "the game rules gave no answer to the decision"
            self.refuse(client, body, "judge_error", why, status=500)
            raise DecisionError("judge_error", why, status=500)
        return answer

    def view(self) -> dict[str, Any]:
        """The open round's open decision windows (GET /v1/tables/{id}/decisions)."""
        t = self.t
        r = t.round
        open_round = r if r is not None and not r.is_final else None
        return {
            "table_id": t.table_id,
            "game": t.game.game_id,
            "decisions": self.has_decisions,
            "decision_seconds": self.decision_seconds,
            "round_id": open_round.round_id if open_round else None,
            "round_number": open_round.round_number if open_round else None,
            "state": open_round.state.value if open_round else None,
            "windows": [w.as_dict() for w in self.windows.values()],
        }
