"""Where the overhead camera's frames come from: the device URL names the source.

=========================  =====================================================================
URL                        source
=========================  =====================================================================
``tcp://HOST:PORT``        a *frame stream* (the simulator, or a camera bridge): frames pushed
                           over one TCP connection, format below. Live: reopened on failure.
``camera:N``,              ``cv2.VideoCapture`` on a local camera (index N, or a V4L2 path).
``/dev/videoN``            Live.
``rtsp://``, ``http://``   ``cv2.VideoCapture`` on a network camera. Live.
``dir:PATH``               the images of a folder, in name order. Finite (a replay).
``file:PATH``              a video file. Finite (a replay).
=========================  =====================================================================

Frame stream: each frame is a 28-byte header then its body. Header, big-endian: ``b"RCF1"``,
width (u16), height (u16), channels (u8, 3: BGR), encoding (u8: 0 raw pixels rows top to
bottom, 1 JPEG), reserved (u16, 0), sequence number (u32), capture time (u64, microseconds on
the sender's monotonic clock; 0: unknown), body length (u32). A bad header ends the
connection (a byte stream cannot be resynchronised safely).

Every frame comes with a time in seconds: the sender's capture time when the stream gives
one, the monotonic clock when a live frame arrived, or the frame's position at ``fps`` for a
file or a folder, so that a replay settles and counts exactly as the live camera did.
"""

from __future__ import annotations

import os
import socket
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

import cv2
import numpy as np

__all__ = ["HEADER", "MAGIC", "Frame", "FrameSource", "SourceEnded", "SourceError", "open_source"]

MAGIC = b"RCF1"
HEADER = struct.Struct(">4sHHBBHIQI")
ENC_RAW, ENC_JPEG = 0, 1
MAX_BODY = 64 * 1024 * 1024
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".ppm")


class SourceError(OSError):
    """The source failed or dropped: a live source is reopened, with backoff."""


class SourceEnded(Exception):
    """A finite source (a file, a folder) has no more frames."""


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # HxWx3 BGR uint8
    t: float  # seconds, see the module docstring
    seq: int


class FrameSource(Protocol):
    live: bool

    def open(self) -> None: ...

    def read(self, timeout: float) -> Frame | None:
        """The next frame, or None when none came within ``timeout``; SourceError / SourceEnded."""
        ...

    def close(self) -> None: ...


class TcpFrameSource:
    live = True

    def __init__(self, host: str, port: int, connect_timeout: float = 2.0) -> None:
        self.host, self.port, self.connect_timeout = host, port, connect_timeout
        self._sock: socket.socket | None = None
        self._buf = bytearray()

    def open(self) -> None:
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
        except OSError as exc:
            raise SourceError(f"cannot connect to the frame stream {self.host}:{self.port}: {exc}") from None
        self._sock, self._buf = sock, bytearray()

    def _fill(self, n: int, deadline: float) -> bool:
        sock = self._sock
        if sock is None:
            raise SourceError("the frame stream is closed")
        while len(self._buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            sock.settimeout(min(left, 0.5))
            try:
                chunk = sock.recv(max(65536, n - len(self._buf)))
            except TimeoutError:
                continue
            except OSError as exc:
                raise SourceError(f"the frame stream failed: {exc}") from None
            if not chunk:
                raise SourceError("the frame stream closed")
            self._buf += chunk
        return True

    def read(self, timeout: float) -> Frame | None:
        deadline = time.monotonic() + timeout
        if not self._fill(HEADER.size, deadline):
            return None
        magic, w, h, ch, enc, _, seq, t_us, length = HEADER.unpack_from(self._buf)
        if (
            magic != MAGIC
            or ch != 3
            or enc not in (ENC_RAW, ENC_JPEG)
            or length > MAX_BODY
            or (enc == ENC_RAW and length != w * h * 3)
        ):
            raise SourceError("bad frame header on the stream")
        if not self._fill(HEADER.size + length, deadline + 2.0):
            return None
        body = bytes(self._buf[HEADER.size : HEADER.size + length])
        del self._buf[: HEADER.size + length]
        if enc == ENC_RAW:
            image = np.frombuffer(body, np.uint8).reshape(h, w, 3)
        else:
            image = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
            if image is None:
                raise SourceError("a JPEG frame on the stream could not be decoded")
        return Frame(image, t_us / 1e6 if t_us else time.monotonic(), seq)

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


class CaptureSource:
    """OpenCV's VideoCapture: local cameras, network cameras (live) and video files (finite)."""

    def __init__(self, target: int | str, *, live: bool, fps: float = 30.0) -> None:
        self.target, self.live, self.fps = target, live, fps
        self._cap: cv2.VideoCapture | None = None
        self._n = 0

    def open(self) -> None:
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open {self.target!r}")
        self._cap, self._n = cap, 0
        if not self.live:
            self.fps = cap.get(cv2.CAP_PROP_FPS) or self.fps

    def read(self, timeout: float) -> Frame | None:
        if self._cap is None:
            raise SourceError("the capture is closed")
        ok, image = self._cap.read()
        if not ok:
            if self.live:
                raise SourceError("the camera stopped giving frames")
            raise SourceEnded("end of the video")
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        self._n += 1
        return Frame(image, time.monotonic() if self.live else (self._n - 1) / self.fps, self._n - 1)

    def close(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()


class ImageDirSource:
    live = False

    def __init__(self, path: Path, fps: float = 30.0) -> None:
        self.path, self.fps = path, fps
        self._names: list[str] = []
        self._n = 0

    def open(self) -> None:
        if not self.path.is_dir():
            raise SourceError(f"{self.path} is not a folder")
        self._names = sorted(n for n in os.listdir(self.path) if n.lower().endswith(IMAGE_SUFFIXES))
        self._n = 0

    def read(self, timeout: float) -> Frame | None:
        while self._n < len(self._names):
            name = self._names[self._n]
            self._n += 1
            image = cv2.imread(str(self.path / name), cv2.IMREAD_COLOR)
            if image is not None:
                return Frame(image, (self._n - 1) / self.fps, self._n - 1)
        raise SourceEnded(f"no more images in {self.path}")

    def close(self) -> None:
        self._names = []


def open_source(url: str, *, fps: float = 30.0) -> FrameSource:
    """The source a device URL names (not opened yet), or ValueError saying what URLs work."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "tcp":
        if not parts.hostname or not parts.port:
            raise ValueError(f"{url!r}: a frame stream URL is tcp://host:port")
        return TcpFrameSource(parts.hostname, parts.port)
    if scheme == "camera":
        target = url.split(":", 1)[1]
        return CaptureSource(int(target) if target.isdigit() else target, live=True)
    if url.startswith("/dev/video"):
        return CaptureSource(url, live=True)
    if scheme in ("rtsp", "http", "https"):
        return CaptureSource(url, live=True)
    if scheme == "dir":
        return ImageDirSource(Path(url.split(":", 1)[1]), fps=fps)
    if scheme == "file":
        return CaptureSource(url.split(":", 1)[1], live=False, fps=fps)
    raise ValueError(
        f"{url!r}: the camera's URL is tcp://host:port, camera:N, /dev/videoN, rtsp://..., "
        "http://..., dir:FOLDER or file:VIDEO"
    )
