"""The equipment log: every calibration, wheel setting, self-test, ball-set check, shoe change, maintenance switch,
connection, bias alarm and software check, in one list per device, with who and when, read from the journal.

An entry is drawn from one journal record (`entry`): `what` says which of the above it is, `device_id` the
device it concerns (None: the whole table, such as a maintenance switch, or the whole studio: a software
check), `by` who did it (None: the equipment or the studio itself) and `detail` what happened, in words.
A device's log holds its own entries and its table's; nothing here is a second record of anything.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

#: journal record kinds the log reads (device events and notes filtered further by `entry`)
KINDS = (
    "device_command",
    "device_event",
    "dice_calibration_accepted",
    "opening_check",
    "maintenance",
    "note",
    "bias_alert",
    "software_check",
    "console_action",
)
CONNECTION_EVENTS = {"device_connected": "connected", "device_disconnected": "disconnected"}
SHOE_NOTES = ("new_shoe", "shoe_exhausted", "shoe_reconnected", "cut_card")
DEVICE_TESTS = ("decoder_test",)
COLUMNS = ("seq", "at", "table_id", "device_id", "what", "by", "detail")


def _words(body: Mapping[str, Any], *keys: str) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {body[k]}" for k in keys if body.get(k) not in (None, "", []))


def entry(
    seq: int, at: str, kind: str, table_id: str | None, body: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The log entry of one journal record, or None: not about the equipment."""
    device: str | None = None
    by: str | None = body.get("by") if isinstance(body.get("by"), str) else None
    if kind == "device_command":
        device = body.get("device_id")
        command = str(body.get("command", ""))
        what = "self_test" if "self" in command.lower() and "test" in command.lower() else "setting"
        detail = f"sent {command}"
    elif kind == "device_event":
        event = str(body.get("kind", ""))
        if event not in CONNECTION_EVENTS and event != "device_unknown" and not event.endswith("_restart"):
            return None
        device, what = body.get("device_id"), "connection"
        if event in CONNECTION_EVENTS:
            detail = CONNECTION_EVENTS[event] + (f" ({body['reason']})" if body.get("reason") else "")
            detail += f" on {body['port']}" if body.get("port") else ""
        elif event == "device_unknown":
            detail = "sent something unknown: " + str(body.get("line") or body.get("detail") or "")[:80]
        else:
            what, detail = "restart", "restarted"
    elif kind == "dice_calibration_accepted":
        device, what = body.get("device_id"), "calibration"
        detail = f"calibration {body.get('version')} ({str(body.get('digest', ''))[:12]}) accepted" + (
            f", replaces {body['replaces']}" if body.get("replaces") else ""
        )
    elif kind == "opening_check":
        report = body.get("report") if isinstance(body.get("report"), dict) else {}
        assert isinstance(report, dict)
        what = "ball_set_check"
        detail = ("passed" if report.get("ok") else "failed") + (
            f": {report['message']}" if report.get("message") else ""
        )
        devices = body.get("devices")
        if isinstance(devices, dict) and devices:
            detail += " (" + ", ".join(f"{r} {s}" for r, s in sorted(devices.items())) + ")"
    elif kind == "maintenance":
        what = "maintenance"
        detail = ("on" if body.get("on") else "off") + (f": {body['reason']}" if body.get("reason") else "")
    elif kind == "note":
        code = body.get("code")
        if code not in SHOE_NOTES:
            return None
        what, detail = "shoe", str(body.get("message") or code)
    elif kind == "bias_alert":
        device, what = body.get("device_id"), "bias_alert"
        detail = f"{body.get('quantity')}: p = {body.get('p_value')} below {body.get('level')} after {body.get('n')}"
    elif kind == "software_check":
        what, detail = "software_check", str(body.get("summary") or "")
    elif kind == "console_action":
        if body.get("action") not in DEVICE_TESTS:
            return None
        device, what = body.get("device_id"), "test"
        detail = f"{body.get('action')}: {body.get('outcome', 'done')}" + (
            f", {_words(body, 'payloads')}" if body.get("payloads") else ""
        )
    else:
        return None
    return {
        "seq": seq,
        "at": at,
        "table_id": table_id,
        "device_id": device if isinstance(device, str) else None,
        "what": what,
        "by": by,
        "detail": detail,
    }


def read(
    journal_path: Path,
    *,
    table: str | None = None,
    device: str | None = None,
    start: str | None = None,
    end: str | None = None,
) -> Iterator[dict[str, Any]]:
    """The equipment log, oldest first; `device`: its entries and its table's; `start`/`end`: RFC 3339 ("at"
    strings compare as times)."""
    if device is not None and table is None:
        table = device.partition("/")[0]
    where = [f"kind IN ({', '.join('?' * len(KINDS))})"]
    args: list[Any] = list(KINDS)
    if table is not None:
        where.append("(table_id = ? OR table_id IS NULL)")
        args.append(table)
    if start is not None:
        where.append("at >= ?")
        args.append(start)
    if end is not None:
        where.append("at < ?")
        args.append(end)
    db = sqlite3.connect(f"file:{journal_path}?mode=ro", uri=True)
    try:
        rows = db.execute(
            f"SELECT seq, at, kind, table_id, body FROM records WHERE {' AND '.join(where)} ORDER BY seq",
            args,
        )
        for seq, at, kind, table_id, body in rows:
            e = entry(seq, at, kind, table_id, json.loads(body))
            if e is None:
                continue
            if device is not None and e["device_id"] not in (None, device):
                continue
            yield e
    finally:
        db.close()
