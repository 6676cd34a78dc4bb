"""Who deals at each table, read from the journal: the console's `dealer_sign_in` / `dealer_sign_out` actions
(dealer_ui/shifts.py writes them), so the statistics and the export attribute a round to the dealer signed in
when it opened."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

SIGN_IN = "dealer_sign_in"
SIGN_OUT = "dealer_sign_out"


def follow(dealers: MutableMapping[str, str], table_id: str, action: Mapping[str, Any]) -> None:
    """Apply one `console_action` record of the table to `dealers` (table id -> dealer): a sign-in that was
    done names its dealer, a sign-out that was done leaves the table without one; anything else changes nothing."""
    if action.get("outcome") != "done":
        return
    if action.get("action") == SIGN_IN:
        dealers[table_id] = str(action.get("dealer") or action.get("by") or "")
    elif action.get("action") == SIGN_OUT:
        dealers.pop(table_id, None)
