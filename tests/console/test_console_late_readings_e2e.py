"""End to end in Debian's Chromium (issue 23, item 1): a result by hand against a wheel that can still report.

The dealer's manual-result dialog says the wheel is connected and the studio refuses the result until the dealer
declares the wheel failed for the round (with the supervisor's approval); the wheel's reading that comes after
a result by hand is shown to the supervisor beside it, and the supervisor settles the difference with a second
supervisor: the device's reading goes out as a correction carrying both readings and both pairs of people.
"""

from __future__ import annotations

import re

import pytest
from console_helpers import PINS, add_users, assert_no_studio_threads, start_real, wheel_table
from playwright.sync_api import Page, expect
from waiting import WAIT_S

TIMEOUT = int(WAIT_S * 1000)  # ms


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-late") / "data"
    add_users(data)
    run = start_real(
        data,
        [
            # the wheel loses the ball and stays in "no more bets": a result by hand, the wheel still connected
            wheel_table("m1", seed=3, settings={"no_ball_tolerance_s": 600}),
            # a slow wheel: "no more bets" lasts seconds, long enough to settle the round by hand before its number
            wheel_table("m2", seed=5, speed=2, settings={"min_ball_revolutions": 0}),
        ],
    )
    yield run
    run.server.stop()
    assert_no_studio_threads()


@pytest.fixture
def page_for(browser, env):
    made = []

    def make(who: str, path: str) -> Page:
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        ctx.set_default_timeout(TIMEOUT)
        made.append(ctx)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors  # type: ignore[attr-defined]
        page.goto(f"{env.url}/console/?next={path}")
        name, pin = PINS[who]
        page.fill("#username", name)
        page.fill("#pin", pin)
        page.click("#sign-in")
        page.wait_for_url(f"**{path}")
        return page

    yield make
    for ctx in made:
        ctx.close()


def _approve(dialog, who: str) -> None:
    name, pin = PINS[who]
    dialog.locator("[name=approver]").fill(name)
    dialog.locator("[name=approver-pin]").fill(pin)


def _start_spin(env, table_id: str) -> None:
    env.wait(lambda: env.wheel_state(table_id) in (1, 5), what=f"the {table_id} wheel waiting for a start")
    env.on_loop(lambda: env.table(table_id).send_command_by("wheel", "start_spin", "dana"))


def test_the_dealer_must_declare_a_connected_wheel_failed_before_a_result_by_hand(env, page_for):
    env.studio.simulator("m1").inject("no_ball", stop_after=100_000)
    page = page_for("dealer", "/console/table/m1")
    _start_spin(env, "m1")
    expect(page.locator("#phase")).to_have_attribute("data-state", "in_play")
    page.locator("#action-manual_result").click()
    dialog = page.locator("dialog[open]")
    expect(dialog.locator("#device-failed-box")).to_contain_text("can still report this round")
    dialog.locator("#pocket-23").click()
    dialog.locator("#result-reason").fill("the wheel lost the ball; it is in 23")
    _approve(dialog, "supervisor")
    dialog.locator("#dialog-submit").click()  # not declared: the studio refuses, and says why
    expect(dialog.locator(".error")).to_contain_text("can still report")
    assert env.round_state("m1") == "in_play"
    dialog.locator("#device-failed").check()
    dialog.locator("#device-failed-reason").fill("the ball sensor sees no ball")
    _approve(dialog, "supervisor")
    dialog.locator("#dialog-submit").click()
    expect(page.locator("#certified")).to_be_visible()
    expect(page.locator("#result-number")).to_have_text("23")
    # the module's other test declares the wheel failed too (in either order): this one's declaration
    declared = [
        x
        for x in env.records("operator_action")
        if x["action"] == "declare_device_failed" and x["reason"] == "the ball sensor sees no ball"
    ]
    assert [(d["by"], d["approved_by"]) for d in declared] == [("dana", "sam")]
    assert declared[0]["devices"][0]["serial_number"] == "SIM-m1"
    assert page.errors == []


def test_the_supervisor_sees_the_late_reading_beside_the_result_by_hand_and_settles_it(env, page_for):
    env.studio.simulator("m2").force_next_number("19")
    page = page_for("supervisor", "/console/table/m2")
    expect(page.locator("#late-readings")).to_be_hidden()
    _start_spin(env, "m2")
    env.wait(lambda: env.round_state("m2") == "in_play", what="no more bets at m2")

    def by_hand() -> str:
        t = env.table("m2")
        r = t.manual_result_by(
            {"number": "17"}, "dana", "sam", "the ball is about to drop", device_failed="the wheel froze"
        )
        return r.round_id

    round_id = env.on_loop(by_hand)
    expect(page.locator("#result-number")).to_have_text("17")
    # the wheel reads 19 for the same game: shown beside the result by hand, and a correction is open
    late = page.locator(f"#late-{round_id}")
    expect(late).to_have_attribute("data-status", "correction_open")
    expect(late.locator(".manual")).to_contain_text("17")
    expect(late.locator(".manual")).to_contain_text("dana and sam")
    expect(late.locator(".device")).to_contain_text("19")
    expect(late.locator(".status")).to_contain_text("a correction is open")
    page.locator(f"#action-resolve_reading-{round_id}").click()
    dialog = page.locator("dialog[open]")
    expect(dialog).to_contain_text("19")
    dialog.locator("#keep-device").click()
    dialog.locator("#resolve-reason").fill("the video shows the ball in 19")
    _approve(dialog, "supervisor2")
    dialog.locator("#dialog-submit").click()
    expect(late).to_have_attribute("data-status", "corrected")
    expect(page.locator("#certified")).to_have_text(re.compile("corrected"))
    expect(page.locator("#result-number")).to_have_text("19")
    correction = [m for m in env.feed() if m["kind"] == "correction" and m["round_id"] == round_id]
    assert len(correction) == 1
    src = correction[0]["source"]
    assert src["people"] == ["sam", "sue"] and correction[0]["result"]["number"] == "19"
    assert src["readings"]["manual"]["people"] == ["dana", "sam"]
    assert src["readings"]["device"]["result"]["number"] == "19"
    assert src["readings"]["device"]["serial_number"] == "SIM-m2"
    assert page.errors == []
