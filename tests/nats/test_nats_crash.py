"""The studio SIGKILLed between the journal's commit and the broker's ack: started again, it sends the
unacknowledged messages once more and the broker drops the repeats, so the stream holds every seq once."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import brokers
import httpx
from nats_helpers import nats_config, stream_contents, toml
from waiting import WAIT_S, until

ROOT = Path(__file__).resolve().parents[2]


class StudioProcess:
    def __init__(self, config_path: Path) -> None:
        with socket.socket() as s:  # the studio's HTTP port: the kernel's pick, released just before use
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        code = "import sys; from app.cli import main; sys.exit(main())"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, "run", "--config", str(config_path), "--port", str(self.port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        until(self.up, "the studio process to serve")

    def up(self) -> bool:
        assert self.proc.poll() is None, self.proc.stderr.read().decode() if self.proc.stderr else "exited"
        try:
            return httpx.get(f"{self.url}/v1/health", timeout=2).status_code in (200, 503)
        except httpx.HTTPError:
            return False

    def metric(self, name: str) -> float:
        text = httpx.get(f"{self.url}/metrics", timeout=10).text
        found = re.search(rf"^{name} ([0-9.e+]+)$", text, re.MULTILINE)
        assert found, f"{name} not in /metrics: {text[-3000:]}"
        return float(found.group(1))

    def end(self, sig: int) -> None:
        self.proc.send_signal(sig)
        self.proc.wait(WAIT_S)


def journal_last_seq(data: Path) -> int:
    with sqlite3.connect(f"file:{data / 'journal.sqlite3'}?mode=ro", uri=True) as db:
        return db.execute("SELECT MAX(feed_seq) FROM records").fetchone()[0] or 0


def acked(data: Path) -> int:
    try:
        return int(json.loads((data / "nats-acked-hall-a.json").read_text())["acked_seq"])
    except FileNotFoundError:
        return 0


def test_sigkill_between_commit_and_ack(tmp_path: Path, broker: brokers.Broker) -> None:
    data = tmp_path / "studio"
    config = nats_config(data, broker.urls, ack_timeout_seconds=120)
    path = tmp_path / "studio.toml"
    path.write_text(toml(config))
    node = broker.nodes[0]

    first = StudioProcess(path)
    try:
        until(lambda: acked(data) >= 5, "the first messages on the stream")
        node.pause()  # the broker takes what is sent (the kernel buffers it) but acknowledges nothing
        sent = until(
            lambda: (s := first.metric("studio_nats_sent_seq")) > acked(data) and s, "a message sent"
        )
    finally:
        first.end(signal.SIGKILL)
        node.resume()
    recorded = acked(data)
    assert recorded < sent, "the crash came before the ack was recorded"
    # the broker stores what the dead studio sent before it died: those seqs are on the stream, not in the file
    until(lambda: len(stream_contents(broker.urls, "hall-a")) >= sent, "the broker to store what was sent")

    second = StudioProcess(path)
    try:
        until(lambda: acked(data) > sent, "the restarted studio to publish past the crash")
        duplicates = second.metric("studio_nats_duplicates_total")
        assert duplicates >= sent - recorded, "the unacknowledged messages were sent again and dropped"
    finally:
        second.end(signal.SIGTERM)
    last = journal_last_seq(data)
    held = stream_contents(broker.urls, "hall-a")
    assert [s for s, *_ in held] == list(range(1, len(held) + 1))
    assert [d["seq"] for _, _, d, _ in held] == list(range(1, len(held) + 1)), "every seq once, in order"
    assert [m for _, m, _, _ in held] == [f"hall-a:{s}" for s in range(1, len(held) + 1)]
    assert len(held) == acked(data) <= last
