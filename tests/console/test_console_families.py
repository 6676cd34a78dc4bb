"""The family pages' API against real drivers and simulators: the shoe decoder test (a simulated serial shoe on a
pty, a camera shoe decoding an uploaded card image rendered like the simulator's frames), the ball-set check with
a simulated Modbus machine, the money wheel's calibration with a simulated encoder, the overhead camera's
figures; the dice and ball result forms checked by the games' own rules; a dealer refused on every technician
endpoint."""

from __future__ import annotations

import random

import cv2
import pytest
from console_helpers import add_users, assert_no_studio_threads, start_custom

from devices.balls.events import BallRead, BallUnreadable
from recognition.games import game_rules
from studio.table import DeviceSlot, Table


def _extra(studio):
    dice = Table(
        "dice-1",
        game_rules("dice_duel"),
        studio.journal,
        devices=[DeviceSlot("dice-1/camera", "dice-camera", "camera", "SIM-DICE")],
        betting_seconds=60,
    )
    balls = Table(
        "balls-1",
        game_rules("lucky_5"),
        studio.journal,
        devices=[
            DeviceSlot("balls-1/machine", "modbus-ball-machine", "machine", "LOTO-X"),
            DeviceSlot("balls-1/reader", "serial-ball-reader", "reader", "RFID-X"),
        ],
        betting_seconds=60,
    )
    return [dice, balls]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    data = tmp_path_factory.mktemp("console-families") / "data"
    frames = tmp_path_factory.mktemp("no-frames")
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
                    "simulator": {"seed": 3},
                },
            },
            {
                "id": "shoe-c",
                "game": "baccarat",
                "device": {
                    "kind": "camera-shoe",
                    "role": "shoe",
                    "url": f"dir:{frames}",
                    "serial_number": "SHOE-C",
                },
            },
            {
                "id": "draw-1",
                "game": "lucky_5",
                "devices": [
                    {
                        "kind": "modbus-ball-machine",
                        "role": "machine",
                        "url": "simulator",
                        "serial_number": "LOTO-1",
                        "options": {"poll_interval": 0.05},
                        "simulator": {
                            "options": {
                                "machine_id": "console-draw-1",
                                "ball_set": "1-36",
                                "transport": "tcp",
                            }
                        },
                    },
                    {
                        "kind": "serial-ball-reader",
                        "role": "reader",
                        "url": "simulator",
                        "serial_number": "RFID-1",
                        "options": {"ball_set": "1-36"},
                        "simulator": {"options": {"machine_id": "console-draw-1"}},
                    },
                ],
            },
            {
                "id": "mw-1",
                "game": "dream_catcher",
                "settings": {
                    "sensors": ["encoder"],
                    "calibration": {"zero_offset": 0, "counting": "clockwise"},
                },
                "device": {
                    "kind": "wheel-encoder",
                    "role": "encoder",
                    "url": "simulator",
                    "serial_number": "ENC-1",
                    "options": {"poll_interval": 0.05},
                },
            },
            {
                "id": "cam-1",
                "game": "european_roulette",
                "device": {
                    "kind": "roulette-camera",
                    "role": "camera",
                    "url": f"dir:{frames}",
                    "serial_number": "CAM-1",
                    "options": {"calibration": {"center": [640, 360], "radius": 300, "preset": "european"}},
                },
            },
        ],
        extra=_extra,
    )
    yield run
    run.server.stop()
    assert_no_studio_threads()


def page(p, table: str, role: str) -> dict:
    r = p.get(f"/console/api/devices/{table}/{role}/page")
    assert r.status_code == 200, r.text
    return r.json()["page"]


# --- roles ---------------------------------------------------------------------------------------------------


TECH_GETS = [
    "/console/api/devices/shoe-s/shoe/page",
    "/console/api/devices/cam-1/camera/frame",
    "/console/api/devices/draw-1/machine/page",
    "/console/api/devices/mw-1/encoder/page",
    "/console/api/devices/cam-1/camera/page",
    "/console/api/devices/dice-1/camera/page",
]
TECH_POSTS = [
    ("/console/api/devices/shoe-s/shoe/decode", {"payload": "1047293012"}),
    ("/console/api/devices/shoe-c/shoe/decode-image", None),
    ("/console/api/devices/draw-1/machine/command", {"command": "release_ball", "confirm": True}),
    ("/console/api/devices/mw-1/encoder/command", {"command": "mark_zero", "confirm": True}),
]


def test_a_dealer_is_refused_on_every_technician_endpoint(env, people):
    for who in ("dealer", "supervisor"):
        p = people(env.url, who)
        for path in TECH_GETS:
            assert p.get(path).status_code == 403, (who, path)
        for path, body in TECH_POSTS:
            if body is None:
                r = p.client.post(
                    path,
                    content=b"\x89PNG",
                    headers={"X-CSRF-Token": p.me["csrf"], "Content-Type": "image/png"},
                )
            else:
                r = p.post(path, body)
            assert r.status_code == 403, (who, path, r.text)
    # and a technician may not enter results (the result check is a dealer's tool)
    tom = people(env.url, "technician")
    assert (
        tom.post("/console/api/tables/dice-1/check-result", {"result": {"red": 1, "blue": 2}}).status_code
        == 403
    )


# --- the shoe decoder test -------------------------------------------------------------------------------------


def test_serial_shoe_page_shows_the_last_barcodes_and_the_vendor_tables_verdict(env, people):
    tom = people(env.url, "technician")
    env.wait(lambda: env.table("shoe-s").devices["shoe-s/shoe"].driver.connected, what="the serial shoe")
    sim = env.studio.simulator("shoe-s")
    sim.inject("unknown_barcode", payload="PROMO-0042")
    sim.deal_card("QH")
    env.wait(lambda: len(page(tom, "shoe-s", "shoe")["reads"]) >= 2, what="two reads in the page")
    data = page(tom, "shoe-s", "shoe")
    assert data["vendor"]["name"] and data["vendor"]["symbology"] == "code128"
    assert data["decoder"]["name"] == "the shoe's own scanner"
    newest, older = data["reads"][0], data["reads"][1]
    assert newest["card"] == "QH" and newest["text"] == "card QH" and newest["table_says"] == "card QH"
    assert older["payload"] == "PROMO-0042" and older["text"] == "unknown barcode"
    assert (
        data["figures"]["cards"] >= 1 and data["figures"]["unknown"] >= 1 and "unreadable" in data["figures"]
    )
    assert data["image_test"] is False  # the scanner decodes: no image test for a serial shoe
    table = env.table("shoe-s").devices["shoe-s/shoe"].driver.table
    good = table.encode("AS", deck=104729, pack=3)
    r = tom.post("/console/api/devices/shoe-s/shoe/decode", {"payload": good}).json()
    assert r["status"] == "card" and r["card"] == "AS" and r["deck"] == "104729" and r["text"] == "card AS"
    bad = good[:-1] + str((int(good[-1]) + 1) % 10)
    assert (
        tom.post("/console/api/devices/shoe-s/shoe/decode", {"payload": bad}).json()["status"] == "bad_check"
    )
    assert (
        tom.post("/console/api/devices/shoe-s/shoe/decode", {"payload": "HELLO"}).json()["text"]
        == "unknown barcode"
    )
    assert (
        tom.post("/console/api/devices/shoe-s/shoe/decode", {"payload": "CUT"}).json()["text"]
        == "the cut card"
    )
    assert tom.post("/console/api/devices/draw-1/reader/decode", {"payload": "X"}).status_code == 400


def card_png(card: str = "7D", seed: int = 5) -> bytes:
    from devices.shoe.vendor_table import default_vendor_table
    from simulators.shoe import CardRenderer, Shoe

    shoe = Shoe(default_vendor_table(), decks=1, seed=seed)
    image = CardRenderer(seed=seed).still(shoe.take(card), random.Random(seed))
    ok, png = cv2.imencode(".png", image)
    assert ok
    return png.tobytes()


def test_camera_shoe_decodes_an_uploaded_card_image_as_the_shoe_would(env, people):
    tom = people(env.url, "technician")
    data = page(tom, "shoe-c", "shoe")
    assert data["image_test"] is True and data["decoder"]["name"] == "zxing"
    r = tom.client.post(
        "/console/api/devices/shoe-c/shoe/decode-image",
        content=card_png("7D"),
        headers={"X-CSRF-Token": tom.me["csrf"], "Content-Type": "image/png"},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert [p["card"] for p in body["payloads"]] == ["7D"] and body["text"] == "card 7D"
    assert body["decoder"] == "zxing" and body["cards_in_view"] == 1
    blank = cv2.imencode(".png", cv2.UMat(200, 300, cv2.CV_8UC3).get() * 0)[1].tobytes()
    r = tom.client.post(
        "/console/api/devices/shoe-c/shoe/decode-image",
        content=blank,
        headers={"X-CSRF-Token": tom.me["csrf"], "Content-Type": "image/png"},
    )
    assert (
        r.status_code == 200 and r.json()["payloads"] == [] and r.json()["text"].startswith("no barcode read")
    )
    r = tom.client.post(
        "/console/api/devices/shoe-c/shoe/decode-image",
        content=b"not an image",
        headers={"X-CSRF-Token": tom.me["csrf"], "Content-Type": "image/png"},
    )
    assert r.status_code == 400 and "not an image" in r.text
    r = tom.client.post(
        "/console/api/devices/shoe-s/shoe/decode-image",
        content=card_png(),
        headers={"X-CSRF-Token": tom.me["csrf"], "Content-Type": "image/png"},
    )
    assert r.status_code == 409  # a serial shoe decodes in its scanner
    tests = [x for x in env.records("console_action") if x["action"] == "decoder_test"]
    assert tests and tests[0]["by"] == "tom" and tests[0]["payloads"]


# --- the ball-set check ------------------------------------------------------------------------------------------


def test_ball_set_page_shows_the_check_and_the_machines_modbus_state(env, people):
    tom = people(env.url, "technician")
    env.wait(
        lambda: (page(tom, "draw-1", "machine")["machine"] or {}).get("state"),
        what="the machine's first poll",
    )
    data = page(tom, "draw-1", "machine")
    m = data["machine"]
    assert m["connected"] and m["register_map"].startswith("generic") and "127.0.0.1" in m["target"]
    assert m["state"]["state"] == "idle" and m["state"]["blower"] is False and m["state"]["fault_code"] == 0
    assert data["reader"]["ball_set"] and data["balls"][:2] == ["1", "2"] and len(data["balls"]) == 36
    assert data["opening_check"]["required"] is True and data["opening_check"]["passed"] is False
    # the technician runs the check from the page (the table's own opening-check actions)
    r = tom.post("/console/api/tables/balls-1/actions/start_opening_check")
    assert r.status_code == 200, r.text
    table = env.table("balls-1")
    events = [BallRead(device_id="balls-1/reader", tag=f"BALL{n:03d}", ball=str(n)) for n in range(1, 36)]
    events += [
        BallRead(device_id="balls-1/reader", tag="BALL007", ball="7"),
        BallUnreadable(device_id="balls-1/reader", reason="NOREAD"),
    ]
    for e in events:
        env.on_loop(lambda e=e: table.device_event(e))
    data = page(tom, "balls-1", "reader")
    report = data["opening_check"]["report"]
    assert (
        data["opening_check"]["running"]
        and report["missing"] == ["36"]
        and report["duplicated"] == ["BALL007"]
    )
    assert report["unreadable"] == 1 and [r["ball"] for r in data["reads"] if r["kind"] == "ball_read"][
        :3
    ] == ["1", "2", "3"]
    assert (
        data["reads"][-1]["kind"] == "ball_unreadable" and data["machine"]["state"] is None
    )  # no driver here
    finished = tom.post("/console/api/tables/balls-1/actions/finish_opening_check").json()
    assert finished["result"]["ok"] is False and "Missing: 36" in finished["result"]["message"]
    assert page(tom, "balls-1", "reader")["opening_check"]["passed"] is False
    reader = tom.get("/console/api/devices/draw-1/reader").json()
    assert reader["family"]["commands"] == []  # a reader takes no commands; the machine does
    assert "release_ball" in tom.get("/console/api/devices/draw-1/machine").json()["family"]["commands"]


# --- the money wheel -------------------------------------------------------------------------------------------------


def test_money_wheel_page_shows_layout_calibration_and_what_a_zero_mark_would_set(env, people):
    tom = people(env.url, "technician")

    def connected_encoder() -> dict | None:
        d = page(tom, "mw-1", "encoder")
        return d if d["sensors"] and d["sensors"][0].get("connected") else None

    data = env.wait(connected_encoder, what="the encoder")
    game = game_rules("dream_catcher")
    assert data["segments"] == 54 and [s["label"] for s in data["layout"]] == game.default_layout().labels()
    assert data["calibration"]["zero_offset"] == 0 and data["calibration"]["counting"] == "clockwise"
    # the spin rule and the sensors as the judge applies them (the table's settings, the game's defaults)
    assert data["sensors_setting"] == ["encoder"]
    assert data["direction"] == "either" and data["min_turns"] == "2"
    enc = data["sensors"][0]
    if enc.get("position") is not None:
        assert enc["mark_zero_would_set"] == enc["position"] and 0 <= enc["segment"] < 54
        assert enc["label"] == data["layout"][enc["segment"]]["label"]
    detail = tom.get("/console/api/devices/mw-1/encoder").json()
    assert detail["family"]["page"] == "money_wheel" and "mark_zero" in detail["family"]["commands"]
    r = tom.post("/console/api/devices/mw-1/encoder/command", {"command": "mark_zero"})
    assert r.status_code == 409 and r.json()["detail"]["needs_confirm"]  # a technician confirms first


# --- the overhead camera -------------------------------------------------------------------------------------------


def test_roulette_camera_page_gives_its_figures_and_its_latest_frame(env, people):
    tom = people(env.url, "technician")
    data = page(tom, "cam-1", "camera")
    assert data["calibration"]["order"][:3] == ["0", "32", "15"] and data["calibration"]["radius"] == 300
    assert data["has_frame"] is True and data["missing"] == []
    assert data["figures"]["connected"] is False and data["last_at_rest"] is None
    assert tom.get("/console/api/devices/cam-1/camera/frame").status_code == 404  # no frame has come yet
    import numpy as np

    driver = env.table("cam-1").devices["cam-1/camera"].driver
    driver.process_frame(np.full((360, 640, 3), 40, np.uint8), 0.0)
    frame = tom.get("/console/api/devices/cam-1/camera/frame")
    assert frame.status_code == 200 and frame.headers["content-type"] == "image/jpeg"
    assert frame.content[:2] == b"\xff\xd8"  # a JPEG's start-of-image marker
    overlay = page(tom, "cam-1", "camera")["overlay"]
    assert overlay["width"] == 640 and overlay["height"] == 360 and overlay["balls"] == []


# --- results entered by hand -------------------------------------------------------------------------------------------


def test_a_dice_result_is_checked_by_the_game_and_entered_with_a_supervisor(env, people):
    dana = people(env.url, "dealer")
    meta = dana.get("/console/api/tables/dice-1").json()["meta"]
    assert meta["result_form"]["type"] == "dice"
    check = dana.post("/console/api/tables/dice-1/check-result", {"result": {"red": 7, "blue": 2}})
    assert check.status_code == 400 and "red die" in check.json()["detail"]["error"]
    ok = dana.post("/console/api/tables/dice-1/check-result", {"result": {"red": 5, "blue": 2}}).json()
    assert ok == {"ok": True, "result": {"red": 5, "blue": 2}}
    assert dana.post("/console/api/tables/dice-1/actions/open_round").status_code == 200
    assert dana.post("/console/api/tables/dice-1/actions/close_betting").status_code == 200
    bad = dana.post(
        "/console/api/tables/dice-1/actions/manual_result",
        {
            "result": {"red": 0, "blue": 2},
            "reason": "camera lost",
            "approval": {"username": "sam", "secret": "975312"},
        },
    )
    assert bad.status_code == 409 and "red die" in bad.json()["detail"]["error"]  # the game's own message
    good = dana.post(
        "/console/api/tables/dice-1/actions/manual_result",
        {
            "result": {"red": 5, "blue": 2},
            "reason": "camera lost",
            "approval": {"username": "sam", "secret": "975312"},
        },
    )
    assert good.status_code == 200, good.text
    assert good.json()["view"]["round"]["result"] == {"red": 5, "blue": 2}


def test_a_draw_entered_by_hand_is_refused_with_the_games_message(env, people):
    dana = people(env.url, "dealer")
    meta = dana.get("/console/api/tables/balls-1").json()["meta"]
    assert meta["result_form"]["type"] == "balls" and meta["result_form"]["draw_count"] == 5
    r = dana.post("/console/api/tables/balls-1/check-result", {"result": {"balls": ["1", "2", "3", "4"]}})
    assert r.status_code == 400 and "draws 5 balls" in r.json()["detail"]["error"]
    r = dana.post(
        "/console/api/tables/balls-1/check-result", {"result": {"balls": ["1", "2", "3", "3", "4"]}}
    )
    assert r.status_code == 400
