"""Run the real `studio` command in a subprocess and talk to it as a betting backend would."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import websockets
from waiting import WAIT_S

from streaming.canonical import load_public_key_b64, verify_message


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DemoProcess:
    def __init__(
        self,
        data: Path,
        token: str,
        *,
        tables: int = 3,
        speed: float = 40,
        seed: int = 7,
        port: int | None = None,
        games: str | None = None,
    ) -> None:
        self.data = data
        self.token = token
        self.games = games
        # free_port() lets the port go before the demo binds it, so another process (a second pytest worker)
        # may take it first: then the demo exits at once, and is started again on another port
        for _ in range(3):
            self.port = port or free_port()
            self.log = data.parent / f"demo-{self.port}.log"
            self._start(tables, speed, seed)
            if self._wait_started():
                return
            if port is not None or "address already in use" not in self.log.read_text().lower():
                break
        raise RuntimeError(f"studio demo exited: {self.log.read_text()}")

    def _start(self, tables: int, speed: float, seed: int) -> None:
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app.cli",
                    "demo",
                    "--port",
                    str(self.port),
                    "--data",
                    str(self.data),
                    "--consumer-token",
                    self.token,
                    "--tables",
                    str(tables),
                    "--speed",
                    str(speed),
                    "--seed",
                    str(seed),
                    *(["--games", self.games] if self.games else []),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def _wait_started(self) -> bool:
        """True once the demo answers; False if it exited first."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                if httpx.get(self.url("/v1/health"), timeout=1).status_code == 200:
                    return True
            except httpx.HTTPError:
                time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"studio demo did not start in {WAIT_S:g} s: {self.log.read_text()}")

    def url(self, path: str, scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def public_key(self):
        body = httpx.get(self.url("/v1/public-key")).json()
        assert body["algorithm"] == "ed25519"
        return load_public_key_b64(body["public_key"])

    def collect(
        self,
        after: int,
        count: int,
        timeout: float = WAIT_S,
        until: Callable[[list[dict]], bool] | None = None,
    ) -> list[dict]:
        """`count` feed messages after `after`; with `until`, at least `count` and then until it holds."""

        async def run() -> list[dict]:
            out: list[dict] = []
            # max_queue=None: the client reads on while it closes, and so sees the studio's answering close
            # frame behind the backlog it did not want (with websockets' default of 16 it stops reading and
            # waits its own 10 s close timeout)
            async with websockets.connect(
                self.url(f"/v1/feed?after={after}", "ws"), additional_headers=self.headers, max_queue=None
            ) as ws:
                while len(out) < count or (until is not None and not until(out)):
                    out.append(json.loads(await asyncio.wait_for(ws.recv(), timeout)))
            return out

        return asyncio.run(run())


def check_chain(messages: list[dict], public_key, prev_hash: str, first_seq: int) -> None:
    """Seq grows by exactly one, each prev_hash links, each signature verifies."""
    for i, m in enumerate(messages):
        assert m["seq"] == first_seq + i, (m["seq"], first_seq + i)
        assert m["prev_hash"] == prev_hash
        verify_message(m, public_key)
        prev_hash = m["hash"]


def studio_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
