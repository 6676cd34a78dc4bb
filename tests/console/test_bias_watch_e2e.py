"""The bias watch on a running studio: a wheel simulator that favours pocket 17 is caught by the count the
power analysis predicts, journaled once, shown on /metrics and on the technicians' page (Chromium, both
screen sizes); the fair wheel beside it raises nothing."""

from __future__ import annotations

import httpx
import pytest
from console_helpers import (
    Running,
    Server,
    add_users,
    assert_no_studio_threads,
    check_screen,
    signed_in_page,
)
from journal_records import records
from playwright.sync_api import expect
from waiting import WAIT_S

from app.api import create_app
from studio.bias import rounds_to_detect
from studio.config import parse_config
from studio.service import Studio

LEVEL, FIRST_LOOK, WEIGHT = 0.001, 10, 60.0
POCKETS = {str(i): 1 / 37 for i in range(37)}
SIZES = [(1280, 800), (1920, 1080)]


def wheel(table_id: str, seed: int, bias: dict[str, float] | None = None) -> dict:
    options: dict = {"bias": bias} if bias else {}
    return {
        "id": table_id,
        "game": "european_roulette",
        "device": {
            "kind": "cammegh-ss2",
            "role": "wheel",
            "url": "simulator",
            "serial_number": f"SIM-{table_id}",
            "options": {"keep_powered": True},
            "simulator": {"speed": 200, "seed": seed, "options": options},
        },
    }


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("bias") / "data"
    add_users(data)
    cfg = parse_config(
        {
            "studio": {
                "data_dir": str(data),
                "bias_alert_level": LEVEL,
                "bias_first_look": FIRST_LOOK,
                "bias_check_seconds": 0.2,
            },
            "consumers": [{"name": "t", "token": "console-test-token"}],
            "tables": [wheel("biased", 5, {"17": WEIGHT}), wheel("fair", 6)],
        }
    )
    studio = Studio(cfg)
    run = Running(studio, Server(create_app(studio)))
    yield run
    run.server.stop()
    assert_no_studio_threads()


def alerts(env) -> list[dict]:
    return records(env.studio, "bias_alert")


def test_a_biased_wheel_is_caught_by_the_predicted_count_and_journaled_once(env) -> None:
    true = {c: (WEIGHT if c == "17" else 1.0) / (WEIGHT + 36) for c in POCKETS}
    predicted = rounds_to_detect(true, POCKETS, LEVEL, power=0.9, first_look=FIRST_LOOK)
    env.wait(lambda: any(a["quantity"] == "pocket" for a in alerts(env)), what="the pocket alarm")
    pocket = next(a for a in alerts(env) if a["quantity"] == "pocket")
    assert pocket["table_id"] == "biased" and pocket["device_id"] == "biased/wheel"
    assert pocket["n"] <= predicted and pocket["p_value"] < pocket["level"] <= LEVEL / 2
    assert pocket["evidence"][0]["category"] == "17"
    # let the watch look again: the alarm is journaled once, and the fair wheel raised nothing
    stats = env.studio.statistics
    env.wait(lambda: stats.bias_report("biased")[0]["n"] >= 2 * FIRST_LOOK, what="a second look")
    env.wait(lambda: not env.studio.statistics.pending_alarms(), what="the watch to journal what it found")
    keys = [(a["table_id"], a["quantity"], a["look"]) for a in alerts(env)]
    assert len(keys) == len(set(keys))
    assert all(a["table_id"] == "biased" for a in alerts(env))


def test_metrics_and_the_technicians_api_show_the_alarm(env, people) -> None:
    env.wait(lambda: alerts(env), what="an alarm")
    text = httpx.get(f"{env.url}/metrics").text
    assert 'studio_bias_alarm{device="biased/wheel",quantity="pocket",table="biased"} 1.0' in text
    assert 'studio_bias_alarm{device="fair/wheel",quantity="pocket",table="fair"} 0.0' in text
    tom = people(env.url, "technician")
    watch = tom.get("/console/api/bias").json()
    assert watch["level"] == LEVEL and watch["alarms"] >= 1
    fair = [s for s in watch["series"] if s["table_id"] == "fair"]
    assert fair and all(s["alarm"] is None for s in fair)
    assert people(env.url, "dealer").get("/console/api/bias").status_code == 403
    assert tom.get("/console/api/bias?table=nope").status_code == 404


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_technicians_page_draws_the_counts_and_the_alarm(env, browser, size) -> None:
    env.wait(lambda: alerts(env), what="an alarm")
    ctx, page, _errors = signed_in_page(
        browser, env.url, size, "technician", "/console/tech", WAIT_S * 1000, ready=None
    )
    try:
        biased = page.locator("#bias-biased-wheel-pocket")
        expect(biased.locator("[role=alert]")).to_contain_text("Bias alarm")
        expect(biased).to_contain_text("hot: 17")
        expect(biased.locator("rect.bar")).to_have_count(37)
        seventeen = int(biased.locator('rect[data-category="17"]').get_attribute("data-observed") or 0)
        assert seventeen > 0
        expect(page.locator("#bias-fair-wheel-pocket")).to_contain_text("Fair so far")
        check_screen(page, "technician-bias", size)
    finally:
        ctx.close()
