"""The console's side of studio/late_readings.py: the manual-result dialog asks for the device's failure while a
device can still report, and a supervisor settles a late device reading that differs from a result by hand
(publish the device's reading as a correction, or keep the result by hand)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .console import error

if TYPE_CHECKING:  # pragma: no cover
    from .actions import Act

KEEP = ("device", "manual")


def manual_extra(snap: dict[str, Any]) -> dict[str, Any]:
    """What the manual-result choice carries: the devices that can still report (the dialog then asks the
    dealer to declare them failed for this round, with the reason), none once that is declared."""
    return {"device_can_report": list(snap.get("devices_reporting") or [])}


def reading_choices(snap: dict[str, Any]) -> list[dict[str, Any]]:
    """One "settle" choice per open correction (a late device reading that differs from a result by hand)."""
    return [
        {
            "id": "resolve_reading",
            "label": f"Settle round {e['round_number']}: device or hand",
            "needs_approval": True,
            "danger": False,
            "code": e["round_id"],
        }
        for e in snap.get("late_readings") or []
        if e.get("status") == "correction_open"
    ]


def resolve_reading(a: Act) -> Any:
    body = a.body
    keep = body.keep
    if keep not in KEEP:
        raise error(400, "Choose the device's reading or the result entered by hand.")
    reason = (body.reason or "").strip()
    if len(reason) < 3:
        raise error(400, "Say in a few words why.")
    round_id = a.choice["code"]
    a.record.update(round_id=round_id, keep=keep, reason=reason)
    entry = a.table.resolve_reading_by(round_id, keep, a.by, a.approved_by, reason)
    if entry.get("round") is not None:  # the device's reading went out as a correction
        a.console.hub.round_changed(a.table.table_id, dict(entry["round"], transition="correct"))
    return entry
