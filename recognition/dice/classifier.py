"""The learned reader of a die's upper face: a small CNN on the die crop, run through OpenCV's DNN module.

The network (trained by ``training/dice/train.py``, weights in ``recognition/dice/model/dice_face.onnx``)
sees the crop in grey, 32x32, each crop scaled to zero mean and unit spread (so light and exposure do
not matter), and gives seven probabilities: faces 1-6 and "not a clean upper face" (a cocked or
stacked die, a side face, something that is not a die). No training framework is needed to run it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

MODEL = Path(__file__).resolve().parent / "model" / "dice_face.onnx"
INPUT = 32
#: the classes the network gives, in order; index 0-5: faces 1-6
CLASSES = ("1", "2", "3", "4", "5", "6", "reject")


@dataclass(frozen=True)
class FaceGuess:
    face: int | None  # None: the network says this is not a clean upper face
    probability: float


def prepare(crops: list[np.ndarray]) -> np.ndarray:
    """The network's input for BGR crops: (N, 1, INPUT, INPUT) float32, each crop normalised."""
    out = np.empty((len(crops), 1, INPUT, INPUT), np.float32)
    for i, c in enumerate(crops):
        g = cv2.resize(cv2.cvtColor(c, cv2.COLOR_BGR2GRAY), (INPUT, INPUT), interpolation=cv2.INTER_AREA)
        g = g.astype(np.float32)
        out[i, 0] = (g - g.mean()) / (g.std() + 8.0)
    return out


class FaceClassifier:
    """The ONNX network, loaded once; :meth:`classify` is thread-safe (one network per thread)."""

    def __init__(self, path: Path = MODEL) -> None:
        self.path = path
        self._local = threading.local()

    def _net(self) -> cv2.dnn.Net:
        net = getattr(self._local, "net", None)
        if net is None:
            net = cv2.dnn.readNetFromONNX(str(self.path))
            self._local.net = net
        return net

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """(N, 7) class probabilities for BGR crops: the mean over the crop's four quarter turns (a
        die's face is the same face turned; the mean steadies the network's answer)."""
        if not crops:
            return np.zeros((0, len(CLASSES)), np.float32)
        net = self._net()
        x = prepare(crops)
        turns = np.concatenate([np.rot90(x, k, axes=(2, 3)) for k in range(4)])
        net.setInput(np.ascontiguousarray(turns))
        logits = net.forward().reshape(4, len(crops), len(CLASSES)).astype(np.float64)
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
