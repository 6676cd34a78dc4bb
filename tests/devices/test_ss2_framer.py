"""The pure line framer (devices.framing), with bytes from the real SS2 capture (spec §9.1-9.6)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from devices.framing import LineFramer
from devices.roulette.cammegh_ss2 import Status, Unknown, WinningNumber, iter_capture_events, parse_line

FIXED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
CHUNK_SIZES = [1, 2, 7, 64, 4096]


def chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def frame(*parts: bytes, max_line: int = 512) -> list[str]:
    f = LineFramer(max_line=max_line)
    out: list[str] = []
    for p in parts:
        out += f.feed(p)
    return out


# -- the capture -----------------------------------------------------------------


def test_capture_whole_gives_462_lines_equal_to_the_file(capture_bytes, capture_lines):
    f = LineFramer()
    lines = f.feed(capture_bytes)
    assert len(lines) == 462
    assert lines == [line.rstrip() for line in capture_lines]
    assert lines[234] == " 6"  # L235: leading space kept
    assert f.pending == 0 and f.garbage_bytes == 0 and f.decode_errors == 0


@pytest.mark.parametrize("size", CHUNK_SIZES)
def test_capture_in_chunks_gives_the_same_lines_messages_and_events(capture_bytes, size):
    whole = LineFramer().feed(capture_bytes)
    f = LineFramer()
    pieces = [line for c in chunks(capture_bytes, size) for line in f.feed(c)]
    assert pieces == whole
    assert len(pieces) == 462
    assert [parse_line(x) for x in pieces] == [parse_line(x) for x in whole]

    events_whole = list(iter_capture_events([capture_bytes], "w", clock=lambda: FIXED))
    events_chunked = list(iter_capture_events(chunks(capture_bytes, size), "w", clock=lambda: FIXED))
    assert events_chunked == events_whole
    assert len(events_whole) == 43  # 33 status changes + 6 results + 4 power lines


@pytest.mark.parametrize("seed", range(5))
def test_capture_in_random_chunks(capture_bytes, seed):
    rng = random.Random(seed)
    f = LineFramer()
    out, i = [], 0
    while i < len(capture_bytes):
        n = rng.randint(1, 40)
        out += f.feed(capture_bytes[i : i + n])
        i += n
    assert out == LineFramer().feed(capture_bytes)


# -- terminators -------------------------------------------------------------------


def test_fragmented_status_line_spec_9_2():
    f = LineFramer()
    assert f.feed(b"*X;4;01") == []
    assert f.feed(b"4; 6;0;162;0\r") == ["*X;4;014; 6;0;162;0"]
    assert f.feed(b"\n") == []
    assert parse_line("*X;4;014; 6;0;162;0").number == "6"


@pytest.mark.parametrize(
    "data",
    [b"*P OK\r\n27\r\n", b"*P OK\r27\r", b"*P OK\n27\n", b"*P OK\r\n27\n", b"*P OK\n27\r\n"],
    ids=["crlf", "cr", "lf", "mixed1", "mixed2"],
)
def test_every_terminator_ends_a_line(data):
    assert frame(data) == ["*P OK", "27"]


def test_cr_then_lf_in_the_next_chunk_is_one_boundary():
    f = LineFramer()
    assert f.feed(b"27\r") == ["27"]  # delivered at the \r, not held
    assert f.feed(b"\n 6\r") == [" 6"]  # the \n belongs to the previous \r
    assert f.feed(b"") == []  # an empty read does not forget the pending \r
    assert f.feed(b"\n*P OK\r\n") == ["*P OK"]


def test_lf_after_cr_only_swallowed_once():
    # \r \n \n: the second \n ends an empty line, which is dropped; nothing else appears
    assert frame(b"a\r", b"\n\nb\r\n") == ["a", "b"]


def test_empty_and_blank_lines_are_dropped():
    assert frame(b"\r\n\r\n\n\r\r\n  \r\n\t\r\n") == []


def test_leading_spaces_kept_trailing_whitespace_stripped():
    assert frame(b" 6  \t\r\n*I 4 \r\n*T OK\t\r\n") == [" 6", "*I 4", "*T OK"]


def test_partial_line_is_held_until_its_terminator():
    f = LineFramer()
    assert f.feed(b"*X;5;013; 6") == []
    assert f.pending == len(b"*X;5;013; 6")
    assert f.feed(b";0;177;1") == []
    assert f.feed(b"\r\n") == ["*X;5;013; 6;0;177;1"]
    assert f.pending == 0


def test_discard_partial_counts_garbage():
    f = LineFramer()
    f.feed(b"*X;4;01")
    assert f.discard_partial() == 7
    assert f.garbage_bytes == 7 and f.pending == 0
    assert f.feed(b"1;27;0;140;1\r\n") == ["1;27;0;140;1"]  # the torn tail stays a (junk) line of its own


# -- over-long lines and garbage ------------------------------------------------------


def test_overlong_line_is_discarded_and_counted():
    f = LineFramer(max_line=16)
    assert f.feed(b"x" * 100) == []
    assert f.pending <= 16
    assert f.feed(b"yyy\r\n*P OK\r\n") == ["*P OK"]  # "yyy" is the end of the junk line
    assert f.garbage_bytes == 103
    assert f.overlong_lines == 1


def test_line_of_exactly_max_line_is_delivered():
    assert frame(b"a" * 16 + b"\r\n", max_line=16) == ["a" * 16]
    assert frame(b"a" * 17 + b"\r\n", max_line=16) == []


@pytest.mark.parametrize("size", [1, 3, 16, 17, 1000])
def test_overlong_handling_does_not_depend_on_chunking(size):
    data = b"*P OK\r\n" + b"z" * 40 + b"\r\n27\r\n" + b"q" * 17 + b"\n*X\r\n"
    whole = LineFramer(max_line=16)
    expected = whole.feed(data)
    assert expected == ["*P OK", "27", "*X"]
    f = LineFramer(max_line=16)
    assert [line for c in chunks(data, size) for line in f.feed(c)] == expected
    assert (f.garbage_bytes, f.overlong_lines) == (whole.garbage_bytes, whole.overlong_lines) == (57, 2)


def test_endless_garbage_without_newline_does_not_grow_memory():
    f = LineFramer(max_line=512)
    rng = random.Random(7)
    for _ in range(256):  # 1 MiB, no terminator at all
        chunk = bytes(b for b in rng.randbytes(4096) if b not in (10, 13))
        assert f.feed(chunk) == []
        assert f.pending <= 512
    assert f.garbage_bytes > 900_000
    assert f.feed(b"\r\n*P OK\r\n") == ["*P OK"]


def test_non_ascii_line_is_delivered_with_replacement_and_counted():
    f = LineFramer()
    lines = f.feed(b"\xff\xfe*X;1;011;34;0;057;0\r\n*P OK\r\n")
    assert lines == ["\ufffd\ufffd*X;1;011;34;0;057;0", "*P OK"]
    assert f.decode_errors == 1
    assert isinstance(parse_line(lines[0]), Unknown)


def test_random_garbage_then_valid_lines_still_parse(capture_bytes):
    rng = random.Random(1234)
    garbage = rng.randbytes(20_000)
    f = LineFramer()
    junk = []
    for c in chunks(garbage, 97):
        junk += f.feed(c)  # must not raise
    tail = f.feed(b"\r\n" + capture_bytes[:200])
    good = LineFramer().feed(capture_bytes[:200])
    assert tail[-len(good) :] == good
    assert all(
        not isinstance(parse_line(x), Status) or x in good for x in junk + tail
    )  # no status out of junk
    assert f.decode_errors > 0  # random bytes are mostly not ASCII


def test_half_status_line_merges_with_next_line_into_one_unknown_only():
    data = b"*X;4;01" + b"*X;5;011;27;0;136;1\r\n27\r\n*X;5;011;27;0;136;1\r\n"
    lines = frame(data)
    assert len(lines) == 3
    assert isinstance(parse_line(lines[0]), Unknown)
    assert isinstance(parse_line(lines[1]), WinningNumber)
    assert isinstance(parse_line(lines[2]), Status)


def test_max_line_must_be_positive():
    with pytest.raises(ValueError):
        LineFramer(max_line=0)
