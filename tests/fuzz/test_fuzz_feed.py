"""Fuzz the feed's handshake at both ends: the server's reading of the bearer token and of ?after=
(streaming/feed.py), the client library's reading of a refusal and of each frame (clients/python)."""

from __future__ import annotations

from fixture_files import ss2_capture
from fuzz_strategies import fuzz, inputs
from fuzz_targets import all_targets
from fuzz_wire import check_client_frame, check_client_refusal, check_feed_handshake
from hypothesis import example, given

TARGETS = all_targets(ss2_capture())


@fuzz(1200)
@given(inputs(TARGETS["feed_handshake"]))
@example(b"Bearer \t x")
@example("١٢٣".encode())
def test_fuzz_feed_handshake(data: bytes) -> None:
    check_feed_handshake(data)


@fuzz(1000)
@given(inputs(TARGETS["client_refusal"]))
# found by the fuzzer: a refusal whose code or message is not a string raised TypeError, not FeedRefused
@example(b'\x00{"code": 5, "message": "x"}')
@example(b'\x00{"code": "invalid_after", "message": ["x"]}')
@example(b"\x00" + b"[" * 50_000)
def test_fuzz_client_refusal(data: bytes) -> None:
    check_client_refusal(data)


@fuzz(1000)
@given(inputs(TARGETS["client_frame"]))
# found by the fuzzer: a signed message lacking a field of its kind raised pydantic's ValidationError
@example(b'{"seq": 1, "kind": "result", "occurred_at": "2026-01-01T00:00:00Z"}')
@example(b'{"seq": 1, "kind": "checkpoint", "head": {"journal_seq": "x"}}')
# arrays nested deeper than the interpreter recurses raised RecursionError, not MalformedMessage
@example(b"[" * 50_000)
def test_fuzz_client_frame(data: bytes) -> None:
    check_client_frame(data)
