"""The real `studio demo` process, end to end: simulated wheels -> driver -> rules -> journal -> feed."""

import asyncio

import httpx
import pytest
import websockets
from waiting import WAIT_S
from websockets.exceptions import InvalidStatus

from .helpers import DemoProcess, check_chain

TOKEN = "e2e-consumer-token-0123456789"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    # one studio for the tests that only read it: each demo costs about 30 s of CPU on a two-core machine
    d = DemoProcess(tmp_path_factory.mktemp("demo") / "data", TOKEN)
    yield d
    d.stop()


def test_results_flow_signed_and_gap_free(demo):
    key = demo.public_key()
    messages = demo.collect(after=0, count=12)
    check_chain(messages, key, "0" * 64, 1)
    results = [m for m in messages if m["kind"] == "result" and m["table_id"].startswith("roulette-")]
    assert results, messages
    for m in results:
        number = int(m["result"]["number"])
        assert 0 <= number <= 36
        straights = [b for b in m["outcome"]["winning_bets"] if b["type"] == "straight"]
        assert [b["numbers"] for b in straights] == [[number]] or [b["numbers"] for b in straights] == [
            [str(number)]
        ]
        assert m["source"]["kind"] == "cammegh-ss2" and m["source"]["serial_number"].startswith("SIM-SS2-")
        assert m["occurred_at"].endswith("Z")
    # a consumer resuming in the middle gets exactly the rest
    again = demo.collect(after=3, count=3)
    assert again == messages[3:6]
    # every family of the demo certifies results through its simulated devices
    tables = httpx.get(demo.url("/v1/tables"), headers=demo.headers).json()
    families = {t["table_id"] for t in tables}
    assert {"roulette-1", "baccarat-1", "lucky-6-1"} <= families
    wanted = {"roulette-1", "baccarat-1", "dragon-tiger-1"}

    def certified(msgs: list[dict]) -> set[str]:
        return {m["table_id"] for m in msgs if m["kind"] == "result"}

    # every round also opens and closes betting on the feed: bounded by messages, generously
    more = demo.collect(
        after=0, count=1, timeout=120, until=lambda ms: wanted <= certified(ms) or len(ms) > 400
    )
    assert wanted <= certified(more), certified(more)

    # the round's whole history is there
    r = httpx.get(demo.url(f"/v1/rounds/{results[0]['round_id']}"), headers=demo.headers).json()
    assert r["round"]["state"] == "certified" and r["round"]["result"] == results[0]["result"]
    kinds = [h["kind"] for h in r["history"]]
    transitions = [h["data"]["transition"] for h in r["history"] if h["kind"] == "round_state"]
    assert transitions == ["open_round", "close_betting", "start_play", "result_pending", "certify"]
    assert "device_event" in kinds and kinds[-1] == "result"


def test_consumers_without_the_right_token_get_nothing(demo):
    async def attempt(headers):
        async with websockets.connect(demo.url("/v1/feed?after=0", "ws"), additional_headers=headers) as ws:
            return await asyncio.wait_for(ws.recv(), WAIT_S)

    for headers in ({}, {"Authorization": "Bearer wrong-token-wrong-token"}, {"Authorization": TOKEN}):
        with pytest.raises(InvalidStatus) as err:
            asyncio.run(attempt(headers))
        assert err.value.response.status_code in (401, 403)
    assert httpx.get(demo.url("/v1/tables")).status_code == 401
    assert (
        httpx.get(
            demo.url("/v1/rounds/0e7d1c9e-3c38-4a3c-9a40-3a8e9f5b8a11"),
            headers={"Authorization": "Bearer nope-nope-nope-nope"},
        ).status_code
        == 401
    )


def test_malformed_requests_get_clear_errors(demo):
    h = demo.headers
    bad = httpx.get(demo.url("/v1/rounds/not-a-round"), headers=h)
    assert bad.status_code == 400 and "not a round id" in bad.json()["detail"]
    assert (
        httpx.get(demo.url("/v1/rounds/0e7d1c9e-3c38-4a3c-9a40-3a8e9f5b8a11"), headers=h).status_code == 404
    )
    assert httpx.get(demo.url("/v1/nothing-here"), headers=h).status_code == 404
    assert httpx.post(demo.url("/v1/tables"), headers=h, content=b"\x00garbage").status_code == 405

    async def feed(query):
        async with websockets.connect(demo.url(f"/v1/feed{query}", "ws"), additional_headers=h) as ws:
            return await asyncio.wait_for(ws.recv(), WAIT_S)

    for query in ("?after=abc", "?after=-1", "?after=99999999", "?after=1.5"):
        with pytest.raises((InvalidStatus, websockets.ConnectionClosed)):
            asyncio.run(feed(query))
    # the studio is still serving
    assert httpx.get(demo.url("/v1/health")).json()["status"] == "ok"
    assert demo.collect(after=0, count=1)[0]["seq"] == 1
