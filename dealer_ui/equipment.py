"""The technicians' view of the equipment: the bias watch's series and alarms (studio/bias_watch.py) and each
device's equipment log (studio/equipment_log.py), as JSON or as CSV to download."""

# no `from __future__ import annotations`: FastAPI must evaluate the routes' Annotated[..., Depends(...)]
# hints, and they name the console of the enclosing function
import asyncio
import csv
import io
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from fastapi.responses import Response

from studio import equipment_log
from studio.roads import bead_plate, big_road

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

    @router.get(PREFIX + "/api/statistics")
    async def statistics(
        session: Annotated[Session, Depends(console.require("statistics"))],
        table: str | None = None,
        dealer: str | None = None,
        by: Literal["game", "table", "dealer", "day", "hour"] | None = None,
    ) -> dict[str, Any]:
        """The studio's statistics for the shift manager's page (as /v1/statistics, over the console)."""
        return await asyncio.to_thread(studio.statistics.query, table=table, dealer=dealer, by=by)

    @router.get(PREFIX + "/api/tables/{table_id}/roads")
    async def roads(
        table: Annotated[Any, Depends(console.get_table)],
        session: Annotated[Session, Depends(console.require("statistics"))],
    ) -> dict[str, Any]:
        recent = await asyncio.to_thread(studio.statistics.recent_winners, table.table_id)
        winners = [r["winner"] for r in recent]
        return {
            "table_id": table.table_id,
            "game": table.game.game_id,
            "rounds": recent,
            "bead_plate": bead_plate(winners),
            "big_road": big_road(winners),
        }

    @router.get(PREFIX + "/api/devices/{table_id}/{role}/equipment-log")
    async def device_equipment_log(
        found: Annotated[tuple[Any, Any], Depends(console.get_device)],
        session: Annotated[Session, Depends(console.require("devices"))],
        format: str = "json",
    ) -> Any:
        """The device's entries and its table's, newest first (json) or oldest first (csv, to download)."""
        if format not in ("json", "csv"):
            raise error(400, "format is json or csv")
        _table, slot = found

        def read() -> tuple[list[dict[str, Any]], int]:
            studio.journal.flush()  # what was just done is in the log
            if format == "csv":  # the whole log: the journal's (statistics keep the newest entries)
                entries = list(equipment_log.read(studio.journal.path, device=slot.device_id))
                return entries, len(entries)
            return studio.statistics.equipment_log(slot.device_id)

        entries, total = await asyncio.to_thread(read)
        if format == "json":
            return {"device_id": slot.device_id, "entries": entries[::-1][:500], "total": total}
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=equipment_log.COLUMNS)
        writer.writeheader()
        writer.writerows(entries)
        name = slot.device_id.replace("/", "-")
        return Response(
            out.getvalue(),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="equipment-log-{name}.csv"'},
        )

    return router
