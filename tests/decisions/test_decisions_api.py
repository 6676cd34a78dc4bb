"""The decisions API on a whole studio (real uvicorn on 127.0.0.1, a real websockets feed consumer): a round
played with decisions, the windows and decisions on the signed feed in order, timeouts, every refusal."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from decisions_helpers import (
    BETTING_KINDS,
    DECIDE_TOKEN,
    FEED_TOKEN,
    OTHER_TABLE,
    OTHER_TOKEN,
    TABLE,
    FeedConsumer,
    HitStand,
    Running,
    decision_messages,
    until,
)
from journal_records import records

from devices.events import CardDrawn
from streaming.canonical import load_public_key_b64, verify_message
from streaming.messages import FeedMessage
from studio.journal import Journal, verify_journal
from studio.keys import load_or_create_key
from studio.table import DeviceSlot, Table

ROOT = Path(__file__).resolve().parents[2]


def kinds(messages):
    return [m["kind"] for m in messages]


def test_a_round_played_with_decisions_from_the_api(start):
    run = start()
    consumer = FeedConsumer(run.url, FEED_TOKEN, after=0)
    try:
        rid = run.open_round()
        for seat in ("2", "1"):
            r = run.post({"round_id": rid, "seat": seat, "action": "sit"})
            assert r.status_code == 200, r.text
            assert r.json()["decision"] == {
                "round_id": rid,
                "window": f"{seat}/sit",
                "seat": seat,
                "hand": 1,
                "action": "sit",
                "cards": [],
                "by": "backend",
            }
        run.close_betting()
        run.card("9S")  # seat 1
        run.card("5H")  # seat 2: the first card to each; seat 1 decides
        view = run.windows().json()
        assert view["round_id"] == rid and view["decision_seconds"] == 30
        [w] = view["windows"]
        assert (w["window"], w["seat"], w["hand"], w["allowed"], w["default"]) == (
            "1/hand_1/1",
            "1",
            1,
            ["hit", "stand"],
            "stand",
        )
        assert w["detail"] == {"cards": ["9S"], "total": 9}
        deadline = datetime.strptime(w["deadline"], "%Y-%m-%dT%H:%M:%S.%f%z")
        assert 20 < (deadline - datetime.now(UTC)).total_seconds() <= 30

        # the console's view: where the next card goes and who decides, with the deadline
        snap = run.on_loop(lambda: run.table().snapshot())
        assert snap["judge"]["awaiting"] == [
            {
                "window": "1/hand_1/1",
                "seat": "1",
                "hand": 1,
                "allowed": ["hit", "stand"],
                "default": "stand",
                "deadline": w["deadline"],
            }
        ]
        assert snap["decision_windows"] == [w]

        hit = run.post({"round_id": rid, "seat": "1", "hand": 1, "action": "hit", "window": "1/hand_1/1"})
        assert hit.status_code == 200, hit.text
        assert run.windows().json()["windows"] == []
        snap = run.on_loop(lambda: run.table().snapshot())
        assert snap["judge"] == {"next": {"position": "1", "label": "card to 1"}, "awaiting": []}
        run.card("2C")  # seat 1: 11
        assert (
            run.post({"round_id": rid, "seat": "1", "action": "stand"}).status_code == 200
        )  # no window named
        assert (
            run.post({"round_id": rid, "seat": "2", "action": "hit", "window": "2/hand_1/1"}).status_code
            == 200
        )
        run.card("KD")  # seat 2: 15
        last = run.post({"round_id": rid, "seat": "2", "action": "hit", "window": "2/hand_1/2"})
        assert last.status_code == 200
        run.card("QC")  # seat 2: 25, bust: the round is complete

        got = consumer.wait_for(lambda ms: any(m["kind"] == "result" for m in ms))
    finally:
        consumer.close()
    assert kinds(got) == [
        "decision",
        "decision",
        "decision_window",
        "decision",
        "decision_window",
        "decision",
        "decision_window",
        "decision",
        "decision_window",
        "decision",
        "result",
    ]
    whole = consumer.messages[: got[-1]["seq"]]  # with the betting kinds: the whole feed
    assert [m["seq"] for m in whole] == list(range(1, len(whole) + 1))
    assert [m["kind"] for m in whole if m["kind"] in BETTING_KINDS] == list(BETTING_KINDS)
    assert got[9]["seq"] == last.json()["feed_seq"] and got[3]["seq"] == hit.json()["feed_seq"]
    key = load_public_key_b64(run.studio.public_key_b64)
    prev = "0" * 64
    for m in whole:
        verify_message(m, key)
        FeedMessage.model_validate(m)
        assert m["prev_hash"] == prev and m["round_id"] == rid and m["table_id"] == TABLE
        prev = m["hash"]
    windows = [m for m in got if m["kind"] == "decision_window"]
    assert [m["window"] for m in windows] == ["1/hand_1/1", "1/hand_1/2", "2/hand_1/1", "2/hand_1/2"]
    assert windows[0]["deadline"] == w["deadline"] and windows[0]["source"] == {"type": "rules"}
    assert all(
        set(m) >= {"window", "seat", "hand", "allowed", "default", "detail", "deadline"} for m in windows
    )
    decisions = [m for m in got if m["kind"] == "decision"]
    assert [(m["seat"], m["action"], m["by"]) for m in decisions] == [
        ("2", "sit", "backend"),
        ("1", "sit", "backend"),
        ("1", "hit", "backend"),
        ("1", "stand", "backend"),
        ("2", "hit", "backend"),
        ("2", "hit", "backend"),
    ]
    assert decisions[0]["source"] == {"type": "backend", "consumer": "backend"}
    assert not any(k in got[-1] for k in ("window", "seat", "action"))  # a result has no decision fields
    assert got[-1]["result"] == {
        "seats": {"1": {"cards": ["9S", "2C"], "total": 11}, "2": {"cards": ["5H", "KD", "QC"], "total": 25}}
    }
    assert got[-1]["source"]["decisions"][2] == {
        "window": "1/hand_1/1",
        "seat": "1",
        "hand": 1,
        "action": "hit",
        "cards": [],
        "by": "backend",
    }
    run.stop()
    # `studio verify` (the command) accepts the journal with its decision kinds
    out = subprocess.run(
        [sys.executable, "-m", "app.cli", "verify", "--data", str(run.studio.data_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "journal ok" in out.stdout
    # the feed resumes in the middle of the decisions
    run2_consumer_after = 4
    again = Running(run.studio.data_dir)
    try:
        resumed = FeedConsumer(again.url, FEED_TOKEN, after=run2_consumer_after)
        try:
            expected = decision_messages(whole[run2_consumer_after:])
            more = resumed.wait_for(lambda ms: len(decision_messages(ms)) >= len(expected))
        finally:
            resumed.close()
        assert more[: len(expected)] == expected
    finally:
        again.stop()
    assert verify_journal(run.studio.data_dir).ok


def test_refusals_are_answered_and_journaled(start):
    run = start()
    rid = run.open_round()
    # before the deal needs decisions
    r = run.post({"round_id": rid, "seat": "1", "action": "hit"})
    assert (r.status_code, r.json()["code"]) == (409, "betting_open")
    assert run.post({"round_id": rid, "seat": "1", "action": "sit"}).status_code == 200
    r = run.post({"round_id": rid, "seat": "1", "action": "sit"})
    assert (r.status_code, r.json()["code"]) == (409, "not_allowed")
    # tokens
    r = run.post({"round_id": rid, "seat": "3", "action": "sit"}, token=FEED_TOKEN)
    assert r.status_code == 403 and r.json() == {
        "code": "forbidden",
        "message": f"this token may not post decisions for table {TABLE}",
    }
    r = run.post({"round_id": rid, "seat": "3", "action": "sit"}, token=OTHER_TOKEN)
    assert r.status_code == 403
    assert run.post({"round_id": rid, "seat": "3", "action": "sit"}, token=None).status_code == 401
    assert (
        run.post({"round_id": rid, "seat": "3", "action": "sit"}, token="not-a-known-token-xyz").status_code
        == 401
    )
    r = run.post({"round_id": rid, "seat": "3", "action": "sit"}, table_id="no-such-table")
    assert (r.status_code, r.json()["code"]) == (404, "unknown_table")
    # the other table's token may post there (its round is not open)
    r = run.post({"round_id": rid, "seat": "3", "action": "sit"}, token=OTHER_TOKEN, table_id=OTHER_TABLE)
    assert (r.status_code, r.json()["code"]) == (409, "no_round")
    # malformed bodies
    r = run.post({"round_id": rid, "seat": "1", "hand": "one", "action": "hit"})
    assert r.status_code == 422 and r.json()["code"] == "malformed"
    assert r.json()["problems"][0]["where"] == "hand"
    r = run.post({"round_id": rid, "seat": "1"})
    assert r.status_code == 422 and r.json()["problems"] == [{"where": "action", "problem": "Field required"}]
    r = run.post(b"{not json")
    assert r.status_code == 422 and "not JSON" in r.json()["message"]
    r = run.post({"round_id": rid, "seat": 1, "action": "hit"})  # a seat is a string
    assert r.status_code == 422
    r = run.post({"round_id": rid, "seat": "1", "action": "hit", "colour": "red"})
    assert r.status_code == 422 and r.json()["problems"][0]["where"] == "colour"

    run.close_betting()
    r = run.post({"round_id": rid, "seat": "2", "action": "sit"})
    assert (r.status_code, r.json()["code"]) == (409, "betting_closed")
    r = run.post({"round_id": rid, "seat": "1", "action": "hit"})  # the deal has not reached a decision yet
    assert (r.status_code, r.json()["code"]) == (409, "not_your_turn")
    run.card("7H")
    r = run.post({"round_id": rid, "seat": "5", "action": "hit"})
    assert (r.status_code, r.json()["code"]) == (409, "seat_not_in_play")
    r = run.post({"round_id": rid, "seat": "1", "hand": 2, "action": "hit"})
    assert (r.status_code, r.json()["code"]) == (409, "hand_not_in_play")
    r = run.post({"round_id": rid, "seat": "1", "action": "double"})
    assert (r.status_code, r.json()["code"]) == (409, "not_allowed") and "hit, stand" in r.json()["message"]
    r = run.post({"round_id": rid, "seat": "1", "action": "hit", "window": "1/hand_1/9"})
    assert (r.status_code, r.json()["code"]) == (409, "window_closed")
    r = run.post({"round_id": "00000000-0000-0000-0000-000000000000", "seat": "1", "action": "hit"})
    assert (r.status_code, r.json()["code"]) == (409, "no_round")
    assert (
        run.post({"round_id": rid, "seat": "1", "action": "hit", "window": "1/hand_1/1"}).status_code == 200
    )
    r = run.post({"round_id": rid, "seat": "1", "action": "hit", "window": "1/hand_1/1"})  # twice
    assert (r.status_code, r.json()["code"]) == (409, "window_closed")

    refused = run.records("decision_refused")
    assert [(x["code"], x["status"]) for x in refused] == [
        ("betting_open", 409),
        ("not_allowed", 409),
        ("forbidden", 403),
        ("forbidden", 403),
        ("unknown_table", 404),
        ("no_round", 409),
        ("malformed", 422),
        ("malformed", 422),
        ("malformed", 422),
        ("malformed", 422),
        ("malformed", 422),
        ("betting_closed", 409),
        ("not_your_turn", 409),
        ("seat_not_in_play", 409),
        ("hand_not_in_play", 409),
        ("not_allowed", 409),
        ("window_closed", 409),
        ("no_round", 409),
        ("window_closed", 409),
    ]
    assert [x["client"] for x in refused[:6]] == [
        "backend",
        "backend",
        "feed-reader",
        "other-backend",
        "backend",
        "other-backend",
    ]
    assert refused[0]["body"] == {
        "round_id": rid,
        "seat": "1",
        "hand": 1,
        "action": "hit",
        "cards": [],
        "window": None,
    }
    assert refused[8]["body"] == "{not json"
    # nothing refused reached the feed
    assert kinds(run.feed()) == ["decision", "decision_window", "decision"]


def test_a_window_that_runs_out_takes_the_default(start):
    run = start(decision_seconds=0.3)
    consumer = FeedConsumer(run.url, DECIDE_TOKEN, after=0)
    try:
        rid = run.open_round()
        assert run.post({"round_id": rid, "seat": "4", "action": "sit"}).status_code == 200
        run.close_betting()
        run.card("TS")
        got = consumer.wait_for(lambda ms: any(m["kind"] == "result" for m in ms))
    finally:
        consumer.close()
    assert kinds(got) == ["decision", "decision_window", "decision", "result"]
    window, default = got[1], got[2]
    assert (default["window"], default["action"], default["by"], default["source"]) == (
        "4/hand_1/1",
        "stand",
        "default",
        {"type": "timer"},
    )
    assert default["occurred_at"] >= window["deadline"]
    # too late: the window is closed, and the round is over
    r = run.post({"round_id": rid, "seat": "4", "action": "hit", "window": "4/hand_1/1"})
    assert (r.status_code, r.json()["code"]) == (409, "no_round")
    assert run.windows(token=DECIDE_TOKEN).json()["windows"] == []


def test_a_late_answer_after_the_timeout_is_refused(start):
    run = start(decision_seconds=0.3)
    rid = run.open_round()
    for seat in ("1", "2"):
        assert run.post({"round_id": rid, "seat": seat, "action": "sit"}).status_code == 200
    run.close_betting()
    run.card("TS")
    run.card("TD")
    until(
        lambda: any(m["kind"] == "decision" and m["by"] == "default" for m in run.feed()), what="the default"
    )
    r = run.post({"round_id": rid, "seat": "1", "action": "hit", "window": "1/hand_1/1"})
    assert (r.status_code, r.json()["code"]) == (409, "window_closed")
    r = run.post({"round_id": rid, "seat": "1", "action": "hit"})  # seat 2 decides now
    assert (r.status_code, r.json()["code"]) == (409, "not_your_turn")
    # seat 2's window opened after seat 1's default; the dealer voids the round before it runs out
    run.on_loop(lambda: run.table().void_by("dealer_error", "wrong card", by="sam", approved_by="sue"))
    feed = run.feed()
    assert kinds(feed)[-1] == "void"
    view = run.windows().json()
    assert view["windows"] == [] and view["round_id"] is None
    assert (
        run.on_loop(
            lambda: (
                run.table()._timers
                and [
                    t for t in run.table()._timers if not t.cancelled() and t.when() > run.studio.loop.time()
                ]
            )
        )
        == []
    )
    before = len(run.feed())
    time.sleep(0.5)  # seat 2's timer was cancelled with the round: no default comes
    assert len(run.feed()) == before


def test_a_restart_voids_the_round_and_reopens_no_window(start, tmp_path):
    data = tmp_path / "data"
    journal = Journal(data, load_or_create_key(data))
    table = Table(
        TABLE,
        HitStand(),
        journal,
        betting_seconds=0,
        devices=[DeviceSlot(f"{TABLE}/shoe", "serial-shoe", "shoe", "SHOE")],
    )
    rid = table.open_round_by("dealer-dana").round_id
    table.decisions.decide_now(rid, "1", 1, "sit", by_client="backend")
    table.close_betting_by("dealer-dana")
    table.device_event(CardDrawn(device_id=f"{TABLE}/shoe", card="8C", payload="P8C"))
    assert list(table.windows) == ["1/hand_1/1"]
    journal.close()  # the studio dies with a window open

    run = start()
    feed = run.feed()
    assert kinds(feed) == ["decision", "decision_window", "void"]
    assert feed[-1]["reason"]["code"] == "studio_restart"
    assert run.windows().json()["windows"] == [] and run.windows().json()["round_id"] is None
    r = run.post({"round_id": rid, "seat": "1", "action": "stand", "window": "1/hand_1/1"})
    assert (r.status_code, r.json()["code"]) == (409, "no_round")
    # the next round plays normally
    rid2 = run.open_round()
    assert run.post({"round_id": rid2, "seat": "1", "action": "sit"}).status_code == 200
    assert kinds(run.feed())[3:] == ["decision"]
    assert records(data, "decision_refused")[-1]["code"] == "no_round"
