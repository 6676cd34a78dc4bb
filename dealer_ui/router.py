"""The console's HTTP and WebSocket surface: pages, the JSON API under /console/api, live updates.

Each area has a router of its own: signing in and the pages (sessions.py), the tables and what people do at
them (tables.py), the technicians' devices (devices.py), the administrators' users (users.py) and the live
updates (updates.py); :func:`console_router` puts them together over one :class:`Console` state.

Every route checks the person's role itself (the pages only follow): a dealer asking the device API gets
403 whatever page they came from. Routes run on the studio's event loop, as the table services must;
the slow parts (scrypt, the users file) run in worker threads.

Security: the session token is an HttpOnly, SameSite=Strict cookie on /console; every POST must echo
the session's CSRF token in the X-CSRF-Token header and, when the browser says where it comes from
(Origin), come from this host; the WebSocket checks Origin too. Sign-ins, refusals, approvals and every
action go to the studio's journal with who did them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter

from .auth import PERMISSIONS, SessionStore, Throttle, UserStore
from .console import COOKIE, CSRF_HEADER, PREFIX, STATIC, Console
from .console import same_origin as _same_origin
from .devices import devices_router
from .equipment import equipment_router
from .sessions import sessions_router
from .shifts import shifts_router
from .tables import tables_router
from .updates import updates_router
from .users import users_router


def console_router(
    studio: Any,
    *,
    sessions: SessionStore | None = None,
    throttle: Throttle | None = None,
    users: UserStore | None = None,
) -> APIRouter:
    """The console's routes for a studio (pages under /console, JSON under /console/api, /console/ws)."""
    console = Console(studio, sessions=sessions, throttle=throttle, users=users)

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        console.hub.attach()  # the app's lifespan started the studio first
        try:
            yield
        finally:
            console.closing = True
            console.hub.detach()
            console.sessions.close()

    router = APIRouter(lifespan=lifespan)
    router.console = console  # type: ignore[attr-defined]  # tests and the dice page reach the shared state
    for area in (
        sessions_router,
        tables_router,
        shifts_router,
        devices_router,
        equipment_router,
        users_router,
        updates_router,
    ):
        router.include_router(area(console))
    return router


__all__ = [
    "COOKIE",
    "CSRF_HEADER",
    "PERMISSIONS",
    "PREFIX",
    "STATIC",
    "Console",
    "_same_origin",
    "console_router",
]
