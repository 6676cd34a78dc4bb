"""The studio's dice camera services, for the console: a table's dice cameras and their judge, the reading of
a camera's latest frame (and that frame with what was seen drawn on it), the calibration the judge reads with,
the evidence pictures of held rounds, and an accuracy run over a folder of labelled pictures.

The console (dealer_ui/dice.py) calls these and never the recognizer itself. Errors are
:class:`DiceCameraError` with a ``kind`` the console turns into its HTTP status. The picture work (reading,
drawing, a folder's accuracy) is slow: callers on the event loop run it in a worker thread.

A labelled folder holds pictures and their truth: a ``labels.json`` (``{file: [faces, sorted]}``, files
relative to the folder, the real photo set's format), else NAME.json beside each picture (``{"faces": [...]
or null for a fault, "dice": [...], "expected": N}``, as ``simulators.dice`` and ``simulators.dice_alt``
write), else the faces in the file name (``throw7_1-3-6.jpg``, ``duel_red5-blue2.png``, ``x_fault.jpg``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import cv2
import numpy as np

from devices.abilities import KeepsLatestImage
from recognition.dice.annotate import annotate, encode_jpeg
from recognition.dice.calibration import Calibration, ReaderName, accuracy, load_calibration
from recognition.dice.vision import read_dice

DICE_KIND = "dice-camera"
PICTURE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


class DiceCameraError(Exception):
    """What the console tells the technician; `kind` says which HTTP status it is."""

    def __init__(self, kind: Literal["not_found", "conflict", "invalid"], message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@runtime_checkable
class DiceCameraJudge(Protocol):
    """A judge that reads dice from cameras (recognition.dice.judge.DiceJudge)."""

    #: how many dice a throw has, and their colours when the game tells them apart
    dice: int
    colors: tuple[str, ...] | None

    def calibration_for(self, device_id: str) -> Calibration | None: ...

    def evidence(self, evidence_id: str) -> Any: ...

    @property
    def evidence_ids(self) -> list[str]: ...


@runtime_checkable
class RecalibratableJudge(DiceCameraJudge, Protocol):
    """A dice judge that takes a new calibration for one camera while it runs."""

    def use_calibration(self, camera: str, calibration: Calibration) -> None: ...


# --- tables, cameras, judges -----------------------------------------------------------------------


def table_of(studio: Any, table_id: str) -> Any:
    table = studio.tables.get(table_id)
    if table is None:
        raise DiceCameraError("not_found", f"There is no table {table_id!r}.")
    return table


def camera_of(studio: Any, table_id: str, role: str) -> tuple[Any, Any]:
    """(table, device slot) of a table's dice camera."""
    table = table_of(studio, table_id)
    slot = next((s for s in table.devices.values() if s.role == role), None)
    if slot is None:
        raise DiceCameraError("not_found", f"Table {table_id} has no device {role!r}.")
    if slot.kind != DICE_KIND:
        raise DiceCameraError("conflict", f"{slot.device_id} is a {slot.kind}, not a dice camera.")
    return table, slot


def dice_judge(table: Any) -> DiceCameraJudge:
    judge = table.judge
    if not isinstance(judge, DiceCameraJudge):
        raise DiceCameraError("conflict", f"Table {table.table_id} does not read dice with a camera.")
    return judge


def latest_frame(slot: Any) -> tuple[int, np.ndarray]:
    """The camera's latest frame (its number and picture)."""
    driver = slot.driver
    found = driver.latest() if isinstance(driver, KeepsLatestImage) else None
    if found is None:
        raise DiceCameraError("conflict", f"{slot.device_id} has not sent a picture yet.")
    return found


def calibration_view(judge: DiceCameraJudge, device_id: str) -> dict[str, Any]:
    cal = judge.calibration_for(device_id)
    return {
        "dice": judge.dice,
        "colors": list(judge.colors) if judge.colors else None,
        "calibration": cal.model_dump(mode="json") if cal is not None else None,
        "version": cal.version if cal is not None else None,
        "digest": cal.digest() if cal is not None else None,
    }


def evidence_items(judge: DiceCameraJudge) -> list[dict[str, Any]]:
    out = []
    for evidence_id in judge.evidence_ids:
        ev = judge.evidence(evidence_id)
        if ev is not None:
            out.append(
                {
                    "evidence_id": ev.evidence_id,
                    "device_id": ev.device_id,
                    "frame_number": ev.frame_number,
                    "at": ev.at.isoformat(),
                    "code": ev.code,
                    "message": ev.message,
                    "status": ev.reading.status,
                    "faces": ev.reading.faces,
                }
            )
    return out


def evidence_picture(judge: Any, evidence_id: str, fmt: str) -> tuple[bytes, str]:
    """(bytes, media type) of one evidence picture, annotated; `fmt` png or jpg."""
    ev = judge.evidence(evidence_id)
    if ev is None:
        raise DiceCameraError(
            "not_found",
            f"There is no evidence picture {evidence_id!r} any more (only the last ones are kept).",
        )
    return (ev.png(), "image/png") if fmt == "png" else (ev.jpeg(), "image/jpeg")


# --- reading the live picture -------------------------------------------------------------------------


def _reading(judge: DiceCameraJudge, slot: Any, image: np.ndarray) -> Any:
    return read_dice(
        image,
        judge.calibration_for(slot.device_id),
        judge.dice,
        judge.colors,
    )


def read_latest(studio: Any, table_id: str, role: str) -> dict[str, Any]:
    """What the recognizer reads in the camera's latest frame, with the judge's settings."""
    table, slot = camera_of(studio, table_id, role)
    judge = dice_judge(table)
    number, image = latest_frame(slot)
    reading = _reading(judge, slot, image)
    return {
        "device_id": slot.device_id,
        "frame_number": number,
        "width": int(image.shape[1]),
        "height": int(image.shape[0]),
        "tray": reading.tray,
        "die_size": reading.die_size,
        "felt_value": reading.felt_value,
        **reading.as_json(),
    }


def latest_jpeg(studio: Any, table_id: str, role: str) -> bytes:
    """The camera's latest frame with the tray and the dice the recognizer sees drawn on it."""
    table, slot = camera_of(studio, table_id, role)
    judge = dice_judge(table)
    number, image = latest_frame(slot)
    reading = _reading(judge, slot, image)
    return encode_jpeg(annotate(image, reading, f"{slot.device_id} frame {number}"), 85)


def parse_calibration(document: dict[str, Any]) -> Calibration:
    try:
        return load_calibration(document)
    except ValueError as exc:
        raise DiceCameraError("invalid", f"The calibration is not valid: {exc}") from None


# --- accuracy over a labelled folder ---------------------------------------------------------------------

_FAULTS = ("fault", "cocked", "outside", "missing", "stacked")
_NAMED = re.compile(r"(?:^|_)([a-z]*[1-6](?:-[a-z]*[1-6])*|" + "|".join(_FAULTS) + r")$")


def truth_in_name(name: str) -> dict[str, Any] | None:
    """The truth a file name gives (``throw7_1-3-6.jpg``, ``duel_red5-blue2.png``, ``x_cocked.jpg``), or None."""
    m = _NAMED.search(Path(name).stem.lower())
    if m is None:
        return None
    if m.group(1) in _FAULTS:
        return {"faces": None, "dice": [], "faults": [m.group(1)]}
    dice = [{"face": int(t[-1]), **({"color": t[:-1]} if len(t) > 1 else {})} for t in m.group(1).split("-")]
    return {"faces": sorted(d["face"] for d in dice), "dice": dice, "faults": [], "expected": len(dice)}


def _picture(path: Path) -> np.ndarray | None:
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except OSError:
        return None
    return cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None


def _truths(folder: Path) -> Iterator[tuple[str, Path, dict[str, Any]]]:
    labels = folder / "labels.json"
    if labels.is_file():
        for rel, faces in sorted(json.loads(labels.read_text(encoding="utf-8")).items()):
            truth = {"faces": sorted(faces), "dice": [], "faults": [], "expected": len(faces)}
            yield rel, folder / rel, truth
        return
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in PICTURE_SUFFIXES:
            continue
        beside = path.with_suffix(".json")
        found = (
            json.loads(beside.read_text(encoding="utf-8")) if beside.exists() else truth_in_name(path.name)
        )
        if found is not None:
            yield path.name, path, found


def labelled_pictures(
    folder: Path, *, limit: int | None = None
) -> Iterator[tuple[str, np.ndarray, dict[str, Any]]]:
    """(name, picture, truth) of every labelled picture of `folder` (at most `limit`; unreadable files skipped)."""
    count = 0
    for name, path, truth in _truths(folder):
        if limit is not None and count >= limit:
            return
        image = _picture(path)
        if image is not None:
            count += 1
            yield name, image, truth


def folder_accuracy(
    folder: Path,
    calibration: Calibration | None = None,
    expected: int | None = None,
    *,
    limit: int | None = None,
    reader: ReaderName | None = None,
) -> dict[str, Any]:
    """The accuracy report of one labelled folder as JSON: the counts, the calibration used (the one given,
    else the folder's calibration.json, else none) and the first 20 misses. `reader` chooses the dice reader
    (None: the calibration's). Raises ValueError for a folder that cannot be used."""
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder")
    cal, source = calibration, "given" if calibration is not None else None
    if cal is None and (folder / "calibration.json").exists():
        cal = load_calibration((folder / "calibration.json").read_text(encoding="utf-8"))
        source = "calibration.json"
    report = accuracy(labelled_pictures(folder, limit=limit), cal, expected, reader=reader)
    return {
        "folder": str(folder),
        **report.summary(),
        "calibration_source": source,
        "reader": reader or (cal.reader if cal is not None else "rules"),
        "misses": [m.model_dump() for m in report.misses[:20]],
    }
