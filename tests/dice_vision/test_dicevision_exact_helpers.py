"""The recognizer's fast helpers give numpy's and OpenCV's own results to the last bit (they replace slower
calls on the speed path; a reading must not change by a bit through them)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from recognition.dice.calibration import BLUE, RED, WHITE, YELLOW
from recognition.dice.vision import _channel_medians, _color_mask, _percentiles


def test_channel_medians_are_numpys_median_of_the_selected_pixels() -> None:
    rng = np.random.default_rng(2026)
    for i in range(400):
        h, w = (int(v) for v in rng.integers(3, 50, 2))
        frame = rng.integers(0, 256, (h + 4, w + 5, 3), dtype=np.uint8)
        if i % 3 == 1:
            frame = (frame // 60 * 60).astype(np.uint8)  # many equal values: the halfway point of two
        img = frame[2 : 2 + h, 3 : 3 + w]  # a window of a larger picture, as a die's box is
        sel = rng.random((h, w)) < rng.uniform(0.05, 1.0)
        if not sel.any():
            continue
        want = np.median(img.astype(np.float32)[sel], axis=0)
        got = _channel_medians(img, sel)
        assert got.dtype == want.dtype and np.array_equal(got, want), (i, got, want)


def test_percentiles_are_numpys_linear_percentiles() -> None:
    rng = np.random.default_rng(7)
    for i in range(400):
        n = int(rng.integers(1, 2500))
        values = np.sqrt(
            rng.integers(0, 3 * 255 * 255, n).astype(np.float32) / 4
        )  # distances in colour, as a die's
        if i % 2:
            values = (rng.random(n) * 300).astype(np.float32)
        qs = (40, 99.3) if i % 3 else (0.0, 50.0, 100.0, float(rng.uniform(0, 100)))
        assert _percentiles(values, qs) == [float(v) for v in np.percentile(values, qs)], (i, n, qs)


@pytest.mark.parametrize("color", [WHITE, RED, BLUE, YELLOW], ids=lambda c: c.name)
@pytest.mark.parametrize("lenient", [False, True])
def test_colour_mask_from_planes_is_the_three_channel_box(color, lenient) -> None:
    rng = np.random.default_rng(13)
    hsv = np.dstack(
        [rng.integers(0, 180, (64, 96)), rng.integers(0, 256, (64, 96)), rng.integers(0, 256, (64, 96))]
    ).astype(np.uint8)
    felt_v = rng.integers(20, 200, (64, 96)).astype(np.uint8)
    s_lo, s_hi = color.saturation
    v_lo, v_hi = color.value
    if lenient:
        s_lo, v_lo = int(s_lo * 0.7), int(v_lo * 0.55)
    hue = color.hue or (0, 180)
    if hue[0] <= hue[1]:
        want = cv2.inRange(hsv, (hue[0], s_lo, v_lo), (hue[1], s_hi, v_hi))
    else:
        want = cv2.inRange(hsv, (hue[0], s_lo, v_lo), (180, s_hi, v_hi)) | cv2.inRange(
            hsv, (0, s_lo, v_lo), (hue[1], s_hi, v_hi)
        )
    if color.brightness is not None:
        k = color.brightness if not lenient else 1 + (color.brightness - 1) * 0.55
        want &= cv2.compare(hsv[..., 2], cv2.convertScaleAbs(felt_v, alpha=k), cv2.CMP_GT)
    got = _color_mask(cv2.split(hsv), felt_v, color, lenient=lenient)
    assert 0 < cv2.countNonZero(want) < want.size  # the box cuts this picture
    assert np.array_equal(got, want)
