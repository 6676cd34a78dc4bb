"""What `/v1/health` answers: every table's state and every device's link, and one overall status.

`ok`: every table plays (or is in maintenance, which people chose) and every device is connected. `degraded`: a
table is paused or a device is disconnected, but some table can still play. `down`: the journal cannot write
(nothing can be certified), or tables are paused and none can play; the route answers HTTP 503 then, so a load
balancer or a probe needs no parsing. Read on the event loop, where the tables live (docs/operations.md).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:  # pragma: no cover
    from .service import Studio
    from .table import Table

Status = Literal["ok", "degraded", "down"]


class DeviceHealth(BaseModel):
    device_id: str = Field(description="table id / role, as in a result's source")
    role: str
    kind: str
    connected: bool = Field(description="the device's link is up (as the table last heard)")
    since: datetime = Field(description="when `connected` last changed (the studio's start before any event)")
    last_message_at: datetime | None = Field(description="the last event the device sent (any kind)")
    last_message_age_s: float | None = Field(description="seconds since `last_message_at`")
    last_error: str | None = Field(
        description="why the device was last lost; kept after it is back: `connected` and `since` say whether "
        "it is current (an error older than `since` on a connected device is history)"
    )
    last_error_at: datetime | None
    reconnects: int = Field(description="times it connected again after being lost, since the studio started")
    disconnects: int = Field(description="times it was lost, since the studio started")


class HoldHealth(BaseModel):
    code: str
    message: str


class RoundHealth(BaseModel):
    round_id: str
    round_number: int
    state: str


class TableHealth(BaseModel):
    table_id: str
    game: str
    state: Literal["running", "paused", "maintenance"] = Field(
        description="paused: a device is lost or the journal stopped (`paused_reason`); maintenance: people "
        "took it out of play"
    )
    paused_reason: str | None
    holds: list[HoldHealth] = Field(description="the holds on the open round and the table's own")
    round: RoundHealth | None = Field(description="the table's current (or last) round")
    devices: list[DeviceHealth]


class JournalHealth(BaseModel):
    ok: bool
    error: str | None = Field(description="why the journal stopped (a restart is needed)")


class ClockHealth(BaseModel):
    server: str
    offset_ms: float | None = Field(None, description="the time server minus the studio's clock")
    delay_ms: float | None = None
    stratum: int | None = None
    age_s: float | None = Field(None, description="seconds since the last answer")
    error: str | None = Field(None, description="why the last query failed")


class NatsHealth(BaseModel):
    """The publisher of [delivery.nats] (docs/nats.md): the journal is its outbox, so a backlog loses nothing."""

    connected: bool
    stream: str
    acked_seq: int = Field(description="the last feed seq the broker acknowledged")
    head_seq: int = Field(description="the last feed seq committed to the journal")
    backlog: int = Field(description="feed messages committed but not yet acknowledged by the broker")
    last_error: str | None


class Health(BaseModel):
    """The body of `GET /v1/health` (HTTP 200 for ok and degraded, 503 for down)."""

    status: Status
    problems: list[str] = Field(description="why the status is not ok, one line each")
    checked_at: datetime
    journal: JournalHealth
    tables: list[TableHealth]
    clock: ClockHealth | None = Field(
        None, description="the studio's clock against its time server (null: none configured)"
    )
    nats: NatsHealth | None = Field(None, description="NATS JetStream delivery, when configured")


def device_health(table: Table, now: datetime) -> list[DeviceHealth]:
    out = []
    for slot in table.devices.values():
        link = slot.link
        age = (now - link.last_message_at).total_seconds() if link.last_message_at else None
        out.append(
            DeviceHealth(
                device_id=slot.device_id,
                role=slot.role,
                kind=slot.kind,
                connected=link.connected,
                since=link.since,
                last_message_at=link.last_message_at,
                last_message_age_s=round(age, 3) if age is not None else None,
                last_error=link.last_error,
                last_error_at=link.last_error_at,
                reconnects=link.reconnects,
                disconnects=link.disconnects,
            )
        )
    return out


def table_health(table: Table, now: datetime) -> TableHealth:
    r = table.round
    holds = [HoldHealth(code=c, message=m) for c, m in table.table_holds.items()]
    if r is not None and not r.is_final:
        holds = [HoldHealth(code=h.code, message=h.message) for h in r.holds] + holds
    paused = table.paused_reason
    return TableHealth(
        table_id=table.table_id,
        game=table.game.game_id,
        state="paused" if paused else "maintenance" if table.in_maintenance else "running",
        paused_reason=paused,
        holds=holds,
        round=RoundHealth(round_id=r.round_id, round_number=r.round_number, state=r.state.value)
        if r
        else None,
        devices=device_health(table, now),
    )


def overall(journal: JournalHealth, tables: list[TableHealth]) -> tuple[Status, list[str]]:
    problems = [] if journal.ok else [f"the journal stopped: {journal.error}"]
    problems += [f"table {t.table_id} paused: {t.paused_reason}" for t in tables if t.state == "paused"]
    problems += [
        f"device {d.device_id} disconnected" + (f": {d.last_error}" if d.last_error else "")
        for t in tables
        for d in t.devices
        if not d.connected
    ]
    paused = [t for t in tables if t.state == "paused"]
    if not journal.ok or (paused and all(t.state != "running" for t in tables)):
        return "down", problems
    return ("degraded" if problems else "ok"), problems


def studio_health(studio: Studio) -> Health:
    now = datetime.now(UTC)
    failure = studio.journal.failure
    journal = JournalHealth(ok=failure is None, error=str(failure) if failure is not None else None)
    tables = [table_health(t, now) for t in studio.tables.values()]
    status, problems = overall(journal, tables)
    nats = None
    if studio.nats is not None:
        st = studio.nats.status
        nats = NatsHealth(
            connected=st.connected,
            stream=studio.nats.stream,
            acked_seq=st.acked_seq,
            head_seq=st.head_seq,
            backlog=st.backlog,
            last_error=st.last_error,
        )
        if not st.connected:
            problems.append(
                f"NATS delivery not connected ({st.last_error or 'connecting'}): {st.backlog} feed message(s) "
                "wait in the journal's outbox"
            )
            status = "degraded" if status == "ok" else status
    view = studio.clock.view()
    clock = ClockHealth(**view) if view is not None else None
    if clock is not None:
        limit = studio.config.studio.clock_max_offset_ms
        if clock.offset_ms is not None and abs(clock.offset_ms) > limit:
            problems.append(f"the clock is {clock.offset_ms:+.0f} ms off its time server {clock.server}")
        elif clock.error:
            problems.append(f"the clock cannot be checked: {clock.error}")
        if status == "ok" and problems:
            status = "degraded"
    return Health(
        status=status,
        problems=problems,
        checked_at=now,
        journal=journal,
        tables=tables,
        clock=clock,
        nats=nats,
    )
