"""CameraShoeDriver end to end: the simulator's rendered frames over TCP, through OpenCV and both decoders.

Every fault of the simulator leads to the event that makes the judge hold, never to a wrong card.
"""

from __future__ import annotations

import random
import socket
import threading

import cv2
import numpy as np
import pytest
from waiting import WAIT_S, until

from devices.base import DeviceNotConnected
from devices.camera.frames import pack_frame
from devices.events import CardDrawn
from devices.registry import driver_class
from devices.shoe.camera_shoe import CameraShoeDriver
from devices.shoe.vendor_table import default_vendor_table
from simulators.shoe import CardRenderer, Imaging, Shoe, ShoeSimulator

T = default_vendor_table()
FAST = {"reconnect_min": 0.02, "reconnect_max": 0.2}


@pytest.fixture
def stack():
    """Simulators and drivers made by a test, all stopped after it."""
    made: list = []
    yield made
    for thing in reversed(made):
        thing.stop()


def camera(stack, events, *, seed: int = 11, sim_options=None, **options):
    # 60 frames a second: the simulator renders as fast as one core allows; capture times stay exact
    sim = ShoeSimulator(
        "camera", seed=seed, deal_interval=0.05, auto_deal=False, view_frames=4, fps=60, **(sim_options or {})
    )
    stack.append(sim)
    sim.start()
    driver = CameraShoeDriver("table-1/shoe", sim.url, events, **{**FAST, **options})
    stack.append(driver)
    driver.start()
    events.wait_kind("device_connected")
    return sim, driver


def settle(sim, driver, events) -> list:
    """The card events of what the simulator dealt: once it is idle, the driver has analysed ten more frames
    (a TCP buffer holds about one 1280x720 frame, and a card is reported two empty frames after it left)."""
    assert sim.wait_idle(WAIT_S), "the simulator did not finish dealing"
    analysed = driver.health()["counters"]["frames"]
    until(lambda: driver.health()["counters"]["frames"] >= analysed + 10, "ten frames after the last card")
    return events.cards(events.drain())


def test_registry_builds_the_camera_shoe():
    assert driver_class("camera-shoe") is CameraShoeDriver


@pytest.mark.parametrize("decoder", ["zxing", "pyzbar"])
def test_cards_and_every_fault_end_to_end(stack, events, decoder):
    sim, driver = camera(stack, events, decoder=decoder)
    sim.deal(4)
    sim.inject("unreadable")
    sim.deal(1)
    sim.inject("double_read")
    sim.deal(1)
    sim.inject("pull_back", gap=0.3)  # pushed back and drawn again within the fold window
    sim.deal(1)
    sim.inject("unknown_barcode")
    sim.inject("other_shoe", card="9C")
    sim.deal(2)
    sim.deal_card("CUT")
    got = settle(sim, driver, events)
    truth = sim.dealt
    # 4 cards, unreadable, double read, pull back, PROMO (extra), card, other shoe (extra), card, cut card
    assert len(truth) == 12 and truth[7].payload == "PROMO-0042" and truth[9].deck == "104730"
    summary = [(e.kind, getattr(e, "card", None)) for e in got]
    expected = (
        [("card_drawn", c.card) for c in truth[:4]]
        + [("card_unreadable", None)]
        + [
            ("card_drawn", truth[5].card),  # double read: one card
            ("card_drawn", truth[6].card),  # pulled and pushed back within the window: one card
            ("card_drawn", None),  # unknown barcode
            ("card_drawn", truth[8].card),
            ("card_drawn", "9C"),  # other shoe
            ("card_drawn", truth[10].card),
            ("card_drawn", None),  # the cut card
        ]
    )
    assert summary == expected, "\n".join(
        [
            f"{e.kind} {getattr(e, 'card', '')} {getattr(e, 'payload', '')} {getattr(e, 'reason', '')} {e.raw}"
            for e in got
        ]
        + [f"truth {[(c.card, c.payload) for c in truth]}", f"{driver.health()['counters']}"]
    )
    drawn = [e for e in got if isinstance(e, CardDrawn)]
    assert [e.payload for e in drawn] == [c.payload for i, c in enumerate(truth) if i != 4]
    assert drawn[6].payload == "PROMO-0042" and drawn[6].deck is None
    assert drawn[8].deck == "104730" and all(
        e.deck == "104729" for i, e in enumerate(drawn) if i not in (6, 8, 10)
    )
    assert drawn[-1].special == "cut_card"
    assert got == sorted(got, key=lambda e: e.at)
    h = driver.health()
    assert h["connected"] and h["device"]["decoder"] == decoder and h["counters"]["frames"] > 50
    assert h["device"]["frame_ms_p50"] is not None


def test_pulled_back_and_drawn_again_after_the_window_is_reported_twice(stack, events):
    sim, driver = camera(stack, events, fold_window=0.3)
    sim.inject("pull_back", gap=1.5)
    card = sim.deal_card("7S")
    got = settle(sim, driver, events)
    assert [(e.kind, e.payload) for e in got] == [("card_drawn", card.payload)] * 2
    # the same payload twice: one physical card (set serial + pack + card), which the judge can see


def test_the_source_dropping_pauses_and_the_driver_reconnects(stack, events):
    sim, driver = camera(stack, events)
    sim.deal(1)
    assert settle(sim, driver, events)[0].card == sim.dealt[0].card
    sim.disconnect_client()
    lost = events.wait_kind("device_disconnected")
    assert "closed" in lost.reason or "failed" in lost.reason
    events.wait_kind("device_connected")
    sim.deal(1)
    again = settle(sim, driver, events)
    assert [(e.kind, e.card) for e in again] == [("card_drawn", sim.dealt[1].card)]
    assert driver.health()["counters"]["connects"] == 2


def test_a_silent_source_is_dropped_and_a_card_in_view_is_reported(stack, events):
    renderer = CardRenderer(Imaging(), "code128", seed=5)
    rng = random.Random(5)
    card = Shoe(T, decks=1, seed=5, cut_card=None).next()
    frames = [renderer.still(card, rng, damaged=True) for _ in range(3)]
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    release = threading.Event()

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            for i, f in enumerate(frames):
                conn.sendall(pack_frame(f, i))
            release.wait(10)  # then nothing: a camera that froze

    t = threading.Thread(target=serve, name="test-frozen-camera")
    t.start()
    try:
        driver = CameraShoeDriver(
            "t/shoe", f"tcp://127.0.0.1:{server.getsockname()[1]}", events, frame_timeout=0.4, **FAST
        )
        stack.append(driver)
        driver.start()
        events.wait_kind("device_connected")
        unreadable = events.wait_kind("card_unreadable")
        assert "not read yet" in unreadable.reason
        assert "no frame for" in events.wait_kind("device_disconnected").reason
    finally:
        release.set()
        driver.stop()
        t.join()
        server.close()


def test_a_folder_of_frames_and_a_video_file(tmp_path, events, stack):
    shoe = Shoe(T, decks=1, seed=8, cut_card=None)
    renderer = CardRenderer(Imaging(), "code128", seed=8)
    rng = random.Random(8)
    cards = [shoe.next() for _ in range(2)]
    frames = []
    for c in cards:
        frames += [
            renderer.empty_frame(rng) if f is None else f for f in renderer.passage(c, rng, view_frames=4)
        ]
        frames += [renderer.empty_frame(rng) for _ in range(3)]
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, f in enumerate(frames):
        cv2.imwrite(str(folder / f"{i:05d}.png"), f, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    video = tmp_path / "shoe.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30, (1280, 720))
    assert writer.isOpened()
    for f in frames:
        writer.write(f)
    writer.release()
    for url in (str(folder), f"file:{video}"):
        driver = CameraShoeDriver("t/shoe", url, events, **FAST)
        stack.append(driver)
        driver.start()
        events.wait_kind("device_connected")
        ended = events.wait_kind("device_disconnected")
        assert "ended" in ended.reason
        got = events.cards()
        events.seen.clear()
        assert [(e.kind, e.card) for e in got] == [("card_drawn", c.card) for c in cards], url
        driver.stop()


def test_options_are_checked_when_the_driver_is_built(events):
    with pytest.raises(ValueError, match="decoder"):
        CameraShoeDriver("t", "tcp://127.0.0.1:1", events, decoder="opencv")
    with pytest.raises(ValueError, match="DataMatrix"):
        CameraShoeDriver("t", "tcp://127.0.0.1:1", events, decoder="pyzbar", symbology="datamatrix")
    with pytest.raises(ValueError, match="fold_windw"):
        CameraShoeDriver("t", "tcp://127.0.0.1:1", events, fold_windw=1)
    with pytest.raises(ValueError, match="not a frame source"):
        CameraShoeDriver("t", "nowhere", events)
    d = CameraShoeDriver(
        "t", "tcp://127.0.0.1:1", events, decoder="zxing-cpp", symbology="qr", find={"min_level": 120}
    )
    assert d.decoder_name == "zxing" and d.symbology == "qr" and d.opts.find.min_level == 120
    with pytest.raises(DeviceNotConnected, match="takes no commands"):
        d.send("T")


def test_process_frame_directly(events):
    d = CameraShoeDriver("t", "tcp://127.0.0.1:1", events, confirm_reads=1)
    card = Shoe(T, decks=1, seed=2, cut_card=None).next()
    frame = CardRenderer(Imaging(), "code128", seed=2).still(card, random.Random(2))
    (e,) = d.process_frame(frame, now=0.0, index=1)
    assert (e.card, e.payload) == (card.card, card.payload)
    assert d.process_frame(np.zeros((720, 1280), np.uint8), now=0.1, index=2) == []
