"""Where a camera's frames come from: a URL names the source. One transport for every camera device.

==========================  ================================================================
URL                         source
==========================  ================================================================
``tcp://HOST:PORT``         a *frame stream* server (a simulator, or a camera bridge):
                            length-prefixed frames, see below. Live: reconnects.
``camera:N``, ``N``,        ``cv2.VideoCapture`` on a local camera (index N or a V4L2 path).
``/dev/videoN``             Live: reconnects.
``rtsp://``, ``http(s)://`` ``cv2.VideoCapture`` on a network camera. Live: reconnects.
``dir:PATH`` or a folder    the images of a folder in name order (png, jpg, bmp, tif, ppm, pgm).
                            Finite: ends after the last one.
``file:PATH`` or a file     a video file through ``cv2.VideoCapture``. Finite.
==========================  ================================================================

Frame stream (one TCP connection, the server sends, the client only reads): each frame is a
28-byte header then the body. Header, big-endian: ``b"SHFR"``, version (u8, 1), encoding (u8:
0 raw pixels, 1 an encoded image: PNG or JPEG, decoded with ``cv2.imdecode``), channels (u8: 1 grey,
3 BGR), reserved (u8, 0), width (u16), height (u16), sequence number (u32, +1 per frame, wraps),
capture time (u64, microseconds on the sender's monotonic clock; 0: unknown), body length (u32).
A raw body is ``height * width * channels`` bytes, rows top to bottom, BGR order. A header that
does not start with the magic, a frame of no pixels (width or height 0), a body over 64 MiB or an image body
that does not decode ends the connection (a byte stream cannot be
resynchronised safely). Senders build frames with :func:`pack_frame`.

Every source gives frames with a time in seconds: the sender's capture time for a frame stream
that sends one (so a slow network or a busy decoder does not squeeze the time between two reads),
else the monotonic clock when a live frame arrived; the frame's position for a video file or a
folder (``fps`` option: a folder's default 30, a video's default its own rate), so repeated reads
fold the same way whether a recording is replayed at full speed or in real time.

A source gives images as they come (grey, BGR or BGRA) unless opened with ``bgr=True``: then
every image is 3-channel BGR, for readers that work on colour.
"""

from __future__ import annotations

import os
import socket
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import numpy as np

__all__ = [
    "ENC_IMAGE",
    "ENC_RAW",
    "HEADER",
    "IMAGE_SUFFIXES",
    "MAGIC",
    "MAX_BODY",
    "CaptureSource",
    "Frame",
    "FrameSource",
    "FrameStreamError",
    "ImageDirSource",
    "SourceEnded",
    "SourceError",
    "TcpFrameSource",
    "VideoFileSource",
    "as_bgr",
    "open_capture",
    "open_source",
    "pack_frame",
]

MAGIC = b"SHFR"
VERSION = 1
HEADER = struct.Struct(">4sBBBBHHIQI")
ENC_RAW = 0
ENC_IMAGE = 1
MAX_BODY = 64 * 1024 * 1024
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".ppm", ".pgm")


class SourceError(OSError):
    """The source failed or dropped: a live source is reopened, with backoff."""


class SourceEnded(Exception):
    """A finite source (a file, a folder) has no more frames."""


class FrameStreamError(SourceError):
    """The frame stream broke its format: the connection is dropped."""


def pack_frame(image: np.ndarray, seq: int, *, encoded: bytes | None = None, timestamp_us: int = 0) -> bytes:
    """One frame on the wire (raw pixels, or ``encoded`` PNG/JPEG bytes of ``image``)."""
    h, w = image.shape[:2]
    ch = 1 if image.ndim == 2 else image.shape[2]
    if encoded is not None:
        body, enc = encoded, ENC_IMAGE
    else:
        body, enc = np.ascontiguousarray(image, dtype=np.uint8).tobytes(), ENC_RAW
    stamp = timestamp_us & 0xFFFFFFFFFFFFFFFF
    return HEADER.pack(MAGIC, VERSION, enc, ch, 0, w, h, seq & 0xFFFFFFFF, stamp, len(body)) + body


def as_bgr(image: np.ndarray) -> np.ndarray:
    """``image`` as 3-channel BGR (grey and BGRA converted, BGR as is)."""
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    import cv2

    if image.ndim == 2 or image.shape[2] == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)


def open_capture(target: int | str, *, open_timeout_s: float = 5.0, read_timeout_s: float = 2.0) -> Any:
    """``cv2.VideoCapture`` on a camera index, a V4L2 device path, a network URL or a video file.

    A network stream or a file goes through FFmpeg with open and read timeouts, so that a dead stream
    fails a read within ``read_timeout_s`` instead of blocking the reader for FFmpeg's default of
    about 30 s. The capture may not be open: the caller checks ``isOpened()``."""
    import cv2

    if isinstance(target, int):
        return cv2.VideoCapture(target, cv2.CAP_ANY)
    if target.startswith("/dev/video"):
        return cv2.VideoCapture(target, cv2.CAP_V4L2)
    params = [
        cv2.CAP_PROP_OPEN_TIMEOUT_MSEC,
        int(open_timeout_s * 1000),
        cv2.CAP_PROP_READ_TIMEOUT_MSEC,
        int(read_timeout_s * 1000),
    ]
    return cv2.VideoCapture(target, cv2.CAP_FFMPEG, params)


@dataclass(frozen=True, slots=True)
class Frame:
    image: np.ndarray
    #: seconds: capture or arrival time (live) or position in the recording (finite)
    t: float
    #: 1 for the first frame the source gave since it was opened
    index: int
    #: the stream's own position in ms (a video file, a network stream), where it has one
    stream_ms: float | None = None


class FrameSource(Protocol):
    url: str
    finite: bool

    @property
    def missed(self) -> int | None:
        """Frames the source knows it lost on the way (a frame stream's sequence gaps); None: it cannot tell."""
        ...

    def open(self) -> None: ...

    def read(self, timeout: float) -> Frame | None:
        """The next frame; None if none came within ``timeout``; SourceError / SourceEnded."""
        ...

    def close(self) -> None: ...


class _Source:
    """What every source shares: its URL and the optional conversion to BGR."""

    finite = False
    missed: int | None = None

    def __init__(self, url: str, *, bgr: bool = False) -> None:
        self.url = url
        self.bgr = bgr

    def _frame(self, image: np.ndarray, t: float, index: int, stream_ms: float | None = None) -> Frame:
        return Frame(as_bgr(image) if self.bgr else image, t, index, stream_ms)


class TcpFrameSource(_Source):
    def __init__(
        self, url: str, host: str, port: int, connect_timeout: float = 2.0, *, bgr: bool = False
    ) -> None:
        super().__init__(url, bgr=bgr)
        self.host, self.port = host, port
        self.connect_timeout = connect_timeout
        self._sock: socket.socket | None = None
        self._buf = bytearray()
        self._index = 0
        #: frames the sender numbered but we never got (sequence gaps)
        self.missed: int = 0
        self._last_seq: int | None = None

    def open(self) -> None:
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
        except OSError as exc:
            raise SourceError(f"cannot connect to the frame stream {self.host}:{self.port}: {exc}") from exc
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 * 1024 * 1024)
        self._sock = sock
        self._buf.clear()
        self._last_seq = None

    def _fill(self, n: int, deadline: float) -> bool:
        sock = self._sock
        if sock is None:
            raise SourceError("the frame stream is closed")
        while len(self._buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            sock.settimeout(left)
            try:
                chunk = sock.recv(max(n - len(self._buf), 1 << 20))
            except TimeoutError:
                return False
            except OSError as exc:
                raise SourceError(f"frame stream read failed: {exc}") from exc
            if not chunk:
                raise SourceError("the frame stream closed the connection")
            self._buf += chunk
        return True

    def read(self, timeout: float) -> Frame | None:
        deadline = time.monotonic() + timeout
        if not self._fill(HEADER.size, deadline):
            return None
        magic, version, enc, ch, _, w, h, seq, stamp, length = HEADER.unpack_from(self._buf)
        if magic != MAGIC or version != VERSION:
            raise FrameStreamError(
                f"bad frame header (not a frame stream header: {bytes(self._buf[: HEADER.size])!r})"
            )
        if length > MAX_BODY or ch not in (1, 3, 4) or enc not in (ENC_RAW, ENC_IMAGE):
            raise FrameStreamError(f"bad frame header: encoding {enc}, {ch} channels, {length} bytes")
        if w == 0 or h == 0:
            raise FrameStreamError(f"bad frame header: a frame of {w}x{h} pixels")
        if enc == ENC_RAW and length != w * h * ch:
            raise FrameStreamError(f"bad frame header: raw frame of {w}x{h}x{ch} announced {length} bytes")
        # the body is waited for whatever the timeout: a header without its body is a broken stream
        if not self._fill(HEADER.size + length, time.monotonic() + max(timeout, 5.0)):
            raise FrameStreamError("frame body did not arrive within 5 s")
        body = bytes(self._buf[HEADER.size : HEADER.size + length])
        del self._buf[: HEADER.size + length]
        image: np.ndarray | None
        if enc == ENC_RAW:
            image = np.frombuffer(body, np.uint8).reshape((h, w) if ch == 1 else (h, w, ch))
        else:
            import cv2

            try:
                image = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_UNCHANGED)
            except cv2.error:  # an empty body (OpenCV asserts on it), a decoder's refusal
                image = None
        if image is None or image.size == 0:
            raise FrameStreamError("an encoded frame could not be decoded")
        if self._last_seq is not None:
            self.missed += (seq - self._last_seq - 1) & 0xFFFFFFFF
        self._last_seq = seq
        self._index += 1
        return self._frame(image, stamp / 1e6 if stamp else time.monotonic(), self._index)

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # a reader blocked in recv on another thread wakes up
            except OSError:
                pass
            sock.close()


class CaptureSource(_Source):
    """cv2.VideoCapture on a camera index, a V4L2 device path or a network URL (live).

    A network stream fails a read after ``read_timeout_s`` without a frame (see :func:`open_capture`)."""

    def __init__(
        self,
        url: str,
        target: int | str,
        *,
        bgr: bool = False,
        open_timeout_s: float = 5.0,
        read_timeout_s: float = 2.0,
    ) -> None:
        super().__init__(url, bgr=bgr)
        self.target = target
        self.open_timeout_s, self.read_timeout_s = open_timeout_s, read_timeout_s
        self._cap: Any = None
        self._index = 0

    def open(self) -> None:
        cap = open_capture(
            self.target, open_timeout_s=self.open_timeout_s, read_timeout_s=self.read_timeout_s
        )
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cv2.VideoCapture cannot open {self.target!r}")
        self._cap = cap

    def read(self, timeout: float) -> Frame | None:
        if self._cap is None:
            raise SourceError("not open")
        ok, image = self._cap.read()  # blocks for at most one frame interval on a working camera
        if not ok or image is None:
            raise SourceError("the camera returned no frame (unplugged or stream dropped)")
        self._index += 1
        return self._frame(image, time.monotonic(), self._index, self._position_ms())

    def _position_ms(self) -> float | None:
        if isinstance(self.target, int) or self.target.startswith("/dev/"):
            return None  # a local camera has no stream clock
        import cv2

        ms = self._cap.get(cv2.CAP_PROP_POS_MSEC)
        return float(ms) if ms and ms > 0 else None

    def close(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()


class ImageDirSource(_Source):
    """The images of a folder, in name order, timed at ``fps`` frames a second (finite).

    A file that does not decode is passed over (counted in ``skipped``): a folder is a recording,
    and failing on one file would replay it from the start."""

    finite = True

    def __init__(self, url: str, path: Path, fps: float = 30.0, *, bgr: bool = False) -> None:
        super().__init__(url, bgr=bgr)
        self.path = path
        self.fps = fps
        self._files: list[Path] = []
        self._next = 0
        self.skipped = 0

    def open(self) -> None:
        if not self.path.is_dir():
            raise SourceError(f"{self.path} is not a folder")
        self._files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        self._next = 0

    def read(self, timeout: float) -> Frame | None:
        import cv2

        while self._next < len(self._files):
            path = self._files[self._next]
            self._next += 1
            image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
            if image is not None:
                return self._frame(image, self._next / self.fps, self._next)
            self.skipped += 1
        raise SourceEnded(f"{self.path}: no more images")

    def close(self) -> None:
        self._files = []


class VideoFileSource(_Source):
    """A video file through cv2.VideoCapture (finite), timed at ``fps`` (default: the file's own)."""

    finite = True

    def __init__(self, url: str, path: Path, fps: float | None = None, *, bgr: bool = False) -> None:
        super().__init__(url, bgr=bgr)
        self.path = path
        self.fps = fps
        self._cap: Any = None
        self._index = 0

    def open(self) -> None:
        import cv2

        if not self.path.is_file():
            raise SourceError(f"{self.path}: no such file")
        cap = open_capture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cv2.VideoCapture cannot open {self.path}")
        self._cap = cap
        self._index = 0
        if self.fps is None:
            self.fps = cap.get(cv2.CAP_PROP_FPS) or 30.0

    def read(self, timeout: float) -> Frame | None:
        if self._cap is None:
            raise SourceError("not open")
        import cv2

        ok, image = self._cap.read()
        if not ok or image is None:
            raise SourceEnded(f"{self.path}: end of video")
        self._index += 1
        ms = self._cap.get(cv2.CAP_PROP_POS_MSEC)
        return self._frame(
            image, self._index / float(self.fps or 30.0), self._index, float(ms) if ms and ms > 0 else None
        )

    def close(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()


def open_source(url: str, *, fps: float | None = None, bgr: bool = False) -> FrameSource:
    """The source a URL names (not opened yet); ValueError if the URL names none.

    ``fps``: the frame rate of a folder (default 30) or a video file (default: the file's own);
    ``bgr``: every image as 3-channel BGR."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "tcp":
        if not parts.hostname or not parts.port:
            raise ValueError(f"{url!r}: a frame stream URL is tcp://HOST:PORT")
        return TcpFrameSource(url, parts.hostname, parts.port, bgr=bgr)
    if scheme in ("rtsp", "rtsps", "http", "https"):
        return CaptureSource(url, url, bgr=bgr)
    if scheme == "camera":
        target = url.split(":", 1)[1]
        return CaptureSource(url, int(target) if target.isdigit() else target, bgr=bgr)
    if url.isdigit():
        return CaptureSource(url, int(url), bgr=bgr)
    if scheme == "dir":
        return ImageDirSource(url, Path(url.split(":", 1)[1]), fps or 30.0, bgr=bgr)
    if scheme == "file":
        file = parts.path if parts.netloc == "" and url.startswith("file://") else url.split(":", 1)[1]
        return VideoFileSource(url, Path(file), fps, bgr=bgr)
    if url.startswith("/dev/"):
        return CaptureSource(url, url, bgr=bgr)
    if scheme and len(scheme) > 1:
        raise ValueError(
            f"{url!r}: unknown frame source URL scheme {scheme!r} "
            "(tcp://, camera:, rtsp://, http(s)://, dir:, file:, or a path)"
        )
    path = Path(url)
    if path.is_dir():
        return ImageDirSource(url, path, fps or 30.0, bgr=bgr)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        raise ValueError(f"{url!r}: one image is not a frame source; give its folder")
    if path.exists() or os.sep in url or path.suffix:
        return VideoFileSource(url, path, fps, bgr=bgr)
    raise ValueError(
        f"{url!r}: not a frame source URL (tcp://HOST:PORT, camera:N, rtsp://..., a folder or a video file)"
    )
