"""The shift manager's statistics page in Chromium at both screen sizes: every table's figures, voids and holds
hour by hour, and a baccarat table's bead plate and big road drawn from its certified rounds."""

from __future__ import annotations

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

SIZES = [(1280, 800), (1920, 1080)]


def baccarat_table() -> dict:
    return {
        "id": "bac-1",
        "game": "baccarat",
        "betting_seconds": 0.5,
        "auto_round_seconds": 0.3,
        "devices": [
            {
                "kind": "serial-shoe",
                "role": "shoe",
                "url": "simulator",
                "serial_number": "SIM-SHOE-1",
                "simulator": {"speed": 20, "seed": 4},
            }
        ],
    }


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("stats-page") / "data"
    add_users(data)
    run = start_real(data, [baccarat_table(), wheel_table("w1", mode=None, speed=40)])
    yield run
    run.server.stop()
    assert_no_studio_threads()


def baccarat_winners(env) -> list[str]:
    return [b["result"]["winner"] for _s, _k, table, b in rows(env.studio, "result") if table == "bac-1"]


def test_roads_follow_the_certified_rounds(env, people) -> None:
    env.wait(lambda: len(baccarat_winners(env)) >= 4, what="four baccarat rounds")
    sam = people(env.url, "supervisor")
    roads = sam.get("/console/api/tables/bac-1/roads").json()
    winners = baccarat_winners(env)
    shown = [c["winner"] for c in roads["bead_plate"]]
    assert shown == winners[: len(shown)] and len(shown) >= 4  # more may have come since
    assert sum(1 for c in roads["big_road"]) + sum(c["ties"] for c in roads["big_road"]) >= len(shown) - 1
    assert people(env.url, "dealer").get("/console/api/tables/bac-1/roads").status_code == 403
    assert sam.get("/console/api/statistics?by=colour").status_code == 400


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_statistics_page_draws_tables_hours_and_roads(env, browser, size) -> None:
    env.wait(lambda: len(baccarat_winners(env)) >= 4, what="four baccarat rounds")
    ctx, page, _errors = signed_in_page(
        browser, env.url, size, "supervisor", "/console/stats", WAIT_S * 1000, ready=None
    )
    try:
        expect(page.locator("#by-table")).to_contain_text("bac-1")
        expect(page.locator("#by-table")).to_contain_text("w1")
        expect(page.locator("#by-dealer")).to_contain_text("(nobody signed in)")
        expect(page.locator("#over-time rect").first).to_be_attached()
        beads = page.locator("#roads-bac-1 svg[aria-label='bead plate'] circle")
        expect(beads.first).to_be_visible()
        assert beads.count() >= 4
        expect(page.locator("#roads-w1")).to_have_count(0)  # a roulette result names no winner
        check_screen(page, "statistics", size)
    finally:
        ctx.close()
