"""Pure reading logic shared by both shoe drivers: fold repeated reads, turn payloads into events.

No I/O, no clock: the caller passes the time of each read (a monotonic number of
seconds for the window, a wall-clock datetime for the event).

Folding rule (:class:`RepeatFolder`): a payload read again no later than ``window``
seconds after it was LAST read is the same physical card and is dropped. The window
slides: a card that stays under the reader and is read on every frame stays one card
however long it stays. Any payload read within the window folds, not only the last
one, so a reflection of the previous card between two reads of the next one does not
deal it twice. A window of 0 folds nothing.

What folding cannot tell (docs/shoes.md): a card pulled out, read, pushed back and
drawn again more than ``window`` seconds later is reported twice, with the same
payload; a payload names one physical card in the default scheme (set serial + pack +
card), so the judge can see the repeat. In a scheme whose payload names only the
card, two equal cards of different packs drawn within the window fold into one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..events import CardDrawn, CardUnreadable
from .vendor_table import PayloadInfo, VendorTable

__all__ = ["PayloadReader", "RepeatFolder"]


class RepeatFolder:
    """Remembers when each payload was last read; says whether a read is a new card."""

    def __init__(self, window: float) -> None:
        if window < 0:
            raise ValueError("the fold window cannot be negative")
        self.window = float(window)
        self._last: dict[str, float] = {}

    def is_new(self, payload: str, now: float) -> bool:
        """Record a read of ``payload`` at ``now`` (seconds); True if it is a new card."""
        self._expire(now)
        last = self._last.get(payload)
        self._last[payload] = now if last is None else max(last, now)
        return last is None or now - last > self.window

    def seen_recently(self, payload: str, now: float) -> bool:
        """Would a read of ``payload`` at ``now`` fold? (does not record anything)"""
        last = self._last.get(payload)
        return last is not None and now - last <= self.window

    def _expire(self, now: float) -> None:
        if len(self._last) > 64:
            self._last = {p: t for p, t in self._last.items() if now - t <= self.window}

    def clear(self) -> None:
        self._last.clear()


class PayloadReader:
    """A decoded payload -> the event the driver emits (or None when it folds into an earlier read).

    * a card of the table: ``CardDrawn(card, deck)``;
    * the cut card (a ``specials`` payload): ``CardDrawn(card=None, special="cut_card")``;
    * a payload not in the table (another vendor's card, a foreign barcode, a code the table lacks):
      ``CardDrawn(card=None)``, with ``deck`` when the payload fits the template;
    * a payload that fits the template but fails its check digit: ``CardUnreadable`` (a misread);
    * repeats inside the fold window: nothing.
    """

    def __init__(self, device_id: str, table: VendorTable, fold_window: float) -> None:
        self.device_id = device_id
        self.table = table
        self.folder = RepeatFolder(fold_window)
        self.counts = {"cards": 0, "specials": 0, "unknown": 0, "bad_check": 0, "folded": 0}

    def read(
        self, payload: str, *, now: float, at: datetime, raw: str = "", foreign: bool = False
    ) -> CardDrawn | CardUnreadable | None:
        """``foreign``: the reader knows the barcode is not of the table's symbology (an unknown payload)."""
        if not self.folder.is_new(payload, now):
            self.counts["folded"] += 1
            return None
        info = PayloadInfo("unknown", payload) if foreign else self.table.lookup(payload)
        return self.event_for(info, at=at, raw=raw)

    def event_for(self, info: PayloadInfo, *, at: datetime, raw: str) -> CardDrawn | CardUnreadable:
        common: dict[str, Any] = {"device_id": self.device_id, "at": at, "raw": raw}
        if info.status == "bad_check":
            self.counts["bad_check"] += 1
            return CardUnreadable(
                reason=f"payload {info.payload!r} fails its {self.table.check} check digit (a misread)",
                **common,
            )
        if info.status == "special":
            self.counts["specials"] += 1
        elif info.status == "unknown":
            self.counts["unknown"] += 1
        else:
            self.counts["cards"] += 1
        return CardDrawn(card=info.card, payload=info.payload, deck=info.deck, special=info.special, **common)
