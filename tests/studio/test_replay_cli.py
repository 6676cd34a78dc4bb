"""`studio replay` runs a raw capture through the real driver and rules."""

import json
import subprocess
import sys
from pathlib import Path

from fixture_files import SS2_CAPTURE, fixture_path, ss2_capture

CAPTURE = SS2_CAPTURE  # fixtures/cammegh-ss2-capture.log


def replay(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "replay", "--device", "cammegh-ss2", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_real_capture_gives_every_completed_game_once():
    fixture_path(CAPTURE.name)  # fails, not skips, when the fixture is missing
    run = replay(CAPTURE)
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    results = [(line["game_counter"], line["number"]) for line in lines if line.get("kind") == "result"]
    assert results == [(11, "27"), (12, "16"), (13, "6"), (14, "3"), (15, "10"), (16, "0")]
    # the unfinished game 17 (the wheel was powered down) is voided, not guessed
    voids = [line for line in lines if line.get("kind") == "void"]
    assert [v["code"] for v in voids] == ["wheel_powered_down"]
    # every line is an event or a decision with a kind
    assert all("kind" in line for line in lines)


def test_garbage_and_torn_capture_still_replays(tmp_path):
    data = ss2_capture()
    cut = data.index(b"27\r\n")
    mangled = data[:cut] + b"\x00\xff\xfe*X;4;01\r\ngarbage line\r\n" + data[cut:]
    path = tmp_path / "mangled.log"
    path.write_bytes(mangled)
    run = replay(path)
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [line["number"] for line in lines if line.get("kind") == "result"] == [
        "27",
        "16",
        "6",
        "3",
        "10",
        "0",
    ]
    assert sum(1 for line in lines if line.get("kind") == "device_unknown") >= 2


def test_missing_file_and_unknown_device_are_clear_errors(tmp_path):
    run = replay(tmp_path / "nope.log")
    assert run.returncode == 2 and "nope.log" in run.stderr
    run = subprocess.run(
        [sys.executable, "-m", "app.cli", "replay", "--device", "teapot", str(CAPTURE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "teapot" in run.stderr


def test_studio_recognize_dice_prints_one_line_per_image():
    golden = Path(__file__).resolve().parents[1] / "dice_vision" / "golden"
    images = sorted(str(p) for p in golden.glob("*-clean.jpg"))[:2]
    assert images
    run = subprocess.run(
        [sys.executable, "-m", "app.cli", "recognize", "dice", *images, "--count", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [line["file"] for line in lines] == images
    assert all(
        line["status"] in ("ok", "uncertain") and all(1 <= f <= 6 for f in line["faces"]) for line in lines
    )
    bad = subprocess.run(
        [sys.executable, "-m", "app.cli", "recognize", "teapot", "x.jpg"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "teapot" in bad.stderr
