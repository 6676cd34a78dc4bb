"""The betting kinds: `betting_opened` always carries `closes_at` (a time, or null when no timer closes
betting), `betting_closed` carries nothing of its own; neither carries a result, outcome, reason or reveal; both
are signed feed messages the journal's check accepts and `studio verify` verifies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from pydantic import ValidationError
from waiting import WAIT_S

from streaming.canonical import sign_message
from streaming.messages import GENESIS_PREV_HASH, FeedMessage
from studio.journal import Journal, check_feed_message, verify_journal
from studio.keys import load_or_create_key

KEY = Ed25519PrivateKey.generate()


def betting(kind: str, **fields: Any) -> dict[str, Any]:
    return {
        "kind": kind,
        "table_id": "blackjack-1",
        "game": "blackjack",
        "round_id": "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
        "round_number": 3,
        "version": 1,
        "result": None,
        "outcome": None,
        "reason": None,
        "source": {"type": "timer"},
        "commitment": None,
        "reveal": None,
        "occurred_at": "2026-11-29T12:00:00.000000Z",
        **fields,
    }


def signed(message: dict[str, Any]) -> dict[str, Any]:
    return sign_message({"seq": 1, "prev_hash": GENESIS_PREV_HASH, **message}, KEY)


@pytest.mark.parametrize("closes_at", ["2026-11-29T12:00:15.000000Z", None])
def test_betting_opened_round_trips_with_its_closes_at(closes_at: str | None) -> None:
    message = signed(betting("betting_opened", closes_at=closes_at))
    assert FeedMessage.model_validate(message).model_dump(mode="json") == message


def test_betting_closed_round_trips_without_fields_of_its_own() -> None:
    message = signed(betting("betting_closed"))
    dumped = FeedMessage.model_validate(message).model_dump(mode="json")
    assert dumped == message and "closes_at" not in dumped and "window" not in dumped


@pytest.mark.parametrize(
    ("kind", "fields", "why"),
    [
        ("betting_opened", {}, "needs 'closes_at'"),
        ("betting_closed", {"closes_at": "2026-11-29T12:00:15.000000Z"}, "has no 'closes_at'"),
        ("betting_opened", {"closes_at": None, "result": {"number": "17"}}, "no result"),
        ("betting_closed", {"reason": {"code": "x", "message": "y"}}, "has no reason"),
        ("betting_closed", {"seat": "seat_1"}, "has no 'seat'"),
        ("result", {"closes_at": None, "result": {"number": "1"}}, "has no 'closes_at'"),
    ],
)
def test_a_betting_message_out_of_its_rules_is_refused(kind: str, fields: dict[str, Any], why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        FeedMessage.model_validate(signed(betting(kind, **fields)))
    with pytest.raises(ValueError):
        check_feed_message(betting(kind, **fields))


def test_the_journal_signs_chains_and_verifies_them(tmp_path: Path) -> None:
    journal = Journal(tmp_path, load_or_create_key(tmp_path))
    try:
        journal.append_feed(betting("betting_opened", closes_at=None)).result(WAIT_S)
        journal.append_feed(betting("betting_closed")).result(WAIT_S)
    finally:
        journal.close()
    report = verify_journal(tmp_path)
    assert report.ok and report.feed_messages == 2, report.error
