"""Find the dice in a frame with a small learned detector, run through OpenCV's DNN module.

The network (trained by ``training/dice/detect.py``, weights in ``recognition/dice/model/dice_detect.onnx``)
is a CenterNet: it sees the frame in colour, scaled so a die is about :data:`WORK_DIE` pixels, and gives at
stride 4 a heatmap of die centres (a flat die; a die that is not flat: cocked or leaning), each centre's
box size and sub-cell offset, and six logits of the upper face. Pure: a BGR image in, :class:`Detection` s
out; no training framework is needed to run it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .onnx_net import OnnxNet

MODEL = Path(__file__).resolve().parent / "model" / "dice_detect.onnx"
#: output channels: heatmap (flat, cocked), log box width and height over WORK_DIE, offset x, y, faces 1-6
CHANNELS = 12
STRIDE = 4
#: the die side the network sees best (input pixels): it was trained on sides from 8 to 40
WORK_DIE = 16.0
#: input sides are multiples of this (the network halves the picture four times)
_MULTIPLE = 16
#: without a calibrated die size the first look is at this long side (dice of 3 to 12 % of the frame)
_FIRST_LOOK = 256
#: the least heatmap peak taken for a die
PEAK = 0.25


@dataclass(frozen=True)
class Detection:
    center: tuple[float, float]  # frame pixels
    size: tuple[float, float]  # box width, height, frame pixels
    score: float  # the heatmap peak, either kind
    cocked: float  # the share of the peak that says "not flat" (0-1)
    faces: np.ndarray  # six probabilities of the upper face (the detector's own reading)


def prepare(image: np.ndarray, scale: float) -> tuple[np.ndarray, float, float]:
    """The network's input (1, 3, H, W) for a BGR image scaled by about `scale`, and the exact scales."""
    h, w = image.shape[:2]
    nw = max(_MULTIPLE, round(w * scale / _MULTIPLE) * _MULTIPLE)
    nh = max(_MULTIPLE, round(h * scale / _MULTIPLE) * _MULTIPLE)
    small = image
    while small.shape[1] >= 2 * nw and small.shape[0] >= 2 * nh:  # exact halvings first: OpenCV's quick path
        small = cv2.resize(small, (small.shape[1] // 2, small.shape[0] // 2), interpolation=cv2.INTER_AREA)
    small = cv2.resize(small, (nw, nh), interpolation=cv2.INTER_AREA)
    # (x - 127.5) / 255: the pixels in -0.5..0.5, as the network was trained
    x = cv2.dnn.blobFromImage(small, 1 / 255.0, mean=(127.5, 127.5, 127.5))
    return x, nw / w, nh / h


def decode(out: np.ndarray, sx: float, sy: float, peak: float = PEAK) -> list[Detection]:
    """Detections from the network's output (CHANNELS, H/4, W/4) for an input scaled by sx, sy."""
    heat2 = 1 / (1 + np.exp(-out[:2]))
    heat = heat2.max(0)
    top = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= top) & (heat >= peak))
    dets = []
    for y, x in zip(ys, xs, strict=True):
        cx = (x + out[4, y, x]) * STRIDE / sx
        cy = (y + out[5, y, x]) * STRIDE / sy
        bw = float(np.exp(out[2, y, x])) * WORK_DIE / sx
        bh = float(np.exp(out[3, y, x])) * WORK_DIE / sy
        f = out[6:12, y, x].astype(np.float64)
        p = np.exp(f - f.max())
        dets.append(
            Detection(
                center=(float(cx), float(cy)),
                size=(bw, bh),
                score=float(heat[y, x]),
                cocked=float(heat2[1, y, x] / (heat2[0, y, x] + heat2[1, y, x])),
                faces=(p / p.sum()).astype(np.float32),
            )
        )
    return dets


class DiceDetector:
    """The ONNX detector, loaded once; :meth:`detect` is thread-safe (one network per thread)."""

    def __init__(self, path: Path = MODEL) -> None:
        self.path = path
        self._net = OnnxNet(path).get

    def run(self, image: np.ndarray, scale: float) -> list[Detection]:
        x, sx, sy = prepare(image, scale)
        net = self._net()
        net.setInput(x)
        return decode(net.forward()[0], sx, sy)

    def detect(self, image: np.ndarray, die_side: float | None = None) -> tuple[list[Detection], float]:
        """The dice in `image` and the scale they were found at. `die_side`: the calibrated side (frame
        pixels); without it a first look at a small copy measures the dice, and a second look at the
        scale that makes them WORK_DIE follows when the first was far off."""
        h, w = image.shape[:2]
        if die_side is not None:
            scale = WORK_DIE / die_side
            return self.run(image, scale), scale
        scale = _FIRST_LOOK / max(w, h)
        dets = self.run(image, scale)
        sure = [d for d in dets if d.score >= 0.5]
        if sure:
            side = float(np.median([np.sqrt(d.size[0] * d.size[1]) for d in sure])) * scale
            if not 0.75 <= side / WORK_DIE <= 1.33:
                scale = min(2.0, scale * WORK_DIE / side)
                dets = self.run(image, scale)
        return dets, scale


_default: DiceDetector | None = None
_lock = threading.Lock()


def default_detector() -> DiceDetector | None:
    """The committed model, or None when its file is missing."""
    global _default
    with _lock:
        if _default is None and MODEL.exists():
            _default = DiceDetector(MODEL)
        return _default
