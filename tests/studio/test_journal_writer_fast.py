"""The journal writer's own encoders give canonical JSON's bytes, refuse what it refuses, and its group commit
puts a result ahead of the device lines that came behind it."""

from __future__ import annotations

import math
import random
import string
import time
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from streaming.canonical import canonical_json, sha256_hex, sign_message_text, verify_message
from studio.journal_writer import (
    NOTHING,
    WriteFailed,
    canonical_text,
    group_commit,
    record_hash,
    rfc3339,
    signed_text,
)

ROULETTE_LIKE: dict[str, Any] = {
    "kind": "result",
    "table_id": "roulette-1",
    "game": "european_roulette",
    "round_id": "r-1",
    "round_number": 7,
    "version": 1,
    "result": {"number": "17"},
    "outcome": {"bets": [{"bet": f"split-{i}", "wins": i % 2 == 0, "pays": 17} for i in range(40)]},
    "reason": None,
    "source": {"device_id": "roulette-1/cammegh-ss2", "game_counter": 12, "text": 'zéro 😀 \u2028\x00"\\'},
    "commitment": None,
    "reveal": None,
    "occurred_at": "2026-11-29T12:00:00.000000Z",
    "seq": 3,
    "prev_hash": "ab" * 32,
}

VALUES: list[Any] = [
    ROULETTE_LIKE,
    {"b": 1, "a": [1, 2.5, -0.0, 1e16, None, True, False], "c": {"z": "zé", "y": '\u2028\x00"\\/'}},
    {"tuple": (1, (2, 3)), "nested": [(), {}, [[]]]},
    {"big": 2**70, "neg": -(2**63)},
    {},
    # flat, as a device line's body: scalars and empty containers (no walk), text beyond ASCII
    {"device_id": "d/é", "at": "2026-11-29T12:00:00Z", "warnings": [], "extras": {}, "pair": (), "rpm": 28.5},
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_canonical_text_is_canonical_json(value: dict[str, Any]) -> None:
    assert canonical_text(value) == canonical_json(value).decode()


@pytest.mark.parametrize(
    "bad, exc",
    [
        ({1: "int key"}, TypeError),
        ({"a": [{"b": {1: "int key"}}]}, TypeError),
        ({"a": {None: 1}}, TypeError),
        ({"a": ({True: 1},)}, TypeError),
        ({"a": [1, math.nan]}, ValueError),
        ({"a": {1, 2}}, TypeError),
        ({"a": object()}, TypeError),
        ({"a": "\ud800"}, ValueError),
        ({"flat": 1, 2: "int key"}, TypeError),
        ({"flat": [], "a": math.inf}, ValueError),
        ({"flat": "\udfff", "b": []}, ValueError),
    ],
)
def test_canonical_text_refuses_what_canonical_json_refuses(bad: dict[str, Any], exc: type) -> None:
    with pytest.raises(exc):
        canonical_json(bad)
    with pytest.raises(exc):
        canonical_text(bad)


@pytest.mark.parametrize("value", VALUES[:2], ids=range(2))
def test_signed_text_is_what_sign_message_text_gives(value: dict[str, Any]) -> None:
    key = Ed25519PrivateKey.generate()
    signed, text = sign_message_text(value, key)
    digest, mine = signed_text(value, key)
    assert (digest, mine) == (signed["hash"], text.decode())
    verify_message(signed, key.public_key())


def test_signed_text_of_a_message_with_a_hidden_key_is_the_slow_paths() -> None:
    key = Ed25519PrivateKey.generate()
    with pytest.raises(TypeError):
        signed_text(dict(ROULETTE_LIKE, outcome={1: "x"}), key)


def test_rfc3339_and_record_hash_give_the_texts_of_their_plain_versions() -> None:
    r = random.Random(25)
    alphabet = string.printable + 'éü中\u2028\u2029"\\\x00\x1f\x7f😀'

    def text() -> str:
        return "".join(r.choice(alphabet) for _ in range(r.randint(0, 30)))

    for _ in range(3000):
        at = datetime(
            r.randint(1, 9999), r.randint(1, 12), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59),
            r.randint(0, 59), r.choice([0, r.randint(0, 999_999)]), tzinfo=UTC,
        )  # fmt: skip
        assert rfc3339(at) == at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        fields = {
            "seq": r.randint(1, 10**12),
            "at": text(),
            "kind": text(),
            "table_id": r.choice([None, text()]),
            "round_id": r.choice([None, text()]),
            "feed_seq": r.choice([None, r.randint(0, 10**12)]),
            "body": text(),
            "prev_hash": text(),
        }
        assert record_hash(**fields) == sha256_hex(canonical_json(fields))
    away = datetime(2026, 12, 1, 18, 0, 0, 5, tzinfo=timezone(timedelta(hours=2)))
    assert rfc3339(away) == "2026-12-01T16:00:00.000005Z"
    # times within, at the edges of and back and forth across seconds (rfc3339 keeps the current second's text)
    start = datetime(2026, 12, 31, 23, 59, 58, 999_998, tzinfo=UTC)
    for step in [r.randint(-1_500_000, 1_500_000) for _ in range(2000)] + list(range(-3, 4)):
        at = start + timedelta(microseconds=step)
        assert rfc3339(at) == at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    # what a tampered journal may hold (a text where a number belongs) is hashed as canonical JSON says
    odd = dict(fields, feed_seq="7")
    assert record_hash(**odd) == sha256_hex(canonical_json(odd))


# --- group commit ---------------------------------------------------------------------------------


class Feeder:
    """take() for group_commit: hands out the scripted lists (None: the end), then NOTHING until told to end."""

    def __init__(self, script: list[list[str] | None]) -> None:
        self.script = list(script)
        self.ended = False
        self.waits: list[float | None] = []

    def take(self, timeout: float | None) -> Any:
        self.waits.append(timeout)
        if self.script:
            return self.script.pop(0)
        if self.ended or timeout is None:
            return None
        time.sleep(timeout)
        return NOTHING


def run(
    script: list[list[str]], delay: float = 0.005, group: int = 500, max_batch: int = 1000
) -> list[list[str]]:
    feeder = Feeder(script)
    batches: list[list[str]] = []
    group_commit(feeder.take, batches.append, lambda item: item.startswith("R"), max_batch, delay, group)
    return batches


def test_a_result_goes_at_once_with_what_came_before_it_and_without_what_came_after() -> None:
    feeder = Feeder([["d1", "d2", "R1", "d3"]])
    batches: list[list[str]] = []

    def end_after_first(batch: list[str]) -> None:
        batches.append(batch)
        feeder.ended = True

    group_commit(feeder.take, end_after_first, lambda item: item.startswith("R"), 1000, 3600, 500)
    assert batches == [["d1", "d2", "R1"], ["d3"]]


def test_device_lines_wait_for_their_delay_and_share_one_commit() -> None:
    feeder = Feeder([["d1"], ["d2"], ["d3"]])
    batches: list[list[str]] = []

    def end_after_first(batch: list[str]) -> None:
        batches.append(batch)
        feeder.ended = True

    t = time.monotonic()
    group_commit(feeder.take, end_after_first, lambda item: item.startswith("R"), 1000, 0.05, 500)
    assert batches == [["d1", "d2", "d3"]]
    assert time.monotonic() - t >= 0.05
    assert any(w is not None and w > 0 for w in feeder.waits)  # it waited for more before committing


def test_enough_device_lines_are_committed_without_waiting_and_in_transactions_of_max_batch() -> None:
    lines = [f"d{i}" for i in range(25)]
    assert run([lines, None], delay=3600, group=10, max_batch=8) == [
        lines[0:8],
        lines[8:16],
        lines[16:24],
        lines[24:],
    ]


def test_at_the_end_everything_is_committed_at_once() -> None:
    assert run([["d1", "d2"], None], delay=3600) == [["d1", "d2"]]


def test_a_failed_write_names_what_was_not_written() -> None:
    feeder = Feeder([["d1", "R1", "d2"], ["d3"]])

    def fail(batch: list[str]) -> None:
        raise WriteFailed(OSError("disk full"))

    with pytest.raises(WriteFailed) as failed:
        group_commit(feeder.take, fail, lambda item: item.startswith("R"), 1000, 3600, 500)
    assert failed.value.unwritten == ["d1", "R1", "d2", "d3"]
