"""A real studio (a simulated SS2 wheel on a pty and a blackjack table on a simulated serial shoe, under real
uvicorn on 127.0.0.1, players seated and answered through the decisions API over HTTP) sends what the docs'
examples show: each feed message has exactly the keys and JSON types of the documented example of its kind, the
decisions API answers the documented `sit` request as documented, and the feed's refusal is its example's shape."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from docs_examples_helpers import Example, examples, same_shape
from served import Served, wheel_table
from waiting import WAIT_S, until
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from app.demo import demo_family_tables
from studio.config import parse_config
from studio.service import Studio

TOKEN = "docs-live-token-0001"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ALL = examples()


def _only(what: str) -> Example:
    (example,) = [e for e in ALL if e.what == what]
    return example


class Live(Served):
    """The studio under uvicorn on a thread; what it sent and answered, gathered while it plays."""

    def __init__(self, data: Path) -> None:
        blackjack = next(t for t in demo_family_tables(20, 7) if t["game"] == "blackjack")
        blackjack["decision_seconds"] = 1.5
        wheel = wheel_table("roulette-1")
        studio = Studio(
            parse_config(
                {
                    "studio": {"data_dir": str(data), "checkpoint_seconds": 0.5},
                    "consumers": [{"name": "docs", "token": TOKEN, "decision_tables": ["*"]}],
                    "tables": [wheel, blackjack],
                }
            )
        )
        self.blackjack = blackjack["id"]
        super().__init__(studio, name="docs-uvicorn")
        self.http = httpx.Client(base_url=self.url, timeout=30, headers=AUTH)
        self.sit_answers: list[tuple[str, int, dict[str, Any]]] = []
        self.views: list[dict[str, Any]] = []

    def feed(self) -> list[dict[str, Any]]:
        """Every message the feed sends from seq 1 up to its last seq now."""
        last = self.studio.journal.last_seq()
        got: list[dict[str, Any]] = []
        with connect(self.ws_url("/v1/feed?after=0"), additional_headers=AUTH) as ws:
            while not got or got[-1]["seq"] < last:
                got.append(json.loads(ws.recv(timeout=WAIT_S)))
        return got

    def ws_url(self, path: str) -> str:
        return self.url.replace("http://", "ws://") + path

    def stop(self) -> None:
        self.http.close()
        super().stop()


def _play(live: Live, rounds: int) -> None:
    """Sit seat_1 with the documented request in each blackjack round; answer the windows of every other round
    with their default and let the others' run out (the table applies it)."""
    documented = _only("decision-request").value()
    path = f"/v1/tables/{live.blackjack}/decisions"
    sat: list[str] = []
    answered: set[tuple[str, str]] = set()
    deadline = time.monotonic() + 4 * WAIT_S
    while len(sat) <= rounds:
        assert time.monotonic() < deadline, f"timed out playing {rounds} blackjack rounds (sat {len(sat)})"
        view = live.http.get(path).json()
        round_id = view["round_id"]
        if round_id and view["state"] == "betting_open" and round_id not in sat:
            sat.append(round_id)
            answer = live.http.post(path, json={**documented, "round_id": round_id})
            live.sit_answers.append((round_id, answer.status_code, answer.json()))
        if view["windows"]:
            live.views.append(view)
        for w in view["windows"] if len(sat) % 2 == 0 else []:
            if (round_id, w["window"]) not in answered:
                answered.add((round_id, w["window"]))
                body = {"round_id": round_id, "seat": w["seat"], "hand": w["hand"], "action": w["default"]}
                live.http.post(path, json={**body, "window": w["window"]})
        time.sleep(0.05)


def _correct_first_roulette_result(live: Live, feed: list[dict[str, Any]]) -> None:
    first = next(m for m in feed if m["kind"] == "result" and m["table_id"] == "roulette-1")
    number = "19" if first["result"]["number"] != "19" else "17"
    table = live.studio.tables["roulette-1"]
    live.on_loop(
        lambda: table.correct(
            first["round_id"],
            {"number": number},
            approved_by=["supervisor-007", "manager-002"],
            reason="the ball settled elsewhere",
        )
    )


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Live, list[dict[str, Any]]]]:
    studio = Live(tmp_path_factory.mktemp("docs-live") / "data")
    try:
        _play(studio, rounds=4)
        until(
            lambda: any(m["kind"] == "result" and m["table_id"] == "roulette-1" for m in studio.feed()),
            "a roulette result",
        )
        _correct_first_roulette_result(studio, studio.feed())
        until(lambda: any(m["kind"] == "correction" for m in studio.feed()), "the correction on the feed")
        until(lambda: any(m["kind"] == "checkpoint" for m in studio.feed()), "a checkpoint")
        yield studio, studio.feed()
    finally:
        studio.stop()


def _sent_like(example: dict[str, Any], feed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages the studio sent of the example's kind (and game, and kind of decision window)."""
    same = [m for m in feed if m["kind"] == example["kind"]]
    if example["kind"] in ("result", "correction", "betting_opened", "betting_closed"):
        same = [m for m in same if m["game"] == example["game"]]
    if example["kind"] == "decision_window":
        same = [m for m in same if m["detail"].get("kind") == example["detail"].get("kind")]
    if example["kind"] == "decision":
        same = [
            m
            for m in same
            if m["by"] == example["by"] and (m["action"] == "sit") == (example["action"] == "sit")
        ]
    return same


@pytest.mark.parametrize("example", [e for e in ALL if e.what == "feed-message"], ids=lambda e: e.where)
def test_the_feed_sends_what_its_example_shows(
    live: tuple[Live, list[dict[str, Any]]], example: Example
) -> None:
    documented = example.value()
    sent = _sent_like(documented, live[1])
    assert sent, f"the studio sent no {documented['kind']} like {example.where}"
    for message in sent:
        assert set(message) == set(documented), f"{example.where}: keys differ from seq {message['seq']}"
    assert any(same_shape(documented, m) for m in sent), (
        f"{example.where}: no {documented['kind']} the studio sent has its keys and types at every level; "
        f"e.g. {json.dumps(sent[0])}"
    )


def test_the_decisions_api_answers_the_documented_sit_as_documented(
    live: tuple[Live, list[dict[str, Any]]],
) -> None:
    documented = _only("decision-accepted").value()
    assert live[0].sit_answers
    for round_id, status, answer in live[0].sit_answers:
        assert status == 200 and same_shape(documented, answer), answer
        expected = {**documented["decision"], "round_id": round_id}
        assert answer["decision"] == expected
        sent = next(m for m in live[1] if m["seq"] == answer["feed_seq"])
        assert {k: sent[k] for k in expected} == expected


def test_the_open_windows_answer_is_its_example(live: tuple[Live, list[dict[str, Any]]]) -> None:
    documented = _only("decisions-view").value()
    playing = [v for v in live[0].views if v["windows"][0]["detail"].get("kind") == "play"]
    assert playing and all(set(v) == set(documented) for v in live[0].views)
    assert any(same_shape(documented, v) for v in playing), json.dumps(playing[0])


def test_a_seat_by_number_is_refused_as_the_docs_say(live: tuple[Live, list[dict[str, Any]]]) -> None:
    studio = live[0]
    view = studio.http.get(f"/v1/tables/{studio.blackjack}/decisions").json()
    body = {"round_id": view["round_id"] or "none", "seat": "3", "action": "sit"}
    answer = studio.http.post(f"/v1/tables/{studio.blackjack}/decisions", json=body)
    assert answer.status_code == 409 and answer.json()["code"] in (
        "seat_not_in_play",
        "no_round",
        "betting_closed",
    )


def test_the_feed_refusal_is_its_example(live: tuple[Live, list[dict[str, Any]]]) -> None:
    documented = _only("error-message").value()
    with pytest.raises(InvalidStatus) as refused:
        connect(live[0].ws_url("/v1/feed?after=999999"), additional_headers=AUTH)
    assert refused.value.response.status_code == 400
    sent = json.loads(refused.value.response.body or b"{}")
    assert sent["code"] == documented["code"] and same_shape(documented, sent), sent
