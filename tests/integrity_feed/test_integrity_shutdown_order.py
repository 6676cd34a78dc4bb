"""On SIGTERM the studio voids its open rounds, writes its last checkpoint, makes that durable and delivers it to
the connected feed consumers before the server closes their connections (app/serve.py, Studio.wind_down)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
from integrity_helpers import TOKEN
from waiting import WAIT_S, until
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(folder: Path, port: int) -> Path:
    path = folder / "studio.toml"
    path.write_text(
        f"""
[studio]
data_dir = "data"

[server]
host = "127.0.0.1"
port = {port}

[[consumers]]
name = "backend"
token = "{TOKEN}"

[[tables]]
id = "t1"
game = "european_roulette"
betting_seconds = 600

[tables.device]
kind = "cammegh-ss2"
role = "wheel"
url = "simulator"
serial_number = "SIM-t1"
options = {{ keep_powered = true }}
simulator = {{ seed = 3, speed = 20 }}
""",
        encoding="utf-8",
    )
    return path


class Consumer:
    """A feed consumer on a thread of its own: every message in order, then how the connection closed."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.closed: ConnectionClosed | None = None
        self.thread = threading.Thread(target=self._read, name="integrity-consumer", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            while True:
                self.messages.append(json.loads(self.ws.recv()))
        except ConnectionClosed as exc:
            self.closed = exc


def test_sigterm_delivers_the_studio_stopped_voids_before_closing_the_feed(tmp_path: Path) -> None:
    port = _free_port()
    config = _config(tmp_path, port)
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "run", "--config", str(config)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        auth = {"Authorization": f"Bearer {TOKEN}"}

        def open_round() -> str | None:
            try:
                tables = httpx.get(f"{base}/v1/tables", headers=auth, timeout=10).json()
            except httpx.HTTPError:
                return None
            r = tables[0]["round"]
            return r["round_id"] if r and r["state"] == "betting_open" else None

        round_id = until(open_round, "a round open for bets")
        url = f"ws://127.0.0.1:{port}/v1/feed?after=0"
        with connect(url, additional_headers=auth, open_timeout=WAIT_S) as ws:
            consumer = Consumer(ws)
            proc.send_signal(signal.SIGTERM)
            # uvicorn raises the signal again once it has shut down: the studio ends "killed" by it
            assert proc.wait(WAIT_S) in (0, -signal.SIGTERM), proc.stderr.read() if proc.stderr else ""
            consumer.thread.join(WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    voids = [m for m in consumer.messages if m["kind"] == "void" and m["round_id"] == round_id]
    assert [v["reason"]["code"] for v in voids] == ["studio_stopped"], consumer.messages
    # then the shutdown's checkpoint, naming a journal that holds the void
    last = consumer.messages[-1]
    assert last["kind"] == "checkpoint" and last["seq"] > voids[0]["seq"], consumer.messages
    assert consumer.closed is not None and consumer.closed.rcvd is not None
    assert consumer.closed.rcvd.code == 1012  # uvicorn's "service restart", after the voids
