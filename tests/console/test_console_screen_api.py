"""The server side of the dealer's screen fixes, over real HTTP: a void claimed as started during betting is
checked against the round (its id, no result yet, the grace after the betting timer), and maintenance asked for
while a round is open is pending, journaled, and comes on when the round ends."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from console_helpers import (
    Person,
    add_users,
    assert_no_studio_threads,
    cards_table,
    no_round_and_no_maintenance,
    start_custom,
)

from dealer_ui.actions import VOID_STARTED_GRACE_S
from devices.events import CardDrawn

BETTING_S = 30


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-screen-api") / "data"
    add_users(data)
    run = start_custom(data, [], extra=lambda s: [cards_table(s, "cards-1", betting_seconds=BETTING_S)])
    yield run
    run.server.stop()
    assert_no_studio_threads()


@pytest.fixture
def table(env):
    yield env.table("cards-1")
    no_round_and_no_maintenance(env, "cards-1")


def void(p: Person, **body: Any):
    return p.post("/console/api/tables/cards-1/actions/void", {"code": "dealer_error", **body})


def opened_then_closed(env: Any, table: Any) -> tuple[str, str]:
    env.on_loop(lambda: table.open_round_by("dana"))
    round_id = table.round.round_id
    env.on_loop(lambda: table.close_betting_by("timer"))
    return round_id, table.round.state.value


def test_a_void_seen_in_betting_of_this_round_needs_no_supervisor(env, table, people):
    dana = people(env.url, "dealer")
    round_id, state = opened_then_closed(env, table)
    assert void(dana).status_code == 409  # no claim: after betting closed, four eyes
    r = void(dana, seen_round_id=round_id, seen_state="betting_open")
    assert r.status_code == 200, r.text
    assert env.round_state("cards-1") == "voided"
    record = [x for x in env.records("console_action") if x["action"] == "void"][-1]
    assert record["outcome"] == "done" and record["started_in"] == "betting_open"
    assert record["state_at_void"] == state


def test_a_claim_for_another_round_or_state_is_not_taken(env, table, people):
    dana = people(env.url, "dealer")
    round_id, _ = opened_then_closed(env, table)
    for claim in (
        {"seen_round_id": "another-round", "seen_state": "betting_open"},
        {"seen_round_id": round_id, "seen_state": "in_play"},
    ):
        r = void(dana, **claim)
        assert r.status_code == 409 and r.json()["detail"]["needs_approval"], claim
    assert env.round_state("cards-1") != "voided"


def test_a_claim_after_the_grace_or_with_a_result_waiting_is_not_taken(env, table, people):
    dana = people(env.url, "dealer")
    round_id, _ = opened_then_closed(env, table)
    real = table.clock
    table.clock = lambda: real() + timedelta(seconds=BETTING_S + VOID_STARTED_GRACE_S + 5)
    try:
        r = void(dana, seen_round_id=round_id, seen_state="betting_open")
        assert r.status_code == 409 and r.json()["detail"]["needs_approval"]
    finally:
        table.clock = real
    # a result waiting behind a hold: the void is a supervisor's, whatever the screen saw
    env.on_loop(lambda: table.holds.hold("card_misread", "a card was misread"))
    for card in ("QH", "7S", "TD", "AC"):
        env.on_loop(
            lambda c=card: table.device_event(CardDrawn(device_id="cards-1/shoe", card=c, payload=f"P-{c}"))
        )
    env.wait(lambda: table.round.result is not None, what="the result waiting")
    r = void(dana, seen_round_id=round_id, seen_state="betting_open")
    assert r.status_code == 409 and r.json()["detail"]["needs_approval"]


def test_maintenance_asked_for_during_a_round_is_pending_until_it_ends(env, table, people):
    tom = people(env.url, "technician")
    dana = people(env.url, "dealer")
    env.on_loop(lambda: table.open_round_by("dana"))
    number = table.round.round_number
    r = tom.post("/console/api/tables/cards-1/maintenance", {"on": True, "reason": "shoe reader check"})
    assert r.status_code == 200, r.text
    state = r.json()["maintenance"]
    assert state["on"] is False and state["pending"]["round_number"] == number
    view = dana.get("/console/api/tables/cards-1").json()["view"]
    assert view["maintenance"]["pending"]["by"] == "tom"
    assert "open_round" not in [c["id"] for c in view["choices"]]
    assert any("Maintenance asked for (tom)" in (e.get("message") or "") for e in view["events"])
    assert void(dana).status_code == 200  # betting open: the dealer alone
    env.wait(lambda: table.maintenance.on, what="maintenance on once the round ended")
    on = env.records("maintenance")[-1]
    assert on["on"] and on["requested_at"] == env.records("maintenance_requested")[-1]["requested_at"]
    r = dana.post("/console/api/tables/cards-1/actions/open_round")
    assert r.status_code == 409 and "maintenance" in r.json()["detail"]["error"]


def test_no_round_opens_while_maintenance_is_pending(env, table, people):
    tom = people(env.url, "technician")
    env.on_loop(lambda: table.open_round_by("dana"))
    assert (
        tom.post("/console/api/tables/cards-1/maintenance", {"on": True, "reason": "check"}).status_code
        == 200
    )
    with pytest.raises(ValueError, match="still open"):
        env.on_loop(lambda: table.open_round_by("dana"))
    assert "goes into maintenance when round" in (table.maintenance.refusal() or "")
    r = tom.post("/console/api/tables/cards-1/maintenance", {"on": False, "reason": "not now"})
    assert r.status_code == 200 and r.json()["maintenance"]["pending"] is None
    cancelled = env.records("maintenance_request_cancelled")[-1]
    assert cancelled["cancelled_by"] == "tom" and cancelled["note"] == "not now"
    assert table.maintenance.refusal() is None
