"""A result entered by hand never beats a device that can still report, and a device's reading is never lost.

The rule, the same for every family (wheel, shoe, dice, balls, money wheel):

* While a device of the table is connected (it can still give this round's reading), a result entered by hand is
  refused unless the dealer declares the device failed for that round, with a supervisor's approval and a reason.
  The declaration is journaled (`operator_action` "declare_device_failed": who, who approved, why, which
  devices, on the record's time) and shown.
* A reading a device gives for a round settled by hand (or for a round whose device was declared failed, before
  its result by hand came) is not taken: it is journaled (`late_reading`: both results, the device, the people
  of the result by hand), shown beside the result by hand, and compared with it. The same: a confirmation. A
  different one: an open correction, which a supervisor settles (`resolve`): publish the device's reading as a
  correction of the round (the feed's `correction`, with both readings and both pairs of people in its source)
  or keep the result by hand (journaled, nothing on the feed).
* The judge is told that such a round ended only when its reading came or when the next round opens, so that a
  dealer-paced judge (cards, dice, balls, money wheel) still reads the device for it. Limit: a reading that would
  come after the next round opened is the new round's (the judge has moved on); the journal says that no reading
  came (`note` "no_late_reading"). A hold or a void the judge decides for that round instead of a reading is
  journaled as its late reading (status "no_reading", with the judge's words), not a hold on the next round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .journal import rfc3339
from .round_actions import four_eyes
from .rounds import Round, RoundError, RoundState

if TYPE_CHECKING:
    from .device_slots import DeviceSlot
    from .table import Table

#: how many late readings the table view keeps (the journal keeps them all)
KEEP = 20


def _device(source: dict[str, Any]) -> dict[str, Any]:
    return {k: source.get(k) for k in ("device_id", "kind", "serial_number")}


def agrees(manual: dict[str, Any], reading: dict[str, Any]) -> bool:
    """The device read what the people entered: every value they gave (a null one, such as a money wheel's
    physical segment index they did not know, says nothing) is the device's."""
    return all(reading.get(k) == v for k, v in manual.items() if v is not None)


class LateReadings:
    def __init__(self, table: Table) -> None:
        self.t = table
        #: round id -> the declaration that its device failed
        self.declared: dict[str, dict[str, Any]] = {}
        #: round id -> readings of a round declared failed that came before its result by hand
        self.waiting: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
        #: the recent late readings, oldest first (the table view)
        self.readings: list[dict[str, Any]] = []
        #: a round settled by hand whose end the judge has not been told yet (it may still read the device)
        self.deferred: str | None = None

    def restore(self) -> None:
        """At start-up: the late readings of the table's last round (an open correction stays open)."""
        r = self.t.round
        if r is None or (r.source or {}).get("type") != "manual":
            return
        entries: list[dict[str, Any]] = []
        for rec in self.t.journal.round_records(r.round_id):
            data = rec["data"]
            if rec["kind"] == "late_reading" and data.get("status") != "waiting_for_manual":
                entries.append(dict(data))
            elif rec["kind"] == "late_reading_resolved" and entries:
                resolved = {k: data.get(k) for k in ("keep", "by", "approved_by", "reason", "at")}
                last = next((e for e in reversed(entries) if e["status"] == "correction_open"), None)
                if last is not None:
                    last.update(status="corrected" if data.get("keep") == "device" else "kept_manual")
                    last["resolved"] = resolved
        self.readings = entries[-KEEP:]

    # --- a result by hand ---------------------------------------------------------------------

    def reporting(self) -> list[DeviceSlot]:
        """The devices that can still report: connected and not lost."""
        slots = self.t.slots
        return [s for s in slots.devices.values() if s.link.connected and s.device_id not in slots.lost]

    def reporting_view(self) -> list[dict[str, str]]:
        """The devices a result by hand must declare failed now (none once the open round's are declared)."""
        r = self.t.round
        if r is not None and r.round_id in self.declared:
            return []
        return [{"role": s.role, "device_id": s.device_id, "kind": s.kind} for s in self.reporting()]

    def check_manual(self, r: Round, by: str, approved_by: str | None, device_failed: str | None) -> None:
        """Refuse a result by hand while a device can still report, unless it is (now) declared failed."""
        if r.round_id in self.declared:
            return
        live = self.reporting()
        if not live:
            return
        if device_failed is None:
            names = ", ".join(f"{s.kind} {s.device_id}" for s in live)
            raise RoundError(
                f"The device can still report this round ({names}: connected). A result by hand is refused "
                "unless the dealer declares the device failed for this round, with a supervisor's approval "
                "and the reason."
            )
        self.declare(r, by, approved_by, device_failed, live)

    def declare(
        self, r: Round, by: str, approved_by: str | None, reason: str, devices: list[DeviceSlot]
    ) -> dict[str, Any]:
        four_eyes(by, approved_by, "declaring a device failed")
        reason = reason.strip()
        if len(reason) < 3:
            raise RoundError("Say in a few words why the device has failed for this round.")
        t = self.t
        named = [
            {"device_id": s.device_id, "kind": s.kind, "serial_number": s.serial_number} for s in devices
        ]
        t.operator("declare_device_failed", by, approved_by, reason=reason, devices=named)
        data = {
            "round_id": r.round_id,
            "round_number": r.round_number,
            "by": by,
            "approved_by": approved_by,
            "reason": reason,
            "devices": named,
            "at": rfc3339(t.clock()),
        }
        self.declared = {r.round_id: data}  # only the open round's declaration matters
        t.emit("device_declared_failed", data)
        return data

    def settled(self, r: Round) -> None:
        """The round's result by hand is certified: compare the readings that came before it."""
        for result, source in self.waiting.pop(r.round_id, []):
            self._compare(r, result, source)

    # --- a device's reading --------------------------------------------------------------------

    def took(self, result: dict[str, Any], source: dict[str, Any]) -> bool:
        """A device's reading for a round settled by hand, or declared failed: journaled and compared, not
        taken (True). False: the reading is for the table's usual path."""
        t = self.t
        r = t.round
        if r is None:
            return False
        if r.state is RoundState.CERTIFIED and (r.source or {}).get("type") == "manual":
            self._compare(r, result, source)
            self.end_round()
            return True
        if not r.is_final and r.round_id in self.declared:
            self.waiting.setdefault(r.round_id, []).append((result, source))
            data = {"device": _device(source), "reading": result, "status": "waiting_for_manual"}
            t.journal.append("late_reading", data, table_id=t.table_id, round_id=r.round_id)
            t.note(
                "reading_set_aside",
                f"The device was declared failed for round {r.round_number}; its reading is set aside and "
                "compared with the result entered by hand.",
            )
            return True
        return False

    def _compare(self, r: Round, result: dict[str, Any], source: dict[str, Any]) -> None:
        t = self.t
        manual = r.source or {}
        entry: dict[str, Any] = {
            "round_id": r.round_id,
            "round_number": r.round_number,
            "at": rfc3339(t.clock()),
            "device": _device(source),
            "reading": result,
            "manual": {"result": r.result, "people": manual.get("people"), "reason": manual.get("reason")},
            "declared": self.declared.get(r.round_id),
        }
        try:
            entry["reading"] = t.game.validate_result(result)
        except ValueError as exc:
            entry.update(matches=False, status="invalid", error=str(exc))
        else:
            same = agrees(r.result or {}, entry["reading"])
            entry.update(matches=same, status="confirmed" if same else "correction_open")
        t.journal.append("late_reading", entry, table_id=t.table_id, round_id=r.round_id)
        self.readings = (self.readings + [entry])[-KEEP:]
        t.emit("late_reading", entry)
        if entry["status"] == "correction_open":
            t.note(
                "late_reading_differs",
                f"The device read {entry['reading']} for round {r.round_number}, entered by hand as {r.result}: "
                "a correction is open; a supervisor settles it.",
            )

    def late_doubt(self, what: str, code: str, message: str) -> bool:
        """The judge holds or voids the round settled by hand whose reading it was still waiting for: no reading
        will come. Journaled beside the result by hand (a late reading with the judge's words), not a hold on
        the next round; True when it was that."""
        t = self.t
        r = t.round
        if self.deferred is None or r is None or r.round_id != self.deferred:
            return False
        entry: dict[str, Any] = {
            "round_id": r.round_id,
            "round_number": r.round_number,
            "at": rfc3339(t.clock()),
            "device": {},
            "reading": None,
            "manual": {"result": r.result, "people": (r.source or {}).get("people")},
            "declared": self.declared.get(r.round_id),
            "matches": False,
            "status": "no_reading",
            "judge": {"decision": what, "code": code, "message": message},
        }
        t.journal.append("late_reading", entry, table_id=t.table_id, round_id=r.round_id)
        self.readings = (self.readings + [entry])[-KEEP:]
        t.emit("late_reading", entry)
        self.end_round()
        return True

    # --- the judge hears of a round settled by hand when its reading came ---------------------------

    def defer_end(self, r: Round) -> bool:
        """Hold back the judge's round_ended for a round certified by hand while a device can report."""
        manual = r.state is RoundState.CERTIFIED and (r.source or {}).get("type") == "manual"
        if manual and self.reporting() and not self.waiting.get(r.round_id):
            self.deferred = r.round_id
            return True
        return False

    def end_round(self, *, next_round: bool = False) -> None:
        """Tell the judge the round settled by hand ended (its reading came, or the next round opens)."""
        t = self.t
        r = t.round
        if self.deferred is None or r is None or r.round_id != self.deferred:
            self.deferred = None
            return
        if next_round:
            t.journal.append(
                "note",
                {
                    "code": "no_late_reading",
                    "message": f"No device reading came for round {r.round_number}, settled by hand, "
                    "before the next round opened.",
                },
                table_id=t.table_id,
                round_id=r.round_id,
            )
        t.lifecycle.signal("round_ended")  # clears `deferred`

    # --- a supervisor settles an open correction ---------------------------------------------------

    def open_corrections(self) -> list[dict[str, Any]]:
        return [e for e in self.readings if e["status"] == "correction_open"]

    def resolve(
        self, round_id: str, keep: str, by: str, approved_by: str | None, reason: str
    ) -> dict[str, Any]:
        """Publish the device's reading as a correction (`keep` "device") or keep the result by hand ("manual")."""
        t = self.t
        entry = next((e for e in reversed(self.open_corrections()) if e["round_id"] == round_id), None)
        if entry is None:
            raise RoundError(f"table {t.table_id} has no open correction for round {round_id}")
        if keep not in ("device", "manual"):
            raise RoundError("Choose the device's reading or the result entered by hand.")
        four_eyes(by, approved_by, "settling a late device reading")
        reason = reason.strip()
        if len(reason) < 3:
            raise RoundError("Say in a few words why.")
        assert approved_by is not None
        readings = {"manual": entry["manual"], "device": {**entry["device"], "result": entry["reading"]}}
        corrected = None
        if keep == "device":
            corrected = t.actions.correct(
                round_id, entry["reading"], approved_by=[by, approved_by], reason=reason, readings=readings
            )
        resolved = {
            "keep": keep,
            "by": by,
            "approved_by": approved_by,
            "reason": reason,
            "at": rfc3339(t.clock()),
        }
        t.journal.append(
            "late_reading_resolved",
            {"round_id": round_id, "readings": readings, **resolved},
            table_id=t.table_id,
            round_id=round_id,
        )
        entry["status"] = "corrected" if keep == "device" else "kept_manual"
        entry["resolved"] = resolved
        t.emit("late_reading", entry)
        return {**entry, "round": corrected.projection() if corrected is not None else None}

    def view(self) -> list[dict[str, Any]]:
        return [dict(e) for e in reversed(self.readings)]
