"""The console's HTTP and WebSocket surface: pages, the JSON API under /console/api, live updates.

Every route checks the person's role itself (the pages only follow): a dealer asking the device API gets
403 whatever page they came from. Routes run on the studio's event loop, as the table services must;
the slow parts (scrypt, the users file) run in worker threads.

Security: the session token is an HttpOnly, SameSite=Strict cookie on /console; every POST must echo
the session's CSRF token in the X-CSRF-Token header and, when the browser says where it comes from
(Origin), come from this host; the WebSocket checks Origin too. Sign-ins, refusals, approvals and every
action go to the studio's journal with who did them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, Depends, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from . import calibration
from .auth import PERMISSIONS, SESSIONS_FILE, AuthError, Session, SessionStore, Throttle, User, UserStore
from .families import INCIDENT_CATEGORIES, family_for_kind
from .live import Client, ConsoleHub
from .views import (
    choices,
    device_views,
    in_maintenance,
    maintenance_words,
    table_families,
    table_meta,
    table_summary,
    table_view,
)

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
COOKIE = "studio_console"
CSRF_HEADER = "x-csrf-token"
PREFIX = "/console"

#: what people can ask of a table (views.choices says which of them are possible now, for whom)
ACTIONS = (
    "open_round",
    "close_betting",
    "start_game",
    "retry",
    "release",
    "void",
    "manual_result",
    "correct",
    "shoe_change",
    "incident",
    "start_opening_check",
    "finish_opening_check",
)
#: actions for people who look after the table but do not deal (the rest need the "deal" permission)
NOT_DEALING = {
    "incident": ("view_tables",),
    "start_opening_check": ("deal", "devices"),
    "finish_opening_check": ("deal", "devices"),
}


# --- request bodies -------------------------------------------------------------------------------


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LoginBody(_Body):
    username: str = Field(max_length=64)
    secret: str = Field(max_length=256)


class Approval(_Body):
    username: str = Field(max_length=64)
    secret: str = Field(max_length=256)


class ActionBody(_Body):
    code: str | None = Field(None, max_length=64)
    note: str | None = Field(None, max_length=500)
    result: dict[str, Any] | None = None
    reason: str | None = Field(None, max_length=500)
    round_id: str | None = Field(None, max_length=64)
    category: str | None = Field(None, max_length=32)
    text: str | None = Field(None, max_length=2000)
    approval: Approval | None = None


class CommandBody(_Body):
    command: str = Field(min_length=1, max_length=80)
    confirm: bool = False


class SelfTestBody(_Body):
    confirm: bool = False


class DecodeBody(_Body):
    payload: str = Field(min_length=1, max_length=200)


class ResultCheckBody(_Body):
    result: dict[str, Any]


class MaintenanceBody(_Body):
    on: bool
    reason: str = Field("", max_length=500)


class NewUserBody(_Body):
    username: str = Field(max_length=64)
    role: Literal["dealer", "supervisor", "technician", "admin"]
    secret: str = Field(max_length=256)


class DisableBody(_Body):
    disabled: bool


class SecretBody(_Body):
    secret: str = Field(max_length=256)


# --- the console -------------------------------------------------------------------------------------


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
        self.hub = ConsoleHub(studio)
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
        try:
            self.studio.journal.append(kind, data, table_id=table_id, round_id=round_id)
        except Exception as exc:  # a journal that cannot write stops people acting
            log.error("console: could not journal %s: %s", kind, exc)
            message = f"The journal cannot record this ({exc}). Stop and call a technician."
            raise HTTPException(503, {"error": message}) from None

    # --- credentials ---------------------------------------------------------------------------

    async def check_credentials(
        self, username: str, secret: str, ip: str, purpose: str, status: int = 401
    ) -> User:
        """The user for these credentials, or `status`/429 (journaled, and counted for the slow-down).

        A signing-in person gets 401; a supervisor's approval that fails gets 403, since the person at the
        screen stays signed in."""
        name = (username or "").strip().lower()
        keys = (f"user:{name}", f"ip:{ip}")
        wait = self.throttle.wait(*keys)
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
            self.throttle.failed(*keys)
            self.journal(
                "console_sign_in_failed",
                {"username": name, "ip": ip, "purpose": purpose, "reason": "wrong_credentials"},
            )
            raise HTTPException(status, {"error": "Wrong user name or PIN."})
        self.throttle.succeeded(keys[0])
        return user


def _client_ip(request: Request | WebSocket) -> str:
    return request.client.host if request.client else "unknown"


def _same_origin(request: Request | WebSocket) -> bool:
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser (browsers send Origin with every POST and WebSocket)
    return urlsplit(origin).netloc == request.headers.get("host")


def _static_file(name: str) -> FileResponse:
    return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})


def _error(status: int, message: str, **extra: Any) -> HTTPException:
    return HTTPException(status, {"error": message, **extra})


def console_router(
    studio: Any,
    *,
    sessions: SessionStore | None = None,
    throttle: Throttle | None = None,
    users: UserStore | None = None,
) -> APIRouter:
    """The console's routes for a studio (pages under /console, JSON under /console/api, /console/ws)."""
    console = Console(studio, sessions=sessions, throttle=throttle, users=users)
    hub = console.hub

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        hub.attach()  # the app's lifespan started the studio first
        try:
            yield
        finally:
            console.closing = True
            hub.detach()
            console.sessions.close()

    router = APIRouter(lifespan=lifespan)
    router.console = console  # type: ignore[attr-defined]  # tests reach the sessions and the hub

    # --- dependencies ---------------------------------------------------------------------------

    def current_session(request: Request) -> Session:
        s = console.sessions.get(request.cookies.get(COOKIE))
        if s is None:
            raise _error(401, "Please sign in.")
        return s

    def require(permission: str) -> Any:
        def dep(session: Session = Depends(current_session)) -> Session:
            if not session.user.can(permission):
                raise _error(403, f"A {session.user.role} may not do this.")
            return session

        return dep

    def csrf(request: Request, session: Session = Depends(current_session)) -> Session:
        if not _same_origin(request):
            raise _error(403, "This request did not come from the console's own page.")
        if request.headers.get(CSRF_HEADER) != session.csrf:
            raise _error(403, "The page's security token is missing or old; reload the page.")
        return session

    def get_table(table_id: str) -> Any:
        table = studio.tables.get(table_id)
        if table is None:
            raise _error(404, f"There is no table {table_id!r}.")
        return table

    def get_device(table_id: str, role: str) -> tuple[Any, Any]:
        table = get_table(table_id)
        slot = next((s for s in table.devices.values() if s.role == role), None)
        if slot is None:
            raise _error(404, f"Table {table_id} has no device {role!r}.")
        return table, slot

    def page(permission: str, name: str) -> Any:
        async def serve(request: Request) -> Response:
            s = console.sessions.get(request.cookies.get(COOKIE))
            if s is None:
                return RedirectResponse(f"{PREFIX}/?next={quote(request.url.path)}", status_code=303)
            if not s.user.can(permission):
                return FileResponse(
                    STATIC / "forbidden.html", status_code=403, headers={"Cache-Control": "no-cache"}
                )
            return _static_file(name)

        return serve

    # --- pages ------------------------------------------------------------------------------------

    @router.get(PREFIX, include_in_schema=False)
    async def console_root() -> Response:
        return RedirectResponse(f"{PREFIX}/", status_code=307)

    @router.get(f"{PREFIX}/", include_in_schema=False)
    async def login_page() -> Response:
        return _static_file("login.html")

    router.add_api_route(f"{PREFIX}/tables", page("view_tables", "tables.html"), include_in_schema=False)
    router.add_api_route(
        PREFIX + "/table/{table_id}", page("view_tables", "table.html"), include_in_schema=False
    )
    router.add_api_route(f"{PREFIX}/tech", page("devices", "tech.html"), include_in_schema=False)
    router.add_api_route(
        PREFIX + "/tech/{table_id}/{role}", page("devices", "device.html"), include_in_schema=False
    )
    router.add_api_route(f"{PREFIX}/users", page("users", "users.html"), include_in_schema=False)

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
        if not _same_origin(request):
            raise _error(403, "This request did not come from the console's own page.")
        if "application/json" not in request.headers.get("content-type", ""):
            raise _error(415, "Send the sign-in as JSON.")
        ip = _client_ip(request)
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
    async def logout(request: Request, session: Session = Depends(csrf)) -> JSONResponse:
        console.sessions.end(session.token)
        console.journal("console_sign_out", {"username": session.user.username, "ip": _client_ip(request)})
        response = JSONResponse({"ok": True})
        response.delete_cookie(COOKIE, path=PREFIX)
        return response

    @router.post(f"{PREFIX}/api/session")
    async def stay_signed_in(session: Session = Depends(csrf)) -> dict[str, Any]:
        """Someone touched 'Stay signed in': the idle timer starts again (never beyond the session's lifetime)."""
        return me(session)

    @router.get(f"{PREFIX}/api/me")
    async def whoami(session: Session = Depends(current_session)) -> dict[str, Any]:
        return me(session)

    # --- tables -----------------------------------------------------------------------------------

    @router.get(f"{PREFIX}/api/tables")
    async def tables(session: Session = Depends(require("view_tables"))) -> list[dict[str, Any]]:
        return [table_summary(t) for t in studio.tables.values()]

    @router.get(PREFIX + "/api/tables/{table_id}")
    async def table_detail(
        table: Any = Depends(get_table), session: Session = Depends(require("view_tables"))
    ) -> dict[str, Any]:
        return {"meta": table_meta(table), "view": table_view(table, hub, session.user)}

    @router.post(PREFIX + "/api/tables/{table_id}/check-result")
    async def check_result(
        body: ResultCheckBody, table: Any = Depends(get_table), session: Session = Depends(csrf)
    ) -> dict[str, Any]:
        """Ask the game's own validate_result about a result before it is entered (nothing is recorded)."""
        if not session.user.can("deal"):
            raise _error(403, f"A {session.user.role} may not enter results.")
        try:
            return {"ok": True, "result": table.game.validate_result(body.result)}
        except (ValueError, TypeError, KeyError) as exc:
            raise _error(400, str(exc).strip("'\"") or "The game refuses this result.") from None

    @router.post(PREFIX + "/api/tables/{table_id}/actions/{action}")
    async def table_action(
        action: str,
        body: ActionBody,
        request: Request,
        table: Any = Depends(get_table),
        session: Session = Depends(csrf),
    ) -> dict[str, Any]:
        """One action at a table; every attempt is journaled with who made it and how it ended."""
        user = session.user
        record: dict[str, Any] = {"action": action, "by": user.username}
        round_id = table.round.round_id if table.round is not None else None
        try:
            result = await _act(action, body, request, table, user, record)
        except HTTPException as exc:
            message = exc.detail.get("error") if isinstance(exc.detail, dict) else str(exc.detail)
            console.journal(
                "console_action",
                {**record, "outcome": "refused", "status": exc.status_code, "message": message},
                table_id=table.table_id,
                round_id=round_id,
            )
            raise
        except ValueError as exc:  # RoundError, or a result the game refuses
            console.journal(
                "console_action",
                {**record, "outcome": "refused", "status": 409, "message": str(exc)},
                table_id=table.table_id,
                round_id=round_id,
            )
            raise _error(409, str(exc)) from None
        console.journal(
            "console_action", {**record, "outcome": "done"}, table_id=table.table_id, round_id=round_id
        )
        return {"ok": True, "result": result, "view": table_view(table, hub, user)}

    async def _act(
        action: str, body: ActionBody, request: Request, table: Any, user: User, record: dict[str, Any]
    ) -> Any:
        if action not in ACTIONS:
            record["action"] = action[:40]
            raise _error(404, f"There is no action {action[:40]!r}.")
        if not user.can("view_tables"):
            raise _error(403, f"A {user.role} may not act at a table.")
        if not any(user.can(p) for p in NOT_DEALING.get(action, ("deal",))):
            raise _error(403, f"A {user.role} may not act on a round.")
        approver: User | None = None
        if body.approval is not None:
            approver = await _approver(body.approval, user, request, action, table)
            record["approved_by"] = approver.username
        # decide on the loop, with no await between the check and the action
        choice = _find_choice(table, user, action, body)
        if choice["needs_approval"] and approver is None:
            raise _error(
                409,
                "This needs a supervisor's approval: a supervisor signs in on this screen.",
                needs_approval=True,
            )
        return _perform(
            table, action, choice, body, user.username, approver.username if approver else None, record
        )

    async def _approver(approval: Approval, user: User, request: Request, action: str, table: Any) -> User:
        name = approval.username.strip().lower()
        if name == user.username:
            raise _error(403, "The approval must come from a second person, not from you.")
        approver = await console.check_credentials(
            name, approval.secret, _client_ip(request), f"approve {action}", status=403
        )
        if not approver.can("approve"):
            console.journal(
                "console_approval",
                {
                    "action": action,
                    "by": user.username,
                    "approver": name,
                    "outcome": "refused",
                    "message": "not a supervisor",
                },
                table_id=table.table_id,
            )
            raise _error(403, f"{approver.username} is a {approver.role}: only a supervisor can approve.")
        console.journal(
            "console_approval",
            {"action": action, "by": user.username, "approver": approver.username, "outcome": "approved"},
            table_id=table.table_id,
            round_id=table.round.round_id if table.round is not None else None,
        )
        return approver

    def _find_choice(table: Any, user: User, action: str, body: ActionBody) -> dict[str, Any]:
        snap = table.snapshot()
        devices = device_views(table, snap)
        for c in choices(table, user, snap, devices, hub.recent_rounds(table.table_id)):
            if c["id"] == action and (action != "release" or c.get("code") == body.code):
                return c
        r = snap.get("round")
        where = (
            f"round {r['round_number']} is {r['state'].replace('_', ' ')}"
            if r
            else "no round has been played"
        )
        if snap.get("status") == "paused":
            where += f"; the table is paused ({snap.get('paused_reason')})"
        if in_maintenance(snap):
            where = f"table {maintenance_words(snap['maintenance'])}; {where}"
        raise _error(409, f"'{action.replace('_', ' ')}' is not possible now: {where}.")

    def _perform(
        table: Any,
        action: str,
        choice: dict[str, Any],
        body: ActionBody,
        by: str,
        approved_by: str | None,
        record: dict[str, Any],
    ) -> Any:
        if action == "open_round":
            return table.open_round_by(by).projection()
        if action == "close_betting":
            return table.close_betting_by(by).projection()
        if action == "release":
            r = table.release_by(choice["code"], by)
            record["code"] = choice["code"]
            return r.projection() if r else None
        if action == "void":
            reasons = {x["code"]: x["message"] for x in table_meta(table)["void_reasons"]}
            if body.code not in reasons:
                raise _error(400, "Choose a reason for the void.")
            note = (body.note or "").strip()
            if body.code == "other" and len(note) < 3:
                raise _error(400, "Say in a few words why the round is void.")
            message = reasons[body.code] + (f" ({note})" if note else "")
            record.update(code=body.code, message=message)
            return table.void_by(body.code, message, by, approved_by).projection()
        if action == "manual_result":
            result, reason = _result_and_reason(body)
            record.update(result=result, reason=reason)
            return table.manual_result_by(result, by, approved_by, reason).projection()
        if action == "correct":
            result, reason = _result_and_reason(body)
            recent = hub.recent_round(table.table_id, body.round_id or "")
            if recent is None or recent.get("state") != "certified":
                raise _error(400, "Choose one of the recent certified rounds to correct.")
            record.update(round_id=body.round_id, result=result, reason=reason)
            r = table.correct(body.round_id, result, approved_by=[by, approved_by], reason=reason)
            hub.round_changed(table.table_id, dict(r.projection(), transition="correct"))
            return r.projection()
        if action in ("start_game", "retry"):
            family = next(f for f in table_families(table) if f.id == choice["family"])
            spec = family.start if action == "start_game" else family.retry
            record.update(role=choice["role"], command=spec.command)
            table.send_command_by(choice["role"], spec.command, by)
            hub.note_command(f"{table.table_id}/{choice['role']}", spec.command, by)
            return None
        if action == "start_opening_check":
            table.start_opening_check_by(by)
            hub.opening_check_begins(table.table_id)
            return None
        if action == "finish_opening_check":
            report = table.finish_opening_check_by(by)
            record["passed"] = bool(report.get("ok"))
            return report
        if action == "shoe_change":
            record["family"] = choice["family"]
            hook = getattr(table, "shoe_change_by", None)  # EXTENSION POINT: the card family's table service
            if callable(hook):
                hook(by)
            return None
        if action == "incident":
            if body.category not in INCIDENT_CATEGORIES:
                raise _error(400, "Choose what kind of incident it is.")
            text = (body.text or "").strip()
            if len(text) < 3:
                raise _error(400, "Describe the incident in a few words.")
            entry = {"category": body.category, "text": text, "by": by}
            console.journal(
                "console_incident",
                entry,
                table_id=table.table_id,
                round_id=table.round.round_id if table.round and not table.round.is_final else None,
            )
            hub.incident(table.table_id, entry)
            record["category"] = body.category
            return entry
        raise _error(404, f"There is no action {action!r}.")  # pragma: no cover - ACTIONS and this list agree

    def _result_and_reason(body: ActionBody) -> tuple[dict[str, Any], str]:
        if not body.result:
            raise _error(400, "Enter the result.")
        reason = (body.reason or "").strip()
        if len(reason) < 3:
            raise _error(400, "Say in a few words why the result is entered by hand.")
        return body.result, reason

    # --- maintenance mode (technicians and admins) ---------------------------------------------------

    @router.post(PREFIX + "/api/tables/{table_id}/maintenance")
    async def set_maintenance(
        body: MaintenanceBody, table: Any = Depends(get_table), session: Session = Depends(csrf)
    ) -> dict[str, Any]:
        """Turn the table's maintenance mode on or off; every attempt is journaled with who made it."""
        user = session.user
        reason = body.reason.strip()
        record = {"action": "maintenance", "by": user.username, "on": body.on, "reason": reason}
        try:
            if not user.can("devices"):
                raise _error(403, f"A {user.role} may not put a table into maintenance; a technician does.")
            if body.on and len(reason) < 3:
                raise _error(400, "Say in a few words why the table goes into maintenance.")
            try:
                state = table.set_maintenance_by(user.username, body.on, reason)
            except ValueError as exc:  # RoundError: a round is open, already on, not on
                raise _error(409, str(exc)) from None
        except HTTPException as exc:
            message = exc.detail.get("error") if isinstance(exc.detail, dict) else str(exc.detail)
            console.journal(
                "console_action",
                {**record, "outcome": "refused", "status": exc.status_code, "message": message},
                table_id=table.table_id,
            )
            raise
        console.journal("console_action", {**record, "outcome": "done"}, table_id=table.table_id)
        return {"ok": True, "maintenance": state, "view": table_view(table, hub, user)}

    # --- devices (technicians) ---------------------------------------------------------------------

    @router.get(f"{PREFIX}/api/devices")
    async def devices(session: Session = Depends(require("devices"))) -> list[dict[str, Any]]:
        return [d for t in studio.tables.values() for d in device_views(t)]

    @router.get(PREFIX + "/api/devices/{table_id}/{role}")
    async def device_detail(
        found: tuple[Any, Any] = Depends(get_device), session: Session = Depends(require("devices"))
    ) -> dict[str, Any]:
        table, slot = found
        view = next(d for d in device_views(table) if d["device_id"] == slot.device_id)
        family = family_for_kind(slot.kind)
        return {
            "device": view,
            "family": family.public(),
            "log": hub.device_log(slot.device_id),
            "page": calibration.page_data(family.page, table, slot, hub),
            "table_id": table.table_id,
            "game": table.game.game_id,
            "maintenance": table.snapshot().get("maintenance"),
            "round": table.round.projection() if table.round is not None else None,
        }

    @router.get(PREFIX + "/api/devices/{table_id}/{role}/page")
    async def device_page(
        found: tuple[Any, Any] = Depends(get_device), session: Session = Depends(require("devices"))
    ) -> dict[str, Any]:
        """The family page's data now (the pages ask again when the device reports something)."""
        table, slot = found
        return {"page": calibration.page_data(family_for_kind(slot.kind).page, table, slot, hub)}

    @router.post(PREFIX + "/api/devices/{table_id}/{role}/decode")
    async def decode_payload(
        body: DecodeBody, found: tuple[Any, Any] = Depends(get_device), session: Session = Depends(csrf)
    ) -> dict[str, Any]:
        """Shoe decoder test: what the shoe's vendor table makes of a payload (typed in, or read off a card)."""
        _technician(session)
        table, slot = found
        if family_for_kind(slot.kind).id != "cards":
            raise _error(400, f"{slot.device_id} is not a card shoe.")
        try:
            return calibration.decode_payload(slot, body.payload.strip())
        except LookupError as exc:
            raise _error(409, str(exc)) from None

    @router.post(PREFIX + "/api/devices/{table_id}/{role}/decode-image")
    async def decode_image(
        request: Request, found: tuple[Any, Any] = Depends(get_device), session: Session = Depends(csrf)
    ) -> dict[str, Any]:
        """Shoe decoder test with a card image (the body is the image file): decoded as the camera shoe would."""
        _technician(session)
        table, slot = found
        if family_for_kind(slot.kind).id != "cards":
            raise _error(400, f"{slot.device_id} is not a card shoe.")
        size = int(request.headers.get("content-length") or 0)
        if size > calibration.MAX_IMAGE_BYTES:
            raise _error(413, "The image is too large (8 MB at most).")
        data = await request.body()
        if not data:
            raise _error(400, "Send a card image (PNG or JPEG).")
        if len(data) > calibration.MAX_IMAGE_BYTES:
            raise _error(413, "The image is too large (8 MB at most).")
        try:
            result = await asyncio.to_thread(calibration.decode_image, slot, data)
        except LookupError as exc:
            raise _error(409, str(exc)) from None
        except ValueError as exc:
            raise _error(400, str(exc)) from None
        console.journal(
            "console_action",
            {
                "action": "decoder_test",
                "by": session.user.username,
                "device_id": slot.device_id,
                "payloads": [p["payload"] for p in result["payloads"]],
            },
            table_id=table.table_id,
        )
        return result

    @router.get(PREFIX + "/api/devices/{table_id}/{role}/frame")
    async def device_frame(
        found: tuple[Any, Any] = Depends(get_device), session: Session = Depends(require("devices"))
    ) -> Response:
        """The camera's latest frame (JPEG), when its driver keeps one."""
        jpeg = await asyncio.to_thread(calibration.last_frame, found[1])
        if not jpeg:
            raise _error(404, "No frame: not available from this driver.")
        return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    def _technician(session: Session) -> None:
        if not session.user.can("devices"):
            raise _error(403, f"A {session.user.role} may not use the device pages.")

    @router.post(PREFIX + "/api/devices/{table_id}/{role}/command")
    async def device_command(
        body: CommandBody, found: tuple[Any, Any] = Depends(get_device), session: Session = Depends(csrf)
    ) -> dict[str, Any]:
        return _send(found, body.command.strip(), body.confirm, session)

    @router.post(PREFIX + "/api/devices/{table_id}/{role}/self-test")
    async def device_self_test(
        body: SelfTestBody, found: tuple[Any, Any] = Depends(get_device), session: Session = Depends(csrf)
    ) -> dict[str, Any]:
        family = family_for_kind(found[1].kind)
        if not family.self_test:
            raise _error(409, f"The console does not know how to self-test a {found[1].kind}.")
        return _send(found, family.self_test, body.confirm, session)

    def _send(found: tuple[Any, Any], command: str, confirm: bool, session: Session) -> dict[str, Any]:
        """Send one command to a device; every attempt is journaled with who made it and how it ended."""
        table, slot = found
        user = session.user
        record = {
            "action": "device_command",
            "by": user.username,
            "device_id": slot.device_id,
            "command": command,
        }
        try:
            if not user.can("device_commands"):
                raise _error(403, f"A {user.role} may not send commands to devices.")
            family = family_for_kind(slot.kind)
            if not family.allows(command):
                raise _error(400, f"{command!r} is not a command the console sends to a {slot.kind}.")
            maintenance = bool(getattr(table, "in_maintenance", False))
            warning = family.warning(command, maintenance=maintenance)
            if family.is_test(command):
                record["maintenance"] = maintenance
            if warning and not confirm:
                raise _error(409, warning, needs_confirm=True, warning=warning)
            if slot.driver is None or not slot.driver.connected:
                raise _error(409, f"{slot.device_id} is not connected; the command was not sent.")
            try:
                table.send_command_by(slot.role, command, user.username)
            except ValueError as exc:
                raise _error(409, str(exc)) from None
        except HTTPException as exc:
            message = exc.detail.get("error") if isinstance(exc.detail, dict) else str(exc.detail)
            console.journal(
                "console_action",
                {**record, "outcome": "refused", "status": exc.status_code, "message": message},
                table_id=table.table_id,
            )
            raise
        console.journal("console_action", {**record, "outcome": "done"}, table_id=table.table_id)
        hub.note_command(slot.device_id, command, user.username)
        return {"ok": True, "sent": command}

    # --- users (administrators) ---------------------------------------------------------------------

    @router.get(f"{PREFIX}/api/users")
    async def list_users(session: Session = Depends(require("users"))) -> list[dict[str, Any]]:
        users = await asyncio.to_thread(console.users.users)
        return [{"username": u.username, "role": u.role, "disabled": u.disabled} for u in users]

    def _admin(session: Session) -> None:
        if not session.user.can("users"):
            raise _error(403, f"A {session.user.role} may not manage users.")

    @router.post(f"{PREFIX}/api/users")
    async def add_user(body: NewUserBody, session: Session = Depends(csrf)) -> dict[str, Any]:
        _admin(session)
        try:
            user = await asyncio.to_thread(
                console.users.add, body.username.strip().lower(), body.role, body.secret
            )
        except AuthError as exc:
            raise _error(400, str(exc)) from None
        console.journal(
            "console_user",
            {"action": "add", "by": session.user.username, "username": user.username, "role": user.role},
        )
        return {"username": user.username, "role": user.role, "disabled": False}

    @router.post(PREFIX + "/api/users/{username}/disabled")
    async def disable_user(
        username: str, body: DisableBody, session: Session = Depends(csrf)
    ) -> dict[str, Any]:
        _admin(session)
        if username == session.user.username and body.disabled:
            raise _error(400, "You cannot disable yourself.")
        try:
            await asyncio.to_thread(console.users.set_disabled, username, body.disabled)
        except AuthError as exc:
            raise _error(404, str(exc)) from None
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
        username: str, body: SecretBody, session: Session = Depends(csrf)
    ) -> dict[str, Any]:
        _admin(session)
        try:
            await asyncio.to_thread(console.users.set_secret, username, body.secret)
        except AuthError as exc:
            raise _error(400, str(exc)) from None
        ended = console.sessions.end_user(username)
        console.journal(
            "console_user", {"action": "new_secret", "by": session.user.username, "username": username}
        )
        return {"ok": True, "sessions_ended": ended}

    # --- live updates ----------------------------------------------------------------------------------

    @router.websocket(f"{PREFIX}/ws")
    async def live(ws: WebSocket) -> None:
        if not _same_origin(ws):
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
        unknown = wanted - set(studio.tables)
        if (
            unknown
            or (wanted and not session.user.can("view_tables"))
            or (want_devices and not session.user.can("devices"))
        ):
            await ws.close(code=4403, reason="not allowed" if not unknown else "unknown table")
            return
        client = hub.subscribe(session, wanted, want_devices)
        receiver = asyncio.ensure_future(_drain(ws))
        try:
            await _send_loop(ws, client, receiver)
        except (WebSocketDisconnect, RuntimeError, ConnectionError):
            pass
        finally:
            hub.unsubscribe(client)
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
                table = studio.tables.get(table_id)
                if table is not None:
                    await ws.send_json(
                        {"type": "table", "table_id": table_id, "view": table_view(table, hub, user)}
                    )
            if client.devices and (periodic or any(e["type"] == "device" for e in events)):
                await ws.send_json(
                    {
                        "type": "devices",
                        "devices": [d for t in studio.tables.values() for d in device_views(t)],
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


__all__ = ["PERMISSIONS", "console_router"]
