"""A dealer-paced table in Chromium (a two-hand card test game; the real card, dice and ball games plug in the
same way): open betting with its countdown, close betting, each card shown as it is drawn, the result's
fields rendered generically, a shoe change between rounds."""

from __future__ import annotations

import re

import pytest
from console_helpers import PINS, add_users, assert_no_studio_threads, cards_table, check_screen, start_custom
from playwright.sync_api import expect
from waiting import WAIT_S

from devices.events import CardDrawn

TIMEOUT = int(WAIT_S * 1000)  # ms


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-cards") / "data"
    add_users(data)
    run = start_custom(data, [], extra=lambda s: [cards_table(s, "cards-1", betting_seconds=20)])
    yield run
    run.server.stop()
    assert_no_studio_threads()


def draw(env, card: str) -> None:
    table = env.table("cards-1")
    env.on_loop(
        lambda: table.device_event(CardDrawn(device_id="cards-1/shoe", card=card, payload=f"P-{card}"))
    )


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_dealer_runs_a_dealer_paced_round(env, browser, size):
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.set_default_timeout(TIMEOUT)
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(env.url + "/console/?next=/console/table/cards-1")
        name, pin = PINS["dealer"]
        page.fill("#username", name)
        page.fill("#pin", pin)
        page.click("#sign-in")
        page.wait_for_url("**/console/table/cards-1")
        expect(page.locator("#action-close_betting")).to_have_count(0)
        page.locator("#action-open_round").click()
        expect(page.locator("#phase")).to_have_attribute("data-state", "betting_open")
        countdown = page.locator("#countdown")
        expect(countdown).to_have_text(re.compile(r"^(1\d|20)$"))
        first = int(countdown.inner_text())
        page.wait_for_function(
            "(n) => Number(document.getElementById('countdown').textContent) < n", arg=first
        )
        check_screen(page, "dealer-paced-betting", size)
        page.locator("#action-close_betting").click()
        expect(page.locator("#phase")).to_have_attribute("data-state", "in_play")
        expect(countdown).to_have_text("")
        for i, card in enumerate(["QH", "7S", "TD"]):
            draw(env, card)
            expect(page.locator("#cards-drawn .cardface")).to_have_count(i + 1)  # each card as it is drawn
        expect(page.locator("#cards-drawn")).to_contain_text("Q\u2665")
        check_screen(page, "dealer-paced-cards", size)
        draw(env, "AC")
        expect(page.locator("#certified")).to_be_visible()
        result = page.locator("#result-fields")
        expect(result).to_contain_text("player")
        expect(result).to_contain_text("banker")
        expect(result.locator(".cardface")).to_have_count(4)
        expect(page.locator("#action-shoe_change")).to_be_visible()
        check_screen(page, "dealer-paced-result", size)
        page.locator("#action-shoe_change").click()
        page.locator("dialog[open] #dialog-submit").click()
        expect(page.locator("dialog[open]")).to_have_count(0)
        shoe = [
            x
            for x in env.records("console_action")
            if x["action"] == "shoe_change" and x["outcome"] == "done"
        ]
        assert shoe and shoe[-1]["by"] == "dana"
        assert errors == []
    finally:
        ctx.close()


def test_cards_entered_by_hand_on_the_card_pad_with_a_supervisor(env, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(TIMEOUT)
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(env.url + "/console/?next=/console/table/cards-1")
        name, pin = PINS["dealer"]
        page.fill("#username", name)
        page.fill("#pin", pin)
        page.click("#sign-in")
        page.wait_for_url("**/console/table/cards-1")
        page.locator("#action-open_round").click()
        page.locator("#action-close_betting").click()
        expect(page.locator("#phase")).to_have_attribute("data-state", "in_play")
        draw(env, "JD")  # the shoe read one card, then failed
        expect(page.locator("#cards-drawn .cardface")).to_have_count(1)
        page.locator("#action-manual_result").click()
        dialog = page.locator("dialog[open]")
        for code in ("JD", "3H", "4D", "KS"):
            dialog.locator(f"#card-{code}").click()
        dialog.locator("#card-undo").click()
        dialog.locator("#card-5C").click()
        expect(dialog.locator("#chosen-cards .cardface")).to_have_count(4)
        dialog.locator("#result-reason").fill("the shoe stopped reading after the first card")
        dialog.locator("[name=approver]").fill(PINS["supervisor"][0])
        dialog.locator("[name=approver-pin]").fill(PINS["supervisor"][1])
        check_screen(page, "dealer-paced-card-pad", (1280, 800))
        dialog.locator("#dialog-submit").click()
        expect(page.locator("#certified")).to_be_visible()
        round_id = env.table("cards-1").round.round_id
        result = next(m for m in env.feed() if m["kind"] == "result" and m["round_id"] == round_id)
        assert result["result"] == {"player": ["JD", "4D"], "banker": ["3H", "5C"]}
        assert result["source"]["people"] == ["dana", "sam"]
        assert errors == []
    finally:
        ctx.close()


def test_an_open_dialog_follows_the_round(env, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(TIMEOUT)
    try:
        page = ctx.new_page()
        page.goto(env.url + "/console/?next=/console/table/cards-1")
        name, pin = PINS["dealer"]
        page.fill("#username", name)
        page.fill("#pin", pin)
        page.click("#sign-in")
        page.wait_for_url("**/console/table/cards-1")
        page.locator("#action-open_round").click()
        expect(page.locator("#phase")).to_have_attribute("data-state", "betting_open")
        page.locator("#action-void").click()
        dialog = page.locator("dialog[open]")
        expect(dialog.locator(".approval")).to_be_hidden()
        table = env.table("cards-1")
        env.on_loop(lambda: table.close_betting_by("sue"))  # betting closes while the dialog is open
        # the void was started during betting: it is judged so, no supervisor (test_console_screen_e2e.py)
        expect(dialog.locator("#void-started")).to_be_visible()
        expect(dialog.locator(".approval")).to_be_hidden()
        env.on_loop(lambda: table.void_by("dealer_error", "voided at another screen", "sue", "sam"))
        expect(dialog.locator(".stale")).to_contain_text("The round has moved on")
        expect(dialog.locator("#dialog-submit")).to_be_disabled()
    finally:
        ctx.close()
