"""The journal's quick texts (studio/journal_text.py) are canonical JSON's bytes on varied values, refuse what it
refuses, and a journal written through them holds what the plain functions would have written."""

from __future__ import annotations

import collections
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from streaming.canonical import canonical_json, sha256_hex, sign_message_text
from studio.journal import Journal, check_feed_message, verify_journal
from studio.journal_text import (
    canonical_text,
    message_items,
    plain_types,
    signed_items,
    signed_text,
)
from studio.keys import load_or_create_key

TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(TEXT, inner, max_size=6)
    ),
    max_leaves=40,
)
OBJECTS = st.dictionaries(TEXT, VALUES, max_size=8)


@settings(max_examples=300, deadline=None)
@given(OBJECTS)
def test_canonical_text_is_canonical_json_on_any_json_object(value: dict[str, Any]) -> None:
    assert canonical_text(value) == canonical_json(value).decode()
    assert plain_types(value) is not None


@settings(max_examples=150, deadline=None)
@given(OBJECTS, st.sampled_from([None, "2026-12-01T19:00:00.000000Z"]))
def test_signed_pieces_are_what_sign_message_text_gives(value: dict[str, Any], at: str | None) -> None:
    key = Ed25519PrivateKey.generate()
    message = dict(value, hash="stale", signature="stale")
    plain = {k: v for k, v in value.items() if k not in ("hash", "signature")}
    if at is not None:
        plain.setdefault("occurred_at", at)
    signed, text = sign_message_text(plain, key)
    assert signed_items(message_items(message, at), key) == (signed["hash"], text.decode())
    # checked: the values are not looked at again, and the texts are the same
    assert message_items(message, at, checked=True) == message_items(message, at)
    if at is None:
        assert signed_text(message, key) == (signed["hash"], text.decode())


class Hidden(dict):  # a dict subclass: json encodes it, its keys are not looked at by the quick walk
    pass


NOT_PLAIN: list[tuple[Any, type[Exception]]] = [
    ({"bets": [{"bet": "red"}] * 39 + [{7: "the fortieth bet"}]}, TypeError),
    ({"a": [[[{"b": ({None: 1},)}]]]}, TypeError),
    ({"a": Hidden({1: "x"})}, TypeError),
    ({"a": collections.OrderedDict({2: "x"})}, TypeError),
    ({"deep": [float("nan")]}, ValueError),
    ({"a": {"b": "\ud800"}}, ValueError),
    ({"a": b"bytes"}, TypeError),
    ({7: "flat, its keys ints", 8: [1, 2]}, TypeError),
    ({"a": 1, None: "flat"}, TypeError),
]


@pytest.mark.parametrize("bad, exc", NOT_PLAIN, ids=range(len(NOT_PLAIN)))
def test_what_canonical_json_refuses_the_quick_texts_refuse_too(bad: dict[str, Any], exc: type) -> None:
    key = Ed25519PrivateKey.generate()
    with pytest.raises(exc):
        canonical_json(bad)
    with pytest.raises(exc):
        canonical_text(bad)
    with pytest.raises(exc):
        signed_text(bad, key)
    with pytest.raises(exc):
        message_items(bad)


def test_a_cycle_is_refused_as_canonical_json_refuses_it() -> None:
    loop: dict[str, Any] = {"a": []}
    loop["a"].append(loop)
    with pytest.raises(Exception) as plain:
        canonical_json(loop)
    with pytest.raises(plain.type):
        canonical_text(loop)
    with pytest.raises(plain.type):
        message_items({"kind": "result", "outcome": loop})


def test_a_subclass_that_is_plain_data_gets_canonical_jsons_text() -> None:
    value = {"a": Hidden(z=1, y=[Hidden(b=2)]), "t": (1, (2,))}
    assert plain_types(value) is not None and Hidden in plain_types(value)  # type: ignore[operator]
    assert canonical_text(value) == canonical_json(value).decode()
    key = Ed25519PrivateKey.generate()
    signed, text = sign_message_text(value, key)
    assert signed_text(value, key) == (signed["hash"], text.decode())


def device_bodies() -> list[dict[str, Any]]:
    """Bodies of every shape the studio journals, and some it does not."""
    return [
        {
            "kind": "wheel_status",
            "phase": "ball_in_rim",
            "speed_rpm": 28.5,
            "warnings": [],
            "raw": "*X;3;012",
        },
        {"kind": "card", "card": "Qh", "at": "2026-12-01T19:00:00.000001Z", "extras": {"seat": 3}},
        {"nested": {"deeper": [{"x": (1, 2)}, None, True]}, "big": 2**60, "neg": -(2**70), "f": 1e16},
        {"text": 'zéro 😀 \u2028\x00"\\/', "empty": {}, "list": [[], [{}]]},
        {},
    ]


def test_a_journal_written_through_the_quick_texts_holds_the_plain_functions_bytes(tmp_path: Path) -> None:
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    bodies = device_bodies()
    try:
        for i, body in enumerate(bodies):
            j.append("device_event", body, table_id=f"t{i}", round_id=None if i % 2 else f"r{i}")
        projection = {"round_id": "r9", "table_id": "t9", "round_number": 9, "state": "certified"}
        j.append(
            "round_state", dict(projection, transition="certify"), table_id="t9", round_projection=projection
        )
        j.append_feed(
            {
                "kind": "result",
                "table_id": "t9",
                "game": "european_roulette",
                "round_id": "r9",
                "round_number": 9,
                "version": 1,
                "result": {"number": "17"},
                "outcome": {"bets": [{"bet": f"split-{n}", "wins": n % 2 == 0} for n in range(40)]},
                "reason": None,
                "source": {"device_id": "w9", "text": "中 😀"},
                "commitment": None,
                "reveal": None,
            }
        )
        j.flush()
        assert j.get_round("r9") == projection
    finally:
        j.close()
    assert verify_journal(tmp_path).ok  # every hash and signature, recomputed with canonical_json
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    try:
        rows = list(db.execute("SELECT * FROM records WHERE kind = 'device_event' ORDER BY seq"))
    finally:
        db.close()
    assert len(rows) == len(bodies)
    for (seq, at, kind, table_id, round_id, feed_seq, body, prev, h), data in zip(rows, bodies):
        assert body == canonical_json(data).decode()
        fields = {"seq": seq, "at": at, "kind": kind, "table_id": table_id, "round_id": round_id}
        fields |= {"feed_seq": feed_seq, "body": body, "prev_hash": prev}
        assert h == sha256_hex(canonical_json(fields))


def message(**changes: Any) -> dict[str, Any]:
    m = {
        "kind": "result",
        "table_id": "t1",
        "game": "european_roulette",
        "round_id": "r1",
        "round_number": 1,
        "version": 1,
        "result": {"number": "17"},
        "outcome": {"bets": [{"bet": "red", "wins": False}]},
        "reason": None,
        "source": {"device_id": "w1"},
        "commitment": None,
        "reveal": None,
    }
    m.update(changes)
    return m


@pytest.mark.parametrize(
    "bad, why",
    [
        (message(outcome={"bets": [{"bet": "red", "pays": 1.5}]}), "floating-point"),
        (message(source={"device_id": "w1", "counter": 2**60}), "beyond"),
        (message(outcome={"bets": [{"bet": "red", "total": -(2**53)}]}), "beyond"),
        (message(outcome={"bets": [{7: "x"}]}), "key"),
        (message(source={"text": "\ud800"}), "Unicode"),
    ],
)
def test_the_feed_check_refuses_what_the_full_check_refuses(bad: dict[str, Any], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check_feed_message(bad)


@pytest.mark.parametrize(
    "good",
    [
        message(source={"device_id": "w1", "serial": "1234567890123456789"}),  # 19 digits, in a string
        message(outcome={"bets": ({"bet": "red", "wins": True},)}),  # a tuple
        message(source={"device_id": "w1", "counter": 2**53 - 1}),
        message(outcome={"bets": [{"bet": "red", "total": -(10**15), "wins": True}]}),  # 16 digits, in range
    ],
)
def test_the_feed_check_accepts_what_the_full_check_accepts(good: dict[str, Any]) -> None:
    check_feed_message(good)
    json.loads(canonical_json(good))
