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
  "limit"?}``: the report of :func:`app.dice_cli.folder_accuracy` over a folder of the pictures folder
  (403 outside it, journaled as ``dice_accuracy_refused``).
* ``GET /console/api/dice/{table_id}/{role}/calibration``: the camera's stored calibration.
* ``GET /console/api/dice/{table_id}/{role}/latest`` (JSON: the reading of the camera's latest frame) and
  ``GET /console/api/dice/{table_id}/{role}/latest.jpg`` (that frame with the tray and the dice drawn on it).
* ``GET /console/api/dice/{table_id}/evidence``: the evidence pictures the table's judge keeps.
* ``GET /console/api/dice/{table_id}/evidence/{evidence_id}.png`` (or ``.jpg``): one of them, annotated.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from app.dice_cli import folder_accuracy
from recognition.dice.annotate import annotate, encode_jpeg
from recognition.dice.calibration import Calibration, load_calibration
from recognition.dice.vision import read_dice

from .router import COOKIE, CSRF_HEADER, PREFIX, _same_origin

API = f"{PREFIX}/api/dice"
DICE_KIND = "dice-camera"
#: the most pictures one accuracy run reads (a run reads about 100 pictures a second)
MAX_PICTURES = 20_000
MAX_FOLDERS_LISTED = 500


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


def _error(status: int, message: str) -> HTTPException:
    return HTTPException(status, {"error": message})


def _console_of(console: Any) -> Any:
    """The console's shared state, from console_router(...) (it carries it as .console) or itself."""
    return getattr(console, "console", console)


def _evidence_items(judge: Any) -> list[dict[str, Any]]:
    out = []
    for evidence_id in list(getattr(judge, "evidence_ids", None) or []):
        ev = judge.evidence(evidence_id)
        if ev is not None:
            out.append(
                {
                    "evidence_id": ev.evidence_id,
                    "device_id": ev.device_id,
                    "frame_number": ev.frame_number,
                    "at": ev.at.isoformat(),
                    "code": ev.code,
                    "message": ev.message,
                    "status": ev.reading.status,
                    "faces": ev.reading.faces,
                }
            )
    return out


def _calibration_view(judge: Any, device_id: str) -> dict[str, Any]:
    cal = judge.calibration_for(device_id)
    return {
        "dice": getattr(judge, "dice", None),
        "colors": list(judge.colors) if getattr(judge, "colors", None) else None,
        "calibration": cal.model_dump(mode="json") if cal is not None else None,
        "version": cal.version if cal is not None else None,
        "digest": cal.digest() if cal is not None else None,
    }


def page_data(table: Any, slot: Any, hub: Any = None) -> dict[str, Any] | None:
    """The dice camera page's data for the console's device page (dealer_ui.calibration's family hook):
    the calibration the table reads this camera with and the table's evidence pictures. Cheap (no picture
    is read): the live picture comes from the routes below."""
    judge = getattr(table, "judge", None)
    if judge is None or not callable(getattr(judge, "calibration_for", None)):
        return None
    base = f"{API}/{table.table_id}/{slot.role}"
    return {
        "device_id": slot.device_id,
        **_calibration_view(judge, slot.device_id),
        "evidence": _evidence_items(judge),
        "urls": {
            "latest": f"{base}/latest",
            "latest_jpg": f"{base}/latest.jpg",
            "calibration": f"{base}/calibration",
            "accuracy": f"{API}/accuracy",
            "evidence": f"{API}/{table.table_id}/evidence",
        },
    }


def router(studio: Any, console: Any) -> APIRouter:
    """The dice routes for `studio`, signed in through `console` (the router console_router returned, or its
    .console)."""
    state = _console_of(console)
    sessions = state.sessions
    r = APIRouter()

    # --- who may ---------------------------------------------------------------------------------

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

    # --- tables, cameras, judges (through the studio) ----------------------------------------------

    def table_of(table_id: str) -> Any:
        table = studio.tables.get(table_id)
        if table is None:
            raise _error(404, f"There is no table {table_id!r}.")
        return table

    def camera_of(table_id: str, role: str) -> tuple[Any, Any]:
        table = table_of(table_id)
        slot = next((s for s in table.devices.values() if s.role == role), None)
        if slot is None:
            raise _error(404, f"Table {table_id} has no device {role!r}.")
        if slot.kind != DICE_KIND:
            raise _error(409, f"{slot.device_id} is a {slot.kind}, not a dice camera.")
        return table, slot

    def dice_judge(table: Any) -> Any:
        judge = table.judge
        if not callable(getattr(judge, "calibration_for", None)):
            raise _error(409, f"Table {table.table_id} does not read dice with a camera.")
        return judge

    def reading_args(judge: Any, device_id: str) -> tuple[Calibration | None, int | None, Any]:
        return judge.calibration_for(device_id), getattr(judge, "dice", None), getattr(judge, "colors", None)

    # --- accuracy over a folder ----------------------------------------------------------------------

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
        calibration: Calibration | None = None
        if body.calibration is not None:
            try:
                calibration = load_calibration(body.calibration)
            except ValueError as exc:
                raise _error(400, f"The calibration is not valid: {exc}") from None
        elif body.table_id or body.role:
            if not (body.table_id and body.role):
                raise _error(400, "Give both the table and the camera role, or neither.")
            table, slot = camera_of(body.table_id, body.role)
            calibration = dice_judge(table).calibration_for(slot.device_id)
        folder = pictures_folder(body.folder, session.user.username)
        try:
            report = await asyncio.to_thread(
                folder_accuracy, folder, calibration, body.count, limit=body.limit or MAX_PICTURES
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

    # --- calibration and the live picture -------------------------------------------------------------

    @r.get(API + "/{table_id}/{role}/calibration")
    async def calibration(table_id: str, role: str, session: Any = Depends(technician)) -> dict[str, Any]:
        table, slot = camera_of(table_id, role)
        judge = dice_judge(table)
        return {
            "table_id": table_id,
            "role": role,
            "device_id": slot.device_id,
            **_calibration_view(judge, slot.device_id),
        }

    def latest_frame(slot: Any) -> tuple[int, Any]:
        driver = slot.driver
        latest = getattr(driver, "latest", None) if driver is not None else None
        found = latest() if callable(latest) else None
        if found is None:
            raise _error(409, f"{slot.device_id} has not sent a picture yet.")
        return found

    @r.get(API + "/{table_id}/{role}/latest")
    async def latest_reading(table_id: str, role: str, session: Any = Depends(technician)) -> dict[str, Any]:
        table, slot = camera_of(table_id, role)
        cal, dice, colors = reading_args(dice_judge(table), slot.device_id)
        number, image = latest_frame(slot)
        reading = await asyncio.to_thread(read_dice, image, cal, dice, colors)
        return {
            "device_id": slot.device_id,
            "frame_number": number,
            "width": int(image.shape[1]),
            "height": int(image.shape[0]),
            "tray": reading.tray,
            "die_size": reading.die_size,
            "felt_value": reading.felt_value,
            **reading.as_json(),
        }

    @r.get(API + "/{table_id}/{role}/latest.jpg")
    async def latest_picture(table_id: str, role: str, session: Any = Depends(technician)) -> Response:
        table, slot = camera_of(table_id, role)
        cal, dice, colors = reading_args(dice_judge(table), slot.device_id)
        number, image = latest_frame(slot)

        def draw() -> bytes:
            reading = read_dice(image, cal, dice, colors)
            return encode_jpeg(annotate(image, reading, f"{slot.device_id} frame {number}"), 85)

        data = await asyncio.to_thread(draw)
        return Response(data, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    # --- evidence of held rounds ------------------------------------------------------------------------

    @r.get(API + "/{table_id}/evidence")
    async def evidence_list(table_id: str, session: Any = Depends(technician)) -> list[dict[str, Any]]:
        return _evidence_items(dice_judge(table_of(table_id)))

    @r.get(API + "/{table_id}/evidence/{name:path}")
    async def evidence_picture(table_id: str, name: str, session: Any = Depends(technician)) -> Response:
        judge = dice_judge(table_of(table_id))
        stem, dot, ext = name.rpartition(".")
        if not dot or ext.lower() not in ("png", "jpg", "jpeg"):
            raise _error(404, "Ask for the picture as .png or .jpg.")
        ev = judge.evidence(stem)
        if ev is None:
            raise _error(
                404, f"There is no evidence picture {stem!r} any more (only the last ones are kept)."
            )
        if ext.lower() == "png":
            data, media = await asyncio.to_thread(ev.png), "image/png"
        else:
            data, media = await asyncio.to_thread(ev.jpeg), "image/jpeg"
        return Response(data, media_type=media, headers={"Cache-Control": "no-store"})

    return r


__all__ = ["API", "AccuracyBody", "page_data", "router"]
