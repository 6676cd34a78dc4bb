"""The client's copy of the verification agrees with the studio's own (streaming/canonical.py) on real
messages, refuses what it refuses (a tampered message, a skipped or reordered one), and refuses a checkpoint
whose journal head goes back."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from client_studio import FEED_TOKEN, ServedStudio, wheel_table
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from studio_client import (
    BadSignature,
    ChainBroken,
    HeadWentBack,
    Position,
    Verifier,
    canonical_json,
    load_public_key,
    verify_signature,
)
from waiting import WAIT_S, until
from websockets.sync.client import connect

from streaming import canonical
from streaming.messages import checkpoint_message

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def feed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A real studio's public key and its first messages, results and checkpoints among them."""
    served = ServedStudio(
        tmp_path_factory.mktemp("client-verify") / "data", [wheel_table()], checkpoint_seconds=0.2
    )
    messages: list[dict[str, Any]] = []
    try:
        with connect(
            served.url.replace("http", "ws") + "/v1/feed?after=0",
            additional_headers={"Authorization": f"Bearer {FEED_TOKEN}"},
            open_timeout=WAIT_S,
        ) as ws:

            def enough() -> bool:
                messages.append(json.loads(ws.recv(timeout=WAIT_S)))
                kinds = [m["kind"] for m in messages]
                return kinds.count("result") >= 2 and kinds.count("checkpoint") >= 2

            until(enough, "two results and two checkpoints on the feed", poll=0)
    finally:
        served.stop()
    yield served.studio.public_key_b64, messages


def test_both_verifiers_accept_every_real_message_and_build_the_same_bytes(
    feed: tuple[str, list[dict[str, Any]]],
) -> None:
    key_b64, messages = feed
    theirs, ours = canonical.load_public_key_b64(key_b64), load_public_key(key_b64)
    verifier = Verifier(key_b64)
    for m in messages:
        canonical.verify_message(m, theirs)
        verify_signature(m, ours)
        assert canonical_json(m) == canonical.canonical_json(m)
        verifier.accept(verifier.check(m))
    assert verifier.position.last_seq == len(messages)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda m: m.update(occurred_at=m["occurred_at"].replace("Z", "1Z")),
        lambda m: m.update(seq=m["seq"] + 1000),
        lambda m: m.update(hash=canonical.message_hash({**m, "extra": 1})),
        lambda m: m.update(signature=m["signature"][:-4] + "AAA="),
        lambda m: m.update(note="added"),
    ],
    ids=["occurred_at", "seq", "hash", "signature", "added_field"],
)
def test_a_tampered_message_is_refused_by_both(feed: tuple[str, list[dict[str, Any]]], tamper: Any) -> None:
    key_b64, messages = feed
    for original in (next(m for m in messages if m["kind"] == k) for k in ("result", "checkpoint")):
        m = copy.deepcopy(original)
        tamper(m)
        with pytest.raises(canonical.InvalidMessage):
            canonical.verify_message(m, canonical.load_public_key_b64(key_b64))
        with pytest.raises(BadSignature):
            verify_signature(m, load_public_key(key_b64))


def test_a_changed_result_is_refused(feed: tuple[str, list[dict[str, Any]]]) -> None:
    key_b64, messages = feed
    m = copy.deepcopy(next(m for m in messages if m["kind"] == "result"))
    m["result"]["number"] = (int(m["result"]["number"]) + 1) % 37
    verifier = Verifier(key_b64, Position(last_seq=m["seq"] - 1, last_hash=m["prev_hash"]))
    with pytest.raises(BadSignature, match=f"seq {m['seq']}"):
        verifier.check(m)


def test_a_skipped_or_reordered_message_breaks_the_chain(feed: tuple[str, list[dict[str, Any]]]) -> None:
    key_b64, messages = feed
    verifier = Verifier(key_b64)
    verifier.accept(verifier.check(messages[0]))
    with pytest.raises(ChainBroken, match="skipped or repeated"):
        verifier.check(messages[2])
    with pytest.raises(ChainBroken):
        verifier.check(messages[0])  # a replay
    assert verifier.position.last_seq == 1  # a refusal changes nothing


def _signed_checkpoints(heads: list[tuple[int, str]]) -> tuple[str, list[dict[str, Any]]]:
    """Checkpoints with the given journal heads, chained from seq 1 and signed by a key of the test's own."""
    key = Ed25519PrivateKey.generate()
    messages, prev = [], "0" * 64
    for seq, (j_seq, j_hash) in enumerate(heads, 1):
        body = {**checkpoint_message(j_seq, j_hash), "seq": seq, "prev_hash": prev}
        m = canonical.sign_message({**body, "occurred_at": "2026-12-01T12:00:00.000000Z"}, key)
        messages.append(m)
        prev = m["hash"]
    return canonical.public_key_b64(key), messages


@pytest.mark.parametrize(
    "heads",
    [[(100, "a" * 64), (50, "b" * 64)], [(100, "a" * 64), (100, "c" * 64)]],
    ids=["behind", "same_seq_other_hash"],
)
def test_a_checkpoint_whose_head_goes_back_raises_head_went_back(heads: list[tuple[int, str]]) -> None:
    key_b64, (first, second) = _signed_checkpoints(heads)
    verifier = Verifier(key_b64)
    verifier.accept(verifier.check(first))
    with pytest.raises(HeadWentBack):
        verifier.check(second)
    assert verifier.position.head_journal_seq == 100 and verifier.position.head_journal_hash == "a" * 64


def test_a_checkpoint_ahead_is_accepted_and_recorded() -> None:
    key_b64, messages = _signed_checkpoints([(100, "a" * 64), (140, "d" * 64)])
    verifier = Verifier(key_b64)
    for m in messages:
        verifier.accept(verifier.check(m))
    assert (verifier.position.head_journal_seq, verifier.position.head_journal_hash) == (140, "d" * 64)


def test_the_docs_examples_verify_and_chain() -> None:
    doc = (ROOT / "docs" / "feed.md").read_text(encoding="utf-8")
    blocks = [json.loads(part.split("```", 1)[0]) for part in doc.split("```json\n")[1:]]
    by_seq = {m["seq"]: m for m in blocks if "seq" in m}
    rfc8032_key = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="
    verifier = Verifier(rfc8032_key, Position(last_seq=40, last_hash=by_seq[41]["prev_hash"]))
    for seq in (41, 42, 43):
        verifier.accept(verifier.check(by_seq[seq]))
    assert verifier.position.head_journal_seq == 1873
