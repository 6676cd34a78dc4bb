"""What the pages show, built from the table's snapshot: the table view, the plain-words notice, and the
choices a person has right now.

:func:`choices` is the one place that decides what a dealer may do: the page draws its buttons from it
and the API refuses any action that is not in it, so the screen and the server never disagree.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from studio import technician

from .auth import User
from .families import (
    GENERIC,
    INCIDENT_CATEGORIES,
    MANUAL_VOID_REASONS,
    Family,
    family_for_kind,
    family_of,
)
from .late_readings import manual_extra, reading_choices
from .result_forms import result_form

if TYPE_CHECKING:  # pragma: no cover
    from studio.table import Table

    from .live import ConsoleHub

OPEN_STATES = ("betting_open", "betting_closed", "in_play", "result_pending")


def iso(at: datetime | None) -> str | None:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z") if at else None


def now_iso() -> str:
    return iso(datetime.now(UTC))  # type: ignore[return-value]


# --- devices ----------------------------------------------------------------------------------


def device_views(table: Table, snap: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Each device of the table with its health, slot details and family."""
    snap = snap or table.snapshot()
    out = []
    for d in snap.get("devices", []):
        slot = table.devices.get(d.get("device_id", ""))
        kind = d.get("kind") or (slot.kind if slot else None)
        family = family_of(slot) if slot is not None else family_for_kind(kind)
        view = dict(
            d,
            kind=kind,
            table_id=table.table_id,
            family=family.id,
            serial_number=slot.serial_number if slot else None,
            role=d.get("role") or (slot.role if slot else None),
        )
        view.setdefault("connected", False)
        # the button shows what the device's driver declares (the studio sends that command)
        view["self_test"] = slot is not None and technician.self_test_command(slot) is not None
        phase = family.phase(view)
        if phase:
            view["phase"] = phase
        out.append(view)
    return out


def table_families(table: Table) -> list[Family]:
    seen: list[Family] = []
    for slot in table.devices.values():
        f = family_of(slot)
        if f not in seen:
            seen.append(f)
    return seen or [GENERIC]


def device_of_family(devices: list[dict[str, Any]], family: Family) -> dict[str, Any] | None:
    return next((d for d in devices if d["family"] == family.id), None)


# --- plain words --------------------------------------------------------------------------------


def in_maintenance(snap: dict[str, Any]) -> bool:
    m = snap.get("maintenance")
    return bool(isinstance(m, dict) and m.get("on"))


def maintenance_words(m: dict[str, Any]) -> str:
    """ "in maintenance: wheel settings (tom)" for refusals and banners."""
    return f"in maintenance: {m.get('reason') or 'no reason given'} ({m.get('by')})"


def notice(snap: dict[str, Any]) -> dict[str, Any]:
    """The one message the dealer must read now, in plain words: level, title and lines."""
    r = snap.get("round")
    lines: list[str] = []
    if in_maintenance(snap):
        m = snap["maintenance"]
        lines = [
            f"{m.get('reason')} (by {m.get('by')}, since {m.get('since')})",
            (
                "No round opens and nothing is published until a technician turns maintenance off. "
                "Device tests are shown here."
            ),
        ]
        lines += [d["message"] for d in (m.get("decisions") or [])[:3] if d.get("message")]
        return {"level": "maintenance", "title": "Table in maintenance", "lines": lines}
    if snap.get("status") == "paused":
        lines.append(f"Device problem: {snap.get('paused_reason')}.")
        if r and r["state"] in OPEN_STATES:
            lines.append("The round stays open until the device is back; nothing is paid meanwhile.")
        else:
            lines.append(
                "No round can start until the device is back. Call a technician if it does not return."
            )
        return {"level": "paused", "title": "Table paused", "lines": lines}
    check = snap.get("opening_check") or {}
    if check.get("required") and not (r and r["state"] in OPEN_STATES):
        report = check.get("report") or {}
        if check.get("running"):
            return {
                "level": "hold",
                "title": "Opening check running",
                "lines": [report.get("message") or "Read every ball of the set once, then finish the check."],
            }
        if not check.get("passed"):
            lines = [f"Last check: {report['message']}"] if report.get("message") else []
            lines.append(
                "The table opens no round before its opening check passes (every ball of the set read "
                "once). Run the check."
            )
            return {"level": "hold", "title": "Opening check needed", "lines": lines}
    if r and r["state"] in OPEN_STATES and r.get("holds"):
        lines = [h["message"] for h in r["holds"]]
        lines.append("Nothing is paid while the round is held.")
        return {"level": "hold", "title": "Round held", "lines": lines}
    if snap.get("holds"):
        lines = [h["message"] for h in snap["holds"]]
        return {"level": "hold", "title": "Table held", "lines": lines}
    if r and r["state"] == "voided":
        return {
            "level": "void",
            "title": "Round void",
            "lines": [r.get("void_message") or "The round is void and all bets are returned."],
        }
    if r and r["state"] == "certified":
        people = (r.get("source") or {}).get("people")
        extra = [f"Entered by hand by {' and '.join(people)}."] if people else []
        return {"level": "ok", "title": "Result certified", "lines": extra}
    return {"level": "ok", "title": "", "lines": []}


# --- choices -----------------------------------------------------------------------------------------


def _choice(
    cid: str, label: str, *, approval: bool = False, danger: bool = False, **extra: Any
) -> dict[str, Any]:
    return {"id": cid, "label": label, "needs_approval": approval, "danger": danger, **extra}


def choices(
    table: Table,
    user: User,
    snap: dict[str, Any],
    devices: list[dict[str, Any]],
    recent: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """What this person may do at this table right now (nothing for a role that does not deal)."""
    out: list[dict[str, Any]] = []
    if user.can("view_tables"):
        out.append(_choice("incident", "Report incident"))
    r = snap.get("round")
    state = r["state"] if r else None
    open_round = state in OPEN_STATES
    check = snap.get("opening_check") or {}
    if check.get("required") and not open_round and (user.can("deal") or user.can("devices")):
        # the ball-set check before a table opens: a dealer at the shift's start, or a technician
        if check.get("running"):
            out.append(_choice("finish_opening_check", "Finish opening check"))
        else:
            out.append(
                _choice("start_opening_check", "Check again" if check.get("passed") else "Run opening check")
            )
    if not user.can("deal"):
        return out
    if in_maintenance(snap):
        # no round is run in maintenance: the dealer's round buttons are off (the page says why); a correction of
        # an earlier real round is still possible
        if any(x.get("state") == "certified" for x in recent):
            out.append(_choice("correct", "Correct a result", approval=True))
        return out
    paused = snap.get("status") == "paused"
    dealer_paced = snap.get("pacing") == "dealer"
    families = table_families(table)
    checked = not check.get("required") or (check.get("passed") and not check.get("running"))
    # maintenance asked for while a round was open comes on when it ends: no new round meanwhile
    pending = bool((snap.get("maintenance") or {}).get("pending"))

    if not open_round:
        if dealer_paced and not paused and checked and not pending:
            out.append(_choice("open_round", "Open betting"))
        for f in families:
            dev = device_of_family(devices, f)
            for action in (f.start, f.retry):
                if action is not None and dev is not None and not paused and action.when(dev):
                    out.append(_choice(action.id, action.label, role=dev["role"], family=f.id))
            if f.shoe_change:
                out.append(_choice("shoe_change", "Shoe change", family=f.id))
    else:
        if dealer_paced and state == "betting_open":
            out.append(_choice("close_betting", "Close betting"))
        held_codes = [h["code"] for h in (r or {}).get("holds") or []]
        # a hold the dealer may clear alone: declared by the device family or by the game itself
        releasable = set(table.game.dealer_releasable_holds)
        for f in families:
            releasable.update(f.releasable_holds)
        for code in held_codes:
            if code in releasable:
                out.append(_choice("release", "Confirm and continue", code=code))
        out.append(_choice("void", "Void round", approval=state != "betting_open", danger=True))
        if state != "result_pending" and (state != "betting_open" or held_codes or paused):
            out.append(_choice("manual_result", "Enter result by hand", approval=True, **manual_extra(snap)))
    if any(x.get("state") == "certified" for x in recent):
        out.append(_choice("correct", "Correct a result", approval=True))
    out += reading_choices(snap)
    return out


# --- whole views ---------------------------------------------------------------------------------------


def table_view(table: Table, hub: ConsoleHub, user: User) -> dict[str, Any]:
    snap = table.snapshot()
    devices = device_views(table, snap)
    recent = hub.recent_rounds(table.table_id)
    closes = table.betting_closes_at
    r = snap.get("round")
    return {
        **snap,
        "judge": judge_view(snap.get("judge")),
        "devices": devices,
        "betting_closes_at": iso(closes) if r and r["state"] == "betting_open" else None,
        "server_time": now_iso(),
        "notice": notice(snap),
        "choices": choices(table, user, snap, devices, recent),
        "recent_rounds": recent,
        "round_events": hub.round_events(table.table_id),
        "events": hub.table_events(table.table_id),
    }


def judge_view(judge: Any) -> dict[str, Any] | None:
    """What the judge says the dealer must do next (the blackjack family: where the next card goes, which
    players' decisions are awaited), checked and trimmed for the screen; None when the game says nothing.

    ``{"next": {"position", "label"} | None, "awaiting": [{"window", "seat", "hand", "allowed", "default",
    "deadline"}]}``; anything else in the judge's view is passed on unchanged."""
    if not isinstance(judge, dict):
        return None
    out = dict(judge)
    nxt = judge.get("next")
    if isinstance(nxt, dict) and (nxt.get("label") or nxt.get("position")):
        out["next"] = {
            "position": str(nxt.get("position") or ""),
            "label": str(nxt.get("label") or str(nxt.get("position")).replace("_", " ")),
        }
    else:
        out["next"] = None
    awaiting = []
    for w in judge.get("awaiting") or []:
        if not isinstance(w, dict):
            continue
        raw_allowed = w.get("allowed")
        allowed = raw_allowed if isinstance(raw_allowed, list) else []
        awaiting.append(
            {
                "window": str(w.get("window") or ""),
                "seat": str(w.get("seat") or ""),
                "hand": w.get("hand") if isinstance(w.get("hand"), int) else None,
                "allowed": [str(a) for a in allowed],
                "default": w.get("default"),
                "deadline": w.get("deadline") if isinstance(w.get("deadline"), str) else None,
            }
        )
    out["awaiting"] = awaiting
    return out


def table_meta(table: Table) -> dict[str, Any]:
    """What does not change while the table runs: the dialogs' lists and forms."""
    reasons = dict(MANUAL_VOID_REASONS)
    for f in table_families(table):
        reasons.update(f.void_reasons)
    other = reasons.pop("other")
    reasons["other"] = other  # "other" last
    for code in reasons:
        settled = table.game.void_terms(code)
        if settled and settled.get("compensation"):
            paid = ", ".join(f"{share} of the {bet}" for bet, share in settled["compensation"].items())
            reasons[code] += f" The players also receive {paid} (the game's rule, {settled.get('rule', '')})."
    return {
        "table_id": table.table_id,
        "game": table.game.game_id,
        "pacing": table.pacing,
        "families": [f.public() for f in table_families(table)],
        "void_reasons": [{"code": c, "message": m} for c, m in reasons.items()],
        "incident_categories": [{"code": c, "label": label} for c, label in INCIDENT_CATEGORIES.items()],
        "result_form": result_form(table.game),
    }


def table_summary(table: Table) -> dict[str, Any]:
    snap = table.snapshot()
    r = snap.get("round")
    return {
        "table_id": table.table_id,
        "game": snap["game"],
        "pacing": snap["pacing"],
        "status": snap["status"],
        "paused_reason": snap["paused_reason"],
        "round": {k: r[k] for k in ("round_number", "state", "result")} if r else None,
        "held": bool(r and r.get("holds")) or bool(snap.get("holds")),
        "maintenance": in_maintenance(snap),
    }
