"""The dice camera's technician page in Debian's Chromium: the live picture, and an accuracy run over a folder of
labelled pictures in the studio's pictures folder (and nothing outside it)."""

from __future__ import annotations

import re

import pytest
from console_helpers import PINS, add_users, assert_no_studio_threads, check_screen, start_custom
from playwright.sync_api import expect
from waiting import WAIT_S

from dealer_ui.dice import router as dice_router
from simulators.dice import TrayGeometry, calibration_document, write_dataset

W, H = 640, 360
TIMEOUT = int(WAIT_S * 1000)  # ms


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-dice-e2e") / "data"
    add_users(data)
    write_dataset(
        data / "pictures" / "camera-1",
        4,
        colours=("white", "white", "white"),
        seed=3,
        width=W,
        height=H,
        hard=False,
        touching=0.0,
    )
    run = start_custom(
        data,
        [
            {
                "id": "sicbo-1",
                "game": "sic_bo",
                "betting_seconds": 60,
                "settings": {"calibration": calibration_document(TrayGeometry.for_frame(W, H))},
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
                                "colors": ["white", "white", "white"],
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
    yield run
    run.server.stop()
    assert_no_studio_threads()


def test_technician_runs_accuracy_over_a_folder_of_the_pictures_folder(env, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
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
        root = str((env.data / "pictures").resolve())
        expect(page.locator("#dice-pictures-root")).to_have_text(root)
        expect(page.locator("#dice-folders option")).to_have_count(1)
        assert page.locator("#dice-folders option").get_attribute("value") == "camera-1"

        page.fill("#dice-folder", "camera-1")
        page.fill("#dice-count", "3")
        page.click("#dice-run-accuracy")
        figures = page.locator("#dice-accuracy-figures")
        expect(figures).to_contain_text("Pictures4")
        expect(figures).to_contain_text("WRONG while ok0")
        expect(figures).to_contain_text(re.compile(r"Read correctly[34]"))
        check_screen(page, "technician-dice-accuracy", (1280, 800))

        page.fill("#dice-folder", "/etc")
        page.click("#dice-run-accuracy")
        expect(page.locator("#dice-accuracy-report")).to_contain_text(
            "only from the studio's pictures folder"
        )
        assert errors == []
    finally:
        ctx.close()
