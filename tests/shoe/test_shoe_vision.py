"""The camera path on the simulator's rendered cards: OpenCV card finding + both decoders, read rates, no wrong card.

Fixed seeded sets of 1280x720 frames with rotation up to +-30 degrees, scale, gain, glare, Gaussian
and motion blur and sensor noise (simulators.shoe.Imaging defaults). Each frame goes through the
real FrameAnalyzer and a CameraTracker with confirm_reads=1 (one frame = one card), so the
assertion "never a wrong card" covers the frame-level safety rules (check digit, conflicts) too.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from devices.shoe.tracking import CameraTracker
from devices.shoe.vendor_table import default_vendor_table
from devices.shoe.vision import FrameAnalyzer, PyzbarDecoder, find_cards, make_decoder, straighten, to_gray
from simulators.shoe import CardRenderer, Imaging, Shoe, ShoeCard

T = default_vendor_table()
AT = datetime(2026, 1, 1, tzinfo=UTC)
FLOORS = {
    ("code128", "zxing"): 0.97,
    ("code128", "pyzbar"): 0.93,
    ("qr", "zxing"): 0.97,
    ("qr", "pyzbar"): 0.95,
    ("datamatrix", "zxing"): 0.97,
}
SET_SIZE = {"code128": 120, "qr": 40, "datamatrix": 40}


def rendered_set(symbology: str, n: int, seed: int = 2026) -> list[tuple[ShoeCard, object]]:
    shoe = Shoe(T, decks=8, seed=seed, cut_card=None)
    renderer = CardRenderer(Imaging(), symbology, seed=seed)
    rng = random.Random(seed)
    return [(card, renderer.still(card, rng)) for card in (shoe.next() for _ in range(n))]


_SETS: dict[str, list] = {}


def cached_set(symbology: str) -> list:
    if symbology not in _SETS:
        _SETS[symbology] = rendered_set(symbology, SET_SIZE[symbology])
    return _SETS[symbology]


@pytest.mark.parametrize("symbology, decoder", sorted(FLOORS))
def test_read_rate_and_never_a_wrong_card(symbology, decoder):
    frames = cached_set(symbology)
    analyzer = FrameAnalyzer(make_decoder(decoder, symbology), full_frame_fallback=decoder == "zxing")
    read = 0
    for i, (card, frame) in enumerate(frames):
        obs = analyzer.analyze(frame)
        assert obs.state == "card", f"frame {i}: the card was not found"
        tracker = CameraTracker("t/shoe", T, symbology=symbology, confirm_reads=1)
        events = tracker.observe(obs, now=0.0, at=AT, index=1) + tracker.flush(now=0.0, at=AT, why="end")
        drawn = [e for e in events if e.kind == "card_drawn"]
        for e in drawn:
            assert (e.card, e.payload) == (card.card, card.payload), (
                f"frame {i}: WRONG card {e.payload} for {card}"
            )
        read += bool(drawn)
    rate = read / len(frames)
    print(f"{symbology} {decoder}: {read}/{len(frames)} read")
    assert rate >= FLOORS[(symbology, decoder)], f"{symbology}/{decoder} read {read}/{len(frames)}"


@pytest.mark.parametrize("decoder", ["zxing", "pyzbar"])
def test_a_smudged_barcode_is_never_read_as_anything(decoder):
    shoe = Shoe(T, decks=1, seed=7, cut_card=None)
    renderer = CardRenderer(Imaging(), "code128", seed=7)
    rng = random.Random(7)
    analyzer = FrameAnalyzer(make_decoder(decoder, "code128"), full_frame_fallback=True)
    for _ in range(15):
        obs = analyzer.analyze(renderer.still(shoe.next(), rng, damaged=True))
        assert obs.state == "card" and obs.reads == ()


def test_empty_and_partial_frames():
    renderer = CardRenderer(Imaging(), "code128", seed=1)
    rng = random.Random(1)
    analyzer = FrameAnalyzer(make_decoder("zxing", "code128"))
    for _ in range(5):
        obs = analyzer.analyze(renderer.empty_frame(rng))
        assert (obs.state, obs.reads, obs.cards) == ("empty", (), ())
    card = Shoe(T, decks=1, seed=1, cut_card=None).next()
    frames = list(renderer.passage(card, rng, view_frames=2))
    states = [analyzer.analyze(f).state for f in frames]
    assert states[0] == "partial" and states[-1] == "partial" and "card" in states


def test_straightening_makes_the_long_side_horizontal():
    renderer = CardRenderer(Imaging(rotation=30, blur=(0, 0), motion=(0, 0), glare=0), "code128", seed=3)
    card = Shoe(T, decks=1, seed=3, cut_card=None).next()
    for angle in (-29.0, -10.0, 0.0, 17.0, 29.0):
        pose = renderer.random_pose(random.Random(1))
        frame = renderer.frame(renderer.face(card), type(pose)(640, 360, angle, 1.0), random.Random(2))
        (region,) = find_cards(to_gray(frame))
        assert abs(region.angle + angle) < 2.0 or abs(abs(region.angle + angle) - 180) < 2.0, (
            angle,
            region.angle,
        )
        assert 1.3 < region.size[0] / region.size[1] < 1.5
        crop, _ = straighten(to_gray(frame), region)
        assert crop.shape[1] > crop.shape[0]


def test_pyzbar_cannot_read_datamatrix_and_says_so():
    with pytest.raises(ValueError, match="cannot read datamatrix"):
        PyzbarDecoder("datamatrix")
    with pytest.raises(ValueError, match="decoder"):
        make_decoder("opencv", "code128")
