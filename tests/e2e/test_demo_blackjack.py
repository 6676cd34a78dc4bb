"""The real `studio demo` plays its blackjack table by itself: the demo backend sits players and answers their
decision windows through the decisions API, the simulated shoe deals each card the judge asks for, and the
table certifies signed results carrying every decision."""

import asyncio
import json
import re
import time

import httpx
import websockets

from .helpers import DemoProcess, check_chain

TOKEN = "e2e-consumer-token-bj-0123456789"


def test_demo_blackjack_table_plays_itself(tmp_path):
    demo = DemoProcess(tmp_path / "data", TOKEN, tables=1)
    try:
        key = demo.public_key()

        async def until_result() -> list[dict]:
            out: list[dict] = []
            async with websockets.connect(
                demo.url("/v1/feed?after=0", "ws"), additional_headers=demo.headers
            ) as ws:
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline:
                    out.append(json.loads(await asyncio.wait_for(ws.recv(), 30)))
                    m = out[-1]
                    if m["table_id"] == "blackjack-1" and m["kind"] == "result":
                        return out
            raise AssertionError(f"no blackjack result in 90 s: {[(m['table_id'], m['kind']) for m in out]}")

        messages = asyncio.run(until_result())
        check_chain(messages, key, "0" * 64, 1)
        result = messages[-1]
        decisions = result["source"]["decisions"]
        sits = [d for d in decisions if d["action"] == "sit"]
        assert 1 <= len(sits) <= 3 and all(d["by"] == "backend" for d in sits), decisions
        assert (
            result["source"]["kind"] == "serial-shoe"
            and result["source"]["cards"] == result["result"]["cards"]
        )
        seated = sorted(s["seat"] for s in result["result"]["seats"])
        assert seated == sorted(d["seat"] for d in sits)
        # every decision of the round went out on the feed before the result, the same as in source.decisions
        round_msgs = [m for m in messages if m.get("round_id") == result["round_id"]]
        on_feed = [(m["seat"], m["action"], m["by"]) for m in round_msgs if m["kind"] == "decision"]
        assert on_feed == [(d["seat"], d["action"], d["by"]) for d in decisions]
        windows = [m["window"] for m in round_msgs if m["kind"] == "decision_window"]
        answered = [d["window"] for d in decisions if d["action"] != "sit"]
        assert sorted(windows) == sorted(answered)
        # a player who did not bust or stand on a natural 21 decided at least once: a real game went on
        assert any(d["action"] != "sit" for d in decisions) or all(
            len(h["cards"]) == 2 and h["total"] == 21 for s in result["result"]["seats"] for h in s["hands"]
        )

        # the printed summary lists the decisions token; the feed token cannot post decisions
        log = demo.log.read_text()
        found = re.search(r"decisions token: (\S+)\s+\(demo-backend; .*blackjack-1", log)
        assert found, log
        assert (tmp_path / "data" / "demo-decisions-token").read_text().strip() == found.group(1)
        body = {"round_id": result["round_id"], "seat": "seat_1", "action": "stand"}
        r = httpx.post(demo.url("/v1/tables/blackjack-1/decisions"), headers=demo.headers, json=body)
        assert (r.status_code, r.json()["code"]) == (403, "forbidden")
        r = httpx.post(
            demo.url("/v1/tables/blackjack-1/decisions"),
            json=body,
            headers={"Authorization": f"Bearer {found.group(1)}"},
        )
        assert (r.status_code, r.json()["code"]) == (409, "no_round")  # the round is over
    finally:
        demo.stop()


def test_shoe_follows_the_judge_one_card_per_new_position():
    """follow_judge: a card for each new "next" position of the judge's status, none while a window is awaited,
    none after the round stops, a new shoe on the judge's shoe_change hold."""
    from simulators.shoe import ShoeSimulator

    sim = ShoeSimulator("serial", seed=5, deal_interval=0.0, follow_judge=True, cut_card=None)
    with sim:

        def judge(position=None, awaiting=()):
            sim.table_event(
                "judge",
                {
                    "judge": {
                        "next": {"position": position} if position else None,
                        "awaiting": [{"window": w} for w in awaiting],
                    }
                },
            )

        judge("seat_1/hand_1/1")  # no round has closed betting yet: nothing
        sim.table_event("round", {"round_id": "r1", "transition": "close_betting"})
        judge("seat_1/hand_1/1")
        judge("seat_1/hand_1/1")  # the same position again (an unchanged status): still one card
        judge("dealer/1")
        judge(None, ["seat_1/hand_1/1"])  # waiting for a decision: nothing
        assert sim.wait_idle(10)
        assert len(sim.dealt) == 2
        judge("seat_1/hand_1/3")  # after a hit
        assert sim.wait_idle(10) and len(sim.dealt) == 3
        sim.table_event("round", {"round_id": "r1", "transition": "result_pending"})
        judge("dealer/2")
        assert sim.wait_idle(10) and len(sim.dealt) == 3
        before = sim.shoe.remaining
        sim.table_event("hold", {"code": "shoe_change", "message": "change the shoe"})
        assert sim.shoe_changes == 1 and sim.shoe.remaining > before


def test_demo_backend_choices_are_allowed_and_sensible():
    import random

    from studio.demo_backend import choose

    rng = random.Random(1)
    play = ["stand", "hit", "double", "split", "surrender"]
    assert (
        choose(
            play, {"kind": "play", "cards": ["8S", "8H"], "total": 16, "soft": False, "dealer_up": "TD"}, rng
        )
        == "split"
    )
    assert (
        choose(
            play, {"kind": "play", "cards": ["6S", "5H"], "total": 11, "soft": False, "dealer_up": "6D"}, rng
        )
        == "double"
    )
    assert (
        choose(
            play, {"kind": "play", "cards": ["TS", "6H"], "total": 16, "soft": False, "dealer_up": "TD"}, rng
        )
        == "surrender"
    )
    assert (
        choose(
            ["stand", "hit"],
            {"kind": "play", "cards": ["TS", "6H", "2C"], "total": 18, "soft": False, "dealer_up": "TD"},
            rng,
        )
        == "stand"
    )
    assert (
        choose(
            ["stand", "hit"],
            {"kind": "play", "cards": ["TS", "3H"], "total": 13, "soft": False, "dealer_up": "4D"},
            rng,
        )
        == "stand"
    )
    assert (
        choose(
            ["stand", "hit"],
            {"kind": "play", "cards": ["TS", "3H"], "total": 13, "soft": False, "dealer_up": "9D"},
            rng,
        )
        == "hit"
    )
    for _ in range(50):
        assert (
            choose(["insurance", "no_insurance"], {"kind": "insurance", "cards": ["9S", "7H"]}, rng)
            == "no_insurance"
        )
    assert (
        choose(["stand"], {"kind": "play", "cards": ["AS", "AH"], "total": 12, "soft": True}, rng) == "stand"
    )
