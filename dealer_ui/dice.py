"""The console's dice camera API, for technicians: accuracy over a folder of pictures, the calibration a
table's dice camera reads with, the live picture with what the recognizer sees, and the evidence pictures
of held rounds.

    from dealer_ui.dice import router as dice_router
    console = console_router(studio)
    app.include_router(console)
    app.include_router(dice_router(studio, console))

Every route needs a signed-in person with the "devices" permission (technicians, administrators); the
session is the console's own (its cookie, its session store, its CSRF token for the POST). Tables are
reached through the studio (``studio.tables``: the table, its device slots and its judge), as the rest of
the console does. The recognizer's work (reading a picture, drawing on it, the accuracy run that reads a
folder on this machine) runs in worker threads, never on the studio's event loop.

Routes (JSON unless said otherwise; errors are ``{"detail": {"error": "..."}}``):

* ``GET /console/api/dice/pictures``: the studio's pictures folder (``[studio] pictures_dir``, default
  ``pictures`` in the data folder) and its subfolders; accuracy runs read only from under it.
* ``POST /console/api/dice/accuracy`` body ``{"folder", "count"?, "table_id"?, "role"?, "calibration"?,
  "limit"?}``: the report of :func:`studio.dice_camera.folder_accuracy` over a folder of the pictures folder
  (403 outside it, journaled as ``dice_accuracy_refused``).
* ``GET /console/api/dice/{table_id}/{role}/calibration``: the camera's stored calibration.
* ``GET /console/api/dice/{table_id}/{role}/latest`` (JSON: the reading of the camera's latest frame) and
  ``GET /console/api/dice/{table_id}/{role}/latest.jpg`` (that frame with the tray and the dice drawn on it).
* ``GET /console/api/dice/{table_id}/evidence``: the evidence pictures the table's judge keeps.
* ``GET /console/api/dice/{table_id}/evidence/{evidence_id}.png`` (or ``.jpg``): one of them, annotated.

Calibration in a minute (:mod:`studio.dice_calibration`), under ``/console/api/dice/{table_id}/{role}/setup``:

* ``POST .../setup/{empty|dice}`` with the picture as the body (PNG, JPEG...): the empty tray's or the dice's
  picture; ``POST .../setup/{empty|dice}/grab``: the camera's latest frame instead;
  ``GET .../setup/{empty|dice|derived}.jpg``: the picture (``derived``: the dice found drawn on it).
* ``POST .../setup/derive`` body ``{"count"?}``: what the two pictures give (felt, tray, die size, colours,
  dice found, the calibration and its digest); nothing is stored.
* ``POST .../setup/accept`` body ``{"digest"}``: store that calibration as the next version and journal it
  (``dice_calibration_accepted``); ``GET .../setup/versions``: the versions stored.

The recognizer itself is reached only through the studio's services (studio.dice_camera,
studio.dice_calibration): this module imports nothing of recognition.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from studio import dice_camera as cameras
from studio.dice_calibration import MAX_PICTURE_BYTES, DiceCalibrationDesk
from studio.dice_camera import DiceCameraError

from .console import Console
from .router import COOKIE, CSRF_HEADER, PREFIX, _same_origin

API = f"{PREFIX}/api/dice"
#: the most pictures one accuracy run reads (a run reads about 100 pictures a second)
MAX_PICTURES = 20_000
MAX_FOLDERS_LISTED = 500
_STATUS = {"not_found": 404, "conflict": 409, "invalid": 400}


class AccuracyBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    folder: str = Field(
        min_length=1,
        max_length=1000,
        description="a folder in the studio's pictures folder: a name relative to it, or a full path",
    )
    count: int | None = Field(None, ge=1, le=12, description="dice thrown (default: each picture's truth)")
    table_id: str | None = Field(None, max_length=64, description="read with this table's camera calibration")
    role: str | None = Field(None, max_length=64, description="the camera's role at that table (camera-1)")
    calibration: dict[str, Any] | None = Field(None, description="a calibration document to read with")
    limit: int | None = Field(None, ge=1, le=MAX_PICTURES)


class DeriveBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    count: int | None = Field(None, ge=1, le=12, description="how many dice lie on the tray (checked)")


class AcceptBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    digest: str = Field(min_length=8, max_length=64, description="the digest of the calibration shown")


def _error(status: int, message: str) -> HTTPException:
    return HTTPException(status, {"error": message})


def _console_of(console: Any) -> Any:
    """The console's shared state, from console_router(...) (it carries it as .console) or itself."""
    return console if isinstance(console, Console) else console.console


def page_data(table: Any, slot: Any, hub: Any = None) -> dict[str, Any] | None:
    """The dice camera page's data for the console's device page (dealer_ui.calibration's family hook):
    the calibration the table reads this camera with and the table's evidence pictures. Cheap (no picture
    is read): the live picture comes from the routes below."""
    judge = table.judge
    if not isinstance(judge, cameras.DiceCameraJudge):
        return None
    base = f"{API}/{table.table_id}/{slot.role}"
    return {
        "device_id": slot.device_id,
        **cameras.calibration_view(judge, slot.device_id),
        "evidence": cameras.evidence_items(judge),
        "urls": {
            "latest": f"{base}/latest",
            "latest_jpg": f"{base}/latest.jpg",
            "calibration": f"{base}/calibration",
            "accuracy": f"{API}/accuracy",
            "evidence": f"{API}/{table.table_id}/evidence",
        },
    }


@dataclasses.dataclass(frozen=True)
class _Access:
    """What every area's routes share: who may (the console's session, CSRF and origin checks) and how a
    studio dice service is called."""

    studio: Any
    state: Any
    technician: Callable[..., Any]
    technician_post: Callable[..., Any]

    async def service(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a studio dice service in a worker thread (picture work is slow); its errors become HTTP ones."""
        try:
            return await asyncio.to_thread(fn, *args, **kwargs)
        except DiceCameraError as exc:
            raise _error(_STATUS[exc.kind], exc.message) from None

    def judge_of(self, table_id: str, role: str | None = None) -> tuple[Any, Any]:
        """(judge, slot or None) of a table's dice camera, through the studio."""
        try:
            if role is None:
                return cameras.dice_judge(cameras.table_of(self.studio, table_id)), None
            table, slot = cameras.camera_of(self.studio, table_id, role)
            return cameras.dice_judge(table), slot
        except DiceCameraError as exc:
            raise _error(_STATUS[exc.kind], exc.message) from None


def _access(studio: Any, state: Any) -> _Access:
    sessions = state.sessions

    def technician(request: Request) -> Any:
        s = sessions.get(request.cookies.get(COOKIE))
        if s is None:
            raise _error(401, "Please sign in.")
        if not s.user.can("devices"):
            raise _error(403, f"A {s.user.role} may not look after dice cameras.")
        return s

    def technician_post(request: Request, session: Any = Depends(technician)) -> Any:
        if not _same_origin(request):
            raise _error(403, "This request did not come from the console's own page.")
        if request.headers.get(CSRF_HEADER) != session.csrf:
            raise _error(403, "The page's security token is missing or old; reload the page.")
        return session

    return _Access(studio, state, technician, technician_post)


def _accuracy_router(access: _Access) -> APIRouter:
    """Accuracy over a folder of the studio's pictures folder."""
    r = APIRouter()
    studio, state, judge_of = access.studio, access.state, access.judge_of
    technician, technician_post = access.technician, access.technician_post

    def pictures_root() -> Path:
        return Path(studio.pictures_dir).resolve()

    def pictures_folder(given: str, who: str) -> Path:
        """The folder a technician named, inside the studio's pictures folder (a name relative to it, or a
        full path under it): the API must not become a way to probe the studio machine's other folders."""
        root = pictures_root()
        folder = (root / given.strip()).resolve()
        if folder != root and root not in folder.parents:
            state.journal(
                "dice_accuracy_refused", {"by": who, "folder": given, "reason": "outside_pictures_dir"}
            )
            raise _error(
                403,
                f"Pictures are read only from the studio's pictures folder {str(root)!r} "
                f"(setting [studio] pictures_dir); {given!r} is outside it.",
            )
        if not folder.is_dir():
            raise _error(404, f"There is no folder {str(folder)!r} on the studio machine.")
        return folder

    @r.get(f"{API}/pictures")
    async def pictures(session: Any = Depends(technician)) -> dict[str, Any]:
        root = pictures_root()
        folders: list[str] = []
        if root.is_dir():
            folders = sorted(p.name for p in root.iterdir() if p.is_dir())[:MAX_FOLDERS_LISTED]
        return {"root": str(root), "exists": root.is_dir(), "folders": folders}

    @r.post(f"{API}/accuracy")
    async def run_accuracy(body: AccuracyBody, session: Any = Depends(technician_post)) -> dict[str, Any]:
        calibration = None
        if body.calibration is not None:
            try:
                calibration = cameras.parse_calibration(body.calibration)
            except DiceCameraError as exc:
                raise _error(400, exc.message) from None
        elif body.table_id or body.role:
            if not (body.table_id and body.role):
                raise _error(400, "Give both the table and the camera role, or neither.")
            judge, slot = judge_of(body.table_id, body.role)
            calibration = judge.calibration_for(slot.device_id)
        folder = pictures_folder(body.folder, session.user.username)
        try:
            report = await asyncio.to_thread(
                cameras.folder_accuracy, folder, calibration, body.count, limit=body.limit or MAX_PICTURES
            )
        except (OSError, ValueError) as exc:
            raise _error(400, f"The folder could not be read: {exc}") from None
        if body.table_id and body.calibration is None:
            report["calibration_source"] = f"{body.table_id}/{body.role}"
        state.journal(
            "dice_accuracy_run",
            {
                "by": session.user.username,
                "folder": str(folder),
                "frames": report["frames"],
                "correct": report["correct"],
                "uncertain": report["uncertain"],
                "wrong_ok": report["wrong_ok"],
                "calibration": report["calibration"],
            },
        )
        return report

    return r


def _camera_router(access: _Access, desk: DiceCalibrationDesk) -> APIRouter:
    """A camera's stored calibration and its live picture with what the recognizer sees."""
    r = APIRouter()
    studio, technician, service, judge_of = access.studio, access.technician, access.service, access.judge_of

    @r.get(API + "/{table_id}/{role}/calibration")
    async def calibration(table_id: str, role: str, session: Any = Depends(technician)) -> dict[str, Any]:
        judge, slot = judge_of(table_id, role)
        stored = await service(desk.stored, table_id, role)
        return {
            "table_id": table_id,
            "role": role,
            "device_id": slot.device_id,
            **cameras.calibration_view(judge, slot.device_id),
            "stored_version": stored.version if stored is not None else None,
        }

    @r.get(API + "/{table_id}/{role}/latest")
    async def latest_reading(table_id: str, role: str, session: Any = Depends(technician)) -> dict[str, Any]:
        return dict(await service(cameras.read_latest, studio, table_id, role))

    @r.get(API + "/{table_id}/{role}/latest.jpg")
    async def latest_picture(table_id: str, role: str, session: Any = Depends(technician)) -> Response:
        data = await service(cameras.latest_jpeg, studio, table_id, role)
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    return r


def _setup_router(access: _Access, desk: DiceCalibrationDesk) -> APIRouter:
    """Calibration in a minute: two pictures, derive, accept."""
    r = APIRouter()
    technician, technician_post = access.technician, access.technician_post
    service, judge_of = access.service, access.judge_of

    setup = API + "/{table_id}/{role}/setup"

    # (before the picture routes: '/derive' and '/accept' are not picture names)
    @r.post(setup + "/derive")
    async def setup_derive(
        table_id: str, role: str, body: DeriveBody, session: Any = Depends(technician_post)
    ) -> dict[str, Any]:
        return dict(await service(desk.derive, table_id, role, body.count))

    @r.post(setup + "/accept")
    async def setup_accept(
        table_id: str, role: str, body: AcceptBody, session: Any = Depends(technician_post)
    ) -> dict[str, Any]:
        try:
            return dict(await service(desk.accept, table_id, role, body.digest, session.user.username))
        except OSError as exc:
            raise _error(
                503, f"The calibration could not be stored or journaled ({exc}); nothing changed."
            ) from None

    @r.post(setup + "/{which}")
    async def setup_picture(
        table_id: str, role: str, which: Literal["empty", "dice"], request: Request,
        session: Any = Depends(technician_post),
    ) -> dict[str, Any]:  # fmt: skip
        data = await request.body()
        if len(data) > MAX_PICTURE_BYTES:
            raise _error(413, "The picture is too large.")
        return dict(await service(desk.put_picture, table_id, role, which, data))

    @r.post(setup + "/{which}/grab")
    async def setup_grab(
        table_id: str, role: str, which: Literal["empty", "dice"], session: Any = Depends(technician_post)
    ) -> dict[str, Any]:
        return dict(await service(desk.grab_picture, table_id, role, which))

    @r.get(setup + "/{which}.jpg")
    async def setup_jpeg(
        table_id: str,
        role: str,
        which: Literal["empty", "dice", "derived"],
        session: Any = Depends(technician),
    ) -> Response:
        data = await service(desk.picture_jpeg, table_id, role, which)
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @r.get(setup + "/versions")
    async def setup_versions(
        table_id: str, role: str, session: Any = Depends(technician)
    ) -> list[dict[str, Any]]:
        judge_of(table_id, role)
        return list(await service(desk.versions, table_id, role))

    return r


def _evidence_router(access: _Access) -> APIRouter:
    """The evidence pictures of held rounds."""
    r = APIRouter()
    technician, service, judge_of = access.technician, access.service, access.judge_of

    @r.get(API + "/{table_id}/evidence")
    async def evidence_list(table_id: str, session: Any = Depends(technician)) -> list[dict[str, Any]]:
        return cameras.evidence_items(judge_of(table_id)[0])

    @r.get(API + "/{table_id}/evidence/{name:path}")
    async def evidence_picture(table_id: str, name: str, session: Any = Depends(technician)) -> Response:
        judge = judge_of(table_id)[0]
        stem, dot, ext = name.rpartition(".")
        if not dot or ext.lower() not in ("png", "jpg", "jpeg"):
            raise _error(404, "Ask for the picture as .png or .jpg.")
        fmt = "png" if ext.lower() == "png" else "jpg"
        data, media = await service(cameras.evidence_picture, judge, stem, fmt)
        return Response(data, media_type=media, headers={"Cache-Control": "no-store"})

    return r


def router(studio: Any, console: Any) -> APIRouter:
    """The dice routes for `studio`, signed in through `console` (the router console_router returned, or its
    .console)."""
    access = _access(studio, _console_of(console))
    desk = DiceCalibrationDesk(studio)
    r = APIRouter()
    # in this order: a table's evidence routes come after its camera routes, as they always matched
    for area in (
        _accuracy_router(access),
        _camera_router(access, desk),
        _setup_router(access, desk),
        _evidence_router(access),
    ):
        r.include_router(area)
    return r


#: the dice camera's technician page (dealer_ui.devices.family_pages)
PAGE_DATA = {"dice": page_data}

__all__ = ["API", "PAGE_DATA", "AcceptBody", "AccuracyBody", "DeriveBody", "page_data", "router"]
