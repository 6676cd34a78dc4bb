"""Names and settings of a studio's JetStream stream, shared by the publisher, the permissions generator, the
tests and the benchmark (docs/nats.md).

One stream per studio, ``STUDIO_<studio id>``, holding the subjects ``studio.<studio id>.<table id>.<kind>``
(``_`` in place of the table for a checkpoint, which is about no table). Only the studio's publisher writes to
it, so the stream's sequence is the feed's seq: message seq N is stream sequence N, which is what lets the
publisher ask the broker to refuse a gap (``Nats-Expected-Last-Sequence: N - 1``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from nats.js import api

#: a studio id and a table id are tokens of a subject: no '.', '*', '>' or white space (studio.config's ID_RE)
TOKEN_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
#: the subject token of a message about no table (a checkpoint); a table id cannot start with '_'
NO_TABLE = "_"
MSG_ID = "Nats-Msg-Id"
EXPECTED_LAST_SEQ = "Nats-Expected-Last-Sequence"
#: JetStream's error code for a failed Nats-Expected-Last-Sequence check
WRONG_LAST_SEQUENCE = 10071


def _token(value: str, what: str) -> str:
    if not TOKEN_RE.match(value):
        raise ValueError(f"{what} {value!r} is not a subject token (a-z, 0-9, '-', '_'; 1-64 characters)")
    return value


def stream_name(studio_id: str) -> str:
    return f"STUDIO_{_token(studio_id, 'studio id')}"


def studio_subjects(studio_id: str) -> str:
    """Every subject of one studio (the stream's filter, a backend's read permission)."""
    return f"studio.{_token(studio_id, 'studio id')}.>"


def subject(studio_id: str, table_id: str | None, kind: str) -> str:
    table = NO_TABLE if table_id is None else _token(table_id, "table id")
    return f"studio.{studio_id}.{table}.{kind}"


def msg_id(studio_id: str, seq: int) -> str:
    """The broker drops a second message with the same id (within the stream's duplicate window)."""
    return f"{studio_id}:{seq}"


def subject_of(studio_id: str, text: str) -> str:
    """The subject of one feed message's JSON text (its table and kind)."""
    data = json.loads(text)
    return subject(studio_id, data.get("table_id"), str(data["kind"]))


@dataclass(frozen=True)
class StreamSettings:
    replicas: int = 1
    retention: str = "limits"
    max_age_days: float = 0.0
    storage: str = "file"
    duplicate_window_seconds: float = 120.0

    def config(self, studio_id: str) -> api.StreamConfig:
        return api.StreamConfig(
            name=stream_name(studio_id),
            subjects=[studio_subjects(studio_id)],
            retention=api.RetentionPolicy(self.retention),
            storage=api.StorageType(self.storage),
            num_replicas=self.replicas,
            max_age=self.max_age_days * 86400 if self.max_age_days else None,
            duplicate_window=self.duplicate_window_seconds,
            # the publisher is the only writer and numbers every message itself: nothing is discarded for room
            discard=api.DiscardPolicy.OLD,
            allow_direct=True,
        )
