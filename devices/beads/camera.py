"""The ``camera-bead-counter`` driver: a camera over Fan Tan's tray counts the beads the dealer laid out.

Frames come on the cameras' frame stream (``frames+tcp://HOST:PORT``, devices/camera/frames.py), grey or
colour (turned grey). The beads are dark discs on the light cloth: a frame is thresholded (``threshold``,
grey levels below it are bead) and its connected dark regions are counted, those between ``min_area`` and
``max_area`` pixels as one bead each (smaller ones are dust or glare and ignored). A region larger than
``max_area`` is beads touching or on top of one another: that frame cannot be counted.

:class:`BeadTally` (pure) turns the per-frame counts into events: once the same count of beads has been seen
for ``stable_s`` seconds it reports :class:`BeadCount` (the dealer has finished laying them out and nothing
moves), once for that layout; a frame that cannot be counted for ``stable_s`` reports
:class:`BeadCountUnreadable`. An empty tray readies it for the next layout. Counting never
guesses: a moving or overlapping layout gives no count.
"""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import urlsplit

import cv2
import numpy as np

from ..base import EventSink
from ..camera.frames import SourceError, TcpFrameSource, as_bgr
from ..events import DeviceConnected, DeviceDisconnected, DeviceEvent, utcnow
from ..threaded import ThreadedDriver
from .events import BeadCount, BeadCountUnreadable

__all__ = ["DRIVERS", "OVERLAP", "BeadTally", "CameraBeadCounterDriver", "count_beads"]

#: count_beads' answer for a frame whose beads touch or overlap
OVERLAP = -1


def count_beads(gray: np.ndarray, *, threshold: int, min_area: int, max_area: int) -> int:
    """The beads in a grey frame, or OVERLAP when a dark region is too large to be one bead. Pure."""
    dark = (gray < threshold).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    areas = stats[1:n, cv2.CC_STAT_AREA]
    if (areas > max_area).any():
        return OVERLAP
    return int((areas >= min_area).sum())


class BeadTally:
    """Per-frame counts (with their monotonic times) in, events out, once per stable layout. Pure."""

    def __init__(self, device_id: str, stable_s: float) -> None:
        self.device_id = device_id
        self.stable_s = float(stable_s)
        self._value: int | None = None
        self._since = 0.0
        self._reported: int | None = 0  # an empty tray is where a layout starts

    def frame(self, count: int, now: float) -> list[DeviceEvent]:
        if count == 0:
            self._reported = 0  # the tray was cleared: the next layout is new, even with the same count
        if count != self._value:
            self._value, self._since = count, now
            return []
        if now - self._since < self.stable_s or count == self._reported:
            return []
        self._reported = count
        if count == 0:
            return []
        if count == OVERLAP:
            reason = "beads touch or lie on one another: spread them"
            return [BeadCountUnreadable(device_id=self.device_id, at=utcnow(), reason=reason, raw="overlap")]
        return [BeadCount(device_id=self.device_id, at=utcnow(), count=count, raw=f"camera {count}")]

    def forget(self) -> None:
        self._value, self._reported = None, 0


class CameraBeadCounterDriver(ThreadedDriver):
    """Options: ``threshold`` (100), ``min_area`` (30) and ``max_area`` (300) pixels, set for the bead size the camera sees, ``stable_s`` (1.0),
    ``roi`` ([x, y, w, h]), ``reconnect_min`` / ``reconnect_max``."""

    kind = "camera-bead-counter"
    family = "bead-counter"
    stand_in_url = "frames+tcp://127.0.0.1:9"

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: EventSink,
        *,
        threshold: int = 100,
        min_area: int = 30,
        max_area: int = 300,
        stable_s: float = 1.0,
        roi: list[int] | None = None,
        reconnect_min: float = 0.1,
        reconnect_max: float = 5.0,
        stop_timeout: float = 5.0,
        **options: Any,
    ) -> None:
        super().__init__(device_id, url, on_event, **options)
        parts = urlsplit(url)
        if parts.scheme.lower() != "frames+tcp" or not parts.hostname or not parts.port:
            raise ValueError(f"{url!r}: a camera bead counter URL is frames+tcp://host:port")
        self.address = (parts.hostname, parts.port)
        if not 0 < threshold < 256 or not 0 < min_area <= max_area or stable_s < 0:
            raise ValueError("need 0 < threshold < 256, 0 < min_area <= max_area and stable_s >= 0")
        if roi is not None and (len(roi) != 4 or min(roi) < 0 or roi[2] < 1 or roi[3] < 1):
            raise ValueError("roi is [x, y, width, height] in pixels")
        self.threshold, self.min_area, self.max_area = int(threshold), int(min_area), int(max_area)
        self.roi = None if roi is None else tuple(int(v) for v in roi)
        self.tally = BeadTally(device_id, stable_s)
        self._backoff = self.reconnect_min = float(reconnect_min)
        self.reconnect_max = float(reconnect_max)
        self.stop_timeout = stop_timeout
        self._init_thread({"frames": 0, "counts": 0, "connects": 0, "disconnects": 0})
        self._online = False

    @property
    def connected(self) -> bool:
        return self._online

    def send(self, command: str) -> None:
        raise ValueError(f"{self.device_id}: a camera bead counter takes no commands ({command!r})")

    def health(self) -> dict[str, Any]:
        info = super().health()
        with self._state:
            info.update(counters=dict(self._counters), last_error=self._last_error, running=self.running)
        return info

    def handle_frame(self, image: np.ndarray, now: float) -> list[DeviceEvent]:
        """Count one frame -> events (public: tests and replays feed frames directly)."""
        gray = image if image.ndim == 2 else cv2.cvtColor(as_bgr(image), cv2.COLOR_BGR2GRAY)
        if self.roi is not None:
            x, y, w, h = self.roi
            gray = gray[y : y + h, x : x + w]
        self._count("frames")
        n = count_beads(gray, threshold=self.threshold, min_area=self.min_area, max_area=self.max_area)
        events = self.tally.frame(n, now)
        self._count("counts", len(events))
        return events

    def _run(self, stop: threading.Event) -> None:
        import time

        while not stop.is_set():
            source = TcpFrameSource(self.url, *self.address)
            reason = "the frame stream ended"
            try:
                source.open()
                self._online = True
                self._backoff = self.reconnect_min
                self._count("connects")
                self.tally.forget()
                self._emit(DeviceConnected(device_id=self.device_id, port=self.url))
                while not stop.is_set():
                    frame = source.read(0.5)
                    if frame is not None:
                        for event in self.handle_frame(frame.image, time.monotonic()):
                            self._emit(event)
            except (OSError, SourceError) as exc:
                reason = str(exc) or type(exc).__name__
            finally:
                source.close()
            was, self._online = self._online, False
            if stop.is_set():
                if was:
                    self._emit(DeviceDisconnected(device_id=self.device_id, reason="stopped"))
                break
            self._set_error(reason)
            if was:
                self._count("disconnects")
                self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason))
            self._sleep_backoff(stop)


DRIVERS = {CameraBeadCounterDriver.kind: CameraBeadCounterDriver}
