"""A person's action at a table: who may, the supervisor's approval where needed, whether the table allows it
now (views.choices), and carrying it out through the table's services, one function per action."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from fastapi import Request

from .auth import User
from .bodies import ActionBody, Approval
from .console import Console, client_ip, error
from .families import INCIDENT_CATEGORIES
from .late_readings import resolve_reading
from .views import choices, device_views, in_maintenance, maintenance_words, table_families, table_meta

#: actions for people who look after the table but do not deal (the rest need the "deal" permission)
NOT_DEALING = {
    "incident": ("view_tables",),
    "start_opening_check": ("deal", "devices"),
    "finish_opening_check": ("deal", "devices"),
}
#: a void the dealer started while betting was open still counts as one during betting (no supervisor) if it
#: arrives at most this long after the latest moment the betting timer could have closed betting
VOID_STARTED_GRACE_S = 60.0


@dataclass
class Act:
    """One action being carried out; ``record`` is its journal record, which the action adds to."""

    console: Console
    table: Any
    action: str
    choice: dict[str, Any]
    body: ActionBody
    by: str
    approved_by: str | None
    record: dict[str, Any]


async def act(
    console: Console,
    action: str,
    body: ActionBody,
    request: Request,
    table: Any,
    user: User,
    record: dict[str, Any],
) -> Any:
    """Check and carry out one action; raises HTTPException (or ValueError from the table) when refused."""
    if action not in ACTIONS:
        record["action"] = action[:40]
        raise error(404, f"There is no action {action[:40]!r}.")
    if not user.can("view_tables"):
        raise error(403, f"A {user.role} may not act at a table.")
    if not any(user.can(p) for p in NOT_DEALING.get(action, ("deal",))):
        raise error(403, f"A {user.role} may not act on a round.")
    approver: User | None = None
    if body.approval is not None:
        approver = await _approver(console, body.approval, user, request, action, table)
        record["approved_by"] = approver.username
    # decide on the loop, with no await between the check and the action
    choice = _find_choice(console, table, user, action, body)
    if action == "void" and choice["needs_approval"] and _void_started_in_betting(table, body):
        choice = dict(choice, needs_approval=False, started_in_betting=True)
        record.update(started_in="betting_open", state_at_void=table.round.state.value)
    if choice["needs_approval"] and approver is None:
        raise error(
            409,
            "This needs a supervisor's approval: a supervisor signs in on this screen.",
            needs_approval=True,
        )
    by, approved_by = user.username, approver.username if approver else None
    return PERFORM[action](Act(console, table, action, choice, body, by, approved_by, record))


async def _approver(
    console: Console, approval: Approval, user: User, request: Request, action: str, table: Any
) -> User:
    name = approval.username.strip().lower()
    if name == user.username:
        raise error(403, "The approval must come from a second person, not from you.")
    approver = await console.check_credentials(
        name, approval.secret, client_ip(request), f"approve {action}", status=403
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
        raise error(403, f"{approver.username} is a {approver.role}: only a supervisor can approve.")
    console.journal(
        "console_approval",
        {"action": action, "by": user.username, "approver": approver.username, "outcome": "approved"},
        table_id=table.table_id,
        round_id=table.round.round_id if table.round is not None else None,
    )
    return approver


def _void_started_in_betting(table: Any, body: ActionBody) -> bool:
    """The dealer pressed Void on this round while its betting was open (the screen says which round and state it
    showed), and betting closed since, by the timer or at another screen: the void is judged by the state at the
    press. Only on a dealer-paced table, before any result, and within the grace after the timer's close."""
    r = table.round
    if body.seen_state != "betting_open" or r is None or body.seen_round_id != r.round_id:
        return False
    if table.pacing != "dealer" or r.state.value not in ("betting_closed", "in_play") or r.result is not None:
        return False
    latest_close = r.opened_at + timedelta(seconds=table.betting_seconds)
    return bool(table.clock() - latest_close <= timedelta(seconds=VOID_STARTED_GRACE_S))


def _find_choice(console: Console, table: Any, user: User, action: str, body: ActionBody) -> dict[str, Any]:
    snap = table.snapshot()
    devices = device_views(table, snap)
    for c in choices(table, user, snap, devices, console.hub.recent_rounds(table.table_id)):
        if c["id"] == action and (action not in ("release", "resolve_reading") or c.get("code") == body.code):
            return c
    r = snap.get("round")
    where = (
        f"round {r['round_number']} is {r['state'].replace('_', ' ')}" if r else "no round has been played"
    )
    if snap.get("status") == "paused":
        where += f"; the table is paused ({snap.get('paused_reason')})"
    if in_maintenance(snap):
        where = f"table {maintenance_words(snap['maintenance'])}; {where}"
    raise error(409, f"'{action.replace('_', ' ')}' is not possible now: {where}.")


# --- the actions ------------------------------------------------------------------------------------------


def _open_round(a: Act) -> Any:
    return a.table.open_round_by(a.by).projection()


def _close_betting(a: Act) -> Any:
    return a.table.close_betting_by(a.by).projection()


def _release(a: Act) -> Any:
    r = a.table.release_by(a.choice["code"], a.by)
    a.record["code"] = a.choice["code"]
    return r.projection() if r else None


def _void(a: Act) -> Any:
    body = a.body
    reasons = {x["code"]: x["message"] for x in table_meta(a.table)["void_reasons"]}
    if body.code not in reasons:
        raise error(400, "Choose a reason for the void.")
    note = (body.note or "").strip()
    if body.code == "other" and len(note) < 3:
        raise error(400, "Say in a few words why the round is void.")
    message = reasons[body.code] + (f" ({note})" if note else "")
    a.record.update(code=body.code, message=message)
    started = bool(a.choice.get("started_in_betting"))
    return a.table.void_by(body.code, message, a.by, a.approved_by, started_in_betting=started).projection()


def _result_and_reason(body: ActionBody) -> tuple[dict[str, Any], str]:
    if not body.result:
        raise error(400, "Enter the result.")
    reason = (body.reason or "").strip()
    if len(reason) < 3:
        raise error(400, "Say in a few words why the result is entered by hand.")
    return body.result, reason


def _manual_result(a: Act) -> Any:
    result, reason = _result_and_reason(a.body)
    failed = a.body.device_failed.strip() if a.body.device_failed is not None else None
    a.record.update(result=result, reason=reason, **({"device_failed": failed} if failed is not None else {}))
    return a.table.manual_result_by(result, a.by, a.approved_by, reason, failed).projection()


def _correct(a: Act) -> Any:
    result, reason = _result_and_reason(a.body)
    table, hub, round_id = a.table, a.console.hub, a.body.round_id
    recent = hub.recent_round(table.table_id, round_id or "")
    if recent is None or recent.get("state") != "certified":
        raise error(400, "Choose one of the recent certified rounds to correct.")
    a.record.update(round_id=round_id, result=result, reason=reason)
    r = table.correct(round_id, result, approved_by=[a.by, a.approved_by], reason=reason)
    hub.round_changed(table.table_id, dict(r.projection(), transition="correct"))
    return r.projection()


def _device_action(a: Act) -> Any:
    """Start a game or retry it (a spin, a re-throw, a redeal): the family's command to the device role."""
    family = next(f for f in table_families(a.table) if f.id == a.choice["family"])
    spec = family.start if a.action == "start_game" else family.retry
    if spec is None:  # pragma: no cover - choices() offers the action only for a family that has it
        raise error(409, f"'{a.action.replace('_', ' ')}' is not possible at this table.")
    role = a.choice["role"]
    a.record.update(role=role, command=spec.command)
    a.table.send_command_by(role, spec.command, a.by)
    a.console.hub.note_command(f"{a.table.table_id}/{role}", spec.command, a.by)
    return None


def _start_opening_check(a: Act) -> Any:
    a.table.start_opening_check_by(a.by)
    a.console.hub.opening_check_begins(a.table.table_id)
    return None


def _finish_opening_check(a: Act) -> Any:
    report = a.table.finish_opening_check_by(a.by)
    a.record["passed"] = bool(report.get("ok"))
    return report


def _shoe_change(a: Act) -> Any:
    # journaled only: the card judge takes the next card drawn after its shoe_change hold as the new shoe's first
    a.record["family"] = a.choice["family"]
    return None


def _incident(a: Act) -> Any:
    body, table = a.body, a.table
    if body.category not in INCIDENT_CATEGORIES:
        raise error(400, "Choose what kind of incident it is.")
    text = (body.text or "").strip()
    if len(text) < 3:
        raise error(400, "Describe the incident in a few words.")
    entry = {"category": body.category, "text": text, "by": a.by}
    a.console.journal(
        "console_incident",
        entry,
        table_id=table.table_id,
        round_id=table.round.round_id if table.round and not table.round.is_final else None,
    )
    a.console.hub.incident(table.table_id, entry)
    a.record["category"] = body.category
    return entry


PERFORM: dict[str, Callable[[Act], Any]] = {
    "open_round": _open_round,
    "close_betting": _close_betting,
    "start_game": _device_action,
    "retry": _device_action,
    "release": _release,
    "void": _void,
    "manual_result": _manual_result,
    "correct": _correct,
    "resolve_reading": resolve_reading,
    "shoe_change": _shoe_change,
    "incident": _incident,
    "start_opening_check": _start_opening_check,
    "finish_opening_check": _finish_opening_check,
}
#: what people can ask of a table (views.choices says which of them are possible now, for whom)
ACTIONS = tuple(PERFORM)
