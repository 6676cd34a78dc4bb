"""One blackjack round with the real `blackjack` rules through the decisions API and the feed: a double posted
by the backend, a stand applied by default at the deadline, the result carrying every decision."""

from __future__ import annotations

from decisions_helpers import DECIDE_TOKEN, FeedConsumer

from streaming.canonical import load_public_key_b64, verify_message


def test_a_blackjack_round_through_the_api(start):
    run = start(game="blackjack", decision_seconds=1.0)
    consumer = FeedConsumer(run.url, DECIDE_TOKEN, after=0)
    try:
        rid = run.open_round()
        for seat in ("seat_1", "seat_3"):
            assert run.post({"round_id": rid, "seat": seat, "action": "sit"}).status_code == 200
        r = run.post({"round_id": rid, "seat": "1", "action": "sit"})
        assert (r.status_code, r.json()["code"]) == (409, "seat_not_in_play")
        run.close_betting()
        for c in ("9S", "TH", "7D", "2C", "6S"):  # seat 1, seat 3, the dealer's up card, seat 1, seat 3
            run.card(c)
        [w] = run.windows().json()["windows"]
        assert w["window"] == "seat_1/hand_1/1" and "double" in w["allowed"] and w["default"] == "stand"
        r = run.post({"round_id": rid, "seat": "seat_1", "action": "split", "window": w["window"]})
        assert (r.status_code, r.json()["code"]) == (409, "not_allowed")
        r = run.post({"round_id": rid, "seat": "seat_1", "action": "double", "window": w["window"]})
        assert r.status_code == 200, r.text
        snap = run.on_loop(lambda: run.table().snapshot())
        assert snap["judge"]["next"]["position"].startswith("seat_1")  # the console: the next card to seat 1
        run.card("KD")  # the doubled hand takes one card; seat 3 decides and does not answer in time
        consumer.wait_for(lambda ms: any(m["kind"] == "decision" and m["by"] == "default" for m in ms))
        run.card("TD")  # the dealer: 17
        got = consumer.wait_for(lambda ms: any(m["kind"] == "result" for m in ms))
    finally:
        consumer.close()
    assert [m["kind"] for m in got] == [
        "decision",
        "decision",
        "decision_window",
        "decision",
        "decision_window",
        "decision",
        "result",
    ]
    key = load_public_key_b64(run.studio.public_key_b64)
    for m in got:
        verify_message(m, key)
    assert (got[5]["seat"], got[5]["action"], got[5]["by"]) == ("seat_3", "stand", "default")
    result = got[-1]["result"]
    assert [d["action"] for d in result["decisions"]] == ["sit", "sit", "double", "stand"]
    assert result["decisions"][3]["by"] == "default"
    assert "seat_1/hand_1/main" in [b["bet"] for b in got[-1]["outcome"]["winning_bets"]]  # 21 against 17
