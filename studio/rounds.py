"""The round lifecycle, the same for every game.

A round is an immutable value; each step returns the next value or raises
`IllegalTransition` saying what was refused and why. A game never appears here:
it only decides, through its judge, which step to ask for.

    betting_open -> betting_closed -> in_play -> result_pending -> certified
         \\_____________\\_______________\\____________\\-> voided (with a reason code)

A certified round changes only by correction: a new version of the result.
A hold (the system is unsure, ask the dealer) can stand in any open state and
blocks certification until it is released.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict


class RoundState(str, Enum):
    BETTING_OPEN = "betting_open"
    BETTING_CLOSED = "betting_closed"
    IN_PLAY = "in_play"
    RESULT_PENDING = "result_pending"
    CERTIFIED = "certified"
    VOIDED = "voided"


FINAL = (RoundState.CERTIFIED, RoundState.VOIDED)

NEXT = {
    RoundState.BETTING_OPEN: RoundState.BETTING_CLOSED,
    RoundState.BETTING_CLOSED: RoundState.IN_PLAY,
    RoundState.IN_PLAY: RoundState.RESULT_PENDING,
    RoundState.RESULT_PENDING: RoundState.CERTIFIED,
}


class RoundError(ValueError):
    pass


class IllegalTransition(RoundError):
    pass


class HoldInfo(BaseModel):
    model_config = ConfigDict(frozen=True)
    code: str
    message: str


class Round(BaseModel):
    model_config = ConfigDict(frozen=True)

    round_id: str
    table_id: str
    game: str
    round_number: int
    state: RoundState = RoundState.BETTING_OPEN
    opened_at: datetime
    device_game: str | None = None
    holds: tuple[HoldInfo, ...] = ()
    result: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None
    source: dict[str, Any] | None = None
    version: int = 0
    void_code: str | None = None
    void_message: str | None = None

    @property
    def is_final(self) -> bool:
        return self.state in FINAL

    @property
    def held(self) -> bool:
        return bool(self.holds)

    def _refuse(self, action: str, why: str) -> IllegalTransition:
        return IllegalTransition(
            f"round {self.round_number} ({self.round_id}) of table {self.table_id} "
            f"is {self.state.value}: cannot {action}: {why}"
        )

    def _advance(self, target: RoundState, action: str) -> Round:
        if NEXT.get(self.state) is not target:
            expected = [s.value for s, t in NEXT.items() if t is target]
            raise self._refuse(action, f"only a round that is {' or '.join(expected)} can")
        return self.model_copy(update={"state": target})

    def close_betting(self) -> Round:
        return self._advance(RoundState.BETTING_CLOSED, "close betting")

    def start_play(self) -> Round:
        return self._advance(RoundState.IN_PLAY, "start play")

    def result_pending(
        self, result: dict[str, Any], outcome: dict[str, Any], source: dict[str, Any]
    ) -> Round:
        r = self._advance(RoundState.RESULT_PENDING, "take a result")
        return r.model_copy(update={"result": result, "outcome": outcome, "source": source})

    def certify(self) -> Round:
        if self.held:
            raise self._refuse("certify", "it is held: " + "; ".join(h.message for h in self.holds))
        r = self._advance(RoundState.CERTIFIED, "certify")
        return r.model_copy(update={"version": 1})

    def void(self, code: str, message: str) -> Round:
        if self.state is RoundState.CERTIFIED:
            raise self._refuse("void", "a certified result changes only by a correction")
        if self.state is RoundState.VOIDED:
            raise self._refuse("void", "it is voided already")
        if not code:
            raise RoundError("a void needs a reason code")
        return self.model_copy(
            update={"state": RoundState.VOIDED, "void_code": code, "void_message": message}
        )

    def hold(self, code: str, message: str) -> Round:
        if self.is_final:
            raise self._refuse("hold", "it is final")
        if any(h.code == code for h in self.holds):
            return self
        return self.model_copy(update={"holds": self.holds + (HoldInfo(code=code, message=message),)})

    def release(self, code: str) -> Round:
        return self.model_copy(update={"holds": tuple(h for h in self.holds if h.code != code)})

    def correct(self, result: dict[str, Any], outcome: dict[str, Any], source: dict[str, Any]) -> Round:
        if self.state is not RoundState.CERTIFIED:
            raise self._refuse("correct", "only a certified result can be corrected")
        if result == self.result:
            raise self._refuse("correct", "the correction equals the certified result")
        return self.model_copy(
            update={"result": result, "outcome": outcome, "source": source, "version": self.version + 1}
        )

    def projection(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
