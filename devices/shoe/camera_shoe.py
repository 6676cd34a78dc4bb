"""Camera dealing shoe: a camera inside the shoe; we find the card in each frame and decode its barcode.

Kind ``camera-shoe``. Layers (each usable on its own):

frame source (:mod:`devices.camera.frames`: frame stream over TCP, cv2.VideoCapture, a folder, a video
file) -> :class:`devices.shoe.vision.FrameAnalyzer` (card finding, straightening, zxing-cpp or pyzbar
restricted to one symbology) -> :class:`devices.shoe.tracking.CameraTracker` (confirmation, folding,
unreadable cards; pure) -> ``on_event``.

One daemon thread per driver, ``camera-shoe:<device_id>``, owns the source: it opens it, emits
``DeviceConnected`` once the first frame arrives, and on a drop (an error, the stream closing, or
no frame for ``frame_timeout`` seconds) resolves what the tracker holds (a card in view not read
yet is reported unreadable), emits ``DeviceDisconnected`` (the table pauses) and reopens the
source with exponential backoff. A finite source (a folder, a video file) is read once: at its
end the driver reports ``DeviceDisconnected("... ended")`` and reads nothing more.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..abilities import DecodesImages, ReadsCards
from ..base import DeviceNotConnected, EventSink
from ..events import CardDrawn, DeviceConnected, DeviceDisconnected, DeviceEvent, utcnow
from ..threaded import ThreadedDriver
from .vendor_table import SYMBOLOGIES, VendorTable, vendor_table_from_option

if TYPE_CHECKING:
    from ..camera.frames import FrameSource

__all__ = ["DRIVERS", "CameraShoeDriver", "CameraShoeOptions"]

log = logging.getLogger(__name__)


class FindOptions(BaseModel):
    """Card finding (devices.shoe.vision.find_cards)."""

    model_config = ConfigDict(extra="forbid")
    min_level: int = Field(90, ge=0, le=255, description="grey level below which nothing is a card")
    min_area: float = Field(0.02, gt=0, lt=1, description="smallest card, as a fraction of the frame")
    max_area: float = Field(0.9, gt=0, le=1, description="largest card, as a fraction of the frame")
    min_fill: float = Field(0.8, gt=0, le=1, description="how much of its rotated rectangle a card fills")
    aspect: tuple[float, float] = Field((1.15, 1.75), description="long/short side of a whole card")


class CameraShoeOptions(BaseModel):
    """The ``[tables.device.options]`` of a camera shoe (unknown keys are refused)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    vendor_table: Any = Field(None, description="path of a TOML/JSON vendor table; default: the shipped one")
    symbology: Literal["code128", "qr", "datamatrix"] | None = Field(None, description="default: the table's")
    decoder: Literal["zxing", "zxing-cpp", "pyzbar"] = "zxing"
    fold_window: float = Field(1.0, ge=0, le=60)
    confirm_reads: int = Field(2, ge=1, le=10)
    unreadable_frames: int = Field(6, ge=1, le=1000)
    min_unreadable: int = Field(3, ge=1, le=1000)
    absent_frames: int = Field(2, ge=1, le=1000)
    card_finding: bool = True
    full_frame_fallback: bool | None = Field(None, description="default: on for zxing, off for pyzbar (slow)")
    find: FindOptions = Field(default_factory=FindOptions)
    fps: float | None = Field(None, gt=0, le=1000, description="frame rate of a folder or video file")
    frame_timeout: float = Field(2.0, gt=0, le=600, description="a live source silent this long is reopened")
    reconnect_min: float = Field(0.05, gt=0)
    reconnect_max: float = Field(5.0, gt=0)
    stop_timeout: float = Field(5.0, gt=0)


class CameraShoeDriver(ThreadedDriver, DecodesImages, ReadsCards):
    kind = "camera-shoe"

    def __init__(self, device_id: str, url: str, on_event: EventSink, **options: Any) -> None:
        super().__init__(device_id, url, on_event)  # its options are checked and kept whole in self.opts
        try:
            opts = CameraShoeOptions.model_validate(options)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise ValueError(f"camera-shoe {device_id}: bad options: {problems}") from None
        if opts.reconnect_min > opts.reconnect_max:
            raise ValueError("need reconnect_min <= reconnect_max")
        self.opts = opts
        self.table: VendorTable = vendor_table_from_option(opts.vendor_table)
        self.symbology = opts.symbology or self.table.symbology
        if self.symbology not in SYMBOLOGIES:  # pragma: no cover - Literal already checks
            raise ValueError(f"symbology {self.symbology!r}")
        self.decoder_name = "zxing" if opts.decoder == "zxing-cpp" else opts.decoder
        if self.decoder_name == "pyzbar" and self.symbology == "datamatrix":
            raise ValueError("decoder 'pyzbar' cannot read DataMatrix; use decoder = 'zxing'")
        from ..camera.frames import open_source

        open_source(url, fps=opts.fps)  # refuse a URL that names no source now, not on the thread
        self._analyzer: Any = None  # built on the thread: imports OpenCV and the decoder
        self._tracker: Any = None
        self.stop_timeout = opts.stop_timeout
        self._init_thread(
            {
                "connects": 0,
                "disconnects": 0,
                "open_failures": 0,
                "frames": 0,
                "callback_errors": 0,
                "analysis_errors": 0,
            }
        )
        self._connected = False
        self._ended = False
        self._source: FrameSource | None = None
        self.reconnect_max = opts.reconnect_max
        self._backoff = opts.reconnect_min
        self._times: deque[float] = deque(maxlen=512)
        self._last_payload: str | None = None

    # -- the pipeline (built lazily so that importing this module stays light) -----------------
    def _new_analyzer(self) -> Any:
        from .vision import FrameAnalyzer, make_decoder

        fallback = self.opts.full_frame_fallback
        if fallback is None:
            fallback = self.decoder_name == "zxing"
        return FrameAnalyzer(
            make_decoder(self.decoder_name, self.symbology),
            card_finding=self.opts.card_finding,
            full_frame_fallback=fallback,
            find_options=self.opts.find.model_dump(),
        )

    def build_pipeline(self) -> None:
        from .tracking import CameraTracker

        if self._analyzer is not None:
            return
        self._analyzer = self._new_analyzer()
        self._tracker = CameraTracker(
            self.device_id,
            self.table,
            symbology=self.symbology,
            fold_window=self.opts.fold_window,
            confirm_reads=self.opts.confirm_reads,
            unreadable_frames=self.opts.unreadable_frames,
            min_unreadable=self.opts.min_unreadable,
            absent_frames=self.opts.absent_frames,
        )

    # -- Driver contract ----------------------------------------------------------------------
    def _before_start(self) -> None:
        self.build_pipeline()  # a missing decoder library fails here, for the user who chose it

    @property
    def connected(self) -> bool:
        return self._connected

    def send(self, command: str) -> None:
        raise DeviceNotConnected(f"{self.device_id}: a camera shoe takes no commands ({command!r})")

    def health(self) -> dict[str, Any]:
        info = super().health()
        with self._state:
            times = sorted(self._times)
            counters = dict(self._counters)
            info.update(
                last_error=self._last_error,
                last_payload=self._last_payload,
                ended=self._ended,
                reconnect_delay=self._backoff,
            )
        if self._tracker is not None:
            counters.update(self._tracker.stats())
        source = self._source
        if source is not None and source.missed is not None:
            counters["frames_missed"] = source.missed
        info["running"] = self.running
        info["counters"] = counters
        info["device"] = {
            "vendor": self.table.vendor,
            "symbology": self.symbology,
            "decoder": self.decoder_name,
            "fold_window": self.opts.fold_window,
            "confirm_reads": self.opts.confirm_reads,
            "frame_ms_p50": round(times[len(times) // 2] * 1000, 2) if times else None,
            "frame_ms_p99": round(times[min(len(times) - 1, int(len(times) * 0.99))] * 1000, 2)
            if times
            else None,
        }
        return info

    def decode_image(self, data: bytes) -> dict[str, Any]:
        """Decode an uploaded picture with an analyzer of its own (the live pipeline is not touched)."""
        import cv2
        import numpy as np

        image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError("The file is not an image OpenCV can read (PNG, JPEG, BMP, TIFF...).")
        obs = self._new_analyzer().analyze(image)
        return {
            "decoder": self.decoder_name,
            "symbology": self.symbology,
            "width": int(image.shape[1]),
            "height": int(image.shape[0]),
            "view": obs.state,
            "cards_in_view": len(obs.cards),
            "read_from": obs.source,
            "payloads": list(dict.fromkeys(r.text for r in obs.reads)),
        }

    # -- the thread ---------------------------------------------------------------------------
    def process_frame(self, image: Any, *, now: float, index: int, at: Any = None) -> list[DeviceEvent]:
        """Analyse one frame and return the events it gives (used by the thread, tests and the bench)."""
        if self._analyzer is None:
            self.build_pipeline()
        obs = self._analyzer.analyze(image)
        return self._tracker.observe(obs, now=now, at=at or utcnow(), index=index)

    def _run(self, stop: threading.Event) -> None:
        from ..camera.frames import SourceEnded, SourceError, open_source

        down_reported = False
        reason: str | None  # why the source is down; None while it runs
        self._backoff = self.opts.reconnect_min
        while not stop.is_set():
            source = open_source(self.url, fps=self.opts.fps)
            try:
                source.open()
            except Exception as exc:  # noqa: BLE001 - whatever stops the source opening, report it and retry
                self._count("open_failures")
                reason = f"cannot open {self.url}: {exc}"
                self._set_error(reason)
                if not down_reported:
                    log.warning("%s: %s", self.thread_name, reason)
                    self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason))
                    down_reported = True
                self._sleep_backoff(stop)
                continue
            self._source = source
            reason = None
            got_frames = False
            last_frame = time.monotonic()
            try:
                while not stop.is_set():
                    try:
                        frame = source.read(timeout=0.2)
                    except SourceEnded as exc:
                        reason = f"the source ended ({exc})"
                        self._ended = True
                        break
                    except SourceError as exc:
                        reason = str(exc) or type(exc).__name__
                        break
                    except Exception as exc:  # noqa: BLE001 - a decoder of the source failing in a way not foreseen
                        reason = f"source failed: {exc!r}"
                        break
                    mono = time.monotonic()
                    if frame is None:
                        if mono - last_frame > self.opts.frame_timeout:
                            reason = f"no frame for {mono - last_frame:.1f} s"
                            break
                        continue
                    last_frame = mono
                    if not got_frames:  # connected means frames arrive, not merely an open socket
                        got_frames = True
                        self._connected = True
                        down_reported = False
                        self._count("connects")
                        log.info("%s: receiving frames from %s", self.thread_name, self.url)
                        self._emit(DeviceConnected(device_id=self.device_id, port=self.url))
                    self._frame(frame)
            finally:
                self._source = None
                source.close()
            if got_frames:
                self._flush(reason or "the driver stopped")
            self._connected = False
            if reason is None:  # stop()
                if got_frames:
                    self._emit(DeviceDisconnected(device_id=self.device_id, reason="stopped"))
                break
            self._count("disconnects")
            self._set_error(reason)
            if got_frames or not down_reported:
                log.warning("%s: source lost: %s", self.thread_name, reason)
                self._emit(DeviceDisconnected(device_id=self.device_id, reason=reason))
                down_reported = True
            if self._ended:
                stop.wait()  # a finite source is read once
                break
            if got_frames:
                self._backoff = self.opts.reconnect_min
            self._sleep_backoff(stop)

    def _frame(self, frame: Any) -> None:
        t0 = time.perf_counter()
        try:
            events = self.process_frame(frame.image, now=frame.t, index=frame.index)
        except Exception:
            self._count("analysis_errors")
            log.exception("%s: frame %d could not be analysed", self.thread_name, frame.index)
            return
        with self._state:
            self._times.append(time.perf_counter() - t0)
            self._counters["frames"] += 1
        for event in events:
            if isinstance(event, CardDrawn):
                self._last_payload = event.payload
            self._emit(event)

    def _flush(self, why: str) -> None:
        if self._tracker is None:
            return
        for event in self._tracker.flush(now=time.monotonic(), at=utcnow(), why=why):
            self._emit(event)


DRIVERS = {"camera-shoe": CameraShoeDriver}
