"""Typed feed messages (docs/feed.md section 2). Lenient by design: the feed only ever adds kinds and fields
in /v1, so an unknown field is kept and an unknown kind becomes an OtherMessage (verified all the same)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


class Reason(BaseModel):
    model_config = ConfigDict(extra="allow")
    code: str
    message: str


class Message(BaseModel):
    """Fields every message has."""

    model_config = ConfigDict(extra="allow", frozen=True)
    seq: int
    kind: str
    occurred_at: str
    prev_hash: str
    hash: str
    signature: str


class RoundMessage(Message):
    """A message about a round at a table."""

    table_id: str
    game: str
    round_id: str
    round_number: int
    version: int
    result: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None
    reason: Reason | None = None
    source: dict[str, Any] = {}
    commitment: dict[str, Any] | None = None
    reveal: dict[str, Any] | None = None


class Result(RoundMessage):
    """The certified result of a round: settle its bets."""

    kind: Literal["result"]
    result: dict[str, Any]


class Correction(RoundMessage):
    """The round's result was wrong: `result` replaces every earlier version. Re-settle."""

    kind: Literal["correction"]
    result: dict[str, Any]
    reason: Reason


class Void(RoundMessage):
    """The round is void: refund (and `outcome`, if set, says what the rules settle beyond that)."""

    kind: Literal["void"]
    reason: Reason


class Commitment(RoundMessage):
    """The hash of the round's computer-drawn values, published before betting closes."""

    kind: Literal["commitment"]
    commitment: dict[str, Any]


class DecisionWindow(RoundMessage):
    """A seat must decide (docs/decisions.md): answer with DecisionsClient.decide before `deadline`."""

    kind: Literal["decision_window"]
    window: str
    seat: str
    hand: int
    allowed: list[str]
    default: str
    detail: dict[str, Any]
    deadline: str


class Decision(RoundMessage):
    """A decision the rules accepted: the backend's (`by` 'backend') or the default at the deadline."""

    kind: Literal["decision"]
    window: str
    seat: str
    hand: int
    action: str
    cards: list[str]
    by: str


class BettingOpened(RoundMessage):
    """The round opened: take bets until `closes_at` (the studio's timer), or until a BettingClosed when
    `closes_at` is None (the device or the dealer closes betting)."""

    kind: Literal["betting_opened"]
    closes_at: str | None


class BettingClosed(RoundMessage):
    """No more bets for the round; its result, or its void, follows."""

    kind: Literal["betting_closed"]


class JournalHead(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)
    journal_seq: int
    journal_hash: str


class Checkpoint(Message):
    """The studio's signed statement of its journal's head; the client refuses a head that goes back."""

    kind: Literal["checkpoint"]
    head: JournalHead


class OtherMessage(Message):
    """A kind this version of the client does not know (verified and chained like the others)."""


FeedMessage = (
    Result
    | Correction
    | Void
    | Commitment
    | DecisionWindow
    | Decision
    | BettingOpened
    | BettingClosed
    | Checkpoint
    | OtherMessage
)

_BY_KIND: dict[str, type[Message]] = {
    "result": Result,
    "correction": Correction,
    "void": Void,
    "commitment": Commitment,
    "decision_window": DecisionWindow,
    "decision": Decision,
    "betting_opened": BettingOpened,
    "betting_closed": BettingClosed,
    "checkpoint": Checkpoint,
}


def parse_message(data: dict[str, Any]) -> Message:
    """The typed model of a verified message, by its kind."""
    return _BY_KIND.get(str(data.get("kind")), OtherMessage).model_validate(data)
