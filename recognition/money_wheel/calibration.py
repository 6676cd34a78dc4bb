"""A money wheel's calibration and layout: which physical segment is under the pointer, and what it says.

Conventions (docs/money-wheels.md):

* Segments are numbered 0 .. N-1 going **clockwise around the wheel face** as the
  presenter and the camera see it, starting with segment 0, the marked segment the
  technician uses for the zero calibration. The **layout** lists their labels (and
  colours) in that order.
* The pointer is fixed (at the top). When the wheel turns clockwise the segment under
  the pointer goes down the numbering (0, N-1, N-2, ...).
* Encoder: ``position`` is counts from the index pulse (0 .. counts_per_turn - 1).
  ``zero_offset`` is the position read with the centre of segment 0 under the pointer
  (bring the marked segment under the pointer and send the encoder ``mark_zero``).
  ``counting`` says which way the wheel turns when the count goes up.

Everything is exact: positions and counts are integers, angles are Fractions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, Literal

__all__ = ["CLOCKWISE", "COUNTERCLOCKWISE", "Calibration", "Layout", "Segment", "spread"]

CLOCKWISE: Final = "clockwise"
COUNTERCLOCKWISE: Final = "counterclockwise"
Direction = Literal["clockwise", "counterclockwise"]


@dataclass(frozen=True)
class Segment:
    index: int
    label: str
    color: str | None = None


@dataclass(frozen=True)
class Layout:
    """The labels (and colours) of a wheel's segments, clockwise from segment 0."""

    segments: tuple[Segment, ...]

    @property
    def size(self) -> int:
        return len(self.segments)

    def __getitem__(self, index: int) -> Segment:
        return self.segments[index]

    def labels(self) -> list[str]:
        return [s.label for s in self.segments]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.segments:
            out[s.label] = out.get(s.label, 0) + 1
        return out

    def indexes_of(self, label: str) -> list[int]:
        return [s.index for s in self.segments if s.label == label]

    @classmethod
    def build(cls, labels: Sequence[Any], colors: Mapping[str, str] | None = None) -> Layout:
        """From labels (or ``{"label": ..., "color": ...}`` entries) clockwise from segment 0; ``colors``
        gives the colour of a label where an entry does not."""
        segs = []
        for i, entry in enumerate(labels):
            if isinstance(entry, Mapping):
                if "label" not in entry:
                    raise ValueError(f"layout entry {i} has no 'label': {dict(entry)!r}")
                unknown = set(entry) - {"label", "color"}
                if unknown:
                    raise ValueError(f"layout entry {i} has unknown key(s) {', '.join(sorted(unknown))}")
                label, color = _label(entry["label"], i), entry.get("color")
            else:
                label, color = _label(entry, i), None
            if color is None and colors is not None:
                color = colors.get(label)
            if color is not None and not isinstance(color, str):
                raise ValueError(f"layout entry {i}: a colour is a word, not {color!r}")
            segs.append(Segment(i, label, color))
        if len(segs) < 2:
            raise ValueError("a wheel layout has at least 2 segments")
        return cls(tuple(segs))


def _label(value: Any, i: int) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"layout entry {i}: a label is a string (or a whole number), not {value!r}")
    text = str(value)
    if not text or text != text.strip():
        raise ValueError(f"layout entry {i}: empty label or label with spaces around it: {value!r}")
    return text


def spread(counts: Sequence[tuple[str, int]]) -> list[str]:
    """A default order that spreads each label evenly around the wheel (smooth weighted round robin).

    Deterministic. Used only where a seed gives the segment counts but not their order.
    """
    total = sum(n for _, n in counts)
    credit = {label: 0 for label, _ in counts}
    out: list[str] = []
    for _ in range(total):
        for label, n in counts:
            credit[label] += n
        best = max(counts, key=lambda c: (credit[c[0]], c[1]))[0]
        credit[best] -= total
        out.append(best)
    return out


@dataclass(frozen=True)
class Calibration:
    """Where segment 0 is for the encoder, and which way its count goes."""

    segments: int
    zero_offset: int = 0
    counting: Direction = CLOCKWISE
    #: expected counts per turn (checked against the encoder's events); None: take the encoder's
    counts_per_turn: int | None = None

    def __post_init__(self) -> None:
        if self.segments < 2:
            raise ValueError("a wheel has at least 2 segments")
        if self.counting not in (CLOCKWISE, COUNTERCLOCKWISE):
            raise ValueError(
                f"calibration 'counting' is 'clockwise' or 'counterclockwise', not {self.counting!r}"
            )
        if (
            isinstance(self.zero_offset, bool)
            or not isinstance(self.zero_offset, int)
            or self.zero_offset < 0
        ):
            raise ValueError(
                f"calibration 'zero_offset' is a whole number of counts >= 0, not {self.zero_offset!r}"
            )
        if self.counts_per_turn is not None and self.zero_offset >= self.counts_per_turn:
            raise ValueError(
                f"zero_offset {self.zero_offset} must be less than counts_per_turn {self.counts_per_turn}"
            )

    @property
    def sign(self) -> int:
        """+1 when a rising count means the wheel turns clockwise."""
        return 1 if self.counting == CLOCKWISE else -1

    def clockwise_turns(self, counts: int, counts_per_turn: int) -> Fraction:
        """Signed clockwise turns for a travel of ``counts``."""
        return Fraction(self.sign * counts, counts_per_turn)

    def pointer_coordinate(self, position: int, counts_per_turn: int) -> Fraction:
        """Where the pointer is in segment units, 0 <= u < N: u = k is the centre of segment k, u = k + 1/2
        the boundary between segments k and k + 1."""
        turned = self.clockwise_turns(
            position - self.zero_offset, counts_per_turn
        )  # clockwise turns from zero
        n = self.segments
        return (-turned * n) % n

    def segment_at(self, position: int, counts_per_turn: int) -> tuple[int, Fraction]:
        """(segment under the pointer, distance to the nearest boundary in segments, 0 .. 1/2)."""
        u = self.pointer_coordinate(position, counts_per_turn)
        k = _round_half_up(u)
        return k % self.segments, Fraction(1, 2) - abs(u - k)

    def with_zero_mark(self, position: int) -> Calibration:
        return Calibration(self.segments, position, self.counting, self.counts_per_turn)

    @classmethod
    def from_settings(cls, segments: int, value: Any) -> Calibration:
        if value is None:
            return cls(segments)
        if isinstance(value, Calibration):
            return value
        if not isinstance(value, Mapping):
            raise ValueError(
                f"calibration is a table (zero_offset, counting, counts_per_turn), not {value!r}"
            )
        unknown = set(value) - {"zero_offset", "counting", "counts_per_turn", "segments"}
        if unknown:
            raise ValueError(
                f"calibration has unknown key(s) {', '.join(sorted(unknown))} "
                "(known: zero_offset, counting, counts_per_turn)"
            )
        if "segments" in value and value["segments"] != segments:
            raise ValueError(f"calibration says {value['segments']} segments, the layout has {segments}")
        cpr = value.get("counts_per_turn")
        if cpr is not None and (isinstance(cpr, bool) or not isinstance(cpr, int) or cpr < 8):
            raise ValueError(f"calibration 'counts_per_turn' is a whole number >= 8, not {cpr!r}")
        return cls(segments, value.get("zero_offset", 0), value.get("counting", CLOCKWISE), cpr)


def _round_half_up(u: Fraction) -> int:
    return int((u + Fraction(1, 2)) // 1)
