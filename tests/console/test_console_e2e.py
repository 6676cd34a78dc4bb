"""End to end in Debian's Chromium: the studio's own app (app.api.create_app) with simulated SS2 wheels.

A dealer runs a roulette round to a certified result, voids a round with a reason, enters a result by hand
with a supervisor's approval on the same screen; a dealer cannot reach the technician's pages; screenshots
at 1280x800 and 1920x1080 go to $STUDIO_TEST_ARTIFACTS/console/; touch targets, contrast and hover are
checked.
"""

from __future__ import annotations

import re

import pytest
from console_helpers import PINS, add_users, assert_no_studio_threads, check_screen, start_real, wheel_table
from playwright.sync_api import Page, expect
from waiting import WAIT_S

SIZES = [(1280, 800), (1920, 1080)]
TIMEOUT = int(WAIT_S * 1000)  # ms


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-e2e") / "data"
    add_users(data)
    run = start_real(
        data,
        [
            wheel_table("r1", seed=1),  # a round to a certified result
            wheel_table("r2", seed=2),  # a void while betting is open
            wheel_table(
                "r3", seed=3, settings={"no_ball_tolerance_s": 600}
            ),  # the wheel loses the ball: by hand
            wheel_table("r4", seed=4, mode=None),  # arcade: rounds run by themselves
        ],
    )
    yield run
    run.server.stop()
    assert_no_studio_threads()


@pytest.fixture
def context(browser):
    made = []

    def make(width: int = 1280, height: int = 800):
        ctx = browser.new_context(viewport={"width": width, "height": height})
        ctx.set_default_timeout(TIMEOUT)
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        ctx.close()


def sign_in(
    context, env, who: str, next_path: str | None = None, size: tuple[int, int] = (1280, 800)
) -> Page:
    page = context(*size).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    url = env.url + "/console/" + (f"?next={next_path}" if next_path else "")
    page.goto(url)
    name, pin = PINS[who]
    page.fill("#username", name)
    page.fill("#pin", pin)
    page.click("#sign-in")
    if next_path:
        page.wait_for_url(f"**{next_path}")
    return page


def wait_wheel_waiting(env, table_id: str) -> None:
    env.wait(lambda: env.wheel_state(table_id) in (1, 5), what=f"the {table_id} wheel waiting for a start")


def feed_of(env, table_id: str, kind: str) -> list[dict]:
    return [m for m in env.feed() if m["table_id"] == table_id and m["kind"] == kind]


# --- the dealer's rounds -----------------------------------------------------------------------------------


def test_dealer_runs_a_roulette_round_to_a_certified_result(env, context):
    env.studio.simulator("r1").force_next_number("17")
    page = sign_in(context, env, "dealer", "/console/table/r1")
    expect(page.locator("#who")).to_have_text("dana (dealer)")
    wait_wheel_waiting(env, "r1")
    page.locator("#action-start_game").click()
    expect(page.locator("#phase")).to_have_attribute(
        "data-state", re.compile("betting_open|in_play|certified")
    )
    expect(page.locator("#certified")).to_be_visible()
    expect(page.locator("#result-number")).to_have_text("17")
    expect(page.locator("#recent-strip")).to_contain_text("17")
    expect(page.locator("#device-events")).to_contain_text("number 17")
    result = feed_of(env, "r1", "result")[-1]
    assert result["result"] == {"number": "17", "color": "black"}
    assert result["source"]["type"] == "device" and result["source"]["serial_number"] == "SIM-r1"
    start = [
        x for x in env.records("operator_action") if x["action"] == "device_command" and x["by"] == "dana"
    ]
    assert start and start[-1]["command"] == "start_spin"  # the neutral command; the driver sends *K
    assert page.errors == []


def test_dealer_voids_a_round_with_a_reason(env, context):
    env.studio.simulator("r2").inject(
        "launch_retry", reports=100_000
    )  # the ball never launches: bets stay open
    page = sign_in(context, env, "dealer", "/console/table/r2")
    wait_wheel_waiting(env, "r2")
    page.locator("#action-start_game").click()
    expect(page.locator("#phase")).to_have_attribute("data-state", "betting_open")
    expect(page.locator("#table-events")).to_contain_text("launching the ball again")
    page.locator("#action-void").click()
    dialog = page.locator("dialog[open]")
    expect(dialog.locator(".approval")).to_be_hidden()  # betting is open: the dealer voids alone
    dialog.locator("#dialog-submit").click()
    expect(dialog.locator(".error")).to_have_text("Choose a reason.")
    dialog.locator("#reason-foreign_object").click()
    dialog.locator("#void-note").fill("a chip fell into the wheel")
    dialog.locator("#dialog-submit").click()
    expect(page.locator("#phase")).to_have_attribute("data-state", "voided")
    expect(page.locator("#void-code")).to_contain_text("foreign_object")
    expect(page.locator("#notice")).to_contain_text("a chip fell into the wheel")
    void = feed_of(env, "r2", "void")[-1]
    assert void["source"] == {"type": "manual", "people": ["dana"]}
    assert void["reason"]["code"] == "foreign_object"
    assert not feed_of(env, "r2", "result")
    assert page.errors == []


def test_supervisor_approves_a_manual_result_on_the_dealers_screen(env, context):
    env.studio.simulator("r3").inject("no_ball", stop_after=100_000)  # the wheel loses sight of the ball
    page = sign_in(context, env, "dealer", "/console/table/r3")
    wait_wheel_waiting(env, "r3")
    page.locator("#action-start_game").click()
    expect(page.locator("#phase")).to_have_attribute("data-state", "in_play")
    expect(page.locator("#wheel-live")).to_contain_text("no_ball")  # the neutral warning
    page.locator("#action-manual_result").click()
    dialog = page.locator("dialog[open]")
    dialog.locator("#pocket-23").click()
    expect(dialog.locator("#chosen-number")).to_have_text("Number 23 (red)")
    dialog.locator("#result-reason").fill("the wheel lost the ball; it is in 23")
    # the wheel is still connected: the dealer declares it failed for this round (studio/late_readings.py)
    dialog.locator("#device-failed").check()
    dialog.locator("#device-failed-reason").fill("the wheel does not see the ball")
    dialog.locator("[name=approver]").fill("sam")
    dialog.locator("[name=approver-pin]").fill("000000")
    dialog.locator("#dialog-submit").click()
    expect(dialog.locator(".error")).to_have_text("Wrong user name or PIN.")
    assert page.evaluate("() => document.querySelector('[name=approver-pin]').value") == ""
    dialog.locator("[name=approver]").fill("sam")
    for digit in PINS["supervisor"][1]:  # the supervisor types on the on-screen keypad
        dialog.locator(".approval .keypad button", has_text=re.compile(f"^{digit}$")).click()
    dialog.locator("#dialog-submit").click()
    expect(page.locator("#certified")).to_be_visible()
    expect(page.locator("#result-number")).to_have_text("23")
    expect(page.locator("#notice")).to_contain_text("Entered by hand by dana and sam")
    result = feed_of(env, "r3", "result")[-1]
    assert result["result"] == {"number": "23", "color": "red"}
    assert result["source"]["type"] == "manual" and result["source"]["people"] == ["dana", "sam"]
    op = [x for x in env.records("operator_action") if x["action"] == "manual_result"][-1]
    assert op["by"] == "dana" and op["approved_by"] == "sam"
    assert page.errors == []


# --- roles ----------------------------------------------------------------------------------------------------


def test_a_dealer_cannot_reach_technician_pages_and_the_api_refuses_too(env, context):
    page = sign_in(context, env, "dealer", "/console/tables")
    expect(page.locator("header nav")).not_to_contain_text("Devices")
    page.goto(env.url + "/console/tech")
    expect(page.locator("#forbidden")).to_have_text("Not allowed for your role")
    page.goto(env.url + "/console/tech/r1/wheel")
    expect(page.locator("#forbidden")).to_be_visible()
    status = page.evaluate("""async () => {
        const me = await (await fetch('/console/api/me')).json();
        const get = await fetch('/console/api/devices');
        const post = await fetch('/console/api/devices/r1/wheel/command', {method: 'POST',
            headers: {'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf},
            body: JSON.stringify({command: '*T N'})});
        return [get.status, post.status];
    }""")
    assert status == [403, 403]


def test_a_technician_sees_devices_but_no_dealer_choices(env, context):
    page = sign_in(context, env, "technician", "/console/tech")
    row = page.locator("#device-r4-wheel")
    expect(row).to_contain_text("Connected")
    expect(row).to_contain_text("*X;")
    page.goto(env.url + "/console/table/r4")
    expect(page.locator("#actions button")).to_have_count(1)
    expect(page.locator("#action-incident")).to_be_visible()
    page.goto(env.url + "/console/tech/r4/wheel")
    page.locator("#read-identity").click()
    expect(page.locator("#firmware")).to_contain_text("firmware 2.52")
    page.locator("#wheel-settings #set-h").fill("90")
    page.locator("#wheel-settings tr", has=page.locator("#set-h")).locator("button", has_text="Set").click()
    expect(page.locator("#confirm-warning")).to_contain_text("lost at power-off")
    page.locator("#confirm-send").click()
    expect(page.locator("#device-log")).to_contain_text("reply *T OK")  # set, before it is read back
    page.locator("#wheel-settings tr", has=page.locator("#set-h")).locator("button", has_text="Read").click()
    expect(page.locator("#cur-h")).to_have_text("90")
    expect(page.locator("#device-log")).to_contain_text("tom sent *T h 90")
    sent = [c["command"] for c in env.records("device_command") if c.get("by") == "tom"]
    assert "*T h 90" in sent


# --- screenshots and the touch screen ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_screens_at_both_sizes_are_touch_friendly(env, context, size):
    page = context(*size).new_page()
    page.goto(env.url + "/console/")
    expect(page.locator("#sign-in")).to_be_visible()
    check_screen(page, "login", size)
    page.close()

    page = sign_in(context, env, "dealer", "/console/table/r4", size)
    expect(page.locator("#phase")).to_be_visible()
    expect(page.locator("#recent-strip .chip").first).to_be_visible()  # the arcade wheel has played
    check_screen(page, "dealer-roulette", size)
    page.locator("#action-void").click()
    expect(page.locator("dialog[open]")).to_be_visible()
    check_screen(page, "dealer-void-dialog", size)
    page.locator("#dialog-cancel").click()
    if page.locator("#action-correct").count():
        page.locator("#action-correct").click()
        expect(page.locator("dialog[open] #number-pad")).to_be_visible()
        check_screen(page, "dealer-correction-dialog", size)
        page.locator("#dialog-cancel").click()

    tech = sign_in(context, env, "technician", "/console/tech", size)
    expect(tech.locator("#device-r4-wheel")).to_be_visible()
    check_screen(tech, "technician-devices", size)
    tech.goto(env.url + "/console/tech/r4/wheel")
    expect(tech.locator("#wheel-settings")).to_be_visible()
    check_screen(tech, "technician-wheel", size)

    admin = sign_in(context, env, "admin", "/console/users", size)
    expect(admin.locator("#users")).to_contain_text("dana")
    check_screen(admin, "admin-users", size)
    assert page.errors == [] and tech.errors == [] and admin.errors == []
