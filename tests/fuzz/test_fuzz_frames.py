"""Fuzz the dice camera's frame stream reader (devices/camera/frames.py) over a real socket pair."""

from __future__ import annotations

from fixture_files import ss2_capture
from fuzz_strategies import fuzz, inputs
from fuzz_targets import all_targets
from fuzz_wire import check_frames
from hypothesis import example, given

from devices.camera.frames import HEADER, MAGIC

TARGETS = all_targets(ss2_capture())


@fuzz(800)
@given(inputs(TARGETS["frames"]))
# found by the fuzzer: an encoded frame with an empty body raised OpenCV's cv2.error, not a FrameStreamError
@example(HEADER.pack(MAGIC, 1, 1, 3, 0, 2, 2, 0, 0, 0))
# found by the fuzzer: frames of 0 pixels (width or height 0) came out as empty images
@example(HEADER.pack(MAGIC, 1, 0, 1, 0, 4, 0, 1, 0, 0))
@example(
    HEADER.pack(MAGIC, 1, 0, 3, 0, 0, 512, 1, 0, 0) + HEADER.pack(MAGIC, 1, 0, 1, 0, 1, 1, 2, 0, 1) + b"x"
)
def test_fuzz_frames(data: bytes) -> None:
    check_frames(data)
