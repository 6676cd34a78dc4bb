"""What the dice recognizer says about one frame: :class:`Reading`, its :class:`DieReading` s and :class:`Issue` s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: issue codes a :class:`Reading` can carry, in words for the dealer
ISSUE_TEXT: dict[str, str] = {
    "missing": "a die is missing (not seen in the tray)",
    "extra": "more dice than expected are in view",
    "outside": "a die is outside the tray",
    "cocked": "a die is cocked (not lying flat)",
    "stacked": "dice are stacked or leaning on each other",
    "touching": "touching dice could not be told apart",
    "partial": "a die is only partly visible",
    "unreadable": "a die's face could not be read",
    "low_confidence": "a die's face is not clear enough",
    "size": "a die has the wrong size for this camera",
    "exposure": "the picture is too dark or too bright",
    "colors": "the dice are not the expected colours",
}


@dataclass(frozen=True)
class Issue:
    code: str
    message: str
    die: int | None = None  # index into Reading.dice, when one die is concerned
    where: tuple[float, float] | None = None  # frame pixels

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.die is not None:
            out["die"] = self.die
        if self.where is not None:
            out["where"] = [round(self.where[0], 1), round(self.where[1], 1)]
        return out


@dataclass(frozen=True)
class DieReading:
    face: int | None  # None when the die could not be read
    color: str
    center: tuple[float, float]  # frame pixels
    size: float  # side, frame pixels
    angle: float  # degrees, 0-90
    confidence: float
    corners: tuple[tuple[float, float], ...]  # the die's outline (4 corners), frame pixels
    pips: tuple[tuple[float, float], ...] = ()  # pip centres, frame pixels
    problem: str | None = None  # an ISSUE_TEXT code when this die is not fit to certify
    checks: dict[str, float] = field(default_factory=dict, compare=False)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "face": self.face,
            "color": self.color,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "confidence": round(self.confidence, 3),
        }
        if self.problem:
            out["problem"] = self.problem
        return out


@dataclass(frozen=True)
class Reading:
    status: str  # "ok" or "uncertain"
    dice: tuple[DieReading, ...]
    issues: tuple[Issue, ...]
    expected: int | None
    confidence: float
    size: tuple[int, int]  # frame (width, height)
    tray: tuple[tuple[float, float], ...] | None = None
    die_size: float | None = None  # frame pixels
    felt_value: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def faces(self) -> list[int]:
        return sorted(d.face for d in self.dice if d.face is not None)

    def by_color(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for d in self.dice:
            if d.face is not None:
                out.setdefault(d.color, []).append(d.face)
        return {k: sorted(v) for k, v in sorted(out.items())}

    def summary(self) -> str:
        if self.ok:
            return "read " + ", ".join(f"{d.color} {d.face}" for d in self.dice)
        return "; ".join(i.message for i in self.issues) or "uncertain"

    def as_json(self) -> dict[str, Any]:
        """The `studio recognize dice` line (without "file")."""
        return {
            "status": self.status,
            "faces": self.faces,
            "dice": [
                {"face": d.face, "color": d.color, "center": [round(d.center[0], 1), round(d.center[1], 1)]}
                for d in self.dice
            ],
            "confidence": round(self.confidence, 3),
            "issues": [i.as_json() for i in self.issues],
        }
