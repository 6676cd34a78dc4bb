"""Canonical JSON, SHA-256 and Ed25519 signing of feed messages.

The canonical form of a JSON value is what every producer hashes and signs and
what every verifier must reproduce byte for byte:

* ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
  encoded as UTF-8: object keys sorted by Unicode code point, no whitespace,
  non-ASCII characters written as themselves (not ``\\uXXXX``);
* object keys must be strings; NaN and +/-Infinity are rejected.

A signed message carries two extra top-level fields:

* ``hash`` = lowercase hex SHA-256 of the canonical JSON of the message
  without ``hash`` and ``signature``;
* ``signature`` = standard base64 (with padding) of the Ed25519 signature of
  the canonical JSON of the message without ``signature`` (so the signature
  also covers ``hash``).

This module knows nothing about rounds or tables: it signs and verifies any
JSON object.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

__all__ = [
    "HASH_FIELD",
    "SIGNATURE_FIELD",
    "InvalidMessage",
    "canonical_json",
    "load_public_key_b64",
    "message_hash",
    "public_key_b64",
    "sha256_hex",
    "sign_message",
    "sign_message_text",
    "verify_message",
]

HASH_FIELD = "hash"
SIGNATURE_FIELD = "signature"

_ED25519_PUBLIC_KEY_LEN = 32
_ED25519_SIGNATURE_LEN = 64


class InvalidMessage(ValueError):
    """A message failed verification; ``reason`` says why, in plain words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _check_json_value(value: Any, path: str) -> None:
    """Reject what json.dumps would silently coerce or render non-portably."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(
                    f"canonical JSON: object key {key!r} at {path or '$'} is {type(key).__name__}, not str"
                )
            _check_json_value(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_json_value(item, f"{path}[{index}]")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"canonical JSON: {value!r} at {path or '$'} is not allowed (NaN/Infinity)")
    elif value is None or isinstance(value, (str, int, bool)):
        pass
    else:
        raise TypeError(f"canonical JSON: value at {path or '$'} has unsupported type {type(value).__name__}")


#: what json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False) builds on
#: every call; made once (json.dumps with options costs a microsecond or two more a call, and signing a message
#: makes a hundred calls)
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_dumps = _ENCODER.encode


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"canonical JSON: string is not valid Unicode ({exc.reason})") from exc


def canonical_json(obj: Any) -> bytes:
    """Return the canonical JSON encoding of ``obj`` as UTF-8 bytes.

    Raises ``ValueError`` for NaN/Infinity (or a string that cannot be UTF-8
    encoded, such as a lone surrogate) and ``TypeError`` for non-string
    object keys or values that are not JSON.
    """
    # The C encoder does the work; the Python walk (slow) only runs to name a bad value or when the
    # text does not read back as ``obj``, which is how an int/None/bool key that json.dumps silently
    # turned into a string shows (a tuple, which is fine, reads back as a list and also lands there).
    try:
        text = _dumps(obj)
    except (TypeError, ValueError):
        _check_json_value(obj, "")
        raise
    # a flat object of strings and numbers (e.g. a journal record's hash input) has no key to hide
    flat = (
        type(obj) is dict
        and all(type(k) is str for k in obj)
        and all(type(v) in _SCALARS for v in obj.values())
    )
    if not flat and json.loads(text) != obj:
        _check_json_value(obj, "")
    return _encode(text)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def _without(message: dict[str, Any], *fields: str) -> dict[str, Any]:
    return {key: value for key, value in message.items() if key not in fields}


def message_hash(message: dict[str, Any]) -> str:
    """The ``hash`` a message must carry: SHA-256 hex of its canonical JSON
    without ``hash`` and ``signature``."""
    return sha256_hex(canonical_json(_without(message, HASH_FIELD, SIGNATURE_FIELD)))


def sign_message(message: dict[str, Any], private_key: Ed25519PrivateKey) -> dict[str, Any]:
    """Return a copy of ``message`` with ``hash`` and ``signature`` set.

    Any ``hash``/``signature`` already present are ignored and replaced. The
    input dict is not modified.
    """
    if not isinstance(message, dict):
        raise TypeError(f"message must be a dict, not {type(message).__name__}")
    if not isinstance(private_key, Ed25519PrivateKey):
        raise TypeError("private_key must be an Ed25519PrivateKey")
    signed, _ = sign_message_text(message, private_key)
    return signed


def sign_message_text(
    message: dict[str, Any], private_key: Ed25519PrivateKey
) -> tuple[dict[str, Any], bytes]:
    """Like :func:`sign_message`, also returning the canonical JSON of the signed message (with its signature)."""
    signed = _without(message, HASH_FIELD, SIGNATURE_FIELD)
    # Each top-level value is serialised (and checked) once; the three texts (without hash, with hash, with
    # hash and signature) are put together from those pieces, in key order: the bytes json.dumps(sort_keys=True)
    # gives for the whole object.
    parts = _value_texts(signed)
    signed[HASH_FIELD] = sha256_hex(_encode(_join(parts)))
    parts[HASH_FIELD] = _dumps(signed[HASH_FIELD])
    signature = private_key.sign(_encode(_join(parts)))
    signed[SIGNATURE_FIELD] = base64.b64encode(signature).decode("ascii")
    parts[SIGNATURE_FIELD] = _dumps(signed[SIGNATURE_FIELD])
    return signed, _encode(_join(parts))


def _value_texts(obj: dict[str, Any]) -> dict[str, str]:
    """key -> canonical JSON text of its value, refusing what :func:`canonical_json` refuses."""
    if any(type(k) is not str for k in obj):
        _check_json_value(obj, "")  # names the bad key
        raise TypeError("canonical JSON: object keys must be strings")  # pragma: no cover - the walk raised
    parts: dict[str, str] = {}
    try:
        for key, value in obj.items():
            text = _dumps(value)
            if type(value) not in _SCALARS and json.loads(text) != value:
                raise TypeError  # a hidden non-string key (or a tuple): let the walk decide below
            parts[key] = text
    except (TypeError, ValueError):
        _check_json_value(obj, "")
        # only tuples differ from what they read back as: serialise as canonical_json does
        parts = {key: _dumps(value) for key, value in obj.items()}
    return parts


def _join(parts: dict[str, str]) -> str:
    return "{" + ",".join([_dumps(k) + ":" + parts[k] for k in sorted(parts)]) + "}"


def _decode_b64_strict(value: str, expected_len: int, what: str) -> bytes:
    """Decode standard padded base64, rejecting any non-canonical spelling.

    Non-canonical spellings (e.g. unused low bits set in the last character)
    would otherwise let a modified string decode to the same bytes.
    """
    try:
        raw = base64.b64decode(value.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
        raise ValueError(f"{what} is not valid base64") from exc
    if len(raw) != expected_len:
        raise ValueError(f"{what} must decode to {expected_len} bytes, got {len(raw)}")
    if base64.b64encode(raw).decode("ascii") != value:
        raise ValueError(f"{what} is not canonical base64")
    return raw


def verify_message(message: dict[str, Any], public_key: Ed25519PublicKey) -> None:
    """Check a signed message's ``hash`` and ``signature``.

    Returns None when both are right; raises ``InvalidMessage(reason)``
    otherwise. This checks one message only; the hash chain (``prev_hash``
    equal to the previous message's ``hash``) is the caller's to check.
    """
    if not isinstance(public_key, Ed25519PublicKey):
        raise TypeError("public_key must be an Ed25519PublicKey")
    if not isinstance(message, dict):
        raise InvalidMessage(f"message must be a JSON object, not {type(message).__name__}")
    claimed_hash = message.get(HASH_FIELD)
    signature_b64 = message.get(SIGNATURE_FIELD)
    if not isinstance(claimed_hash, str):
        raise InvalidMessage("missing or non-string 'hash' field")
    if not isinstance(signature_b64, str):
        raise InvalidMessage("missing or non-string 'signature' field")
    try:
        expected_hash = message_hash(message)
        signed_bytes = canonical_json(_without(message, SIGNATURE_FIELD))
    except (TypeError, ValueError) as exc:
        raise InvalidMessage(f"message cannot be canonicalised: {exc}") from exc
    if claimed_hash != expected_hash:  # the hash is public: no need for a constant-time compare
        raise InvalidMessage(
            f"hash mismatch: message says {claimed_hash!r}, content hashes to {expected_hash!r}"
        )
    try:
        signature = _decode_b64_strict(signature_b64, _ED25519_SIGNATURE_LEN, "signature")
    except ValueError as exc:
        raise InvalidMessage(str(exc)) from exc
    try:
        public_key.verify(signature, signed_bytes)
    except InvalidSignature:
        raise InvalidMessage("signature does not verify with this public key") from None


def public_key_b64(public_key: Ed25519PublicKey | Ed25519PrivateKey) -> str:
    """Standard base64 of the 32 raw public-key bytes (a private key is
    accepted and its public half is used)."""
    if isinstance(public_key, Ed25519PrivateKey):
        public_key = public_key.public_key()
    if not isinstance(public_key, Ed25519PublicKey):
        raise TypeError("public_key must be an Ed25519PublicKey")
    raw = public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return base64.b64encode(raw).decode("ascii")


def load_public_key_b64(s: str) -> Ed25519PublicKey:
    """Inverse of :func:`public_key_b64`; raises ``ValueError`` if ``s`` is not
    canonical base64 of exactly 32 bytes."""
    if not isinstance(s, str):
        raise TypeError(f"public key must be a str, not {type(s).__name__}")
    raw = _decode_b64_strict(s, _ED25519_PUBLIC_KEY_LEN, "public key")
    return Ed25519PublicKey.from_public_bytes(raw)


def commitment_hash(round_id: str, extras: dict[str, Any], nonce: str) -> str:
    """The hash a 'commitment' message publishes before betting closes (scheme sha256-canonical-json-v1).

    Anyone can check a round's reveal against it: the studio could not have chosen the values later.
    """
    return sha256_hex(canonical_json({"extras": extras, "nonce": nonce, "round_id": round_id}))
