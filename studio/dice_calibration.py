"""A dice camera's calibration in a minute: the technician gives two pictures (the empty tray, then dice at
rest, each uploaded or grabbed from the camera), the studio derives the felt, the tray, the die colours and
sizes (:func:`recognition.dice.derive.derive`), shows them, and on the technician's word stores the new
version and journals it.

Storage, in the studio's data folder: ``dice-calibrations/<table>/<role>/vNNNN.json`` (the calibration),
``vNNNN-empty.png`` and ``vNNNN-dice.png`` (the two pictures it was derived from, for whoever asks later why
the recognizer reads as it does), and ``current.json`` (the latest). The journal record
``dice_calibration_accepted`` names the version, its digest, the version it replaces, who accepted it, what
was derived and the pictures' SHA-256.

The new version is a raise over both the stored versions and the one the judge reads with. A judge that
takes a calibration while it runs (:class:`studio.dice_camera.RecalibratableJudge`) reads with it at once;
otherwise it is stored, the record says ``applied: false`` and the table reads with the calibration of its
settings until the stored one is put there.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from recognition.dice.annotate import encode_jpeg
from recognition.dice.calibration import Calibration, load_calibration
from recognition.dice.derive import Derivation, derive

from .dice_camera import DiceCameraError, RecalibratableJudge, camera_of, dice_judge, latest_frame

Which = Literal["empty", "dice"]
FOLDER = "dice-calibrations"
JOURNAL_KIND = "dice_calibration_accepted"
#: the largest picture a technician may upload
MAX_PICTURE_BYTES = 16 * 1024 * 1024


@dataclass
class _Draft:
    pictures: dict[str, np.ndarray] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    derivation: Derivation | None = None


def decode_picture(data: bytes) -> np.ndarray:
    if not data:
        raise DiceCameraError("invalid", "The picture is empty.")
    if len(data) > MAX_PICTURE_BYTES:
        raise DiceCameraError(
            "invalid", f"The picture is larger than {MAX_PICTURE_BYTES // (1024 * 1024)} MB."
        )
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise DiceCameraError("invalid", "The file is not a picture OpenCV can read (PNG, JPEG, BMP...).")
    return image


def _hex(bgr: tuple[int, int, int]) -> str:
    return f"#{bgr[2]:02x}{bgr[1]:02x}{bgr[0]:02x}"


def derivation_view(d: Derivation) -> dict[str, Any]:
    """What the technician's page shows of a derivation (colours also as #rrggbb)."""
    return {
        "felt_bgr": list(d.felt_bgr),
        "felt_hex": _hex(d.felt_bgr),
        "felt_value": d.felt_value,
        "tray": [list(p) for p in d.tray] if d.tray else None,
        "die_side": round(d.die_side, 1),
        "die_size": list(d.calibration.die_size or ()),
        "dice": [
            {
                "center": [round(c, 1) for c in die.center],
                "corners": [[round(x, 1), round(y, 1)] for x, y in die.corners],
                "side": round(die.side, 1),
                "count": die.count,
                "color": die.color,
                "hex": _hex(die.bgr),
            }
            for die in d.dice
        ],
        "dice_found": sum(die.count for die in d.dice),
        "colors": [{"name": n, "hex": _hex(c), "bgr": list(c)} for n, c in d.swatches],
        "warnings": list(d.warnings),
    }


def _sha(image: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(image).tobytes()).hexdigest()


def draw_derivation(image: np.ndarray, d: Derivation) -> np.ndarray:
    """The dice picture with the tray and each die found drawn on it (outline in its colour, its name)."""
    out = image.copy()
    thick = max(1, round(image.shape[1] / 640))
    if d.tray:
        cv2.polylines(
            out, [np.round(np.array(d.tray)).astype(np.int32)], True, (200, 160, 40), thick, cv2.LINE_AA
        )
    for die in d.dice:
        box = np.round(np.array(die.corners)).astype(np.int32)
        cv2.polylines(out, [box], True, (60, 220, 60), thick + 1, cv2.LINE_AA)
        label = die.color + (f" x{die.count}" if die.count > 1 else "")
        x, y = int(box[:, 0].min()), int(max(12, box[:, 1].min() - 6))
        font = 0.45 * max(1.0, image.shape[1] / 1280) + 0.15
        cv2.putText(out, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font, (60, 220, 60), thick, cv2.LINE_AA)
    return out


class DiceCalibrationDesk:
    """The studio's calibration desk for its dice cameras (one per studio; thread-safe)."""

    def __init__(self, studio: Any) -> None:
        self.studio = studio
        self.root = Path(studio.data_dir) / FOLDER
        self._drafts: dict[tuple[str, str], _Draft] = {}
        self._lock = threading.Lock()

    # --- the two pictures -------------------------------------------------------------------------

    def _draft(self, table_id: str, role: str) -> _Draft:
        with self._lock:
            return self._drafts.setdefault((table_id, role), _Draft())

    def put_picture(self, table_id: str, role: str, which: Which, data: bytes) -> dict[str, Any]:
        """Take an uploaded picture as the empty tray's or the dice's."""
        camera_of(self.studio, table_id, role)
        return self._keep(table_id, role, which, decode_picture(data), "upload")

    def grab_picture(self, table_id: str, role: str, which: Which) -> dict[str, Any]:
        """Take the camera's latest frame as the empty tray's or the dice's."""
        _, slot = camera_of(self.studio, table_id, role)
        number, image = latest_frame(slot)
        return self._keep(table_id, role, which, image.copy(), f"{slot.device_id} frame {number}")

    def _keep(self, table_id: str, role: str, which: Which, image: np.ndarray, source: str) -> dict[str, Any]:
        draft = self._draft(table_id, role)
        with self._lock:
            draft.pictures[which] = image
            draft.sources[which] = source
            draft.derivation = None  # a new picture: what was derived from the old one no longer holds
        return {"which": which, "width": int(image.shape[1]), "height": int(image.shape[0]), "source": source}

    def picture_jpeg(self, table_id: str, role: str, which: Which | Literal["derived"]) -> bytes:
        draft = self._draft(table_id, role)
        with self._lock:
            if which == "derived":
                image, d = draft.pictures.get("dice"), draft.derivation
                if image is None or d is None:
                    raise DiceCameraError("not_found", "Nothing has been derived from these pictures yet.")
                image = draw_derivation(image, d)
            else:
                image = draft.pictures.get(which)
                if image is None:
                    raise DiceCameraError("not_found", f"No picture of the {which} tray has been given yet.")
        return encode_jpeg(image, 85)

    # --- derive, accept -------------------------------------------------------------------------------

    def _current(self, table_id: str, role: str) -> tuple[Any, Any, Calibration | None, int]:
        """(judge, slot, the calibration it reads with, the highest version known)."""
        table, slot = camera_of(self.studio, table_id, role)
        judge = dice_judge(table)
        cal = judge.calibration_for(slot.device_id)
        stored = [int(p.stem[1:]) for p in self._folder(table_id, role).glob("v[0-9][0-9][0-9][0-9].json")]
        return judge, slot, cal, max([cal.version if cal else 0, *stored])

    def derive(self, table_id: str, role: str, expected: int | None = None) -> dict[str, Any]:
        _, slot, cal, highest = self._current(table_id, role)
        draft = self._draft(table_id, role)
        with self._lock:
            empty, dice = draft.pictures.get("empty"), draft.pictures.get("dice")
        missing = [w for w, p in (("the empty tray", empty), ("the dice at rest", dice)) if p is None]
        if empty is None or dice is None:
            raise DiceCameraError("conflict", f"Give a picture of {' and of '.join(missing)} first.")
        try:
            d = derive(empty, dice, expected=expected, base=cal, camera=slot.device_id, version=highest + 1)
        except ValueError as exc:
            raise DiceCameraError("invalid", str(exc)) from None
        with self._lock:
            if draft.pictures.get("empty") is empty and draft.pictures.get("dice") is dice:
                draft.derivation = d
        return self._view(d, cal)

    def _view(self, d: Derivation, current: Calibration | None) -> dict[str, Any]:
        return {
            **derivation_view(d),
            "calibration": d.calibration.model_dump(mode="json"),
            "version": d.calibration.version,
            "digest": d.calibration.digest(),
            "replaces": f"{current.version}/{current.digest()}" if current is not None else None,
        }

    def accept(self, table_id: str, role: str, digest: str, by: str) -> dict[str, Any]:
        """Store the derived calibration the technician saw (`digest`), journal it, give it to the judge."""
        judge, slot, current, highest = self._current(table_id, role)
        draft = self._draft(table_id, role)
        with self._lock:
            d, empty, dice = draft.derivation, draft.pictures.get("empty"), draft.pictures.get("dice")
            sources = dict(draft.sources)
        if d is None or empty is None or dice is None:
            raise DiceCameraError("conflict", "Derive a calibration from the two pictures first.")
        if d.calibration.digest() != digest:
            raise DiceCameraError("conflict", "The pictures changed since this was derived: derive again.")
        cal = d.calibration
        if cal.version <= highest:  # another version was accepted meanwhile: this one comes after it
            cal = load_calibration({**cal.model_dump(mode="json"), "version": highest + 1})
        folder = self._folder(table_id, role)
        folder.mkdir(parents=True, exist_ok=True)
        name = f"v{cal.version:04d}"
        body = json.dumps(cal.model_dump(mode="json"), indent=2, sort_keys=True)
        cv2.imwrite(str(folder / f"{name}-empty.png"), empty)
        cv2.imwrite(str(folder / f"{name}-dice.png"), dice)
        (folder / f"{name}.json").write_text(body, encoding="utf-8")
        (folder / "current.json").write_text(body, encoding="utf-8")
        applied = isinstance(judge, RecalibratableJudge)
        if isinstance(judge, RecalibratableJudge):
            judge.use_calibration(slot.device_id, cal)
        record = {
            "by": by,
            "device_id": slot.device_id,
            "role": role,
            "version": cal.version,
            "digest": cal.digest(),
            "replaces": f"{current.version}/{current.digest()}" if current is not None else None,
            "file": str((folder / f"{name}.json").relative_to(self.root.parent)),
            "applied": applied,
            "die_size": list(cal.die_size or ()),
            "colors": [c.name for c in cal.colors],
            "tray": [list(p) for p in cal.tray] if cal.tray else None,
            "felt_bgr": list(d.felt_bgr),
            "dice_found": sum(x.count for x in d.dice),
            "pictures": {
                "empty": {"sha256": _sha(empty), "source": sources.get("empty")},
                "dice": {"sha256": _sha(dice), "source": sources.get("dice")},
            },
            "at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        }
        # durable before the technician is told it is done
        self.studio.journal.append(JOURNAL_KIND, record, table_id=table_id).result(timeout=30)
        with self._lock:
            self._drafts.pop((table_id, role), None)
        return {"version": cal.version, "digest": cal.digest(), "applied": applied, "file": record["file"]}

    # --- stored versions ------------------------------------------------------------------------------

    def _folder(self, table_id: str, role: str) -> Path:
        for part in (table_id, role):
            if not part or "/" in part or "\\" in part or part in (".", ".."):
                raise DiceCameraError("invalid", f"{part!r} cannot name a folder.")
        return self.root / table_id / role

    def stored(self, table_id: str, role: str) -> Calibration | None:
        """The latest accepted calibration of a camera, or None."""
        path = self._folder(table_id, role) / "current.json"
        return load_calibration(path.read_text(encoding="utf-8")) if path.exists() else None

    def versions(self, table_id: str, role: str) -> list[dict[str, Any]]:
        out = []
        for path in sorted(self._folder(table_id, role).glob("v[0-9][0-9][0-9][0-9].json")):
            cal = load_calibration(path.read_text(encoding="utf-8"))
            out.append({"version": cal.version, "digest": cal.digest(), "note": cal.note, "file": path.name})
        return out
