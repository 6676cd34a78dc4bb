"""Structured logs: `studio run --log-format json` writes one JSON object a line with the ids it knows, a refused
feed client is a WARNING, and a wheel that comes back is logged with its table and device."""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from ops_helpers import Served, make_studio, wait, wheel
from waiting import WAIT_S
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from app.logs import JsonFormatter, configure_logging
from studio.log_context import IdsFilter, table_context

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config(tmp_path: Path, port: int) -> Path:
    path = tmp_path / "studio.toml"
    path.write_text(
        f"""
[studio]
data_dir = "{tmp_path / "data"}"
journal_writer = "thread"

[server]
port = {port}

[[consumers]]
name = "ops"
token = "ops-cli-token-000001"

[[tables]]
id = "w1"
game = "european_roulette"

[tables.device]
kind = "cammegh-ss2"
url = "simulator"
serial_number = "SIM-W1"
options = {{ keep_powered = true }}
simulator = {{ speed = 40, seed = 5 }}
"""
    )
    return path


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_run_with_json_logs(tmp_path):
    port = free_port()
    err = tmp_path / "stderr.log"
    with open(err, "w") as stderr:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "app.cli",
                "run",
                "--config",
                str(config(tmp_path, port)),
                "--log-format",
                "json",
            ],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            cwd=ROOT,
            env=dict(os.environ),
        )
    try:

        def up() -> bool:
            if proc.poll() is not None:
                raise AssertionError(f"studio run exited: {err.read_text()}")
            try:
                return (
                    httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=WAIT_S).json()["status"] == "ok"
                )
            except httpx.HTTPError:
                return False

        wait(up, what="the studio up")
        with pytest.raises(InvalidStatus):
            connect(
                f"ws://127.0.0.1:{port}/v1/feed",
                additional_headers={"Authorization": "Bearer not-a-real-token-xx"},
            )
        with pytest.raises(InvalidStatus):  # a client's bad ?after=: refused, as a WARNING too
            connect(
                f"ws://127.0.0.1:{port}/v1/feed?after=oops",
                additional_headers={"Authorization": "Bearer ops-cli-token-000001"},
            )
        wait(lambda: "invalid_after" in err.read_text(), what="the refusals logged")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(WAIT_S)
    lines = json_lines(err.read_text())  # every line parses
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    # the feed's two refusals; a table may also refuse to open a round while the studio stops
    refused = [line for line in lines if "refused" in line["message"] and line["logger"] == "streaming.feed"]
    assert len(refused) == 2 and "invalid_after" in refused[1]["message"]
    assert all(line["level"] == "WARNING" for line in refused)
    assert not [line for line in lines if line["level"] in ("ERROR", "CRITICAL")], lines
    # the driver's own thread: "connected to <pty>", with the table and the device it is about
    connected = [line for line in lines if "connected to" in line["message"]]
    assert connected and connected[0]["device_id"] == "w1/main" and connected[0]["table_id"] == "w1"


@pytest.fixture
def captured():
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(IdsFilter())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield buf
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def test_a_wheel_back_is_logged_with_its_ids(tmp_path, captured):
    served = Served(make_studio(tmp_path / "data", [wheel("w1")]))
    try:
        wait(lambda: served.http.get("/v1/health").json()["status"] == "ok", what="status ok")
        sim = served.studio.simulator("w1")
        sim.power_loss()
        wait(lambda: served.studio.tables["w1"].slots.lost, what="the wheel lost")
        started = time.monotonic()
        sim.restore_power()
        wait(lambda: "connected again" in captured.getvalue(), what="the return logged")
        waited = time.monotonic() - started
    finally:
        served.stop()
    lines = json_lines(captured.getvalue())
    back = next(line for line in lines if "connected again" in line["message"])
    assert back["level"] == "INFO" and back["logger"] == "studio.device_slots"
    assert back["device_id"] == "w1/wheel" and back["table_id"] == "w1"
    # down from the moment the wheel was reported lost (after its 3 s of silence) until it spoke again
    assert 0 <= back["down_seconds"] <= waited + 1
    lost = [line for line in lines if "no data from the device" in line["message"]]
    assert lost and lost[0]["level"] == "WARNING" and lost[0]["device_id"] == "w1/wheel"


def test_a_line_logged_for_a_table_names_its_open_round(captured):
    context = table_context("t9", lambda: "0e7d1c9e-3c38-4a3c-9a40-3a8e9f5b8a11")
    context.run(logging.getLogger("studio.table").warning, "table %s: refused %s", "t9", "close_betting")
    logging.getLogger("studio.table").warning("not about a table", extra={"device_id": "t1/shoe"})
    first, second = json_lines(captured.getvalue())
    assert first["table_id"] == "t9" and first["round_id"] == "0e7d1c9e-3c38-4a3c-9a40-3a8e9f5b8a11"
    assert first["message"] == "table t9: refused close_betting"
    assert second["device_id"] == "t1/shoe" and "table_id" not in second


def test_text_format_and_a_bad_format():
    buf = io.StringIO()
    root = logging.getLogger()
    saved = list(root.handlers), root.level
    try:
        configure_logging("text", logging.INFO, stream=buf)
        logging.getLogger("x").info("hello %s", "there")
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
        for h in saved[0]:
            root.addHandler(h)
        root.setLevel(saved[1])
    assert buf.getvalue().rstrip().endswith("INFO x: hello there")
    with pytest.raises(ValueError, match="text, json"):
        configure_logging("yaml")
