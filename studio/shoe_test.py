"""The technician's card shoe page and decoder test: the vendor table, the decoder in use, the read/unreadable
counters, the last raw barcodes the shoe read with what the vendor table makes of each, and
:func:`decode_payload` / :func:`decode_image` for a payload typed in or a card image uploaded."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from devices.abilities import DecodesImages, ReadsCards

from .device_pages import DeviceLog, declares, health_of

if TYPE_CHECKING:  # pragma: no cover
    from devices.shoe.vendor_table import VendorTable

    from .table import DeviceSlot, Table

#: the largest card image a technician may upload for the decoder test
MAX_IMAGE_BYTES = 8 * 1024 * 1024
#: the card events of a shoe, as the device log keeps them
_SHOE_EVENTS = ("card_drawn", "card_unreadable")


# --- card shoes ------------------------------------------------------------------------------------


def _vendor_table(slot: DeviceSlot) -> VendorTable | None:
    """The vendor table the shoe's driver reads cards with (a driver that ReadsCards), else None."""
    return slot.driver.table if isinstance(slot.driver, ReadsCards) else None


def lookup_view(table: VendorTable, payload: str) -> dict[str, Any]:
    """What the vendor table says about a payload, in words for the page."""
    info = table.lookup(payload)
    words = {
        "card": f"card {info.card}",
        "special": "the cut card" if info.special == "cut_card" else str(info.special),
        "unknown": "unknown barcode",
        "bad_check": "misread (the check digit is wrong): never a card",
    }
    return {
        "payload": payload,
        "status": info.status,
        "card": info.card,
        "deck": info.deck,
        "special": info.special,
        "fields": dict(info.fields),
        "text": words[info.status],
    }


def _decoder_of(slot: DeviceSlot, health: dict[str, Any]) -> dict[str, Any]:
    device = health.get("device") or {}
    if declares(slot, DecodesImages):
        return {
            "name": device.get("decoder")
            or (slot.driver.decoder_name if isinstance(slot.driver, DecodesImages) else None),
            "symbology": device.get("symbology"),
            "where": "the studio decodes the camera's frames",
        }
    return {
        "name": "the shoe's own scanner",
        "symbology": device.get("symbology"),
        "where": "the scanner decodes the barcode and sends the payload as a line",
    }


def shoe_page(table: Table, slot: DeviceSlot, hub: DeviceLog) -> dict[str, Any]:
    health = health_of(slot)
    # a shoe that decodes pictures in the studio counts frames; one with a scanner of its own counts lines
    decodes = declares(slot, DecodesImages)
    device = health.get("device") or {}
    counters = dict(health.get("counters") or {})
    vendor = _vendor_table(slot)
    missing: list[str] = []
    if vendor is None:
        missing.append("vendor_table")
    reads = []
    for entry in hub.device_log(slot.device_id):
        if entry.get("kind") not in _SHOE_EVENTS:
            continue
        data = entry.get("data") or {}
        item = {
            "at": entry.get("at"),
            "kind": entry["kind"],
            "payload": data.get("payload"),
            "raw": data.get("raw"),
            "card": data.get("card"),
            "special": data.get("special"),
            "deck": data.get("deck"),
            "reason": data.get("reason"),
        }
        if entry["kind"] == "card_unreadable":
            item["text"] = f"unreadable: {data.get('reason')}"
        elif data.get("card"):
            item["text"] = f"card {data['card']}"
        elif data.get("special") == "cut_card":
            item["text"] = "the cut card"
        else:
            item["text"] = "unknown barcode"
        if vendor is not None and data.get("payload"):
            item["table_says"] = lookup_view(vendor, data["payload"])["text"]
        reads.append(item)
        if len(reads) >= 20:
            break
    if not decodes:
        figures = {
            "cards": (device.get("reads") or {}).get("cards"),
            "unreadable": device.get("unreadable"),
            "unknown": (device.get("reads") or {}).get("unknown"),
            "bad_check": (device.get("reads") or {}).get("bad_check"),
            "folded": (device.get("reads") or {}).get("folded"),
            "lines": counters.get("lines"),
        }
    else:
        figures = {
            k: counters.get(k)
            for k in (
                "frames",
                "cards",
                "unreadable",
                "reads_cards",
                "reads_unknown",
                "reads_bad_check",
                "reads_folded",
                "frames_missed",
                "analysis_errors",
            )
            if k in counters
        }
        figures.update(
            {"frame_ms_p50": device.get("frame_ms_p50"), "frame_ms_p99": device.get("frame_ms_p99")}
        )
    return {
        "kind": slot.kind,
        "vendor": {
            "name": vendor.vendor,
            "description": vendor.description,
            "symbology": vendor.symbology,
            "template": vendor.template,
            "check": vendor.check,
            "specials": dict(vendor.specials),
        }
        if vendor is not None
        else None,
        "decoder": _decoder_of(slot, health),
        "figures": {k: v for k, v in figures.items() if v is not None},
        "last_payload": health.get("last_payload") if decodes else health.get("last_line"),
        "reads": reads,
        # a camera shoe decodes images in the studio: a technician can upload one; a serial shoe decodes in its
        # scanner, so only what it sent (and payloads typed in) can be looked up
        "image_test": isinstance(slot.driver, DecodesImages),
        "missing": missing,
    }


def decode_payload(slot: DeviceSlot, payload: str) -> dict[str, Any]:
    vendor = _vendor_table(slot)
    if vendor is None:
        raise LookupError(
            "This shoe's driver does not expose its vendor table: not available from this driver."
        )
    return lookup_view(vendor, payload)


def decode_image(slot: DeviceSlot, data: bytes) -> dict[str, Any]:
    """Decode an uploaded card image as the shoe's driver decodes its frames, and look each payload up in its
    vendor table (LookupError when the driver decodes no pictures, ValueError for bytes that are no picture).
    Slow (OpenCV): call it in a worker thread."""
    driver = slot.driver
    vendor = _vendor_table(slot)
    if not isinstance(driver, DecodesImages) or vendor is None:
        raise LookupError("Only a camera shoe decodes images in the studio; this one cannot.")
    decoded = driver.decode_image(data)
    payloads = [lookup_view(vendor, p) for p in decoded["payloads"]]
    nothing = "no barcode read" + (
        " (no whole card found in the picture)" if decoded["view"] != "card" else ""
    )
    return {
        **decoded,
        "payloads": payloads,
        "text": "; ".join(p["text"] for p in payloads) if payloads else nothing,
    }
