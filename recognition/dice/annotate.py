"""The picture shown to the dealer on a hold: the frame with what the recognizer saw drawn on it. Pure."""

from __future__ import annotations

import cv2
import numpy as np

from .vision import Reading

_OK = (60, 200, 60)
_BAD = (40, 40, 230)
_TRAY = (200, 160, 40)


def annotate(image: np.ndarray, reading: Reading, title: str | None = None) -> np.ndarray:
    """A copy of `image` with the tray, each die (its outline, face, colour and confidence; red when it is
    not fit to certify), its pips, and the reading's status and issues written across the top."""
    out = image.copy()
    w = out.shape[1]
    thick = max(1, round(w / 640))
    font = 0.45 * max(1.0, w / 1280) + 0.15
    if reading.tray:
        pts = np.round(np.array(reading.tray, np.float64)).astype(np.int32)
        cv2.polylines(out, [pts], True, _TRAY, thick, cv2.LINE_AA)
    for d in reading.dice:
        bad = d.problem is not None or d.face is None
        color = _BAD if bad else _OK
        box = np.round(np.array(d.corners, np.float64)).astype(np.int32)
        cv2.polylines(out, [box], True, color, thick + 1, cv2.LINE_AA)
        for px, py in d.pips:
            cv2.circle(out, (round(px), round(py)), max(2, thick + 1), color, -1, cv2.LINE_AA)
        label = f"{d.face if d.face is not None else '?'} {d.color} {d.confidence:.0%}"
        if d.problem:
            label += f" {d.problem}"
        x = int(min(box[:, 0].min(), w - 10))
        y = int(max(box[:, 1].min() - 6, 12))
        cv2.putText(out, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font, (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, label, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font, color, thick, cv2.LINE_AA)
    for issue in reading.issues:
        if issue.where is not None:
            cv2.circle(
                out,
                (int(issue.where[0]), int(issue.where[1])),
                int(20 * max(1, w / 1280)),
                _BAD,
                thick + 1,
                cv2.LINE_AA,
            )
    lines = [title] if title else []
    lines.append(f"{reading.status.upper()}: " + (", ".join(str(f) for f in reading.faces) or "no face read"))
    lines += [i.message for i in reading.issues[:4]]
    y = int(22 * max(1.0, w / 1280))
    for text in lines:
        cv2.putText(
            out, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, font * 1.1, (0, 0, 0), thick + 3, cv2.LINE_AA
        )
        cv2.putText(
            out,
            text,
            (10, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            font * 1.1,
            _OK if reading.ok and text == lines[-1] else (255, 255, 255),
            thick,
            cv2.LINE_AA,
        )
        y += int(22 * max(1.0, w / 1280))
    return out


def encode_png(image: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", image)
    if not ok:  # pragma: no cover
        raise ValueError("could not encode the picture")
    return buf.tobytes()


def encode_jpeg(image: np.ndarray, quality: int = 85) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover
        raise ValueError("could not encode the picture")
    return buf.tobytes()
