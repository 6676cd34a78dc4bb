"""The operators' routes: `/v1/health`, `/metrics`, and the timing of the decisions API (docs/operations.md)."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from studio.health import Health, studio_health
from studio.metrics import CONTENT_TYPE
from studio.service import Studio

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGI = Callable[
    [Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]
]

#: Swagger UI's and ReDoc's files, as the fastapi-offline package ships them
DOCS_ASSETS = Path(fastapi_offline.__file__).parent / "static"
#: the docs pages may load nothing from elsewhere: ReDoc's bundle would still fetch its vendor's logo from a CDN
DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'"
)

_DECISIONS = re.compile(r"/v1/tables/[^/]+/decisions")


class DecisionTimer:
    """Times `POST /v1/tables/{id}/decisions` from the request to the answer's start, by status code; every
    other request passes untouched."""

    def __init__(self, app: ASGI, *, studio: Studio) -> None:
        self.app = app
        self.histogram = studio.metrics.decisions

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or not _DECISIONS.fullmatch(scope["path"])
        ):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = "500"

        async def timed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = str(message["status"])
                self.histogram.labels(status).observe(time.perf_counter() - started)
            await send(message)

        await self.app(scope, receive, timed)


def add_docs(app: FastAPI) -> None:
    """/docs (Swagger UI) and /redoc from files the studio serves, not a CDN: a studio's network may have no
    internet. No validator badge either (Swagger UI would send the spec's address to validator.swagger.io)."""
    app.mount("/docs-assets", StaticFiles(directory=DOCS_ASSETS), name="docs-assets")
    headers = {"Content-Security-Policy": DOCS_POLICY}

    @app.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="studio - Swagger UI",
            swagger_js_url="/docs-assets/swagger-ui-bundle.js",
            swagger_css_url="/docs-assets/swagger-ui.css",
            swagger_favicon_url="/docs-assets/favicon.png",
            swagger_ui_parameters={"validatorUrl": None},
        )
        page.headers.update(headers)
        return page

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        page = get_redoc_html(
            openapi_url="/openapi.json",
            title="studio - ReDoc",
            redoc_js_url="/docs-assets/redoc.standalone.js",
            redoc_favicon_url="/docs-assets/favicon.png",
            with_google_fonts=False,
        )
        page.headers.update(headers)
        return page


def add_operations(app: FastAPI, studio: Studio) -> None:
    @app.get(
        "/v1/health",
        response_model=Health,
        tags=["operations"],
        responses={503: {"model": Health, "description": "down: the journal stopped, or no table can play"}},
    )
    async def health() -> JSONResponse:
        """The studio's state: every table and device, and `ok` / `degraded` / `down` (503)."""
        h = studio_health(studio)
        return JSONResponse(h.model_dump(mode="json"), status_code=503 if h.status == "down" else 200)

    if studio.config.studio.metrics:
        app.add_middleware(DecisionTimer, studio=studio)

        @app.get("/metrics", tags=["operations"], response_class=Response)
        async def metrics() -> Response:
            """Prometheus metrics (text exposition format), no token: `[studio] metrics = false` turns it off."""
            return Response(studio.metrics.exposition(), media_type=CONTENT_TYPE)
