"""The overhead roulette camera driver (kind ``roulette-camera``).

Frames (:mod:`devices.camera.frames`) -> :class:`.finder.BallFinder` (rotor angle, balls, pockets) ->
:class:`.tracker.BallTracker` (revolutions, balls at rest, problems) -> the
vendor-neutral wheel events of :mod:`devices.events`, on a thread of its own. A live source that fails, or gives no frame for
``frame_timeout`` seconds (a frozen stream), is reported lost (``DeviceDisconnected``) and
reopened with backoff; a recording (``dir:``, ``file:``) is read once.

Options (``[tables.devices.options]``, docs/roulette.md):

* ``calibration`` (required): the wheel's place in the picture and its number order,
  see :mod:`.calibration`;
* ``settle_s`` (0.5), ``end_s`` (0.2), ``unreadable_s`` (1.0), ``max_gap_s`` (0.25): the
  tracker's times; ``white_threshold`` (185), ``fret_margin`` (0.12), ``min_quality``
  (0.75): the finder's;
* ``attach_image`` (true): put the frame (JPEG) on each reading at rest (``WheelResult.image``, never
  journaled);
* ``frame_timeout`` (2.0), ``reconnect_min`` (0.1), ``reconnect_max`` (5.0), ``fps`` (for
  recordings: a folder's 30, a video's its own).

The camera takes no commands: :meth:`send` refuses every one.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import cv2
import numpy as np

from ..abilities import KeepsFrames, LocatesWheel
from ..base import DeviceNotConnected, EventSink
from ..camera.frames import FrameSource, SourceEnded, SourceError, open_source
from ..events import DeviceConnected, DeviceDisconnected, DeviceEvent, WheelResult, utcnow
from ..threaded import ThreadedDriver
from .calibration import calibration_from_options
from .finder import BallFinder, Reading
from .tracker import BallTracker

__all__ = ["DRIVERS", "RouletteCameraDriver"]

log = logging.getLogger(__name__)


class RouletteCameraDriver(ThreadedDriver, KeepsFrames, LocatesWheel):
    kind = "roulette-camera"

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: EventSink,
        *,
        calibration: dict[str, Any] | None = None,
        settle_s: float = 0.5,
        end_s: float = 0.2,
        unreadable_s: float = 1.0,
        max_gap_s: float = 0.25,
        white_threshold: int = 185,
        fret_margin: float = 0.12,
        min_quality: float = 0.75,
        attach_image: bool = True,
        frame_timeout: float = 2.0,
        reconnect_min: float = 0.1,
        reconnect_max: float = 5.0,
        fps: float | None = None,
        stop_timeout: float = 5.0,
        **options: Any,
    ) -> None:
        if options:
            raise ValueError(f"{device_id}: unknown roulette-camera option(s) {', '.join(sorted(options))}")
        super().__init__(device_id, url, on_event)
        if calibration is None:
            raise ValueError(f"{device_id}: the roulette camera needs its calibration (docs/roulette.md)")
        self.calibration = calibration_from_options(calibration)
        self.finder = BallFinder(
            self.calibration,
            white_threshold=white_threshold,
            fret_margin=fret_margin,
            min_quality=min_quality,
        )
        self.tracker = BallTracker(
            device_id,
            self.calibration.order,
            clockwise=self.calibration.clockwise,
            settle_s=settle_s,
            end_s=end_s,
            unreadable_s=unreadable_s,
            max_gap_s=max_gap_s,
        )
        self.source: FrameSource = open_source(url, fps=fps, bgr=True)
        self.attach_image = bool(attach_image)
        if not 0 < reconnect_min <= reconnect_max:
            raise ValueError("need 0 < reconnect_min <= reconnect_max")
        self.frame_timeout = float(frame_timeout)
        self.reconnect_min, self.reconnect_max = float(reconnect_min), float(reconnect_max)
        self.stop_timeout = stop_timeout
        self._init_thread({"frames": 0, "read_us_total": 0, "events": 0, "connects": 0, "disconnects": 0})
        self._online = False
        self._last: Reading | None = None
        self._last_image: np.ndarray | None = None

    # -- Driver contract ----------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._online

    def send(self, command: str) -> None:
        if not self._online:
            raise DeviceNotConnected(f"{self.device_id}: the camera is not connected")
        raise ValueError(f"{self.device_id}: the overhead camera takes no commands ({command!r})")

    def health(self) -> dict[str, Any]:
        info = super().health()
        with self._state:
            counters = dict(self._counters)
        frames = counters["frames"]
        last = self._last
        info.update(
            counters=counters,
            mean_read_ms=round(counters["read_us_total"] / frames / 1000, 2) if frames else None,
            last_error=self._last_error,
            rotor_found=None if last is None else last.rotor_deg is not None,
            ring_quality=None if last is None else last.quality,
            balls=None if last is None else [b.pocket or b.zone for b in last.balls],
            spinning=self.tracker.spinning,
            running=self.running,
        )
        return info

    # -- frames ------------------------------------------------------------------------------------

    def last_frame_jpeg(self) -> bytes | None:
        """The latest frame as JPEG (the technician's calibration page)."""
        image = self._last_image
        if image is None:
            return None
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return jpeg.tobytes() if ok else None

    def overlay(self) -> dict[str, Any] | None:
        """What the finder saw in the latest frame, in picture coordinates (drawn over last_frame_jpeg)."""
        last, image = self._last, self._last_image
        if last is None or image is None:
            return None
        r = self.calibration.radius * self.calibration.zones.ball_diameter / 2
        return {
            "width": int(image.shape[1]),
            "height": int(image.shape[0]),
            "rotor_deg": None if last.rotor_deg is None else round(last.rotor_deg, 1),
            "balls": [
                {"x": round(b.x), "y": round(b.y), "r": round(r), "pocket": b.pocket, "zone": b.zone}
                for b in last.balls
            ],
        }

    def process_frame(self, image: np.ndarray, t: float) -> list[DeviceEvent]:
        """One frame -> events (public: tests, replays and the benchmark feed frames directly)."""
        t0 = time.perf_counter()
        reading = self.finder.read(image)
        self._count("read_us_total", int((time.perf_counter() - t0) * 1e6))
        self._count("frames")
        self._last = reading
        self._last_image = image
        events = self.tracker.update(reading, t, utcnow())
        if self.attach_image and events:
            events = [self._with_image(e, image) for e in events]
        self._count("events", len(events))
        return events

    @staticmethod
    def _with_image(event: DeviceEvent, image: np.ndarray) -> DeviceEvent:
        if not isinstance(event, WheelResult):
            return event
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return event.model_copy(update={"image": jpeg.tobytes()}) if ok else event

    def _run(self, stop: threading.Event) -> None:
        backoff = self.reconnect_min
        reported_down = False
        source = self.source
        while not stop.is_set():
            reason: str | None = None
            ended = False
            try:
                source.open()
                self._online = True
                self._count("connects")
                self.tracker.reset()
                self._emit(DeviceConnected(device_id=self.device_id, port=self.url))
                reported_down = False
                backoff = self.reconnect_min
                last_frame = time.monotonic()
                while not stop.is_set():
                    frame = source.read(0.2)
                    if frame is None:
                        if not source.finite and time.monotonic() - last_frame > self.frame_timeout:
                            raise SourceError(f"no frame for {self.frame_timeout:g} s")
                        continue
                    last_frame = time.monotonic()
                    for event in self.process_frame(frame.image, frame.t):
                        self._emit(event)
            except SourceEnded as exc:
                reason, ended = str(exc), True
            except (SourceError, OSError) as exc:
                reason = str(exc) or type(exc).__name__
            except Exception as exc:  # a reader bug must not end the thread
                log.exception("%s: frame processing failed", self.device_id)
                reason = f"frame processing failed: {exc}"
            finally:
                source.close()
            was_online, self._online = self._online, False
            if stop.is_set():
                if was_online:
                    self._emit(DeviceDisconnected(device_id=self.device_id, reason="stopped"))
                return
            self._set_error(reason)
            if was_online or not reported_down:
                self._count("disconnects", int(was_online))
                self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason or "the source ended"))
                reported_down = True
            if ended:
                return
            stop.wait(backoff)
            backoff = min(backoff * 2, self.reconnect_max)


DRIVERS = {RouletteCameraDriver.kind: RouletteCameraDriver}
