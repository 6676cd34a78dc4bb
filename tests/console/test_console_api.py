"""The console's JSON API and WebSocket against a real studio on real uvicorn, with httpx and websockets.

Role checks are the API's, not only the pages': every refusal here is the server's answer.
"""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
import websockets
from console_helpers import (
    PINS,
    CheckedCards,
    Person,
    add_users,
    assert_no_studio_threads,
    cards_table,
    start_custom,
    wheel_table,
)
from waiting import WAIT_S

from dealer_ui.auth import SessionStore, Throttle
from devices.events import CardDrawn
from recognition.game import Hold


class Clock:
    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-api") / "data"
    add_users(data)
    clock = Clock()
    run = start_custom(
        data,
        [wheel_table("w1", mode=None, speed=20)],
        extra=lambda s: [cards_table(s), cards_table(s, "checked-1", game=CheckedCards())],
        sessions=SessionStore(clock=clock),
        throttle=Throttle(clock=clock),
    )
    run.clock = clock
    yield run
    run.server.stop()
    assert_no_studio_threads()


def action(p: Person, table: str, name: str, **body) -> httpx.Response:
    return p.post(f"/console/api/tables/{table}/actions/{name}", body)


def view(p: Person, table: str) -> dict:
    r = p.get(f"/console/api/tables/{table}")
    assert r.status_code == 200, r.text
    return r.json()["view"]


def choice_ids(v: dict) -> dict[str, dict]:
    return {c["id"]: c for c in v["choices"]}


def deal(env, table_id: str, *cards: str) -> None:
    table = env.table(table_id)
    for c in cards:
        env.on_loop(
            lambda c=c: table.device_event(CardDrawn(device_id=f"{table_id}/shoe", card=c, payload=f"P-{c}"))
        )


def end_round(p: Person, table_id: str = "cards-1") -> None:
    """End whatever round is open (by hand, with a supervisor), so the table can open the next one."""
    r = view(p, table_id)["round"]
    if r and r["state"] not in ("certified", "voided"):
        sam, pin = PINS["supervisor"]
        res = action(p, table_id, "void", code="dealer_error", approval={"username": sam, "secret": pin})
        assert res.status_code == 200, res.text


def fresh_round(env, p: Person, table_id: str = "cards-1") -> dict:
    """End whatever round is open and open a new one."""
    end_round(p, table_id)
    res = action(p, table_id, "open_round")
    assert res.status_code == 200, res.text
    return res.json()["view"]


# --- signing in ------------------------------------------------------------------------------------------


def test_sign_in_sets_a_private_cookie_and_is_journaled(env):
    name, pin = PINS["dealer"]
    with httpx.Client(base_url=env.url) as c:
        r = c.post("/console/api/login", json={"username": name.upper(), "secret": pin})
        assert r.status_code == 200, r.text
        cookie = r.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/console" in cookie
        me = r.json()
        assert me["username"] == name and me["role"] == "dealer" and "deal" in me["permissions"]
        assert pin not in r.text
        assert c.get("/console/api/me").json()["csrf"] == me["csrf"]
        # sign out ends the session on the server, not only in the browser
        token = c.cookies.get("studio_console")
        assert c.post("/console/api/logout", json={}, headers={"X-CSRF-Token": me["csrf"]}).status_code == 200
        assert httpx.get(env.url + "/console/api/me", cookies={"studio_console": token}).status_code == 401
    signins = [r for r in env.records("console_sign_in") if r["username"] == name]
    assert signins and signins[-1]["role"] == "dealer" and signins[-1]["ip"] == "127.0.0.1"
    assert any(r["username"] == name for r in env.records("console_sign_out"))


def test_wrong_pins_are_refused_then_slowed_down_even_for_the_right_pin(env):
    name, pin = PINS["dealer2"]
    with httpx.Client(base_url=env.url) as c:
        for _ in range(3):
            r = c.post("/console/api/login", json={"username": name, "secret": "000111"})
            assert r.status_code == 401 and r.json()["detail"]["error"] == "Wrong user name or PIN."
        r = c.post("/console/api/login", json={"username": name, "secret": "000111"})
        assert r.status_code == 401  # the 4th failure starts the slow-down
        r = c.post("/console/api/login", json={"username": name, "secret": pin})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1  # refused without checking the PIN
        env.clock.now += 1.5
        r = c.post("/console/api/login", json={"username": name, "secret": pin})
        assert r.status_code == 200, r.text
        # an unknown name is refused the same way as a wrong PIN
        r = c.post("/console/api/login", json={"username": "nobody-here", "secret": pin})
        assert r.status_code == 401 and r.json()["detail"]["error"] == "Wrong user name or PIN."
    failures = [r for r in env.records("console_sign_in_failed") if r["username"] == name]
    assert [f["reason"] for f in failures] == ["wrong_credentials"] * 4 + ["slowed_down"]
    env.clock.now += 1000  # forget this test's failures from 127.0.0.1


def test_posts_need_the_csrf_token_and_the_pages_origin(env, people):
    dana = people(env.url, "dealer")
    r = dana.post(
        "/console/api/tables/cards-1/actions/incident", {"category": "other", "text": "x y z"}, csrf=False
    )
    assert r.status_code == 403 and "security token" in r.text
    r = dana.client.post(
        "/console/api/tables/cards-1/actions/incident",
        json={"category": "other", "text": "abc"},
        headers={"X-CSRF-Token": dana.me["csrf"], "Origin": "http://evil.example"},
    )
    assert r.status_code == 403
    r = httpx.post(
        env.url + "/console/api/login",
        json={"username": "dana", "secret": "246810"},
        headers={"Origin": "http://evil.example"},
    )
    assert r.status_code == 403
    r = httpx.post(
        env.url + "/console/api/login",
        content=b'{"username": "dana", "secret": "246810"}',
        headers={"Content-Type": "text/plain"},
    )
    assert r.status_code in (400, 415, 422)  # never signed in from a form post


def test_sessions_expire_unless_someone_stays_signed_in(env, people):
    dana = people(env.url, "dealer")
    assert dana.get("/console/api/tables").status_code == 200
    env.clock.now += 3400  # nearly an idle hour: the live page is told, and offers to stay signed in
    token = dana.client.cookies.get("studio_console")

    async def first_session_message() -> dict:
        async with _ws(env, token, "tables=cards-1") as ws:
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
                if msg["type"] == "session":
                    return msg

    msg = asyncio.run(first_session_message())
    assert 150 <= msg["expires_in"] <= 200
    r = dana.post("/console/api/session")
    assert r.status_code == 200 and r.json()["expires_in"] == 3600
    env.clock.now += 3400
    assert dana.get("/console/api/tables").status_code == 200
    env.clock.now += 3601  # an idle hour
    r = dana.get("/console/api/tables")
    assert r.status_code == 401 and "sign in" in r.text.lower()


# --- roles ------------------------------------------------------------------------------------------------


def test_a_dealer_cannot_reach_technician_pages_or_api(env, people):
    dana = people(env.url, "dealer")
    assert dana.get("/console/api/devices").status_code == 403
    assert dana.get("/console/api/devices/w1/wheel").status_code == 403
    r = dana.post("/console/api/devices/w1/wheel/command", {"command": "*T N"})
    assert r.status_code == 403
    assert dana.post("/console/api/devices/w1/wheel/self-test", {"confirm": True}).status_code == 403
    page = dana.get("/console/tech")
    assert page.status_code == 403 and "Not allowed for your role" in page.text
    assert dana.get("/console/tech/w1/wheel").status_code == 403
    assert dana.get("/console/api/users").status_code == 403
    new_user = {"username": "eve", "role": "admin", "secret": "eve-pass-123"}
    assert dana.post("/console/api/users", new_user).status_code == 403
    # and nothing was sent to the wheel
    assert not [c for c in env.records("device_command") if c.get("by") == "dana"]
    tried = [
        x for x in env.records("console_action") if x["by"] == "dana" and x["action"] == "device_command"
    ]
    assert tried and all(x["outcome"] == "refused" and x["status"] == 403 for x in tried)


def test_a_technician_cannot_act_on_a_round(env, people):
    tom = people(env.url, "technician")
    assert tom.get("/console/api/devices").status_code == 200
    for name in ("open_round", "void", "manual_result", "close_betting"):
        r = action(tom, "cards-1", name, code="dealer_error")
        assert r.status_code == 403, (name, r.text)
    ids = choice_ids(view(tom, "cards-1"))
    assert set(ids) == {"incident"}  # technicians may still report an incident


def test_without_a_session_pages_redirect_and_the_api_refuses(env):
    with httpx.Client(base_url=env.url) as c:
        assert c.get("/console/api/tables").status_code == 401
        r = c.get("/console/table/w1")
        assert r.status_code == 303 and r.headers["location"] == "/console/?next=/console/table/w1"
        assert c.get("/console/").status_code == 200
        assert c.get("/console/static/../router.py").status_code == 404
        assert c.get("/console/static/app.css").status_code == 200


# --- a dealer-paced round ------------------------------------------------------------------------------------


def test_dealer_paced_round_open_close_cards_certified(env, people):
    dana = people(env.url, "dealer")
    v = fresh_round(env, dana)
    r = v["round"]
    assert r["state"] == "betting_open"
    closes = v["betting_closes_at"]
    assert closes is not None and 25 <= (time_of(closes) - time_of(v["server_time"])) <= 30.5
    ids = choice_ids(v)
    assert "close_betting" in ids and ids["void"]["needs_approval"] is False and "open_round" not in ids
    assert "manual_result" not in ids  # betting is still open: nothing to enter by hand
    assert action(dana, "cards-1", "open_round").status_code == 409  # a round is open already
    res = action(dana, "cards-1", "close_betting")
    assert res.status_code == 200, res.text
    v = res.json()["view"]
    assert v["round"]["state"] == "in_play" and v["betting_closes_at"] is None
    ids = choice_ids(v)
    assert ids["void"]["needs_approval"] is True and ids["manual_result"]["needs_approval"] is True
    deal(env, "cards-1", "AS", "KH", "9D", "2C")
    env.wait(lambda: env.round_state("cards-1") == "certified", what="the cards result")
    v = view(dana, "cards-1")
    assert v["round"]["result"] == {"player": ["AS", "9D"], "banker": ["KH", "2C"]}
    assert [e["data"]["card"] for e in v["round_events"] if e["kind"] == "card_drawn"] == [
        "AS",
        "KH",
        "9D",
        "2C",
    ]
    assert "open_round" in choice_ids(v) and "shoe_change" in choice_ids(v)
    assert v["recent_rounds"][0]["round_id"] == r["round_id"]
    published = [m for m in env.feed() if m["kind"] == "result" and m["round_id"] == r["round_id"]]
    assert published and published[0]["result"]["player"] == ["AS", "9D"]
    opened = [x for x in env.records("operator_action") if x["action"] == "open_round" and x["by"] == "dana"]
    assert opened


def time_of(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso).timestamp()


def test_choices_that_the_rules_do_not_allow_now_are_refused(env, people):
    dana = people(env.url, "dealer")
    v = view(dana, "cards-1")
    if v["round"] and v["round"]["state"] not in ("certified", "voided"):
        fresh_round(env, dana)
        action(dana, "cards-1", "close_betting")
        deal(env, "cards-1", "2S", "3S", "4S", "5S")
        env.wait(lambda: env.round_state("cards-1") == "certified", what="a result")
    r = action(dana, "cards-1", "close_betting")
    assert r.status_code == 409 and "not possible now" in r.json()["detail"]["error"]
    r = action(dana, "cards-1", "void", code="dealer_error")
    assert r.status_code == 409
    r = action(dana, "cards-1", "release", code="anything")
    assert r.status_code == 409
    assert action(dana, "cards-1", "no_such_action").status_code == 404
    refused = [x for x in env.records("console_action") if x["by"] == "dana" and x["outcome"] == "refused"]
    assert [x["action"] for x in refused[-4:]] == ["close_betting", "void", "release", "no_such_action"]
    assert all(x["status"] == 409 and "not possible now" in x["message"] for x in refused[-4:-1])


def test_a_held_round_says_why_and_offers_only_what_the_rules_allow(env, people):
    dana = people(env.url, "dealer")
    fresh_round(env, dana)
    action(dana, "cards-1", "close_betting")
    table = env.table("cards-1")
    message = "The shoe saw a card go by but could not read it. Nothing is paid until it is checked."
    env.on_loop(lambda: table.apply(Hold(code="card_unreadable", message=message)))
    v = view(dana, "cards-1")
    assert v["notice"]["level"] == "hold" and v["notice"]["title"] == "Round held"
    assert message in v["notice"]["lines"]
    ids = choice_ids(v)
    assert "release" not in ids  # the game does not let a dealer clear this hold alone
    assert ids["void"]["needs_approval"] and ids["manual_result"]["needs_approval"]
    assert action(dana, "cards-1", "release", code="card_unreadable").status_code == 409
    # a game that lets the dealer confirm this hold gets the button, and the API accepts it
    table.game.dealer_releasable_holds = ("card_unreadable",)
    try:
        ids = choice_ids(view(dana, "cards-1"))
        assert ids["release"]["code"] == "card_unreadable" and not ids["release"]["needs_approval"]
        res = action(dana, "cards-1", "release", code="card_unreadable")
        assert res.status_code == 200, res.text
        assert res.json()["view"]["round"]["holds"] == []
    finally:
        del table.game.dealer_releasable_holds


def test_a_table_with_an_opening_check_opens_only_once_it_passed(env, people):
    dana, tom = people(env.url, "dealer"), people(env.url, "technician")
    v = view(dana, "checked-1")
    assert v["notice"]["title"] == "Opening check needed"
    assert "open_round" not in choice_ids(v) and "start_opening_check" in choice_ids(v)
    assert action(dana, "checked-1", "open_round").status_code == 409
    assert "start_opening_check" in choice_ids(view(tom, "checked-1"))  # a technician may run it too
    assert action(tom, "checked-1", "start_opening_check").status_code == 200
    v = view(dana, "checked-1")
    assert v["notice"]["title"] == "Opening check running" and "finish_opening_check" in choice_ids(v)
    deal(env, "checked-1", "AS")
    res = action(tom, "checked-1", "finish_opening_check")
    assert res.status_code == 200 and res.json()["result"]["ok"] is False
    assert "1 of 2 test cards read" in view(dana, "checked-1")["notice"]["lines"][0]
    assert action(dana, "checked-1", "open_round").status_code == 409
    action(tom, "checked-1", "start_opening_check")
    deal(env, "checked-1", "AS", "KD")
    res = action(tom, "checked-1", "finish_opening_check")
    assert res.json()["result"]["ok"] is True
    ids = choice_ids(res.json()["view"])
    assert ids["start_opening_check"]["label"] == "Check again"
    assert action(dana, "checked-1", "open_round").status_code == 200
    checks = env.records("opening_check")
    assert [c["report"]["ok"] for c in checks] == [False, True] and checks[-1]["by"] == "tom"


# --- four eyes ---------------------------------------------------------------------------------------------------


def test_void_after_betting_closed_needs_a_supervisor_signing_in_on_the_same_request(env, people):
    dana = people(env.url, "dealer")
    v = fresh_round(env, dana)
    round_id = v["round"]["round_id"]
    action(dana, "cards-1", "close_betting")
    r = action(dana, "cards-1", "void", code="misdeal")
    assert r.status_code == 409 and r.json()["detail"]["needs_approval"] is True
    dave, dave_pin = PINS["dealer2"]
    r = action(dana, "cards-1", "void", code="misdeal", approval={"username": dave, "secret": dave_pin})
    assert r.status_code == 403 and "only a supervisor" in r.text
    dana_name, dana_pin = PINS["dealer"]
    r = action(dana, "cards-1", "void", code="misdeal", approval={"username": dana_name, "secret": dana_pin})
    assert r.status_code == 403 and "second person" in r.text
    sam, sam_pin = PINS["supervisor"]
    r = action(dana, "cards-1", "void", code="misdeal", approval={"username": sam, "secret": "111222"})
    assert r.status_code == 403 and "Wrong user name or PIN" in r.text  # the dealer stays signed in
    assert dana.get("/console/api/me").status_code == 200
    assert env.round_state("cards-1") == "in_play"  # nothing happened
    r = action(dana, "cards-1", "void", code="not_a_reason", approval={"username": sam, "secret": sam_pin})
    assert r.status_code == 400
    r = action(
        dana,
        "cards-1",
        "void",
        code="misdeal",
        note="two cards came out together",
        approval={"username": sam, "secret": sam_pin},
    )
    assert r.status_code == 200, r.text
    assert r.json()["view"]["round"]["state"] == "voided"
    void = next(m for m in env.feed() if m["kind"] == "void" and m["round_id"] == round_id)
    assert void["source"] == {"type": "manual", "people": ["dana", "sam"]}
    assert void["reason"]["code"] == "misdeal" and "two cards came out together" in void["reason"]["message"]
    ops = [
        x for x in env.records("operator_action") if x["action"] == "void" and x.get("approved_by") == "sam"
    ]
    assert ops and ops[-1]["by"] == "dana"
    approvals = [
        x for x in env.records("console_approval") if x["approver"] == "sam" and x["action"] == "void"
    ]
    assert approvals[-1]["outcome"] == "approved" and approvals[-1]["by"] == "dana"
    env.clock.now += 1000  # forget the failed approval


def test_manual_result_and_correction_carry_both_names(env, people):
    dana = people(env.url, "dealer")
    sam, sam_pin = PINS["supervisor"]
    v = fresh_round(env, dana)
    round_id = v["round"]["round_id"]
    action(dana, "cards-1", "close_betting")
    r = action(
        dana,
        "cards-1",
        "manual_result",
        result={"player": ["AS", "2S"], "banker": ["3S", "4S"]},
        reason="shoe failed",
    )
    assert r.status_code == 409 and r.json()["detail"]["needs_approval"]
    r = action(
        dana,
        "cards-1",
        "manual_result",
        result={"cards": []},
        reason="shoe failed",
        approval={"username": sam, "secret": sam_pin},
    )
    assert r.status_code == 409 and "player" in r.text  # the game's own check of the result
    r = action(
        dana,
        "cards-1",
        "manual_result",
        result={"player": ["AS", "2S"], "banker": ["3S", "4S"]},
        reason="shoe failed",
        approval={"username": sam, "secret": sam_pin},
    )
    assert r.status_code == 200, r.text
    assert r.json()["view"]["round"]["state"] == "certified"
    result = next(m for m in env.feed() if m["kind"] == "result" and m["round_id"] == round_id)
    assert result["source"]["type"] == "manual" and result["source"]["people"] == ["dana", "sam"]
    assert result["source"]["reason"] == "shoe failed"
    # the correction of that certified result
    r = action(
        dana,
        "cards-1",
        "correct",
        round_id=round_id,
        result={"player": ["AS", "2S"], "banker": ["3S", "5S"]},
        reason="camera review",
        approval={"username": sam, "secret": sam_pin},
    )
    assert r.status_code == 200, r.text
    corr = next(m for m in env.feed() if m["kind"] == "correction" and m["round_id"] == round_id)
    assert corr["version"] == 2 and corr["source"]["people"] == ["dana", "sam"]
    assert corr["reason"]["message"] == "camera review"
    assert view(dana, "cards-1")["recent_rounds"][0]["version"] == 2
    r = action(
        dana,
        "cards-1",
        "correct",
        round_id="not-recent",
        result={"player": [], "banker": []},
        reason="x y z",
        approval={"username": sam, "secret": sam_pin},
    )
    assert r.status_code == 400


def test_incidents_are_journaled_with_who_reported_them(env, people):
    tom = people(env.url, "technician")
    r = action(tom, "cards-1", "incident", category="device", text="Shoe reader light flickers")
    assert r.status_code == 200, r.text
    assert action(tom, "cards-1", "incident", category="device", text="").status_code == 400
    assert action(tom, "cards-1", "incident", category="nonsense", text="abc def").status_code == 400
    incident = [x for x in env.records("console_incident") if x["by"] == "tom"]
    assert incident[-1] == {"category": "device", "text": "Shoe reader light flickers", "by": "tom"}
    assert any(e.get("what") == "incident" for e in view(tom, "cards-1")["events"])
    done = [x for x in env.records("console_action") if x["action"] == "incident" and x["by"] == "tom"]
    assert [x["outcome"] for x in done] == ["done", "refused", "refused"]


# --- devices ---------------------------------------------------------------------------------------------------


def test_technician_commands_are_checked_confirmed_sent_and_logged(env, people):
    tom = people(env.url, "technician")
    devices = tom.get("/console/api/devices").json()
    wheel = next(d for d in devices if d["device_id"] == "w1/wheel")
    assert wheel["family"] == "wheel" and wheel["connected"] and wheel["self_test"] is True
    assert "counters" in wheel and wheel["kind"] == "cammegh-ss2" and wheel["serial_number"] == "SIM-w1"
    r = tom.post("/console/api/devices/w1/wheel/command", {"command": "*T N"})
    assert r.status_code == 200 and r.json()["sent"] == "*T N"
    r = tom.post("/console/api/devices/w1/wheel/command", {"command": "*Z nonsense"})
    assert r.status_code == 400
    r = tom.post("/console/api/devices/w1/wheel/command", {"command": "*P 0"})
    assert (
        r.status_code == 409
        and r.json()["detail"]["needs_confirm"]
        and "voided" in r.json()["detail"]["warning"]
    )
    r = tom.post("/console/api/devices/w1/wheel/self-test", {})
    assert r.status_code == 409 and r.json()["detail"]["needs_confirm"]
    r = tom.post("/console/api/devices/w1/wheel/self-test", {"confirm": True})
    assert r.status_code == 200 and r.json()["sent"] == "*F"
    assert tom.post("/console/api/devices/cards-1/shoe/self-test", {"confirm": True}).status_code == 409
    assert tom.get("/console/api/devices/w1/nothing").status_code == 404

    def log() -> list[dict]:
        return tom.get("/console/api/devices/w1/wheel").json()["log"]

    # the wheel's answers come back into the device's log: the setting, and BUSY for a self-test while running
    env.wait(
        lambda: any(e["kind"] == "wheel_reply" and e["data"]["text"].startswith("n ") for e in log()),
        what="the *T N reply",
    )
    env.wait(
        lambda: any(e["kind"] == "wheel_reply" and e["data"]["raw"] == "*F BUSY" for e in log()),
        what="the self-test answer",
    )
    assert any(e["kind"] == "command" and e["summary"] == "tom sent *T N" for e in log())
    sent = [c for c in env.records("device_command") if c.get("by") == "tom"]
    assert [c["command"] for c in sent] == ["*T N", "*F"]


def test_technician_page_shows_what_is_needed_per_device(env, people):
    tom = people(env.url, "technician")
    detail = tom.get("/console/api/devices/w1/wheel").json()
    assert detail["family"]["page"] == "wheel"
    letters = [s["letter"] for s in detail["family"]["page_data"]["settings"]]
    assert letters[:3] == ["d", "c", "p"] and "n" in letters
    health = detail["device"]
    for key in ("connected", "last_line", "counters", "device"):
        assert key in health
    shoe = tom.get("/console/api/devices/cards-1/shoe").json()
    assert shoe["family"]["id"] == "cards" and shoe["family"]["page"] == "cards"
    assert shoe["device"]["connected"] is False
    # a shoe with no driver: the decoder page says what it cannot show instead of guessing
    assert shoe["page"]["vendor"] is None and shoe["page"]["missing"] == ["vendor_table"]


# --- live updates --------------------------------------------------------------------------------------------


def _ws(env, token: str | None, query: str, origin: str | None = None):
    headers = {}
    if token:
        headers["Cookie"] = f"studio_console={token}"
    headers["Origin"] = origin or env.url
    return websockets.connect(
        env.url.replace("http", "ws") + "/console/ws?" + query, additional_headers=headers, open_timeout=10
    )


def _opened(got: list[dict]) -> bool:
    return any(
        m["type"] == "event" and m["what"] == "round" and m["data"]["transition"] == "open_round" for m in got
    )


def _betting_views(got: list[dict]) -> list[dict]:
    return [
        m
        for m in got
        if m["type"] == "table" and m["view"]["round"] and m["view"]["round"]["state"] == "betting_open"
    ]


def test_live_updates_follow_the_table_and_refuse_strangers(env, people):
    dana = people(env.url, "dealer")
    token = dana.client.cookies.get("studio_console")
    end_round(dana)

    async def follow() -> list[dict]:
        got: list[dict] = []
        async with _ws(env, token, "tables=cards-1") as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
            assert first["type"] == "session" and first["expires_in"] > 3000
            first = json.loads(await asyncio.wait_for(ws.recv(), WAIT_S))
            assert first["type"] == "table" and first["view"]["table_id"] == "cards-1"
            opened = await asyncio.to_thread(action, dana, "cards-1", "open_round")
            assert opened.status_code == 200, opened.text
            # the round's event and the table's new view are two pushes: either may come first
            deadline = time.monotonic() + WAIT_S
            while time.monotonic() < deadline and not (_opened(got) and _betting_views(got)):
                got.append(json.loads(await asyncio.wait_for(ws.recv(), WAIT_S)))
        return got

    got = asyncio.run(follow())
    assert _opened(got)
    assert _betting_views(got)[0]["view"]["choices"]

    async def refused(token, query, origin=None):
        try:
            async with _ws(env, token, query, origin) as ws:
                await asyncio.wait_for(ws.recv(), WAIT_S)
        except websockets.ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd else None
        except websockets.InvalidStatus as exc:
            return exc.response.status_code
        return "open"

    assert asyncio.run(refused(None, "tables=cards-1")) == 4401
    assert asyncio.run(refused(token, "devices=1")) == 4403  # a dealer does not get device health
    assert asyncio.run(refused(token, "tables=nope")) == 4403
    assert asyncio.run(refused(token, "tables=cards-1", origin="http://evil.example")) in (403, 1008)


# --- users --------------------------------------------------------------------------------------------------------


def test_admin_adds_and_disables_users_and_their_sessions_end(env, people):
    ada = people(env.url, "admin")
    assert (
        ada.post("/console/api/users", {"username": "eve", "role": "dealer", "secret": "12"}).status_code
        == 400
    )
    r = ada.post("/console/api/users", {"username": "eve", "role": "dealer", "secret": "482913"})
    assert r.status_code == 200, r.text
    eve = Person(env.url, "eve", "482913")
    try:
        assert eve.get("/console/api/tables").status_code == 200
        r = ada.post("/console/api/users/eve/disabled", {"disabled": True})
        assert r.status_code == 200 and r.json()["sessions_ended"] == 1
        assert eve.get("/console/api/tables").status_code == 401
        again = httpx.post(env.url + "/console/api/login", json={"username": "eve", "secret": "482913"})
        assert again.status_code == 401
    finally:
        eve.close()
    assert ada.post("/console/api/users/ada/disabled", {"disabled": True}).status_code == 400
    users = {u["username"]: u for u in ada.get("/console/api/users").json()}
    assert users["eve"]["disabled"] is True and "secret_hash" not in users["eve"]
    assert [x["action"] for x in env.records("console_user") if x["username"] == "eve"] == ["add", "disable"]
    env.clock.now += 1000
