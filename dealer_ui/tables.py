"""The dealers' and supervisors' side: the tables, the actions at a table with four eyes where needed, and
the table's maintenance mode."""

# no `from __future__ import annotations`: FastAPI must evaluate the routes' Annotated[..., Depends(...)]
# hints, and they name the console of the enclosing function
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from .actions import act
from .auth import Session
from .bodies import ActionBody, MaintenanceBody, ResultCheckBody
from .console import PREFIX, Console, error
from .views import (
    table_meta,
    table_summary,
    table_view,
)


def tables_router(console: Console) -> APIRouter:
    """The tables and what people do at them; every attempt at an action is journaled with who made it."""
    router = APIRouter()

    # --- tables -----------------------------------------------------------------------------------

    @router.get(f"{PREFIX}/api/tables")
    async def tables(
        session: Annotated[Session, Depends(console.require("view_tables"))],
    ) -> list[dict[str, Any]]:
        return [table_summary(t) for t in console.studio.tables.values()]

    @router.get(PREFIX + "/api/tables/{table_id}")
    async def table_detail(
        table: Annotated[Any, Depends(console.get_table)],
        session: Annotated[Session, Depends(console.require("view_tables"))],
    ) -> dict[str, Any]:
        return {"meta": table_meta(table), "view": table_view(table, console.hub, session.user)}

    @router.post(PREFIX + "/api/tables/{table_id}/check-result")
    async def check_result(
        body: ResultCheckBody,
        table: Annotated[Any, Depends(console.get_table)],
        session: Annotated[Session, Depends(console.csrf)],
    ) -> dict[str, Any]:
        """Ask the game's own validate_result about a result before it is entered (nothing is recorded)."""
        if not session.user.can("deal"):
            raise error(403, f"A {session.user.role} may not enter results.")
        try:
            return {"ok": True, "result": table.game.validate_result(body.result)}
        except (ValueError, TypeError, KeyError) as exc:
            raise error(400, str(exc).strip("'\"") or "The game refuses this result.") from None

    @router.post(PREFIX + "/api/tables/{table_id}/actions/{action}")
    async def table_action(
        action: str,
        body: ActionBody,
        request: Request,
        table: Annotated[Any, Depends(console.get_table)],
        session: Annotated[Session, Depends(console.csrf)],
    ) -> dict[str, Any]:
        """One action at a table; every attempt is journaled with who made it and how it ended."""
        user = session.user
        record: dict[str, Any] = {"action": action, "by": user.username}
        round_id = table.round.round_id if table.round is not None else None
        with console.action(record, table_id=table.table_id, round_id=round_id):
            result = await act(console, action, body, request, table, user, record)
        return {"ok": True, "result": result, "view": table_view(table, console.hub, user)}

    # --- maintenance mode (technicians and admins) ---------------------------------------------------

    @router.post(PREFIX + "/api/tables/{table_id}/maintenance")
    async def set_maintenance(
        body: MaintenanceBody,
        table: Annotated[Any, Depends(console.get_table)],
        session: Annotated[Session, Depends(console.csrf)],
    ) -> dict[str, Any]:
        """Turn the table's maintenance mode on or off; every attempt is journaled with who made it."""
        user = session.user
        reason = body.reason.strip()
        record = {"action": "maintenance", "by": user.username, "on": body.on, "reason": reason}
        with console.action(record, table_id=table.table_id):
            if not user.can("devices"):
                raise error(403, f"A {user.role} may not put a table into maintenance; a technician does.")
            if body.on and len(reason) < 3:
                raise error(400, "Say in a few words why the table goes into maintenance.")
            state = table.set_maintenance_by(user.username, body.on, reason)  # RoundError: 409
        return {"ok": True, "maintenance": state, "view": table_view(table, console.hub, user)}

    return router
