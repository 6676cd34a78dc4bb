"""Per-camera calibration of the dice recognizer, and the accuracy runner.

A technician calibrates each camera once (and after it moves): the tray region, the
colours of the dice in use, the die and pip size ranges, the exposure limits. The
calibration is a small JSON document (:class:`Calibration`), versioned: every change
raises ``version`` and the judge journals the version and digest it reads with
(a :class:`recognition.game.Note` ``calibration`` on the first frame of each camera,
and in the ``source`` of every certified result).

:func:`accuracy` runs the recognizer over labelled pictures and says how many it read
correctly, how many it refused (uncertain: allowed) and how many it read wrong while
saying ok (never allowed). It is pure: :mod:`app.dice_cli` loads the folder.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DieColor(_Model):
    """Which pixels are the body of a die of this colour (OpenCV HSV: hue 0-179, saturation and value 0-255).

    A pixel is body when its hue is in `hue` (None: any hue; lo > hi wraps through 0, e.g. red
    [170, 10]), its saturation in `saturation`, its value in `value` and, when `brightness` is
    set, its value is at least `brightness` times the value of the felt around it (white dice on
    a grey felt). `pips` says whether the pips are darker or lighter than the body.
    """

    name: str = Field(min_length=1, max_length=32)
    hue: tuple[int, int] | None = None
    saturation: tuple[int, int] = (0, 255)
    value: tuple[int, int] = (0, 255)
    brightness: float | None = Field(None, gt=0, le=10)
    pips: Literal["dark", "light"] = "dark"

    @field_validator("hue")
    @classmethod
    def _hue(cls, v: tuple[int, int] | None) -> tuple[int, int] | None:
        if v is not None and not (0 <= v[0] <= 179 and 0 <= v[1] <= 179):
            raise ValueError("hue bounds are OpenCV hues, 0-179")
        return v


WHITE = DieColor(name="white", saturation=(0, 75), value=(60, 255), brightness=1.45, pips="dark")
RED = DieColor(name="red", hue=(168, 7), saturation=(95, 255), value=(45, 255), pips="light")
BLUE = DieColor(name="blue", hue=(98, 132), saturation=(95, 255), value=(35, 255), pips="light")
YELLOW = DieColor(name="yellow", hue=(17, 36), saturation=(95, 255), value=(80, 255), pips="dark")

#: the colours searched when a calibration does not list any
DEFAULT_COLORS: tuple[DieColor, ...] = (WHITE, RED, BLUE, YELLOW)


#: the dice readers: the rule reader (recognition.dice.vision, the default), the learned one
#: (recognition.dice.learned), or "auto": the rule reader's reading when it certifies, else the learned
#: one's; see docs/dice-vision.md
ReaderName = Literal["rules", "learned", "auto"]


class Exposure(_Model):
    """Limits outside which a frame is not read (the camera's exposure or the studio light is wrong)."""

    #: median value (0-255) of the felt
    felt_value: tuple[int, int] = (25, 235)
    #: largest fraction of the searched region at value 250 or more (burnt out)
    max_clipped: float = Field(0.03, ge=0, le=1)


class Calibration(_Model):
    """How one camera sees its tray. All lengths are in pixels of the full camera frame."""

    camera: str | None = Field(None, description="the camera (device id or role) this calibration belongs to")
    version: int = Field(1, ge=1, description="raised by every change; journaled with each result")
    frame_size: tuple[int, int] | None = Field(
        None, description="(width, height) the calibration was made for"
    )
    tray: list[tuple[float, float]] | None = Field(
        None, description="the tray's outline (3 or more corners); None: the whole frame is the tray"
    )
    colors: tuple[DieColor, ...] = Field(DEFAULT_COLORS, min_length=1)
    die_size: tuple[float, float] | None = Field(
        None, description="smallest and largest side of a die in pixels; None: estimated from each frame"
    )
    pip_size: tuple[float, float] = Field(
        (0.09, 0.28), description="pip diameter range, relative to the die side"
    )
    work_die_px: float = Field(
        34.0, ge=16, le=120, description="the die side the frame is scaled to for reading"
    )
    search_margin: float = Field(
        1.5, ge=0, le=10, description="how far around the tray dice are looked for, in dice"
    )
    max_side_band: float = Field(
        0.2,
        gt=0,
        le=1,
        description="widest strip of die beyond its upper face (bevel, blur), in sides, "
        "besides what the perspective shows; more is a cocked die",
    )
    camera_height: float = Field(
        60.0,
        ge=5,
        le=1000,
        description="the camera's height over the felt in die sides (1 m over 16 mm dice: "
        "62); it says how much of a flat die's sides the camera sees",
    )
    min_confidence: float = Field(0.9, gt=0, le=1, description="every die must be read at least this sure")
    exposure: Exposure = Field(default_factory=Exposure)
    reader: ReaderName = Field("rules", description="which reader reads this camera's frames")
    note: str = ""

    @field_validator("tray")
    @classmethod
    def _tray(cls, v: list[tuple[float, float]] | None) -> list[tuple[float, float]] | None:
        if v is not None and len(v) < 3:
            raise ValueError("a tray outline needs at least 3 corners")
        return v

    @model_validator(mode="after")
    def _sizes(self) -> Calibration:
        if self.die_size is not None and not 4 <= self.die_size[0] <= self.die_size[1]:
            raise ValueError("die_size is (smallest, largest) side in pixels, at least 4")
        if not 0 < self.pip_size[0] < self.pip_size[1] < 0.5:
            raise ValueError("pip_size is (smallest, largest) pip diameter relative to the die side")
        names = [c.name for c in self.colors]
        if len(set(names)) != len(names):
            raise ValueError("two die colours have the same name")
        return self

    def color(self, name: str) -> DieColor:
        for c in self.colors:
            if c.name == name:
                return c
        raise KeyError(name)

    def digest(self) -> str:
        """A short fingerprint of the calibration's content, journaled with the version."""
        # the default reader is left out, so that a calibration written before there was a choice keeps
        # the digest it was journaled with
        dump = self.model_dump(mode="json", exclude={"reader"} if self.reader == "rules" else None)
        body = json.dumps(dump, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(body.encode()).hexdigest()[:16]

    def restricted_to(self, names: Iterable[str]) -> Calibration:
        """The same calibration searching only the named colours (a game's dice)."""
        wanted = list(dict.fromkeys(names))
        known = {c.name: c for c in self.colors}
        default = {c.name: c for c in DEFAULT_COLORS}
        colors = []
        for n in wanted:
            if n in known:
                colors.append(known[n])
            elif n in default:
                colors.append(default[n])
            else:
                raise ValueError(f"no die colour {n!r} in the calibration (known: {', '.join(known)})")
        return self.model_copy(update={"colors": tuple(colors)})


def load_calibration(data: dict[str, Any] | str | bytes) -> Calibration:
    """A calibration from its JSON text or its parsed dict; raises ValueError saying what is wrong."""
    if isinstance(data, (str, bytes)):
        data = json.loads(data)
    return Calibration.model_validate(data)


# --------------------------------------------------------------------------- accuracy


class Miss(_Model):
    name: str
    expected: list[int] | None
    read: list[int]
    status: str
    issues: list[str]


class AccuracyReport(_Model):
    """How the recognizer did on labelled pictures. `wrong_ok` must be 0."""

    frames: int = 0
    readable: int = 0  # frames a correct reader certifies (no fault)
    correct: int = 0  # readable frames read ok with the right faces (and colours)
    uncertain: int = 0  # readable frames the reader refused
    wrong_ok: int = 0  # frames read ok with a wrong result, or a fault read ok: the one unacceptable error
    faults: int = 0  # frames with a fault (cocked, outside, missing, stacked)
    faults_held: int = 0  # of them, refused as they must be
    calibration: str | None = None  # "version/digest"
    misses: list[Miss] = Field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return self.correct / self.readable if self.readable else 1.0

    def summary(self) -> dict[str, Any]:
        return {
            "frames": self.frames,
            "readable": self.readable,
            "correct": self.correct,
            "uncertain": self.uncertain,
            "wrong_ok": self.wrong_ok,
            "faults": self.faults,
            "faults_held": self.faults_held,
            "accuracy": round(self.accuracy, 5),
            "calibration": self.calibration,
        }


def judge_reading(reading: Any, truth: dict[str, Any]) -> tuple[str, bool]:
    """Compare one reading with its truth: ("correct" | "uncertain" | "wrong_ok" | "held", readable)."""
    faces = truth.get("faces")
    readable = faces is not None and not truth.get("faults")
    ok = reading.status == "ok"
    if not readable:
        return ("wrong_ok" if ok else "held"), False
    if not ok:
        return "uncertain", True
    if sorted(faces or []) != reading.faces:
        return "wrong_ok", True
    want = sorted((d["color"], d["face"]) for d in truth.get("dice", []) if d.get("color"))
    if want and len(want) == len(reading.dice):
        got = sorted((d.color, d.face) for d in reading.dice)
        if got != want:
            return "wrong_ok", True
    return "correct", True


def accuracy(
    samples: Iterable[tuple[str, np.ndarray, dict[str, Any]]],
    calibration: Calibration | None = None,
    expected: int | None = None,
    *,
    keep_misses: int = 200,
    reader: ReaderName | None = None,
) -> AccuracyReport:
    """Read every (name, image, truth) and count. truth: {"faces": [...] or None, "dice": [...], "faults": [...]}.

    `expected` is the number of dice thrown (default: from each truth's "expected", else its dice).
    `reader` chooses the reader (None: the calibration's, "rules" without one).
    """
    from .vision import read_dice

    counts = {
        "frames": 0,
        "readable": 0,
        "correct": 0,
        "uncertain": 0,
        "wrong_ok": 0,
        "faults": 0,
        "faults_held": 0,
    }
    misses: list[Miss] = []
    for name, image, truth in samples:
        n = expected or truth.get("expected") or len(truth.get("dice") or []) or None
        reading = read_dice(image, calibration, expected=n, reader=reader)
        verdict, readable = judge_reading(reading, truth)
        counts["frames"] += 1
        if readable:
            counts["readable"] += 1
        else:
            counts["faults"] += 1
        if verdict == "correct":
            counts["correct"] += 1
        elif verdict == "uncertain":
            counts["uncertain"] += 1
        elif verdict == "held":
            counts["faults_held"] += 1
        else:
            counts["wrong_ok"] += 1
        if verdict in ("uncertain", "wrong_ok") and len(misses) < keep_misses:
            misses.append(
                Miss(
                    name=name,
                    expected=truth.get("faces"),
                    read=reading.faces,
                    status=reading.status,
                    issues=[i.code for i in reading.issues],
                )
            )
    cal = f"{calibration.version}/{calibration.digest()}" if calibration is not None else None
    return AccuracyReport(**counts, calibration=cal, misses=misses)
