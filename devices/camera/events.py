"""Events of a camera watching a dice tray.

A camera delivers 25-60 frames a second; the studio journals every device event, so
the driver emits a :class:`CameraFrame` only at a modest rate (see
:class:`devices.camera.driver.CameraDriver`): while something moves and for a few
seconds after (``sample_fps``, 5 a second by default), then one every
``heartbeat_s`` (2 s) while the picture stays still. Each event carries the picture
itself in ``image`` for the judge, which is excluded from ``model_dump()``: the
journal keeps the frame's number, times and motion figures, never the pixels.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from ..events import DeviceEvent

FrameReason = Literal["first", "motion", "settling", "still", "requested"]


class CameraFrame(DeviceEvent):
    """One sampled frame of a camera.

    `frame_number` counts every frame the driver received since it started (across
    reconnects), so the gaps between two events show how many frames were skipped.
    `captured_at` is when the frame arrived (the stream's own clock is not trusted
    across cameras); `stream_ms` is the stream's timestamp where it has one (video
    files, RTSP). `motion` is the largest fraction of the picture (0-1) that changed
    between two consecutive frames since the previous event; `moving` is whether any
    of those frames moved more than the driver's threshold; `still_frames` how many
    consecutive frames up to this one did not move. `image` is the BGR picture
    (numpy uint8, height x width x 3); it is never journaled.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    kind: Literal["camera_frame"] = "camera_frame"
    frame_number: int
    captured_at: datetime
    stream_ms: float | None = None
    width: int
    height: int
    motion: float = Field(ge=0, le=1)
    moving: bool
    still_frames: int = Field(ge=0)
    reason: FrameReason
    image: Any = Field(default=None, exclude=True, repr=False)

    @property
    def frame_id(self) -> str:
        """ "<device id>#<frame number>": how the judge and the dealer's screen refer to this frame."""
        return f"{self.device_id}#{self.frame_number}"


class CameraStatus(DeviceEvent):
    """The stream's shape or health changed: frame size, frame rate, or a frozen picture.

    Emitted on change only. `frozen` is true when the camera keeps sending the very same
    picture (a stuck encoder): the driver then reconnects, as after a drop.
    """

    kind: Literal["camera_status"] = "camera_status"
    width: int
    height: int
    fps: float
    frozen: bool = False
    detail: str = ""
