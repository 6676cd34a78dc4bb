"""The video reference: where in a table's camera stream a journaled event or a feed message happened, so a
video archive can find the moment (UKGC RTS 17; a dispute over a result is settled on the video).

A broadcast studio's cameras take their timecode from the house clock (time-of-day timecode, SMPTE 12M:
HH:MM:SS:FF at the stream's frame rate, in the house's time zone). The studio's journal keeps its own clock
(UTC). A table with `[tables.video]` stamps each device event it journals and each feed message about its
rounds with the stream's name and the timecode of that moment: the studio's time, plus the measured offset of
the house clock from the studio's (`clock_offset_ms`, what a technician reads off a frame of a clock shown
to the camera), in the timecode's zone. Non-drop-frame: fractional rates (29.97) are given as their whole
number (30), which is how time-of-day timecode is kept.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class VideoSettings(BaseModel):
    """`[tables.video]`: the table's camera stream, for the video reference."""

    model_config = ConfigDict(extra="forbid")

    stream: str = Field(min_length=1, max_length=200, description="the stream's name or URL in the archive")
    fps: int = Field(25, ge=1, le=120, description="frames per second of its timecode")
    utc_offset_minutes: int = Field(0, ge=-14 * 60, le=14 * 60, description="the timecode's time zone")
    clock_offset_ms: float = Field(0.0, description="the house clock minus the studio's clock, measured")


def timecode(at: datetime, video: VideoSettings) -> str:
    """The stream's time-of-day timecode (HH:MM:SS:FF) at the studio's time `at`."""
    local = at + timedelta(minutes=video.utc_offset_minutes, milliseconds=video.clock_offset_ms)
    frame = min(video.fps - 1, int(local.microsecond * video.fps / 1_000_000))
    return f"{local:%H:%M:%S}:{frame:02d}"


def reference(at: datetime, video: VideoSettings | None) -> dict[str, Any] | None:
    """What a feed message or a device event carries: the stream and its timecode; None without a stream."""
    if video is None:
        return None
    return {"stream": video.stream, "timecode": timecode(at, video)}
