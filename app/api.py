"""The studio's HTTP and WebSocket surface: the results feed, the decisions API, the round queries and the
console."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse

from dealer_ui import console_router
from dealer_ui.dice import router as dice_router
from streaming.feed import feed_router
from studio.consumer_guard import ConsumerGuard
from studio.decisions_api import decisions_router
from studio.service import Studio
from studio.throttle import Throttle

from .limits import BodyLimit
from .operations import add_docs, add_operations
from .statistics_api import statistics_router


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

    @app.get("/v1/rounds/{round_id}", dependencies=[Depends(consumer)])
    async def get_round(round_id: str) -> dict[str, Any]:
        try:
            uuid.UUID(round_id)
        except ValueError:
            raise HTTPException(400, f"{round_id!r} is not a round id (a UUID)") from None
        found = await asyncio.to_thread(studio.round_history, round_id)
        if found is None:
            raise HTTPException(404, f"no round {round_id}")
        return found

    @app.get("/v1/tables", dependencies=[Depends(consumer)])
    async def tables() -> list[dict[str, Any]]:
        return studio.table_snapshots()

    app.include_router(statistics_router(studio, consumer))

    # last, so outermost: no other middleware or route reads a body before its size is checked
    settings = studio.config.studio
    app.add_middleware(BodyLimit, max_body=settings.max_body_bytes, max_upload=settings.max_upload_bytes)
    return app
