"""The technicians' side: the devices, their family pages, the shoe decoder test, the camera's frame, device
commands and self-tests (studio services: studio/technician.py)."""

# no `from __future__ import annotations`: FastAPI must evaluate the routes' Annotated[..., Depends(...)]
# hints, and they name the console of the enclosing function
import asyncio
import logging
from collections.abc import Callable
from functools import cache
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from discovery import discover
from studio import technician

from .auth import Session
from .bodies import CommandBody, DecodeBody, SelfTestBody
from .console import PREFIX, Console, error
from .families import family_of
from .views import device_views

log = logging.getLogger(__name__)


#: what builds a console family page's data: (table, slot, hub) -> the page's data or None
PageData = Callable[[Any, Any, Any], "dict[str, Any] | None"]


@cache
def family_pages() -> dict[str, PageData]:
    """Page name -> its data builder, from the ``PAGE_DATA`` dicts of the console's modules (a family module
    such as ``dealer_ui/dice.py`` registers its page: EXTENSION POINT), found as every registry is."""
    import dealer_ui

    return discover(dealer_ui, "PAGE_DATA", what="console family page")


def family_page(page: str, table: Any, slot: Any, hub: Any) -> dict[str, Any] | None:
    """The family page's data: the studio's technician service builds it, or the console family module that
    registered the page (``PAGE_DATA = {"dice": page_data}`` in ``dealer_ui/dice.py``); None for a page that
    needs none (the wheel, the generic page)."""
    data = technician.page_data(page, table, slot, hub)
    if data is not None:
        return data
    builder = family_pages().get(page)
    return technician.stamped(builder(table, slot, hub)) if builder is not None else None


def send_command(
    console: Console, found: tuple[Any, Any], command: str, confirm: bool, session: Session
) -> dict[str, Any]:
    """Send one command to a device; every attempt is journaled with who made it and how it ended."""
    table, slot = found
    user = session.user
    record = {
        "action": "device_command",
        "by": user.username,
        "device_id": slot.device_id,
        "command": command,
    }
    with console.action(record, table_id=table.table_id):
        if not user.can("device_commands"):
            raise error(403, f"A {user.role} may not send commands to devices.")
        family = family_of(slot)
        if not family.allows(command):
            raise error(400, f"{command!r} is not a command the console sends to a {slot.kind}.")
        maintenance = table.in_maintenance
        warning = family.warning(command, maintenance=maintenance)
        if family.is_test(command):
            record["maintenance"] = maintenance
        if warning and not confirm:
            raise error(409, warning, needs_confirm=True, warning=warning)
        if not technician.connected(slot):
            raise error(409, f"{slot.device_id} is not connected; the command was not sent.")
        table.send_command_by(slot.role, command, user.username)  # refused (ValueError): 409
    console.hub.note_command(slot.device_id, command, user.username)
    return {"ok": True, "sent": command}


def devices_router(console: Console) -> APIRouter:
    """The device API for technicians; every command attempt is journaled with who made it."""
    router = APIRouter()

    @router.get(f"{PREFIX}/api/devices")
    async def devices(
        session: Annotated[Session, Depends(console.require("devices"))],
    ) -> list[dict[str, Any]]:
        return [d for t in console.studio.tables.values() for d in device_views(t)]

    @router.get(PREFIX + "/api/devices/{table_id}/{role}")
    async def device_detail(
        found: Annotated[tuple[Any, Any], Depends(console.get_device)],
        session: Annotated[Session, Depends(console.require("devices"))],
    ) -> dict[str, Any]:
        table, slot = found
        view = next(d for d in device_views(table) if d["device_id"] == slot.device_id)
        family = family_of(slot)
        return {
            "device": view,
            "family": family.public(),
            "log": console.hub.device_log(slot.device_id),
            "page": family_page(family.page, table, slot, console.hub),
            "table_id": table.table_id,
            "game": table.game.game_id,
            "maintenance": table.snapshot().get("maintenance"),
            "round": table.round.projection() if table.round is not None else None,
        }

    @router.get(PREFIX + "/api/devices/{table_id}/{role}/page")
    async def device_page(
        found: Annotated[tuple[Any, Any], Depends(console.get_device)],
        session: Annotated[Session, Depends(console.require("devices"))],
    ) -> dict[str, Any]:
        """The family page's data now (the pages ask again when the device reports something)."""
        table, slot = found
        return {"page": family_page(family_of(slot).page, table, slot, console.hub)}

    @router.post(PREFIX + "/api/devices/{table_id}/{role}/decode")
    async def decode_payload(
        body: DecodeBody,
        found: Annotated[tuple[Any, Any], Depends(console.get_device)],
        session: Annotated[Session, Depends(console.csrf)],
    ) -> dict[str, Any]:
        """Shoe decoder test: what the shoe's vendor table makes of a payload (typed in, or read off a card)."""
        _, slot = _card_shoe(found, session)
        try:
            return technician.decode_payload(slot, body.payload.strip())
        except LookupError as exc:
            raise error(409, str(exc)) from None

    @router.post(PREFIX + "/api/devices/{table_id}/{role}/decode-image")
    async def decode_image(
        request: Request,
        found: Annotated[tuple[Any, Any], Depends(console.get_device)],
        session: Annotated[Session, Depends(console.csrf)],
    ) -> dict[str, Any]:
        """Shoe decoder test with a card image (the body is the image file): decoded as the camera shoe would."""
        table, slot = _card_shoe(found, session)
        size = int(request.headers.get("content-length") or 0)
        if size > technician.MAX_IMAGE_BYTES:
            raise error(413, "The image is too large (8 MB at most).")
        data = await request.body()
        if not data:
            raise error(400, "Send a card image (PNG or JPEG).")
        if len(data) > technician.MAX_IMAGE_BYTES:
            raise error(413, "The image is too large (8 MB at most).")
        try:
            result = await asyncio.to_thread(technician.decode_image, slot, data)
        except LookupError as exc:
            raise error(409, str(exc)) from None
        except ValueError as exc:
            raise error(400, str(exc)) from None
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
        found: Annotated[tuple[Any, Any], Depends(console.get_device)],
        session: Annotated[Session, Depends(console.require("devices"))],
    ) -> Response:
        """The camera's latest frame (JPEG), when its driver keeps one."""
        jpeg = await asyncio.to_thread(technician.last_frame, found[1])
        if not jpeg:
            raise error(404, "No frame: not available from this driver.")
        return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    def _card_shoe(found: tuple[Any, Any], session: Session) -> tuple[Any, Any]:
        """The table and the card shoe a technician tests (403 for others, 400 for another device)."""
        if not session.user.can("devices"):
            raise error(403, f"A {session.user.role} may not use the device pages.")
        if family_of(found[1]).id != "cards":
            raise error(400, f"{found[1].device_id} is not a card shoe.")
        return found

    @router.post(PREFIX + "/api/devices/{table_id}/{role}/command")
    async def device_command(
        body: CommandBody,
        found: Annotated[tuple[Any, Any], Depends(console.get_device)],
        session: Annotated[Session, Depends(console.csrf)],
    ) -> dict[str, Any]:
        return send_command(console, found, body.command.strip(), body.confirm, session)

    @router.post(PREFIX + "/api/devices/{table_id}/{role}/self-test")
    async def device_self_test(
        body: SelfTestBody,
        found: Annotated[tuple[Any, Any], Depends(console.get_device)],
        session: Annotated[Session, Depends(console.csrf)],
    ) -> dict[str, Any]:
        command = technician.self_test_command(found[1])
        if command is None:
            raise error(409, f"A {found[1].kind} has no self-test the studio can start.")
        return send_command(console, found, command, body.confirm, session)

    return router
