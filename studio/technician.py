"""The studio's services for the technician's device pages: what each family page shows, the shoe decoder
test, the camera's live frame and the device's self-test.

What a page shows is built from each driver's public face (health(), its documented attributes), the table's
snapshot and the device log the console keeps (:class:`DeviceLog`). What a device can do is what its driver
declares (devices/abilities.py): the services ask the driver, never its kind. Nothing here changes a device
except :func:`self_test_command`'s command, which the caller sends through the table.

One builder per family page:

* ``cards``: the shoe decoder test: the vendor table, the decoder in use, the read/unreadable counters, the
  last raw barcodes the shoe read with what the vendor table makes of each, and :func:`decode_payload` /
  :func:`decode_image` for a payload typed in or a card image uploaded;
* ``balls``: the ball-set check (the table's opening check and the reads since it started) and the machine's
  Modbus state;
* ``money_wheel``: segments, layout, zero offset and counting direction as the judge uses them, the live
  position and the segment under the pointer, the zero offset a ``mark_zero`` would set now;
* ``roulette_camera``: the camera's calibration, its latest reading and whether the driver keeps a frame.

Whatever a driver does not expose is named in the page data under ``missing`` (the page says "not
available from this driver"), so a page never guesses. Heavy work (decoding an image) runs in a worker
thread: callers on the event loop use ``asyncio.to_thread``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from devices.abilities import KeepsFrames, SelfTests

from .device_pages import (
    DeviceLog,
    balls_page,
    call_hook,
    driver_type,
    money_wheel_page,
    roulette_camera_page,
)
from .shoe_test import MAX_IMAGE_BYTES, decode_image, decode_payload, shoe_page

if TYPE_CHECKING:  # pragma: no cover
    from .table import DeviceSlot, Table

__all__ = [
    "MAX_IMAGE_BYTES",
    "DeviceLog",
    "connected",
    "decode_image",
    "decode_payload",
    "last_frame",
    "page_data",
    "self_test_command",
    "stamped",
]


def last_frame(slot: DeviceSlot) -> bytes | None:
    """The camera's latest frame as JPEG bytes, when its driver keeps one (None: none, or none yet)."""
    if not isinstance(slot.driver, KeepsFrames):
        return None
    return call_hook(slot.driver.last_frame_jpeg)


def connected(slot: DeviceSlot) -> bool:
    """The device is running and its link is up (a command sent now can reach it)."""
    return slot.driver is not None and slot.driver.connected


def self_test_command(slot: DeviceSlot) -> str | None:
    """The command that starts the device's own self-test, as its driver declares it (None: it has none)."""
    cls = driver_type(slot)
    return cls.self_test_command if cls is not None and issubclass(cls, SelfTests) else None


# --- dispatch ------------------------------------------------------------------------------------------------

BUILDERS = {
    "cards": shoe_page,
    "balls": balls_page,
    "money_wheel": money_wheel_page,
    "roulette_camera": roulette_camera_page,
}


def page_data(page: str, table: Table, slot: DeviceSlot, hub: DeviceLog) -> dict[str, Any] | None:
    """The family page's data, or None for a page the studio builds nothing for (the wheel, the generic page,
    a page whose data a console family module of its own provides)."""
    builder = BUILDERS.get(page)
    if builder is None:
        return None
    return stamped(builder(table, slot, hub))


def stamped(data: dict[str, Any] | None) -> dict[str, Any] | None:
    """The page data with the time it was made (kept when the builder set it)."""
    if isinstance(data, dict):
        data.setdefault("generated_at", datetime.now(UTC).isoformat().replace("+00:00", "Z"))
    return data
