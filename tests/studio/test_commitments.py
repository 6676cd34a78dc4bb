"""Computer-drawn values: committed on the feed before betting closes, revealed with the result, checked by verify."""

import asyncio
import json
import random
from typing import Any

import pytest

from recognition.game import BaseGame, BaseJudge, ResultReady, RoundSignal
from streaming.canonical import commitment_hash
from studio.journal import Journal, _check_commitment, verify_journal
from studio.keys import load_or_create_key
from studio.rounds import RoundError
from studio.table import Table


class CoinJudge(BaseJudge):
    """Certifies 'heads' as soon as betting closes (a stand-in for a device), remembering the extras it saw."""

    def __init__(self) -> None:
        self.seen: list[RoundSignal] = []

    def feed(self, event: Any) -> list:
        if isinstance(event, RoundSignal):
            self.seen.append(event)
            if event.signal == "betting_closed":
                return [ResultReady(result={"side": "heads"}, source={"device_id": "coin/main"})]
        return []


class LightningCoin(BaseGame):
    game_id = "lightning_coin"
    device_kinds = ("coin",)
    pacing = "dealer"

    def new_judge(self, **settings: Any) -> CoinJudge:
        return CoinJudge()

    def validate_result(self, result: dict) -> dict:
        if result.get("side") not in ("heads", "tails"):
            raise ValueError("side must be heads or tails")
        return {"side": result["side"]}

    def outcome(self, result: dict, extras: dict | None = None) -> dict:
        return {"winner": result["side"], "payout": 1 * (extras or {}).get("multiplier", 1)}

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict:
        return {"multiplier": rng.choice([2, 5, 10, 50])}


def feed(journal: Journal) -> list[dict]:
    journal.flush()
    return [json.loads(t) for _, t in journal.read_after(0, 1000)]


def test_commit_before_close_reveal_with_result(tmp_path):
    journal = Journal(tmp_path, load_or_create_key(tmp_path))

    async def main() -> Table:
        table = Table("coin-1", LightningCoin(), journal, betting_seconds=0)
        r = table.open_round_by("dealer-ann")
        # the secret is in the journal but not in the feed, and not in the round's public history yet
        msgs = feed(journal)
        assert [m["kind"] for m in msgs] == [
            "commitment",
            "betting_opened",
        ]  # committed before bets are taken
        assert msgs[0]["commitment"]["scheme"] == "sha256-canonical-json-v1"
        assert "multiplier" not in json.dumps(msgs)
        with pytest.raises(RoundError, match="only a certified result can be corrected"):
            table.correct(r.round_id, {"side": "tails"}, approved_by=["a", "b"], reason="not certified yet")
        table.close_betting_by("dealer-ann")
        return table

    table = asyncio.run(main())
    msgs = feed(journal)
    assert [m["kind"] for m in msgs] == ["commitment", "betting_opened", "betting_closed", "result"]
    commit, _, _, result = msgs
    reveal = result["reveal"]
    assert (
        commitment_hash(result["round_id"], reveal["extras"], reveal["nonce"]) == commit["commitment"]["hash"]
    )
    assert result["outcome"]["payout"] == reveal["extras"]["multiplier"]
    # the judge got the extras only once betting had closed
    assert [s.signal for s in table.judge.seen][:2] == ["round_opened", "betting_closed"]
    assert table.judge.seen[0].extras is None and table.judge.seen[1].extras == reveal["extras"]
    # a correction of that round keeps the committed multiplier
    table.correct(result["round_id"], {"side": "tails"}, approved_by=["sup-bob", "pit-eve"], reason="review")
    corr = feed(journal)[-1]
    assert corr["kind"] == "correction" and corr["outcome"]["payout"] == reveal["extras"]["multiplier"]
    journal.close()
    report = verify_journal(tmp_path)
    assert report.ok, report.error


def test_a_voided_round_still_reveals_its_draw(tmp_path):
    journal = Journal(tmp_path, load_or_create_key(tmp_path))
    table = Table("coin-1", LightningCoin(), journal, betting_seconds=0)
    table.open_round_by("dealer-ann")
    table.void_by(
        "dealer_void", "Camera lost", by="dealer-ann"
    )  # before betting closed: no supervisor needed
    msgs = feed(journal)
    assert [m["kind"] for m in msgs] == ["commitment", "betting_opened", "void"]  # no betting_closed
    assert msgs[2]["reveal"] is not None and msgs[2]["source"] == {"type": "manual", "people": ["dealer-ann"]}
    journal.close()
    assert verify_journal(tmp_path).ok


def test_four_eyes_and_pacing_are_enforced(tmp_path):
    journal = Journal(tmp_path, load_or_create_key(tmp_path))
    table = Table("coin-1", LightningCoin(), journal, betting_seconds=0)
    table.open_round_by("dealer-ann")
    with pytest.raises(RoundError, match="still open"):
        table.open_round_by("dealer-ann")
    # a judge that never certifies, so the round stays in play after betting closes
    table.judge = type("Silent", (BaseJudge,), {"feed": lambda self, e: []})()
    table.close_betting_by("dealer-ann")
    with pytest.raises(RoundError, match="supervisor"):
        table.void_by("dealer_void", "Dice off the table", by="dealer-ann")
    with pytest.raises(RoundError, match="second person"):
        table.void_by("dealer_void", "Dice off the table", by="dealer-ann", approved_by="dealer-ann")
    with pytest.raises(RoundError, match="supervisor"):
        table.manual_result_by({"side": "tails"}, by="dealer-ann", approved_by=None, reason="camera")
    with pytest.raises(ValueError):
        table.manual_result_by({"side": "edge"}, by="dealer-ann", approved_by="sup-bob", reason="camera")
    r = table.manual_result_by(
        {"side": "tails"}, by="dealer-ann", approved_by="sup-bob", reason="camera failed"
    )
    assert r.state.value == "certified"
    msg = feed(journal)[-1]
    assert msg["source"]["type"] == "manual" and msg["source"]["people"] == ["dealer-ann", "sup-bob"]
    journal.close()
    assert verify_journal(tmp_path).ok


def test_verify_rejects_bad_commitments():
    rid = "r1"
    extras, nonce = {"multiplier": 5}, "ab" * 32
    good = commitment_hash(rid, extras, nonce)
    commit = {"kind": "commitment", "round_id": rid, "commitment": {"hash": good}}
    result = {"kind": "result", "round_id": rid, "reveal": {"extras": extras, "nonce": nonce}}
    assert _check_commitment(commit, 5, c := {}, {}) is None and _check_commitment(result, 9, c, {}) is None
    assert "after betting closed" in _check_commitment(commit, 5, {}, {rid: 4})
    assert "does not match" in _check_commitment(
        {**result, "reveal": {"extras": {"multiplier": 50}, "nonce": nonce}}, 9, {rid: (good, 5)}, {}
    )
    assert "never committed" in _check_commitment(result, 9, {}, {})
    assert "does not reveal" in _check_commitment({**result, "reveal": None}, 9, {rid: (good, 5)}, {})
