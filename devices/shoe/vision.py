"""Camera shoe vision: find the card in a frame, straighten it, decode its barcode. Pure functions on arrays.

Pipeline for one frame (:class:`FrameAnalyzer`):

1. grey (one channel) and a 1/4-size copy;
2. card finding on the small copy: the card is the bright, card-shaped region against the shoe's
   dark inside (Otsu threshold, never below ``min_level``; external contours; a region counts
   when its area, fill of its rotated rectangle and aspect ratio fit a playing card). A region
   touching the frame's edge is a card entering or leaving ("partial");
3. straightening: each card's rotated rectangle is warped to an upright crop (long side
   horizontal) at full resolution, so the barcode's bars stand square to the decoder's scan lines
   (rotations up to +-30 degrees otherwise cost a 1D decoder a third of its reads);
4. decoding the crop with the decoder restricted to the configured symbology; if nothing is read
   and ``full_frame_fallback`` is on, the whole grey frame is decoded as well.

The result is an :class:`Observation`: "card" (a whole card in view), "partial" or "empty", and
the payloads read, each with the x of the card it came from (to order two new cards of one frame).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import cv2
import numpy as np

from .vendor_table import SYMBOLOGIES

__all__ = [
    "DECODERS",
    "CardRegion",
    "Decoder",
    "FrameAnalyzer",
    "Observation",
    "PyzbarDecoder",
    "Read",
    "ZxingDecoder",
    "find_cards",
    "make_decoder",
    "straighten",
    "to_gray",
]

State = Literal["card", "partial", "empty"]


@dataclass(frozen=True, slots=True)
class Read:
    text: str
    symbology: str
    #: x of the read's centre in the frame (pixels), to order two cards read in one frame
    x: float = 0.0


@dataclass(frozen=True, slots=True)
class CardRegion:
    """A card-like region: rotated rectangle in full-frame pixels."""

    center: tuple[float, float]
    size: tuple[float, float]  # (long side, short side)
    angle: float  # degrees, rotation of the long side from the x axis
    touches_border: bool
    area: float  # pixels of the region (full scale)


@dataclass(frozen=True, slots=True)
class Observation:
    state: State
    reads: tuple[Read, ...] = ()
    cards: tuple[CardRegion, ...] = ()
    #: where the read came from: "crop", "frame" (the full-frame fallback) or "" (nothing read)
    source: str = ""


# --------------------------------------------------------------------------- decoders


class Decoder(Protocol):
    name: str
    symbology: str

    def decode(self, gray: np.ndarray) -> list[tuple[str, float, float]]:
        """Payloads read in a grey image, each with its centre (x, y) in that image."""
        ...


class ZxingDecoder:
    """zxing-cpp, restricted to one symbology (about 25x faster than all formats)."""

    name = "zxing"

    def __init__(self, symbology: str = "code128") -> None:
        import zxingcpp

        self._zx = zxingcpp
        self.symbology = symbology
        self.format = {
            "code128": zxingcpp.BarcodeFormat.Code128,
            "qr": zxingcpp.BarcodeFormat.QRCode,
            "datamatrix": zxingcpp.BarcodeFormat.DataMatrix,
        }[symbology]
        self._kwargs: dict[str, Any] = {"formats": self.format, "try_invert": False}
        # zxing-cpp's version, not an ability of ours: 2.x has no TextMode and no Result.valid
        text_mode = getattr(zxingcpp, "TextMode", None)
        if text_mode is not None and hasattr(text_mode, "Plain"):
            self._kwargs["text_mode"] = text_mode.Plain  # the payload as encoded, no GS1/HRI rewriting

    def decode(self, gray: np.ndarray) -> list[tuple[str, float, float]]:
        out = []
        for r in self._zx.read_barcodes(gray, **self._kwargs):
            if r.format != self.format or (hasattr(r, "valid") and not r.valid):
                continue
            p = r.position
            xs = (p.top_left.x, p.top_right.x, p.bottom_right.x, p.bottom_left.x)
            ys = (p.top_left.y, p.top_right.y, p.bottom_right.y, p.bottom_left.y)
            out.append((r.text, sum(xs) / 4, sum(ys) / 4))
        return out


class PyzbarDecoder:
    """ZBar through pyzbar, restricted to one symbology. ZBar cannot read DataMatrix."""

    name = "pyzbar"

    def __init__(self, symbology: str = "code128") -> None:
        from pyzbar import pyzbar  # needs Debian's libzbar0

        symbols = {"code128": pyzbar.ZBarSymbol.CODE128, "qr": pyzbar.ZBarSymbol.QRCODE}
        if symbology not in symbols:
            raise ValueError(f"decoder 'pyzbar' cannot read {symbology}; use decoder = 'zxing'")
        self._pz = pyzbar
        self.symbology = symbology
        self._symbols = [symbols[symbology]]
        self._type = {"code128": "CODE128", "qr": "QRCODE"}[symbology]

    def decode(self, gray: np.ndarray) -> list[tuple[str, float, float]]:
        """ZBar reads blurred bars badly from grey levels: it is given a binarised image, global
        (Otsu) first, then local (mean of 31x31, for glare) if that read nothing."""
        _, binary = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        out = self._decode(binary)
        if not out:
            out = self._decode(
                cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 31, 5)
            )
        return out

    def _decode(self, gray: np.ndarray) -> list[tuple[str, float, float]]:
        out = []
        gray = np.ascontiguousarray(gray)
        for r in self._pz.decode(gray, symbols=self._symbols):
            if r.type != self._type:
                continue
            try:
                text = r.data.decode("ascii")
            except UnicodeDecodeError:
                text = r.data.decode("latin-1")
            rect = r.rect
            out.append((text, rect.left + rect.width / 2, rect.top + rect.height / 2))
        return out


DECODERS: dict[str, Callable[[str], Decoder]] = {
    "zxing": ZxingDecoder,
    "zxing-cpp": ZxingDecoder,
    "pyzbar": PyzbarDecoder,
}


def make_decoder(name: str, symbology: str) -> Decoder:
    if symbology not in SYMBOLOGIES:
        raise ValueError(f"symbology {symbology!r}: one of {', '.join(SYMBOLOGIES)}")
    try:
        cls = DECODERS[name]
    except KeyError:
        raise ValueError(f"decoder {name!r}: one of zxing, pyzbar") from None
    return cls(symbology)


# --------------------------------------------------------------------------- card finding


def to_gray(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2:
        return frame
    if frame.shape[2] == 1:
        return frame[:, :, 0]
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY)
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def find_cards(
    gray: np.ndarray,
    *,
    scale: int = 4,
    min_level: int = 90,
    min_area: float = 0.02,
    max_area: float = 0.9,
    min_fill: float = 0.8,
    aspect: tuple[float, float] = (1.15, 1.75),
) -> list[CardRegion]:
    """Bright card-shaped regions of a grey frame, largest first.

    ``min_area``/``max_area`` are fractions of the frame; ``min_fill`` and ``aspect`` (long/short
    side) apply to a whole card; a bright region touching the edge is kept whatever its shape, as a
    card entering or leaving the view.
    """
    h, w = gray.shape[:2]
    small = cv2.resize(gray, (max(1, w // scale), max(1, h // scale)), interpolation=cv2.INTER_AREA)
    level, _ = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    _, mask = cv2.threshold(small, max(level, min_level), 255, cv2.THRESH_BINARY)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    sh, sw = mask.shape
    total = float(sh * sw)
    out: list[CardRegion] = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < min_area * total or area > max_area * total:
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(c)
        if rw < 1 or rh < 1:
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        touches = x <= 1 or y <= 1 or x + bw >= sw - 1 or y + bh >= sh - 1
        long_side, short_side = max(rw, rh), min(rw, rh)
        # a whole card fills its rectangle and has a card's proportions; one cut by the edge may not
        if not touches and (
            area < min_fill * rw * rh or not aspect[0] <= long_side / short_side <= aspect[1]
        ):
            continue
        if rh > rw:  # make `angle` the direction of the long side
            angle += 90.0
        angle = (angle + 90.0) % 180.0 - 90.0
        out.append(
            CardRegion(
                center=((cx + 0.5) * scale - 0.5, (cy + 0.5) * scale - 0.5),
                size=(long_side * scale, short_side * scale),
                angle=angle,
                touches_border=touches,
                area=area * scale * scale,
            )
        )
    out.sort(key=lambda r: -r.area)
    return out


def straighten(gray: np.ndarray, region: CardRegion, margin: float = 0.06) -> tuple[np.ndarray, np.ndarray]:
    """The card cut out upright (long side horizontal), and the 2x3 matrix mapping crop -> frame."""
    (cx, cy), (lw, sw) = region.center, region.size
    cw, ch = math.ceil(lw * (1 + margin)), math.ceil(sw * (1 + margin))
    m = cv2.getRotationMatrix2D((cx, cy), region.angle, 1.0)
    m[0, 2] += cw / 2 - cx
    m[1, 2] += ch / 2 - cy
    crop = cv2.warpAffine(gray, m, (cw, ch), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return crop, cv2.invertAffineTransform(m)


@dataclass
class FrameAnalyzer:
    """Frame -> :class:`Observation`. Keeps no state between frames."""

    decoder: Decoder
    card_finding: bool = True
    #: decode the whole frame when the card crops gave nothing (or no card was found)
    full_frame_fallback: bool = True
    find_options: dict[str, Any] = field(default_factory=dict)

    def analyze(self, frame: np.ndarray) -> Observation:
        gray = to_gray(frame)
        cards: Sequence[CardRegion] = find_cards(gray, **self.find_options) if self.card_finding else ()
        reads: list[Read] = []
        seen: set[str] = set()
        for region in cards:
            crop, back = straighten(gray, region)
            for text, x, y in self.decoder.decode(crop):
                if text not in seen:
                    seen.add(text)
                    fx = back[0, 0] * x + back[0, 1] * y + back[0, 2]
                    reads.append(Read(text, self.decoder.symbology, float(fx)))
        source = "crop" if reads else ""
        if not reads and (self.full_frame_fallback or not self.card_finding):
            for text, x, _ in self.decoder.decode(gray):
                if text not in seen:
                    seen.add(text)
                    reads.append(Read(text, self.decoder.symbology, float(x)))
            source = "frame" if reads else ""
        if any(not c.touches_border for c in cards):
            state: State = "card"
        elif cards:
            state = "partial"
        else:
            state = "empty"
        return Observation(state, tuple(reads), tuple(cards), source)
