"""The classical pip counter (recognition.dice.pips.count_pips) on drawn dice and on the fixture photos.

Drawn dice: every face, at the sizes real photos give (a 25-pixel die blown up to the crop, a large one
shrunk to it), turned, dark pips on light dice, light on dark, coloured on coloured, a slanted die whose
side faces show their pips, and the faults that must read nothing: a stray spot, a pip lost to glare.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from recognition.dice.find import CROP, CROP_MARGIN, find_dice
from recognition.dice.pips import count_pips

PHOTOS = Path(__file__).resolve().parents[1] / "fixtures" / "dice-photos"
#: the pip offset from a face's middle and the pip radius, in die sides (real dice: 0.25-0.3, 0.07-0.1)
OFFSET, RADIUS = 0.27, 0.085
LAYOUT = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}
BGR = tuple[int, int, int]
WHITE, BLACK, RED, BLUE, FELT = (235, 235, 230), (30, 30, 30), (40, 40, 200), (170, 90, 30), (140, 150, 150)
SS = 8  # supersampling of the drawing


def _poly(img: np.ndarray, pts: np.ndarray, colour: BGR) -> None:
    cv2.fillPoly(img, [np.round(pts * SS).astype(np.int32)], colour, cv2.LINE_AA)


def _face(
    img: np.ndarray,
    mask: np.ndarray,
    corner: np.ndarray,
    u: np.ndarray,
    v: np.ndarray,
    face: int,
    body: BGR,
    pip: BGR,
) -> None:
    """One face: the parallelogram corner + [0,1]u + [0,1]v, its pips the same shape squeezed."""
    quad = np.array([corner, corner + u, corner + u + v, corner + v])
    _poly(img, quad, body)
    _poly(mask, quad, (255, 255, 255))
    ring = np.array([(np.cos(a), np.sin(a)) for a in np.linspace(0, 2 * np.pi, 24, endpoint=False)])
    mid = corner + (u + v) / 2
    for a, b in LAYOUT[face]:
        c = mid + OFFSET * (a * u + b * v)
        _poly(img, c + RADIUS * (ring[:, :1] * u + ring[:, 1:] * v), pip)


def drawn(
    face: int,
    *,
    die: float = 38.4,
    turn: float = 0.0,
    body: BGR = WHITE,
    pip: BGR = BLACK,
    slant: float = 0.0,
    side_faces: int = 3,
) -> tuple[np.ndarray, np.ndarray]:
    """A die crop as the finder cuts it (CROP x CROP, the die's patch 1/CROP_MARGIN of it, upright) and its
    mask. `die`: the die's side in the camera's pixels (the crop is that picture scaled); `slant`: how much
    of a side the camera sees of the front face (the upper face is squeezed to match), which shows
    `side_faces`' pips."""
    top = np.sqrt(max(0.0, 1.0 - slant**2))  # the upper face's height, seen slanted
    a = np.radians(turn)
    u = die * np.array([np.cos(a), np.sin(a)])
    v = die * top * np.array([-np.sin(a), np.cos(a)])
    down = die * slant * np.array([-np.sin(a), np.cos(a)])
    # the finder scales the die's patch (its upper face and the side faces seen) to the crop
    extent = np.abs(np.array([u, v + down])).sum(0).max()
    n = round(extent * CROP_MARGIN)  # the camera's pixels of the crop
    img = np.zeros((n * SS, n * SS, 3), np.uint8)
    img[:] = FELT
    mask = np.zeros((n * SS, n * SS, 3), np.uint8)
    corner = np.array([n / 2, n / 2]) - (u + v + down) / 2
    _face(img, mask, corner, u, v, face, body, pip)
    if slant:
        shade = tuple(int(c * 0.8) for c in body)
        _face(img, mask, corner + v, u, down, side_faces, shade, pip)  # type: ignore[arg-type]
    small = cv2.resize(img, (n, n), interpolation=cv2.INTER_AREA)
    m = cv2.resize(mask[..., 0], (n, n), interpolation=cv2.INTER_AREA)
    crop = cv2.resize(small, (CROP, CROP), interpolation=cv2.INTER_LINEAR if n < CROP else cv2.INTER_AREA)
    cmask = (cv2.resize(m, (CROP, CROP), interpolation=cv2.INTER_LINEAR) > 127).astype(np.uint8) * 255
    return crop, cmask


@pytest.mark.parametrize("face", range(1, 7))
@pytest.mark.parametrize("die", [25.0, 38.4, 90.0])
@pytest.mark.parametrize(
    ("body", "pip"),
    [(WHITE, BLACK), (BLACK, WHITE), (BLUE, RED), (RED, WHITE)],
    ids=["dark", "light", "red", "white"],
)
def test_each_face_reads_at_every_size_and_colour(face: int, die: float, body: BGR, pip: BGR) -> None:
    crop, mask = drawn(face, die=die, body=body, pip=pip)
    assert count_pips(crop, mask).face == face
    assert count_pips(crop).face == face  # without a mask: the crop's middle square


@pytest.mark.parametrize("face", range(1, 7))
@pytest.mark.parametrize("turn", [-20.0, 10.0, 30.0])
def test_a_turned_face_reads(face: int, turn: float) -> None:
    crop, mask = drawn(face, die=30.0, turn=turn)
    assert count_pips(crop, mask).face == face


@pytest.mark.parametrize("face", range(1, 7))
@pytest.mark.parametrize("slant", [0.3, 0.4])
def test_a_slanted_die_reads_its_upper_face_not_its_side_faces(face: int, slant: float) -> None:
    crop, mask = drawn(face, die=40.0, slant=slant, side_faces=6 if face != 6 else 5)
    assert count_pips(crop, mask).face == face


def test_a_face_with_pips_beyond_the_layout_never_reads_another_number() -> None:
    for face in range(1, 7):
        crop, mask = drawn(face, die=38.4)
        # a stray spot where no layout has a pip, inside the face
        cv2.circle(
            crop, (round(CROP / 2 + 0.12 * 38.4), round(CROP / 2 - 0.3 * 38.4)), 3, BLACK, -1, cv2.LINE_AA
        )
        assert count_pips(crop, mask).face is None


@pytest.mark.parametrize("face", [3, 4, 5, 6])
def test_a_pip_lost_to_glare_makes_the_face_unread_or_right_never_a_smaller_face(face: int) -> None:
    crop, mask = drawn(face, die=38.4)
    # glare washes one pip out to half its contrast: the spot finder may let it go, the face must not lose it
    c = CROP / 2 + OFFSET * 38.4 * np.array(LAYOUT[face][-1])
    sel = np.hypot(*(np.mgrid[0:CROP, 0:CROP][::-1] - c[:, None, None])) < RADIUS * 38.4 + 1.5
    crop[sel] = (crop[sel].astype(np.int32) + np.array(WHITE)) // 2
    assert count_pips(crop, mask).face in (face, None)


def test_no_pips_and_no_die_read_nothing() -> None:
    crop, mask = drawn(1, die=38.4)
    blank = np.full_like(crop, WHITE)
    assert count_pips(blank, mask).face is None
    assert count_pips(blank, mask).pips == ()
    rng = np.random.default_rng(3)
    grain = cv2.GaussianBlur(rng.integers(0, 255, (CROP, CROP, 3), dtype=np.uint8), (0, 0), 1.2)
    assert count_pips(grain, mask).face is None
    assert count_pips(crop, np.zeros_like(mask)).reason == "no die body"


def test_the_fit_photos_read_no_face_they_do_not_show_and_read_whole() -> None:
    """The fixture photos of the fit part (roles.json's regression ones). The validation ones are the
    learned reader's to check (test_dicevision_reader): the pip counter alone may misread a die there,
    which the network's disagreement holds."""
    labels = json.loads((PHOTOS / "labels.json").read_text())
    roles = json.loads((PHOTOS / "roles.json").read_text())
    for name in roles["regression"]:
        got: Counter[int] = Counter()
        for c in find_dice(np.asarray(cv2.imread(str(PHOTOS / name)))).candidates:
            if c.crop is not None and c.dice >= 0.5 and (f := count_pips(c.crop, c.mask).face) is not None:
                got[f] += 1
        assert sorted(got.elements()) == labels[name], name


def test_the_plain_float_colour_spread_is_numpys_to_the_last_bit() -> None:
    """`_layout` checks a set of spots' colours in plain floats (numpy's cost per call on 1-6 spots was most
    of its time); the figure must be numpy's own, or a set at the threshold would read otherwise."""
    from recognition.dice.pips import _spread_of

    rng = np.random.default_rng(22)
    for n in range(2, 7):
        for _ in range(300):
            colours = rng.uniform(0, 255, (n, 3))
            d = colours - colours.mean(0)
            expected = float(np.sqrt(d[:, 0] ** 2 + 4.0 * (d[:, 1] ** 2 + d[:, 2] ** 2)).max())
            assert _spread_of([tuple(map(float, c)) for c in colours]) == expected
