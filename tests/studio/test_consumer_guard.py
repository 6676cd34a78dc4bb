"""Refused consumer tokens on the studio's API (studio/consumer_guard.py), over real HTTP and a real WebSocket:
journaled without the token, slowed down per address, and never in the way of a valid token."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import websockets
from journal_records import records
from waiting import WAIT_S

from app.api import create_app
from studio.config import parse_config
from studio.service import Studio
from studio.throttle import Throttle

TOKEN = "guard-test-token-0001"
WRONG = "guard-test-token-WRONG"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def served(tmp_path: Path):
    studio = Studio(
        parse_config(
            {
                "studio": {"data_dir": str(tmp_path / "data")},
                "consumers": [{"name": "backend", "token": TOKEN}],
                "tables": [],
            }
        )
    )
    clock = FakeClock()
    throttle = Throttle(free_ip_attempts=3, base_delay=2.0, max_delay=60.0, clock=clock)
    app = create_app(studio, consumer_throttle=throttle)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", ws_ping_interval=None))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the studio did not start"
        time.sleep(0.02)
    try:
        yield studio, clock, f"127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def refusals(studio: Studio) -> list[dict[str, Any]]:
    return records(studio, "consumer_auth_refused")


def feed_refused(host: str, token: str) -> bool:
    async def run() -> bool:
        try:
            async with websockets.connect(
                f"ws://{host}/v1/feed?after=0", additional_headers={"Authorization": f"Bearer {token}"}
            ) as ws:
                await asyncio.wait_for(ws.recv(), 0.5)
        except websockets.InvalidStatus as exc:
            return exc.response.status_code == 403
        except TimeoutError:
            return False  # accepted: the feed is open (and empty)
        return False

    return asyncio.run(run())


def test_refused_tokens_are_journaled_and_slowed_down_but_a_valid_token_always_passes(served) -> None:
    studio, clock, host = served
    http = httpx.Client(base_url=f"http://{host}", timeout=10)
    wrong = {"Authorization": f"Bearer {WRONG}"}
    good = {"Authorization": f"Bearer {TOKEN}"}

    # public paths are not counted
    for _ in range(5):
        assert http.get("/v1/health").status_code == 200
        assert http.get("/v1/public-key").status_code == 200
    # three free refusals: 401 each, journaled with the reason, never the token
    assert http.get("/v1/tables").status_code == 401
    assert http.get("/v1/tables", headers=wrong).status_code == 401
    assert feed_refused(host, WRONG)
    found = refusals(studio)
    assert [(r["reason"], r["path"], r["address"]) for r in found] == [
        ("missing_token", "/v1/tables", "127.0.0.1"),
        ("wrong_token", "/v1/tables", "127.0.0.1"),
        ("wrong_token", "/v1/feed", "127.0.0.1"),
    ]
    # the fourth failure is answered as usual, and from then on the address waits (2 s, then 4 s, ...)
    assert http.post("/v1/tables/x/decisions", headers=wrong, json={}).status_code == 401
    for _ in range(3):
        r = http.get("/v1/tables", headers=wrong)
        assert r.status_code == 429 and r.headers["retry-after"] == "3"
        assert r.json()["code"] == "too_many_attempts"
    assert feed_refused(host, WRONG)
    slowed = [r for r in refusals(studio) if r["reason"] == "slowed_down"]
    assert len(slowed) == 1 and slowed[0]["retry_after"] == 3  # once per wait, not once per request
    # a valid token is never held back by the address's failures: the API and the feed
    assert http.get("/v1/tables", headers=good).status_code == 200
    assert not feed_refused(host, TOKEN)
    # the wait over, the next wrong token is answered 401 again, then the address waits twice as long
    clock.now += 2.5
    assert http.get("/v1/tables", headers=wrong).status_code == 401
    r = http.get("/v1/tables", headers=wrong)
    assert r.status_code == 429 and r.headers["retry-after"] == "5"
    journal_text = json.dumps(refusals(studio))
    assert WRONG not in journal_text and TOKEN not in journal_text
    assert len(refusals(studio)) == 7
    http.close()
