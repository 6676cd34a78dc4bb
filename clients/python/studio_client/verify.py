"""Verifying feed messages: canonical JSON, SHA-256, Ed25519 and the hash chain (docs/feed.md section 3).

The same algorithm as the studio's streaming/canonical.py, copied so that this package installs on its own;
tests/client checks that both agree on real messages.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .errors import BadSignature, ChainBroken, HeadWentBack, MalformedMessage

GENESIS_HASH = "0" * 64

_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_json(obj: Any) -> bytes:
    """The bytes the studio hashes and signs: sorted keys, no whitespace, UTF-8 without \\u escapes."""
    return _ENCODER.encode(obj).encode("utf-8")


def _strict_b64(value: str, length: int, what: str) -> bytes:
    """Standard padded base64 of exactly `length` bytes, in its one canonical spelling."""
    try:
        raw = base64.b64decode(value.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
        raise ValueError(f"{what} is not valid base64") from exc
    if len(raw) != length or base64.b64encode(raw).decode("ascii") != value:
        raise ValueError(f"{what} is not canonical base64 of {length} bytes")
    return raw


def load_public_key(public_key_b64: str) -> Ed25519PublicKey:
    """The key of `GET /v1/public-key` (base64 of its 32 raw bytes)."""
    return Ed25519PublicKey.from_public_bytes(_strict_b64(public_key_b64, 32, "public key"))


def verify_signature(message: dict[str, Any], key: Ed25519PublicKey) -> None:
    """Check one message's `hash` and `signature`; raise BadSignature (MalformedMessage) if they fail."""
    seq = message.get("seq") if isinstance(message.get("seq"), int) else None
    claimed, signature = message.get("hash"), message.get("signature")
    if not isinstance(claimed, str) or not isinstance(signature, str):
        raise MalformedMessage("a feed message needs a string 'hash' and 'signature'", seq)
    try:
        body = canonical_json({k: v for k, v in message.items() if k not in ("hash", "signature")})
        signed = canonical_json({k: v for k, v in message.items() if k != "signature"})
    except (TypeError, ValueError) as exc:
        raise MalformedMessage(f"seq {seq}: cannot be canonicalised: {exc}", seq) from exc
    if hashlib.sha256(body).hexdigest() != claimed:
        raise BadSignature(f"seq {seq}: the hash does not match the message's content", seq)
    try:
        key.verify(_strict_b64(signature, 64, "signature"), signed)
    except (ValueError, InvalidSignature):
        raise BadSignature(f"seq {seq}: the signature does not verify with the studio's key", seq) from None


@dataclass(frozen=True)
class Position:
    """What a backend keeps between runs: the last message processed and the newest checkpoint's head.

    `public_key` is the pinned key (None until fetched); `head_*` the newest checkpoint's journal head.
    """

    last_seq: int = 0
    last_hash: str = GENESIS_HASH
    head_journal_seq: int | None = None
    head_journal_hash: str | None = None
    public_key: str | None = None


class Verifier:
    """Checks each message in order against the last one (the chain) and the newest checkpoint (the head)."""

    def __init__(self, public_key_b64: str, position: Position | None = None) -> None:
        self.key = load_public_key(public_key_b64)
        self.position = position or Position(public_key=public_key_b64)

    def check(self, message: dict[str, Any]) -> Position:
        """The position after `message`, or an error; the verifier's own position is advanced only by `accept`."""
        if not isinstance(message, dict) or not isinstance(message.get("seq"), int):
            raise MalformedMessage("a feed message is a JSON object with an integer 'seq'")
        verify_signature(message, self.key)
        pos, seq = self.position, message["seq"]
        if seq != pos.last_seq + 1:
            raise ChainBroken(f"seq {seq} follows seq {pos.last_seq}: the feed skipped or repeated", seq)
        if message.get("prev_hash") != pos.last_hash:
            raise ChainBroken(f"seq {seq}: prev_hash is not the hash of seq {pos.last_seq}", seq)
        new = replace(pos, last_seq=seq, last_hash=message["hash"])
        if message.get("kind") == "checkpoint":
            new = self._check_head(new, message, seq)
        return new

    def _check_head(self, pos: Position, message: dict[str, Any], seq: int) -> Position:
        head = message.get("head")
        if not isinstance(head, dict) or not isinstance(head.get("journal_seq"), int):
            raise MalformedMessage(f"seq {seq}: a checkpoint needs head.journal_seq", seq)
        j_seq, j_hash = head["journal_seq"], head.get("journal_hash")
        if pos.head_journal_seq is not None:
            if j_seq < pos.head_journal_seq:
                raise HeadWentBack(
                    f"seq {seq}: the studio's journal head went back from {pos.head_journal_seq} to {j_seq}",
                    seq,
                )
            if j_seq == pos.head_journal_seq and j_hash != pos.head_journal_hash:
                raise HeadWentBack(f"seq {seq}: journal record {j_seq} has another hash than before", seq)
        return replace(pos, head_journal_seq=j_seq, head_journal_hash=j_hash)

    def accept(self, position: Position) -> None:
        self.position = position
