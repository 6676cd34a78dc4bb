"""The studio's HTTP and WebSocket surface: the results feed, the decisions API, the round queries and the
console."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse

from dealer_ui import console_router
from dealer_ui.dice import router as dice_router
from streaming.asyncapi import asyncapi_document
from streaming.feed import feed_router
from studio.consumer_guard import ConsumerGuard
from studio.decisions_api import decisions_router
from studio.service import Studio
from studio.throttle import Throttle

from .limits import BodyLimit
from .operations import add_docs, add_operations
from .rest_models import UNAUTHORIZED, ErrorDetail, MalformedRequest, RoundHistory, TableSnapshot
from .statistics_api import statistics_router


def _malformed_is_400(app: FastAPI) -> None:
    """The OpenAPI says what `bad_request` answers: a malformed request is a 400 `MalformedRequest`, not the
    422 FastAPI documents by default."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = generate()
        bad = {
            "description": "malformed request",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MalformedRequest"}}},
        }
        for path in schema.get("paths", {}).values():
            for operation in path.values():
                responses = operation.get("responses", {})
                if "HTTPValidationError" in json.dumps(responses.get("422", {})):
                    del responses["422"]
                    responses.setdefault("400", bad)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            components.pop(name, None)
        components["MalformedRequest"] = MalformedRequest.model_json_schema(
            ref_template="#/components/schemas/{model}"
        )
        components.update(components["MalformedRequest"].pop("$defs", {}))
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def create_app(studio: Studio, *, consumer_throttle: Throttle | None = None) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        studio.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            await asyncio.to_thread(studio.stop)

    app = FastAPI(title="studio", version="1", lifespan=lifespan, docs_url=None, redoc_url=None)
    add_docs(app)
    app.state.studio = studio

    def journal(kind: str, data: dict[str, Any]) -> None:
        studio.journal.append(kind, data)

    app.add_middleware(ConsumerGuard, authorize=studio.authorize, throttle=consumer_throttle, journal=journal)
    app.include_router(
        feed_router(studio.hub, authorize=studio.authorize, public_key_b64=studio.public_key_b64)
    )
    app.include_router(decisions_router(studio))
    console = console_router(studio)
    app.include_router(console)
    app.include_router(dice_router(studio, console))
    add_operations(app, studio)

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse("/console/", status_code=307)

    def consumer(request: Request) -> None:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token or not studio.authorize(token.strip()):
            raise HTTPException(
                401,
                "a valid 'Authorization: Bearer <token>' header is required",
                headers={"WWW-Authenticate": "Bearer"},
            )

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"where": ".".join(str(p) for p in e["loc"]), "problem": e["msg"]} for e in exc.errors()]
        return JSONResponse({"error": "malformed request", "detail": errors}, status_code=400)

    @app.get(
        "/v1/rounds/{round_id}",
        dependencies=[Depends(consumer)],
        response_model=None,
        responses={
            200: {"model": RoundHistory, "description": "the round and every journal record about it"},
            400: {"model": ErrorDetail, "description": "not a round id (a UUID)"},
            404: {"model": ErrorDetail, "description": "no such round"},
            **UNAUTHORIZED,
        },
    )
    async def get_round(round_id: str) -> dict[str, Any]:
        try:
            uuid.UUID(round_id)
        except ValueError:
            raise HTTPException(400, f"{round_id!r} is not a round id (a UUID)") from None
        found = await asyncio.to_thread(studio.round_history, round_id)
        if found is None:
            raise HTTPException(404, f"no round {round_id}")
        return found

    @app.get(
        "/v1/tables",
        dependencies=[Depends(consumer)],
        response_model=None,
        responses={200: {"model": list[TableSnapshot], "description": "every table"}, **UNAUTHORIZED},
    )
    async def tables() -> list[dict[str, Any]]:
        return studio.table_snapshots()

    app.include_router(statistics_router(studio, consumer))
    asyncapi = asyncapi_document()

    @app.get("/asyncapi.json", include_in_schema=False)
    async def get_asyncapi() -> JSONResponse:
        """The feed's AsyncAPI 3.0 document (docs/asyncapi.json), as /openapi.json is the HTTP routes'."""
        return JSONResponse(asyncapi)

    _malformed_is_400(app)

    # last, so outermost: no other middleware or route reads a body before its size is checked
    settings = studio.config.studio
    app.add_middleware(BodyLimit, max_body=settings.max_body_bytes, max_upload=settings.max_upload_bytes)
    return app
