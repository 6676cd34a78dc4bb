"""The statistics on the REST API, for the feed's consumers (their bearer token): a table's, and any
selection by game, table, dealer and period (docs/statistics.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query

from studio.service import Studio

from .rest_models import UNAUTHORIZED, ErrorDetail

By = Literal["game", "table", "dealer", "day", "hour"]
_FROM = Query(None, alias="from", description="ISO 8601 date or time (UTC unless it says); whole hours")
_TO = Query(None, alias="to", description="ISO 8601 date or time, exclusive; whole hours")


def statistics_router(studio: Studio, consumer: Callable[..., None]) -> APIRouter:
    router = APIRouter(dependencies=[Depends(consumer)])

    @router.get(
        "/v1/tables/{table_id}/statistics",
        responses={404: {"model": ErrorDetail, "description": "no such table"}, **UNAUTHORIZED},
    )
    async def table_statistics(
        table_id: str, start: datetime | None = _FROM, end: datetime | None = _TO
    ) -> dict[str, Any]:
        """The table's figures, grouped by dealer (docs/statistics.md)."""
        if table_id not in studio.tables:
            raise HTTPException(404, f"no table {table_id!r}")
        found = await asyncio.to_thread(
            studio.statistics.query, table=table_id, start=start, end=end, by="dealer"
        )
        return {"table_id": table_id, "game": studio.tables[table_id].game.game_id, **found}

    @router.get("/v1/statistics", responses=UNAUTHORIZED)
    async def statistics(
        game: str | None = None,
        table: str | None = None,
        dealer: str | None = None,
        start: datetime | None = _FROM,
        end: datetime | None = _TO,
        by: By | None = Query(None, description="add one group per game, table, dealer, day or hour"),
    ) -> dict[str, Any]:
        """Any selection of the studio's figures (docs/statistics.md)."""
        return await asyncio.to_thread(
            studio.statistics.query, game=game, table=table, dealer=dealer, start=start, end=end, by=by
        )

    return router
