"""The learned reader of a die's upper face: a small CNN on the die crop, run through OpenCV's DNN module.

The network (trained by ``training/dice/train.py``, weights in ``recognition/dice/model/dice_face.onnx``)
sees the square round a found die (:func:`crop_die`: the die's box and a margin) in colour, 32x32, each
crop scaled to zero mean and unit spread (so light and exposure matter little), and gives seven
probabilities: faces 1-6 and "not a clean upper face" (a cocked or stacked die, a side face, a window
beside a die, something that is not a die). No training framework is needed to run it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .onnx_net import OnnxNet

MODEL = Path(__file__).resolve().parent / "model" / "dice_face.onnx"
INPUT = 32
#: the crop's side over the die box's longer side
MARGIN = 1.2
#: the classes the network gives, in order; index 0-5: faces 1-6
CLASSES = ("1", "2", "3", "4", "5", "6", "reject")


@dataclass(frozen=True)
class FaceGuess:
    face: int | None  # None: the network says this is not a clean upper face
    probability: float


def crop_die(image: np.ndarray, center: tuple[float, float], size: tuple[float, float]) -> np.ndarray:
    """The classifier's crop (INPUT x INPUT BGR): the square of MARGIN times the box's longer side round
    `center` (frame pixels), the picture's edge repeated beyond it."""
    side = max(4, round(MARGIN * max(size)))
    patch = cv2.getRectSubPix(image, (side, side), (float(center[0]), float(center[1])))
    return cv2.resize(patch, (INPUT, INPUT), interpolation=cv2.INTER_AREA)


def prepare(crops: list[np.ndarray]) -> np.ndarray:
    """The network's input for BGR crops (INPUT x INPUT): (N, 3, INPUT, INPUT) float32, each normalised."""
    x = np.stack(crops).astype(np.float32).transpose(0, 3, 1, 2)
    m = x.mean(axis=(1, 2, 3), keepdims=True)
    s = x.std(axis=(1, 2, 3), keepdims=True)
    return np.ascontiguousarray((x - m) / (s + 8.0))


class FaceClassifier:
    """The ONNX network, loaded once; :meth:`classify` is thread-safe (one network per thread)."""

    def __init__(self, path: Path = MODEL) -> None:
        self.path = path
        self._net = OnnxNet(path).get

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """(N, 7) class probabilities for crops: the mean over the crop and its quarter turn (a die's face
        is the same face turned; the mean steadies the answer)."""
        if not crops:
            return np.zeros((0, len(CLASSES)), np.float32)
        net = self._net()
        x = prepare(crops)
        turns = np.concatenate([x, np.rot90(x, 1, axes=(2, 3))])
        net.setInput(np.ascontiguousarray(turns))
        logits = net.forward().reshape(2, len(crops), len(CLASSES)).astype(np.float64)
        e = np.exp(logits - logits.max(2, keepdims=True))
        return (e / e.sum(2, keepdims=True)).mean(0).astype(np.float32)

    def classify(self, crops: list[np.ndarray]) -> list[FaceGuess]:
        out = []
        for p in self.probabilities(crops):
            k = int(np.argmax(p))
            out.append(FaceGuess(k + 1 if k < 6 else None, float(p[k])))
        return out


_default: FaceClassifier | None = None
_lock = threading.Lock()


def default_classifier() -> FaceClassifier | None:
    """The committed model, or None when its file is missing (then no die is certified)."""
    global _default
    with _lock:
        if _default is None and MODEL.exists():
            _default = FaceClassifier(MODEL)
        return _default
