"""The dice simulator's motion blur: a long smear is turned, boxed and turned back instead of a line kernel's
filter2D (whose cost grows with the length squared). It must still be the same picture."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from simulators.dice import _SHORT_SMEAR, _smear


def line_kernel_smear(img, layer, mask, centre, vec, s) -> None:
    """The plain form: one filter2D with a normalised line kernel along the motion (a die's light that the
    motion carries out of the frame is gone, not mirrored back in)."""
    length = max(2, round(math.hypot(*vec)))
    pad = int(s * 1.2 + length)
    h, w = img.shape[:2]
    x0, y0 = max(0, int(centre[0]) - pad), max(0, int(centre[1]) - pad)
    x1, y1 = min(w, int(centre[0]) + pad), min(h, int(centre[1]) + pad)
    k = np.zeros((length * 2 + 1, length * 2 + 1), np.float32)
    a = math.atan2(vec[1], vec[0])
    dx, dy = round(math.cos(a) * length / 2), round(math.sin(a) * length / 2)
    cv2.line(k, (length - dx, length - dy), (length + dx, length + dy), 1.0, 1)
    k /= k.sum()
    lay = cv2.filter2D(layer[y0:y1, x0:x1], -1, k, borderType=cv2.BORDER_CONSTANT)
    m = cv2.filter2D(mask[y0:y1, x0:x1], -1, k, borderType=cv2.BORDER_CONSTANT)[..., None]
    img[y0:y1, x0:x1] = np.clip(img[y0:y1, x0:x1] * (1 - m) + lay, 0, 255).astype(np.uint8)


def scene(centre: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    img = rng.integers(60, 120, (360, 640, 3), dtype=np.uint8)  # felt with noise
    layer = np.zeros(img.shape, np.float32)
    mask = np.zeros(img.shape[:2], np.float32)
    x, y = centre
    cv2.rectangle(layer, (x - 20, y - 20), (x + 20, y + 20), (235, 230, 225), -1)  # a white die
    cv2.circle(layer, (x, y), 5, (20, 20, 20), -1)  # its pip
    cv2.rectangle(mask, (x - 20, y - 20), (x + 20, y + 20), 1.0, -1)
    return img, layer, mask


@pytest.mark.parametrize("length", [_SHORT_SMEAR + 1, 30, 80])
@pytest.mark.parametrize("degrees", [0, 30, 90, 135, 200])
@pytest.mark.parametrize("where", [(320, 180), (30, 25)], ids=["middle", "at-the-corner"])
def test_a_long_smear_is_the_line_kernels_picture(length, degrees, where):
    vec = (length * math.cos(math.radians(degrees)), length * math.sin(math.radians(degrees)))
    img, layer, mask = scene(where)
    ours, plain = img.copy(), img.copy()
    _smear(ours, layer, mask, np.array(where, float), vec, 40.0)
    line_kernel_smear(plain, layer, mask, np.array(where, float), vec, 40.0)
    diff = np.abs(ours.astype(int) - plain.astype(int))
    assert diff.mean() < 0.3 and np.percentile(diff, 99.9) <= 12, (diff.mean(), diff.max())
    # and it is a smear: the die's light spreads along the motion, not across it
    moved = np.abs(ours.astype(int) - img.astype(int)).sum(axis=2) > 30
    ys, xs = np.nonzero(moved)
    along = np.array([math.cos(math.radians(degrees)), math.sin(math.radians(degrees))])
    pts = np.stack([xs, ys], 1) - np.array(where)
    extent_along = np.ptp(pts @ along)
    extent_across = np.ptp(pts @ np.array([-along[1], along[0]]))
    if where == (320, 180):
        assert extent_along > extent_across + length * 0.6


def test_a_short_smear_is_the_line_kernel_itself():
    img, layer, mask = scene((320, 180))
    ours, plain = img.copy(), img.copy()
    _smear(ours, layer, mask, np.array((320.0, 180.0)), (6.0, 8.0), 40.0)
    line_kernel_smear(plain, layer, mask, np.array((320.0, 180.0)), (6.0, 8.0), 40.0)
    assert np.abs(ours.astype(int) - plain.astype(int)).max() <= 1  # (one filter2D of four channels)
