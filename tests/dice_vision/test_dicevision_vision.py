"""The dice recognizer on real (rendered) OpenCV pictures: golden frames, generated sets, faults, edge cases."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import cv2
import numpy as np
import pytest
from dicevision_helpers import GOLDEN, golden_calibration, golden_labels, still_image

from recognition.dice.calibration import (
    DEFAULT_COLORS,
    Calibration,
    accuracy,
    judge_reading,
    load_calibration,
)
from recognition.dice.vision import LAYOUTS, _match_layout, read_dice
from simulators.dice import TrayGeometry, calibration_document, render_still

GAME_DICE = {
    "sicbo": ("white", "white", "white"),
    "lightning": ("yellow", "yellow", "yellow"),
    "craps": ("red", "red"),
    "duel": ("red", "blue"),
    "bacbo": ("blue", "blue", "red", "red"),
}


# --------------------------------------------------------------------------- golden pictures


@pytest.mark.parametrize("name", sorted(golden_labels()))
def test_golden_picture(name: str) -> None:
    truth = golden_labels()[name]
    image = cv2.imread(str(GOLDEN / name))
    assert image is not None, name
    colors = [d["color"] for d in truth["dice"]] if truth["faces"] is not None else None
    reading = read_dice(
        image,
        golden_calibration(),
        expected=truth["expected"],
        colors=colors if colors and len(set(colors)) > 1 else None,
    )
    if truth["faces"] is None:  # a fault: must be refused, with the right reason among the issues
        assert reading.status == "uncertain", (name, reading.faces)
        codes = {i.code for i in reading.issues}
        fault = truth["faults"][0]
        allowed = {
            "cocked": {"cocked", "stacked", "touching"},
            "outside": {"outside"},
            "missing": {"missing"},
            "stacked": {"stacked", "missing", "cocked", "touching"},
        }[fault]
        assert codes & allowed, (name, codes)
    else:
        assert reading.status == "ok", (name, [i.message for i in reading.issues])
        assert reading.faces == truth["faces"]
        assert sorted((d.color, d.face) for d in reading.dice) == sorted(
            (d["color"], d["face"]) for d in truth["dice"]
        )
        for d in reading.dice:  # the centre is where the die is
            near = min(
                math.hypot(d.center[0] - t["center"][0], d.center[1] - t["center"][1]) for t in truth["dice"]
            )
            assert near < 0.3 * truth["die_size"]
        assert reading.confidence >= 0.9


# --------------------------------------------------------------------------- regression pictures


def _regression(name: str) -> tuple[np.ndarray, dict, Calibration]:
    import json

    entry = json.loads((GOLDEN / "regression.json").read_text())[name]
    image = cv2.imread(str(GOLDEN / name))
    assert image is not None, name
    colours = tuple(d["color"] for d in entry["truth"]["dice"])
    return image, entry["truth"], load_calibration(entry["calibration"]).restricted_to(colours)


def test_touching_flat_dice_read_by_their_square_pip_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three flat dice, two of them touching edge to edge with their edges offset: the band between them is
    wider than the seam allowance, but their pip grids are square, so they are read (they were refused as
    cocked before the pip-grid cue: without it, they still are)."""
    from recognition.dice import vision

    image, truth, cal = _regression("touching-flat.png")
    reading = read_dice(image, cal, expected=truth["expected"])
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [5, 6, 6]
    for d in reading.dice:
        near = min(
            math.hypot(d.center[0] - t["center"][0], d.center[1] - t["center"][1]) for t in truth["dice"]
        )
        assert near < 0.3 * truth["die_size"]
    assert any(d.checks.get("grid_square", 0.0) >= 0.975 for d in reading.dice)  # the cue decided one of them
    monkeypatch.setattr(vision, "_SQUARE_EXTRA", 0.0)  # the band alone (the recognizer before the cue)
    assert (
        read_dice(image, cal, expected=truth["expected"]).status == "ok"
    )  # measured by the walks that ended
    monkeypatch.setattr(vision, "_ENDED_MIN", 8)  # by all 7 walks, as before the seventh session
    assert read_dice(image, cal, expected=truth["expected"]).status == "uncertain"


def test_die_cocked_against_a_neighbour_stays_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A die tilted against its neighbour shows its side face where the seam is: the seam allowance lets the
    band pass, the foreshortened pip grid does not. Without the pip-grid check this frame would read "ok"
    (a wrong certification), so the picture keeps the cue honest."""
    from recognition.dice import vision

    image, truth, cal = _regression("cocked-leaning.png")
    assert truth["faces"] is None and truth["faults"] == ["cocked"]
    reading = read_dice(image, cal, expected=truth["expected"])
    assert reading.status == "uncertain"
    assert {i.code for i in reading.issues} & {"cocked", "touching"}
    monkeypatch.setattr(
        vision, "_square_needed", lambda towards: 0.0
    )  # no pip-grid check: the cocked die would pass
    assert read_dice(image, cal, expected=truth["expected"]).status == "ok"


def _in_frame(name: str) -> tuple[np.ndarray, dict, Calibration, Sequence[str] | None]:
    """A regression crop read in place: padded back to the whole frame by repeating its edges (felt), with the
    camera's own calibration (the perspective the reader allows for depends on where the die lies in the frame)."""
    import json

    entry = json.loads((GOLDEN / "regression.json").read_text())[name]
    image = cv2.imread(str(GOLDEN / name))
    assert image is not None, name
    (w, h), (x0, y0) = entry["frame"]["size"], entry["frame"]["offset"]
    ch, cw = image.shape[:2]
    image = cv2.copyMakeBorder(image, y0, h - y0 - ch, x0, w - x0 - cw, cv2.BORDER_REPLICATE)
    colours = tuple(d["color"] for d in entry["truth"]["dice"])
    cal = load_calibration(entry["frame"]["calibration"]).restricted_to(colours)
    return image, entry["truth"], cal, (colours if len(set(colours)) > 1 else None)


def _die_near(reading, where: Sequence[float], die_size: float):
    near = [
        d for d in reading.dice if math.hypot(d.center[0] - where[0], d.center[1] - where[1]) < 0.5 * die_size
    ]
    assert len(near) == 1, [(d.face, d.center) for d in reading.dice]
    return near[0]


def test_upper_face_in_strips_is_gathered(monkeypatch: pytest.MonkeyPatch) -> None:
    """A flat 6 whose pips come close to its edge, beside a brighter 2: its upper face falls apart into strips
    between its rows of pips. Gathered and grown with its own brightness it is a face again, so the 2's walks
    stop at it; without that, they ran over the 6's face and the flat 2 was refused as cocked."""
    from recognition.dice import vision

    image, truth, cal, colors = _in_frame("six-in-strips.png")
    reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [2, 6]
    where = _truth_center("six-in-strips.png", truth, face=2)
    assert _die_near(reading, where, truth["die_size"]).face == 2
    monkeypatch.setattr(vision, "_gather_fragments", lambda *args: None)  # the recognizer before
    before = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert before.status == "uncertain"
    assert _die_near(before, where, truth["die_size"]).problem == "cocked"


def test_tilted_face_gathered_from_strips_stays_cocked() -> None:
    """The counterpart: a cocked die whose tilted upper face is found only by gathering its strips is still
    refused (as cocked: its side face shows), never read."""
    image, truth, cal, colors = _in_frame("cocked-face-gathered.png")
    assert truth["faces"] is None and truth["faults"] == ["cocked"]
    reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "uncertain"
    assert "cocked" in {i.code for i in reading.issues}


def test_flat_dice_touching_past_a_corner_over_felt_are_read_by_their_free_walks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two flat red dice touching past a corner: some walks out from the 2's edge cross a strip of felt and run
    into the 4's upper face. A rule that gave material beyond felt to the neighbour (withdrawn: it let a cocked
    die through, the next test) read it; so does judging that side by the walks that end at the felt (a side
    face lies along the whole edge). Without that the frame is refused (a 2 has no pip grid to vouch for it)."""
    from recognition.dice import vision

    image, truth, cal, colors = _in_frame("felt-between.png")
    reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [2, 4]
    monkeypatch.setattr(vision, "_FREE_MIN", 99)  # the walks that ended at the felt or a face judge it too
    assert read_dice(image, cal, expected=truth["expected"], colors=colors).status == "ok"
    monkeypatch.setattr(vision, "_ENDED_MIN", 8)  # every side judged by all its walks (the recognizer before)
    assert read_dice(image, cal, expected=truth["expected"], colors=colors).status == "uncertain"


def test_flat_die_touching_a_neighbour_past_a_corner_is_judged_by_its_free_walks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Sic Bo, seed 13 frame 416: a flat 3 touching a 1 past a corner. Three of the 3's seven walks at that side
    ran on into the 1 (its bevel, its side face, its upper face) and measured 0.22 die, over the 0.2 allowed
    (the third widest walk is one of them); the four that end at the felt measure the 3's own bevel. A cocked
    die's side face lies along its whole edge, under every walk, so the free walks judged the side (without
    them the 3 was refused as cocked; `felt-between.png` still needs them)."""
    from recognition.dice import vision

    image, truth, cal, colors = _in_frame("corner-touch.png")
    reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [1, 3]
    where = _truth_center("corner-touch.png", truth, face=3)
    die = _die_near(reading, where, truth["die_size"])
    assert die.face == 3 and die.checks["side_band"] < 0.2
    # since the walks end where another die's material begins across a gap (the dark seam between the dice),
    # the three walks no longer run on into the 1: the band is the 3's own bevel, free walks or not
    monkeypatch.setattr(vision, "_FREE_MIN", 99)
    assert read_dice(image, cal, expected=truth["expected"], colors=colors).status == "ok"


def test_cocked_die_whose_side_face_runs_into_a_neighbour_stays_refused() -> None:
    """The counterpart: seed 2026 cocked frame 92, a 2 cocked beside a flat 1 and 4; its side face (a 6) runs
    partly into the 4. The walks that reach the 4 are set aside, but those that end at the felt cross the side
    face too (0.5 die), so the die stays refused."""
    from recognition.dice import vision

    image, truth, cal, colors = _in_frame("cocked-side-on-neighbour.png")
    assert truth["faces"] is None and truth["faults"] == ["cocked"]
    seen: list[float] = []  # the free-walk bands measured, in die sides
    real = vision._side_bands

    def spy(work, *args, **kwargs):
        out = real(work, *args, **kwargs)
        seen.extend(sd.free_band / (truth["die_size"] * work.scale) for sd in out if sd.free_band is not None)
        return out

    import unittest.mock

    with unittest.mock.patch.object(vision, "_side_bands", spy):
        reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "uncertain"
    assert {i.code for i in reading.issues} & {"cocked", "touching"}
    assert max(seen) > 0.4  # the free walks did cross its side face


def test_cocked_die_beside_a_neighbour_over_felt_stays_refused() -> None:
    """Bac Bo, the benchmark's cocked frame 117 of seed 13 (fault seed 30): a blue 1 cocked beside a blue 4. Its
    side face, tilted up, shows pips wider than a flat die's bevel gap; a rule that read die material beyond
    such a gap as the neighbour's read this frame "ok" (faces 1, 2, 2, 4), a cocked die certified. It must be
    held (rendered by the simulator itself, as the benchmark renders it)."""
    import random

    from recognition.dice.calibration import load_calibration
    from simulators.dice import TrayGeometry, calibration_document, render_still

    colours = ("blue", "blue", "red", "red")
    geometry = TrayGeometry.for_frame(1280, 720)
    rng = random.Random(30 * 1_000_003 + 117)
    image, truth = render_still(
        rng,
        colours=colours,
        faults=("cocked",),
        geometry=geometry,
        jpeg_quality=rng.choice((None, 80, 90)),
        touching=0.35,
    )
    assert truth.as_json()["faults"] == ["cocked"]
    cal = load_calibration(calibration_document(geometry)).restricted_to(colours)
    reading = read_dice(image, cal, expected=4, colors=colours)
    assert reading.status == "uncertain", reading.faces


def test_cocked_die_leaning_on_a_neighbour_with_its_side_face_away_from_the_camera_is_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Craps, the benchmark's cocked frame 36 of seed 37 (fault seed 54): a red 3 cocked against a red 5, its side
    face (pips on it) showing at the side that faces away from the middle of the picture, where no flat die
    shows a side face. Its band there measures 0.197 die against the 0.2 allowed, so the band alone let it
    pass (read "ok" 3-5, a cocked die certified, until the side-face pip rule); the pips its walks step over
    beyond that edge hold it as cocked. Rendered by the simulator as the benchmark renders it."""
    from recognition.dice import vision

    colours = ("red", "red")
    geometry = TrayGeometry.for_frame(1280, 720)
    rng = random.Random(54 * 1_000_003 + 36)
    image, truth = render_still(
        rng,
        colours=colours,
        faults=("cocked",),
        geometry=geometry,
        jpeg_quality=rng.choice((None, 80, 90)),
        touching=0.35,
    )
    assert truth.as_json()["faults"] == ["cocked"]
    cal = load_calibration(calibration_document(geometry)).restricted_to(colours)
    reading = read_dice(image, cal, expected=2)
    assert reading.status == "uncertain", reading.faces
    assert {i.code for i in reading.issues} == {"touching"}  # the part that is the 3 is refused as cocked
    # two cues hold it, each on its own: the pips stepped over beyond that edge, and the band (0.197 die) over the
    # allowance at an edge that faces away and touches nothing; without both it reads "ok" 3-5
    monkeypatch.setattr(vision, "_SIDE_PIPS_MIN", 10**6)
    assert read_dice(image, cal, expected=2).status == "uncertain"
    monkeypatch.setattr(vision, "_AWAY_SHARE", 1.0)
    assert read_dice(image, cal, expected=2).faces == [3, 5]
    monkeypatch.setattr(vision, "_SIDE_PIPS_MIN", 2)
    assert read_dice(image, cal, expected=2).status == "uncertain"


def _bench_frame(
    colours: tuple[str, ...], seed: int, index: int, fault: str | None = None
) -> tuple[np.ndarray, dict, Calibration]:
    """A frame of bench/dice_vision.py (seed, index; a fault frame's seed is the bench's fault seed), rendered by
    the simulator as the benchmark renders it, with the calibration the benchmark reads it with."""
    geometry = TrayGeometry.for_frame(1280, 720)
    rng = random.Random(seed * 1_000_003 + index)
    image, truth = render_still(
        rng,
        colours=colours,
        faults=(fault,) if fault else (),
        geometry=geometry,
        jpeg_quality=rng.choice((None, 80, 90)),
        touching=0.35,
    )
    if fault:
        assert truth.as_json()["faults"] == [fault]
    return image, truth.as_json(), load_calibration(calibration_document(geometry)).restricted_to(colours)


def test_cocked_blue_die_beside_a_red_one_at_the_band_allowance_is_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Dice Duel, the benchmark's cocked frame 29 of seed 41 (fault seed 58): a blue 4 cocked beside a red 5, far
    up and left in the picture, its side face at the edge that faces away from the middle of the picture and
    touches nothing. Its band there measures 0.197 die, under the full allowance (0.2) and the walks step over no
    pip of its side face: it was read "ok" 4-5. A flat die shows only its bevel at such an edge (0.03-0.11 die), so
    the allowance there is a share of the full one, and the die is held. Rendered as the benchmark renders it."""
    from recognition.dice import vision

    colours = ("red", "blue")
    image, _truth, cal = _bench_frame(colours, 58, 29, "cocked")
    reading = read_dice(image, cal, expected=2, colors=colours)
    assert reading.status == "uncertain" and {i.code for i in reading.issues} == {"cocked"}
    assert reading.faces == [5]  # the red 5 is read; the blue die is the one refused
    (blue,) = [d for d in reading.dice if d.color == "blue"]
    assert blue.problem == "cocked" and blue.checks["side_band"] > vision._AWAY_SHARE * cal.max_side_band
    # its upper face, no longer cut short by its pips' light rims, measures the band at 0.225 die: held even
    # with the full allowance at that edge now
    monkeypatch.setattr(vision, "_AWAY_SHARE", 1.0)
    assert read_dice(image, cal, expected=2, colors=colours).faces == [5]


def test_cocked_die_whose_face_tilts_towards_the_camera_is_not_vouched_for_by_its_pip_grid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Craps, the benchmark's cocked frame 97 of fault seed 62 (unseen seed 45): a red 4 cocked against a flat 2,
    far left in the picture. Its band at the 2 exceeds the seam allowance by 0.02 die, and its pip grid measured
    0.982 square across that side, over the 0.975 that vouches for a flat die: it was read "ok" 2-4. The side it
    leans at faces away from the middle of the picture, so its upper face tilts towards the camera, which sees
    it slanted by about 6 degrees: an 18-degree tilt then squeezes the grid to cos 12 / cos 6 = 0.984 only. The
    bar rises with that slant (beyond 1 here: no vouching), and the die is held."""
    from recognition.dice import vision

    image, _truth, cal = _bench_frame(("red", "red"), 62, 97, "cocked")
    assert read_dice(image, cal, expected=2).status == "uncertain"
    monkeypatch.setattr(vision, "_square_needed", lambda towards: vision._SQUARE_MIN)  # the bar before
    monkeypatch.setattr(
        vision, "_neighbours_of_vouched", lambda dice: dice
    )  # (the 2 would be held by it now)
    monkeypatch.setattr(vision, "_LIT", 2.0)  # (and the 4 by its lit seam band, since the ninth session)
    assert read_dice(image, cal, expected=2).status == "ok"  # the wrong reading it was


def test_free_walks_that_show_a_side_face_refuse_a_die_at_a_seam() -> None:
    """Dice Duel, cocked frame 159 of fault seed 205: a red 2 cocked beside a blue 6. At the side facing the 6,
    three walks meet the 6's upper face (a seam, allowed 0.36 die), and four end at the felt after 0.26 die of
    red: the 2's own side face, where no neighbour lies. The seam allowance let the side pass and the frame was
    read "ok" 2-6 (by the code before too). Free walks beyond the plain allowance now count against the side."""
    image, _truth, cal = _bench_frame(("red", "blue"), 205, 159, "cocked")
    reading = read_dice(image, cal, expected=2, colors=("red", "blue"))
    assert reading.status == "uncertain"
    (red,) = [d for d in reading.dice if d.color == "red"]
    assert red.problem == "cocked"


def test_cocked_die_at_a_seam_facing_away_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bac Bo, cocked frame 85 of fault seed 207: a blue 1 cocked against a blue 5, the seam between them facing
    away from the middle of the picture. The 1 tilts towards the camera, which sees its side face narrowed: its
    band measured 0.356 die against the 0.36 a seam allowed, and the frame was read "ok" (by the code before
    too). At a seam that faces away from the middle the allowance is 0.34 (flat dice: at most 0.33)."""
    from recognition.dice import vision

    colours = ("blue", "blue", "red", "red")
    image, _truth, cal = _bench_frame(colours, 207, 85, "cocked")
    assert read_dice(image, cal, expected=4, colors=colours).status == "uncertain"
    monkeypatch.setattr(vision, "_SEAM_AWAY", vision._SEAM)  # the allowance before
    monkeypatch.setattr(vision, "_neighbours_of_vouched", lambda dice: dice)  # (it would hold the 1 now)
    monkeypatch.setattr(vision, "_LIT", 2.0)  # (and so would the lit seam band, since the ninth session)
    assert read_dice(image, cal, expected=4, colors=colours).status == "ok"  # the wrong reading it was


@pytest.mark.parametrize("seed, index", [(227, 282), (233, 283)])
def test_cocked_red_one_above_a_blue_die_is_held(seed: int, index: int) -> None:
    """Dice Duel, cocked frames of fault seeds 227 and 233 (found by the last sweep of the sixth session; the
    code before that session read them "ok" too): a red 1 cocked just above a blue die, each a shape of its own.
    Its band at the blue die (a seam) is within the seam allowance (0.29 of its outline's side; the outline,
    1.17-1.19 die with the side face, swells the allowance too), no free walk, and a 1 has no pip grid: read
    "ok" 1-6 and 1-2 before. Its outline is longer than a flat die's (1.22-1.27 die along its tilt, perspective
    allowed for; flat dice at most 1.11): held as cocked."""
    image, _truth, cal = _bench_frame(("red", "blue"), seed, index, "cocked")
    assert read_dice(image, cal, expected=2, colors=("red", "blue")).status == "uncertain"


def test_square_needed_rises_with_the_slant_of_a_face_tilting_towards_the_camera() -> None:
    from recognition.dice import vision

    assert vision._square_needed(0.0) == pytest.approx(vision._SQUARE_MIN)
    assert vision._square_needed(0.3) == pytest.approx(vision._SQUARE_MIN)  # tilting away: never lower
    slant = math.radians(6.2)
    squeeze = math.cos(math.radians(18) - slant) / math.cos(slant)
    assert squeeze == pytest.approx(0.984, abs=0.001)
    assert vision._square_needed(-math.tan(slant)) > 1.0 > squeeze
    assert vision._square_needed(-math.tan(math.radians(2))) > 0.98


def test_felt_strip_between_dark_pipped_dice_is_no_side_face(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lightning Dice, clean frame 322 of seed 40: flat dice touching past a corner, the felt between them as dark
    as their pips, every walk at one side of a die ending at the felt beyond the neighbour's edge. The dark pixels
    they step over run on along the edge (a strip of felt), not a spot the size of a pip: no side face, the frame
    reads. Counting every pip-coloured pixel stepped over, the side-face pip rule would refuse it as cocked."""
    from recognition.dice import vision

    colours = ("yellow", "yellow", "yellow")
    geometry = TrayGeometry.for_frame(1280, 720)
    rng = random.Random(40 * 1_000_003 + 322)
    image, truth = render_still(
        rng, colours=colours, geometry=geometry, jpeg_quality=rng.choice((None, 80, 90)), touching=0.35
    )
    cal = load_calibration(calibration_document(geometry)).restricted_to(colours)
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth.faces
    monkeypatch.setattr(vision, "_spots_along", lambda material, spots, along, length: len(spots))
    assert read_dice(image, cal, expected=3).status == "uncertain"


def test_faces_in_line_under_burnt_out_light_are_split_at_their_seam(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sic Bo seed 37 frame 1311: a flat 5 and 2 side by side, edges in line, the faces burnt out; the seam
    between them stays above the 85 % bar, so their faces were one bright region (no neck, no two middles), no
    upper face was found and the walks ran across the neighbour ("cocked"). The pixels at 95 % of the region's
    brightest fall apart at the seam."""
    from recognition.dice import vision

    image, truth, cal = _bench_frame(("white",) * 3, 37, 1311)
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [2, 2, 5]
    monkeypatch.setattr(vision, "_split_at_valley", lambda *a: None)
    assert read_dice(image, cal, expected=3).status == "uncertain"


def test_pip_grid_vouches_for_a_face_a_neighbour_cuts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sic Bo seed 37 frame 819: a flat 4 beside a 3 whose side face is drawn over the 4's edge; its face (and
    outline) measure 0.87 square, which read it 77 % sure. Its pip grid is square (a tilted die's is squeezed
    by cos t like its face), so it is read sure. It lies 6.7 dice off the middle of the picture, where a die
    tilted 18 degrees towards the camera shows a grid squeezed to 0.985 only: the grid, 0.999 square, must be
    0.01 squarer than that (0.9945), and is. Asked 0.01 more, it cannot vouch and the 4 stays 77 % sure."""
    from recognition.dice import vision

    image, truth, cal = _bench_frame(("white",) * 3, 37, 819)
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [3, 4, 6]
    (four,) = [d for d in reading.dice if d.face == 4]
    assert four.checks["face_aspect"] < 0.88 and four.checks["grid_vouch"] >= 0.995
    monkeypatch.setattr(vision, "_NEAR_MARGIN", 0.02)
    assert read_dice(image, cal, expected=3).status == "uncertain"
    monkeypatch.setattr(vision, "_NEAR_MARGIN", 0.0)
    monkeypatch.setattr(vision, "_SQUARE_MIN", 1.01)
    assert read_dice(image, cal, expected=3).status == "uncertain"


def test_pip_cut_by_the_face_edge_is_counted() -> None:
    """Lightning Dice seed 31 frame 1823: a flat 6 whose upper face lost the thin strip beyond its lower right pip
    (a dimmer corner): the face's hull ran across that pip, which was dropped as lying at the face's edge, and
    five pips were unreadable. Over the die's outline that spot is a whole round pip with its middle inside the
    face: it counts."""
    image, truth, cal = _bench_frame(("yellow",) * 3, 31, 1823)
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [1, 3, 6]
    # the face keeps that strip now (its pips are filled before the opening), so the cue is checked on its own


def test_pip_cut_by_the_face_edge_is_a_whole_round_pip_inside_the_face() -> None:
    """`_pip_cut_by_face_edge` on drawn shapes: a round pip the face's edge cuts through counts when its middle
    lies inside the face; a side face's pip seen edge-on (a sliver) and a pip beyond the face do not."""
    from recognition.dice import vision

    face = np.zeros((40, 40), np.uint8)
    face[4:36, 4:30] = 255  # the face's right edge at x = 29
    edge = cv2.distanceTransform(face, cv2.DIST_L2, 3)
    amin, amax = math.pi / 4 * 3**2, math.pi / 4 * 9**2

    def judge(draw) -> object:
        spot = np.zeros_like(face)
        draw(spot)
        spots = cv2.connectedComponentsWithStats(spot, connectivity=8)
        return vision._pip_cut_by_face_edge(spots, (spot > 0) & (face > 0) & (edge < 3), edge, amin, amax)

    cut = judge(lambda m: cv2.circle(m, (27, 20), 3, 255, -1))  # middle inside, the edge runs across it
    assert cut is not None and abs(cut[0][0] - 27) < 0.5 and abs(cut[0][1] - 20) < 0.5
    assert judge(lambda m: cv2.ellipse(m, (28, 20), (1, 4), 0, 0, 360, 255, -1)) is None  # a sliver
    assert judge(lambda m: cv2.circle(m, (31, 20), 3, 255, -1)) is None  # its middle beyond the face


def test_cocked_die_stays_refused_at_a_side_it_leans_on() -> None:
    """The counterpart of the felt picture: a die cocked against its neighbour; its own side face shows at a
    free side, so it is refused."""
    image, truth, cal, colors = _in_frame("cocked-felt-cut.png")
    assert truth["faces"] is None and truth["faults"] == ["cocked"]
    assert read_dice(image, cal, expected=truth["expected"], colors=colors).status == "uncertain"


def test_outline_cut_by_neighbours_is_vouched_for_by_the_upper_face() -> None:
    """A blue 6 between two red dice: their bodies cut its outline (aspect below the 0.88 the confidence asks
    of an outline), but it meets their upper faces and its own upper face is square, so it is read sure."""
    image, truth, cal, colors = _in_frame("outline-squeezed.png")
    reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.by_color() == {"blue": [5, 6], "red": [2, 5]}
    die = _die_near(reading, _truth_center("outline-squeezed.png", truth, face=6), truth["die_size"])
    assert die.face == 6 and die.confidence >= 0.9
    assert die.checks["flat_aspect"] < 0.88  # the outline alone would not have been sure enough
    assert die.checks["face_aspect"] >= 0.95


def test_strip_beyond_a_row_of_pips_stays_in_the_upper_face() -> None:
    """Sic Bo, seed 41 frame 348: two 6s face to face. The lower 6's strip between its last row of pips and its
    edge is narrower than the opening that takes stray bright pixels off a face; its pips (holes in the face)
    are filled first, so the strip stays. Before, the face lost it (0.64 of a die) and the band measured from
    the cut face refused the flat 6 as cocked."""
    image, truth, cal, colors = _in_frame("sixes-face-to-face.png")
    reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [2, 6, 6]
    sixes = [d for d in reading.dice if d.face == 6]
    assert all(d.checks["face_area"] >= 0.78 and d.checks["side_band"] < 0.2 for d in sixes), [
        d.checks for d in sixes
    ]


def test_walk_ends_where_another_die_begins_across_a_gap() -> None:
    """Sic Bo, seed 64 frame 1584: two flat 1s touching past a corner, each a shape of its own. Four of a 1's
    walks at that side crossed the dark gap between them (a side face's pips are stepped over the same way) and
    ran on through the other's bevel and side face: refused as cocked (a 1 has no pip grid to vouch for it).
    Material of another die's shape across a gap is that die's: the walk ends before the gap. Only another
    shape counts, not another part cut from the same shape: a cut may give a strip of a cocked die's side face
    to its neighbour's part (seed 49 Sic Bo cocked frame 114 of fault seed 66 was read "ok" so)."""
    image, truth, cal, colors = _in_frame("gap-then-neighbour.png")
    reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [1, 1]


def test_a_cut_leaves_die_shaped_parts_and_the_cocked_die_stays_held() -> None:
    """Sic Bo, cocked frame 114 of fault seed 66 (unseen seed 49): a 1 cocked beside a flat 6, one shape. One way
    of cutting it left the 6 a part 0.55 square, with a strip of the 1's side face; the 1, short of that strip,
    measured a band within the allowance and the frame was read "ok" 1-6-6. A cut must leave parts at least
    0.7 square, and a walk ends at another die's material across a gap only when that is another shape."""
    image, _truth, cal = _bench_frame(("white",) * 3, 66, 114, "cocked")
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "uncertain"


def test_light_pip_rims_do_not_raise_the_upper_face_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bac Bo, seed 41 frame 1744: a blue 6's white pips have a blurred light-blue rim that passes for body
    colour and is brighter than the body. As the brightest body pixel nearby, it set the upper face's bar over
    a square around the pip: a corner of the face fell below it, the face was cut and the 6 unreadable. Body
    pixels above 1.1 times the body's median no longer set the bar."""
    from recognition.dice import vision

    image, truth, cal, colors = _in_frame("blue-six-pip-rims.png")
    reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [1, 6]
    six = _die_near(reading, _truth_center("blue-six-pip-rims.png", truth, face=6), truth["die_size"])
    assert six.checks["face_area"] >= 0.8
    monkeypatch.setattr(vision, "_PIP_RIM", 99.0)  # the rims set the bar again
    before = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert before.status == "uncertain"
    assert {i.code for i in before.issues} == {"unreadable"}


def test_pip_grid_is_measured_against_the_die_not_a_cut_outline() -> None:
    """Sic Bo, seed 41 frame 1379: a 6 whose outline its neighbours cut to 0.86 of a die (a shape of its own).
    Its pip grid, measured against that outline, looked 19 % too wide (63 % sure); measured against the die's
    size, it is a flat 6's."""
    image, truth, cal, colors = _in_frame("six-outline-cut.png")
    reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [1, 2, 6]
    six = _die_near(reading, _truth_center("six-outline-cut.png", truth, face=6), truth["die_size"])
    assert six.checks["size"] < 0.9 and six.confidence >= 0.9
    assert abs(six.checks["spread"] - 1) < 0.14


def test_upper_face_lengthened_by_the_perspective_is_sure() -> None:
    """Sic Bo, seed 41 frame 679: a 3 cut from two touching dice, far from the middle of the picture: its lit
    side face facing the camera joins its upper face (aspect 0.87, below the 0.88 the confidence asks). Taken
    without what the perspective shows, the face is square."""
    image, truth, cal, colors = _in_frame("three-lit-side.png")
    reading = read_dice(image, cal, expected=truth["expected"], colors=colors)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [3, 5]
    three = _die_near(reading, _truth_center("three-lit-side.png", truth, face=3), truth["die_size"])
    assert three.checks["face_aspect"] < 0.88 and three.confidence >= 0.9


def _truth_center(name: str, truth: dict, face: int) -> tuple[float, float]:
    """Where the crop's die showing `face` lies in the whole frame (`_in_frame` pads the crop back to it)."""
    import json

    x0, y0 = json.loads((GOLDEN / "regression.json").read_text())[name]["frame"]["offset"]
    (die,) = [d for d in truth["dice"] if d["face"] == face]
    return die["center"][0] + x0, die["center"][1] + y0


def test_grid_squareness_measures_foreshortening() -> None:
    """The pip-grid measure itself: a square 4, 5 or 6 scores 1; squeezed by cos 18 degrees across one edge
    it scores cos 18 degrees (a die tilted that much), whichever way the die is turned."""
    from recognition.dice.vision import _grid_squareness

    for face in (4, 5, 6):
        for deg in (0.0, 17.0, 33.0, 60.0):
            a = math.radians(deg)
            R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
            pips = LAYOUTS[face][0] @ R.T * 40.0
            n = R @ np.array([0.0, 1.0])  # one of the die's edge normals, in the picture
            assert _grid_squareness(pips, face, deg, [n]) == pytest.approx(1.0, abs=1e-9)
            squeeze = np.eye(2) - (1 - math.cos(math.radians(18))) * np.outer(n, n)
            tilted = pips @ squeeze.T
            assert _grid_squareness(tilted, face, deg, [n]) == pytest.approx(
                math.cos(math.radians(18)), abs=1e-6
            )
            assert _grid_squareness(tilted, face, deg, [n]) < 0.975


# --------------------------------------------------------------------------- generated sets


@pytest.mark.parametrize("game", sorted(GAME_DICE))
def test_generated_set_reads_right_and_never_wrong(game: str) -> None:
    """Per game's dice: hard light and noise, touching dice; most read, none read wrong (bench/ has the big set)."""
    colours = GAME_DICE[game]
    g = TrayGeometry.for_frame(960, 540)
    cal = load_calibration(calibration_document(g)).restricted_to(colours)
    rng = random.Random(hash(game) % 1000)
    samples = []
    for i in range(14):
        img, truth = render_still(rng, colours=colours, geometry=g, touching=0.35, jpeg_quality=85)
        samples.append((f"{game}-{i}", img, truth.as_json()))
    report = accuracy(samples, cal)
    assert report.wrong_ok == 0, report.misses
    assert report.correct >= 12, report.misses


@pytest.mark.parametrize("fault", ["cocked", "outside", "missing", "stacked"])
def test_every_fault_is_refused(fault: str) -> None:
    g = TrayGeometry.for_frame(960, 540)
    cal = load_calibration(calibration_document(g))
    rng = random.Random(len(fault))
    for colours in (("white", "white", "white"), ("red", "blue")):
        for _ in range(4):
            img, truth = render_still(rng, colours=colours, faults=(fault,), geometry=g, touching=0.35)
            reading = read_dice(img, cal, expected=len(colours))
            verdict, _ = judge_reading(reading, truth.as_json())
            assert verdict == "held", (fault, colours, reading.faces, truth.faces)


def test_dice_duel_colours_are_told_apart_and_checked() -> None:
    img, truth, g = still_image(("red", "blue"), seed=5, hard=False, touching=0.0)
    cal = load_calibration(calibration_document(g))
    reading = read_dice(img, cal, expected=2, colors=["red", "blue"])
    assert reading.ok
    want = {d.color: d.face for d in truth.dice}
    assert {c: f[0] for c, f in reading.by_color().items()} == want
    # the same picture for a game played with two red dice: the blue die is not a die of the game
    wrong = read_dice(img, cal, expected=2, colors=["red", "red"])
    assert wrong.status == "uncertain"


def test_without_calibration_the_whole_frame_is_searched() -> None:
    img, truth, _ = still_image(("white", "white"), seed=8, hard=False, touching=0.0)
    reading = read_dice(img, None, expected=2)
    assert reading.ok, [i.message for i in reading.issues]
    assert reading.faces == truth.faces
    # and without telling how many: any number, at least one
    assert read_dice(img).faces == truth.faces


def test_a_die_outside_the_tray_is_seen_only_with_a_calibrated_tray() -> None:
    img, truth, g = still_image(("white", "white", "white"), seed=21, faults=("outside",), hard=False)
    cal = load_calibration(calibration_document(g))
    reading = read_dice(img, cal, expected=3)
    assert reading.status == "uncertain"
    assert "outside" in {i.code for i in reading.issues}
    outside = next(d for d in truth.dice if d.fault == "outside")
    flagged = [d for d in reading.dice if d.problem == "outside"]
    assert (
        flagged
        and math.hypot(flagged[0].center[0] - outside.center[0], flagged[0].center[1] - outside.center[1])
        < g.die_size
    )


def test_a_dark_frame_is_refused_for_its_exposure() -> None:
    img, _truth, g = still_image(("white", "white", "white"), seed=3, hard=False)
    dark = (img.astype(np.float32) * 0.08).astype(np.uint8)
    reading = read_dice(dark, load_calibration(calibration_document(g)), expected=3)
    assert reading.status == "uncertain"
    assert "exposure" in {i.code for i in reading.issues}


def test_an_empty_tray_and_a_blank_frame_are_uncertain() -> None:
    blank = np.full((360, 640, 3), 90, np.uint8)
    reading = read_dice(blank, None, expected=3)
    assert reading.status == "uncertain" and reading.faces == []
    assert read_dice(blank).status == "uncertain"


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        read_dice(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError):
        read_dice(np.zeros((10, 10, 3), np.float32))


def test_reading_json_is_the_cli_shape() -> None:
    img, truth, g = still_image(("red", "red"), seed=4, hard=False, touching=0.0)
    out = read_dice(img, load_calibration(calibration_document(g)), expected=2).as_json()
    assert set(out) == {"status", "faces", "dice", "confidence", "issues"}
    assert out["faces"] == sorted(out["faces"]) == truth.faces
    assert all(set(d) == {"face", "color", "center"} and len(d["center"]) == 2 for d in out["dice"])
    assert isinstance(out["confidence"], float)


# --------------------------------------------------------------------------- pure pieces


@pytest.mark.parametrize("face", range(1, 7))
def test_pip_layouts_match_at_any_rotation_and_refuse_broken_ones(face: int) -> None:
    rng = random.Random(face)
    side = 40.0
    for _ in range(20):
        angle = rng.uniform(0, 90)
        variant = rng.choice(LAYOUTS[face])
        a = math.radians(angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        pts = variant @ rot.T * side + rng.gauss(0, 0.4)
        pts += np.array([rng.gauss(0, 0.3) for _ in range(pts.size)]).reshape(pts.shape)
        pts -= pts.mean(axis=0)
        got, residual, _ = _match_layout(pts, side, (angle + rng.uniform(-6, 6)) % 90)
        assert got == face and residual < 0.05
        if face >= 3:  # a missing pip never reads as another face (but a 3 or 5 without its middle pip
            # is a 2 or 4 by its looks: that case is caught by the empty-place check, on pictures)
            corners = [i for i, (x, y) in enumerate(variant) if abs(x) > 0.01 or abs(y) > 0.01]
            broken = np.delete(pts, rng.choice(corners), axis=0)
            broken -= broken.mean(axis=0)
            assert _match_layout(broken, side, angle % 90)[0] is None


@pytest.mark.parametrize("face", [3, 5])
def test_a_pip_the_count_missed_is_never_read_as_another_face(face: int) -> None:
    """A 3 or 5 whose middle pip the pip count cannot take (too faint) must not read as a 2 or 4."""
    g = TrayGeometry.for_frame(640, 360)
    img, _truth = render_still(random.Random(face), colours=("white",), geometry=g, hard=False, faces=[face])
    cal = load_calibration(calibration_document(g))
    reading = read_dice(img, cal, expected=1)
    assert reading.ok and reading.faces == [face]
    cx, cy = map(int, reading.dice[0].center)
    r = max(2, int(0.1 * reading.dice[0].size))
    faint = img.copy()
    cv2.circle(faint, (cx, cy), r + 1, tuple(int(v) for v in img[cy, cx + 3 * r]), -1)  # painted over ...
    cv2.circle(
        faint, (cx, cy), max(1, r - 1), tuple(int(v * 0.55) for v in img[cy, cx + 3 * r]), -1
    )  # faintly
    again = read_dice(faint, cal, expected=1)
    assert again.status == "uncertain" or again.faces == [face], (
        again.faces,
        [i.message for i in again.issues],
    )
    assert again.faces != [face - 1] or again.status != "ok"


def test_calibration_is_validated_versioned_and_restricted() -> None:
    cal = golden_calibration()
    assert cal.version >= 1 and len(cal.digest()) == 16
    assert cal.model_copy(update={"version": 2}).digest() != cal.digest()
    duel = cal.restricted_to(["red", "blue", "red"])
    assert [c.name for c in duel.colors] == ["red", "blue"]
    with pytest.raises(ValueError):
        cal.restricted_to(["purple"])
    for bad in (
        {"tray": [[0, 0], [1, 1]]},
        {"die_size": [50, 20]},
        {"pip_size": [0.3, 0.1]},
        {"colors": [{"name": "w"}, {"name": "w"}]},
        {"colors": [{"name": "r", "hue": [0, 200]}]},
        {"nonsense": 1},
    ):
        with pytest.raises(ValueError):
            load_calibration(bad)
    assert Calibration().colors == DEFAULT_COLORS
    assert load_calibration(cal.model_dump_json()) == cal


def test_three_touching_dice_far_from_the_middle_are_split_at_their_seams(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lightning Dice seed 51 frame 1667: three flat dice touching in one shape near the tray's right edge. Each
    shows two side faces in perspective (7 dice from the middle of the picture), so the shape measures 3.8 dice,
    beyond the 3.8 that three upper faces were allowed: no split was tried and the frame was refused. The
    allowance now grows with the side faces the camera sees of each face's die."""
    from recognition.dice import vision

    image, truth, cal = _bench_frame(("yellow",) * 3, 51, 1667)
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"] == [2, 4, 5]
    monkeypatch.setattr(vision, "_side_faces_seen", lambda *a: 0.0)
    assert read_dice(image, cal, expected=3).status == "uncertain"


@pytest.mark.parametrize(
    "colours, seed, index",
    [(("yellow",) * 3, 51, 336), (("yellow",) * 3, 51, 586), (("white",) * 3, 51, 586)],
)
def test_walks_that_run_on_inside_a_neighbour_do_not_measure_the_band(
    monkeypatch: pytest.MonkeyPatch, colours: tuple[str, ...], seed: int, index: int
) -> None:
    """Lightning Dice seed 51 frames 336 and 586, Sic Bo frame 586: flat dice touching a neighbour rotated
    against them. Two or three of the seven walks out from the edge that faces it run on along the neighbour's
    bevel and body past its upper face's corner (0.5-0.7 die) and set the band: "cocked". The walks that ended,
    at the felt or at the neighbour's upper face, measure 0.16-0.19 die; a cocked die's side face lies under
    every walk of its edge, so when at least five walks ended, the third widest of them is the band."""
    from recognition.dice import vision

    image, truth, cal = _bench_frame(colours, seed, index)
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"]
    monkeypatch.setattr(vision, "_ENDED_MIN", 8)
    assert read_dice(image, cal, expected=3).status == "uncertain"


def test_cocked_die_in_a_square_part_is_held_by_its_squeezed_face() -> None:
    """Craps cocked frame 163 of fault seed 255: a red 2 cocked beside a 1, cut from one shape. Its band at the 1
    is within the seam allowance; its upper face, foreshortened by the tilt, measures 0.86 square, and that keeps
    it below full confidence. Its part of the shape, which holds its side face, is 0.89 square: judging a part by
    the squarer of the two (tried in the seventh session for faces a neighbour shaved) read this frame "ok"."""
    image, _truth, cal = _bench_frame(("red", "red"), 255, 163, "cocked")
    assert read_dice(image, cal, expected=2).status == "uncertain"


@pytest.mark.parametrize(
    "colours, seed, index",
    [
        (("red", "red"), 53, 131),
        (("red", "red"), 53, 1054),
        (("blue", "blue", "red", "red"), 55, 1740),
        (("blue", "blue", "red", "red"), 55, 509),
        (("white",) * 3, 53, 409),
    ],
)
def test_a_neighbours_side_face_pip_beyond_the_grid_is_not_counted(
    monkeypatch: pytest.MonkeyPatch, colours: tuple[str, ...], seed: int, index: int
) -> None:
    """Craps seed 53 frames 131 and 1054, Bac Bo seed 55 frames 1740 and 509, Sic Bo seed 53 frame 409: touching
    dice, the neighbour's side face (its pips) seen inside this die's upper face at the seam: seven pips for a 6,
    two for a 1, four for a 3, three for a 2, unreadable. Those pips lie farther from the face's middle than a
    pip grid's corner (0.45-0.58 die against 0.35), towards the neighbour: without them the pips match a face."""
    from recognition.dice import vision

    image, truth, cal = _bench_frame(colours, seed, index)
    colors = colours if len(set(colours)) > 1 else None
    reading = read_dice(image, cal, expected=len(colours), colors=colors)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"]
    assert any(d.checks.get("beyond_grid", 0) >= 1 for d in reading.dice)
    monkeypatch.setattr(vision, "_PIP_FAR", 9.0)
    assert read_dice(image, cal, expected=len(colours), colors=colors).status == "uncertain"


def test_cocked_one_beside_a_vouched_six_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by the seventh session's sweep of fresh cocked frames (the code before that session read it "ok"
    too). Craps frame 154 of fault seed 253: a red 1 cocked against a flat 6; the seam between them is 0.43-0.5
    die wide, the 6 passes it by its square pip grid, the 1 measures 0.35 of the 0.36 allowed (a 1 has no grid).
    The 6's grid says the excess at that seam is not its own: it is the 1's side face, and a 1 cannot show a
    square grid across it. (Since the ninth session the 1's lit seam band holds it too: switched off here.)"""
    from recognition.dice import vision

    image, _truth, cal = _bench_frame(("red", "red"), 253, 154, "cocked")
    assert read_dice(image, cal, expected=2).status == "uncertain"
    monkeypatch.setattr(vision, "_LIT", 2.0)
    reading = read_dice(image, cal, expected=2)
    assert reading.status == "uncertain"
    assert [d.face for d in reading.dice if d.problem == "cocked"] == [1]
    monkeypatch.setattr(vision, "_neighbours_of_vouched", lambda dice: dice)
    assert read_dice(image, cal, expected=2).status == "ok"  # the wrong reading it was


@pytest.mark.parametrize(
    "colours, seed, index", [(("blue", "blue", "red", "red"), 257, 70), (("red", "red"), 261, 79)]
)
def test_pip_grid_squeezed_across_a_seam_near_its_allowance_is_cocked(
    monkeypatch: pytest.MonkeyPatch, colours: tuple[str, ...], seed: int, index: int
) -> None:
    """Found by the seventh session's sweep of fresh cocked frames, read "ok" by the code before. Bac Bo frame 70
    of fault seed 257: a blue 5 cocked against a 6; one cut of their shape measures its seam band 0.362 die (over
    the 0.34 allowed; its grid, 0.964 square, cannot vouch: cocked), the next cut 0.328, and that cut was read.
    Craps frame 79 of fault seed 261: a red 5 cocked against a 6, its walks into the 6 over the allowance, but
    the free walks at that side (0.14 die) let it pass; its grid is 0.949 square. A band at a seam beyond 0.8 of
    its allowance, or walks into the neighbour beyond the plain allowance where the free walks pass the side,
    now ask a 4, 5 or 6 for a grid at least 0.97 square across that side (flat dice seen there: 0.975 and more).
    (The Craps frame's free walks stop at its side face's pips: walking on through them, as the tenth session's
    rule does, holds it too; both are switched off to show the grid still holds it. The Bac Bo 5's grid measured in
    the full picture is squeezed enough for the other cut's check too: measured at half scale to show that the
    near-allowance check is what holds it there.)"""
    from recognition.dice import vision

    image, _truth, cal = _bench_frame(colours, seed, index, "cocked")
    colors = colours if len(set(colours)) > 1 else None
    assert read_dice(image, cal, expected=len(colours), colors=colors).status == "uncertain"
    monkeypatch.setattr(vision, "_PIP_HOLE", 0.0)
    assert read_dice(image, cal, expected=len(colours), colors=colors).status == "uncertain"
    monkeypatch.setattr(vision, "_NEAR_SQUARE", 0.0)
    monkeypatch.setattr(vision, "_NEAR_MARGIN", -1.0)
    monkeypatch.setattr(vision, "_FINE_REACH", 0.0)
    assert read_dice(image, cal, expected=len(colours), colors=colors).status == "ok"


def test_flat_die_with_a_square_grid_near_a_seam_allowance_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lightning Dice clean frame 876 of seed 109: a flat 4 at a seam near its allowance, its grid 0.975 square at
    half scale, 0.995 in the full picture: read (the near-allowance grid check asks 0.97)."""
    from recognition.dice import vision

    image, truth, cal = _bench_frame(("yellow",) * 3, 109, 876)
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"]
    assert any(d.checks.get("grid_near", 0.0) >= 0.99 for d in reading.dice)
    monkeypatch.setattr(vision, "_FINE_REACH", 0.0)
    assert any(0.97 <= d.checks.get("grid_near", 0.0) < 0.98 for d in read_dice(image, cal, expected=3).dice)


def test_a_cut_at_the_corners_does_not_overrule_the_split_at_the_seams() -> None:
    """Sic Bo cocked frame 125 of fault seed 128 (the bench's fault frames of seed 111; the code before the
    seventh session read it "ok" too): a 2 cocked against a flat 4. Both splits at their upper faces' seam read
    the 2 as cocked (its band 0.44-0.51 die); the cut along the outline's concave corners gave its side face to
    the 4's part, and the 2 passed. A die found cocked by the split at the seams stays so."""
    image, _truth, cal = _bench_frame(("white",) * 3, 128, 125, "cocked")
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "uncertain"
    assert "touching" in {i.code for i in reading.issues}


def test_cocked_red_six_beside_a_blue_two_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dice Duel cocked frame 147 of fault seed 271 (the seventh session's last sweep; the code before that
    session read it "ok" too): a red 6 cocked against a blue 2, its side face between them. Its band at the 2 is
    0.25 die, under the 0.34 allowed at a seam facing away from the middle of the picture (where a flat die's
    neighbour shows its side face), and its outline, 1.15 die, is under the 1.17 a flat die's may reach. But the
    walks go through the die's own colour: against a neighbour of another colour they measure its bevel alone
    (flat dice: at most 0.10 die on 1562 such seams), so there the allowance is the one for an edge that touches
    nothing (0.16 die)."""
    from recognition.dice import vision

    image, _truth, cal = _bench_frame(("red", "blue"), 271, 147, "cocked")
    reading = read_dice(image, cal, expected=2, colors=("red", "blue"))
    assert reading.status == "uncertain"
    assert [(d.color, d.problem) for d in reading.dice if d.problem] == [("red", "cocked")]
    assert 0.2 < max(d.checks.get("unlike_band", 0.0) for d in reading.dice) < 0.3
    monkeypatch.setattr(vision, "_OWN_COLOUR", 0.0)  # every neighbour of this die's colour: the rule is off
    assert (
        read_dice(image, cal, expected=2, colors=("red", "blue")).status == "ok"
    )  # the wrong reading it was


def test_walks_across_a_die_of_the_same_colour_keep_the_seam_allowance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bac Bo clean frame 378 of seed 125: a flat red 2 whose walks pass a red 5's bevel on their way to a blue 2's
    face. They measured the 5's bevel as well as the 2's own (0.17-0.19 die), so the seam keeps its allowance:
    read. Without that condition the other-colour rule held the flat 2 as cocked."""
    from recognition.dice import vision

    colours = ("blue", "blue", "red", "red")
    image, truth, cal = _bench_frame(colours, 125, 378)
    reading = read_dice(image, cal, expected=4, colors=colours)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"]
    bands = vision._side_bands
    monkeypatch.setattr(
        vision, "_side_bands", lambda *a, **k: [sd._replace(crossed=0) for sd in bands(*a, **k)]
    )
    assert read_dice(image, cal, expected=4, colors=colours).status == "uncertain"


def test_cocked_white_die_beside_the_rim_is_held() -> None:
    """Sic Bo frame 164 of fault seed 299 (read "ok" until the ninth session): a white 1 cocked near the rim, its
    side face (three pips) shaded grey. A white die's material is told from the felt by brightness against the
    felt around it, and the felt over the rim was continued from the inside's mean, which the three white dice
    there brightened (110 where the felt measures 70-80): the side face passed for felt, the walks stopped at the
    die's bevel (band 0.07 die) and a 1 has no pip grid to show the tilt. Continued from the inside's median, the
    felt there measures about 80, the side face is the die's, and the frame is held."""
    image, _truth, cal = _bench_frame(("white",) * 3, 299, 164, "cocked")
    assert read_dice(image, cal, expected=3).status == "uncertain"


def test_felt_beside_the_rim_is_not_brightened_by_dice_near_it() -> None:
    """The felt estimate a white die's material is measured against: on a felt of brightness 80 inside a rim of
    120, with white dice crowded against the rim, the felt next to the rim still measures as felt (the estimate
    continued over the rim from the inside's mean measured 100 and more there)."""
    from recognition.dice.vision import _felt_estimates

    h, w, die = 360, 640, 34  # the recognizer's working size of a 1280x720 frame
    v = np.full((h, w), 80, np.uint8)
    felt = np.zeros((h, w), np.uint8)
    felt[30 : h - 30, 30 : w - 30] = 255
    v[felt == 0] = 120
    for x, y in ((555, 120), (555, 160), (515, 140), (575, 80)):  # dice by the right-hand rim
        v[y - die // 2 : y + die // 2, x - die // 2 : x + die // 2] = 250
    planes = [np.zeros_like(v), np.full_like(v, 20), v]
    felt_v, level, _sat = _felt_estimates(planes, die, felt, True)
    assert level == 80
    assert felt_v is not None
    near_rim = felt_v[60:200, 595:608]  # felt between the dice and the rim
    assert near_rim.max() <= 90, near_rim.max()
    assert abs(int(felt_v[h // 2, w // 2]) - 80) <= 2


def test_felt_in_a_dark_corner_is_measured_as_dark() -> None:
    """Under uneven light the felt in a corner of the tray may be half as bright as in the middle. The felt over
    the rim is continued from the felt near it, dice left out, not from the felt's overall level: on a felt
    running from 47 (bottom left) to 110, with two white dice in the dark corner, the corner measures 53 (it
    measured 62 when the rim was set to the overall level, 75; a white die's grey side face of 67 then passed
    for felt), and nowhere less than the felt (the felt itself must never pass for a white die)."""
    from recognition.dice.vision import _felt_estimates

    h, w, die = 360, 640, 34
    yy, xx = np.mgrid[0:h, 0:w]
    v = (40 + 42 * xx / w + 28 * (1 - yy / h)).astype(np.uint8)
    felt = np.zeros((h, w), np.uint8)
    felt[30 : h - 30, 30 : w - 30] = 255
    v[felt == 0] = 120
    for x, y in ((90, 290), (130, 300)):
        v[y - die // 2 : y + die // 2, x - die // 2 : x + die // 2] = 220
    planes = [np.zeros_like(v), np.full_like(v, 20), v]
    felt_v, level, _sat = _felt_estimates(planes, die, felt, True)
    assert felt_v is not None and level == 75
    corner = float(felt_v[300:320, 40:60].mean())
    true = float(v[300:320, 40:60].mean())
    assert true - 2 <= corner <= true + 8, (corner, true)
    assert abs(int(felt_v[h // 2, w // 2]) - int(v[h // 2, w // 2])) <= 2


def test_felt_estimate_follows_light_falling_into_a_corner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Light falling steeply into a corner (felt 31 there, 77 in the middle, 98 at the far corner), two white dice
    in that corner and their shadow below them: by the dice the estimate follows the felt down to within 6 (the
    median alone lagged 12 and more above it, and a white die's grey side face passed for felt), the shadow does
    not pull it down (the felt beside a shadow must not pass for a die's side face), and elsewhere it is the
    felt's."""
    from recognition.dice import vision

    h, w, die = 360, 640, 34
    yy, xx = np.mgrid[0:h, 0:w]
    xr, yr = xx / w, yy / h
    light = (100 - 35 * ((1 - xr) ** 2 + (1 - yr) ** 2) - 20 * (1 - xr) * (1 - yr)).astype(np.uint8)
    v = light.copy()
    felt = np.zeros((h, w), np.uint8)
    felt[30 : h - 30, 30 : w - 30] = 255
    v[felt == 0] = 120
    for x, y in ((70, 70), (104, 74)):
        v[y - die // 2 : y + die // 2, x - die // 2 : x + die // 2] = 200
    shadow = (slice(92, 110), slice(50, 125))
    v[shadow] = (v[shadow] * 0.6).astype(np.uint8)

    def estimate() -> np.ndarray:
        felt_v, _level, _sat = vision._felt_estimates(
            [np.zeros_like(v), np.full_like(v, 20), v], die, felt, True
        )
        assert felt_v is not None
        return felt_v.astype(int)

    felt_v = estimate()
    by_dice = (slice(55, 85), slice(34, 50))
    assert (felt_v[by_dice] - light[by_dice]).mean() <= 6 and (felt_v[by_dice] - light[by_dice]).max() <= 9
    assert (felt_v[shadow] - light[shadow]).min() >= -6
    for far in ((slice(170, 190), slice(310, 330)), (slice(300, 320), slice(580, 600))):
        assert np.abs(felt_v[far] - light[far]).max() <= 4
    monkeypatch.setattr(vision, "_FELT_FLOOR", 1.0)  # the median alone
    assert (estimate()[by_dice] - light[by_dice]).mean() >= 12


def test_cocked_white_die_in_a_dark_corner_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sic Bo fault seed 399 frame 74 (read "ok" by the tenth session's first sweep, 7500 cocked frames): a white 6
    tilted against another 6, in the tray's dark bottom-left corner (felt 25-50, the felt's overall level about
    80). Its grey side face (brightness 67-70, 0.35 die wide at an edge facing away) measured under the bar of a
    shaded white face, 1.25 times a felt estimated at 63, and the walks found no side face. With the rim set to the
    felt near it the estimate is 52 and the die is held; with the rim set to the overall level it reads "ok"."""
    from recognition.dice import vision

    image, _truth, cal = _bench_frame(("white",) * 3, 399, 74, "cocked")
    assert read_dice(image, cal, expected=3).status == "uncertain"
    monkeypatch.setattr(vision, "_DIE_CELL", 0.0)
    assert read_dice(image, cal, expected=3).status == "ok"


@pytest.mark.parametrize(
    "colours, seed, index",
    [(("yellow",) * 3, 289, 111), (("yellow",) * 3, 347, 69), (("white",) * 3, 347, 69)],
)
def test_cocked_die_showing_a_lit_side_face_at_a_seam_is_held(
    monkeypatch: pytest.MonkeyPatch, colours: tuple[str, ...], seed: int, index: int
) -> None:
    """Cocked dice read "ok" on fresh fault frames: each leans on a neighbour and shows its own side face in the
    band between them, which the seam's allowance took for the bevels, gap and side face of two flat dice.
    Lightning Dice fault seed 289 frame 111 (a 6 against a 3, the seam facing away from the middle of the
    picture: band 0.338 die of 0.34, grid 0.974 square of 0.97); fault seed 347 frame 69, in yellow and in white
    (a 1 tilted 18 degrees against two 3s, the seam facing the middle: band 0.35 of 0.36 and more; a 1 has no
    grid). The middle of that band is 0.75-0.86 as bright as the upper face: a side face tilted up towards the
    light. Between flat dice it is a vertical side face or the gap, at most 0.69 on clean frames. Each reads "ok"
    with the rule switched off, and the near-allowance grid check with it (the 6 of seed 289 is held by that too:
    its grid measures 0.964 square in the full picture, 0.974 asked there; 0.974 at half scale)."""
    from recognition.dice import vision

    image, _truth, cal = _bench_frame(colours, seed, index, "cocked")
    assert read_dice(image, cal, expected=3).status == "uncertain"  # as cocked, or as a shape no cut reads
    monkeypatch.setattr(vision, "_LIT", 2.0)
    monkeypatch.setattr(vision, "_NEAR_SQUARE", 0.0)
    monkeypatch.setattr(vision, "_NEAR_MARGIN", -1.0)
    assert read_dice(image, cal, expected=3).status == "ok"


def test_cocked_die_whose_lit_side_face_joins_its_upper_face_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lightning Dice fault seed 379 frame 212 (read "ok" by a fresh sweep of the ninth session): a yellow 1 tilted
    19 degrees, alone, its side face (a 2) lit as brightly as its upper face, so the two make one bright region of
    1.09 die (flat dice's upper faces: at most 0.98 of 5598 on clean seed 161). The side face's pips lie at the
    region's edge, where pips seen edge-on are ignored, and its outline (0.886 square) passes: a 1 has no grid.
    An upper face larger than a die is held as cocked; with the bar out of reach the frame reads "ok" (and with the
    tenth session's offset rule, which holds it too, switched off)."""
    from recognition.dice import vision

    image, _truth, cal = _bench_frame(("yellow",) * 3, 379, 212, "cocked")
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "uncertain"
    assert [d.checks["face_area"] > 1.05 for d in reading.dice if d.problem == "cocked"] == [True]
    monkeypatch.setattr(vision, "_FACE_AREA_MAX", 2.0)
    assert read_dice(image, cal, expected=3).status == "uncertain"  # the offset rule holds it as well
    monkeypatch.setattr(vision, "_OFFSET_AWAY", 2.0)
    assert read_dice(image, cal, expected=3).status == "ok"


def test_free_walks_step_through_a_side_faces_pips(monkeypatch: pytest.MonkeyPatch) -> None:
    """Craps fault seed 385 frame 31 (read "ok" by the ninth session's last sweep, 7500 cocked frames): a red 3
    tilted 18.4 degrees against another red 3, near the middle of the picture. Its walks into the neighbour measure
    0.5 die, but the walks at that side that end at the felt stopped at its side face's pips (a 4 seen at a slant:
    two pips one above the other make one white spot 0.2 die across the edge, longer than the walks step over) and
    measured 0.13 die, so the band was taken for the neighbour's; a 3 has no 2-D grid to vouch. A walk now steps
    through a spot off the die's material that the material closes within 0.3 die across the edge and 0.25 die
    along it (a pip; beyond a flat die's bevel lie the felt or a strip of felt between two dice): the side face
    is measured whole and the die is held. With that switched off the frame reads "ok"."""
    from recognition.dice import vision

    image, _truth, cal = _bench_frame(("red", "red"), 385, 31, "cocked")
    assert read_dice(image, cal, expected=2).status == "uncertain"
    monkeypatch.setattr(vision, "_PIP_HOLE", 0.0)
    assert read_dice(image, cal, expected=2).status == "ok"


def test_the_strip_of_felt_between_two_dice_is_not_stepped_through() -> None:
    """The other side of the rule above: Sic Bo clean seed 165 frame 313 and Craps clean seed 165 frame 51, flat
    dice whose walks leave the die across a strip of felt and meet material again (the neighbour's lit side face,
    outside its own shape) within 0.3 die. The strip runs on along the edge, so it is no pip: the walks end there
    and the dice are read (both were refused as cocked before the along-the-edge bound was added)."""
    for colours, index in ((("white",) * 3, 313), (("red", "red"), 51)):
        image, truth, cal = _bench_frame(colours, 165, index)
        reading = read_dice(image, cal, expected=len(colours))
        assert reading.status == "ok", [i.message for i in reading.issues]
        assert reading.faces == truth["faces"]


@pytest.mark.parametrize("colours", [("yellow",) * 3, ("white",) * 3])
def test_cocked_die_whose_upper_face_reaches_away_beyond_its_pips_is_held(
    monkeypatch: pytest.MonkeyPatch, colours: tuple[str, ...]
) -> None:
    """Fault seed 453 frame 212 (read "ok" in Lightning Dice and Sic Bo by the tenth session's sweep): a 3 cocked
    beside a 2, far right and up in the picture, its side face (a 4) lit as brightly as its upper face and joined
    to it on the side facing away from the middle of the picture, where the camera sees no side face of a flat
    die. The joined region is 0.975 die (under the 1.02 bar) and its middle lies 0.106 die beyond the pips' middle,
    away from the picture's middle (flat dice: at most 0.064 over 27,224 dice of clean seeds 447 and 449). With the
    bar out of reach the frame reads "ok"."""
    from recognition.dice import vision

    image, _truth, cal = _bench_frame(colours, 453, 212, "cocked")
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "uncertain"
    monkeypatch.setattr(vision, "_OFFSET_AWAY", 2.0)
    assert read_dice(image, cal, expected=3).status == "ok"


def test_flat_dice_faces_lie_on_their_pips() -> None:
    """The other side of the rule above: the flat die whose upper face's middle lies farthest from its pips' middle,
    away from the middle of the picture, on clean seeds 447 and 449 (Craps 449/913, a 1: 0.064 die) is read."""
    image, truth, cal = _bench_frame(("red", "red"), 449, 913)
    reading = read_dice(image, cal, expected=2)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"]
    assert 0.05 < max(d.checks.get("offset_away", 0.0) for d in reading.dice) < 0.08


def test_cocked_white_die_under_dim_light_in_a_corner_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sic Bo fault seed 473 frame 287 (read "ok" by the tenth session's last sweep): a white 6 cocked beside another
    6 in the tray's top-left corner, under dim light (upper faces 104; the felt by the dice 28-34, in their shadow
    15-25). Its side face faces away from the middle of the picture and is 52-54 bright. The felt estimate, a
    median three dice wide, lagged behind the light's fall into the corner (47), so the side face was under the
    1.25 times a shaded white face must reach and no walk found it. The estimate now follows the light fitted to
    the whole felt, the side face joins the die and the shape is held. With the median's estimate alone the frame
    reads "ok"."""
    from recognition.dice import vision

    image, _truth, cal = _bench_frame(("white",) * 3, 473, 287, "cocked")
    assert read_dice(image, cal, expected=3).status == "uncertain"
    monkeypatch.setattr(vision, "_FELT_FLOOR", 1.0)
    assert read_dice(image, cal, expected=3).status == "ok"


@pytest.mark.parametrize(
    "colours, seed, index",
    [(("yellow",) * 3, 159, 1656), (("yellow",) * 3, 159, 942), (("white",) * 3, 159, 942)],
)
def test_flat_dice_at_a_wide_seam_are_read(colours: tuple[str, ...], seed: int, index: int) -> None:
    """The other side of the rule above: the flat dice whose wide seam band has the brightest middle measured on
    clean seeds 151-159 (0.686, 0.654 and 0.650 of the upper face; the next, 0.57) are read. They were refused with
    the bar at 0.65."""
    from recognition.dice import vision

    image, truth, cal = _bench_frame(colours, seed, index)
    reading = read_dice(image, cal, expected=len(colours))
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"]
    assert 0.64 < max(d.checks.get("seam_lit", 0.0) for d in reading.dice) < vision._LIT


@pytest.mark.parametrize(
    "colours, seed, index", [(("blue", "blue", "red", "red"), 121, 800), (("red", "blue"), 119, 549)]
)
def test_flat_dice_of_two_colours_at_a_seam_facing_away_are_read(
    colours: tuple[str, ...], seed: int, index: int
) -> None:
    """The other side of the rule above: flat red and blue dice touching, their seam facing away from the middle
    of the picture for one of them, are read; the band there is that die's bevel (the widest two of 1562 such
    seams on clean frames: 0.098 and 0.090 die)."""
    image, truth, cal = _bench_frame(colours, seed, index)
    reading = read_dice(image, cal, expected=len(colours), colors=colours)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"]
    assert 0.08 < max(d.checks.get("unlike_band", 0.0) for d in reading.dice) < 0.16


def test_pips_joined_by_blur_are_parted() -> None:
    """Two pips of a column joined by a pixel's bridge (a 6 read at half scale) are parted by a stricter bar into
    two pip-shaped spots, each given the spot's pixels nearest it; a spot that no stricter bar parts into pips only
    (a bar of dark pixels), or only into spots smaller than a pip, is left alone."""
    from recognition.dice.vision import _split_merged_pips

    dist = np.zeros((20, 12), np.float32)
    yy, xx = np.mgrid[0:20, 0:12]
    for cy in (5.0, 13.0):
        dist = np.maximum(dist, np.clip(200 - 45 * np.hypot(yy - cy, xx - 6.0), 0, 200).astype(np.float32))
    dist[6:13, 6] = np.maximum(dist[6:13, 6], 120.0)  # the bridge: over the bar, under the stricter one
    pips = (dist > 100).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(pips, connectivity=8)
    assert n == 2, "the two pips must be one spot at the first bar"
    edge = np.full(dist.shape, 10.0, np.float32)
    parts = _split_merged_pips(dist, labels, stats[1], 1, 100.0, 200.0, edge, 3.0, 3.0, 60.0, 8.0)
    assert parts is not None
    centres, areas = parts
    assert sorted(round(float(c[1])) for c in centres) == [5, 13]
    assert all(abs(float(c[0]) - 6.0) < 0.5 for c in centres)
    assert sum(areas) == stats[1, cv2.CC_STAT_AREA] and min(areas) / max(areas) > 0.8
    # parted into spots each far smaller than a pip (a neighbour's side-face pips seen at a slant): left alone
    assert (
        _split_merged_pips(dist, labels, stats[1], 1, 100.0, 200.0, edge, 3.0, 3.0, 60.0, 1.1 * min(areas))
        is None
    )

    bar = np.zeros((20, 12), np.float32)
    bar[3:16, 4:8] = 200.0
    n, labels, stats, _ = cv2.connectedComponentsWithStats((bar > 100).astype(np.uint8), connectivity=8)
    assert _split_merged_pips(bar, labels, stats[1], 1, 100.0, 200.0, edge, 3.0, 3.0, 60.0, 8.0) is None


def test_bac_bo_six_whose_pips_blur_joined_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bac Bo clean seed 175 frame 602: a blue 6 touching a blue 4. At the reading's half scale two pips of the 6's
    column join into one spot (7 x 15 work pixels), so only four pips were found and the shape was refused as
    touching dice that could not be told apart. A stricter bar parts them and all four dice are read; without it
    the frame is refused again."""
    from recognition.dice import vision

    colours = ("blue", "blue", "red", "red")
    image, truth, cal = _bench_frame(colours, 175, 602)
    reading = read_dice(image, cal, expected=4, colors=colours)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"]
    monkeypatch.setattr(vision, "_SPLIT_BARS", ())
    assert read_dice(image, cal, expected=4, colors=colours).status == "uncertain"


def test_a_pixel_two_walks_cross_counts_once() -> None:
    """Lightning Dice clean seed 173 frame 1964: a flat 2 beside the tray's left rim. Two of the walks out from its
    left edge (which faces away from the middle of the picture) stepped over the same dark pixel at the rim, and
    it was counted twice as a side face's pip: two pixels make a die cocked, so the frame was refused. Each pixel
    now counts once: one pixel is noise, and the dice are read."""
    colours = ("yellow",) * 3
    image, truth, cal = _bench_frame(colours, 173, 1964)
    reading = read_dice(image, cal, expected=3)
    assert reading.status == "ok", [i.message for i in reading.issues]
    assert reading.faces == truth["faces"]
    assert max(d.checks.get("side_face_pips", 0.0) for d in reading.dice) == 1.0


def test_pip_middles_are_measured_at_full_resolution() -> None:
    """Pips found at half scale are measured again in the full picture: on a face whose grid is squeezed to 0.96
    across one way (a die tilted 18 degrees), the middles found at half scale (rounded to its pixels) are moved to
    within a tenth of a pixel of the truth, and the grid measures the squeeze."""
    from types import SimpleNamespace

    from recognition.dice.vision import _fine_pips, _grid_squareness

    side = 64.0
    body, pip = np.array([200.0, 90.0, 30.0]), np.array([250.0, 250.0, 250.0])
    img = np.empty((200, 200, 3), np.float32)
    img[:] = body
    centre = np.array([100.3, 99.6])
    truth = (
        np.array([(gx * 0.96, gy) for gx in (-0.25, 0.25) for gy in (-0.25, 0.25)] + [(0.0, 0.0)]) * side
        + centre
    )
    yy, xx = np.mgrid[0:200, 0:200]
    for cx, cy in truth:
        cover = np.clip(0.085 * side + 0.5 - np.hypot(xx - cx, yy - cy), 0, 1)[..., None]
        img = img * (1 - cover) + pip * cover
    full = np.clip(np.rint(img), 0, 255).astype(np.uint8)
    work = SimpleNamespace(full=full, scale=0.5)
    coarse = np.rint((truth + 0.5) * 0.5 - 0.5)  # as found at half scale, to its pixels
    fine = _fine_pips(work, coarse, body, pip, side * 0.5)
    back = (fine + 0.5) / 0.5 - 0.5
    assert np.abs(back - truth).max() < 0.1
    assert np.abs((coarse + 0.5) / 0.5 - 0.5 - truth).max() > 0.5
    q = fine - fine.mean(axis=0)
    assert abs(_grid_squareness(q, 5, 0.0, [np.array([1.0, 0.0])]) - 0.96) < 0.005


def test_cocked_five_whose_grid_looked_square_at_half_scale_is_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bac Bo fault seed 565 frame 82 (read "ok" by this session's first sweep): a blue 5 tilted 18.1 degrees
    against a blue 4, left of and below the middle of the picture, its side face (a 4) at the seam. The band there
    is over its allowance, so the pip grid must vouch for a flat die: at half scale it measured 0.991 square across
    the seam (0.989 needed), in the full picture 0.964 (a tilt of 18 degrees: 0.951-0.965). The grid is measured in
    the full picture and the die is held; measured at half scale, the frame reads "ok"."""
    from recognition.dice import vision

    colours = ("blue", "blue", "red", "red")
    image, _truth, cal = _bench_frame(colours, 565, 82, "cocked")
    reading = read_dice(image, cal, expected=4, colors=colours)
    assert reading.status == "uncertain"
    monkeypatch.setattr(vision, "_FINE_REACH", 0.0)
    assert read_dice(image, cal, expected=4, colors=colours).status == "ok"


def test_the_grid_bar_rises_with_the_camera_slant() -> None:
    """Under the camera, or at a side facing the middle of the picture, a tilt of 18 degrees squeezes a grid to
    cos 18 = 0.951 and the near-allowance bar is 0.97. At a side facing away, v = atan(distance / height) off the
    middle, the face tilts towards the camera and is squeezed to cos(18 - v) / cos v only; the bar is 0.01 over
    that once it passes 0.97 (3.9 degrees: 0.982), and past about 8 degrees no grid can vouch (over 1)."""
    from recognition.dice.vision import _near_needed, _slant

    assert _slant(0.0) == 0.0 and _slant(0.5) == 0.0
    assert _near_needed(0.0) == pytest.approx(0.97) and _near_needed(0.3) == pytest.approx(0.97)
    v = math.radians(3.9)
    assert _near_needed(-math.tan(v)) == pytest.approx(math.cos(math.radians(18) - v) / math.cos(v) + 0.01)
    assert 0.981 < _near_needed(-math.tan(v)) < 0.983
    assert _near_needed(-math.tan(math.radians(8.5))) > 1.0
    assert _near_needed(0.0, 0.975) == pytest.approx(0.975)
