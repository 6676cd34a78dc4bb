"""At rest: the same certain reading, with every die in the same place, over N consecutive frames. Pure."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from .vision import Reading


@dataclass(frozen=True)
class Sighting:
    """One reading of one camera frame."""

    frame_number: int
    at: datetime
    reading: Reading


def reading_key(reading: Reading) -> tuple[tuple[str, int], ...]:
    """What must not change between frames: each die's colour and face."""
    return tuple(sorted((d.color, d.face) for d in reading.dice if d.face is not None))


def same_place(a: Reading, b: Reading, tolerance: float) -> bool:
    """Every die of `a` has a die of the same colour and face in `b` within `tolerance` die sizes."""
    if len(a.dice) != len(b.dice):
        return False
    free = list(b.dice)
    for d in a.dice:
        best, best_dist = None, None
        for i, e in enumerate(free):
            if e.color != d.color or e.face != d.face:
                continue
            dist = float(np.hypot(e.center[0] - d.center[0], e.center[1] - d.center[1]))
            if best_dist is None or dist < best_dist:
                best, best_dist = i, dist
        size = max(d.size, 1.0)
        if best is None or best_dist is None or best_dist > tolerance * size:
            return False
        free.pop(best)
    return True


class RestTracker:
    """Feed it the readings of one camera's frames; it says when the dice have been at rest and read the
    same for `frames` frames in a row."""

    def __init__(self, frames: int = 3, tolerance: float = 0.25) -> None:
        if frames < 1:
            raise ValueError("at rest needs at least one frame")
        self.frames = frames
        self.tolerance = tolerance
        self._recent: deque[Sighting] = deque(maxlen=frames)

    def reset(self) -> None:
        self._recent.clear()

    @property
    def latest(self) -> Sighting | None:
        return self._recent[-1] if self._recent else None

    def add(self, sighting: Sighting) -> tuple[Sighting, ...] | None:
        """The run of `frames` sightings that agree, when the newest completes one; else None."""
        self._recent.append(sighting)
        if len(self._recent) < self.frames:
            return None
        run = tuple(self._recent)
        first = run[0].reading
        if not all(s.reading.ok for s in run):
            return None
        key = reading_key(first)
        for s in run[1:]:
            if reading_key(s.reading) != key or not same_place(first, s.reading, self.tolerance):
                return None
        return run
