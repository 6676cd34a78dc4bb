"""The decisions API: the betting backend tells the studio what each player decided (docs/decisions.md).

    POST /v1/tables/{table_id}/decisions   a decision for the table's open round (decision tokens only)
    GET  /v1/tables/{table_id}/decisions   the open round's open decision windows (any consumer token)

Every refusal from a known token is journaled (`decision_refused`: the client, what it sent, the code and the
message); an accepted decision is answered only once its signed "decision" feed message is durable.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from .table import DecisionError

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # pragma: no cover
    from .config import Consumer
    from .service import Studio

#: a decision body is small; anything bigger is refused unread
MAX_BODY = 16 * 1024
#: how much of a refused body the journal keeps
JOURNALED_BODY = 4096


class DecisionRequest(BaseModel):
    """The body of `POST /v1/tables/{table_id}/decisions`."""

    model_config = ConfigDict(extra="forbid")

    round_id: StrictStr = Field(min_length=1, max_length=64, description="the open round (from the feed)")
    seat: StrictStr = Field(
        min_length=1, max_length=64, description="the seat, as the decision window names it"
    )
    hand: StrictInt = Field(1, ge=1, le=99, description="the seat's hand: 1, or 2, 3, ... after splits")
    action: StrictStr = Field(min_length=1, max_length=64, description="hit, stand, double, split, sit, ...")
    cards: list[StrictStr] = Field(
        default_factory=list, max_length=52, description="draw poker: the cards discarded"
    )
    window: StrictStr | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="the window answered (recommended: a late answer is refused "
        "instead of applied to the hand's next window)",
    )


class DecisionRefusal(BaseModel):
    """Every refusal of the decisions API (401, 403, 404, 409, 413, 422, 503): docs/decisions.md lists the codes."""

    model_config = ConfigDict(extra="forbid")
    code: str
    message: str
    problems: list[dict[str, str]] | None = Field(
        None, description="422 only: what did not parse, and where."
    )


class AcceptedDecision(BaseModel):
    model_config = ConfigDict(extra="forbid")
    round_id: str
    window: str
    seat: str
    hand: int
    action: str
    cards: list[str]
    by: str


class DecisionAccepted(BaseModel):
    """HTTP 200 of the POST: the decision, once its signed feed message is durable at `feed_seq`."""

    model_config = ConfigDict(extra="forbid")
    decision: AcceptedDecision
    feed_seq: int


class OpenWindow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    window: str
    seat: str
    hand: int
    allowed: list[str]
    default: str
    detail: dict[str, Any]
    deadline: str


class DecisionsView(BaseModel):
    """HTTP 200 of the GET: the open round's open decision windows."""

    model_config = ConfigDict(extra="forbid")
    table_id: str
    game: str
    decisions: bool
    decision_seconds: float
    round_id: str | None
    round_number: int | None
    state: str | None
    windows: list[OpenWindow]


def _refusals(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": DecisionRefusal, "description": "refused"} for status in statuses}


#: the POST reads its body itself (to journal what a refused client sent): the OpenAPI names it here
_REQUEST_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": DecisionRequest.model_json_schema()}},
    }
}


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status, headers=headers)


def _problems(exc: ValidationError) -> list[dict[str, str]]:
    return [
        {"where": ".".join(str(p) for p in e["loc"]) or "(body)", "problem": e["msg"]} for e in exc.errors()
    ]


def decisions_router(studio: Studio) -> APIRouter:
    router = APIRouter()

    def who(request: Request) -> Consumer | None:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        return studio.consumer(token.strip())

    def journal_unknown_table(consumer: Consumer, table_id: str, body: str) -> None:
        try:
            studio.journal.append(
                "decision_refused",
                {
                    "client": consumer.name,
                    "table": table_id[:100],
                    "body": body,
                    "code": "unknown_table",
                    "message": f"no table {table_id}",
                    "status": 404,
                },
            )
        except Exception as exc:  # noqa: BLE001 - a failed journal must not change the 404 the client gets
            log.error("could not journal a decision for the unknown table %r: %s", table_id[:100], exc)

    @router.post(
        "/v1/tables/{table_id}/decisions",
        tags=["decisions"],
        response_model=None,
        openapi_extra=_REQUEST_BODY,
        responses={
            200: {"model": DecisionAccepted, "description": "taken"},
            **_refusals(401, 403, 404, 409, 413, 422, 503),
        },
    )
    async def post_decision(table_id: str, request: Request) -> JSONResponse:
        consumer = who(request)
        if consumer is None:
            return _error(401, "unauthorized", "a valid 'Authorization: Bearer <token>' header is required")
        raw = await request.body()
        text = raw[:JOURNALED_BODY].decode("utf-8", errors="replace")
        table = studio.tables.get(table_id)
        if table is None:
            journal_unknown_table(consumer, table_id, text)
            return _error(404, "unknown_table", f"no table {table_id}")
        if not consumer.may_decide(table_id):
            message = f"this token may not post decisions for table {table_id}"
            table.decisions.refuse(consumer.name, text, "forbidden", message, status=403)
            return _error(403, "forbidden", message)
        if len(raw) > MAX_BODY:
            message = f"the body is {len(raw)} bytes; a decision is at most {MAX_BODY}"
            table.decisions.refuse(consumer.name, text, "too_large", message, status=413)
            return _error(413, "too_large", message)
        try:
            data = json.loads(raw)
        except ValueError as exc:
            message = f"the body is not JSON: {exc}"
            table.decisions.refuse(consumer.name, text, "malformed", message, status=422)
            return _error(422, "malformed", message, problems=[{"where": "(body)", "problem": str(exc)}])
        try:
            req = DecisionRequest.model_validate(data)
        except ValidationError as exc:
            problems = _problems(exc)
            message = "; ".join(f"{p['where']}: {p['problem']}" for p in problems)
            table.decisions.refuse(consumer.name, text, "malformed", message, status=422)
            return _error(422, "malformed", message, problems=problems)
        body = req.model_dump()
        try:
            accepted = await table.decisions.decide(
                req.round_id,
                req.seat,
                req.hand,
                req.action,
                tuple(req.cards),
                req.window,
                by_client=consumer.name,
                body=body,
            )
        except DecisionError as exc:
            return _error(exc.status, exc.code, exc.message)
        except Exception as exc:  # noqa: BLE001 - the journal failed or closed: nothing was taken durably
            return _error(503, "unavailable", f"the studio could not record the decision: {exc}")
        d = accepted.decision
        return JSONResponse(
            {
                "decision": {
                    "round_id": req.round_id,
                    "window": d.window,
                    "seat": d.seat,
                    "hand": d.hand,
                    "action": d.action,
                    "cards": list(d.cards),
                    "by": d.by,
                },
                "feed_seq": accepted.feed_seq,
            }
        )

    @router.get(
        "/v1/tables/{table_id}/decisions",
        tags=["decisions"],
        response_model=None,
        responses={200: {"model": DecisionsView, "description": "the open windows"}, **_refusals(401, 404)},
    )
    async def open_windows(table_id: str, request: Request) -> JSONResponse:
        if who(request) is None:
            return _error(401, "unauthorized", "a valid 'Authorization: Bearer <token>' header is required")
        table = studio.tables.get(table_id)
        if table is None:
            return _error(404, "unknown_table", f"no table {table_id}")
        return JSONResponse(table.decisions.view())

    return router
