"""Serial dealing shoe: a barcode scanner in the shoe sends each decoded payload as a line of text.

Kind ``serial-shoe``, on :class:`devices.serial_line.SerialLineDriver` (pyserial URL,
reconnect with backoff, health counters). Each line is one decoded barcode (CR, LF or
CR LF ends it). :meth:`SerialShoeDriver.handle_line` is pure apart from reading the
clock, and :func:`classify_line` below is pure.

Every line the scanner sends is evidence that a card went by, so none is dropped in
silence (a lost read would shift every later card of the round):

* a payload of the vendor table -> ``CardDrawn`` (card, deck), folded within ``fold_window``;
* the cut card's payload -> ``CardDrawn(card=None, special="cut_card")``;
* a printable payload not in the table -> ``CardDrawn(card=None)``;
* a payload failing its check digit, the scanner's no-read message (``no_read_messages``),
  a garbled line (bytes that are not printable ASCII) -> ``CardUnreadable``;
* a line torn off by silence, a reconnect or an over-long run of bytes -> ``CardUnreadable``.
"""

from __future__ import annotations

import inspect
import logging
import re
import string
import time
from collections.abc import Callable, Iterable
from typing import Any

from ..abilities import ReadsCards
from ..events import CardUnreadable, DeviceEvent, utcnow
from ..framing import LineFramer
from ..serial_line import SerialLineDriver
from .fold import PayloadReader
from .vendor_table import SYMBOLOGIES, vendor_table_from_option

__all__ = ["AIM_SYMBOLOGIES", "DEFAULT_NO_READ", "DRIVERS", "SerialShoeDriver", "classify_line"]

log = logging.getLogger(__name__)

#: messages scanners send when triggered without a decode (configurable per scanner)
DEFAULT_NO_READ = ("NOREAD", "NO READ", "NR", "ERROR", "ERR")
#: AIM symbology identifiers (ISO/IEC 15424) a scanner may prefix: "]C0" Code128, "]Q1" QR, "]d1" DataMatrix
AIM_SYMBOLOGIES = {"C": "code128", "Q": "qr", "d": "datamatrix"}
_PRINTABLE = set(string.printable) - set("\t\n\r\x0b\x0c")


def classify_line(
    line: str,
    *,
    no_read: Iterable[str] = DEFAULT_NO_READ,
    aim_prefix: bool = False,
    symbology: str = "code128",
) -> tuple[str, str]:
    """One scanner line -> ``("payload", text)`` or ``("unreadable", reason)`` or ``("foreign", text)``.

    "foreign": a readable barcode of another symbology (only known with ``aim_prefix``).
    """
    text = line.strip()
    if not text or not set(text) <= _PRINTABLE:
        return "unreadable", "garbled line from the scanner (not printable ASCII)"
    if text.upper() in {n.upper() for n in no_read}:
        return "unreadable", f"the scanner reported a no-read ({text!r})"
    if aim_prefix:
        if len(text) < 3 or text[0] != "]" or not text[2].isalnum():
            return "unreadable", "line without the AIM symbology identifier the scanner is set to send"
        kind = AIM_SYMBOLOGIES.get(text[1])
        text = text[3:]
        if not text:
            return "unreadable", "AIM identifier with no payload"
        if kind != symbology:
            return "foreign", text
    return "payload", text


class _Dropped(str):
    """Stands in the framer's output, in stream order, for a line it threw away."""


_TERMINATORS = re.compile(rb"[\r\n]")


class _ReportingFramer(LineFramer):
    """A LineFramer that tells the driver about bytes it throws away (a torn or over-long line).

    An over-long line comes out of :meth:`feed` as a :class:`_Dropped` marker in its place in the
    stream; a partial line dropped by :meth:`discard_partial` (silence, reconnect) is reported
    through ``on_drop`` at once.
    """

    def __init__(self, max_line: int, on_drop: Callable[[str, str], None]) -> None:
        super().__init__(max_line=max_line)
        self._on_drop = on_drop

    def feed(self, data: bytes) -> list[str]:
        out: list[str] = []
        start = 0
        for m in _TERMINATORS.finditer(data):  # one terminator per piece: a drop is placed exactly
            out += self._piece(data[start : m.end()])
            start = m.end()
        if start < len(data):
            out += self._piece(data[start:])
        return out

    def _piece(self, piece: bytes) -> list[str]:
        before = self.overlong_lines
        lines = super().feed(piece)
        if self.overlong_lines > before:
            return [_Dropped(f"over-long line discarded (more than {self.max_line} bytes)")] + lines
        return lines

    def discard_partial(self) -> int:
        held = bytes(self._buf)
        dropped = super().discard_partial()
        if held.strip():
            self._on_drop("torn line: no terminator arrived", held.decode("ascii", "replace"))
        return dropped


#: SerialLineDriver's own options, passed through
_SERIAL_OPTIONS = frozenset(
    p
    for p in inspect.signature(SerialLineDriver.__init__).parameters
    if p not in ("self", "device_id", "url", "on_event", "options")
)


class SerialShoeDriver(SerialLineDriver, ReadsCards):
    """A shoe whose scanner sends decoded payloads as text lines.

    Options (besides SerialLineDriver's ``baudrate``, ``read_timeout``, ``reconnect_*``, ...):

    * ``vendor_table``: path to a TOML/JSON vendor table (default: the shipped table);
    * ``fold_window``: seconds within which a repeated read of one payload folds (default 1.0);
    * ``no_read_messages``: lines meaning "triggered, nothing decoded" (default NOREAD, NO READ, NR, ERROR, ERR);
    * ``aim_prefix``: the scanner prefixes the AIM symbology identifier (``]C0``...); a barcode of
      another symbology is then reported as an unknown payload (default False);
    * ``symbology``: the symbology expected with ``aim_prefix`` (default: the vendor table's);
    * ``partial_line_timeout``: a line with no terminator after this many seconds of silence is
      reported unreadable (default 0.5).
    """

    kind = "serial-shoe"
    baudrate = 9600

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: Callable[[DeviceEvent], None],
        *,
        vendor_table: Any = None,
        fold_window: float = 1.0,
        no_read_messages: Iterable[str] = DEFAULT_NO_READ,
        aim_prefix: bool = False,
        symbology: str | None = None,
        max_line: int = 128,
        partial_line_timeout: float | None = 0.5,
        **options: Any,
    ) -> None:
        unknown = sorted(options.keys() - _SERIAL_OPTIONS)
        if unknown:
            raise ValueError(f"serial-shoe {device_id}: unknown option(s) {', '.join(unknown)}")
        super().__init__(
            device_id, url, on_event, max_line=max_line, partial_line_timeout=partial_line_timeout, **options
        )
        self.table = vendor_table_from_option(vendor_table)
        self.symbology = symbology or self.table.symbology
        if self.symbology not in SYMBOLOGIES:
            raise ValueError(f"symbology {self.symbology!r}: one of {', '.join(SYMBOLOGIES)}")
        self.no_read_messages = tuple(no_read_messages)
        self.aim_prefix = bool(aim_prefix)
        self.reader = PayloadReader(device_id, self.table, fold_window)
        self.unreadable = 0
        # report what the base framer would throw away in silence (torn lines): see docs/shoes.md
        self._framer = _ReportingFramer(max_line, self._dropped)

    def handle_line(self, line: str) -> list[DeviceEvent]:
        now, at = time.monotonic(), utcnow()
        if isinstance(line, _Dropped):
            self.unreadable += 1
            return [CardUnreadable(device_id=self.device_id, at=at, reason=str(line), raw="")]
        what, text = classify_line(
            line, no_read=self.no_read_messages, aim_prefix=self.aim_prefix, symbology=self.symbology
        )
        if what == "unreadable":
            self.unreadable += 1
            return [CardUnreadable(device_id=self.device_id, at=at, reason=text, raw=line)]
        event = self.reader.read(text, now=now, at=at, raw=line, foreign=what == "foreign")
        if isinstance(event, CardUnreadable):
            self.unreadable += 1
        return [event] if event is not None else []

    def _dropped(self, why: str, partial: str) -> None:
        self.unreadable += 1
        log.warning("%s: %s %r", self.thread_name, why, partial)
        self._emit(CardUnreadable(device_id=self.device_id, reason=why, raw=partial))

    def device_info(self) -> dict[str, Any]:
        return {
            "vendor": self.table.vendor,
            "symbology": self.symbology,
            "fold_window": self.reader.folder.window,
            "reads": dict(self.reader.counts),
            "unreadable": self.unreadable,
        }


DRIVERS = {"serial-shoe": SerialShoeDriver}
