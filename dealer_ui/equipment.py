"""The technicians' view of the equipment's statistics: the bias watch's series and alarms (studio/bias_watch.py),
read from the studio's statistics service."""

# no `from __future__ import annotations`: FastAPI must evaluate the routes' Annotated[..., Depends(...)]
# hints, and they name the console of the enclosing function
import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends

from .auth import Session
from .console import PREFIX, Console, error


def equipment_router(console: Console) -> APIRouter:
    router = APIRouter()
    studio = console.studio

    @router.get(PREFIX + "/api/bias")
    async def bias(
        session: Annotated[Session, Depends(console.require("devices"))],
        table: str | None = None,
    ) -> dict[str, Any]:
        if table is not None and table not in studio.tables:
            raise error(404, f"There is no table {table!r}.")
        series = await asyncio.to_thread(studio.statistics.bias_report, table)
        return {
            "level": studio.config.studio.bias_alert_level,
            "alarms": sum(1 for s in series if s["alarm"]),
            "series": series,
        }

    return router
