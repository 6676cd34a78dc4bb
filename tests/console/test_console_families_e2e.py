"""The family pages and forms in Debian's Chromium: a technician's shoe decoder test (a simulated serial shoe), a
dice result entered by hand with a supervisor's approval, where the next card goes (a test game whose judge view
carries it) and a session that survives a restart of the studio on the same data folder."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from console_helpers import (
    PINS,
    DealerPacedCards,
    add_users,
    assert_no_studio_threads,
    check_screen,
    start_custom,
)
from playwright.sync_api import expect
from waiting import WAIT_S

from recognition.games import game_rules
from studio.table import DeviceSlot, Table

TIMEOUT = int(WAIT_S * 1000)  # ms


class JudgeTable(Table):
    """A table whose snapshot carries the judge's view, as the blackjack family's tables will."""

    judge_state: dict[str, Any] | None = None

    def snapshot(self) -> dict[str, Any]:
        snap = super().snapshot()
        if self.judge_state is not None:
            snap["judge"] = self.judge_state
        return snap


def _extra(studio):
    dice = Table(
        "dice-1",
        game_rules("dice_duel"),
        studio.journal,
        devices=[DeviceSlot("dice-1/camera", "dice-camera", "camera", "SIM-DICE")],
        betting_seconds=120,
    )
    bj = JudgeTable(
        "bj-1",
        DealerPacedCards(),
        studio.journal,
        devices=[DeviceSlot("bj-1/shoe", "serial-shoe", "shoe", "SIM-BJ")],
        betting_seconds=120,
    )
    return [dice, bj]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-families-e2e") / "data"
    add_users(data)
    run = start_custom(
        data,
        [
            {
                "id": "shoe-s",
                "game": "baccarat",
                "device": {
                    "kind": "serial-shoe",
                    "role": "shoe",
                    "url": "simulator",
                    "serial_number": "SHOE-S",
                    "simulator": {"seed": 4},
                },
            }
        ],
        extra=_extra,
    )
    yield run
    run.server.stop()
    assert_no_studio_threads()


def sign_in(browser, url: str, who: str, next_path: str, size=(1280, 800)):
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    ctx.set_default_timeout(TIMEOUT)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(f"{url}/console/?next={next_path}")
    name, pin = PINS[who]
    page.fill("#username", name)
    page.fill("#pin", pin)
    page.click("#sign-in")
    page.wait_for_url(f"**{next_path}")
    return ctx, page


def test_technician_runs_the_shoe_decoder_test(env, browser):
    ctx, page = sign_in(browser, env.url, "technician", "/console/tech/shoe-s/shoe")
    try:
        expect(page.locator("#shoe-vendor")).not_to_contain_text("not available")
        expect(page.locator("#shoe-decoder")).to_contain_text("the shoe's own scanner")
        env.wait(lambda: env.table("shoe-s").devices["shoe-s/shoe"].driver.connected, what="the shoe")
        sim = env.studio.simulator("shoe-s")
        sim.inject("unknown_barcode", payload="PROMO-0042")
        sim.deal_card("KH")
        reads = page.locator("#shoe-reads")
        expect(reads).to_contain_text("card KH")  # live: the read appears without a reload
        expect(reads).to_contain_text("unknown barcode")
        expect(reads).to_contain_text("PROMO-0042")
        expect(page.locator("#fig-cards")).to_have_text(re.compile(r"^[1-9]"))
        good = env.table("shoe-s").devices["shoe-s/shoe"].driver.table.encode("9C", deck=104729, pack=1)
        page.fill("#decode-payload", good)
        page.click("#decode-send")
        expect(page.locator("#decode-result")).to_contain_text("card 9C")
        page.fill("#decode-payload", "HELLO-1")
        page.click("#decode-send")
        expect(page.locator("#decode-result")).to_contain_text("unknown barcode")
        check_screen(page, "technician-shoe-decoder", (1280, 800))
        assert page.errors == []
    finally:
        ctx.close()


def test_dice_duel_result_entered_by_hand_with_a_supervisor(env, browser):
    ctx, page = sign_in(browser, env.url, "dealer", "/console/table/dice-1")
    try:
        page.locator("#action-open_round").click()
        page.locator("#action-close_betting").click()
        expect(page.locator("#phase")).to_have_attribute("data-state", "in_play")
        page.locator("#action-manual_result").click()
        dialog = page.locator("dialog[open]")
        dialog.locator("#die-red-0-6").click()
        dialog.locator("#result-check").click()
        expect(dialog.locator("#result-check-text")).to_have_text("Choose the result first.")
        dialog.locator("#die-blue-0-3").click()
        expect(dialog.locator("#chosen-dice")).to_have_text("Red die: 6 \u00b7 Blue die: 3")
        dialog.locator("#result-check").click()
        expect(dialog.locator("#result-check-text")).to_contain_text("The game's rules accept it")
        dialog.locator("#result-reason").fill("the dice camera lost the tray")
        dialog.locator("[name=approver]").fill(PINS["supervisor"][0])
        dialog.locator("[name=approver-pin]").fill(PINS["supervisor"][1])
        check_screen(page, "dealer-dice-pad", (1280, 800))
        dialog.locator("#dialog-submit").click()
        expect(page.locator("#certified")).to_be_visible()
        expect(page.locator("#notice")).to_contain_text("Entered by hand by dana and sam")
        round_id = env.table("dice-1").round.round_id
        result = next(m for m in env.feed() if m["kind"] == "result" and m["round_id"] == round_id)
        assert result["result"] == {"red": 6, "blue": 3}
        assert result["source"]["people"] == ["dana", "sam"]
        assert page.errors == []
    finally:
        ctx.close()


def test_where_the_next_card_goes_is_shown_big_and_live(env, browser):
    table = env.table("bj-1")
    ctx, page = sign_in(browser, env.url, "dealer", "/console/table/bj-1", size=(1920, 1080))
    try:
        expect(page.locator("#phase")).to_be_visible()
        expect(page.locator("#judge")).to_be_hidden()  # no judge view: nothing new on the screen
        deadline = (datetime.now(UTC) + timedelta(seconds=12)).isoformat().replace("+00:00", "Z")
        env.on_loop(
            lambda: setattr(
                table,
                "judge_state",
                {
                    "next": {"position": "seat_3_hand_1_card_3", "label": "Seat 3, hand 1: third card"},
                    "awaiting": [
                        {
                            "window": "decision",
                            "seat": "3",
                            "hand": 1,
                            "allowed": ["hit", "stand", "double"],
                            "default": "stand",
                            "deadline": deadline,
                        }
                    ],
                },
            )
        )
        expect(page.locator("#judge-next")).to_have_text(
            "Next card: Seat 3, hand 1: third card"
        )  # live, no reload
        wait = page.locator("#judge-wait-0")
        expect(wait).to_contain_text("seat 3 hand 1 (hit/stand/double)")
        expect(wait).to_contain_text(re.compile(r", (1[0-2]|[5-9]) s"))
        expect(wait).to_contain_text("no answer: stand")
        assert (
            page.evaluate(
                "() => parseFloat(getComputedStyle(document.getElementById('judge-next')).fontSize)"
            )
            >= 40
        )
        check_screen(page, "dealer-next-card", (1920, 1080))
        env.on_loop(lambda: setattr(table, "judge_state", {"next": None, "awaiting": []}))
        expect(page.locator("#judge")).to_be_hidden()
        assert page.errors == []
    finally:
        ctx.close()


def test_a_session_survives_a_restart_of_the_studio(browser, tmp_path):
    data = tmp_path / "data"
    add_users(data)
    run = start_custom(data, [])
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(TIMEOUT)
    try:
        page = ctx.new_page()
        page.goto(f"{run.url}/console/?next=/console/tables")
        page.fill("#username", PINS["dealer"][0])
        page.fill("#pin", PINS["dealer"][1])
        page.click("#sign-in")
        page.wait_for_url("**/console/tables")
        expect(page.locator("#who")).to_have_text("dana (dealer)")
        run.server.stop()
        run = start_custom(data, [])  # the studio restarts on the same data folder (another port)
        page.goto(f"{run.url}/console/tables")
        expect(page.locator("#who")).to_have_text("dana (dealer)")  # still signed in
        assert page.url.endswith("/console/tables")
        status = page.evaluate("""async () => {
            const me = await (await fetch('/console/api/me')).json();
            const r = await fetch('/console/api/logout', {method: 'POST', headers: {'X-CSRF-Token': me.csrf}});
            return [me.username, r.status, (await fetch('/console/api/me')).status];
        }""")
        assert status == ["dana", 200, 401]  # the CSRF token survived too; signing out still ends it
    finally:
        ctx.close()
        run.server.stop()  # the module's studio still runs: its teardown checks that no thread is left
