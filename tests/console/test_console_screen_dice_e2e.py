"""A dice table on the dealer's screen in Chromium, at 1280x800 and 1920x1080: the "Devices read" panel says
what the camera sees in the dealer's words (moving, at rest) and the faces read, never the camera's raw frame
records (frame numbers, capture times, picture sizes)."""

from __future__ import annotations

import pytest
from console_helpers import add_users, assert_no_studio_threads, check_screen, signed_in_page, start_custom
from playwright.sync_api import expect
from waiting import WAIT_S

from simulators.dice import TrayGeometry, calibration_document

W, H = 640, 360
TIMEOUT = int(WAIT_S * 1000)  # ms
RAW = ("frame_number", "captured_at", "stream_ms", "still_frames", "width", "height")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-screen-dice") / "data"
    add_users(data)
    run = start_custom(
        data,
        [
            {
                "id": "sicbo-1",
                "game": "sic_bo",
                "betting_seconds": 120,
                "settings": {"calibration": calibration_document(TrayGeometry.for_frame(W, H))},
                "devices": [
                    {
                        "kind": "dice-camera",
                        "role": "camera-1",
                        "url": "simulator",
                        "serial_number": "SIM-1",
                        "options": {"sample_fps": 6, "heartbeat_s": 0.5, "linger_s": 1.5},
                        "simulator": {
                            "speed": 6.0,
                            "seed": 11,
                            "options": {
                                "colors": ["white", "white", "white"],
                                "width": W,
                                "height": H,
                                "fps": 10,
                                "hard": False,
                                "touching": 0.0,
                                "throw_delay_s": 0.3,
                            },
                        },
                    }
                ],
            }
        ],
    )
    yield run
    run.server.stop()
    assert_no_studio_threads()


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_dice_tables_devices_read_panel_speaks_the_dealers_words(env, browser, size):
    ctx, page, errors = signed_in_page(browser, env.url, size, "dealer", "/console/table/sicbo-1", TIMEOUT)
    try:
        page.locator("#action-open_round").click()
        expect(page.locator("#phase")).to_have_attribute("data-state", "betting_open")
        page.locator("#action-close_betting").click()  # the simulator throws when betting closes
        live = page.locator("#live")
        expect(live.locator("#dice-live")).to_contain_text("camera 1: the dice are")
        expect(page.locator("#phase")).to_have_attribute("data-state", "certified")
        round_id = env.table("sicbo-1").snapshot()["round"]["round_id"]
        faces = next(m for m in env.feed() if m["kind"] == "result" and m["round_id"] == round_id)["result"][
            "dice"
        ]
        read = live.locator("#dice-read")
        expect(read).to_contain_text("Faces read")
        expect(read.locator(".die")).to_have_count(len(faces))
        labels = [read.locator(".die").nth(i).get_attribute("aria-label") for i in range(len(faces))]
        assert labels == [f"die {f}" for f in faces]
        text = live.inner_text()
        for word in RAW:
            assert word not in text, (word, text)
        check_screen(page, "screen-dice-devices-read", size)
        assert errors == []
    finally:
        ctx.close()
