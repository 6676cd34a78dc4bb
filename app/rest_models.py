"""What the consumer routes `/v1/tables` and `/v1/rounds/{round_id}` answer, as models for the OpenAPI: the
routes document them (and the contract tests check every answer against them) without validating each answer
on the way out, so a field added to a snapshot shows up as a failing contract test, never as an HTTP 500."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from studio.rounds import Round

__all__ = [
    "UNAUTHORIZED",
    "ErrorDetail",
    "HistoryRecord",
    "MalformedRequest",
    "RoundHistory",
    "TableSnapshot",
]


class ErrorDetail(BaseModel):
    """An HTTP error of the consumer routes (401 without a valid token, 400, 404)."""

    model_config = ConfigDict(extra="forbid")
    detail: str = Field(description="What is wrong.")


#: the OpenAPI `responses` entry of a route that takes the feed's bearer token
UNAUTHORIZED: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorDetail, "description": "no valid 'Authorization: Bearer <token>'"}
}


class Problem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    where: str = Field(description="The request part, e.g. 'path.round_id' or 'query.after'.")
    problem: str


class MalformedRequest(BaseModel):
    """HTTP 400: the request's parameters or body do not parse."""

    model_config = ConfigDict(extra="forbid")
    error: Literal["malformed request"]
    detail: list[Problem]


class HistoryRecord(BaseModel):
    """One journal record about a round."""

    model_config = ConfigDict(extra="forbid")
    journal_seq: int = Field(ge=1)
    at: str = Field(description="When it was journaled (RFC 3339, UTC).")
    kind: str = Field(description="'round_state', 'result', 'decision', 'operator', ...")
    feed_seq: int | None = Field(description="The feed seq of a record that is a feed message, else null.")
    data: dict[str, Any]


class RoundHistory(BaseModel):
    """`GET /v1/rounds/{round_id}`: the round as the journal holds it and every record about it."""

    model_config = ConfigDict(extra="forbid")
    round: Round
    history: list[HistoryRecord]


class TableSnapshot(BaseModel):
    """One table of `GET /v1/tables`."""

    model_config = ConfigDict(extra="forbid")
    table_id: str
    game: str
    pacing: Literal["device", "dealer"]
    status: Literal["running", "paused"]
    paused_reason: str | None
    round: Round | None = Field(description="The open round, or the last one; null before the first.")
    betting_seconds: float
    betting_closes_at: str | None
    commitment: str | None = Field(description="The open round's commitment hash, if it has one.")
    extras: dict[str, Any] | None = Field(
        description="The open round's computer-drawn values, after betting."
    )
    holds: list[dict[str, str]]
    late_readings: list[dict[str, Any]] = Field(
        description="Device readings that came for rounds settled by hand, newest first (docs/design.md)."
    )
    devices_reporting: list[dict[str, str]] = Field(
        description="The devices that can still report: a result by hand must declare them failed first."
    )
    opening_check: dict[str, Any]
    last_error: str | None
    maintenance: dict[str, Any] | None
    decision_windows: list[dict[str, Any]]
    judge: dict[str, Any] | None = Field(default=None, description="Games whose rules report a status only.")
    devices: list[dict[str, Any]]
