"""The dice camera driver: frames from a camera on a thread, sampled frames out as events.

Frames come through the capture and video-file sources of :mod:`devices.camera.frames`; this
driver adds its own URL grammar (every network URL, ``tcp://`` included, is an FFmpeg stream
here), replays that loop and keep a recording's pace, and the sampling below.

Configuration (``[tables.devices] kind = "dice-camera"``), the URL says what to open:

* ``"0"``, ``"1"`` ... - a local camera by index (USB/V4L2); ``"/dev/video0"`` - by device path;
* ``"rtsp://..."``, ``"http://.../stream.mjpg"`` (MJPEG over HTTP, as IP cameras and
  :mod:`simulators.dice` serve it), ``"udp://..."`` - a network stream (FFmpeg, with
  open and read timeouts so that a dead stream is noticed);
* a file path or ``"file:///..."`` - a recorded video, played at its own frame rate
  (``fps`` and ``speed`` options change that), from the start again at its end
  (``loop``, default true) - for replays and tests.

One daemon thread (``dice-camera:<device id>``) opens the source, reads every frame and
measures motion on a 160-pixel-wide grey copy (the fraction of pixels that changed by
more than ``motion_delta`` grey levels since the previous frame). It emits
:class:`devices.camera.events.CameraFrame` events at a modest rate, because every
event is journaled:

* the first frame after each (re)connect (``reason="first"``);
* while the picture moves, and for ``linger_s`` seconds after it stopped, at most
  ``sample_fps`` frames a second (``"motion"``, ``"settling"``);
* otherwise one frame every ``heartbeat_s`` seconds (``"still"``);
* on request: ``send("frame")`` (``"requested"``).

With the defaults a table journals about 5 frame events a second during a throw and
one every 2 s in between, per camera.

When the stream drops (read fails, times out, the file cannot be opened) the driver
emits :class:`devices.events.DeviceDisconnected` with the reason (once, however long it
stays down) and reopens it with exponential backoff (``reconnect_min`` ..
``reconnect_max``); the first frame after that brings :class:`DeviceConnected`. A live
camera that keeps sending the very same picture for ``frozen_s`` seconds (a stuck
encoder) is treated as dropped. Exceptions from ``on_event`` never end the thread.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..abilities import KeepsLatestImage
from ..base import DeviceNotConnected, EventSink
from ..events import DeviceConnected, DeviceDisconnected, utcnow
from ..threaded import ThreadedDriver
from .events import CameraFrame, CameraStatus
from .frames import CaptureSource, FrameSource, SourceEnded, SourceError, VideoFileSource

__all__ = ["DRIVERS", "CameraDriver", "motion_fraction", "small_grey"]

log = logging.getLogger(__name__)

_STREAM_SCHEMES = ("rtsp://", "rtsps://", "rtmp://", "http://", "https://", "udp://", "tcp://", "srt://")

MOTION_WIDTH = 160


def small_grey(image: np.ndarray, width: int = MOTION_WIDTH) -> np.ndarray:
    """A small, slightly blurred grey copy of a frame: what motion is measured on."""
    h, w = image.shape[:2]
    sw = max(8, min(width, w))
    sh = max(4, round(h * sw / w))
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    small = cv2.resize(grey, (sw, sh), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (3, 3), 0)


def motion_fraction(previous: np.ndarray | None, current: np.ndarray, delta: int = 14) -> float:
    """The fraction of pixels of two small grey frames that differ by more than `delta` grey levels."""
    if previous is None or previous.shape != current.shape:
        return 0.0
    diff = cv2.absdiff(previous, current)
    return float(np.count_nonzero(diff > delta)) / diff.size


class CameraDriver(ThreadedDriver, KeepsLatestImage):
    """A camera over a dice tray (see the module documentation for the URL forms and the events)."""

    kind = "dice-camera"

    def __init__(
        self,
        device_id: str,
        url: str,
        on_event: EventSink,
        *,
        sample_fps: float = 5.0,
        linger_s: float = 3.0,
        heartbeat_s: float = 2.0,
        motion_threshold: float = 0.002,
        motion_delta: int = 14,
        open_timeout_s: float = 5.0,
        read_timeout_s: float = 2.0,
        reconnect_min: float = 0.2,
        reconnect_max: float = 5.0,
        frozen_s: float | None = 5.0,
        loop: bool = True,
        fps: float | None = None,
        speed: float = 1.0,
        stop_timeout: float = 5.0,
        **options: Any,
    ) -> None:
        super().__init__(device_id, url, on_event, **options)
        if sample_fps <= 0 or heartbeat_s <= 0 or linger_s < 0:
            raise ValueError("sample_fps and heartbeat_s must be positive, linger_s not negative")
        if not 0 < reconnect_min <= reconnect_max:
            raise ValueError("need 0 < reconnect_min <= reconnect_max")
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.sample_fps = float(sample_fps)
        self.linger_s = float(linger_s)
        self.heartbeat_s = float(heartbeat_s)
        self.motion_threshold = float(motion_threshold)
        self.motion_delta = int(motion_delta)
        self.open_timeout_s = float(open_timeout_s)
        self.read_timeout_s = float(read_timeout_s)
        self.reconnect_min = float(reconnect_min)
        self.reconnect_max = float(reconnect_max)
        self.frozen_s = frozen_s
        self.loop = loop
        self.fps = fps
        self.speed = float(speed)
        self.stop_timeout = stop_timeout
        self.source_kind, self.source = self._parse(url)

        self._init_thread(
            {
                "frames": 0,
                "events": 0,
                "connects": 0,
                "disconnects": 0,
                "open_failures": 0,
                "loops": 0,
                "frozen": 0,
                "callback_errors": 0,
            }
        )
        self._connected = False
        self._request = threading.Event()
        self._frame_number = 0
        self._latest: tuple[int, np.ndarray] | None = None
        self._backoff = self.reconnect_min
        self._last_frame_at: datetime | None = None
        self._fps_measured = 0.0
        self._size: tuple[int, int] | None = None
        self._status: tuple[int, int, bool] | None = None

    # -- the source ------------------------------------------------------------------------------

    @staticmethod
    def _parse(url: str) -> tuple[str, Any]:
        u = url.strip()
        if re.fullmatch(r"\d{1,3}", u):
            return "index", int(u)
        if u.startswith("/dev/video"):
            return "device", u
        if u.lower().startswith(_STREAM_SCHEMES):
            return "stream", u
        if u.startswith("file://"):
            return "file", u[len("file://") :]
        if u == "simulator":
            raise ValueError(
                "url 'simulator' is resolved by the studio (simulators.dice); give the driver its URL"
            )
        return "file", os.path.expanduser(u)

    def _frame_source(self) -> FrameSource:
        """The frame source of devices.camera.frames for this URL (a recording: finite, looped by _run)."""
        if self.source_kind == "file":
            return VideoFileSource(self.url, Path(self.source), self.fps, bgr=True)
        return CaptureSource(
            self.url,
            self.source,
            bgr=True,
            open_timeout_s=self.open_timeout_s,
            read_timeout_s=self.read_timeout_s,
        )

    # -- Driver contract ---------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected

    def send(self, command: str) -> None:
        """``"frame"``: emit the next frame whatever the motion. Cameras take no other command."""
        if command.strip().lower() != "frame":
            raise ValueError(f"a dice camera understands only 'frame', not {command!r}")
        if not self._connected:
            raise DeviceNotConnected(f"{self.device_id}: not connected to {self.url}")
        self._request.set()

    def latest(self) -> tuple[int, np.ndarray] | None:
        """The last frame received (its number and picture), for a live view; None before the first."""
        with self._state:
            return self._latest

    def health(self) -> dict[str, Any]:
        info = super().health()
        with self._state:
            info.update(
                source=self.source_kind,
                running=self.running,
                frame_size=list(self._size) if self._size else None,
                fps=round(self._fps_measured, 2),
                frame_number=self._frame_number,
                last_frame_at=self._last_frame_at.isoformat() if self._last_frame_at else None,
                last_error=self._last_error,
                reconnect_delay=self._backoff,
                counters=dict(self._counters),
            )
        return info

    # -- the reader thread --------------------------------------------------------------------------

    def _run(self, stop: threading.Event) -> None:
        down_reported = False
        self._backoff = self.reconnect_min
        while not stop.is_set():
            source = self._frame_source()
            try:
                source.open()
            except SourceError:
                self._count("open_failures")
                why = f"cannot open {self.url}"
                self._set_error(why)
                if not down_reported:
                    log.warning("%s: %s", self.thread_name, why)
                    self._emit(DeviceDisconnected(device_id=self.device_id, reason=why))
                    down_reported = True
                self._sleep_backoff(stop)
                continue
            try:
                reason, got_frames = self._read_loop(source, stop, resume=self._connected)
            finally:
                source.close()
            if reason == "end of file" and self.loop and got_frames and not stop.is_set():
                self._count("loops")
                continue  # a replay goes on from the start, still connected
            was, self._connected = self._connected, False
            if reason is None:  # stop() was called
                if was:
                    self._emit(DeviceDisconnected(device_id=self.device_id, reason="stopped"))
                break
            if was:
                self._count("disconnects")
            self._set_error(reason)
            if was or not down_reported:
                log.warning("%s: disconnected: %s", self.thread_name, reason)
                self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason))
                down_reported = True
            if got_frames:
                self._backoff = self.reconnect_min  # it worked a moment ago: retry soon
            self._sleep_backoff(stop)

    def _read_loop(
        self, source: FrameSource, stop: threading.Event, resume: bool = False
    ) -> tuple[str | None, bool]:
        """Read until stop (None) or the source fails (the reason); also whether any frame came.
        `resume`: a looping file starting over (no new DeviceConnected)."""
        is_file = source.finite
        pace = 0.0
        if isinstance(source, VideoFileSource):
            pace = 1.0 / (float(source.fps or 25.0) * self.speed)
        previous: np.ndarray | None = None
        got = False
        first_pending = True
        last_emit = -1e9
        last_motion = -1e9
        pending_motion = 0.0
        pending_moving = False
        still = 0
        frozen_since: float | None = None
        next_due = time.monotonic()
        t_prev: float | None = None
        while not stop.is_set():
            ended = False
            try:
                read = source.read(self.read_timeout_s)
            except SourceEnded:
                read, ended = None, True
            except SourceError:
                read = None
            if stop.is_set():
                return None, got
            if read is None:
                return (
                    "end of file"
                    if is_file and ended
                    else "the stream stopped (no frame within "
                    f"{self.read_timeout_s:g} s, or the connection closed)"
                ), got
            now = time.monotonic()
            at = utcnow()
            frame = read.image
            h, w = frame.shape[:2]
            if not got:
                got = True
                if not resume:
                    self._connected = True
                    self._count("connects")
                    self._backoff = self.reconnect_min
                    log.info("%s: receiving %dx%d from %s", self.thread_name, w, h, self.url)
                    self._emit(DeviceConnected(device_id=self.device_id, port=self.url))
                else:
                    first_pending = False
            small = small_grey(frame)
            motion = motion_fraction(previous, small, self.motion_delta)
            frozen = (
                previous is not None and previous.shape == small.shape and np.array_equal(previous, small)
            )
            previous = small
            moving = motion > self.motion_threshold
            if moving:
                last_motion = now
                still = 0
            else:
                still += 1
            pending_motion = max(pending_motion, motion)
            pending_moving = pending_moving or moving
            with self._state:
                self._frame_number += 1
                number = self._frame_number
                self._counters["frames"] += 1
                self._latest = (number, frame)
                self._last_frame_at = at
                if t_prev is not None and now > t_prev:
                    inst = 1.0 / (now - t_prev)
                    self._fps_measured = (
                        inst if self._fps_measured == 0 else 0.9 * self._fps_measured + 0.1 * inst
                    )
                self._size = (w, h)
            t_prev = now
            self._report_status(w, h, False)
            # a live camera repeating the very same picture is stuck
            if frozen and not is_file and self.frozen_s:
                frozen_since = frozen_since if frozen_since is not None else now
                if now - frozen_since >= self.frozen_s:
                    self._count("frozen")
                    self._report_status(w, h, True, f"the same picture for {now - frozen_since:.1f} s")
                    return f"the picture froze (the same frame for {now - frozen_since:.1f} s)", got
            else:
                frozen_since = None
            reason = None
            interval = 1.0 / self.sample_fps
            if first_pending:
                reason = "first"
            elif self._request.is_set():
                reason = "requested"
            elif now - last_emit >= interval and pending_moving:
                reason = "motion"
            elif now - last_emit >= interval and now - last_motion <= self.linger_s:
                reason = "settling"
            elif now - last_emit >= self.heartbeat_s:
                reason = "still"
            if reason is not None:
                first_pending = False
                self._request.clear()
                self._count("events")
                self._emit(
                    CameraFrame(
                        device_id=self.device_id,
                        at=at,
                        frame_number=number,
                        captured_at=at,
                        stream_ms=read.stream_ms,
                        width=w,
                        height=h,
                        motion=min(1.0, round(pending_motion, 5)),
                        moving=pending_moving,
                        still_frames=still,
                        reason=reason,
                        image=frame,
                    )
                )
                last_emit = now
                pending_motion = 0.0
                pending_moving = False
            if pace:
                next_due += pace
                delay = next_due - time.monotonic()
                if delay > 0:
                    if stop.wait(delay):
                        return None, got
                else:
                    next_due = time.monotonic()
        return None, got

    def _report_status(self, w: int, h: int, frozen: bool, detail: str = "") -> None:
        key = (w, h, frozen)
        if key == self._status:
            return
        self._status = key
        self._emit(
            CameraStatus(
                device_id=self.device_id,
                width=w,
                height=h,
                fps=round(self._fps_measured, 2),
                frozen=frozen,
                detail=detail,
            )
        )


#: device kind -> driver, found by devices.registry
DRIVERS = {"dice-camera": CameraDriver}
