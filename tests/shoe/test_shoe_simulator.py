"""The shoe simulator: seeded shoes, faults, the frame stream, and dealing for the studio's rounds."""

from __future__ import annotations

import itertools
import socket
import threading
import time
from collections import Counter

import numpy as np
import pytest
from waiting import WAIT_S

from devices.camera.frames import (
    HEADER,
    FrameStreamError,
    SourceError,
    TcpFrameSource,
    open_source,
    pack_frame,
)
from devices.shoe.vendor_table import default_vendor_table
from simulators.shoe import SIMULATORS, Shoe, ShoeSimulator

T = default_vendor_table()


def test_a_seeded_shoe_is_reproducible_and_complete():
    a, b, c = (Shoe(T, decks=8, seed=s) for s in (42, 42, 43))
    deal_a = [a.next() for _ in range(417)]
    assert deal_a == [b.next() for _ in range(417)]
    assert deal_a != [c.next() for _ in range(417)]
    cards = [x for x in deal_a if x.special is None]
    assert len(cards) == 416 and len({x.payload for x in cards}) == 416  # one payload per physical card
    assert Counter(x.card for x in cards) == Counter({card: 8 for card in T.cards if card != "JK"})
    assert {x.deck for x in cards} == {"104729"} and {x.pack for x in cards} == set(range(8))
    cut = [i for i, x in enumerate(deal_a) if x.special == "cut_card"]
    assert cut == [312] and deal_a[312].payload == "CUT"  # 75 % into 416 cards
    assert all(T.lookup(x.payload).card == x.card for x in cards)


def test_the_shoe_is_reshuffled_when_it_runs_out():
    shoe = Shoe(T, decks=1, seed=1, cut_card=None, jokers=True)
    first = [shoe.next() for _ in range(54)]
    assert shoe.remaining == 0 and shoe.shoes == 1
    second = [shoe.next() for _ in range(54)]
    assert shoe.shoes == 2 and sorted(c.payload for c in first) == sorted(c.payload for c in second)
    assert [c.payload for c in first] != [c.payload for c in second]
    assert Counter(c.card for c in first)["JK"] == 2


def test_take_and_foreign_cards():
    shoe = Shoe(T, decks=2, seed=5)
    ace = shoe.take("AS")
    assert ace.card == "AS" and shoe.remaining == 104  # 104 cards + cut card - 1
    other = shoe.other_shoe(card="KD")
    assert other.card == "KD" and other.deck == "104730" and T.lookup(other.payload).deck == "104730"
    assert shoe.take("AS").card == "AS"
    with pytest.raises(ValueError, match="no AS left"):
        shoe.take("AS")
    with pytest.raises(ValueError):
        Shoe(T, decks=11)


def test_simulators_registry():
    sim, url = SIMULATORS["serial-shoe"](speed=1.0, seed=1, decks=2)
    try:
        assert url == sim.url and url.startswith("/dev/pts/") and sim.transport == "serial"
    finally:
        sim.stop()
    sim, url = SIMULATORS["camera-shoe"](speed=1.0, seed=1, decks=2)
    try:
        assert url.startswith("tcp://127.0.0.1:") and sim.transport == "camera"
    finally:
        sim.stop()


def test_table_event_deals_cards_per_round_once_per_round():
    sim = ShoeSimulator("serial", seed=9, cards_per_round=4, deal_interval=0.01)
    try:
        sim.table_event("round", {"round_id": "r1", "transition": "open_round"})
        assert sim.snapshot()["queued"] == 0
        sim.table_event("round", {"round_id": "r1", "transition": "close_betting"})
        sim.table_event("round", {"round_id": "r1", "transition": "close_betting"})  # twice: dealt once
        sim.table_event("status", {"transition": "close_betting"})
        assert sim.snapshot()["queued"] == 1  # one card, then one more each time the table has read the last
        sim.start()
        for _ in range(6):  # the table reports each card it read; more reports than cards deal nothing more
            assert sim.wait_idle(5)
            sim.table_event("device", {"kind": "card_drawn"})
        assert sim.wait_idle(5)
        assert len(sim.dealt) == 4
        sim.auto_deal = False
        sim.table_event("round", {"round_id": "r2", "transition": "close_betting"})
        assert sim.snapshot()["queued"] == 0
    finally:
        sim.stop()


@pytest.mark.parametrize("transition", ["result_pending", "hold", "void"])
def test_the_dealer_stops_when_the_round_has_its_result_or_is_held(transition):
    """Also: a card the table reads after the result deals nothing more (no card in flight after a result)."""
    sim = ShoeSimulator("serial", seed=9, cards_per_round=6, deal_interval=0.01)
    try:
        left = sim.shoe.remaining
        sim.table_event("round", {"round_id": "r1", "transition": "close_betting"})
        sim.table_event("round", {"round_id": "r1", "transition": transition})  # before any card came out
        sim.table_event("device", {"kind": "card_drawn"})
        sim.start()
        assert sim.wait_idle(5)
        assert sim.dealt == [] and sim.shoe.remaining == left  # the cards stay in the shoe
    finally:
        sim.stop()


def test_serial_lines_and_faults_on_the_pty():
    import os
    import select

    sim = ShoeSimulator("serial", seed=3, deal_interval=0.01, auto_deal=False)
    fd = os.open(sim.url, os.O_RDWR | os.O_NOCTTY)
    try:
        sim.start()
        sim.deal(2)
        sim.deal_card("AS", fault="double_read", gap=0.01)
        sim.inject("unreadable")
        sim.inject("unknown_barcode")  # applies to the card after the unreadable one
        sim.deal(2)
        sim.write_raw(b"\x00junk")
        assert sim.wait_idle(5)
        data = b""
        while select.select([fd], [], [], 0.2)[0]:
            data += os.read(fd, 4096)
        lines = data.split(b"\r\n")
        d = sim.dealt
        expected = [
            d[0].payload,
            d[1].payload,
            d[2].payload,
            d[2].payload,
            "NOREAD",
            "PROMO-0042",
            d[5].payload,
        ]
        assert [x.decode() for x in lines[:-1]] == expected and lines[-1] == b"\x00junk"
        assert d[2].card == "AS" and d[4].payload == "PROMO-0042"
    finally:
        os.close(fd)
        sim.stop()


def test_frame_stream_round_trip_raw_and_png_and_its_errors():
    import cv2

    image = (np.arange(48 * 64 * 3, dtype=np.uint32) % 251).astype(np.uint8).reshape(48, 64, 3)
    grey = image[:, :, 0].copy()
    _ok, png = cv2.imencode(".png", image)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]

    torn_seen = threading.Event()

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.sendall(pack_frame(image, 7, timestamp_us=5_000_000))
            conn.sendall(pack_frame(grey, 8)[:10])
            torn_seen.wait(WAIT_S)  # a header torn across two sends: the rest once the reader saw half of it
            conn.sendall(pack_frame(grey, 8)[10:])
            conn.sendall(pack_frame(image, 10, encoded=png.tobytes(), timestamp_us=5_100_000))
            conn.sendall(b"JUNK" + bytes(HEADER.size))

    t = threading.Thread(target=serve, name="test-frame-server")
    t.start()
    src = open_source(f"tcp://127.0.0.1:{port}")
    assert isinstance(src, TcpFrameSource) and not src.finite
    try:
        src.open()
        f1 = src.read(WAIT_S)
        assert f1 is not None and np.array_equal(f1.image, image) and f1.t == 5.0 and f1.index == 1
        assert src.read(0.05) is None  # the second frame's header is not complete yet
        torn_seen.set()
        before = time.monotonic()
        f2 = src.read(WAIT_S)
        # no capture time: the time it arrived, on the monotonic clock
        assert np.array_equal(f2.image, grey) and before <= f2.t <= time.monotonic()
        f3 = src.read(WAIT_S)
        assert np.array_equal(f3.image, image) and abs(f3.t - 5.1) < 1e-9 and src.missed == 1
        with pytest.raises(FrameStreamError, match="not a frame stream header"):
            src.read(WAIT_S)
    finally:
        torn_seen.set()
        src.close()
        t.join()
        server.close()
    with pytest.raises(SourceError):
        src = open_source(f"tcp://127.0.0.1:{port}")
        src.open()


def test_source_urls():
    assert open_source("camera:0").target == 0
    assert open_source("2").target == 2
    assert open_source("/dev/video1").target == "/dev/video1"
    assert open_source("rtsp://cam.local/stream").target == "rtsp://cam.local/stream"
    assert open_source("dir:/tmp").finite and open_source("/tmp").finite
    assert open_source("file:/tmp/x.avi").path.name == "x.avi" and open_source("/tmp/shoe.mp4").finite
    for bad in ("tcp://nohost", "gopher://x", "frame.png"):
        with pytest.raises(ValueError):
            open_source(bad)


def test_camera_simulator_streams_frames_and_deals_only_while_watched():
    sim = ShoeSimulator("camera", seed=4, deal_interval=0.01, auto_deal=False, fps=60)
    try:
        sim.start()
        sim.deal(1)
        time.sleep(0.2)
        assert sim.dealt == []  # nobody watching: the dealer waits
        src = open_source(sim.url)
        src.open()
        try:
            frames = [src.read(2.0) for _ in range(20)]
        finally:
            src.close()
        assert all(f is not None and f.image.shape == (720, 1280, 3) for f in frames)
        assert len(sim.dealt) == 1
        steps = {round((b.t - a.t) * 60, 3) for a, b in itertools.pairwise(frames)}
        assert steps == {1.0}  # capture times 1/60 s apart, whatever the delivery
        assert sim.wait_idle(5)
    finally:
        sim.stop()


def test_bad_simulator_options():
    with pytest.raises(ValueError):
        ShoeSimulator("usb")
    sim = ShoeSimulator("serial")
    try:
        with pytest.raises(ValueError, match="unknown fault"):
            sim.inject("fire")
    finally:
        sim.stop()
