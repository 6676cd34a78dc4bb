"""Pure line framer: bytes in, complete text lines out.

No I/O, no clock, no threads: the same bytes give the same lines whatever the
chunking of the reads (pymodbus-style framer layer, see shared/style.md).

Rules (shared/protocols/cammegh-ss2.md §9.1-9.6):

* A line ends at ``\\r\\n``, ``\\r`` or ``\\n``. A ``\\r`` that ends one chunk and a
  ``\\n`` that starts the next are ONE boundary. A line is delivered as soon as
  its terminator arrives (a ``\\r`` is enough).
* Empty lines are dropped. Leading spaces are kept (``" 6"`` is the winning
  number 6); trailing whitespace is stripped (some replies end in a space).
* A partial line is held until its terminator; it is never delivered early.
* A line longer than ``max_line`` bytes is discarded up to and including its
  terminator and counted as garbage, so a stream with no terminator cannot grow
  memory. The decision depends only on the line's length, never on chunking.
* Bytes that are not ASCII do not stop the line: it is decoded with
  ``errors="replace"`` (U+FFFD) and delivered, so the parser reports it as
  unknown; the line is counted in ``decode_errors``.
"""

from __future__ import annotations

import re

__all__ = ["DEFAULT_MAX_LINE", "LineFramer"]

DEFAULT_MAX_LINE = 512

_TERMINATOR = re.compile(rb"[\r\n]")
_CR = 0x0D
_LF = 0x0A


class LineFramer:
    """Splits a byte stream into lines. Feed it every chunk you read."""

    def __init__(self, max_line: int = DEFAULT_MAX_LINE, encoding: str = "ascii") -> None:
        if max_line < 1:
            raise ValueError("max_line must be >= 1")
        self.max_line = max_line
        self.encoding = encoding
        self._buf = bytearray()
        self._discarding = False  # inside an over-long line: drop bytes up to the next terminator
        self._after_cr = False  # the last byte consumed was a \r ending a chunk
        #: bytes thrown away: over-long lines and partial lines dropped by discard_partial()
        self.garbage_bytes = 0
        #: lines that held bytes the encoding could not decode (delivered with U+FFFD)
        self.decode_errors = 0
        #: over-long lines discarded
        self.overlong_lines = 0
        #: lines delivered
        self.lines = 0

    # -- feeding ------------------------------------------------------------
    def feed(self, data: bytes) -> list[str]:
        """Consume ``data`` and return the lines it completed (possibly none)."""
        if not data:
            return []
        out: list[str] = []
        i, n = 0, len(data)
        if self._after_cr and data[0] == _LF:
            i = 1  # second half of a \r\n split across two reads
        self._after_cr = False
        while i < n:
            m = _TERMINATOR.search(data, i)
            if m is None:
                self._append(data[i:])
                break
            j = m.start()
            self._append(data[i:j])
            self._end_line(out)
            if data[j] == _CR:
                if j + 1 < n:
                    if data[j + 1] == _LF:
                        j += 1
                else:
                    self._after_cr = True
            i = j + 1
        return out

    @property
    def pending(self) -> int:
        """Number of bytes held for a line whose terminator has not arrived."""
        return len(self._buf)

    def discard_partial(self) -> int:
        """Drop the held partial line (e.g. after a reconnect or a long silence).

        Returns the number of bytes dropped, which are counted as garbage.
        """
        dropped = len(self._buf)
        self.garbage_bytes += dropped
        self._buf.clear()
        self._discarding = False
        self._after_cr = False
        return dropped

    # -- internals ----------------------------------------------------------
    def _append(self, part: bytes) -> None:
        if not part:
            return
        if self._discarding:
            self.garbage_bytes += len(part)
            return
        self._buf += part
        if len(self._buf) > self.max_line:
            self.garbage_bytes += len(self._buf)
            self.overlong_lines += 1
            self._buf.clear()
            self._discarding = True

    def _end_line(self, out: list[str]) -> None:
        if self._discarding:
            self._discarding = False
            return
        if not self._buf:
            return
        raw = bytes(self._buf)
        self._buf.clear()
        try:
            text = raw.decode(self.encoding)
        except UnicodeDecodeError:
            self.decode_errors += 1
            text = raw.decode(self.encoding, errors="replace")
        text = text.rstrip()
        if text:
            self.lines += 1
            out.append(text)
