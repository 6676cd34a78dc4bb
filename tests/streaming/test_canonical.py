"""Canonical JSON, hashing and Ed25519 signing (streaming.canonical), and the
wire models and generated schemas (streaming.messages)."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pydantic import ValidationError

from streaming.canonical import (
    InvalidMessage,
    canonical_json,
    load_public_key_b64,
    message_hash,
    public_key_b64,
    sha256_hex,
    sign_message,
    verify_message,
)
from streaming.messages import (
    GENESIS_PREV_HASH,
    SCHEMA_FILES,
    ErrorMessage,
    FeedMessage,
    PublicKey,
    format_timestamp,
    schema_documents,
    write_schemas,
)

REPO = Path(__file__).resolve().parents[2]

# RFC 8032, section 7.1, test 1.
RFC8032_SECRET = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC8032_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
KEY = Ed25519PrivateKey.from_private_bytes(RFC8032_SECRET)
PUBLIC = KEY.public_key()
OTHER_PUBLIC = Ed25519PrivateKey.from_private_bytes(bytes(32)).public_key()


def feed_message(**overrides: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "seq": 1,
        "kind": "result",
        "table_id": "RL-01",
        "game": "roulette",
        "round_id": "RL-01-00000001",
        "round_number": 1,
        "version": 1,
        "result": {"number": 17},
        "outcome": {"colour": "black", "parity": "odd", "dozen": 2},
        "reason": None,
        "source": {"device_id": "wheel-1", "serial_number": "SN-0042"},
        "commitment": None,
        "reveal": None,
        "occurred_at": "2026-11-29T12:00:00.123456Z",
        "prev_hash": GENESIS_PREV_HASH,
    }
    message.update(overrides)
    return message


# -- canonical JSON -------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"b": 1, "a": 2}, b'{"a":2,"b":1}'),
        (
            {"a": [3, 1, 2], "B": {"z": None, "y": True, "x": False}},
            b'{"B":{"x":false,"y":true,"z":null},"a":[3,1,2]}',
        ),
        ({"é": "ü€😀", "z": "ascii"}, '{"z":"ascii","é":"ü€😀"}'.encode()),  # code-point order, raw UTF-8
        (
            {"s": 'quote " backslash \\ nl \n tab \t ctl \u0001'},
            b'{"s":"quote \\" backslash \\\\ nl \\n tab \\t ctl \\u0001"}',
        ),
        ({"n": [0, -1, 10**18, 1.5, -0.25]}, b'{"n":[0,-1,1000000000000000000,1.5,-0.25]}'),
        ({}, b"{}"),
        ([], b"[]"),
        ({"nested": {"b": {"d": 1, "c": 2}, "a": []}}, b'{"nested":{"a":[],"b":{"c":2,"d":1}}}'),
        ("\u2028", '"\u2028"'.encode()),
    ],
)
def test_canonical_json_vectors(value: Any, expected: bytes) -> None:
    assert canonical_json(value) == expected
    assert b" " not in canonical_json({"a": [1, 2], "b": {"c": 3}})


def test_canonical_json_is_independent_of_insertion_order() -> None:
    one = {"x": 1, "y": {"b": 2, "a": 1}}
    two = {"y": {"a": 1, "b": 2}, "x": 1}
    assert canonical_json(one) == canonical_json(two)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_canonical_json_rejects_nan_and_infinity(bad: float) -> None:
    with pytest.raises(ValueError, match="NaN|Infinity"):
        canonical_json({"a": {"b": [1, bad]}})


@pytest.mark.parametrize(
    "bad",
    [{1: "int key"}, {"a": {None: 1}}, {"a": {1, 2}}, {"a": datetime.now(UTC)}, {"a": b"bytes"}],
    ids=["int-key", "none-key", "set", "datetime", "bytes"],
)
def test_canonical_json_rejects_non_json(bad: Any) -> None:
    with pytest.raises(TypeError):
        canonical_json(bad)


def test_canonical_json_rejects_lone_surrogates() -> None:
    with pytest.raises(ValueError):
        canonical_json({"a": "\ud800"})


def test_sha256_hex() -> None:
    assert sha256_hex(b"abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert sha256_hex(b"") == hashlib.sha256(b"").hexdigest()


# -- keys -----------------------------------------------------------------------


def test_public_key_b64_round_trip() -> None:
    assert public_key_b64(PUBLIC) == base64.b64encode(RFC8032_PUBLIC).decode()
    assert public_key_b64(KEY) == public_key_b64(PUBLIC)  # a private key gives its public half
    loaded = load_public_key_b64(public_key_b64(PUBLIC))
    verify_message(sign_message({"a": 1}, KEY), loaded)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "not base64!",
        base64.b64encode(bytes(31)).decode(),
        base64.b64encode(bytes(33)).decode(),
        base64.b64encode(RFC8032_PUBLIC).decode().rstrip("="),  # unpadded
        base64.b64encode(RFC8032_PUBLIC).decode()[:-2] + "b=",  # non-canonical last char (same bytes)
    ],
)
def test_load_public_key_b64_rejects_bad_input(bad: str) -> None:
    with pytest.raises(ValueError):
        load_public_key_b64(bad)


# -- sign / verify ------------------------------------------------------------------


def test_sign_message_golden_vector() -> None:
    """Pins the exact bytes: a change here breaks every verifier in the field."""
    message = {"seq": 1, "kind": "result", "note": "zéro 😀", "n": [3, 1.5, None, True]}
    signed = sign_message(message, KEY)
    assert message == {
        "seq": 1,
        "kind": "result",
        "note": "zéro 😀",
        "n": [3, 1.5, None, True],
    }  # not mutated
    body = '{"kind":"result","n":[3,1.5,null,true],"note":"zéro 😀","seq":1}'.encode()
    assert signed["hash"] == hashlib.sha256(body).hexdigest()
    assert signed["hash"] == "30f68ae1f27976a519ee266626c300c3c0662ab5c01f755107853566f7eab5f3"
    assert signed["signature"] == (
        "Z6Fq2QNcmABLTDKZB0RATCe86doHafpPmvWuxdiJ2X+mKGHUjhz4CU3Wwq4Ty6N8x2prAGRaCkjOEMB92JNtCA=="
    )
    signed_bytes = canonical_json({k: v for k, v in signed.items() if k != "signature"})
    PUBLIC.verify(base64.b64decode(signed["signature"]), signed_bytes)  # independent check
    verify_message(signed, PUBLIC)


def test_sign_verify_round_trip_through_json_text() -> None:
    signed = sign_message(feed_message(), KEY)
    assert set(signed) == set(feed_message()) | {"hash", "signature"}
    assert signed["hash"] == message_hash(signed)
    text = canonical_json(signed).decode()
    verify_message(json.loads(text), PUBLIC)
    # Re-signing replaces an existing hash/signature instead of signing them.
    assert sign_message(signed, KEY) == signed


def test_verify_rejects_the_wrong_key() -> None:
    with pytest.raises(InvalidMessage, match="signature"):
        verify_message(sign_message(feed_message(), KEY), OTHER_PUBLIC)


def _mutations(value: Any) -> list[Any]:
    """A few different values of the same shape as value."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1]
    if isinstance(value, str):
        flipped = chr(ord(value[0]) ^ 1) + value[1:] if value else "x"
        return [flipped, value[:-1] + chr(ord(value[-1]) ^ 1) if value else "y"]
    if isinstance(value, dict):
        out = []
        for key in value:
            for mutated in _mutations(value[key]):
                out.append({**value, key: mutated})
        return out + [{**value, "extra": 1}]
    if value is None:
        return [{}, 0, ""]
    raise AssertionError(value)


@pytest.mark.parametrize("field", [*feed_message(), "hash", "signature"])
def test_any_change_to_any_field_fails_verification(field: str) -> None:
    signed = sign_message(feed_message(), KEY)
    mutations = _mutations(signed[field])
    assert mutations
    for mutated in mutations:
        tampered = {**signed, field: mutated}
        with pytest.raises(InvalidMessage):
            verify_message(tampered, PUBLIC)
    removed = {k: v for k, v in signed.items() if k != field}
    with pytest.raises(InvalidMessage):
        verify_message(removed, PUBLIC)


def test_one_flipped_byte_anywhere_in_the_text_fails_verification() -> None:
    signed = sign_message(
        feed_message(source={"operators": ["Zoë", "Ana"], "approved_by": "Pit Boss 7"}), KEY
    )
    raw = canonical_json(signed)
    parsed = 0
    for index in range(len(raw)):
        for bit in (0x01, 0x20):
            corrupted = bytearray(raw)
            corrupted[index] ^= bit
            try:
                message = json.loads(bytes(corrupted).decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                continue  # not even JSON any more: rejected before verification
            if not isinstance(message, dict):
                continue
            parsed += 1
            with pytest.raises(InvalidMessage):
                verify_message(message, PUBLIC)
    assert parsed > len(raw)  # most flips still parse: the check above did real work


def test_extra_field_fails_verification() -> None:
    signed = sign_message(feed_message(), KEY)
    with pytest.raises(InvalidMessage, match="hash"):
        verify_message({**signed, "bonus": 1}, PUBLIC)


def test_rehashed_but_unsigned_change_fails_on_the_signature() -> None:
    signed = sign_message(feed_message(), KEY)
    tampered = {**signed, "result": {"number": 18}}
    tampered["hash"] = message_hash(tampered)  # an attacker can recompute the hash...
    with pytest.raises(InvalidMessage, match="signature"):
        verify_message(tampered, PUBLIC)  # ...but not the signature


@pytest.mark.parametrize(
    ("signature", "match"),
    [
        ("not base64!", "base64"),
        (base64.b64encode(bytes(63)).decode(), "64 bytes"),
        (None, "signature"),
        (12, "signature"),
    ],
)
def test_malformed_signature_is_rejected_clearly(signature: Any, match: str) -> None:
    signed = sign_message(feed_message(), KEY)
    with pytest.raises(InvalidMessage, match=match):
        verify_message({**signed, "signature": signature}, PUBLIC)


def test_non_canonical_base64_signature_is_rejected() -> None:
    signed = sign_message(feed_message(), KEY)
    sig = signed["signature"]
    assert sig.endswith("==")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    # The last data character of a 64-byte signature carries 2 bits + 4 unused ones:
    # setting an unused bit keeps the decoded bytes but must still be rejected.
    last = alphabet.index(sig[-3])
    variant = sig[:-3] + alphabet[last ^ 0b0001] + "=="
    assert base64.b64decode(variant) == base64.b64decode(sig)
    with pytest.raises(InvalidMessage, match="canonical"):
        verify_message({**signed, "signature": variant}, PUBLIC)


def test_verify_rejects_nan_and_non_objects() -> None:
    signed = sign_message(feed_message(), KEY)
    with pytest.raises(InvalidMessage, match="canonical"):
        verify_message({**signed, "result": {"x": float("nan")}}, PUBLIC)
    with pytest.raises(InvalidMessage):
        verify_message([signed], PUBLIC)  # type: ignore[arg-type]


# -- messages and schemas -------------------------------------------------------------


def test_feed_message_round_trips_the_signed_dict() -> None:
    signed = sign_message(feed_message(), KEY)
    model = FeedMessage.model_validate(signed)
    assert model.occurred_at == datetime(2026, 11, 29, 12, 0, 0, 123456, tzinfo=UTC)
    assert model.model_dump(mode="json") == signed  # the model re-serialises exactly what was signed
    assert FeedMessage.model_validate_json(canonical_json(signed)).model_dump(mode="json") == signed


def test_format_timestamp() -> None:
    cet = timezone(timedelta(hours=1))
    assert (
        format_timestamp(datetime(2026, 11, 29, 13, 0, 0, 123456, tzinfo=cet))
        == "2026-11-29T12:00:00.123456Z"
    )
    assert format_timestamp(datetime(2026, 11, 29, 12, 0, tzinfo=UTC)) == "2026-11-29T12:00:00.000000Z"
    with pytest.raises(ValueError):
        format_timestamp(datetime(2026, 11, 29, 12, 0))


@pytest.mark.parametrize(
    "overrides",
    [
        {"seq": 0},
        {"kind": "refund"},
        {"version": 0},
        {"occurred_at": "2026-11-29T12:00:00"},  # naive
        {"prev_hash": "0" * 63},
        {"prev_hash": "A" * 64},
        {"reason": {"code": "misread", "message": "x"}},  # a result has no reason
        {"version": 2},  # a result is version 1
        {"result": None},  # a result has a result
        {"kind": "correction", "version": 2},  # needs a reason
        {"kind": "correction", "version": 1, "reason": {"code": "misread", "message": "x"}},
        {"kind": "void", "result": None, "outcome": None},  # needs a reason
        {"prev_hash": "1" * 64},  # seq 1 starts the chain
        {"unknown_field": 1},
        {"result": {"number": 17, "speed_rpm": 23.5}},  # no floats: not portable
        {"source": {"readings": [1, 2, 0.5]}},
        {"outcome": {"big": 2**53}},  # beyond what every JSON library reads exactly
        {"round_number": 2**53},
    ],
)
def test_feed_message_rejects_invalid_messages(overrides: dict[str, Any]) -> None:
    signed = sign_message(feed_message(**overrides), KEY)
    with pytest.raises(ValidationError):
        FeedMessage.model_validate(signed)


def test_feed_message_accepts_voids_and_corrections() -> None:
    reason = {"code": "misread", "message": "ball jumped out after the read"}
    correction = sign_message(
        feed_message(seq=2, version=2, kind="correction", reason=reason, prev_hash="a" * 64), KEY
    )
    void = sign_message(
        feed_message(
            seq=3, kind="void", result=None, outcome=None, reason=reason, version=3, prev_hash="b" * 64
        ),
        KEY,
    )
    assert FeedMessage.model_validate(correction).reason is not None
    assert FeedMessage.model_validate(void).result is None


def test_other_models() -> None:
    PublicKey(algorithm="ed25519", public_key=public_key_b64(PUBLIC))
    with pytest.raises(ValidationError):
        PublicKey(algorithm="ed25519", public_key="short")
    with pytest.raises(ValidationError):
        PublicKey(algorithm="rsa", public_key=public_key_b64(PUBLIC))  # type: ignore[arg-type]
    assert ErrorMessage(code="invalid_after", message="m").model_dump(exclude_none=True) == {
        "code": "invalid_after",
        "message": "m",
    }


def test_committed_schemas_equal_the_generated_ones(tmp_path: Path) -> None:
    written = write_schemas(tmp_path)
    assert sorted(p.name for p in written) == sorted(SCHEMA_FILES)
    committed_dir = REPO / "docs" / "schemas"
    for path in written:
        committed = committed_dir / path.name
        assert committed.exists(), f"{committed} missing: run python -m streaming.messages docs/schemas"
        assert committed.read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), (
            f"{committed} is stale: run python -m streaming.messages docs/schemas"
        )
    assert schema_documents() == {p.name: p.read_text(encoding="utf-8") for p in written}


def test_feed_message_schema_describes_the_wire_format() -> None:
    schema = json.loads(schema_documents()["feed-message.schema.json"])
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == set(feed_message()) | {"hash", "signature"}
    assert schema["properties"]["kind"]["enum"] == [
        "result",
        "void",
        "correction",
        "commitment",
        "decision_window",
        "decision",
        "betting_opened",
        "betting_closed",
    ]
    assert schema["properties"]["occurred_at"]["format"] == "date-time"


def test_signed_message_still_verifies_after_model_validation_copy() -> None:
    signed = sign_message(feed_message(), KEY)
    copied = copy.deepcopy(FeedMessage.model_validate(signed).model_dump(mode="json"))
    verify_message(copied, PUBLIC)


def test_the_examples_in_the_docs_verify() -> None:
    """docs/feed.md's example messages verify with the key it names, and chain."""
    doc = (REPO / "docs" / "feed.md").read_text(encoding="utf-8")
    section = doc.split("### Example", 1)[1].split("\n## ", 1)[0]
    blocks = [part.split("```", 1)[0] for part in section.split("```json\n")[1:]]
    examples = [json.loads(block) for block in blocks]
    assert [m["seq"] for m in examples] == [41, 42]
    assert public_key_b64(PUBLIC) in section
    for message in examples:
        verify_message(message, PUBLIC)
        FeedMessage.model_validate(message)
    assert examples[1]["prev_hash"] == examples[0]["hash"]
