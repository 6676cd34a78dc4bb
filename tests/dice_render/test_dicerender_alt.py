"""simulators.dice_alt: the second renderer draws what it says (the pips counted in the picture are the
faces it reports), the same picture for the same seed, the sizes asked for, and a labelled set in the
photo set's format."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from simulators.dice_alt import DieLook, Optics, Style, main, random_style, render, write_set

#: a plain style whose pips can be counted exactly: straight down, no blur, no noise, no glare
CLEAR = Style(
    surface=("felt", (110, 80, 30)),
    die_px=90.0,
    looks=(DieLook(name="white", rounding=0.12),),
    shadow=0.2,
    touching=0.0,
    optics=Optics(),
)


def _pips_on_top(img: np.ndarray, die: dict, look: DieLook) -> int:
    """Count the pips inside the die's upper face: regions nearer the pip colour than the body colour."""
    top = np.array(die["top"], np.float32)
    centre = top.mean(axis=0)
    face = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(face, np.round(centre + (top - centre) * 0.92).astype(np.int32), 255)
    px = img.astype(np.float32)
    near_pip = np.linalg.norm(px - look.pip, axis=2) < np.linalg.norm(px - look.body, axis=2)
    blobs = (near_pip & (face > 0)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(blobs)
    least = (die["side_px"] * look.pip_radius) ** 2  # a quarter of a pip's area, and more
    return sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= least)


@pytest.mark.parametrize(
    "look",
    [
        DieLook(name="white", rounding=0.12),
        DieLook(name="red", body=(40, 40, 196), pip=(240, 240, 240), pip_shape="square", rounding=0.0),
        DieLook(name="black", body=(36, 34, 34), pip=(40, 170, 215), pip_style="engraved", rounding=0.2),
    ],
    ids=["white-round", "red-square-sharp", "black-gold-engraved"],
)
def test_the_pips_drawn_on_each_upper_face_are_its_label(look):
    style = replace(CLEAR, looks=(look,))
    for seed, faces in ((1, [1, 2, 3]), (2, [4, 5, 6]), (3, [6, 1, 5])):
        img, sorted_faces, info = render(seed, 3, style=style, faces=faces)
        assert sorted_faces == sorted(faces)
        assert [d["face"] for d in info["dice"]] == faces
        for die in info["dice"]:
            assert _pips_on_top(img, die, look) == die["face"], (seed, die)


def test_a_seed_gives_the_same_picture_and_another_seed_another():
    a, fa, ia = render(11, 4)
    b, fb, ib = render(11, 4)
    c, _, _ = render(12, 4)
    assert np.array_equal(a, b) and fa == fb and ia["dice"] == ib["dice"]
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("size", [(1280, 720), (640, 480)])
def test_pictures_are_the_size_asked_for_with_every_die_inside(size):
    w, h = size
    for seed in range(6):
        count = 1 + seed % 5
        img, faces, info = render(seed, count, width=w, height=h)
        assert img.shape == (h, w, 3) and img.dtype == np.uint8
        assert len(faces) == count == len(info["dice"]) and faces == sorted(faces)
        for d in info["dice"]:
            assert 0 <= d["center"][0] < w and 0 <= d["center"][1] < h
            assert d["face"] in range(1, 7) and d["side_px"] > 8


def test_a_cocked_die_is_said_to_be_cocked_and_no_other():
    _, _, info = render(5, 3, cocked=1)
    assert [d["cocked"] for d in info["dice"]] == [True, False, False]


def test_the_empty_tray_of_a_style_is_that_style_without_dice():
    style = replace(random_style(4), optics=Optics())
    empty, faces, info = render(40, 0, style=style)
    again, _, _ = render(41, 0, style=style)
    assert faces == [] and info["dice"] == []
    assert np.array_equal(empty, again)  # no noise: the same table
    with_dice, _, _ = render(40, 2, style=style)
    assert not np.array_equal(empty, with_dice)


def test_bad_requests_are_refused():
    with pytest.raises(ValueError):
        render(1, 13)
    with pytest.raises(ValueError):
        render(1, 2, cocked=3)
    with pytest.raises(ValueError):
        render(1, 2, faces=[1, 7])


def test_the_set_writer_writes_labels_in_the_photo_sets_format(tmp_path):
    labels = write_set(tmp_path / "set", 6, seed=3, width=640, height=480, cocked=0.5)
    written = json.loads((tmp_path / "set" / "labels.json").read_text())
    assert written == labels
    pictures = sorted(p.name for p in (tmp_path / "set").glob("*.jpg"))
    assert len(pictures) == 6 and 0 < len(written) < 6  # the cocked ones are not in labels.json
    for name in pictures:
        img = cv2.imread(str(tmp_path / "set" / name))
        assert img is not None and img.shape == (480, 640, 3)
        truth = json.loads((tmp_path / "set" / name).with_suffix(".json").read_text())
        faces = written.get(name)
        if faces is None:
            assert truth["faults"] == ["cocked"] and truth["faces"] is None
            assert sum(d["cocked"] for d in truth["dice"]) == 1
        else:
            assert faces == sorted(faces) and all(f in range(1, 7) for f in faces)
            assert truth["faces"] == faces and len(truth["dice"]) == truth["expected"] == len(faces)
            assert "color" not in truth["dice"][0]  # the recognizer names colours its own way


def test_the_command_line_writes_a_set(tmp_path, capsys):
    assert main(["--out", str(tmp_path / "o"), "--n", "2", "--seed", "9", "--count", "2"]) == 0
    labels = json.loads((tmp_path / "o" / "labels.json").read_text())
    assert sorted(labels) == ["alt_00000.jpg", "alt_00001.jpg"]
    assert all(len(v) == 2 for v in labels.values())
    assert json.loads(capsys.readouterr().out)["pictures"] == 2


def test_the_studios_accuracy_run_reads_the_written_set(tmp_path):
    from studio.dice_camera import folder_accuracy, labelled_pictures

    labels = write_set(tmp_path / "set", 4, seed=5, width=640, height=480, cocked=0.3)
    seen = {name: truth["faces"] for name, _, truth in labelled_pictures(tmp_path / "set")}
    assert seen == labels  # labels.json is what is read
    report = folder_accuracy(tmp_path / "set")
    assert report["frames"] == report["readable"] == len(labels)
    assert report["correct"] + report["uncertain"] + report["wrong_ok"] == len(labels)
