"""The feed's AsyncAPI 3.0 document, generated from the wire models of streaming/messages.py.

One message per feed kind, each with a payload schema of its own: the flat `FeedMessage` schema narrowed to
that kind (its `kind` a constant, the fields of other kinds left out, its own fields required, and the nulls
the model's validator demands), plus the checkpoint. A kind added to `FeedKind` (and its fields to
`KIND_FIELDS`) appears here with no change to this module; `_RULES` only says which fields a kind requires
or forbids beyond that.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, get_args

from pydantic.json_schema import models_json_schema

from .messages import (
    CHECKPOINT,
    KIND_FIELDS,
    NULLABLE_KIND_FIELDS,
    CheckpointMessage,
    ErrorMessage,
    FeedKind,
    FeedMessage,
    PublicKey,
)

__all__ = ["ASYNCAPI_VERSION", "asyncapi_document", "asyncapi_text", "kind_schema_name"]

ASYNCAPI_VERSION = "3.0.0"
_REF = "#/components/schemas/{model}"

#: kind -> (fields that must not be null, fields that must be null), as FeedMessage's validator has it
_RESULTLESS = ("result", "outcome", "reveal", "reason", "commitment")
_RULES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "result": (("result",), ("reason", "commitment")),
    "correction": (("result", "reason"), ("commitment",)),
    "void": (("reason",), ("commitment",)),
    "commitment": (("commitment",), ("result", "outcome", "reveal")),
}
_DEFAULT_RULE: tuple[tuple[str, ...], tuple[str, ...]] = ((), _RESULTLESS)

_HANDSHAKE = """\
The WebSocket upgrade is the whole handshake: there is no hello message. The client sends \
`Authorization: Bearer <token>` (a consumer token of the studio's configuration) and, to resume, \
`?after=<the last seq it has processed>`; without `after` the feed starts live (after its last seq at connect). \
The studio then sends every message with seq > after, in seq order, one text frame each, then the live ones; \
it never sends the same seq twice on a connection nor skips one. Refusals, before the upgrade: a missing or \
bad token closes with 1008 (HTTP 403, no body); a bad `after` is HTTP 400 with an ErrorMessage \
(`invalid_after`, `after_beyond_last_seq` with `last_seq`); a store that cannot be read is HTTP 503 \
(`store_unavailable`). After the upgrade: 1013 a consumer too slow to read (send timeout), 1011 a store or \
integrity error, 1012 a shutdown; reconnect with `?after=` in each case. Verify every message: `hash` is the \
SHA-256 of its canonical JSON without `hash` and `signature`, `signature` Ed25519 over it without \
`signature` (the key: GET /v1/public-key), `prev_hash` the previous message's `hash` (docs/feed.md)."""


def kind_schema_name(kind: str) -> str:
    """The component schema of one kind's payload: `FeedMessage_result`, ..., `CheckpointMessage`."""
    return "CheckpointMessage" if kind == CHECKPOINT else f"FeedMessage_{kind}"


def _without_null(prop: dict[str, Any]) -> dict[str, Any]:
    options = [o for o in prop.get("anyOf", []) if o != {"type": "null"}]
    if not options:
        return prop
    rest = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
    return {**rest, **options[0]} if len(options) == 1 else {**rest, "anyOf": options}


def _kind_summaries() -> dict[str, str]:
    """Each kind's sentence of the `kind` field's description ("'result': the certified result ...")."""
    text = FeedMessage.model_fields["kind"].description or ""
    parts = re.split(r"'([a-z_]+)': ", text)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def _kind_schema(base: dict[str, Any], kind: str, summary: str) -> dict[str, Any]:
    schema = copy.deepcopy(base)
    own = KIND_FIELDS.get(kind, ())
    others = {name for fields in KIND_FIELDS.values() for name in fields} - set(own)
    props = {name: prop for name, prop in schema["properties"].items() if name not in others}
    props["kind"] = {**props["kind"], "const": kind, "description": f"'{kind}': {summary}"}
    props["kind"].pop("enum", None)
    props["kind"]["type"] = "string"
    not_null, null = _RULES.get(kind, _DEFAULT_RULE)
    for name in (*not_null, *(f for f in own if f not in NULLABLE_KIND_FIELDS)):
        props[name] = _without_null(props[name])
    for name in null:
        props[name] = {"type": "null", "description": props[name].get("description", "")}
    if kind == "result":
        props["version"] = {**props["version"], "const": 1}
    if kind == "correction":
        props["version"] = {**props["version"], "minimum": 2}
    for name in own:
        props[name].pop("default", None)
    schema["properties"] = props
    schema["required"] = [*schema["required"], *(f for f in own if f not in schema["required"])]
    schema["title"] = f"FeedMessage ({kind})"
    return schema


def asyncapi_document() -> dict[str, Any]:
    """The AsyncAPI 3.0 document of the results feed (deterministic)."""
    _, top = models_json_schema(
        [(m, "validation") for m in (FeedMessage, CheckpointMessage, ErrorMessage, PublicKey)],
        ref_template=_REF,
    )
    schemas: dict[str, Any] = dict(sorted(top.get("$defs", {}).items()))
    base = schemas.pop("FeedMessage")
    summaries = _kind_summaries()
    kinds = [*get_args(FeedKind), CHECKPOINT]
    messages: dict[str, Any] = {}
    for kind in kinds:
        name = kind_schema_name(kind)
        summary = summaries.get(kind) or (CheckpointMessage.__doc__ or "").strip().splitlines()[0]
        if kind != CHECKPOINT:
            schemas[name] = _kind_schema(base, kind, summary)
        messages[kind] = {
            "name": kind,
            "title": kind,
            "summary": summary,
            "contentType": "application/json",
            "payload": {"$ref": _REF.format(model=name)},
        }
    channel_messages = {kind: {"$ref": f"#/components/messages/{kind}"} for kind in kinds}
    return {
        "asyncapi": ASYNCAPI_VERSION,
        "info": {
            "title": "studio results feed",
            "version": "1",
            "description": (
                "Signed, hash-chained messages of a live-dealer studio's tables: results, voids, "
                "corrections, commitments, betting opened and closed, decision windows and decisions, "
                "checkpoints (docs/feed.md, docs/decisions.md). Kinds and fields are only ever added in "
                "/v1: verify and chain a kind you do not know, then ignore it."
            ),
        },
        "defaultContentType": "application/json",
        "servers": {
            "studio": {
                "host": "{host}",
                "protocol": "wss",
                "description": "The studio (ws:// without TLS in a test setup).",
                "variables": {
                    "host": {"default": "localhost:8000", "description": "The studio's host:port."}
                },
                "security": [{"$ref": "#/components/securitySchemes/bearer"}],
            }
        },
        "channels": {
            "feed": {
                "address": "/v1/feed",
                "title": "The results feed",
                "description": _HANDSHAKE,
                "servers": [{"$ref": "#/servers/studio"}],
                "messages": channel_messages,
                "bindings": {
                    "ws": {
                        "method": "GET",
                        "query": {
                            "type": "object",
                            "properties": {
                                "after": {
                                    "type": "string",
                                    "pattern": "^[0-9]{1,19}$",
                                    "description": "Resume after this seq (0: from the start; at most the "
                                    "feed's last seq). Absent: start live.",
                                }
                            },
                        },
                        "headers": {
                            "type": "object",
                            "properties": {
                                "Authorization": {
                                    "type": "string",
                                    "pattern": "^[Bb][Ee][Aa][Rr][Ee][Rr] +.+$",
                                    "description": "Bearer <consumer token>.",
                                }
                            },
                            "required": ["Authorization"],
                        },
                        "bindingVersion": "0.1.0",
                    }
                },
                "x-handshake-refusal": {"$ref": _REF.format(model="ErrorMessage")},
                "x-public-key": {"address": "/v1/public-key", "$ref": _REF.format(model="PublicKey")},
            }
        },
        "operations": {
            "sendFeedMessages": {
                "action": "send",
                "channel": {"$ref": "#/channels/feed"},
                "title": "The studio sends every message with seq > after, in seq order, then the live ones",
                "security": [{"$ref": "#/components/securitySchemes/bearer"}],
                "messages": [{"$ref": f"#/channels/feed/messages/{kind}"} for kind in kinds],
            }
        },
        "components": {
            "schemas": dict(sorted(schemas.items())),
            "messages": messages,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A consumer token from the studio's configuration ([[consumers]] token).",
                }
            },
        },
    }


def asyncapi_text() -> str:
    """The document as the committed docs/asyncapi.json holds it."""
    return json.dumps(asyncapi_document(), indent=2, ensure_ascii=False) + "\n"
