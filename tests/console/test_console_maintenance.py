"""Maintenance mode: a technician's device test (a test spin, a test deal) never becomes a published round.

A real studio on real uvicorn: an SS2 wheel simulated on a pty and a dealer-paced card table, driven through the
console's API with httpx as the pages do; what happened is read back from the journal and the feed.
"""

from __future__ import annotations

import time

import httpx
import pytest
from console_helpers import (
    PINS,
    DealerPacedCards,
    Person,
    add_users,
    assert_no_studio_threads,
    cards_table,
    start_custom,
    wheel_table,
)
from waiting import WAIT_S

from devices.events import CardDrawn
from studio.table import DeviceSlot, Table


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-maintenance") / "data"
    add_users(data)
    run = start_custom(
        data, [wheel_table("w1", speed=50, seed=3)], extra=lambda s: [cards_table(s, "cards-1")]
    )
    yield run
    run.server.stop()
    assert_no_studio_threads()


def maintenance(p: Person, table: str, on: bool, reason: str = "") -> httpx.Response:
    return p.post(f"/console/api/tables/{table}/maintenance", {"on": on, "reason": reason})


def action(p: Person, table: str, name: str, **body) -> httpx.Response:
    return p.post(f"/console/api/tables/{table}/actions/{name}", body)


def view(p: Person, table: str) -> dict:
    r = p.get(f"/console/api/tables/{table}")
    assert r.status_code == 200, r.text
    return r.json()["view"]


def table_feed(env, table_id: str) -> list[dict]:
    return [m for m in env.feed() if m.get("table_id") == table_id]


def deal(env, table_id: str, *cards: str) -> None:
    table = env.table(table_id)
    for c in cards:
        env.on_loop(
            lambda c=c: table.device_event(CardDrawn(device_id=f"{table_id}/shoe", card=c, payload=f"P-{c}"))
        )


def wheel_waits(env) -> bool:
    r = env.table("w1").round
    return env.wheel_state("w1") in (1, 5) and (r is None or r.is_final)


# --- the wheel: a test spin in maintenance --------------------------------------------------------------------


def test_a_test_spin_in_maintenance_is_journaled_and_never_published(env, people):
    tom = people(env.url, "technician")
    dana = people(env.url, "dealer")
    env.wait(lambda: wheel_waits(env), what="the wheel waiting for a start")
    # outside maintenance a test spin is a real game: it needs the strong confirmation
    r = tom.post("/console/api/devices/w1/wheel/command", {"command": "*K"})
    assert r.status_code == 409 and r.json()["detail"]["needs_confirm"]
    assert "NOT in maintenance" in r.json()["detail"]["warning"]

    r = maintenance(tom, "w1", True, "wheel settings and test spin")
    assert r.status_code == 200, r.text
    state = r.json()["maintenance"]
    assert state["on"] is True and state["by"] == "tom" and state["reason"] == "wheel settings and test spin"
    assert state["since"].endswith("Z")
    assert maintenance(tom, "w1", True, "again").status_code == 409  # already on: said, not journaled twice
    feed_before = len(table_feed(env, "w1"))
    rounds_before = env.table("w1").last_round_number

    # the dealer's screen: a banner, no round buttons
    v = view(dana, "w1")
    assert v["maintenance"]["on"] is True
    assert v["notice"]["level"] == "maintenance" and v["notice"]["title"] == "Table in maintenance"
    assert [c["id"] for c in v["choices"]] == ["incident"]

    # in maintenance the test spin needs no confirmation: nothing reaches the players
    # the env is the module's: the decisions before this spin are other tests' (which run in any order)
    decided_before = len(env.records("maintenance_decision"))
    r = tom.post("/console/api/devices/w1/wheel/command", {"command": "*K"})
    assert r.status_code == 200, r.text
    results = env.wait(
        lambda: [
            d for d in env.records("maintenance_decision")[decided_before:] if d["decision"] == "result_ready"
        ],
        what="the test spin's result",
    )
    number = results[-1]["result"]["number"]
    assert str(number) in {str(n) for n in range(37)}  # a pocket of the European wheel
    assert results[-1]["message"] == f"Maintenance: test result {number} - not published"
    assert results[-1]["device_id"] == "w1/wheel"
    kinds = [d["decision"] for d in env.records("maintenance_decision")[decided_before:]]
    assert "open_round" in kinds and kinds.index("open_round") < kinds.index("result_ready")
    # no round opened, nothing on the feed; the wheel's events are journaled as always
    table = env.table("w1")
    assert table.last_round_number == rounds_before and (table.round is None or table.round.is_final)
    assert len(table_feed(env, "w1")) == feed_before
    assert any(
        e["kind"] == "wheel_result" and str(e["number"]) == str(number) for e in env.records("device_event")
    )
    test = [
        x for x in env.records("console_action") if x["action"] == "device_command" and x["command"] == "*K"
    ]
    assert test[-1]["outcome"] == "done" and test[-1]["maintenance"] is True

    # shown to the technician (device log) and to the dealer (the banner's lines and the messages)
    log = tom.get("/console/api/devices/w1/wheel").json()
    assert any(e["kind"] == "maintenance_decision" and str(number) in e["summary"] for e in log["log"])
    assert log["maintenance"]["on"] is True
    v = view(dana, "w1")
    assert f"Maintenance: test result {number} - not published" in v["notice"]["lines"]
    assert any(e.get("what") == "maintenance_decision" for e in v["events"])

    # maintenance off: a fresh judge, and the next game is a normal certified round
    judge = table.judge
    r = maintenance(tom, "w1", False, "wheel tested")
    assert r.status_code == 200 and r.json()["maintenance"]["on"] is False
    assert table.judge is not judge
    assert maintenance(tom, "w1", False).status_code == 409  # not on
    env.wait(
        lambda: "start_game" in [c["id"] for c in view(dana, "w1")["choices"]], what="the start spin choice"
    )
    assert action(dana, "w1", "start_game").status_code == 200
    env.wait(lambda: env.round_state("w1") == "certified", what="a certified round")
    published = table_feed(env, "w1")[feed_before:]
    assert [m["kind"] for m in published] == ["betting_opened", "betting_closed", "result"]
    assert {m["round_number"] for m in published} == {rounds_before + 1}
    on_off = [m for m in env.records("maintenance")]
    assert [(m["on"], m["by"]) for m in on_off][-2:] == [(True, "tom"), (False, "tom")]


# --- a dealer-paced table -------------------------------------------------------------------------------------


def test_a_dealer_cannot_open_a_round_in_maintenance_and_a_test_deal_is_not_published(env, people):
    tom = people(env.url, "technician")
    dana = people(env.url, "dealer")
    # a round is open: maintenance is asked for and comes on when the round ends; the switch voids nothing
    assert action(dana, "cards-1", "open_round").status_code == 200
    assert maintenance(tom, "cards-1", True, "").status_code == 400  # a reason is needed
    r = maintenance(tom, "cards-1", True, "shoe reader check")
    assert r.status_code == 200 and r.json()["maintenance"]["pending"]["by"] == "tom"
    assert not r.json()["maintenance"]["on"]
    assert env.round_state("cards-1") == "betting_open"
    again = maintenance(tom, "cards-1", True, "shoe reader check")
    assert again.status_code == 409 and "already asked for" in again.json()["detail"]["error"]
    assert action(dana, "cards-1", "void", code="dealer_error").status_code == 200
    env.wait(lambda: env.table("cards-1").maintenance.on, what="maintenance on once the round ended")

    feed_before = len(table_feed(env, "cards-1"))
    rounds_before = env.table("cards-1").last_round_number
    r = action(dana, "cards-1", "open_round")
    assert r.status_code == 409 and "maintenance" in r.json()["detail"]["error"]
    with pytest.raises(ValueError, match="in maintenance"):
        env.on_loop(lambda: env.table("cards-1").open_round_by("dana"))
    # a test deal: the judge judges a test round, nothing is published
    deal(env, "cards-1", "QH", "7S", "TD", "AC")
    found = env.wait(
        lambda: [
            d
            for d in env.records("maintenance_decision")
            if d["decision"] == "result_ready" and "player" in (d.get("result") or {})
        ],
        what="the test deal's result",
    )
    assert found[-1]["result"] == {"player": ["QH", "TD"], "banker": ["7S", "AC"]}
    assert (
        found[-1]["message"].startswith("Maintenance: test result")
        and "not published" in found[-1]["message"]
    )
    assert len(table_feed(env, "cards-1")) == feed_before
    assert env.table("cards-1").last_round_number == rounds_before

    # off: the dealer opens a normal round, dealt and certified
    assert maintenance(tom, "cards-1", False, "shoe fine").status_code == 200
    assert action(dana, "cards-1", "open_round").status_code == 200
    assert action(dana, "cards-1", "close_betting").status_code == 200
    deal(env, "cards-1", "2H", "3S", "4D", "5C")
    env.wait(lambda: env.round_state("cards-1") == "certified", what="the real round")
    published = table_feed(env, "cards-1")[feed_before:]
    assert [m["kind"] for m in published] == ["betting_opened", "betting_closed", "result"]
    assert published[-1]["result"] == {"player": ["2H", "4D"], "banker": ["3S", "5C"]}


def test_only_technicians_and_admins_switch_maintenance(env, people):
    for key in ("dealer", "supervisor"):
        p = people(env.url, key)
        r = maintenance(p, "cards-1", True, "not mine to do")
        assert r.status_code == 403, (key, r.text)
    tom = people(env.url, "technician")
    r = tom.post("/console/api/tables/cards-1/maintenance", {"on": True, "reason": "no token"}, csrf=False)
    assert r.status_code == 403
    assert maintenance(tom, "nope", True, "no such table").status_code == 404
    assert not env.table("cards-1").in_maintenance
    ada = people(env.url, "admin")
    assert maintenance(ada, "cards-1", True, "admin check").status_code == 200
    assert maintenance(ada, "cards-1", False, "done").status_code == 200
    refused = [
        x for x in env.records("console_action") if x["action"] == "maintenance" and x["outcome"] == "refused"
    ]
    assert {x["by"] for x in refused} >= {PINS["dealer"][0], PINS["supervisor"][0]}


# --- a restart ----------------------------------------------------------------------------------------------------


def test_maintenance_survives_a_restart_and_auto_rounds_wait_for_it(tmp_path, people):
    data = tmp_path / "data"
    add_users(data)
    run = start_custom(data, [], extra=lambda s: [cards_table(s, "auto-1")])
    try:
        tom = people(run.url, "technician")
        assert maintenance(tom, "auto-1", True, "new shoe reader").status_code == 200
    finally:
        run.server.stop()  # (the module's studio still runs: its fixture checks that no thread is left)

    def auto_table(s) -> list[Table]:  # the same table, now with auto rounds
        slot = DeviceSlot("auto-1/shoe", "serial-shoe", "shoe", "SIM-SHOE")
        return [
            Table(
                "auto-1",
                DealerPacedCards(),
                s.journal,
                devices=[slot],
                betting_seconds=30,
                auto_round_seconds=0.2,
            )
        ]

    run = start_custom(data, [], extra=auto_table)
    try:
        table = run.table("auto-1")
        assert table.in_maintenance
        state = run.on_loop(table.snapshot)["maintenance"]
        assert state["on"] is True and state["by"] == "tom" and state["reason"] == "new shoe reader"
        tom = people(run.url, "technician")
        assert view(tom, "auto-1")["notice"]["level"] == "maintenance"
        time.sleep(0.8)  # several auto-round periods: none opens
        assert table.round is None and table.last_round_number == 0
        assert maintenance(tom, "auto-1", False, "reader works").status_code == 200
        run.wait(lambda: run.round_state("auto-1") == "betting_open", what="the auto round")
    finally:
        run.server.stop()


# --- the pages (Chromium, as test_console_e2e.py) -------------------------------------------------------------


def test_the_technician_toggles_maintenance_and_test_spins_on_the_wheel_page(env, browser):
    from playwright.sync_api import expect

    def sign_in(who: str, path: str):
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        ctx.set_default_timeout(int(WAIT_S * 1000))
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(env.url + f"/console/?next={path}")
        name, pin = PINS[who]
        page.fill("#username", name)
        page.fill("#pin", pin)
        page.click("#sign-in")
        page.wait_for_url(f"**{path}")
        return ctx, page, errors

    env.wait(lambda: wheel_waits(env), what="the wheel waiting for a start")
    tech_ctx, tech, tech_errors = sign_in("technician", "/console/tech/w1/wheel")
    dealer_ctx, dealer, dealer_errors = sign_in("dealer", "/console/table/w1")
    try:
        expect(tech.locator("#maintenance-state")).to_have_text("Live: real rounds")
        expect(tech.locator("#test-spin")).to_be_disabled()
        expect(tech.locator("#test-spin-warning")).to_contain_text("outside maintenance is a real game")
        tech.fill("#maintenance-reason", "browser test spin")
        tech.click("#maintenance-toggle")
        expect(tech.locator("#maintenance-state")).to_have_text("In maintenance")
        expect(tech.locator("#test-spin")).to_be_enabled()
        # the dealer's screen: the banner, the round button off with the reason
        expect(dealer.locator("#notice-title")).to_have_text("Table in maintenance")
        expect(dealer.locator("#action-maintenance-disabled")).to_be_disabled()
        expect(dealer.locator("#maintenance-reason")).to_contain_text("browser test spin")
        tech.click("#test-spin")
        expect(tech.locator("#test-spin-result")).to_contain_text("test result")
        expect(tech.locator("#maintenance-decisions")).to_contain_text("not published")
        expect(dealer.locator("#notice")).to_contain_text("not published")
        tech.fill("#maintenance-reason", "done")
        tech.click("#maintenance-toggle")
        expect(tech.locator("#maintenance-state")).to_have_text("Live: real rounds")
        expect(dealer.locator("#action-maintenance-disabled")).to_have_count(0)
        assert tech_errors == [] and dealer_errors == []
    finally:
        tech_ctx.close()
        dealer_ctx.close()
