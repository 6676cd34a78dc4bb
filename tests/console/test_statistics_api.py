"""Statistics of a running studio: a dealer signs in to a wheel table, rounds are certified, and the REST API
and `studio stats` count them as the journal's own records do, with the rounds attributed to their dealer."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from console_helpers import (
    add_users,
    assert_no_studio_threads,
    check_screen,
    signed_in_page,
    start_real,
    wheel_table,
)
from journal_records import rows
from playwright.sync_api import expect
from waiting import WAIT_S

from app.cli import main as studio_main

TOKEN = {"Authorization": "Bearer console-test-token"}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("statistics") / "data"
    add_users(data)
    run = start_real(data, [wheel_table("w1", mode=None, speed=40)])
    run.data = data
    yield run
    run.server.stop()
    assert_no_studio_threads()


def journal_rows(env) -> list[tuple[int, str, str | None, dict[str, Any]]]:
    return rows(env.studio)


def by_the_records(env) -> dict[str, Any]:
    """The same figures counted straight from the records, the plain way: who was signed in when each round
    opened, and how each round ended."""
    dealer = ""
    opened_by: dict[str, str] = {}
    rounds: dict[str, int] = {}
    certified = 0
    for _, kind, table, body in journal_rows(env):
        if table != "w1":
            continue
        if kind == "console_action" and body.get("outcome") == "done":
            if body["action"] == "dealer_sign_in":
                dealer = body["dealer"]
            elif body["action"] == "dealer_sign_out":
                dealer = ""
        elif kind == "round_state" and body["transition"] == "open_round":
            opened_by[body["round_id"]] = dealer
            rounds[dealer] = rounds.get(dealer, 0) + 1
        elif kind == "result":
            certified += 1
    return {"rounds": rounds, "certified": certified}


def results_after(env, seq: int) -> int:
    return sum(1 for s, kind, table, _ in journal_rows(env) if kind == "result" and table == "w1" and s > seq)


def test_a_dealers_rounds_are_counted_as_the_journal_says(env, people) -> None:
    dana, sam, tom = people(env.url, "dealer"), people(env.url, "supervisor"), people(env.url, "technician")
    assert tom.post("/console/api/tables/w1/dealer").status_code == 403  # a technician does not deal
    r = dana.post("/console/api/tables/w1/dealer")
    assert r.status_code == 200, r.text
    assert dana.get("/console/api/tables/w1/dealer").json()["dealer"] == "dana"
    signed_in = journal_rows(env)[-1][0]
    # the round open when she signed in is nobody's; two more are hers
    env.wait(lambda: results_after(env, signed_in) >= 3, what="two rounds dealt by dana")

    # a supervisor signs out a dealer who left; the dealer's colleague cannot
    dave = people(env.url, "dealer2")
    refused = dave.client.delete("/console/api/tables/w1/dealer", headers={"X-CSRF-Token": dave.me["csrf"]})
    assert refused.status_code == 403
    out = sam.client.delete("/console/api/tables/w1/dealer", headers={"X-CSRF-Token": sam.me["csrf"]})
    assert out.status_code == 200 and out.json()["dealer"] is None

    expected = by_the_records(env)
    stats = httpx.get(f"{env.url}/v1/tables/w1/statistics", headers=TOKEN).json()
    assert stats["table_id"] == "w1" and stats["game"] == "european_roulette"
    # rounds go on while we count: the API's figure lies between the records' before and after it
    assert expected["certified"] <= stats["certified"] <= by_the_records(env)["certified"]
    groups = stats["groups"]
    assert groups["dana"]["rounds"] == expected["rounds"]["dana"]
    assert groups["dana"]["certified"] >= 2
    assert stats["devices"]["w1/wheel"]["results"] == stats["certified"]
    assert stats["mean_round_seconds"] > 0

    refusals = [
        b for _, k, _, b in journal_rows(env) if k == "console_action" and b.get("outcome") == "refused"
    ]
    assert {(b["action"], b["by"]) for b in refusals} >= {
        ("dealer_sign_in", "tom"),
        ("dealer_sign_out", "dave"),
    }


def test_the_api_refuses_strangers_and_bad_questions(env) -> None:
    assert httpx.get(f"{env.url}/v1/statistics").status_code == 401
    assert httpx.get(f"{env.url}/v1/tables/w1/statistics").status_code == 401
    assert httpx.get(f"{env.url}/v1/tables/nope/statistics", headers=TOKEN).status_code == 404
    assert httpx.get(f"{env.url}/v1/statistics?by=colour", headers=TOKEN).status_code == 400
    assert httpx.get(f"{env.url}/v1/statistics?from=yesterday", headers=TOKEN).status_code == 400
    games = httpx.get(f"{env.url}/v1/statistics?by=game&game=european_roulette", headers=TOKEN).json()
    assert list(games["groups"]) in ([], ["european_roulette"])
    future = httpx.get(f"{env.url}/v1/statistics?from=2999-01-01", headers=TOKEN).json()
    assert future["rounds"] == 0


def test_studio_stats_reads_the_same_figures_from_the_data_folder(env, capsys) -> None:
    env.wait(lambda: results_after(env, 0) >= 1, what="a certified round")
    before = by_the_records(env)["certified"]
    assert studio_main(["stats", "--data", str(env.data), "--format", "json", "--table", "w1"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert before <= cli["certified"] <= by_the_records(env)["certified"]
    assert cli["rounds"] >= cli["certified"] + sum(cli["voided"].values())
    assert studio_main(["stats", "--data", str(env.data), "--by", "table"]) == 0
    text = capsys.readouterr().out
    assert "table w1" in text and "certified" in text.splitlines()[0]
    assert studio_main(["stats", "--data", str(env.data / "missing")]) == 2


SIZES = [(1280, 800), (1920, 1080)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_dealer_signs_in_and_out_at_the_table_on_the_screen(env, browser, people, size) -> None:
    ctx, page, _errors = signed_in_page(
        browser, env.url, size, "dealer2", "/console/table/w1", WAIT_S * 1000, ready=None
    )
    try:
        expect(page.locator("#shift-in")).to_be_visible()
        check_screen(page, "dealer-shift", size)
        page.locator("#shift-in").click()
        expect(page.locator("#shift-dealer")).to_have_text("Dealer: dave")
        watcher = people(env.url, "supervisor")
        assert watcher.get("/console/api/tables/w1/dealer").json()["dealer"] == "dave"
        page.locator("#shift-out").click()
        expect(page.locator("#shift-dealer")).to_have_text("No dealer signed in")
        assert watcher.get("/console/api/tables/w1/dealer").json()["dealer"] is None
    finally:
        ctx.close()
