"""A dealer's shift at a table: the dealer signs in to the table they deal at, so every round the table opens
knows its dealer (the statistics count by dealer: studio/statistics.py), and signs out when they leave.

Both are console actions journaled like every other (`console_action`, `dealer_sign_in` / `dealer_sign_out`,
with who and how it ended); the table's dealer is read back from the journal, so it outlives a restart.
"""

# no `from __future__ import annotations`: FastAPI must evaluate the routes' Annotated[..., Depends(...)]
# hints, and they name the console of the enclosing function
import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends

from studio import dealers

from .auth import Session
from .console import PREFIX, Console, error


def shifts_router(console: Console) -> APIRouter:
    router = APIRouter()
    statistics = console.studio.statistics

    async def durable() -> None:
        # the table's dealer is read back from the journal: wait until the action is in it
        await asyncio.to_thread(console.studio.journal.flush)

    @router.get(PREFIX + "/api/tables/{table_id}/dealer")
    async def current_dealer(
        table: Annotated[Any, Depends(console.get_table)],
        session: Annotated[Session, Depends(console.require("view_tables"))],
    ) -> dict[str, Any]:
        return {"table_id": table.table_id, "dealer": statistics.dealer_at(table.table_id)}

    @router.post(PREFIX + "/api/tables/{table_id}/dealer")
    async def sign_in(
        table: Annotated[Any, Depends(console.get_table)],
        session: Annotated[Session, Depends(console.csrf)],
    ) -> dict[str, Any]:
        """The person signs in as the table's dealer; a dealer already there is replaced (and named)."""
        user = session.user
        before = statistics.dealer_at(table.table_id)
        record: dict[str, Any] = {"action": dealers.SIGN_IN, "by": user.username, "dealer": user.username}
        if before and before != user.username:
            record["replaces"] = before
        with console.action(record, table_id=table.table_id):
            if not user.can("deal"):
                raise error(
                    403, f"A {user.role} does not deal: only dealers and supervisors sign in to a table."
                )
        await durable()
        return {"table_id": table.table_id, "dealer": user.username, "replaces": record.get("replaces")}

    @router.delete(PREFIX + "/api/tables/{table_id}/dealer")
    async def sign_out(
        table: Annotated[Any, Depends(console.get_table)],
        session: Annotated[Session, Depends(console.csrf)],
    ) -> dict[str, Any]:
        """The table's dealer signs out; a supervisor may sign out a dealer who left without doing so."""
        user = session.user
        now = statistics.dealer_at(table.table_id)
        record: dict[str, Any] = {"action": dealers.SIGN_OUT, "by": user.username, "dealer": now}
        with console.action(record, table_id=table.table_id):
            if now is None:
                raise error(409, "Nobody is signed in to deal at this table.")
            if now != user.username and not user.can("approve"):
                raise error(403, f"{now} is the dealer here: only they or a supervisor can sign them out.")
        await durable()
        return {"table_id": table.table_id, "dealer": None}

    return router
