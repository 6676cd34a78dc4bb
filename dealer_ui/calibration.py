"""What the technician's family pages show: built from each driver's public face (health(), its documented
attributes), the table's snapshot and the device log the console keeps. Nothing here changes a device.

One builder per family page (``Family.page``):

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

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from studio.table import DeviceSlot, Table

    from .live import ConsoleHub

log = logging.getLogger(__name__)

#: the largest card image a technician may upload for the decoder test
MAX_IMAGE_BYTES = 8 * 1024 * 1024
#: the card events of a shoe, as the device log keeps them
_SHOE_EVENTS = ("card_drawn", "card_unreadable")
_BALL_EVENTS = ("ball_read", "ball_unreadable")


def _health(slot: DeviceSlot) -> dict[str, Any]:
    if slot.driver is None:
        return {"device_id": slot.device_id, "connected": False}
    try:
        return dict(slot.driver.health())
    except Exception as exc:  # a driver bug must not break the page
        log.exception("console: health() of %s failed", slot.device_id)
        return {"device_id": slot.device_id, "connected": False, "last_error": f"health() failed: {exc}"}


# --- card shoes ------------------------------------------------------------------------------------


def _vendor_table(slot: DeviceSlot) -> Any:
    """The vendor table the shoe's driver uses (its documented ``table`` attribute), else None."""
    return getattr(slot.driver, "table", None) if slot.driver is not None else None


def lookup_view(table: Any, payload: str) -> dict[str, Any]:
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
    if slot.kind == "camera-shoe":
        return {
            "name": device.get("decoder") or getattr(slot.driver, "decoder_name", None),
            "symbology": device.get("symbology"),
            "where": "the studio decodes the camera's frames",
        }
    return {
        "name": "the shoe's own scanner",
        "symbology": device.get("symbology"),
        "where": "the scanner decodes the barcode and sends the payload as a line",
    }


def shoe_page(table: Table, slot: DeviceSlot, hub: ConsoleHub) -> dict[str, Any]:
    health = _health(slot)
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
    if slot.kind == "serial-shoe":
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
            "description": getattr(vendor, "description", ""),
            "symbology": vendor.symbology,
            "template": vendor.template,
            "check": vendor.check,
            "specials": dict(vendor.specials),
        }
        if vendor is not None
        else None,
        "decoder": _decoder_of(slot, health),
        "figures": {k: v for k, v in figures.items() if v is not None},
        "last_payload": health.get("last_payload") if slot.kind == "camera-shoe" else health.get("last_line"),
        "reads": reads,
        # a camera shoe decodes images in the studio: a technician can upload one; a serial shoe decodes in its
        # scanner, so only what it sent (and payloads typed in) can be looked up
        "image_test": slot.kind == "camera-shoe" and slot.driver is not None,
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
    """Decode an uploaded card image as the camera shoe would (same decoder, symbology and card finding), and
    look each payload up in its vendor table. Runs apart from the driver's own pipeline: the shoe's tracker,
    counters and events are not touched. Slow (OpenCV): call it in a worker thread."""
    import cv2
    import numpy as np

    driver = slot.driver
    vendor = _vendor_table(slot)
    if driver is None or vendor is None or slot.kind != "camera-shoe":
        raise LookupError("Only a camera shoe decodes images in the studio; this one cannot.")
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError("The file is not an image OpenCV can read (PNG, JPEG, BMP, TIFF...).")
    from devices.shoe.vision import FrameAnalyzer, make_decoder

    opts = getattr(driver, "opts", None)
    decoder_name = getattr(driver, "decoder_name", "zxing")
    symbology = getattr(driver, "symbology", vendor.symbology)
    fallback = getattr(opts, "full_frame_fallback", None)
    analyzer = FrameAnalyzer(
        make_decoder(decoder_name, symbology),
        card_finding=getattr(opts, "card_finding", True),
        full_frame_fallback=decoder_name == "zxing" if fallback is None else fallback,
        find_options=opts.find.model_dump() if opts is not None else {},
    )
    obs = analyzer.analyze(image)
    payloads = list(dict.fromkeys(r.text for r in obs.reads))
    return {
        "decoder": decoder_name,
        "symbology": symbology,
        "width": int(image.shape[1]),
        "height": int(image.shape[0]),
        "view": obs.state,
        "cards_in_view": len(obs.cards),
        "read_from": obs.source,
        "payloads": [lookup_view(vendor, p) for p in payloads],
        "text": ("no barcode read" + (" (no whole card found in the picture)" if obs.state != "card" else ""))
        if not payloads
        else "; ".join(lookup_view(vendor, p)["text"] for p in payloads),
    }


# --- ball draws --------------------------------------------------------------------------------------


def balls_page(table: Table, slot: DeviceSlot, hub: ConsoleHub) -> dict[str, Any]:
    snap_check = _opening_check(table)
    machine = reader = None
    missing: list[str] = []
    for s in table.devices.values():
        h = _health(s)
        if s.kind == "modbus-ball-machine":
            machine = {
                "device_id": s.device_id,
                "role": s.role,
                "connected": bool(h.get("connected")),
                "target": h.get("target"),
                "register_map": h.get("register_map"),
                "state": h.get("machine"),
                "counters": h.get("counters") or {},
                "last_poll_at": h.get("last_poll_at"),
                "last_round_trip_us": h.get("last_round_trip_us"),
                "last_error": h.get("last_error"),
            }
            if s.driver is not None and h.get("machine") is None and h.get("connected"):
                missing.append("machine_state")
        elif s.kind in ("serial-ball-reader", "camera-ball-reader") or "reader" in s.role:
            device = h.get("device") or {}
            ball_set = getattr(s.driver, "ball_set", None)
            reader = {
                "device_id": s.device_id,
                "role": s.role,
                "kind": s.kind,
                "connected": bool(h.get("connected")),
                "ball_set": device.get("ball_set") or h.get("ball_set") or getattr(ball_set, "name", None),
                "counters": {
                    **(h.get("counters") or {}),
                    **{k: v for k, v in device.items() if isinstance(v, int)},
                },
            }
    since = hub.opening_check_started(table.table_id)
    reads = []
    if reader is not None:
        for entry in hub.device_log(reader["device_id"]):
            if entry.get("kind") not in _BALL_EVENTS:
                continue
            if since and (entry.get("at") or "") < since:
                break
            data = entry.get("data") or {}
            reads.append(
                {
                    "at": entry.get("at"),
                    "kind": entry["kind"],
                    "tag": data.get("tag"),
                    "ball": data.get("ball"),
                    "color": data.get("color"),
                    "reason": data.get("reason"),
                }
            )
        reads.reverse()  # in the order they were read
    game = table.game
    return {
        "game": game.game_id,
        "balls": [str(x) for x in (getattr(game, "ball_labels", None) or ())],
        "opening_check": snap_check,
        "check_started_at": since,
        "reads": reads[-200:],
        "machine": machine,
        "reader": reader,
        "missing": missing,
    }


def _opening_check(table: Table) -> dict[str, Any]:
    try:
        return dict(table.snapshot().get("opening_check") or {})
    except Exception:  # pragma: no cover - a table that cannot make its snapshot
        return {}


# --- money wheels --------------------------------------------------------------------------------------


def _wheel_settings(table: Table) -> tuple[Any, Any, Any]:
    """(calibration, layout, settings) as the judge uses them now (a zero mark taken at run time included), else
    as the game reads the table's settings, else Nones."""
    judge = getattr(table, "judge", None)
    cal, layout = getattr(judge, "calibration", None), getattr(judge, "layout", None)
    settings = getattr(judge, "settings", None)
    if cal is None or layout is None:
        reader = getattr(table.game, "wheel_settings", None)
        if callable(reader):
            try:
                settings = reader(table.settings)
                cal, layout = settings.calibration, settings.layout
            except Exception:
                return None, None, None
    return cal, layout, settings


def money_wheel_page(table: Table, slot: DeviceSlot, hub: ConsoleHub) -> dict[str, Any]:
    cal, layout, settings = _wheel_settings(table)
    missing: list[str] = []
    out: dict[str, Any] = {"kind": slot.kind, "missing": missing}
    if cal is None or layout is None:
        missing.append("calibration")
        out.update(segments=None, layout=[], calibration=None)
    else:
        configured = (
            ((table.settings or {}).get("calibration") or {}) if isinstance(table.settings, dict) else {}
        )
        out.update(
            segments=layout.size,
            layout=[{"index": seg.index, "label": seg.label, "color": seg.color} for seg in layout.segments],
            calibration={
                "zero_offset": cal.zero_offset,
                "counting": cal.counting,
                "counts_per_turn": cal.counts_per_turn,
                "configured_zero_offset": configured.get("zero_offset", 0)
                if isinstance(configured, dict)
                else None,
            },
            direction=getattr(settings, "direction", None),
            min_turns=str(getattr(settings, "min_turns", "")) or None,
            sensors_setting=getattr(settings, "sensors", None)
            if isinstance(getattr(settings, "sensors", None), str)
            else list(getattr(settings, "sensors", None) or []),
        )
    sensors = []
    for s in table.devices.values():
        if s.kind not in ("wheel-encoder", "wheel-pointer"):
            continue
        h = _health(s)
        device = h.get("device") or {}
        view: dict[str, Any] = {
            "device_id": s.device_id,
            "role": s.role,
            "kind": s.kind,
            "connected": bool(h.get("connected")),
        }
        if s.kind == "wheel-encoder":
            position, cpr = device.get("position"), device.get("counts_per_turn")
            view.update(
                position=position,
                counts_per_turn=cpr,
                count=device.get("count"),
                moving=device.get("moving"),
                referenced=device.get("referenced"),
            )
            if (
                cal is not None
                and layout is not None
                and isinstance(position, int)
                and isinstance(cpr, int)
                and cpr
            ):
                index, edge = cal.segment_at(position, cpr)
                view.update(
                    segment=index,
                    label=layout[index].label,
                    edge_percent=int(edge * 100),  # distance to the nearest boundary, % of a segment
                    mark_zero_would_set=position,
                )
        else:
            last = device.get("last_read") or {}
            index = last.get("segment_index")
            view.update(
                tag=last.get("tag"),
                other_tag=last.get("other_tag"),
                segment=index,
                label=layout[index].label
                if layout is not None and isinstance(index, int) and 0 <= index < layout.size
                else None,
                unreadable=last.get("kind") == "wheel_pointer_unreadable",
            )
        sensors.append(view)
    out["sensors"] = sensors
    # the judge's own words about the calibration (e.g. "Zero offset set to 1234 counts ...")
    out["notes"] = [e for e in hub.table_events(table.table_id) if e.get("code") == "calibration"][:5]
    out["runtime_zero_mark"] = (
        True  # the encoder's mark_zero reaches the judge at once (docs/money-wheels.md §2)
    )
    return out


# --- the overhead roulette camera -------------------------------------------------------------------------


def roulette_camera_page(table: Table, slot: DeviceSlot, hub: ConsoleHub) -> dict[str, Any]:
    h = _health(slot)
    cal = getattr(slot.driver, "calibration", None) if slot.driver is not None else None
    missing: list[str] = []
    calibration = None
    if cal is not None:
        calibration = {
            "center": list(getattr(cal, "center", ()) or ()),
            "radius": getattr(cal, "radius", None),
            "order": list(getattr(cal, "order", ()) or ()),
            "colors": list(getattr(cal, "colors", ()) or ()),
            "clockwise": getattr(cal, "clockwise", None),
            "pocket_offset_deg": getattr(cal, "pocket_offset_deg", None),
        }
    else:
        missing.append("calibration")
    last_rest = next(
        (e for e in hub.device_log(slot.device_id) if e.get("kind") == "roulette_balls_at_rest"), None
    )
    overlay = getattr(slot.driver, "overlay", None) if slot.driver is not None else None
    frame = getattr(slot.driver, "last_frame_jpeg", None) if slot.driver is not None else None
    if not callable(frame):
        missing.append("frame")
    if not callable(overlay):
        missing.append("overlay")
    return {
        "calibration": calibration,
        "figures": {
            "connected": bool(h.get("connected")),
            "spinning": h.get("spinning"),
            "rotor_found": h.get("rotor_found"),
            "ring_quality": h.get("ring_quality"),
            "balls": h.get("balls"),
            "mean_read_ms": h.get("mean_read_ms"),
            "counters": h.get("counters") or {},
        },
        "last_at_rest": (last_rest or {}).get("data"),
        "last_at_rest_at": (last_rest or {}).get("at"),
        "overlay": _call(overlay),
        "has_frame": callable(frame),
        "missing": missing,
    }


def _call(fn: Any) -> Any:
    if not callable(fn):
        return None
    try:
        return fn()
    except Exception:
        log.exception("console: a driver's page hook failed")
        return None


def last_frame(slot: DeviceSlot) -> bytes | None:
    """The camera's latest frame as JPEG bytes, when its driver keeps one (``last_frame_jpeg()``)."""
    fn = getattr(slot.driver, "last_frame_jpeg", None) if slot.driver is not None else None
    return _call(fn)


# --- dispatch ------------------------------------------------------------------------------------------------

BUILDERS = {
    "cards": shoe_page,
    "balls": balls_page,
    "money_wheel": money_wheel_page,
    "roulette_camera": roulette_camera_page,
}


def page_data(page: str, table: Table, slot: DeviceSlot, hub: ConsoleHub) -> dict[str, Any] | None:
    """The family page's data, or None for a page that needs none (the wheel, the generic page).

    A family module of its own (``dealer_ui/<page>.py`` with ``page_data(table, slot, hub)``, e.g. the dice
    camera's ``dealer_ui/dice.py``) provides its page's data the same way."""
    builder = BUILDERS.get(page)
    if builder is None:
        builder = _module_hook(page, "page_data")
    if builder is None:
        return None
    data = builder(table, slot, hub)
    if isinstance(data, dict):
        data.setdefault("generated_at", datetime.now(UTC).isoformat().replace("+00:00", "Z"))
    return data


def _module_hook(page: str, name: str) -> Any:
    """``dealer_ui.<page>.<name>`` when that family module exists (EXTENSION POINT: dealer_ui/dice.py)."""
    import importlib
    import importlib.util

    if not page.isidentifier() or page in ("calibration", "router", "auth", "views", "live", "families"):
        return None
    module_name = f"{__package__}.{page}"
    if importlib.util.find_spec(module_name) is None:
        return None
    try:
        module = importlib.import_module(module_name)
    except Exception:
        log.exception("console: the family module %s cannot be imported", module_name)
        return None
    fn = getattr(module, name, None)
    return fn if callable(fn) else None
