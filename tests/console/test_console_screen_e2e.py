"""The dealer's screen in Chromium at both sizes the console targets (1280x800 and the dealer's 1920x1080
touchscreen): every game's history readable inside its panel, the result on screen until the next round opens
betting (at least 5 s), a void started during betting judged by the state at the press, the dialog's buttons in
view, maintenance asked for during a round coming on when it ends, and nothing typed wiped by a live update."""

from __future__ import annotations

import time
from typing import Any

import pytest
from console_helpers import (
    PINS,
    DealerPacedCards,
    add_users,
    assert_no_studio_threads,
    cards_table,
    check_screen,
    no_round_and_no_maintenance,
    signed_in_page,
    start_custom,
)
from playwright.sync_api import expect
from waiting import WAIT_S

from devices.events import CardDrawn
from recognition.blackjack.games import GAMES as BLACKJACK

TIMEOUT = int(WAIT_S * 1000)  # ms
SIZES = [(1280, 800), (1920, 1080)]
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


class AnyResult(DealerPacedCards):
    """A dealer-paced test game that takes a result of any shape (here: live blackjack's own)."""

    game_id = "test_any_result"

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        return dict(result)

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        return {}


def blackjack_result() -> dict[str, Any]:
    """A real live_blackjack result: seat 1 split (20 and 20), seat 2 stood on 17, the dealer bust."""
    cards = ["8H", "TS", "6D", "8S", "7C", "TD", "3C", "2H", "9D", "KD", "QH"]
    decisions = [
        {"seat": "seat_1", "hand": 1, "action": "split"},
        {"seat": "seat_1", "hand": 1, "action": "hit"},
        {"seat": "seat_1", "hand": 1, "action": "stand"},
        {"seat": "seat_1", "hand": 2, "action": "hit"},
        {"seat": "seat_1", "hand": 2, "action": "stand"},
        {"seat": "seat_2", "hand": 1, "action": "stand"},
    ]
    out = BLACKJACK["live_blackjack"].evaluate(
        {"cards": cards, "decisions": decisions, "seats": ["seat_2", "seat_1"]}
    )
    return out["result"]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-screen") / "data"
    add_users(data)
    run = start_custom(
        data,
        [],
        extra=lambda s: [
            cards_table(s, "cards-1", betting_seconds=60),
            cards_table(s, "bj-1", betting_seconds=60, game=AnyResult()),
        ],
    )
    yield run
    run.server.stop()
    assert_no_studio_threads()


def sign_in(
    browser: Any, env: Any, size: tuple[int, int], key: str, path: str, clock: bool = False
) -> tuple[Any, Any, list[str]]:
    return signed_in_page(browser, env.url, size, key, path, TIMEOUT, clock=clock)


def draw(env: Any, table_id: str, *cards: str) -> None:
    table = env.table(table_id)
    for card in cards:
        env.on_loop(
            lambda c=card: table.device_event(
                CardDrawn(device_id=f"{table_id}/shoe", card=c, payload=f"P-{c}")
            )
        )


def end_open_round(env: Any, table_id: str) -> None:
    no_round_and_no_maintenance(env, table_id)


def inside(page: Any, inner: str, outer: str) -> bool:
    """Every element `inner` lies within the box of `outer` (nothing runs off the panel)."""
    return page.evaluate(
        """([inner, outer]) => {
          const box = document.querySelector(outer).getBoundingClientRect();
          return [...document.querySelectorAll(inner)].every((e) => {
            const r = e.getBoundingClientRect();
            return r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
          });
        }""",
        [inner, outer],
    )


def in_view(page: Any, selector: str) -> bool:
    """The element is inside the viewport and nothing covers its middle (a person can see and press it)."""
    return page.evaluate(
        """(sel) => {
          const e = document.querySelector(sel);
          if (!e) return false;
          const r = e.getBoundingClientRect();
          if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return false;
          const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return !!top && (top === e || e.contains(top));
        }""",
        selector,
    )


# --- history -----------------------------------------------------------------------------------------------

#: results as the games publish them (docs/*.md): every one must read as words and symbols, never JSON
SHAPES = {
    "roulette": {"number": "17", "color": "black"},
    "baccarat": {"player": ["9H", "KD"], "banker": ["4C", "2S", "TD"]},
    "sic_bo": {"dice": [1, 3, 6]},
    "craps": {"dice": [3, 4], "point": None},
    "dice_duel": {"red": 4, "blue": 2},
    "keno": {"balls": [3, 17, 42, 71]},
    "money_wheel": {"segment": 12, "label": "2x", "multiplier": {"segment": 3, "value": 5}},
}


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_every_games_history_reads_in_words_inside_its_panel(env, browser, size):
    table = env.table("bj-1")
    end_open_round(env, "bj-1")
    result = blackjack_result()
    env.on_loop(lambda: table.open_round_by("dana"))
    env.on_loop(lambda: table.manual_result_by(result, "dana", "sam", "the shoe stopped reading"))
    assert env.round_state("bj-1") == "certified"
    ctx, page, errors = sign_in(browser, env, size, "dealer", "/console/table/bj-1")
    try:
        chip = page.locator("#recent-strip .chip").first
        expect(chip).to_contain_text("Dealer bust")
        expect(chip).to_contain_text("Seat 1 20 / 20")
        expect(chip).to_contain_text("Seat 2 17")
        strip = page.locator("#recent-strip").inner_text()
        assert "[object" not in strip and "{" not in strip, strip
        assert inside(page, "#recent-strip .chip", "#recent")
        panel = page.locator("#result").inner_text()
        assert "[object" not in panel and "{" not in panel, panel
        expect(page.locator("#result-fields")).to_contain_text("Dealer: bust")
        assert inside(page, "#result .cardface", "#result")
        texts = page.evaluate(
            """async (shapes) => {
              const { resultText } = await import("/console/static/render.js");
              return Object.fromEntries(Object.entries(shapes).map(([k, v]) => [k, resultText(v)]));
            }""",
            SHAPES,
        )
        assert texts["roulette"] == "17 black"
        assert texts["baccarat"] == "player 9\u2665 K\u2666 | banker 4\u2663 2\u2660 10\u2666"
        assert texts["sic_bo"] == "dice 1 3 6"
        assert texts["craps"] == "dice 3 4"
        assert texts["dice_duel"] == "red 4 | blue 2"
        assert texts["keno"] == "balls 3 17 42 71"
        assert texts["money_wheel"] == "segment 12 | label 2x | multiplier segment 3, value 5"
        for game, text in texts.items():
            assert "[object" not in text and "{" not in text, (game, text)
        check_screen(page, "screen-history", size)
        assert errors == []
    finally:
        ctx.close()


# --- the result stays on screen -------------------------------------------------------------------------

WATCH_RESULT = """() => {
  window.__shown = null; window.__gone = null;
  const panel = document.getElementById("result");
  const look = () => {
    const certified = !!panel.querySelector("#certified, #previous-certified");
    if (certified && window.__shown === null) window.__shown = performance.now();
    if (window.__shown !== null && !certified && window.__gone === null) window.__gone = performance.now();
  };
  new MutationObserver(look).observe(panel, { childList: true, subtree: true });
  look();
}"""


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_the_result_stays_until_the_next_round_opens_betting_at_least_5_s(env, browser, size):
    """The page's clock is moved on instead of waited for: its timers fire as they would in 5 s of real time."""
    end_open_round(env, "cards-1")
    table = env.table("cards-1")
    ctx, page, errors = sign_in(browser, env, size, "dealer", "/console/table/cards-1", clock=True)
    try:
        page.evaluate(WATCH_RESULT)
        # from here the page's time moves only when the test moves it: the real time the steps below take (a
        # screenshot on a loaded machine: more than half a second) is not part of the 5 s measured. Playwright
        # for Python takes a number as Unix seconds (not the page's milliseconds); a second ahead so the page's
        # clock, running until then, has not passed it
        page.clock.pause_at(page.evaluate("() => Date.now()") / 1000 + 1)
        assert abs(page.evaluate("() => Date.now()") / 1000 - time.time()) < 5, "the page's clock jumped"
        env.on_loop(lambda: table.open_round_by("dana"))
        env.on_loop(lambda: table.close_betting_by("dana"))
        draw(env, "cards-1", "QH", "7S", "TD", "AC")
        expect(page.locator("#certified")).to_be_visible()
        certified = table.round.round_number
        # the next round opens at once: the result stays, titled with its round, beside the new round's state
        env.on_loop(lambda: table.open_round_by("dana"))
        expect(page.locator("#phase")).to_have_attribute("data-state", "betting_open")
        expect(page.locator("#result-title")).to_contain_text(f"Result of round {certified}")
        expect(page.locator("#previous-certified")).to_be_visible()
        expect(page.locator("#certified")).to_have_count(0)  # #certified is the current round's own
        check_screen(page, "screen-result-held", size)
        page.clock.run_for(4500)
        assert page.evaluate("() => window.__gone") is None, "the result left the screen before 5 s"
        page.clock.run_for(1000)
        page.wait_for_function("() => window.__gone !== null")
        held = page.evaluate("() => window.__gone - window.__shown")
        assert held >= 4900, f"the result was on screen {held:.0f} ms"
        expect(page.locator("#last-result")).to_contain_text(f"Last result, round {certified}: player")

        # a next round that opens later than that: the result stays until it opens
        page.evaluate(WATCH_RESULT)
        env.on_loop(lambda: table.close_betting_by("dana"))
        draw(env, "cards-1", "2H", "3S", "4D", "5C")
        expect(page.locator("#certified")).to_be_visible()
        page.clock.run_for(6500)
        expect(page.locator("#certified")).to_be_visible()
        assert page.evaluate("() => window.__gone") is None
        env.on_loop(lambda: table.open_round_by("dana"))
        page.wait_for_function("() => window.__gone !== null")
        expect(page.locator("#result-title")).to_have_text("Result")
        assert errors == []
    finally:
        ctx.close()
        end_open_round(env, "cards-1")


# --- void started during betting ------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_a_void_started_during_betting_needs_no_supervisor_when_betting_closes_meanwhile(env, browser, size):
    end_open_round(env, "cards-1")
    table = env.table("cards-1")
    ctx, page, errors = sign_in(browser, env, size, "dealer", "/console/table/cards-1")
    try:
        page.locator("#action-open_round").click()
        expect(page.locator("#phase")).to_have_attribute("data-state", "betting_open")
        round_id = table.round.round_id
        page.locator("#action-void").click()
        dialog = page.locator("dialog[open]")
        expect(dialog.locator(".approval")).to_be_hidden()
        env.on_loop(lambda: table.close_betting_by("timer"))  # as the betting timer does
        draw(env, "cards-1", "QH")  # and the deal begins
        expect(page.locator("#phase")).to_have_attribute("data-state", "in_play")
        expect(dialog.locator("#void-started")).to_contain_text("counts as started during betting")
        expect(dialog.locator(".approval")).to_be_hidden()
        dialog.locator("#reason-dealer_error").click()
        assert in_view(page, "dialog[open] #dialog-submit"), "the submit button is out of view"
        check_screen(page, "screen-void-started-in-betting", size)
        dialog.locator("#dialog-submit").click()
        expect(page.locator("dialog[open]")).to_have_count(0)
        expect(page.locator("#void-code")).to_contain_text("dealer_error")
        done = [r for r in env.records("console_action") if r["action"] == "void" and r["outcome"] == "done"]
        assert done and done[-1]["started_in"] == "betting_open" and done[-1]["state_at_void"] == "in_play"
        assert "approved_by" not in done[-1]
        op = [r for r in env.records("operator_action") if r["action"] == "void"][-1]
        assert op["started_in"] == "betting_open" and op["state_at_void"] == "in_play" and op["by"] == "dana"
        void = next(m for m in env.feed() if m["kind"] == "void" and m["round_id"] == round_id)
        assert void["source"]["people"] == ["dana"]
        assert errors == []
    finally:
        ctx.close()
        end_open_round(env, "cards-1")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_the_void_dialog_with_a_supervisor_has_its_buttons_in_view(env, browser, size):
    end_open_round(env, "cards-1")
    table = env.table("cards-1")
    env.on_loop(lambda: table.open_round_by("dana"))
    env.on_loop(lambda: table.close_betting_by("dana"))
    ctx, page, errors = sign_in(browser, env, size, "dealer", "/console/table/cards-1")
    try:
        expect(page.locator("#phase")).to_have_attribute("data-state", "in_play")
        page.locator("#action-void").click()
        dialog = page.locator("dialog[open]")
        expect(dialog.locator(".approval")).to_be_visible()  # opened after betting closed: four eyes
        dialog.locator("#reason-dealer_error").click()
        assert in_view(page, "dialog[open] #dialog-submit"), "the submit button is out of view"
        assert in_view(page, "dialog[open] #dialog-cancel")
        check_screen(page, "screen-void-with-supervisor", size)
        dialog.locator("#dialog-submit").click()  # no supervisor given: refused, nothing voided
        expect(dialog.locator(".error")).to_contain_text("supervisor")
        assert env.round_state("cards-1") == "in_play"
        dialog.locator("[name=approver]").fill(PINS["supervisor"][0])
        dialog.locator("[name=approver-pin]").fill(PINS["supervisor"][1])
        assert in_view(page, "dialog[open] #dialog-submit")
        dialog.locator("#dialog-submit").click()
        expect(page.locator("#void-code")).to_contain_text("dealer_error")
        assert errors == []
    finally:
        ctx.close()
        end_open_round(env, "cards-1")


# --- maintenance asked for during a round -------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_maintenance_asked_for_during_a_round_comes_on_when_it_ends(env, browser, size):
    end_open_round(env, "cards-1")
    table = env.table("cards-1")
    env.on_loop(lambda: table.open_round_by("dana"))
    number = table.round.round_number
    ctx, tech, errors = sign_in(browser, env, size, "technician", "/console/tech/cards-1/shoe")
    dctx, dealer, derrors = sign_in(browser, env, size, "dealer", "/console/table/cards-1")
    try:
        toggle = tech.locator("#maintenance-toggle")
        expect(toggle).to_be_enabled()
        expect(tech.locator("#maintenance-round")).to_contain_text(f"Round {number} is open")
        tech.fill("#maintenance-reason", "shoe reader check")
        toggle.click()
        expect(tech.locator("#maintenance-state")).to_have_text("Maintenance pending")
        expect(toggle).to_have_text("Cancel the request")
        expect(dealer.locator("#maintenance-pending")).to_contain_text(f"when round {number} ends")
        expect(dealer.locator("#action-open_round")).to_have_count(0)
        check_screen(tech, "screen-maintenance-pending", size)
        assert env.round_state("cards-1") == "betting_open"  # the round plays on
        asked = env.records("maintenance_requested")[-1]
        assert asked["by"] == "tom" and asked["round_number"] == number

        env.on_loop(lambda: table.close_betting_by("dana"))
        draw(env, "cards-1", "QH", "7S", "TD", "AC")
        expect(tech.locator("#maintenance-state")).to_have_text("In maintenance")
        expect(dealer.locator("#notice-title")).to_have_text("Table in maintenance")
        assert env.round_state("cards-1") == "certified"  # the round ended as it would have
        on = env.records("maintenance")[-1]
        assert on["on"] is True and on["by"] == "tom" and on["requested_at"] == asked["requested_at"]

        tech.fill("#maintenance-reason", "reader fine")
        tech.locator("#maintenance-toggle").click()
        expect(tech.locator("#maintenance-state")).to_have_text("Live: real rounds")
        assert errors == [] and derrors == []
    finally:
        ctx.close()
        dctx.close()
        end_open_round(env, "cards-1")


def test_a_pending_maintenance_request_can_be_cancelled(env, browser):
    end_open_round(env, "cards-1")
    table = env.table("cards-1")
    env.on_loop(lambda: table.open_round_by("dana"))
    ctx, tech, errors = sign_in(browser, env, SIZES[0], "technician", "/console/tech/cards-1/shoe")
    try:
        tech.fill("#maintenance-reason", "shoe reader check")
        tech.locator("#maintenance-toggle").click()
        expect(tech.locator("#maintenance-state")).to_have_text("Maintenance pending")
        tech.locator("#maintenance-toggle").click()
        expect(tech.locator("#maintenance-state")).to_have_text("Live: real rounds")
        assert env.records("maintenance_request_cancelled")[-1]["cancelled_by"] == "tom"
        env.on_loop(lambda: table.void_by("dealer_error", "over", "dana"))
        assert not table.maintenance.on
        assert errors == []
    finally:
        ctx.close()
        end_open_round(env, "cards-1")


# --- typing survives live updates ------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_nothing_typed_is_wiped_by_a_live_update(env, browser, size):
    end_open_round(env, "cards-1")
    table = env.table("cards-1")
    ctx, tech, errors = sign_in(browser, env, size, "technician", "/console/tech/cards-1/shoe")
    dctx, dealer, derrors = sign_in(browser, env, size, "dealer", "/console/table/cards-1")
    try:
        # the technician types a reason while the table's rounds go on
        tech.locator("#maintenance-reason").click()
        tech.keyboard.type("wheel set")
        env.on_loop(lambda: table.open_round_by("dana"))
        expect(tech.locator("#maintenance-round")).to_contain_text("is open")  # the live update arrived
        tech.keyboard.type("tings and ")
        env.on_loop(lambda: table.close_betting_by("dana"))
        draw(env, "cards-1", "QH", "7S", "TD", "AC")
        expect(tech.locator("#maintenance-round")).to_be_hidden()  # the round ended: another update
        tech.keyboard.type("test spin")
        expect(tech.locator("#maintenance-reason")).to_have_value("wheel settings and test spin")
        assert tech.evaluate("() => document.activeElement.id") == "maintenance-reason"

        # the dealer types a void note while the screen takes the table's updates
        env.on_loop(lambda: table.open_round_by("dana"))
        expect(dealer.locator("#phase")).to_have_attribute("data-state", "betting_open")
        dealer.locator("#action-void").click()
        dialog = dealer.locator("dialog[open]")
        dialog.locator("#void-note").click()
        dealer.keyboard.type("a card fell ")
        draw(env, "cards-1", "9C")  # a device event: the live panel redraws
        expect(dealer.locator("#device-events")).to_contain_text("9C")
        env.on_loop(lambda: table.close_betting_by("dana"))  # a new view of the table
        expect(dealer.locator("#phase")).to_have_attribute("data-state", "in_play")
        dealer.keyboard.type("face up")
        expect(dialog.locator("#void-note")).to_have_value("a card fell face up")
        assert dealer.evaluate("() => document.activeElement.id") == "void-note"
        assert errors == [] and derrors == []
    finally:
        ctx.close()
        dctx.close()
        end_open_round(env, "cards-1")
