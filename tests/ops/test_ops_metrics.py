"""`/metrics` of a running studio after a few rounds, a lost and returned wheel, a feed consumer and a refused
decision, parsed as Prometheus parses it."""

from __future__ import annotations

import json

from ops_helpers import TOKEN, Served, make_studio, wait, wheel
from prometheus_client.parser import text_string_to_metric_families
from waiting import WAIT_S
from websockets.sync.client import connect


def scrape(served: Served) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    r = served.http.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out.setdefault(s.name, {})[tuple(sorted(s.labels.items()))] = s.value
    return out


def feed_kinds(served: Served, kind: str) -> list[dict]:
    return [
        m for _, t in served.studio.journal.read_after(0, 100_000) if (m := json.loads(t))["kind"] == kind
    ]


def test_metrics_count_what_happened(tmp_path):
    served = Served(make_studio(tmp_path / "data", [wheel("w1", speed=60)], journal_writer="thread"))
    table = served.studio.tables["w1"]
    sim = served.studio.simulator("w1")
    try:
        wait(lambda: len(feed_kinds(served, "result")) >= 2, what="two results")
        with connect(
            f"ws://127.0.0.1:{served.port}/v1/feed?after=0",
            additional_headers={"Authorization": f"Bearer {TOKEN}"},
        ) as ws:
            assert json.loads(ws.recv(timeout=WAIT_S))["seq"] == 1
            wait(lambda: scrape(served)["studio_feed_consumers"][()] == 1, what="the consumer counted")

            wait(lambda: table.round and table.round.state.value == "betting_open", what="an open round")
            sim.power_loss()
            wait(lambda: table.slots.lost, what="the wheel lost")
            sim.restore_power()
            wait(lambda: not table.slots.lost, what="the wheel back")
            before = len(feed_kinds(served, "result"))
            wait(lambda: len(feed_kinds(served, "result")) > before, what="a result after the return")

            refused = served.http.post(
                "/v1/tables/w1/decisions",
                headers={"Authorization": f"Bearer {TOKEN}"},
                json={"round_id": "x", "seat": "seat_1", "action": "hit"},
            )
            assert refused.status_code == 403  # this token may not post decisions

            results_before = len(feed_kinds(served, "result"))
            m = scrape(served)
            results_after = len(feed_kinds(served, "result"))
            lag = m["studio_feed_consumer_lag"]
            assert len(lag) == 1 and next(iter(lag.values())) >= 0

        w1 = (("game", "european_roulette"), ("table", "w1"))
        assert results_before <= m["studio_results_certified_total"][w1] <= results_after
        voids = {dict(k)["reason"]: v for k, v in m["studio_voids_total"].items()}
        assert voids.get("device_lost", 0) == len(
            [v for v in feed_kinds(served, "void") if v["reason"]["code"] == "device_lost"]
        )
        assert voids.get("device_lost", 0) >= 1
        holds = {dict(k)["reason"]: v for k, v in m["studio_holds_total"].items()}
        assert holds["device_lost"] >= 1
        device = (("device", "w1/wheel"), ("table", "w1"))
        assert m["studio_device_disconnects_total"][device] == 1
        assert m["studio_device_reconnects_total"][device] == 1
        assert m["studio_device_connected"][device] == 1
        assert m["studio_table_paused"][(("table", "w1"),)] == 0
        assert m["studio_journal_commit_seconds_count"][()] > 0
        assert m["studio_journal_commit_seconds_sum"][()] > 0
        assert m["studio_decision_seconds_count"][(("status", "403"),)] == 1
        assert m["studio_feed_head_seq"][()] >= results_before
    finally:
        served.stop()


def test_metrics_can_be_turned_off(tmp_path):
    served = Served(make_studio(tmp_path / "data", [wheel("w1")], metrics=False))
    try:
        assert served.http.get("/metrics").status_code == 404
        wait(lambda: served.http.get("/v1/health").json()["status"] == "ok", what="the studio up")
    finally:
        served.stop()
