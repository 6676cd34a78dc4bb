"""The studio checks its own software against the certified manifest (studio/manifest.py) at start and every
`software_check_seconds` (24 h by default), journals every check (`software_check`), and with
`manifest_action = "refuse"` pauses every table while the software differs."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .journal import rfc3339
from .manifest import Check, check

if TYPE_CHECKING:  # pragma: no cover
    from .config import StudioSection
    from .journal import Journal
    from .table import Table

log = logging.getLogger(__name__)

#: the key under which a software that differs pauses a table (beside its lost devices)
PAUSE_KEY = "software"


class SoftwareWatch:
    def __init__(self, settings: StudioSection, journal: Journal, tables: dict[str, Table]) -> None:
        self.manifest: Path | None = settings.manifest
        self.trusted_key = settings.manifest_public_key
        self.action = settings.manifest_action
        self.every = settings.software_check_seconds
        self.journal = journal
        self.tables = tables
        self.last: Check | None = None
        self.checked_at: datetime | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        return self.manifest is not None

    def check_now(self) -> Check | None:
        """Check, journal the result and keep it (any thread); None when no manifest is configured."""
        if self.manifest is None:
            return None
        result = check(self.manifest, self.trusted_key)
        self.last = result
        self.checked_at = datetime.now(UTC)
        record: dict[str, Any] = {
            **result.as_dict(),
            "manifest": str(self.manifest),
            "key_pinned": self.trusted_key is not None,
            "action": self.action,
            "summary": result.summary(),
        }
        self.journal.append("software_check", record)
        if result.ok:
            log.info("software check: %s", result.summary())
        else:
            log.error("software check: %s (%s)", result.summary(), self.action)
        if self.trusted_key is None:
            log.warning("software check: manifest_public_key is not set: any key's signature is taken")
        return result

    def status(self) -> dict[str, Any] | None:
        """The latest check as the feed's checkpoints carry it (streaming.messages.SoftwareStatus)."""
        if self.last is None or self.checked_at is None:
            return None
        c = self.last
        return {
            "ok": c.ok,
            "signature": c.signature,
            "files": c.files,
            "differs": len(c.changed) + len(c.missing) + len(c.added),
            "checked_at": rfc3339(self.checked_at),
        }

    def apply(self, table: Table) -> None:
        """Pause the table while the software differs (refuse), or let it run (on the loop)."""
        if self.last is None:
            return
        differs = not self.last.ok and self.action == "refuse"
        table.slots.device_state(PAUSE_KEY, self.last.summary() if differs else None)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.enabled:
            self._task = loop.create_task(self._run(), name="studio-software-check")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await asyncio.to_thread(self.check_now)
                for table in list(self.tables.values()):
                    self.apply(table)
            except Exception:
                log.exception("software check failed")
