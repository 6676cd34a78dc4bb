"""studio.dice_calibration: the calibration desk keeps two pictures per camera, derives, and on acceptance stores
the next version with its pictures and journals it; what it refuses, it refuses saying why and storing nothing."""

from __future__ import annotations

import json
import random
from concurrent.futures import Future
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest

from devices.abilities import KeepsLatestImage
from recognition.dice.calibration import Calibration
from simulators import dice as sim
from studio.dice_calibration import JOURNAL_KIND, DiceCalibrationDesk
from studio.dice_camera import DiceCameraError


class Journal:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any], str | None]] = []

    def append(self, kind: str, data: dict[str, Any], *, table_id: str | None = None) -> Future:
        self.records.append((kind, json.loads(json.dumps(data)), table_id))
        done: Future = Future()
        done.set_result(len(self.records))
        return done


class Judge:
    """A dice judge reading every camera with one calibration; `live` says whether it takes a new one."""

    dice = 2
    colors = None
    evidence_ids: list[str] = []

    def __init__(self, calibration: Calibration | None) -> None:
        self.cal = calibration
        self.given: list[tuple[str, Calibration]] = []

    def evidence(self, evidence_id: str) -> None:
        return None

    def calibration_for(self, device_id: str) -> Calibration | None:
        return self.cal


class LiveJudge(Judge):
    def use_calibration(self, camera: str, calibration: Calibration) -> None:
        self.given.append((camera, calibration))
        self.cal = calibration


def _pictures(seed: int = 12) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    g = sim.TrayGeometry()
    throw = sim.random_throw(rng, g, ["red", "blue"], touching=0.0)
    look = sim.random_look(rng, hard=False)
    view = sim.CameraView()
    return (
        sim.render([], g, view, look, np.random.default_rng(1)),
        sim.render(throw.dice, g, view, look, np.random.default_rng(2)),
    )


def _png(img: np.ndarray) -> bytes:
    return cv2.imencode(".png", img)[1].tobytes()


class Camera(KeepsLatestImage):
    """A dice camera's latest picture, as the driver keeps it."""

    def __init__(self, frame: np.ndarray | None) -> None:
        self.frame = frame

    def latest(self) -> tuple[int, np.ndarray] | None:
        return (41, self.frame) if self.frame is not None else None


def _studio(tmp_path, judge: Judge, frame: np.ndarray | None = None):
    driver = Camera(frame)
    slot = SimpleNamespace(role="camera-1", kind="dice-camera", device_id="t1/camera-1", driver=driver)
    wheel = SimpleNamespace(role="wheel", kind="cammegh-ss2", device_id="t1/wheel", driver=None)
    table = SimpleNamespace(table_id="t1", devices={"a": slot, "b": wheel}, judge=judge)
    return SimpleNamespace(data_dir=tmp_path, tables={"t1": table}, journal=Journal())


def test_accepting_stores_the_next_version_with_its_pictures_and_journals_it(tmp_path):
    empty, dice = _pictures()
    judge = Judge(Calibration(version=4))
    studio = _studio(tmp_path, judge)
    desk = DiceCalibrationDesk(studio)
    desk.put_picture("t1", "camera-1", "empty", _png(empty))
    desk.put_picture("t1", "camera-1", "dice", _png(dice))
    shown = desk.derive("t1", "camera-1", expected=2)
    assert shown["version"] == 5 and shown["replaces"].startswith("4/") and shown["dice_found"] == 2
    assert {c["name"] for c in shown["colors"]} == {"red", "blue"}
    assert desk.picture_jpeg("t1", "camera-1", "derived")[:2] == b"\xff\xd8"

    done = desk.accept("t1", "camera-1", shown["digest"], "tom")
    assert done == {"version": 5, "digest": shown["digest"], "applied": False, "file": done["file"]}
    folder = tmp_path / "dice-calibrations" / "t1" / "camera-1"
    assert sorted(p.name for p in folder.iterdir()) == [
        "current.json", "v0005-dice.png", "v0005-empty.png", "v0005.json",
    ]  # fmt: skip
    assert np.array_equal(cv2.imread(str(folder / "v0005-dice.png")), dice)
    assert desk.stored("t1", "camera-1").digest() == shown["digest"]
    [(kind, record, table_id)] = studio.journal.records
    assert (kind, table_id, record["version"], record["by"], record["applied"]) == (
        JOURNAL_KIND,
        "t1",
        5,
        "tom",
        False,
    )
    assert (
        record["pictures"]["empty"]["source"] == "upload" and len(record["pictures"]["dice"]["sha256"]) == 64
    )
    assert desk.versions("t1", "camera-1") == [
        {
            "version": 5,
            "digest": shown["digest"],
            "note": "derived from an empty tray and 2 dice",
            "file": "v0005.json",
        }
    ]
    # the next one comes after the stored one, though the judge still reads with version 4
    desk.put_picture("t1", "camera-1", "empty", _png(empty))
    desk.put_picture("t1", "camera-1", "dice", _png(dice))
    assert desk.derive("t1", "camera-1")["version"] == 6


def test_a_judge_that_takes_a_calibration_reads_with_it_at_once(tmp_path):
    empty, dice = _pictures()
    judge = LiveJudge(None)
    desk = DiceCalibrationDesk(_studio(tmp_path, judge, frame=dice))
    desk.put_picture("t1", "camera-1", "empty", _png(empty))
    assert desk.grab_picture("t1", "camera-1", "dice")["source"] == "t1/camera-1 frame 41"
    shown = desk.derive("t1", "camera-1")
    assert shown["version"] == 1 and shown["replaces"] is None
    assert desk.accept("t1", "camera-1", shown["digest"], "ada")["applied"] is True
    [(camera, cal)] = judge.given
    assert camera == "t1/camera-1" and cal.digest() == shown["digest"]


def test_what_cannot_be_done_is_refused_saying_why_and_nothing_is_stored(tmp_path):
    empty, dice = _pictures()
    studio = _studio(tmp_path, Judge(None))
    desk = DiceCalibrationDesk(studio)

    def refused(kind: str, words: str, fn, *args) -> None:
        with pytest.raises(DiceCameraError, match=words) as caught:
            fn(*args)
        assert caught.value.kind == kind

    refused("not_found", "no table", desk.put_picture, "t9", "camera-1", "empty", _png(empty))
    refused("conflict", "not a dice camera", desk.put_picture, "t1", "wheel", "empty", _png(empty))
    refused("invalid", "not a picture", desk.put_picture, "t1", "camera-1", "empty", b"not a picture")
    refused("conflict", "has not sent a picture", desk.grab_picture, "t1", "camera-1", "empty")
    desk.put_picture("t1", "camera-1", "empty", _png(empty))
    refused("conflict", "of the dice at rest first", desk.derive, "t1", "camera-1")
    refused("conflict", "Derive a calibration", desk.accept, "t1", "camera-1", "0" * 16, "tom")
    desk.put_picture("t1", "camera-1", "dice", _png(empty))
    refused("invalid", "no die stands out", desk.derive, "t1", "camera-1")
    desk.put_picture("t1", "camera-1", "dice", _png(dice))
    shown = desk.derive("t1", "camera-1")
    desk.put_picture("t1", "camera-1", "dice", _png(dice[::-1].copy()))  # a new picture after deriving
    refused("conflict", "Derive a calibration", desk.accept, "t1", "camera-1", shown["digest"], "tom")
    desk.derive("t1", "camera-1")
    refused("conflict", "changed since", desk.accept, "t1", "camera-1", shown["digest"], "tom")
    assert studio.journal.records == [] and not (tmp_path / "dice-calibrations").exists()
