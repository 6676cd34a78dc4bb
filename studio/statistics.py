"""Statistics of the studio's rounds: a read model folded from the journal's records, never a second source
of truth.

Every figure is counted into an hourly bucket keyed by game, table and dealer (the dealer signed in at the
table when the round opened: the console's `dealer_sign_in` / `dealer_sign_out` actions), and a device's faults into a
bucket of its own keyed by table, device and hour. A query adds the buckets its filters select, so a period
resolves to whole hours. The model is folded incrementally: `JournalStatistics.catch_up` reads only the
records after the last one it folded, so a query costs the records written since the previous one; the
first query after a start reads the whole journal once (about a second per 200,000 rounds here).

What counts:
- a round: its `open_round` transition; certified: its `result` feed message; voided: its `void` message,
  by the reason's code; a manual result: a result whose source is `manual`; a correction: a `correction`
  message (counted in the hour it was made).
- holds: each reason a round was held for, once per round; table holds (no round open) by code.
- mean round time: from `open_round` to the certified result.
- device faults: a device that went away, sent something unknown, or could not read (`device_disconnected`,
  `device_unknown`, `*_unreadable`, `*_fault`, `*_warning` device events), by the event's kind.
"""

from __future__ import annotations

import heapq
import json
import sqlite3
import threading
from collections import Counter, deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from . import dealers, equipment_log
from .bias_watch import Alarm, BiasModel, Series, SeriesKey

#: a round's bucket: game, table id, dealer ("" when nobody was signed in), hour ("2026-12-01T16")
RoundKey = tuple[str, str, str, str]
#: a device's bucket: table id, device id, hour
DeviceKey = tuple[str, str, str]

DIMENSIONS = ("game", "table", "dealer", "day", "hour")
#: winners kept per table for the roads
RECENT = 120
#: the equipment log entries kept in memory for each (table, device) pair (the device page shows the newest
#: 500 of a device's and its table's); the whole log stays in the journal, where its download reads it
EQUIPMENT_KEEP = 1000
FEED_KINDS = ("result", "void", "correction")
FAULT_SUFFIXES = ("_unreadable", "_fault", "_warning")
FAULT_KINDS = ("device_disconnected", "device_unknown")


def is_fault(event_kind: str) -> bool:
    return event_kind in FAULT_KINDS or event_kind.endswith(FAULT_SUFFIXES)


def hour_of(at: str) -> str:
    return at[:13]


@dataclass
class Tally:
    rounds: int = 0
    certified: int = 0
    voided: Counter[str] = field(default_factory=Counter)
    held: Counter[str] = field(default_factory=Counter)
    table_holds: Counter[str] = field(default_factory=Counter)
    manual_results: int = 0
    corrections: int = 0
    round_seconds: float = 0.0
    timed_rounds: int = 0
    device_faults: Counter[str] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        self.rounds += other.rounds
        self.certified += other.certified
        self.voided.update(other.voided)
        self.held.update(other.held)
        self.table_holds.update(other.table_holds)
        self.manual_results += other.manual_results
        self.corrections += other.corrections
        self.round_seconds += other.round_seconds
        self.timed_rounds += other.timed_rounds
        self.device_faults.update(other.device_faults)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "certified": self.certified,
            "voided": dict(sorted(self.voided.items())),
            "holds": dict(sorted(self.held.items())),
            "table_holds": dict(sorted(self.table_holds.items())),
            "manual_results": self.manual_results,
            "corrections": self.corrections,
            "mean_round_seconds": (
                round(self.round_seconds / self.timed_rounds, 3) if self.timed_rounds else None
            ),
            "device_faults": dict(sorted(self.device_faults.items())),
        }


@dataclass
class DeviceTally:
    results: int = 0
    faults: Counter[str] = field(default_factory=Counter)

    def add(self, other: DeviceTally) -> None:
        self.results += other.results
        self.faults.update(other.faults)

    def as_dict(self) -> dict[str, Any]:
        return {"results": self.results, "faults": dict(sorted(self.faults.items()))}


@dataclass
class _OpenRound:
    key: RoundKey
    opened_at: datetime
    held: set[str] = field(default_factory=set)


def _time(at: str) -> datetime:
    return datetime.fromisoformat(at)


def _devices_of(source: dict[str, Any]) -> list[str]:
    """The devices a result was read from: the source's device and, for camera games, each camera."""
    found = [source[k] for k in ("device_id", "reader_device_id") if isinstance(source.get(k), str)]
    for cam in source.get("cameras") or ():
        if isinstance(cam, dict) and isinstance(cam.get("device_id"), str) and cam["device_id"] not in found:
            found.append(cam["device_id"])
    return found


class StatisticsModel:
    """The fold: records in seq order in, buckets out. Pure: no I/O."""

    def __init__(self, bias: BiasModel | None = None) -> None:
        self.bias = bias or BiasModel()
        #: each table's latest winners (games whose result names one), for the roads
        self.recent: dict[str, deque[dict[str, Any]]] = {}
        #: the newest entries of the equipment log (studio/equipment_log.py) by (table id, device id), oldest
        #: first, and how many each pair has had
        self.equipment: dict[tuple[str | None, str | None], deque[dict[str, Any]]] = {}
        self.equipment_counts: Counter[tuple[str | None, str | None]] = Counter()
        self.seq = 0
        self.rounds: dict[RoundKey, Tally] = {}
        self.devices: dict[DeviceKey, DeviceTally] = {}
        self._open: dict[str, _OpenRound] = {}
        self._dealer: dict[str, str] = {}
        self._game: dict[str, str] = {}

    def dealer_at(self, table_id: str) -> str | None:
        return self._dealer.get(table_id)

    def _tally(self, key: RoundKey) -> Tally:
        t = self.rounds.get(key)
        if t is None:
            t = self.rounds[key] = Tally()
        return t

    def _device(self, key: DeviceKey) -> DeviceTally:
        t = self.devices.get(key)
        if t is None:
            t = self.devices[key] = DeviceTally()
        return t

    def _key_now(self, table_id: str, at: str, game: str | None = None) -> RoundKey:
        return (game or self._game.get(table_id, ""), table_id, self._dealer.get(table_id, ""), hour_of(at))

    def fold(
        self, seq: int, at: str, kind: str, table_id: str | None, round_id: str | None, body: dict[str, Any]
    ) -> None:
        self.seq = max(self.seq, seq)
        if kind in equipment_log.KINDS:
            logged = equipment_log.entry(seq, at, kind, table_id, body)
            if logged is not None:
                key = (table_id, logged["device_id"])
                if key not in self.equipment:
                    self.equipment[key] = deque(maxlen=EQUIPMENT_KEEP)
                self.equipment[key].append(logged)
                self.equipment_counts[key] += 1
        if table_id is None:
            return
        if kind == "round_state":
            self._round_state(table_id, round_id, at, body)
        elif kind in FEED_KINDS:
            self._feed(kind, table_id, round_id, at, body)
        elif kind == "console_action":
            dealers.follow(self._dealer, table_id, body)
        elif kind == "device_event":
            event = str(body.get("kind", ""))
            if is_fault(event):
                device = str(body.get("device_id") or "")
                self._device((table_id, device, hour_of(at))).faults[event] += 1
                self._tally(self._key_now(table_id, at)).device_faults[event] += 1
        elif kind == "bias_alert":
            self.bias.journaled(table_id, body)
        elif kind == "note" and body.get("code") == "table_hold":
            code = str(body.get("message", "")).partition(":")[0] or "table_hold"
            self._tally(self._key_now(table_id, at)).table_holds[code] += 1

    def _round_state(self, table_id: str, round_id: str | None, at: str, body: dict[str, Any]) -> None:
        if isinstance(body.get("game"), str):
            self._game[table_id] = body["game"]
        if round_id is None:
            return
        transition = body.get("transition")
        if transition == "open_round":
            key = self._key_now(table_id, str(body.get("opened_at") or at), body.get("game"))
            self._open[round_id] = _OpenRound(key, _time(str(body.get("opened_at") or at)))
            self._tally(key).rounds += 1
        elif transition == "hold":
            r = self._open.get(round_id)
            if r is None:
                return
            for h in body.get("holds") or ():
                code = h.get("code") if isinstance(h, dict) else None
                if isinstance(code, str) and code not in r.held:
                    r.held.add(code)
                    self._tally(r.key).held[code] += 1

    def _feed(self, kind: str, table_id: str, round_id: str | None, at: str, body: dict[str, Any]) -> None:
        source = body.get("source") if isinstance(body.get("source"), dict) else {}
        assert isinstance(source, dict)
        manual = source.get("type") == "manual"
        if kind == "correction":
            self._tally(self._key_now(table_id, at, body.get("game"))).corrections += 1
            result = body.get("result")
            for seen in self.recent.get(table_id, ()):
                if seen["round_number"] == body.get("round_number") and isinstance(result, dict):
                    seen["winner"] = result.get("winner", seen["winner"])
            return
        r = self._open.pop(round_id, None) if round_id else None
        key = r.key if r is not None else self._key_now(table_id, at, body.get("game"))
        t = self._tally(key)
        if kind == "void":
            reason = body.get("reason") if isinstance(body.get("reason"), dict) else {}
            assert isinstance(reason, dict)
            t.voided[str(reason.get("code") or "unknown")] += 1
            return
        t.certified += 1
        self.bias.add(table_id, body)
        result = body.get("result")
        if isinstance(result, dict) and isinstance(result.get("winner"), str):
            self.recent.setdefault(table_id, deque(maxlen=RECENT)).append(
                {"round_number": body.get("round_number"), "winner": result["winner"], "at": at}
            )
        if manual:
            t.manual_results += 1
        if r is not None:
            when = body.get("occurred_at") or at
            t.round_seconds += max(0.0, (_time(str(when)) - r.opened_at).total_seconds())
            t.timed_rounds += 1
        for device in _devices_of(source):
            self._device((table_id, device, hour_of(at))).results += 1

    # --- queries -----------------------------------------------------------------------------------

    def query(
        self,
        *,
        game: str | None = None,
        table: str | None = None,
        dealer: str | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
        by: str | None = None,
    ) -> dict[str, Any]:
        """Totals (and groups, `by` one of DIMENSIONS) of the buckets the filters select; [start, end)."""
        if by is not None and by not in DIMENSIONS:
            raise ValueError(f"by must be one of {', '.join(DIMENSIONS)}, not {by!r}")
        lo = _hour_key(start) if start else None
        hi = _hour_key(end, ceil=True) if end else None
        total = Tally()
        groups: dict[str, Tally] = {}
        for (g, t, d, hour), tally in self.rounds.items():
            if (game and g != game) or (table and t != table) or (dealer is not None and d != dealer):
                continue
            if (lo and hour < lo) or (hi and hour >= hi):
                continue
            total.add(tally)
            if by is not None:
                name = {"game": g, "table": t, "dealer": d, "day": hour[:10], "hour": hour}[by]
                groups.setdefault(name, Tally()).add(tally)
        devices: dict[str, DeviceTally] = {}
        for (t, device, hour), dt in self.devices.items():
            if (table and t != table) or (lo and hour < lo) or (hi and hour >= hi):
                continue
            if game and self._game.get(t) != game:
                continue
            devices.setdefault(device, DeviceTally()).add(dt)
        out: dict[str, Any] = {"through_seq": self.seq, **total.as_dict()}
        out["devices"] = {d: v.as_dict() for d, v in sorted(devices.items())}
        if by is not None:
            out["by"] = by
            out["groups"] = {name: v.as_dict() for name, v in sorted(groups.items())}
        return out


def _hour_key(at: datetime, ceil: bool = False) -> str:
    at = at.astimezone(UTC) if at.tzinfo else at.replace(tzinfo=UTC)
    if ceil and (at.minute or at.second or at.microsecond):
        at += timedelta(hours=1)  # an end inside an hour takes that hour in: buckets are whole hours
    return at.strftime("%Y-%m-%dT%H")


def _quoted(names: Any) -> str:
    return ", ".join(repr(str(n)) for n in names)


_RELEVANT = f"""
SELECT seq, at, kind, table_id, round_id, body FROM records
WHERE seq > ? AND (
    kind IN ('round_state', 'bias_alert', {", ".join(repr(k) for k in FEED_KINDS)})
    OR (kind = 'console_action' AND json_extract(body, '$.action') IN ({_quoted((dealers.SIGN_IN, dealers.SIGN_OUT))}))
    OR (kind = 'console_action' AND json_extract(body, '$.action') IN ({_quoted(equipment_log.DEVICE_TESTS)}))
    OR (kind = 'note' AND json_extract(body, '$.code') IN ('table_hold', {_quoted(equipment_log.SHOE_NOTES)}))
    OR kind IN ({_quoted(k for k in equipment_log.KINDS if k not in ("device_event", "note", "console_action"))})
    OR (kind = 'device_event' AND (
        json_extract(body, '$.kind') IN ({_quoted((*FAULT_KINDS, *equipment_log.CONNECTION_EVENTS))})
        {"".join(f" OR json_extract(body, '$.kind') LIKE '%{s}'" for s in (*FAULT_SUFFIXES, "_restart"))}))
)
ORDER BY seq LIMIT ?
"""


class JournalStatistics:
    """The read model over one journal file, caught up on every query (thread-safe)."""

    def __init__(self, journal_path: Path, batch: int = 20_000, bias: BiasModel | None = None) -> None:
        self.path = Path(journal_path)
        self.batch = batch
        self.model = StatisticsModel(bias)
        self._lock = threading.Lock()

    def catch_up(self) -> int:
        """Fold the records written since the last call; the number folded."""
        with self._lock:
            if not self.path.exists():
                return 0
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
            try:
                folded = 0
                while True:
                    rows = db.execute(_RELEVANT, (self.model.seq, self.batch)).fetchall()
                    for seq, at, kind, table_id, round_id, body in rows:
                        self.model.fold(seq, at, kind, table_id, round_id, json.loads(body))
                    folded += len(rows)
                    if len(rows) < self.batch:
                        break
                # irrelevant records after the last relevant one: start the next catch-up from the head
                head = db.execute("SELECT max(seq) FROM records").fetchone()[0]
                if head:
                    self.model.seq = max(self.model.seq, head)
                return folded
            finally:
                db.close()

    def query(self, **filters: Any) -> dict[str, Any]:
        self.catch_up()
        with self._lock:
            return self.model.query(**filters)

    def dealer_at(self, table_id: str) -> str | None:
        self.catch_up()
        with self._lock:
            return self.model.dealer_at(table_id)

    # --- the bias watch's view ------------------------------------------------------------------------

    def bias_report(self, table: str | None = None) -> list[dict[str, Any]]:
        self.catch_up()
        with self._lock:
            return self.model.bias.report(table)

    def pending_alarms(self) -> list[Alarm]:
        with self._lock:
            return self.model.bias.pending()

    def mark_journaled(self, table_id: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.model.bias.journaled(table_id, body)

    def series_snapshot(self) -> list[tuple[SeriesKey, Series]]:
        with self._lock:
            return list(self.model.bias.series.items())

    def recent_winners(self, table_id: str) -> list[dict[str, Any]]:
        self.catch_up()
        with self._lock:
            return list(self.model.recent.get(table_id, ()))

    def equipment_log(self, device: str) -> tuple[list[dict[str, Any]], int]:
        """The newest entries of the device's equipment log and its table's (and the studio's), oldest first
        (at least `EQUIPMENT_KEEP`, when there are as many), and how many entries the whole log has."""
        self.catch_up()
        keys = [(t, d) for t in (None, device.partition("/")[0]) for d in (None, device)]
        with self._lock:
            logs = [list(self.model.equipment.get(k, ())) for k in keys]
            total = sum(self.model.equipment_counts[k] for k in keys)
        entries = list(heapq.merge(*logs, key=lambda e: e["seq"]))
        return entries, total
