"""One real studio for the contract tests (tests/contract): a European roulette table on a simulated SS2 wheel
(the real driver on a pty) and a blackjack table on a simulated shoe, under real uvicorn on 127.0.0.1, with a
consumer token that may post decisions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from served import Served, wheel_table
from waiting import WAIT_S
from websockets.sync.client import connect

from app.demo import demo_family_tables
from dealer_ui import UserStore
from studio.config import parse_config
from studio.service import Studio

TOKEN = "contract-token-0001"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
#: a console admin: the console API's routes are read with its session
ADMIN = ("ada", "admin-pass-1")


class ContractStudio(Served):
    def __init__(self, data: Path) -> None:
        data.mkdir(parents=True, exist_ok=True)
        UserStore(data).add(ADMIN[0], "admin", ADMIN[1])
        blackjack = next(t for t in demo_family_tables(20, 7) if t["game"] == "blackjack")
        blackjack["decision_seconds"] = 1.0
        studio = Studio(
            parse_config(
                {
                    "studio": {"data_dir": str(data), "checkpoint_seconds": 0.5},
                    "consumers": [{"name": "contract", "token": TOKEN, "decision_tables": ["*"]}],
                    "tables": [wheel_table("roulette-1", speed=60), blackjack],
                }
            )
        )
        self.blackjack = blackjack["id"]
        super().__init__(studio, name="contract-uvicorn")

    def console_headers(self) -> dict[str, str]:
        """A signed-in admin's cookie and CSRF token, as the console's page sends them."""
        answer = httpx.post(
            self.url + "/console/api/login", json={"username": ADMIN[0], "secret": ADMIN[1]}, timeout=30
        )
        assert answer.status_code == 200, answer.text
        cookie = "; ".join(f"{k}={v}" for k, v in answer.cookies.items())
        return {"Cookie": cookie, "X-CSRF-Token": answer.json()["csrf"]}

    def ws_url(self, path: str) -> str:
        return self.url.replace("http://", "ws://") + path

    def feed(self) -> list[dict[str, Any]]:
        """Every message the feed sends from seq 1 up to its last seq now, as received over the WebSocket."""
        last = self.studio.journal.last_seq()
        got: list[dict[str, Any]] = []
        with connect(self.ws_url("/v1/feed?after=0"), additional_headers=AUTH) as ws:
            while not got or got[-1]["seq"] < last:
                got.append(json.loads(ws.recv(timeout=WAIT_S)))
        return got
