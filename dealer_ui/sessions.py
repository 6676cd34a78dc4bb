"""The console's pages, its static files and signing in and out."""

# no `from __future__ import annotations`: FastAPI must evaluate the routes' Annotated[..., Depends(...)]
# hints, and they name the console of the enclosing function
import asyncio
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response

from .auth import Session
from .bodies import LoginBody
from .console import COOKIE, PREFIX, STATIC, Console, client_ip, error, same_origin, static_file


def sessions_router(console: Console) -> APIRouter:
    """The pages (each checks the role before it is served), the static files and the session API."""
    router = APIRouter()

    def page(permission: str, name: str) -> Any:
        async def serve(request: Request) -> Response:
            s = console.sessions.get(request.cookies.get(COOKIE))
            if s is None:
                return RedirectResponse(f"{PREFIX}/?next={quote(request.url.path)}", status_code=303)
            if not s.user.can(permission):
                return FileResponse(
                    STATIC / "forbidden.html", status_code=403, headers={"Cache-Control": "no-cache"}
                )
            return static_file(name)

        return serve

    # --- pages ------------------------------------------------------------------------------------

    @router.get(PREFIX, include_in_schema=False)
    async def console_root() -> Response:
        return RedirectResponse(f"{PREFIX}/", status_code=307)

    @router.get(f"{PREFIX}/", include_in_schema=False)
    async def login_page() -> Response:
        return static_file("login.html")

    router.add_api_route(f"{PREFIX}/tables", page("view_tables", "tables.html"), include_in_schema=False)
    router.add_api_route(
        PREFIX + "/table/{table_id}", page("view_tables", "table.html"), include_in_schema=False
    )
    router.add_api_route(f"{PREFIX}/tech", page("devices", "tech.html"), include_in_schema=False)
    router.add_api_route(
        PREFIX + "/tech/{table_id}/{role}", page("devices", "device.html"), include_in_schema=False
    )
    router.add_api_route(f"{PREFIX}/users", page("users", "users.html"), include_in_schema=False)
    router.add_api_route(f"{PREFIX}/stats", page("statistics", "stats.html"), include_in_schema=False)

    @router.get(PREFIX + "/static/{path:path}", include_in_schema=False)
    def static(
        path: str,
    ) -> Response:  # a plain def: FastAPI runs it in a worker thread (it touches the disk)
        target = (STATIC / path).resolve()
        if not target.is_relative_to(STATIC.resolve()) or not target.is_file():
            raise HTTPException(404, "no such file")
        return FileResponse(target, headers={"Cache-Control": "no-cache"})

    # --- sign-in ----------------------------------------------------------------------------------

    def me(s: Session) -> dict[str, Any]:
        return {
            "username": s.user.username,
            "role": s.user.role,
            "permissions": sorted(s.user.permissions),
            "csrf": s.csrf,
            "expires_in": int(console.sessions.seconds_left(s)),
        }

    @router.post(f"{PREFIX}/api/login")
    async def login(body: LoginBody, request: Request) -> JSONResponse:
        if not same_origin(request):
            raise error(403, "This request did not come from the console's own page.")
        if "application/json" not in request.headers.get("content-type", ""):
            raise error(415, "Send the sign-in as JSON.")
        ip = client_ip(request)
        user = await console.check_credentials(body.username, body.secret, ip, "sign_in")
        stamp = await asyncio.to_thread(console.users.stamp, user.username)
        s = console.sessions.create(user, ip, stamp or "")
        console.journal("console_sign_in", {"username": user.username, "role": user.role, "ip": ip})
        response = JSONResponse(me(s))
        response.set_cookie(
            COOKIE,
            s.token,
            httponly=True,
            samesite="strict",
            path=PREFIX,
            secure=request.url.scheme == "https",
        )
        return response

    @router.post(f"{PREFIX}/api/logout")
    async def logout(request: Request, session: Annotated[Session, Depends(console.csrf)]) -> JSONResponse:
        console.sessions.end(session.token)
        console.journal("console_sign_out", {"username": session.user.username, "ip": client_ip(request)})
        response = JSONResponse({"ok": True})
        response.delete_cookie(COOKIE, path=PREFIX)
        return response

    @router.post(f"{PREFIX}/api/session")
    async def stay_signed_in(session: Annotated[Session, Depends(console.csrf)]) -> dict[str, Any]:
        """Someone touched 'Stay signed in': the idle timer starts again (never beyond the session's lifetime)."""
        return me(session)

    @router.get(f"{PREFIX}/api/me")
    async def whoami(session: Annotated[Session, Depends(console.current_session)]) -> dict[str, Any]:
        return me(session)

    return router
