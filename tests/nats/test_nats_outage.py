"""NATS away for a while: the tables keep certifying, the WebSocket feed keeps delivering, /v1/health and
/metrics show the backlog, and the outbox drains when the broker is back."""

from __future__ import annotations

import re
from pathlib import Path

import brokers
import httpx
from nats_helpers import Backend, NatsStudio
from waiting import until


def metric(url: str, name: str) -> float:
    text = httpx.get(f"{url}/metrics").text
    found = re.search(rf"^{name} ([0-9.e+]+)$", text, re.MULTILINE)
    assert found, f"{name} not in /metrics"
    return float(found.group(1))


def test_nats_down_for_a_while(tmp_path: Path, broker: brokers.Broker) -> None:
    studio = NatsStudio(tmp_path / "studio", broker.urls)
    ws = Backend(ws_url=studio.url, public_key=studio.studio.public_key_b64)
    backend = Backend(broker.urls, {"hall-a": studio.studio.public_key_b64})
    try:
        backend.wait_for("hall-a", 3)
        health = httpx.get(f"{studio.url}/v1/health").json()
        assert health["nats"]["connected"] is True
        broker.nodes[0].kill()
        until(lambda: not studio.publisher_status.connected, "the publisher to see the broker gone")
        down_at = studio.last_seq
        until(lambda: studio.last_seq >= down_at + 20, "the tables to go on certifying without NATS")
        ws.wait_for("ws", down_at + 20, "the WebSocket feed to go on delivering without NATS")

        health = httpx.get(f"{studio.url}/v1/health").json()
        assert health["status"] == "degraded"
        assert health["nats"]["connected"] is False
        assert health["nats"]["backlog"] >= 20
        assert any("NATS delivery not connected" in p for p in health["problems"])
        assert metric(studio.url, "studio_nats_connected") == 0
        assert metric(studio.url, "studio_nats_backlog") >= 20
        assert backend.seqs("hall-a")[-1] <= down_at  # nothing reached NATS meanwhile

        broker.nodes[0].start()
        last = studio.settle()
        backend.wait_for("hall-a", last)
        ws.wait_for("ws", last)
        assert backend.seqs("hall-a") == list(range(1, last + 1))
        assert ws.seqs("ws") == list(range(1, last + 1))
        health = httpx.get(f"{studio.url}/v1/health").json()
        assert health["nats"] == {**health["nats"], "connected": True, "backlog": 0, "acked_seq": last}
        assert metric(studio.url, "studio_nats_backlog") == 0
    finally:
        backend.stop()
        ws.stop()
        studio.stop()
