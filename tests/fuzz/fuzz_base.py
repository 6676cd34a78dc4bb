"""What the fuzz targets share: the Target record, helpers to feed a driver without a port, and the edits that
mutate a seed (the same edits for hypothesis in the suite and for the bench's random loop).

The targets themselves are in fuzz_lines.py (line devices) and fuzz_wire.py (registers, frames, the feed);
fuzz_targets.all_targets() lists them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from devices.events import DeviceEvent

REPO = Path(__file__).resolve().parents[2]
SS2_CAPTURE = REPO / "fixtures" / "cammegh-ss2-capture.log"

#: bytes no line protocol here gives a meaning to: control characters (not CR/LF) and bytes above ASCII
JUNK_ALPHABET = bytes(b for b in range(256) if b >= 0x80 or (b < 0x20 and b not in (0x0A, 0x0D)))

AT = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class Target:
    name: str
    check: Callable[[bytes], None]
    seeds: list[bytes] = field(default_factory=list)


# -- helpers ---------------------------------------------------------------------------------------------------


def chunks(data: bytes, size: int) -> Iterable[bytes]:
    for i in range(0, len(data), size):
        yield data[i : i + size]


def junk_of(data: bytes) -> bytes:
    """`data` made into garbage: every byte mapped into JUNK_ALPHABET (never a terminator, never text)."""
    return bytes(JUNK_ALPHABET[b % len(JUNK_ALPHABET)] for b in data)


def split_lines(data: bytes) -> list[bytes]:
    return [line for line in re.split(rb"\r\n|\r|\n", data) if line.strip()]


class Sink(list[DeviceEvent]):
    """A driver's on_event: keeps every event."""

    def __call__(self, event: DeviceEvent) -> None:
        self.append(event)


def feed_driver(driver: Any, data: bytes, size: int) -> None:
    """The bytes through the driver's own reading path (framer, parser, tracker, garbage timer), no port."""
    for chunk in chunks(data, size):
        driver._feed(chunk)
    framer = driver._framer
    assert framer.pending <= framer.max_line, f"a partial line of {framer.pending} bytes is held"
    # the driver counts (and logs) what its parser raised instead of failing: a parser must raise nothing
    errors = {k: driver._counters[k] for k in ("handler_errors", "callback_errors")}
    assert not any(errors.values()), f"the parser raised: {errors}"


def chunk_size(data: bytes) -> int:
    """A read size from the input itself, so that the splitting varies with it (1 to 64 bytes)."""
    return 1 + (data[0] % 64 if data else 0)


# -- mutations: the same edits for hypothesis (tests/fuzz/fuzz_strategies.py) and the bench's random loop ----------

JSON_VALUES = [
    b"0",
    b"-1",
    b"1e999",
    b"null",
    b"true",
    b"[]",
    b"{}",
    b'""',
    b'"\\u0000"',
    b"[[[[[[[[]]]]]]]]",
]
INTERESTING = [
    b"\r",
    b"\n",
    b"\r\n",
    b";",
    b"*X;",
    b" ",
    b"\x00",
    b"\xff",
    b"999",
    b"256",
    b"257",
    b"-1",
    b"{",
    b"}",
]
SET_BYTES = b"0123456789;*X \r\n"
#: one edit: (operation 0-7, position, argument, bytes to insert)
Edit = tuple[int, int, int, bytes]
EDIT_OPS = 8
MAX_INPUT = 4096


def apply_edits(seed: bytes, edits: Iterable[Edit], seeds: Sequence[bytes]) -> bytes:
    """`seed` with the edits applied in turn: flip a bit, insert a telling token, delete, duplicate a run,
    splice another seed's tail, insert bytes, set a byte to a protocol character, give a quoted (JSON) string
    a value of another type. Positions and arguments wrap, so any integers make a valid edit."""
    data = bytearray(seed)
    for op, pos, arg, blob in edits:
        pos %= len(data) + 1
        if op == 0 and data:
            data[pos % len(data)] ^= 1 << (arg % 8)
        elif op == 1:
            data[pos:pos] = INTERESTING[arg % len(INTERESTING)]
        elif op == 2:
            del data[pos : pos + 1 + arg % 16]
        elif op == 3 and data:
            start = arg % len(data)
            data[pos:pos] = data[start : start + 1 + (arg // 7) % 32]
        elif op == 4:
            other = seeds[arg % len(seeds)]
            data = data[:pos] + other[(arg // len(seeds)) % (len(other) + 1) :]
        elif op == 5:
            data[pos:pos] = blob
        elif op == 6 and data:
            data[pos % len(data)] = SET_BYTES[arg % len(SET_BYTES)]
        elif op == 7:
            quotes = [m.span() for m in re.finditer(rb'"[^"]*"', data)]
            if quotes:
                start, end = quotes[arg % len(quotes)]
                data[start:end] = JSON_VALUES[(arg // len(quotes)) % len(JSON_VALUES)]
        del data[MAX_INPUT:]
    return bytes(data)


def mutate(rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    """A seed with one to six random edits (the bench's loop)."""
    edits = [
        (
            rng.randrange(EDIT_OPS),
            rng.randrange(1 << 16),
            rng.randrange(1 << 16),
            rng.randbytes(rng.randint(1, 8)),
        )
        for _ in range(rng.randint(1, 6))
    ]
    return apply_edits(rng.choice(seeds), edits, seeds)
