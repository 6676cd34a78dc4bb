"""Camera shoe: per-frame observations -> card events. Pure: no I/O, no clock (the caller passes times).

Rules (docs/shoes.md, "What the camera shoe reports"):

* **Misreads are never cards.** A payload that fails the vendor table's check digit is dropped
  (counted as a misread); a frame whose crops give more distinct payloads than there are cards in
  view is ambiguous and all its payloads are dropped (a decoder can return a second, wrong
  decode of one barcode whose Code 128 checksum happens to pass).
* **Confirmation.** A payload becomes a card only once it has been read in ``confirm_reads``
  frames (default 2) no more than ``fold_window`` apart. One that is not confirmed before its
  card leaves the view (or within the window) is reported ``CardUnreadable``, never dealt.
* **Order.** Cards are reported in the order they were first read. Two cards first read in the
  same frame cannot be ordered for sure: a ``CardUnreadable`` saying so comes first, then both
  cards (left to right).
* **Folding.** Reads of a payload that was already reported, no later than ``fold_window`` seconds
  after its last read, are the same card (see :mod:`devices.shoe.fold`).
* **Unreadable cards.** A frame is *unreadable* when a whole card is in view and fewer payloads
  were read than whole cards are in view; frames of a card touching the edge (entering or
  leaving) do not count either way. ``unreadable_frames`` such frames in a row give a
  ``CardUnreadable`` at once. A run of at least ``min_unreadable`` such frames not reported yet
  gives one too when the card leaves (``absent_frames`` empty frames) or when a NEW payload is
  read after it (a card that went by too fast, or two cards following each other with no empty
  frame between them, whichever of the two was unreadable). The price: a card that is blurred
  for ``min_unreadable`` frames and then read is reported unreadable, then drawn (a hold, never
  a wrong card).
* **Link lost.** :meth:`CameraTracker.flush` resolves everything pending when the source drops or
  ends: unconfirmed reads, and a card in view not read yet, are reported unreadable.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..events import CardUnreadable, DeviceEvent
from .fold import PayloadReader
from .vendor_table import PayloadInfo, VendorTable
from .vision import Observation

__all__ = ["CameraTracker"]


@dataclass
class _Pending:
    info: PayloadInfo
    first_index: int
    first_at: datetime
    last_now: float
    last_index: int
    x: float
    count: int = 1


class CameraTracker:
    def __init__(
        self,
        device_id: str,
        table: VendorTable,
        *,
        symbology: str = "code128",
        fold_window: float = 1.0,
        confirm_reads: int = 2,
        unreadable_frames: int = 6,
        min_unreadable: int = 3,
        absent_frames: int = 2,
    ) -> None:
        if confirm_reads < 1 or unreadable_frames < 1 or min_unreadable < 1 or absent_frames < 1:
            raise ValueError(
                "confirm_reads, unreadable_frames, min_unreadable and absent_frames must be >= 1"
            )
        self.device_id = device_id
        self.table = table
        self.symbology = symbology
        self.reader = PayloadReader(device_id, table, fold_window)
        self.confirm_reads = confirm_reads
        self.unreadable_frames = unreadable_frames
        self.min_unreadable = min_unreadable
        self.absent_frames = absent_frames
        self._pending: dict[str, _Pending] = {}
        self._ambiguous_frames: set[int] = set()
        self._in_passage = False
        self._empty_run = 0
        self._unread_run = 0
        self._unread_first = 0
        self._unread_reported = False
        self._run_seen: set[str] = set()  # payloads of ambiguous frames in the current unreadable run
        self.counts: dict[str, int] = {
            "frames": 0,
            "card_frames": 0,
            "unreadable_frames": 0,
            "misreads": 0,
            "conflicts": 0,
            "unconfirmed": 0,
            "unreadable_events": 0,
        }

    @property
    def window(self) -> float:
        return self.reader.folder.window

    # ------------------------------------------------------------------ frames
    def observe(self, obs: Observation, *, now: float, at: datetime, index: int) -> list[DeviceEvent]:
        """One analysed frame, its time (seconds, monotonic or media time), wall-clock time and number."""
        self.counts["frames"] += 1
        events: list[DeviceEvent] = []
        good: dict[str, tuple[PayloadInfo, float]] = {}
        for read in obs.reads:
            info = self.table.lookup(read.text)
            if info.status == "bad_check":
                self.counts["misreads"] += 1
            else:
                good.setdefault(info.payload, (info, read.x))
        whole = sum(1 for c in obs.cards if not c.touches_border)
        if len(good) > max(1, whole):
            self.counts["conflicts"] += 1
            self._run_seen.update(good)  # ambiguous reads: not cards, but not another card either
            good = {}

        if obs.state != "empty" or obs.reads:
            self._empty_run = 0
            self._in_passage = True
        else:
            self._empty_run += 1

        fresh = [
            p
            for p in good
            if p not in self._pending
            and p not in self._run_seen
            and not self.reader.folder.seen_recently(p, now)
        ]
        if fresh and self._unread_run >= self.min_unreadable and not self._unread_reported:
            # a new card is read right after a run of unreadable frames: that run was a card of its own
            events.append(
                self._unreadable(
                    at,
                    f"{self._unread_run} unreadable frames of a card, then another card was read",
                    f"frames {self._unread_first}-{index - 1}",
                )
            )
            self._unread_reported = True
        for payload, (info, x) in good.items():
            p = self._pending.get(payload)
            if p is not None:
                p.count += 1
                p.last_now, p.last_index = now, index
            elif self.reader.folder.seen_recently(payload, now):
                self.reader.folder.is_new(payload, now)  # the same card, still in view: keep it folded
                self.reader.counts["folded"] += 1
            else:
                self._pending[payload] = _Pending(info, index, at, now, index, x)
        events += self._release(now, at, force=False)

        if obs.state == "card":
            self.counts["card_frames"] += 1
        if obs.state == "card" and len(good) < whole:
            self.counts["unreadable_frames"] += 1
            if self._unread_run == 0:
                self._unread_first = index
            self._unread_run += 1
            if self._unread_run >= self.unreadable_frames and not self._unread_reported:
                events.append(
                    self._unreadable(
                        at,
                        f"a card in view for {self._unread_run} frames without a readable barcode",
                        f"frames {self._unread_first}-{index}",
                    )
                )
                self._unread_reported = True
        elif good:
            self._unread_run = 0
            self._unread_reported = False
            self._run_seen.clear()

        if self._in_passage and self._empty_run >= self.absent_frames:
            events += self._end_passage(now, at, "the card left the view")
        return events

    def flush(self, *, now: float, at: datetime, why: str) -> list[DeviceEvent]:
        """The source dropped or ended: resolve what is pending (never leaves a card unreported)."""
        events = self._release(now, at, force=True, why=why)
        if self._unread_run and not self._unread_reported:
            events.append(
                self._unreadable(
                    at, f"a card was in view, not read yet, when {why}", f"frames {self._unread_first}-"
                )
            )
        self._reset_passage()
        return events

    # ------------------------------------------------------------------ internals
    def _end_passage(self, now: float, at: datetime, why: str) -> list[DeviceEvent]:
        events = self._release(now, at, force=True, why=why)
        if self._unread_run >= self.min_unreadable and not self._unread_reported:
            events.append(
                self._unreadable(
                    at,
                    f"a card went by with {self._unread_run} unreadable frames and no read after them",
                    f"frames {self._unread_first}-",
                )
            )
        self._reset_passage()
        return events

    def _reset_passage(self) -> None:
        self._in_passage = False
        self._empty_run = 0
        self._unread_run = 0
        self._unread_reported = False
        self._run_seen.clear()
        self._ambiguous_frames.clear()

    def _release(self, now: float, at: datetime, *, force: bool, why: str = "") -> list[DeviceEvent]:
        """Report pending reads in first-read order: confirmed ones as cards, stale ones as unreadable."""
        events: list[DeviceEvent] = []
        while self._pending:
            head = min(self._pending.values(), key=lambda p: (p.first_index, p.x))
            payload = head.info.payload
            if head.count >= self.confirm_reads:
                twins = [
                    p for p in self._pending.values() if p is not head and p.first_index == head.first_index
                ]
                if twins and head.first_index not in self._ambiguous_frames:
                    self._ambiguous_frames.add(head.first_index)
                    names = ", ".join(sorted([payload] + [t.info.payload for t in twins]))
                    events.append(
                        self._unreadable(
                            head.first_at,
                            f"{len(twins) + 1} cards were first read in the same frame; "
                            "their order cannot be told",
                            f"frame {head.first_index}: {names}",
                        )
                    )
                del self._pending[payload]
                self.reader.folder.is_new(payload, head.last_now)
                raw = f"{self.symbology} {payload} frames {head.first_index}-{head.last_index} ({head.count} reads)"
                events.append(self.reader.event_for(head.info, at=head.first_at, raw=raw))
            elif force or now - head.last_now > self.window:
                del self._pending[payload]
                self.counts["unconfirmed"] += 1
                when = why or f"no second read within {self.window:g} s"
                events.append(
                    self._unreadable(
                        head.first_at,
                        f"barcode read in {head.count} frame(s) only, {self.confirm_reads} needed ({when})",
                        f"{self.symbology} {payload} frame {head.first_index}",
                    )
                )
            else:
                break
        return events

    def _unreadable(self, at: datetime, reason: str, raw: str) -> CardUnreadable:
        self.counts["unreadable_events"] += 1
        return CardUnreadable(device_id=self.device_id, at=at, reason=reason, raw=raw)

    def stats(self) -> dict[str, Any]:
        return {**self.counts, **{f"reads_{k}": v for k, v in self.reader.counts.items()}}
