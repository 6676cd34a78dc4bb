"""recognition.dice.derive: the calibration a technician gets from a picture of the empty tray and one of dice,
on the studio's renders (simulators.dice) and on the other look (simulators.dice_alt): the die size near the
true one, the felt's colour, the tray, the dice's colours and number."""

from __future__ import annotations

import random
from dataclasses import replace

import cv2
import numpy as np
import pytest

from recognition.dice.calibration import Calibration
from recognition.dice.derive import derive, derive_calibration
from simulators import dice as studio_sim
from simulators.dice_alt import DieLook, Style, random_style
from simulators.dice_alt import render as alt_render


def studio_pair(seed: int, colours: list[str], hard: bool = True):
    """(empty tray, dice, true die side, true tray corners) under one light, as simulators.dice draws them."""
    rng = random.Random(seed)
    g = studio_sim.TrayGeometry()
    view = studio_sim.CameraView()
    throw = studio_sim.random_throw(rng, g, colours, touching=0.0)
    look = studio_sim.random_look(rng, hard=hard)
    empty = studio_sim.render([], g, view, look, np.random.default_rng(seed))
    dice = studio_sim.render(throw.dice, g, view, look, np.random.default_rng(seed + 1))
    x0, y0, x1, y1 = g.tray
    return empty, dice, g.die_size, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def _area_overlap(a, b, shape) -> float:
    ma, mb = np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)
    cv2.fillPoly(ma, [np.round(np.array(a)).astype(np.int32)], 1)
    cv2.fillPoly(mb, [np.round(np.array(b)).astype(np.int32)], 1)
    return float((ma & mb).sum()) / float((ma | mb).sum())


def _felt_median(img: np.ndarray, tray) -> np.ndarray:
    m = np.zeros(img.shape[:2], np.uint8)
    centre = np.mean(tray, axis=0)
    cv2.fillPoly(m, [np.round(centre + (np.array(tray) - centre) * 0.8).astype(np.int32)], 1)
    return np.median(img[m > 0], axis=0)


@pytest.mark.parametrize(
    ("seed", "colours", "names"),
    [
        (12, ["red", "blue"], {"red", "blue"}),
        (2, ["white", "white", "white"], {"white"}),
        (3, ["yellow", "yellow", "red"], {"yellow", "red"}),
        (4, ["red", "red", "red"], {"red"}),
    ],
)
def test_studio_renders_give_size_felt_tray_and_colours(seed, colours, names):
    empty, dice, side, tray = studio_pair(seed, colours)
    d = derive(empty, dice, camera="camera-1", version=3)
    cal = d.calibration
    assert isinstance(cal, Calibration) and cal.version == 3 and cal.camera == "camera-1"
    assert abs(d.die_side - side) / side < 0.1, d.die_side
    assert cal.die_size is not None and cal.die_size[0] < side < cal.die_size[1]
    assert sum(x.count for x in d.dice) == len(colours)
    assert {c.name for c in cal.colors} == names
    assert np.abs(np.array(d.felt_bgr) - _felt_median(empty, tray)).max() < 15
    assert cal.tray is not None and _area_overlap(cal.tray, tray, empty.shape[:2]) > 0.95
    assert cal.frame_size == (1280, 720)
    assert cal.exposure.felt_value[0] < d.felt_value < cal.exposure.felt_value[1]
    lit = {c.name: c for c in cal.colors}
    if "white" in lit:
        assert lit["white"].hue is None and lit["white"].pips == "dark"
    if "red" in lit:
        assert lit["red"].hue is not None and lit["red"].pips == "light"


def _alt_style(
    seed: int,
    look: DieLook,
    felt: tuple[str, tuple[int, int, int]],
    tray: bool,
    rim=("leather", (30, 30, 34)),
) -> Style:
    base = random_style(seed)
    half = (640 / base.die_px * 0.8, 360 / base.die_px * 0.8) if tray else None
    return replace(
        base,
        surface=felt,
        rim=rim,
        tray=half,
        looks=(look,),
        touching=0.0,
        pitch=min(base.pitch, 12.0),
        optics=replace(base.optics, glare=(0.5, 0.5, 0.0, 0.2), motion=0.0),
    )


@pytest.mark.parametrize(
    ("seed", "look", "felt", "tray", "name"),
    [
        (
            5,
            DieLook(name="red", body=(40, 40, 196), pip=(240, 240, 240)),
            ("cloth", (150, 70, 25)),
            True,
            "red",
        ),
        (6, DieLook(name="white", pip_shape="square"), ("leather", (40, 70, 110)), False, "white"),
        (
            7,
            DieLook(name="yellow", body=(40, 205, 235), pip=(25, 25, 28)),
            ("wood", (60, 105, 150)),
            True,
            "yellow",
        ),
        (
            8,
            DieLook(name="blue", body=(190, 92, 32), pip=(240, 240, 240), rounding=0.0),
            ("felt", (40, 90, 70)),
            False,
            "blue",
        ),
    ],
    ids=["red-on-blue-cloth", "white-on-leather", "yellow-on-wood", "blue-on-green-felt"],
)
def test_renders_of_the_other_look_give_size_felt_and_colour(seed, look, felt, tray, name):
    style = _alt_style(seed, look, felt, tray)
    dice, _, info = alt_render(seed, 3, style=style)
    empty, _, _ = alt_render(seed + 1000, 0, style=style)
    d = derive(empty, dice, expected=3)
    assert abs(d.die_side - info["die_px"]) / info["die_px"] < 0.15, (d.die_side, info["die_px"])
    assert sum(x.count for x in d.dice) == 3 and not d.warnings
    assert [c.name for c in d.calibration.colors] == [name]
    if tray:
        assert d.tray is not None and _area_overlap(d.tray, info["tray"], empty.shape[:2]) > 0.9
    else:
        assert d.tray is None
    found = sorted(tuple(x.center) for x in d.dice)
    truth = sorted(tuple(x["center"]) for x in info["dice"])
    for (fx, fy), (tx, ty) in zip(found, truth, strict=True):
        assert np.hypot(fx - tx, fy - ty) < info["die_px"] * 0.3


def test_the_base_calibrations_other_settings_are_kept():
    empty, dice, _, _ = studio_pair(9, ["red", "blue"])
    base = Calibration(min_confidence=0.95, camera_height=40.0, note="old")
    cal = derive_calibration(empty, dice, base=base, version=7)
    assert (cal.min_confidence, cal.camera_height, cal.version) == (0.95, 40.0, 7)
    assert cal.note != "old"


def test_pictures_that_cannot_give_a_calibration_are_refused_saying_why():
    empty, dice, _, _ = studio_pair(10, ["red", "blue"])
    with pytest.raises(ValueError, match="differ in size"):
        derive(empty, dice[:360])
    with pytest.raises(ValueError, match="no die stands out"):
        derive(empty, empty.copy())
    with pytest.raises(ValueError, match="moved"):
        green, _, _, _ = studio_pair(12, ["red"])
        derive(green, np.ascontiguousarray(green[..., ::-1]))  # another light (or camera) altogether
    with pytest.raises(ValueError, match="colour picture"):
        derive(empty[..., 0], dice)


def test_a_wrong_count_is_a_warning_not_a_calibration_lost():
    empty, dice, _, _ = studio_pair(11, ["red", "blue"])
    d = derive(empty, dice, expected=3)
    assert any("2 dice found, 3 expected" in w for w in d.warnings)
    assert sum(x.count for x in d.dice) == 2 and len(d.swatches) == 2


def test_touching_dice_of_two_colours_are_told_apart():
    empty, dice, side, _ = studio_pair(1, ["red", "blue"])  # seed 1: the two dice lie side by side
    d = derive(empty, dice)
    assert sorted((x.color, x.count) for x in d.dice) == [("blue", 1), ("red", 1)]
    assert abs(d.die_side - side) / side < 0.1
