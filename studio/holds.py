"""What stops a table: holds, and the opening check a game may require before its table opens.

A hold on the open round stops it (nothing is certified while one stands) until the condition clears (the judge's
`Release`) or the dealer confirms it is resolved. A hold with no open round is the table's own: the next round
opens with it. The messages of holds lifted from the open round are kept, so that a round voided later says
why it had been held.

A game with an opening check (a ball draw: every ball read once) opens no round until a check has passed; the
check is fed every device event while it runs and its report is journaled when it is finished.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from devices.events import DeviceEvent
from recognition.game import OpeningCheck

from .rounds import RoundError

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger(__name__)


class Holds:
    def __init__(self, table: Table) -> None:
        self.t = table
        #: holds with no open round: code -> message; the next round opens held
        self.table_holds: dict[str, str] = {}
        #: messages of the holds lifted from the open round, for its void reason
        self.released: list[str] = []

    def hold(self, code: str, message: str) -> None:
        t = self.t
        r = t.round
        if r is not None and not r.is_final:
            t.lifecycle.step(r.hold(code, message), "hold")
        else:
            self.table_holds[code] = message
            t.note("table_hold", f"{code}: {message}")
        t.emit("hold", {"code": code, "message": message})

    def release(self, code: str, by: str | None = None) -> None:
        t = self.t
        self.table_holds.pop(code, None)
        r = t.round
        if r is not None and not r.is_final and any(h.code == code for h in r.holds):
            self.released += [h.message for h in r.holds if h.code == code]
            t.lifecycle.step(r.release(code), "release", by=by)
            t.lifecycle.try_certify()

    def view(self) -> list[dict[str, str]]:
        return [{"code": c, "message": m} for c, m in self.table_holds.items()]


class OpeningGate:
    def __init__(self, table: Table, *, required: bool) -> None:
        self.t = table
        # a game that defines an opening check (a ball draw's ball-set check) opens no round until one passes
        self.required = required and table.game.opening_check is not None
        self.passed = not self.required
        self.check: OpeningCheck | None = None
        self.last_report: dict[str, Any] | None = None

    def start(self) -> None:
        """At the table's start: say in the journal that a check the game asks for is turned off."""
        t = self.t
        if not self.required and t.game.opening_check is not None:
            t.journal.append(
                "note",
                {
                    "code": "opening_check_waived",
                    "message": "the opening check is turned off in the configuration",
                },
                table_id=t.table_id,
            )

    def feed(self, event: DeviceEvent) -> None:
        if self.check is None:
            return
        try:
            if self.check.feed(event):
                self.t.emit("opening_check", self.check.report().as_dict())
        except Exception:
            log.exception("table %s: opening check failed on %s", self.t.table_id, event)

    def start_by(self, by: str) -> None:
        t = self.t
        make_check = t.game.opening_check
        if make_check is None:
            raise RoundError(f"{t.game.game_id} has no opening check")
        r = t.round
        if r is not None and not r.is_final:
            raise RoundError(f"round {r.round_number} of table {t.table_id} is still open")
        self.check = make_check(t.slots.drivers_by_role())
        self.passed = False
        t.operator("start_opening_check", by)

    def finish_by(self, by: str) -> dict[str, Any]:
        t = self.t
        if self.check is None:
            raise RoundError(f"table {t.table_id} has no opening check running")
        report: dict[str, Any] = self.check.report().as_dict()
        self.check = None
        self.passed = bool(report.get("ok"))
        self.last_report = report
        t.journal.append(
            "opening_check",
            {"by": by, "report": report, "devices": t.slots.serials_by_role()},
            table_id=t.table_id,
        )
        t.emit("opening_check", report)
        if self.passed:
            t.lifecycle.schedule_auto_open()
        return report

    def refusal(self) -> str | None:
        """Why no round may open yet (None: it may)."""
        if self.passed:
            return None
        why = (self.last_report or {}).get("message") or "it has not been run since the studio started"
        return f"table {self.t.table_id} cannot open before its opening check passes: {why}"

    def view(self) -> dict[str, Any]:
        return {
            "required": self.required,
            "passed": self.passed,
            "running": self.check is not None,
            "report": self.check.report().as_dict() if self.check is not None else self.last_report,
        }
