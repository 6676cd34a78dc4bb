"""Every JSON example in docs/feed.md, docs/decisions.md and docs/operations.md says what it is, is valid JSON, and
validates against the model of what it claims to be (the committed JSON Schemas are generated from those models:
tests/contract checks they are what `studio contract` writes); the feed examples verify with the RFC 8032 test key
the docs name."""

from __future__ import annotations

import itertools
import json

import jsonschema_rs
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from docs_examples_helpers import DOCS, RFC8032_SECRET, Example, examples, same_shape

from streaming.canonical import public_key_b64, verify_message
from streaming.messages import CheckpointMessage, ErrorMessage, FeedMessage, parse_feed_message
from studio.decisions_api import DecisionRequest
from studio.health import Health

TEST_KEY = Ed25519PrivateKey.from_private_bytes(RFC8032_SECRET).public_key()
ALL = examples()
WHAT = {"feed-message", "error-message", "decision-request", "decision-accepted", "decisions-view", "health"}


def test_every_doc_has_examples_and_each_says_what_it_is() -> None:
    assert {e.doc for e in ALL} == {"feed.md", "decisions.md", "operations.md"}
    unmarked = [e.where for e in ALL if e.what is None]
    assert unmarked == [], f"json blocks without <!-- example: ... -->: {unmarked}"
    unknown = [e.where for e in ALL if e.what not in WHAT | {"log-lines"}]
    assert unknown == []


@pytest.mark.parametrize("example", [e for e in ALL if e.what == "feed-message"], ids=lambda e: e.where)
def test_a_feed_message_example_validates_verifies_and_is_its_kind(example: Example) -> None:
    message = example.value()
    assert message["kind"] == example.kind
    model = parse_feed_message(message)
    assert model.model_dump(mode="json") == message  # every field there, none the model would drop
    verify_message(message, TEST_KEY)
    assert isinstance(model, CheckpointMessage if example.kind == "checkpoint" else FeedMessage)


@pytest.mark.parametrize("example", [e for e in ALL if e.what == "feed-message"], ids=lambda e: e.where)
def test_a_feed_message_example_is_its_kind_in_the_asyncapi(example: Example) -> None:
    asyncapi = json.loads((DOCS / "asyncapi.json").read_text(encoding="utf-8"))
    payload = asyncapi["components"]["messages"][example.kind]["payload"]
    validator = jsonschema_rs.validator_for({**asyncapi, **payload})
    assert [e.message for e in validator.iter_errors(example.value())] == []


#: what an example is -> its schema in the OpenAPI the studio serves (docs/openapi.json), as a JSON pointer
OPENAPI_SCHEMA = {
    "decision-request": "/paths/~1v1~1tables~1{table_id}~1decisions/post/requestBody/content/application~1json/schema",
    "decision-accepted": "/components/schemas/DecisionAccepted",
    "decisions-view": "/components/schemas/DecisionsView",
    "health": "/components/schemas/Health",
}


@pytest.mark.parametrize("example", [e for e in ALL if e.what in OPENAPI_SCHEMA], ids=lambda e: e.where)
def test_an_http_example_matches_its_schema_in_the_openapi(example: Example) -> None:
    openapi = json.loads((DOCS / "openapi.json").read_text(encoding="utf-8"))
    schema = openapi
    for part in OPENAPI_SCHEMA[example.what or ""].strip("/").split("/"):
        schema = schema[part.replace("~1", "/").replace("~0", "~")]
    validator = jsonschema_rs.validator_for({**openapi, **schema})  # its references resolve in the document
    assert [e.message for e in validator.iter_errors(example.value())] == []


def test_the_feed_docs_name_the_key_their_examples_are_signed_with() -> None:
    assert public_key_b64(TEST_KEY) in (DOCS / "feed.md").read_text(encoding="utf-8")


def test_the_feed_examples_chain() -> None:
    feed = [e.value() for e in ALL if e.doc == "feed.md" and e.what == "feed-message"]
    assert [m["seq"] for m in feed] == [7, 8, 41, 42, 43]
    assert all(b["prev_hash"] == a["hash"] for a, b in itertools.pairwise(feed) if b["seq"] == a["seq"] + 1)
    opened, closed, result, correction = feed[:4]
    assert (opened["kind"], closed["kind"]) == ("betting_opened", "betting_closed")
    assert opened["round_id"] == closed["round_id"] and opened["closes_at"] <= closed["occurred_at"]
    assert correction["round_id"] == result["round_id"] and correction["version"] == result["version"] + 1


def test_a_manual_source_names_people() -> None:
    (correction,) = [e.value() for e in ALL if e.kind == "correction"]
    assert correction["source"]["type"] == "manual" and len(set(correction["source"]["people"])) == 2


@pytest.mark.parametrize("example", [e for e in ALL if e.what == "error-message"], ids=lambda e: e.where)
def test_an_error_example_is_an_error_message(example: Example) -> None:
    ErrorMessage.model_validate(example.value())


def test_the_decision_examples_are_what_the_api_takes_and_answers() -> None:
    (request,) = [e.value() for e in ALL if e.what == "decision-request"]
    body = DecisionRequest.model_validate(request)
    (accepted,) = [e.value() for e in ALL if e.what == "decision-accepted"]
    decision = accepted["decision"]
    assert set(accepted) == {"decision", "feed_seq"} and isinstance(accepted["feed_seq"], int)
    assert set(decision) == {"round_id", "window", "seat", "hand", "action", "cards", "by"}
    assert (decision["round_id"], decision["seat"], decision["hand"], decision["action"]) == (
        body.round_id,
        body.seat,
        body.hand,
        body.action,
    )
    windows = [w for e in ALL if e.what == "decisions-view" for w in e.value()["windows"]]
    feed_windows = [e.value() for e in ALL if e.kind == "decision_window"]
    for w in windows:
        assert w["default"] in w["allowed"]
        assert same_shape(w, {k: m[k] for m in feed_windows[:1] for k in w})


def test_the_seats_and_rounds_in_the_decision_examples_are_the_servers() -> None:
    """The server's blackjack seats are seat_1..seat_7 and its round ids are UUIDs (issue #26)."""
    import uuid

    for e in ALL:
        if e.doc != "decisions.md":
            continue
        value = e.value()
        for item in [value, value.get("decision", {}), *value.get("windows", [])]:
            if "seat" in item:
                assert item["seat"].startswith("seat_"), e.where
            if item.get("round_id"):
                uuid.UUID(item["round_id"])


def test_the_health_example_validates() -> None:
    (health,) = [e.value() for e in ALL if e.what == "health"]
    Health.model_validate(health)


def test_the_log_examples_are_json_lines() -> None:
    (logs,) = [e for e in ALL if e.what == "log-lines"]
    lines = [json.loads(line) for line in logs.text.splitlines() if line.strip()]
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
