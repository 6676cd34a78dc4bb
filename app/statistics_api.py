"""The statistics on the REST API, for the feed's consumers (their bearer token): a table's, and any
selection by game, table, dealer and period (docs/statistics.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Query

from studio.service import Studio
from studio.statistics import DIMENSIONS


def _when(name: str, value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise HTTPException(400, f"{name}: {value!r} is not an ISO 8601 date or time") from None


def statistics_router(studio: Studio, consumer: Callable[..., None]) -> APIRouter:
    router = APIRouter(dependencies=[Depends(consumer)])

    @router.get("/v1/tables/{table_id}/statistics")
    async def table_statistics(
        table_id: str,
        start: str | None = Query(None, alias="from", description="ISO 8601; whole hours"),
        end: str | None = Query(None, alias="to", description="ISO 8601, exclusive; whole hours"),
    ) -> dict[str, Any]:
        if table_id not in studio.tables:
            raise HTTPException(404, f"no table {table_id!r}")
        lo, hi = _when("from", start), _when("to", end)
        found = await asyncio.to_thread(
            studio.statistics.query, table=table_id, start=lo, end=hi, by="dealer"
        )
        return {"table_id": table_id, "game": studio.tables[table_id].game.game_id, **found}

    @router.get("/v1/statistics")
    async def statistics(
        game: str | None = None,
        table: str | None = None,
        dealer: str | None = None,
        start: str | None = Query(None, alias="from", description="ISO 8601; whole hours"),
        end: str | None = Query(None, alias="to", description="ISO 8601, exclusive; whole hours"),
        by: str | None = Query(None, description=f"group by one of: {', '.join(DIMENSIONS)}"),
    ) -> dict[str, Any]:
        if by is not None and by not in DIMENSIONS:
            raise HTTPException(400, f"by must be one of {', '.join(DIMENSIONS)}, not {by!r}")
        lo, hi = _when("from", start), _when("to", end)
        return await asyncio.to_thread(
            studio.statistics.query, game=game, table=table, dealer=dealer, start=lo, end=hi, by=by
        )

    return router
