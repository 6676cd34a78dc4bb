"""`studio recognize dice` (app.dice_cli.recognize_main): JSON lines, exit codes, the accuracy mode."""

from __future__ import annotations

import json

import cv2
import numpy as np
from dicevision_helpers import GOLDEN, golden_labels

from app.dice_cli import recognize_main
from recognition.dice.calibration import load_calibration
from recognition.dice.learned import read_dice_learned
from simulators.dice import write_dataset


def run(capsys, *argv: str) -> tuple[int, list[dict], str]:
    code = recognize_main(list(argv))
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines() if line.strip()], err


def test_one_json_line_per_image(capsys, tmp_path) -> None:
    labels = golden_labels()
    names = ["sicbo-clean.jpg", "craps-clean.jpg", "fault-missing.jpg"]
    code, lines, _ = run(
        capsys,
        *[str(GOLDEN / n) for n in names],
        "--count",
        "3",
        "--calibration",
        str(GOLDEN / "calibration.json"),
    )
    assert code == 0 and len(lines) == 3
    sicbo, craps, missing = lines
    assert set(sicbo) >= {"file", "status", "faces", "dice", "confidence"}
    assert sicbo["file"].endswith("sicbo-clean.jpg")
    assert sicbo["status"] == "ok" and sicbo["faces"] == labels["sicbo-clean.jpg"]["faces"]
    assert all(set(d) == {"face", "color", "center"} for d in sicbo["dice"])
    assert craps["status"] == "uncertain"  # two dice where three are expected
    assert missing["status"] == "uncertain" and any("missing" in i for i in missing["issues"])
    # without --count and without a calibration: the whole frame, any number of dice
    code, lines, _ = run(capsys, str(GOLDEN / "craps-clean.jpg"))
    assert (
        code == 0 and lines[0]["status"] == "ok" and lines[0]["faces"] == labels["craps-clean.jpg"]["faces"]
    )
    # with colours, and annotated pictures written
    code, lines, _ = run(
        capsys, str(GOLDEN / "duel-touching.jpg"), "--colors", "red,blue", "--annotate", str(tmp_path)
    )
    assert code == 0 and lines[0]["status"] == "ok"
    assert sorted((d["color"], d["face"]) for d in lines[0]["dice"]) == sorted(
        (d["color"], d["face"]) for d in labels["duel-touching.jpg"]["dice"]
    )
    assert (tmp_path / "duel-touching.annotated.jpg").stat().st_size > 1000


def test_errors_and_exit_codes(capsys, tmp_path) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not a picture")
    code, lines, _ = run(capsys, str(junk), str(tmp_path / "missing.png"), str(GOLDEN / "sicbo-clean.jpg"))
    assert code == 1
    assert [line["status"] for line in lines] == ["error", "error", "ok"]
    assert run(capsys, str(GOLDEN / "sicbo-clean.jpg"), "--count", "0")[0] == 2
    assert run(capsys, str(GOLDEN / "sicbo-clean.jpg"), "--count", "3", "--colors", "red,blue")[0] == 2
    bad = tmp_path / "cal.json"
    bad.write_text('{"tray": [[1, 2]]}')
    code, _, err = run(capsys, str(GOLDEN / "sicbo-clean.jpg"), "--calibration", str(bad))
    assert code == 2 and "cal.json" in err


def test_accuracy_over_a_labelled_folder(capsys, tmp_path) -> None:
    folder = tmp_path / "set"
    write_dataset(folder, 6, colours=("white", "white", "white"), seed=3, width=640, height=360, hard=False)
    write_dataset(
        tmp_path / "faults",
        3,
        colours=("white", "white", "white"),
        faults=("missing",),
        seed=4,
        width=640,
        height=360,
        hard=False,
    )
    code, reports, _ = run(capsys, "--accuracy", str(folder), str(tmp_path / "faults"))
    assert code == 0 and len(reports) == 2
    clean, faulty = reports
    assert clean["frames"] == 6 and clean["wrong_ok"] == 0 and clean["correct"] >= 5
    assert clean["calibration"].startswith("1/")
    assert faulty["faults"] == 3 and faulty["faults_held"] == 3 and faulty["wrong_ok"] == 0
    assert run(capsys, "--accuracy", str(tmp_path / "nowhere"))[0] == 2


def test_truth_from_file_names() -> None:
    from studio.dice_camera import truth_in_name

    assert truth_in_name("throw7_1-3-6.jpg") == {
        "faces": [1, 3, 6],
        "dice": [{"face": 1}, {"face": 3}, {"face": 6}],
        "faults": [],
        "expected": 3,
    }
    assert truth_in_name("6-2.png")["faces"] == [2, 6]
    duel = truth_in_name("duel_red5-blue2.png")
    assert duel["dice"] == [{"face": 5, "color": "red"}, {"face": 2, "color": "blue"}] and duel["faces"] == [
        2,
        5,
    ]
    assert truth_in_name("tray_cocked.jpg") == {"faces": None, "dice": [], "faults": ["cocked"]}
    assert truth_in_name("x_fault.jpg")["faces"] is None
    for name in ("dice-00001.jpg", "throw_7-3.jpg", "photo.jpg", "x_0-3.jpg"):
        assert truth_in_name(name) is None, name


def test_accuracy_with_truth_in_the_file_names(capsys, tmp_path) -> None:
    import random

    import cv2

    from simulators.dice import TrayGeometry, calibration_document, render_still

    g = TrayGeometry.for_frame(640, 360)
    (tmp_path / "calibration.json").write_text(json.dumps(calibration_document(g)))
    for i in range(3):
        img, truth = render_still(random.Random(80 + i), geometry=g, hard=False, touching=0.0)
        cv2.imwrite(str(tmp_path / f"t{i}_{'-'.join(map(str, truth.faces))}.png"), img)
    img, truth = render_still(random.Random(90), geometry=g, hard=False, touching=0.0)
    wrong = [f % 6 + 1 for f in truth.faces]  # a label that does not match what the picture shows
    cv2.imwrite(str(tmp_path / f"bad_{'-'.join(map(str, wrong))}.png"), img)
    img, _ = render_still(random.Random(91), geometry=g, hard=False, faults=("outside",))
    cv2.imwrite(str(tmp_path / "off_outside.png"), img)
    code, reports, _ = run(capsys, "--accuracy", str(tmp_path), "--count", "3")
    rep = reports[0]
    assert rep["frames"] == 5 and rep["faults"] == 1 and rep["faults_held"] == 1
    assert rep["calibration_source"] == "calibration.json"
    # the mislabelled picture is read as it is, which its name calls wrong: exit status 1
    assert rep["wrong_ok"] == 1 and rep["correct"] == 3 and code == 1
    assert [m["name"] for m in rep["misses"]] == [f"bad_{'-'.join(map(str, wrong))}.png"]


def test_the_rule_reader_is_the_default_and_reader_chooses_the_learned_one(capsys, tmp_path) -> None:
    folder = tmp_path / "set"
    write_dataset(folder, 3, colours=("white", "white", "white"), seed=5, width=640, height=360, hard=False)
    code, reports, _ = run(capsys, "--accuracy", str(folder))
    assert code == 0 and reports[0]["reader"] == "rules"
    code, reports, _ = run(capsys, "--accuracy", str(folder), "--reader", "learned")
    assert code == 0 and reports[0]["reader"] == "learned" and reports[0]["wrong_ok"] == 0
    # a calibration asking for the learned reader is read with it unless --reader says otherwise
    cal = json.loads((folder / "calibration.json").read_text())
    (folder / "calibration.json").write_text(json.dumps({**cal, "reader": "learned"}))
    assert run(capsys, "--accuracy", str(folder))[1][0]["reader"] == "learned"
    assert run(capsys, "--accuracy", str(folder), "--reader", "rules")[1][0]["reader"] == "rules"
    assert run(capsys, "--accuracy", str(folder), "--reader", "neural")[0] == 2


def test_the_learned_reader_reads_touching_dice_with_a_calibration(capsys) -> None:
    labels = golden_labels()
    code, lines, _ = run(
        capsys,
        str(GOLDEN / "duel-touching.jpg"),
        "--colors",
        "red,blue",
        "--calibration",
        str(GOLDEN / "calibration.json"),
        "--reader",
        "learned",
    )
    # the command reads as read_dice_learned does with that calibration and those colours: both dice
    # found and named, and never a wrong face (the learned reader holds most of our renders)
    cal = load_calibration(json.loads((GOLDEN / "calibration.json").read_text()))
    img = np.asarray(cv2.imread(str(GOLDEN / "duel-touching.jpg")))
    direct = read_dice_learned(img, cal, expected=2, colors=["red", "blue"])
    assert code == 0 and lines[0]["status"] == direct.status
    want = sorted((d["color"], d["face"]) for d in labels["duel-touching.jpg"]["dice"])
    got = sorted((d["color"], d["face"]) for d in lines[0]["dice"])
    assert [c for c, _ in got] == [c for c, _ in want]
    assert lines[0]["status"] != "ok" or got == want


def test_accuracy_over_a_photo_set_with_labels_json_in_nested_folders(capsys) -> None:
    from pathlib import Path

    photos = Path(__file__).resolve().parents[1] / "fixtures" / "dice-photos"
    labels = json.loads((photos / "labels.json").read_text())
    code, reports, _ = run(capsys, "--accuracy", str(photos), "--reader", "learned")
    rep = reports[0]
    assert code == 0 and rep["frames"] == len(labels) == rep["readable"]
    assert rep["wrong_ok"] == 0 and rep["correct"] + rep["uncertain"] == len(labels)
    assert rep["correct"] >= 1
    assert {m["name"].split("/")[0] for m in rep["misses"]} <= {"wood-white", "tray-colour"}
    # the rule reader, fitted to our renders, reads the same folder and certifies nothing wrong
    code, reports, _ = run(capsys, "--accuracy", str(photos))
    assert code == 0 and reports[0]["frames"] == len(labels) and reports[0]["wrong_ok"] == 0
