"""Fuzz the line devices through their real drivers' reading path: the line splitter, the Cammegh SS2 wheel, the
serial shoe's scanner, the RFID ball reader and the money wheel's pointer reader (tests/fuzz/fuzz_targets.py
says what each checks). The SS2 inputs are mutations of the real capture's lines."""

from __future__ import annotations

import pytest
from fixture_files import ss2_capture
from fuzz_lines import check_ball_reader, check_framer, check_pointer, check_shoe, check_ss2
from fuzz_strategies import fuzz, inputs
from fuzz_targets import all_targets
from hypothesis import example, given

TARGETS = all_targets(ss2_capture())


@fuzz(800)
@given(inputs(TARGETS["framer"]))
@example(b"\r" + b"x" * 70 + b"\r\n\r\n" + b" " * 80 + b"\n")
def test_fuzz_framer(data: bytes) -> None:
    check_framer(data)


@fuzz(600)
@given(inputs(TARGETS["ss2"]))
# issue 23 item 5: a spin number above 256 was certified
@example(b"*X;2;257;17;0;250;0\r\n*X;5;257;17;0;000;0\r\n17\r\n")
@example(b"*X;5;011;17;0;000;0\r\n\xff\xfe17\r\n 6\r\n*X;5;011; 6;0;000;0\r\n")
def test_fuzz_ss2(data: bytes) -> None:
    check_ss2(data)


@fuzz(800)
@given(inputs(TARGETS["shoe"]))
@example(b"1047293014" + b"9" * 200 + b"\r\nCUT\r\n")
def test_fuzz_shoe(data: bytes) -> None:
    check_shoe(data)


@fuzz(800)
@given(inputs(TARGETS["ball_reader"]))
@example(b"TAG BALL007\xff\r\nTAG:\r\n")
def test_fuzz_ball_reader(data: bytes) -> None:
    check_ball_reader(data)


@fuzz(1200)
@given(inputs(TARGETS["pointer"]))
# found by the fuzzer: a tag with a control byte or line noise in it was a read of an unknown segment
@example(b"TAG S17\r\nTAG S53\x0f\r\nTAG S\x1b\xff18\r\n")
def test_fuzz_pointer(data: bytes) -> None:
    check_pointer(data)


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_target_passes_its_seeds(name: str) -> None:
    """The seeds themselves are valid inputs: a check that fails on them tests its own mistake."""
    target = TARGETS[name]
    assert target.seeds
    for seed in target.seeds:
        target.check(seed)
