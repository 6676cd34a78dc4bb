"""What people did, in the studio's journal: sign-ins and refusals, approvals, actions at a table, incidents,
device commands and user changes, each with who did it.

A record that cannot be written stops the person acting: the caller gets :class:`JournalUnavailable` and
must not carry the action out (nobody acts at a table without a trace).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .journal import Journal

log = logging.getLogger(__name__)


class JournalUnavailable(RuntimeError):
    """The journal cannot record what a person did; the message says so in words for that person."""


class ActionJournal:
    def __init__(self, journal: Journal) -> None:
        self._journal = journal

    def record(
        self, kind: str, data: dict[str, Any], *, table_id: str | None = None, round_id: str | None = None
    ) -> None:
        """Queue one record of what a person did (``kind``: ``console_action``, ``console_sign_in``, ...)."""
        try:
            self._journal.append(kind, data, table_id=table_id, round_id=round_id)
        except Exception as exc:  # a journal that cannot write (closed, failed) stops people acting
            log.error("could not journal %s: %s", kind, exc)
            raise JournalUnavailable(
                f"The journal cannot record this ({exc}). Stop and call a technician."
            ) from exc
