"""What every area of the console shares: users, sessions, the slow-down, the live hub, the journal of what
people did, and the checks a route depends on (signed in, allowed, same page, a known table and device)."""

# no `from __future__ import annotations`: FastAPI must evaluate the routes' Annotated[..., Depends(...)]
# hints, and they name the console of the enclosing function
import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import Depends, HTTPException, Request, WebSocket
from fastapi.responses import FileResponse

from studio.action_journal import ActionJournal, JournalUnavailable

from .auth import SESSIONS_FILE, Session, SessionStore, SignInSlowDown, Throttle, User, UserStore
from .live import ConsoleHub

STATIC = Path(__file__).parent / "static"
COOKIE = "studio_console"
CSRF_HEADER = "x-csrf-token"
PREFIX = "/console"


def client_ip(request: Request | WebSocket) -> str:
    return request.client.host if request.client else "unknown"


def same_origin(request: Request | WebSocket) -> bool:
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser (browsers send Origin with every POST and WebSocket)
    return urlsplit(origin).netloc == request.headers.get("host")


def static_file(name: str) -> FileResponse:
    return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})


def error(status: int, message: str, **extra: Any) -> HTTPException:
    return HTTPException(status, {"error": message, **extra})


def refusal(exc: HTTPException) -> str:
    """The words of a refusal, for its journal record."""
    return exc.detail.get("error") if isinstance(exc.detail, dict) else str(exc.detail)


class Console:
    """Shared state of the console routes: users, sessions, slow-down and the live hub."""

    def __init__(
        self,
        studio: Any,
        *,
        sessions: SessionStore | None = None,
        throttle: Throttle | None = None,
        users: UserStore | None = None,
    ) -> None:
        self.studio = studio
        self.users = users or UserStore(studio.data_dir)
        # sessions outlive a restart: kept in the data folder (only hashes of the tokens)
        self.sessions = (
            sessions if sessions is not None else SessionStore(path=Path(studio.data_dir) / SESSIONS_FILE)
        )
        if self.sessions.user_check is None:
            self.sessions.user_check = self.user_still_valid
        self.throttle = throttle or Throttle()
        self.slow_down = SignInSlowDown(self.throttle)
        self.hub = ConsoleHub(studio)
        self.actions = ActionJournal(studio.journal)
        self.closing = False

    def user_still_valid(self, session: Session) -> bool:
        """The session's user still exists, enabled, with the role, PIN and record they signed in with."""
        try:
            stamp = self.users.stamp(session.user.username)
        except (OSError, ValueError):
            return True  # a users file being rewritten: keep people signed in, the next look-up checks again
        return stamp is not None and (not session.stamp or stamp == session.stamp)

    def journal(
        self, kind: str, data: dict[str, Any], *, table_id: str | None = None, round_id: str | None = None
    ) -> None:
        """Record what a person did; when the journal cannot, the person gets 503 and nothing is done."""
        try:
            self.actions.record(kind, data, table_id=table_id, round_id=round_id)
        except JournalUnavailable as exc:
            raise HTTPException(503, {"error": str(exc)}) from None

    @contextmanager
    def action(self, record: dict[str, Any], *, table_id: str, round_id: str | None = None) -> Iterator[None]:
        """Journal one action (``console_action``) with how it ended: done, or refused with the status and the
        words the person got. A ValueError (a RoundError, a result the game refuses) is refused with 409.
        ``record`` is read when the action ends, so the action may add to it."""
        try:
            yield
        except HTTPException as exc:
            self._refused(record, exc.status_code, refusal(exc), table_id, round_id)
            raise
        except ValueError as exc:
            self._refused(record, 409, str(exc), table_id, round_id)
            raise error(409, str(exc)) from None
        self.journal("console_action", {**record, "outcome": "done"}, table_id=table_id, round_id=round_id)

    def _refused(
        self, record: dict[str, Any], status: int, message: str, table_id: str, round_id: str | None
    ) -> None:
        self.journal(
            "console_action",
            {**record, "outcome": "refused", "status": status, "message": message},
            table_id=table_id,
            round_id=round_id,
        )

    # --- what a route depends on ------------------------------------------------------------------

    def current_session(self, request: Request) -> Session:
        s = self.sessions.get(request.cookies.get(COOKIE))
        if s is None:
            raise error(401, "Please sign in.")
        return s

    def require(self, permission: str) -> Callable[..., Session]:
        def dep(session: Annotated[Session, Depends(self.current_session)]) -> Session:
            if not session.user.can(permission):
                raise error(403, f"A {session.user.role} may not do this.")
            return session

        return dep

    def csrf(self, request: Request) -> Session:
        """The session of a POST from the console's own page (its CSRF token echoed)."""
        session = self.current_session(request)
        if not same_origin(request):
            raise error(403, "This request did not come from the console's own page.")
        if request.headers.get(CSRF_HEADER) != session.csrf:
            raise error(403, "The page's security token is missing or old; reload the page.")
        return session

    def get_table(self, table_id: str) -> Any:
        table = self.studio.tables.get(table_id)
        if table is None:
            raise error(404, f"There is no table {table_id!r}.")
        return table

    def get_device(self, table_id: str, role: str) -> tuple[Any, Any]:
        table = self.get_table(table_id)
        slot = next((s for s in table.devices.values() if s.role == role), None)
        if slot is None:
            raise error(404, f"Table {table_id} has no device {role!r}.")
        return table, slot

    # --- credentials ---------------------------------------------------------------------------

    async def check_credentials(
        self, username: str, secret: str, ip: str, purpose: str, status: int = 401
    ) -> User:
        """The user for these credentials, or `status`/429 (journaled, and counted for the slow-down).

        A signing-in person gets 401; a supervisor's approval that fails gets 403, since the person at the
        screen stays signed in."""
        name = (username or "").strip().lower()
        wait = self.slow_down.wait(name, ip)
        if wait > 0:
            self.journal(
                "console_sign_in_failed",
                {
                    "username": name,
                    "ip": ip,
                    "purpose": purpose,
                    "reason": "slowed_down",
                    "retry_after": round(wait, 1),
                },
            )
            raise HTTPException(
                429,
                {
                    "error": f"Too many failed attempts. Try again in {int(wait) + 1} s.",
                    "retry_after": int(wait) + 1,
                },
                headers={"Retry-After": str(int(wait) + 1)},
            )
        user = await asyncio.to_thread(self.users.verify, name, secret)
        if user is None:
            self.slow_down.failed(name, ip)
            self.journal(
                "console_sign_in_failed",
                {"username": name, "ip": ip, "purpose": purpose, "reason": "wrong_credentials"},
            )
            raise HTTPException(status, {"error": "Wrong user name or PIN."})
        self.slow_down.succeeded(name, ip)
        return user
