"""Wire models of the results feed (pydantic v2) and their JSON Schemas.

The committed schemas in ``docs/schemas/`` are generated from these models;
regenerate them with::

    python -m streaming.messages docs/schemas

and a test checks that the committed files equal what the models generate.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    WithJsonSchema,
    model_serializer,
    model_validator,
)

__all__ = [
    "CHECKPOINT",
    "DECISION_FIELDS",
    "DECISION_WINDOW_FIELDS",
    "GENESIS_PREV_HASH",
    "KIND_FIELDS",
    "MAX_SAFE_INTEGER",
    "SCHEMA_FILES",
    "CheckpointMessage",
    "Commitment",
    "ErrorMessage",
    "FeedKind",
    "FeedMessage",
    "JournalHead",
    "PublicKey",
    "Reason",
    "Reveal",
    "SoftwareStatus",
    "VideoReference",
    "checkpoint_message",
    "format_timestamp",
    "parse_feed_message",
    "schema_documents",
    "write_schemas",
]

#: ``prev_hash`` of the first feed message (seq 1).
GENESIS_PREV_HASH = "0" * 64

#: Largest integer every JSON library reads exactly (2^53 - 1).
MAX_SAFE_INTEGER = 2**53 - 1

FeedKind = Literal[
    "result",
    "void",
    "correction",
    "commitment",
    "decision_window",
    "decision",
    "betting_opened",
    "betting_closed",
]
#: the kind of the studio's checkpoints (`CheckpointMessage`), the one feed message about no round
CHECKPOINT = "checkpoint"

#: fields of the decision kinds: present in a message of that kind, absent from every other message
DECISION_WINDOW_FIELDS = ("window", "seat", "hand", "allowed", "default", "detail", "deadline")
DECISION_FIELDS = ("window", "seat", "hand", "action", "cards", "by")
#: kind -> the fields only that kind has (and every message of it has); a kind not named has none. A new kind
#: with fields of its own is one entry here and its fields in `FeedMessage`: the feed, the journal and the
#: generated contract (docs/schemas, docs/asyncapi.json) follow from these.
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "decision_window": DECISION_WINDOW_FIELDS,
    "decision": DECISION_FIELDS,
    "betting_opened": ("closes_at",),
}
#: kind-only fields that may be null in their kind (present all the same)
NULLABLE_KIND_FIELDS = frozenset({"closes_at"})
_KIND_ONLY = tuple(dict.fromkeys(name for fields in KIND_FIELDS.values() for name in fields))
#: the kinds about a round that carry no result, outcome, reveal or reason
_NO_RESULT_KINDS = ("decision_window", "decision", "betting_opened", "betting_closed")

_TIMESTAMP_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$"


def format_timestamp(value: datetime) -> str:
    """RFC 3339 in UTC with microseconds and ``Z``: ``2026-11-29T12:00:00.123456Z``.

    This is exactly how ``occurred_at`` is serialised; producers that build
    the message dict themselves should use it so that the signed text and the
    model's serialisation agree.
    """
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("timestamp must be timezone-aware (UTC)")
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _to_utc(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("occurred_at must be timezone-aware; naive datetimes are ambiguous")
    return value.astimezone(UTC)


UtcTimestamp = Annotated[
    datetime,
    AfterValidator(_to_utc),
    PlainSerializer(format_timestamp, return_type=str, when_used="json"),
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "pattern": _TIMESTAMP_PATTERN,
            "description": "RFC 3339 timestamp in UTC with microseconds and 'Z', e.g. 2026-11-29T12:00:00.123456Z.",
        }
    ),
]

HexSha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$", min_length=64, max_length=64)]

Ed25519SignatureB64 = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9+/]{86}==$",
        description="Standard base64 (with padding) of the 64-byte Ed25519 signature.",
    ),
]

Ed25519PublicKeyB64 = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9+/]{43}=$",
        description="Standard base64 (with padding) of the 32 raw bytes of the Ed25519 public key.",
    ),
]


#: the chaining and signing fields of every feed message
PrevHash = Annotated[
    HexSha256, Field(description="'hash' of the feed message with seq - 1; 64 zeros for seq 1.")
]
MessageHash = Annotated[
    HexSha256,
    Field(description="SHA-256 hex of the canonical JSON of this message without 'hash' and 'signature'."),
]
MessageSignature = Annotated[
    Ed25519SignatureB64,
    Field(description="Ed25519 signature of the canonical JSON of this message without 'signature', base64."),
]


class Commitment(BaseModel):
    """A hash that fixes computer-drawn values (lightning multipliers, ...) before betting closes."""

    model_config = ConfigDict(extra="forbid")

    hash: HexSha256 = Field(description="SHA-256 hex of the canonical JSON of {extras, nonce, round_id}.")
    scheme: Literal["sha256-canonical-json-v1"] = Field(
        description="How the hash is made: sha256(canonical_json({'extras': ..., 'nonce': ..., 'round_id': ...}))."
    )


class Reveal(BaseModel):
    """The values a commitment fixed, published with the round's result or void."""

    model_config = ConfigDict(extra="forbid")

    extras: dict[str, Any] = Field(description="The computer-drawn values, game-specific.")
    nonce: str = Field(pattern=r"^[0-9a-f]{64}$", description="The secret 32-byte nonce, hex.")


class Reason(BaseModel):
    """Why a round was voided or its result corrected."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(min_length=1, description="Machine-readable reason code, e.g. 'misread' or 'no_spin'.")
    message: str = Field(description="Human-readable explanation.")


class VideoReference(BaseModel):
    """A moment in a table's camera stream (docs/feed.md): for a video archive to find it."""

    model_config = ConfigDict(extra="forbid")

    stream: str = Field(min_length=1, description="The stream's name or URL in the archive.")
    timecode: str = Field(
        pattern=r"^[0-9]{2}:[0-5][0-9]:[0-5][0-9]:[0-9]{2}$", description="SMPTE time-of-day timecode."
    )


class FeedMessage(BaseModel):
    """One signed, certified message of the results feed.

    Every field up to 'reveal' and from 'occurred_at' is always present (null
    when not applicable); the fields of one kind (`KIND_FIELDS`: window, seat,
    hand, allowed, default, detail, deadline of a 'decision_window'; window,
    seat, hand, action, cards, by of a 'decision'; closes_at of a
    'betting_opened') appear in that kind only, and always. 'hash' is the
    SHA-256 hex of the canonical JSON of the message without 'hash' and
    'signature'; 'signature' is Ed25519 over the canonical JSON of the message
    without 'signature'; 'prev_hash' is the 'hash' of the message with
    seq - 1 (64 zeros for seq 1), which chains the whole feed. No value
    anywhere in a message is a floating-point number or an integer beyond
    +/-(2^53 - 1), so that any JSON library can rebuild the canonical bytes.
    """

    model_config = ConfigDict(extra="forbid")

    seq: int = Field(
        ge=1, le=MAX_SAFE_INTEGER, description="Position in the feed: 1, 2, 3, ... without gaps."
    )
    kind: FeedKind = Field(
        description=(
            "'result': the certified result of a round (version 1). "
            "'correction': replaces the previous version of the round's result (version + 1, reason required). "
            "'void': the round is void, bets are to be refunded (reason required). "
            "'commitment': the hash of the round's computer-drawn values, before betting closes. "
            "'decision_window': players must decide (window, seat, hand, allowed, default, detail, deadline). "
            "'decision': a decision the rules accepted, the backend's or the default at the deadline "
            "(window, seat, hand, action, cards, by). "
            "'betting_opened': the round opened, bets are taken (closes_at). "
            "'betting_closed': no more bets for the round."
        )
    )
    table_id: str = Field(min_length=1, description="Identifier of the table.")
    game: str = Field(min_length=1, description="Game played at the table, e.g. 'roulette'.")
    round_id: str = Field(min_length=1, description="Globally unique identifier of the round.")
    round_number: int = Field(
        ge=0, le=MAX_SAFE_INTEGER, description="Sequential number of the round at its table."
    )
    version: int = Field(
        ge=1,
        le=MAX_SAFE_INTEGER,
        description="Version of the round's published outcome: 1 for the first result, +1 per correction.",
    )
    result: dict[str, Any] | None = Field(
        description="Game-specific raw result (e.g. the winning number); null for a void."
    )
    outcome: dict[str, Any] | None = Field(
        description=(
            "Game-specific derived outcome (e.g. colour, parity, dozen). For a void: null (every bet "
            "returned), or what the game's rules settle beyond that, e.g. a 5-card poker misdeal "
            '{"refund": "all_bets", "compensation": {"ante": "1/2"}, "rule": "000:L335"}.'
        )
    )
    reason: Reason | None = Field(description="Why: required for 'void' and 'correction', null for 'result'.")
    source: dict[str, Any] = Field(
        description=(
            "Where the result comes from: the device (id and serial number) for an automatic "
            "result, or the people who entered/approved it for a manual one."
        )
    )
    commitment: Commitment | None = Field(
        description="For 'commitment' messages: the hash fixing the round's computer-drawn values; else null."
    )
    reveal: Reveal | None = Field(
        description="In the result or void of a round that had a commitment: the values and nonce; else null."
    )
    # --- decision kinds only (absent from every other message) ---
    window: str | None = Field(
        default=None,
        max_length=200,
        description="'decision_window' and 'decision' only: the window's id, unique within the round "
        "(may be empty in the 'decision' of a 'sit', which answers no window).",
    )
    seat: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="'decision_window' and 'decision' only: the seat deciding.",
    )
    hand: int | None = Field(
        default=None,
        ge=1,
        le=MAX_SAFE_INTEGER,
        description="'decision_window' and 'decision' only: the seat's hand (1, 2 after a split, ...).",
    )
    allowed: list[str] | None = Field(
        default=None,
        description="'decision_window' only: the actions the rules allow now, e.g. ['hit', 'stand'].",
    )
    default: str | None = Field(
        default=None,
        description="'decision_window' only: the action applied when nobody answers by the deadline.",
    )
    detail: dict[str, Any] | None = Field(
        default=None,
        description="'decision_window' only: what the player needs to decide (cards, totals, ...).",
    )
    deadline: UtcTimestamp | None = Field(
        default=None,
        description="'decision_window' only: when the default applies if nobody has answered (UTC).",
    )
    action: str | None = Field(default=None, min_length=1, description="'decision' only: the action taken.")
    cards: list[str] | None = Field(
        default=None,
        description="'decision' only: the cards the action names (draw-poker discards); [] if none.",
    )
    by: Literal["backend", "default"] | None = Field(
        default=None,
        description="'decision' only: 'backend' (posted by the betting backend) or 'default' (the deadline passed).",
    )
    # --- betting_opened only ---
    closes_at: UtcTimestamp | None = Field(
        default=None,
        description="'betting_opened' only (and always there): when the studio's timer closes betting (UTC); "
        "null when no timer does (the device or the dealer closes it).",
    )
    video: VideoReference | None = Field(
        default=None,
        description="Where the moment is in the table's camera stream (its name and time-of-day timecode "
        "HH:MM:SS:FF); absent for a table with no stream configured.",
    )
    occurred_at: UtcTimestamp = Field(description="When the event happened (UTC).")
    prev_hash: PrevHash
    hash: MessageHash
    signature: MessageSignature

    @model_validator(mode="after")
    def _check_kind_rules(self) -> FeedMessage:
        if self.kind == "result":
            if self.reason is not None:
                raise ValueError("a 'result' message has no reason")
            if self.version != 1:
                raise ValueError("a 'result' message has version 1; later versions are corrections")
            if self.result is None:
                raise ValueError("a 'result' message needs a result")
        elif self.kind == "correction":
            if self.reason is None:
                raise ValueError("a 'correction' message needs a reason")
            if self.version < 2:
                raise ValueError("a 'correction' message has version >= 2")
            if self.result is None:
                raise ValueError("a 'correction' message needs the corrected result")
        elif self.kind == "void":
            if self.reason is None:
                raise ValueError("a 'void' message needs a reason")
        elif self.kind == "commitment":
            if self.commitment is None:
                raise ValueError("a 'commitment' message needs its commitment")
            if self.result is not None or self.outcome is not None or self.reveal is not None:
                raise ValueError("a 'commitment' message carries no result, outcome or reveal")
        elif self.kind in _NO_RESULT_KINDS:
            if self.result is not None or self.outcome is not None or self.reveal is not None:
                raise ValueError(f"a {self.kind!r} message carries no result, outcome or reveal")
            if self.reason is not None:
                raise ValueError(f"a {self.kind!r} message has no reason")
        wanted = KIND_FIELDS.get(self.kind, ())
        for name in _KIND_ONLY:
            present = getattr(self, name) is not None
            if (
                name in wanted
                and not present
                and (name not in NULLABLE_KIND_FIELDS or name not in self.model_fields_set)
            ):
                raise ValueError(f"a {self.kind!r} message needs {name!r}")
            # even as null: the serialisation leaves it out, so the signed text would not be the model's
            if name not in wanted and (present or name in self.model_fields_set):
                raise ValueError(f"a {self.kind!r} message has no {name!r}")
        if self.kind == "decision_window" and self.default not in (self.allowed or []):
            raise ValueError("a 'decision_window' message's default must be one of its allowed actions")
        if self.kind != "commitment" and self.commitment is not None:
            raise ValueError("only a 'commitment' message carries a commitment")
        if self.seq == 1 and self.prev_hash != GENESIS_PREV_HASH:
            raise ValueError("the message with seq 1 has prev_hash = 64 zeros")
        for name in ("result", "outcome", "source"):
            _check_portable(getattr(self, name), name)
        if self.reveal is not None:
            _check_portable(self.reveal.extras, "reveal.extras")
        for name in ("detail", "hand"):
            _check_portable(getattr(self, name), name)
        return self

    @model_serializer(mode="wrap")
    def _omit_other_kinds_fields(self, handler: Any) -> dict[str, Any]:
        """A kind's own fields exist only in that kind (`KIND_FIELDS`): other messages serialise without them."""
        data = handler(self)
        own = KIND_FIELDS.get(self.kind, ())
        for name in _KIND_ONLY:
            if name not in own:
                data.pop(name, None)
        if data.get("video") is None:  # a table with no stream signs its messages without the field
            data.pop("video", None)
        return data


def _check_portable(value: Any, path: str) -> None:
    """Signed messages carry no floating-point numbers and no integer beyond
    +/-(2^53 - 1): JSON libraries print floats differently (1e+16, 1e16,
    10000000000000000) and many parse big integers into doubles, so a verifier
    in another language could not rebuild the canonical bytes. Use integers
    (e.g. milliseconds, hundredths) or strings instead."""
    if isinstance(value, float):
        raise ValueError(
            f"{path}: floating-point numbers are not allowed in feed messages; use an integer or a string"
        )
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        raise ValueError(f"{path}: integer beyond +/-(2^53 - 1); use a string")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_portable(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_portable(item, f"{path}[{index}]")


class JournalHead(BaseModel):
    """The newest durable record of the studio's journal when a checkpoint was made."""

    model_config = ConfigDict(extra="forbid")

    journal_seq: int = Field(
        ge=1, le=MAX_SAFE_INTEGER, description="The record's number in the journal (1, 2, 3, ...)."
    )
    journal_hash: HexSha256 = Field(description="The record's hash in the journal's own hash chain.")


class SoftwareStatus(BaseModel):
    """The studio's latest check of its software against its certified manifest (docs/operations.md)."""

    model_config = ConfigDict(extra="forbid")

    ok: bool = Field(description="True: the installed software is the certified software.")
    signature: Literal["good", "bad", "untrusted key", "unreadable"] = Field(
        description="The manifest's signature against the pinned key."
    )
    files: int = Field(ge=0, description="Files of the studio's packages installed.")
    differs: int = Field(ge=0, description="Files changed, missing or added since the manifest was signed.")
    checked_at: UtcTimestamp = Field(description="When the check ran (UTC).")


class CheckpointMessage(BaseModel):
    """The studio's signed statement of how far its journal and its feed go (kind 'checkpoint').

    Published at least every minute (`[studio] checkpoint_seconds`) and at every shutdown, signed and chained
    like every other feed message ('seq', 'prev_hash', 'hash', 'signature' exactly as in a FeedMessage). A
    backend keeps the newest one's 'seq' and 'hash': `studio verify --expect SEQ:HASH` then tells whether a
    journal still holds that message, which a journal cut short after it does not (docs/design.md).
    """

    model_config = ConfigDict(extra="forbid")

    seq: int = Field(
        ge=1, le=MAX_SAFE_INTEGER, description="Position in the feed: 1, 2, 3, ... without gaps."
    )
    kind: Literal["checkpoint"] = Field(description="'checkpoint': about no round or table.")
    # the round fields every feed message has, null here: a backend reading them from every message finds them
    table_id: None = Field(description="Always null: a checkpoint is about no table.")
    game: None = Field(description="Always null.")
    round_id: None = Field(description="Always null: a checkpoint is about no round.")
    round_number: None = Field(description="Always null.")
    version: None = Field(description="Always null.")
    result: None = Field(description="Always null.")
    outcome: None = Field(description="Always null.")
    reason: None = Field(description="Always null.")
    source: None = Field(description="Always null.")
    commitment: None = Field(description="Always null.")
    reveal: None = Field(description="Always null.")
    head: JournalHead = Field(
        description="The journal's newest durable record when the checkpoint was made (before this message)."
    )
    software: SoftwareStatus | None = Field(
        default=None,
        description="The latest software check (`[studio] manifest`); absent when the studio checks none.",
    )
    occurred_at: UtcTimestamp = Field(description="When the checkpoint was made (UTC).")
    prev_hash: PrevHash
    hash: MessageHash
    signature: MessageSignature

    @model_validator(mode="after")
    def _check_genesis(self) -> CheckpointMessage:
        if self.seq == 1 and self.prev_hash != GENESIS_PREV_HASH:
            raise ValueError("the message with seq 1 has prev_hash = 64 zeros")
        return self

    @model_serializer(mode="wrap")
    def _omit_unchecked_software(self, handler: Any) -> dict[str, Any]:
        """A studio that checks no software signs checkpoints without the field: serialise them so."""
        data = handler(self)
        if data.get("software") is None:
            data.pop("software", None)
        return data


def checkpoint_message(
    journal_seq: int, journal_hash: str, software: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A checkpoint to sign: the journal's head (and the latest software check, when the studio checks its
    software); the signer adds seq, prev_hash, occurred_at, hash, signature."""
    message: dict[str, Any] = {
        "kind": CHECKPOINT,
        **dict.fromkeys(_ROUND_FIELDS),
        "head": {"journal_seq": journal_seq, "journal_hash": journal_hash},
    }
    if software is not None:
        message["software"] = SoftwareStatus.model_validate(software).model_dump(mode="json")
    return message


#: the fields of a message about a round, null in a checkpoint
_ROUND_FIELDS = (
    "table_id",
    "game",
    "round_id",
    "round_number",
    "version",
    "result",
    "outcome",
    "reason",
    "source",
    "commitment",
    "reveal",
)


def parse_feed_message(data: dict[str, Any]) -> FeedMessage | CheckpointMessage:
    """The model of one feed message, by its kind (a checkpoint, or a message about a round)."""
    if data.get("kind") == CHECKPOINT:
        return CheckpointMessage.model_validate(data)
    return FeedMessage.model_validate(data)


class PublicKey(BaseModel):
    """Body of ``GET /v1/public-key``: the key that verifies feed signatures."""

    model_config = ConfigDict(extra="forbid")

    algorithm: Literal["ed25519"] = Field(description="Signature algorithm; always 'ed25519'.")
    public_key: Ed25519PublicKeyB64


class ErrorMessage(BaseModel):
    """Body of an error reply (e.g. an HTTP 400 refusing a feed connection)."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="Machine-readable error code, e.g. 'invalid_after'.")
    message: str = Field(description="Human-readable explanation.")
    last_seq: int | None = Field(
        default=None,
        description="The feed's last seq when it is relevant to the error (e.g. 'after_beyond_last_seq').",
    )


#: file name -> model, for the generated schemas
SCHEMA_FILES: dict[str, type[BaseModel]] = {
    "feed-message.schema.json": FeedMessage,
    "checkpoint-message.schema.json": CheckpointMessage,
    "public-key.schema.json": PublicKey,
    "error-message.schema.json": ErrorMessage,
}

_JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_documents() -> dict[str, str]:
    """File name -> exact text of each schema file (deterministic)."""
    documents: dict[str, str] = {}
    for name, model in SCHEMA_FILES.items():
        schema = {"$schema": _JSON_SCHEMA_DIALECT, **model.model_json_schema()}
        documents[name] = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    return documents


def write_schemas(dir: str | Path) -> list[Path]:
    """Write the JSON Schema files into ``dir`` (created if needed); return their paths."""
    target = Path(dir)
    target.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, text in schema_documents().items():
        path = target / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover
    for written_path in write_schemas(sys.argv[1] if len(sys.argv) > 1 else "docs/schemas"):
        print(written_path)
