"""The administrators' side: console users, their roles, PINs and whether they may sign in."""

# no `from __future__ import annotations`: FastAPI must evaluate the routes' Annotated[..., Depends(...)]
# hints, and they name the console of the enclosing function
import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends

from .auth import AuthError, Session
from .bodies import DisableBody, NewUserBody, SecretBody
from .console import PREFIX, Console, error


def users_router(console: Console) -> APIRouter:
    """The user API; every change is journaled with who made it."""
    router = APIRouter()

    # --- users (administrators) ---------------------------------------------------------------------

    @router.get(f"{PREFIX}/api/users")
    async def list_users(
        session: Annotated[Session, Depends(console.require("users"))],
    ) -> list[dict[str, Any]]:
        users = await asyncio.to_thread(console.users.users)
        return [{"username": u.username, "role": u.role, "disabled": u.disabled} for u in users]

    def _admin(session: Session) -> None:
        if not session.user.can("users"):
            raise error(403, f"A {session.user.role} may not manage users.")

    @router.post(f"{PREFIX}/api/users")
    async def add_user(
        body: NewUserBody, session: Annotated[Session, Depends(console.csrf)]
    ) -> dict[str, Any]:
        _admin(session)
        try:
            user = await asyncio.to_thread(
                console.users.add, body.username.strip().lower(), body.role, body.secret
            )
        except AuthError as exc:
            raise error(400, str(exc)) from None
        console.journal(
            "console_user",
            {"action": "add", "by": session.user.username, "username": user.username, "role": user.role},
        )
        return {"username": user.username, "role": user.role, "disabled": False}

    @router.post(PREFIX + "/api/users/{username}/disabled")
    async def disable_user(
        username: str, body: DisableBody, session: Annotated[Session, Depends(console.csrf)]
    ) -> dict[str, Any]:
        _admin(session)
        if username == session.user.username and body.disabled:
            raise error(400, "You cannot disable yourself.")
        try:
            await asyncio.to_thread(console.users.set_disabled, username, body.disabled)
        except AuthError as exc:
            raise error(404, str(exc)) from None
        ended = console.sessions.end_user(username) if body.disabled else 0
        console.journal(
            "console_user",
            {
                "action": "disable" if body.disabled else "enable",
                "by": session.user.username,
                "username": username,
            },
        )
        return {"ok": True, "sessions_ended": ended}

    @router.post(PREFIX + "/api/users/{username}/secret")
    async def change_secret(
        username: str, body: SecretBody, session: Annotated[Session, Depends(console.csrf)]
    ) -> dict[str, Any]:
        _admin(session)
        try:
            await asyncio.to_thread(console.users.set_secret, username, body.secret)
        except AuthError as exc:
            raise error(400, str(exc)) from None
        ended = console.sessions.end_user(username)
        console.journal(
            "console_user", {"action": "new_secret", "by": session.user.username, "username": username}
        )
        return {"ok": True, "sessions_ended": ended}

    return router
