"""Live updates over the console's WebSocket: table views, device lists, events and the session's time left."""

# no `from __future__ import annotations`: FastAPI must evaluate the routes' Annotated[..., Depends(...)]
# hints, and they name the console of the enclosing function
import asyncio

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from .console import COOKIE, PREFIX, Console, same_origin
from .live import Client
from .views import device_views, table_view


def updates_router(console: Console) -> APIRouter:
    """The WebSocket /console/ws (a screen left open is not activity: it does not keep a session alive)."""
    router = APIRouter()

    # --- live updates ----------------------------------------------------------------------------------

    @router.websocket(f"{PREFIX}/ws")
    async def live(ws: WebSocket) -> None:
        if not same_origin(ws):
            await ws.close(code=1008)
            return
        session = console.sessions.get(
            ws.cookies.get(COOKIE), touch=False
        )  # a screen left open is not activity
        await ws.accept()
        if session is None:
            await ws.close(code=4401, reason="sign in")
            return
        wanted = {t for t in (ws.query_params.get("tables") or "").split(",") if t}
        want_devices = ws.query_params.get("devices") == "1"
        unknown = wanted - set(console.studio.tables)
        if (
            unknown
            or (wanted and not session.user.can("view_tables"))
            or (want_devices and not session.user.can("devices"))
        ):
            await ws.close(code=4403, reason="not allowed" if not unknown else "unknown table")
            return
        client = console.hub.subscribe(session, wanted, want_devices)
        receiver = asyncio.ensure_future(_drain(ws))
        try:
            await _send_loop(ws, client, receiver)
        except (WebSocketDisconnect, RuntimeError, ConnectionError):
            pass
        finally:
            console.hub.unsubscribe(client)
            receiver.cancel()

    async def _drain(ws: WebSocket) -> None:
        try:
            while True:
                await ws.receive_text()
        except (WebSocketDisconnect, RuntimeError):
            return

    async def _send_loop(ws: WebSocket, client: Client, receiver: asyncio.Future) -> None:
        user = client.session.user
        periodic = True
        told = 0.0  # when the page was last told how long its session has left
        while not receiver.done():
            if console.closing:
                await ws.close(code=1001)
                return
            if console.sessions.get(client.session.token, touch=False) is None:
                await ws.close(code=4401, reason="session ended")
                return
            now = asyncio.get_running_loop().time()
            if periodic and now - told >= 10:
                told = now
                left = int(console.sessions.seconds_left(client.session))
                await ws.send_json({"type": "session", "expires_in": left})
            events = list(client.events)
            client.events.clear()
            dirty = set(client.tables) if periodic else set(client.dirty)
            client.dirty.clear()
            for e in events:
                await ws.send_json(e)
            for table_id in sorted(dirty):
                table = console.studio.tables.get(table_id)
                if table is not None:
                    await ws.send_json(
                        {"type": "table", "table_id": table_id, "view": table_view(table, console.hub, user)}
                    )
            if client.devices and (periodic or any(e["type"] == "device" for e in events)):
                await ws.send_json(
                    {
                        "type": "devices",
                        "devices": [d for t in console.studio.tables.values() for d in device_views(t)],
                    }
                )
            client.wake.clear()
            if client.events or client.dirty:
                periodic = False
                continue
            waiter = asyncio.ensure_future(client.wake.wait())
            done, _ = await asyncio.wait({waiter, receiver}, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
            if waiter not in done:
                waiter.cancel()
            periodic = not done

    return router
