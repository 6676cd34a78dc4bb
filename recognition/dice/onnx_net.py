"""An ONNX network run through OpenCV's DNN module, loaded once per thread (a cv2.dnn.Net is not
thread-safe; the judges prepare frames on worker threads)."""

from __future__ import annotations

import threading
from pathlib import Path

import cv2


class OnnxNet:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    def get(self) -> cv2.dnn.Net:
        """This thread's network, read from `path` the first time the thread asks."""
        net = getattr(self._local, "net", None)
        if net is None:
            net = cv2.dnn.readNetFromONNX(str(self.path))
            self._local.net = net
        return net
