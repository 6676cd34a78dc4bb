"""Calibration in a minute, in Debian's Chromium: a technician gives the dice camera's page a picture of the
empty tray and one of dice at rest (drawn by simulators.dice), sees the felt, the die size, the die colours and
the dice found, accepts, and the journal has the new version."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest
from console_helpers import PINS, add_users, assert_no_studio_threads, check_screen, start_custom
from playwright.sync_api import expect
from waiting import WAIT_S

from dealer_ui.dice import router as dice_router
from simulators import dice as sim

W, H = 640, 360
TIMEOUT = int(WAIT_S * 1000)  # ms


def _pictures(folder):
    """An empty tray and three white dice at rest on it, one camera, one light."""
    rng = random.Random(4)
    g = sim.TrayGeometry.for_frame(W, H)
    view = sim.CameraView(width=W, height=H)
    throw = sim.random_throw(rng, g, ["white"] * 3, touching=0.0)
    look = sim.random_look(rng, hard=False)
    empty = sim.render([], g, view, look, np.random.default_rng(1))
    dice = sim.render(throw.dice, g, view, look, np.random.default_rng(2))
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "empty.png"), empty)
    cv2.imwrite(str(folder / "dice.png"), dice)
    return folder / "empty.png", folder / "dice.png", g.die_size


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    base = tmp_path_factory.mktemp("console-dice-calibration")
    data = base / "data"
    add_users(data)
    run = start_custom(
        data,
        [
            {
                "id": "sicbo-1",
                "game": "sic_bo",
                "betting_seconds": 60,
                "settings": {"calibration": sim.calibration_document(sim.TrayGeometry.for_frame(W, H))},
                "devices": [
                    {
                        "kind": "dice-camera",
                        "role": "camera-1",
                        "url": "simulator",
                        "serial_number": "SIM-1",
                        "options": {"sample_fps": 2, "heartbeat_s": 0.5},
                        "simulator": {
                            "seed": 7,
                            "options": {
                                "colors": ["white"] * 3,
                                "width": W,
                                "height": H,
                                "fps": 4,
                                "hard": False,
                            },
                        },
                    }
                ],
            }
        ],
        routers=lambda studio, console: [dice_router(studio, console)],
    )
    run.data = data
    run.pictures = _pictures(base / "upload")
    yield run
    run.server.stop()
    assert_no_studio_threads()


def test_technician_derives_a_calibration_from_two_pictures_and_accepts_it(env, browser):
    empty, dice, side = env.pictures
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(TIMEOUT)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{env.url}/console/?next=/console/tech/sicbo-1/camera-1")
        name, pin = PINS["technician"]
        page.fill("#username", name)
        page.fill("#pin", pin)
        page.click("#sign-in")
        page.wait_for_url("**/console/tech/sicbo-1/camera-1")

        # the camera's own frame can be taken too; the uploaded picture then replaces it
        page.click("#dice-cal-empty-grab")
        expect(page.locator("#dice-cal-empty-status")).to_contain_text("from sicbo-1/camera-1 frame")
        page.set_input_files("#dice-cal-empty-file", str(empty))
        expect(page.locator("#dice-cal-empty-status")).to_contain_text(f"{W} \u00d7 {H} from upload")
        page.set_input_files("#dice-cal-dice-file", str(dice))
        expect(page.locator("#dice-cal-dice-status")).to_contain_text("from upload")

        page.fill("#dice-cal-count", "3")
        page.click("#dice-cal-derive")
        expect(page.locator("#dice-cal-found")).to_have_text("3")
        expect(page.locator("#dice-cal-colors li")).to_have_count(1)
        assert page.locator("#dice-cal-colors li").get_attribute("data-color") == "white"
        expect(page.locator("#dice-cal-felt")).to_contain_text("#")
        expect(page.locator("#dice-cal-version")).to_contain_text("v2")
        shown = float(page.locator("#dice-cal-die-size").inner_text().split(" px")[0])
        assert abs(shown - side) / side < 0.2, shown
        page.wait_for_function("document.querySelector('#dice-cal-drawn').naturalWidth > 0")
        assert page.locator(".dice-cal-warning").count() == 0
        check_screen(page, "technician-dice-calibration", (1280, 900))

        page.click("#dice-cal-accept")
        expect(page.locator("#dice-cal-accepted")).to_contain_text("Version 2 accepted and journaled")
        expect(page.locator("#dice-calibration")).to_contain_text("v2")

        records = env.records("dice_calibration_accepted")
        assert len(records) == 1
        rec = records[0]
        assert (rec["version"], rec["by"], rec["device_id"], rec["dice_found"]) == (
            2,
            "tom",
            "sicbo-1/camera-1",
            3,
        )
        assert rec["colors"] == ["white"] and rec["replaces"].startswith("1/")
        assert rec["pictures"]["empty"]["source"] == "upload"
        stored = json.loads((env.data / rec["file"]).read_text())
        assert stored["version"] == 2 and stored["die_size"][0] < side < stored["die_size"][1]
        assert errors == []
    finally:
        ctx.close()
