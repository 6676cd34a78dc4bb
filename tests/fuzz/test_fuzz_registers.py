"""Fuzz the Modbus register decoding: the ball machine's snapshots and tracker, the money wheel's encoder
(tests/fuzz/fuzz_targets.py says what each checks)."""

from __future__ import annotations

import struct

from fixture_files import ss2_capture
from fuzz_strategies import fuzz, inputs
from fuzz_targets import all_targets
from fuzz_wire import check_ball_machine, check_encoder
from hypothesis import example, given

TARGETS = all_targets(ss2_capture())


@fuzz(1200)
@given(inputs(TARGETS["ball_machine"]))
# issue 23 item 5: thousands of balls "released" in one poll, a machine state out of range
@example(struct.pack(">5H", 1, 100, 0, 48, 1) + struct.pack(">5H", 1, 3100, 0, 48, 1))
@example(struct.pack(">5H", 9, 0, 0, 48, 0) * 2)
def test_fuzz_ball_machine(data: bytes) -> None:
    check_ball_machine(data)


@fuzz(800)
@given(inputs(TARGETS["encoder"]))
@example(struct.pack(">IHIH", 0x7FFFFFFF, 1, 0x80000000, 0) * 2 + struct.pack(">IHIH", 0, 2, 0xFFFFFFFF, 1))
def test_fuzz_encoder(data: bytes) -> None:
    check_encoder(data)
