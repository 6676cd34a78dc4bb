"""Dealing shoe simulator: N shuffled decks (seeded, reproducible) dealt through a scanner or a camera.

Two transports, the wire protocols of the two shoe drivers (devices/shoe/):

* ``"serial"``: a barcode scanner on a raw pty. Each card is its payload as a text line
  (``1047293012\\r\\n``); the ``serial-shoe`` driver opens ``url`` (the pty's slave path).
* ``"camera"``: a camera inside the shoe. The simulator renders each card (corner indices and the
  payload's barcode in the vendor table's symbology) into 1280x720 frames with rotation up to
  +-30 degrees, scale, gain, glare, blur and sensor noise, sliding in, held, and sliding out, and
  serves the frames as a *frame stream* on a local TCP port (``tcp://127.0.0.1:PORT``, see
  devices/camera/frames.py): raw BGR (or grey) frames behind a 28-byte header with the frame's
  capture time, at ``fps`` frames a
  second, to one client at a time. Cards are dealt only while a client is watching (a dealer does
  not deal while the table is paused); idle frames show the empty, dark slot.

The shoe: ``decks`` packs of the vendor table's cards (52, plus jokers with ``jokers=True``), all
printed with the set serial ``shoe_serial`` and their pack number, shuffled with ``random.Random(seed)``;
the cut card (the table's special payload) sits at ``cut_card`` (fraction of the shoe; None: none).
When the shoe runs out it is reshuffled from the same generator. :attr:`ShoeSimulator.dealt`
is the truth (the cards that went by, in order: the newest ``simulators.history.KEEP`` at least) for tests.

Faults, on request for the next card (:meth:`ShoeSimulator.inject` or ``deal_card(..., fault=)``):

``unreadable``       the card's barcode cannot be read: the scanner sends its no-read message
                     (``no_read_message``; None: it sends nothing); the camera shows a card whose
                     barcode is smudged across its whole height.
``double_read``      the card is read twice: the scanner sends the line twice ``gap`` s apart
                     (default 0.15); the camera loses the card for 3 frames (the dealer's hand)
                     and sees it again.
``pull_back``        the card is pulled out far enough to be read, pushed back, and drawn again
                     ``gap`` s later (default 0.3): two reads of the same card.
``unknown_barcode``  an extra card with a barcode the table does not know (``payload``, default
                     ``"PROMO-0042"``) comes out before the next card.
``other_shoe``       an extra card of another shoe set (``deck``, default the serial + 1; ``card``,
                     default a random one) comes out before the next card.

``SIMULATORS`` maps the two device kinds to factories for ``url = "simulator"``; with the
studio, :meth:`ShoeSimulator.table_event` acts as the dealer: it deals up to ``cards_per_round``
cards each time a round closes betting (``auto_deal``), ``deal_interval`` seconds apart (divided
by ``speed``), and stops as soon as the round has its result, is held or voided (the simulator
cannot know each game's deal script; the judge says when the hand is complete).

Games whose deal depends on player decisions (blackjack, draw poker) cannot be dealt a fixed number
of cards: with ``follow_judge=True`` the simulator deals one card each time the table's judge status
(the table's ``"judge"`` event, what the dealer console shows) names a new position for the next
card, and none while the judge waits for a decision; it changes the shoe when the judge asks for it
(the ``shoe_change`` hold), as a dealer would. Games dealt from a fresh deck every round (the single-deck
poker games, Andar Bahar, 21 Bet) want ``reshuffle_each_round=True``: the whole deck is shuffled when each round
closes betting, and there is no cut card.
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import math
import os
import queue
import random
import select
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Self

from devices.camera.frames import pack_frame
from devices.shoe.vendor_table import VendorTable, vendor_table_from_option

from .history import keep_recent, remember
from .ptys import open_pty_pair

__all__ = [
    "FAULTS",
    "SIMULATORS",
    "CardRenderer",
    "Imaging",
    "Shoe",
    "ShoeCard",
    "ShoeSimulator",
    "open_pty_pair",
]

FAULTS = ("unreadable", "double_read", "pull_back", "unknown_barcode", "other_shoe")
DEFAULT_SERIAL = "104729"


# --------------------------------------------------------------------------- the shoe


@dataclass(frozen=True, slots=True)
class ShoeCard:
    """One physical card: what it is and what its barcode says."""

    card: str | None  # "AS"...; None for the cut card and foreign cards
    payload: str
    deck: str | None = None
    pack: int | None = None
    label: str = ""  # printed in the corners
    special: str | None = None  # "cut_card"


class Shoe:
    """The cards in the shoe, in dealing order. Seeded: the same seed deals the same cards."""

    def __init__(
        self,
        table: VendorTable,
        *,
        decks: int = 8,
        seed: int | None = None,
        serial: str = DEFAULT_SERIAL,
        jokers: bool = False,
        cut_card: float | None = 0.75,
    ) -> None:
        width = table.field_width("pack")
        if decks < 1 or (width is not None and decks > 10**width):
            raise ValueError(f"decks must be 1..{10**width if width else 'any'} for this vendor table")
        if cut_card is not None and not 0 < cut_card <= 1:
            raise ValueError("cut_card is a fraction of the shoe in (0, 1], or None")
        self.table = table
        self.decks = decks
        self.serial = serial
        self.jokers = jokers
        self.cut_card = cut_card
        self.rng = random.Random(seed)
        self.shoes = 0  # shoes built so far
        self._cards: list[ShoeCard] = []
        self._pos = 0
        self.new_shoe()

    def pack_cards(self) -> list[str]:
        return [c for c in self.table.cards if self.jokers or c != "JK"]

    def new_shoe(self) -> None:
        cards: list[ShoeCard] = []
        for pack in range(self.decks):
            copies: dict[str, int] = {}
            for card in self.pack_cards():
                copy = copies.get(card, 0)
                copies[card] = copy + 1
                payload = self.table.encode(card, deck=self.serial, pack=pack, copy=copy)
                cards.append(ShoeCard(card, payload, self.serial, pack, label=card))
        self.rng.shuffle(cards)
        if self.cut_card is not None and self.table.specials:
            cut = ShoeCard(None, self.table.special_payload("cut_card"), label="CUT", special="cut_card")
            cards.insert(min(len(cards), int(len(cards) * self.cut_card)), cut)
        self._cards, self._pos = cards, 0
        self.shoes += 1

    @property
    def remaining(self) -> int:
        return len(self._cards) - self._pos

    def next(self) -> ShoeCard:
        if self._pos >= len(self._cards):
            self.new_shoe()
        card = self._cards[self._pos]
        self._pos += 1
        return card

    def take(self, code: str) -> ShoeCard:
        """Deal the first remaining ``code`` (moved to the top): tests use it to force a card."""
        if code.upper() in ("CUT", "CUT_CARD"):
            match = lambda c: c.special == "cut_card"
        else:
            match = lambda c: c.card == code
        for i in range(self._pos, len(self._cards)):
            if match(self._cards[i]):
                card = self._cards.pop(i)
                self._cards.insert(self._pos, card)
                self._pos += 1
                return card
        raise ValueError(f"no {code} left in the shoe ({self.remaining} cards left)")

    def foreign(self, *, payload: str) -> ShoeCard:
        return ShoeCard(None, payload, label="??")

    def other_shoe(self, *, deck: str | None = None, card: str | None = None) -> ShoeCard:
        if deck is None:
            width = len(self.serial)
            deck = str((int(self.serial) + 1) % 10**width).zfill(width) if self.serial.isdigit() else "999999"
        card = card or self.rng.choice(self.pack_cards())
        return ShoeCard(card, self.table.encode(card, deck=deck, pack=0), deck, 0, label=card)


# --------------------------------------------------------------------------- the camera's pictures


@dataclass(frozen=True)
class Imaging:
    """Ranges the renderer draws from for each frame (uniformly)."""

    width: int = 1280
    height: int = 720
    card_size: tuple[int, int] = (480, 340)  # card face in pixels at scale 1 (long side, short side)
    rotation: float = 30.0  # degrees either way
    scale: tuple[float, float] = (0.9, 1.15)
    blur: tuple[float, float] = (0.0, 1.5)  # Gaussian sigma, pixels (focus)
    motion: tuple[float, float] = (0.0, 4.0)  # horizontal motion blur, pixels (the card sliding)
    noise: tuple[float, float] = (2.0, 9.0)  # sensor noise sigma, grey levels
    glare: float = 0.5  # probability of a glare spot on the card
    glare_strength: tuple[float, float] = (60.0, 150.0)  # added grey levels at its centre
    gain: tuple[float, float] = (0.75, 1.05)  # card brightness
    color: bool = True


@dataclass(frozen=True, slots=True)
class Pose:
    cx: float
    cy: float
    angle: float
    scale: float


BACKGROUND = 36  # the dark inside of the shoe

#: card faces a renderer keeps (least recently used dropped first): a face is ~0.5 MB and nearly every card of
#: a shoe has a payload of its own, so only a card drawn again soon (a pull-back, a read-rate set) reuses one
FACE_CACHE = 16


class CardRenderer:
    """Draws cards with their barcode, and camera frames of them. Seeded by the caller's rng."""

    def __init__(
        self, imaging: Imaging = Imaging(), symbology: str = "code128", seed: int | None = 0
    ) -> None:
        import cv2
        import numpy as np

        self.cv2, self.np = cv2, np
        self.im = imaging
        self.symbology = symbology
        self._faces: OrderedDict[tuple[str, str, bool], Any] = OrderedDict()
        rng = np.random.default_rng(seed)
        w, h, pad = imaging.width, imaging.height, 16
        ch = 3 if imaging.color else 1
        # sensor noise: a few unit fields stored around 128 (scaled per frame with addWeighted)
        self._noise = []
        for _ in range(3):
            z = np.clip(128 + 32 * rng.standard_normal((h + pad, w + pad), dtype=np.float32), 0, 255).astype(
                np.uint8
            )
            self._noise.append(cv2.merge([z] * 3) if ch == 3 else z)
        self._pad = pad
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        vignette = BACKGROUND + 6 - 28 * (((xx - w / 2) / w) ** 2 + ((yy - h / 2) / h) ** 2)
        bg = np.clip(vignette, 0, 255).astype(np.uint8)
        self.background = cv2.merge([bg] * 3) if ch == 3 else bg

    # -- card faces -------------------------------------------------------------------------
    def barcode(self, payload: str) -> Any:
        """The symbol as a 0/255 module image (one pixel per module, no quiet zone)."""
        import zxingcpp

        fmt = {
            "code128": zxingcpp.BarcodeFormat.Code128,
            "qr": zxingcpp.BarcodeFormat.QRCode,
            "datamatrix": zxingcpp.BarcodeFormat.DataMatrix,
        }[self.symbology]
        if hasattr(zxingcpp, "create_barcode"):  # zxing-cpp 3
            image = zxingcpp.write_barcode_to_image(
                zxingcpp.create_barcode(payload, fmt), scale=1, add_quiet_zones=False
            )
        else:  # zxing-cpp 2
            image = zxingcpp.write_barcode(fmt, payload, quiet_zone=0)
        return self.np.asarray(image, dtype=self.np.uint8)

    def face(self, card: ShoeCard, *, damaged: bool = False) -> Any:
        key = (card.payload, card.label, damaged)
        face = self._faces.get(key)
        if face is None:
            face = self._faces[key] = self._draw_face(card, damaged)
            if len(self._faces) > FACE_CACHE:
                self._faces.popitem(last=False)
        else:
            self._faces.move_to_end(key)
        return face

    def _draw_face(self, card: ShoeCard, damaged: bool) -> Any:
        cv2, np = self.cv2, self.np
        cw, ch = self.im.card_size
        white = 245
        face = np.full((ch, cw, 3), white, np.uint8)
        red = card.label[-1:] in ("H", "D")
        ink = (30, 30, 200) if red else (20, 20, 20)
        label = card.label or "?"
        fs = ch / 240.0
        cv2.putText(
            face, label, (int(0.03 * cw), int(0.14 * ch)), cv2.FONT_HERSHEY_SIMPLEX, fs, ink, 3, cv2.LINE_AA
        )
        (tw, _), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, fs, 3)
        cv2.putText(
            face,
            label,
            (cw - tw - int(0.03 * cw), ch - int(0.05 * ch)),
            cv2.FONT_HERSHEY_SIMPLEX,
            fs,
            ink,
            3,
            cv2.LINE_AA,
        )
        bits = self.barcode(card.payload)
        if self.symbology == "code128":
            module = max(1, min(4, int(0.82 * cw) // bits.shape[1]))
            bar = cv2.resize(
                bits[:1], (bits.shape[1] * module, int(0.38 * ch)), interpolation=cv2.INTER_NEAREST
            )
        else:
            module = max(1, int(0.5 * ch) // bits.shape[0])
            bar = cv2.resize(
                bits, (bits.shape[1] * module, bits.shape[0] * module), interpolation=cv2.INTER_NEAREST
            )
        bh, bw = bar.shape
        y0, x0 = (ch - bh) // 2 + int(0.03 * ch), (cw - bw) // 2
        face[y0 : y0 + bh, x0 : x0 + bw] = np.where(bar[..., None] > 127, white, 15).astype(np.uint8)
        if damaged:  # a smudge across the whole symbol: no scan line crosses it intact
            sx0, sx1 = x0 + int(0.35 * bw), x0 + int(0.65 * bw)
            face[y0 - 4 : y0 + bh + 4, sx0:sx1] = 95
        mask = np.zeros((ch, cw), np.uint8)
        r = int(0.055 * ch)
        cv2.rectangle(mask, (r, 0), (cw - 1 - r, ch - 1), 255, -1)
        cv2.rectangle(mask, (0, r), (cw - 1, ch - 1 - r), 255, -1)
        for x, y in ((r, r), (cw - 1 - r, r), (r, ch - 1 - r), (cw - 1 - r, ch - 1 - r)):
            cv2.circle(mask, (x, y), r, 255, -1, cv2.LINE_AA)
        face[mask < 128] = BACKGROUND
        return face

    # -- frames ------------------------------------------------------------------------------
    def random_pose(self, rng: random.Random, *, whole: bool = True) -> Pose:
        im = self.im
        angle = rng.uniform(-im.rotation, im.rotation)
        scale = rng.uniform(*im.scale)
        cw, ch = im.card_size
        a = math.radians(angle)
        half_w = 0.5 * scale * (cw * abs(math.cos(a)) + ch * abs(math.sin(a)))
        half_h = 0.5 * scale * (cw * abs(math.sin(a)) + ch * abs(math.cos(a)))
        mx, my = max(0.0, im.width / 2 - half_w - 12), max(0.0, im.height / 2 - half_h - 12)
        return Pose(im.width / 2 + rng.uniform(-mx, mx), im.height / 2 + rng.uniform(-my, my), angle, scale)

    def empty_frame(self, rng: random.Random) -> Any:
        frame = self.background.copy()
        self._add_noise(frame, rng.uniform(*self.im.noise), rng)
        return frame

    def frame(self, face: Any, pose: Pose, rng: random.Random) -> Any:
        """One camera frame of ``face`` at ``pose`` with random gain, glare, blur and noise."""
        cv2, np, im = self.cv2, self.np, self.im
        f = cv2.convertScaleAbs(face, alpha=rng.uniform(*im.gain), beta=rng.uniform(-10, 10))
        fh, fw = f.shape[:2]
        if rng.random() < im.glare:
            ax, ay = rng.uniform(0.06, 0.23) * fw, rng.uniform(0.06, 0.2) * fh
            gx, gy = fw / 2 + rng.uniform(-0.38, 0.38) * fw, fh / 2 + rng.uniform(-0.3, 0.3) * fh
            spot = np.zeros((fh, fw), np.float32)
            cv2.ellipse(spot, (int(gx), int(gy)), (int(ax), int(ay)), rng.uniform(0, 180), 0, 360, 1.0, -1)
            spot = cv2.GaussianBlur(spot, (0, 0), max(ax, ay) / 2.5)
            spot *= rng.uniform(*im.glare_strength) / max(float(spot.max()), 1e-6)
            f = cv2.add(f, cv2.merge([spot.astype(np.uint8)] * 3))
            f[face == BACKGROUND] = BACKGROUND  # glare on the card only
        if not im.color:
            f = cv2.cvtColor(f, cv2.COLOR_BGR2GRAY)
        m = cv2.getRotationMatrix2D((fw / 2, fh / 2), pose.angle, pose.scale)
        m[0, 2] += pose.cx - fw / 2
        m[1, 2] += pose.cy - fh / 2
        frame = self.background.copy()
        cv2.warpAffine(
            f, m, (im.width, im.height), frame, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT
        )
        sigma, motion = rng.uniform(*im.blur), round(rng.uniform(*im.motion))
        if sigma > 0.3 or motion > 1:
            half = 0.5 * pose.scale * math.hypot(fw, fh) + 4 * sigma + motion + 2
            x0, x1 = int(max(0, pose.cx - half)), int(min(im.width, pose.cx + half))
            y0, y1 = int(max(0, pose.cy - half)), int(min(im.height, pose.cy + half))
            if x1 > x0 and y1 > y0:
                roi = frame[y0:y1, x0:x1]
                if sigma > 0.3:
                    cv2.GaussianBlur(roi, (0, 0), sigma, roi, sigma, cv2.BORDER_REPLICATE)
                if motion > 1:
                    cv2.blur(roi, (motion, 1), roi, borderType=cv2.BORDER_REPLICATE)
        self._add_noise(frame, rng.uniform(*im.noise), rng)
        return frame

    def _add_noise(self, frame: Any, sigma: float, rng: random.Random) -> None:
        if sigma <= 0:
            return
        h, w = frame.shape[:2]
        z = self._noise[rng.randrange(len(self._noise))]
        oy, ox = rng.randrange(self._pad), rng.randrange(self._pad)
        k = sigma / 32.0
        self.cv2.addWeighted(frame, 1.0, z[oy : oy + h, ox : ox + w], k, -128.0 * k, frame)

    def still(self, card: ShoeCard, rng: random.Random, *, damaged: bool = False) -> Any:
        """A frame with the whole card in view at a random pose (the read-rate sets, the bench)."""
        return self.frame(self.face(card, damaged=damaged), self.random_pose(rng), rng)

    def passage(
        self, card: ShoeCard, rng: random.Random, *, fault: str | None = None, view_frames: int = 5
    ) -> Iterator[Any]:
        """The frames of one card going by: sliding in from the right, held, sliding out left.

        Yields frames, or ``None`` for an empty-slot frame.
        """
        im = self.im
        face = self.face(card, damaged=fault == "unreadable")
        pose = self.random_pose(rng)
        half = 0.5 * pose.scale * im.card_size[0]
        start = replace(pose, cx=im.width + 0.4 * half)
        end = replace(pose, cx=-0.4 * half)

        def between(a: Pose, b: Pose, t: float) -> Pose:
            return replace(a, cx=a.cx + (b.cx - a.cx) * t, cy=a.cy + (b.cy - a.cy) * t)

        def held(n: int) -> Iterator[Any]:
            for _ in range(n):
                jitter = replace(
                    pose,
                    cx=pose.cx + rng.uniform(-6, 6),
                    cy=pose.cy + rng.uniform(-4, 4),
                    angle=pose.angle + rng.uniform(-1.5, 1.5),
                )
                yield self.frame(face, jitter, rng)

        for t in (0.0, 0.5):
            yield self.frame(face, between(start, pose, t), rng)
        if fault == "pull_back":
            yield from held(3)
            for t in (0.5, 0.0):
                yield self.frame(face, between(start, pose, t), rng)
            return
        if fault == "double_read":
            yield from held(max(2, view_frames // 2 + 1))
            for _ in range(3):
                yield None  # the dealer's hand hides the card
            yield from held(max(2, view_frames // 2 + 1))
        else:
            yield from held(view_frames)
        for t in (0.5, 1.0):
            yield self.frame(face, between(pose, end, t), rng)


# --------------------------------------------------------------------------- the simulator


@dataclass
class _Deal:
    """One queued action: a card (None: the shoe's next card, taken when its turn comes), or raw bytes."""

    card: ShoeCard | None = None
    fault: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    round_id: str | None = None  # dealt for this round of the studio (auto_deal)
    raw: bytes | None = None  # serial: bytes written as they are, in turn with the cards


class ShoeSimulator:
    """A dealing shoe on a pty (``transport="serial"``) or a frame stream (``transport="camera"``)."""

    def __init__(
        self,
        transport: str = "serial",
        *,
        decks: int = 8,
        seed: int | None = None,
        speed: float = 1.0,
        shoe_serial: str = DEFAULT_SERIAL,
        vendor_table: Any = None,
        symbology: str | None = None,
        jokers: bool = False,
        cut_card: float | None = 0.75,
        cards_per_round: int = 6,
        auto_deal: bool = True,
        follow_judge: bool = False,
        reshuffle_each_round: bool = False,
        deal_interval: float = 1.0,
        no_read_message: str | None = "NOREAD",
        line_ending: str = "\r\n",
        fps: float = 30.0,
        view_frames: int = 5,
        imaging: Imaging | dict[str, Any] | None = None,
        encoding: str = "raw",
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        if transport not in ("serial", "camera"):
            raise ValueError("transport is 'serial' or 'camera'")
        if speed <= 0 or fps <= 0:
            raise ValueError("speed and fps must be positive")
        if encoding not in ("raw", "png"):
            raise ValueError("encoding is 'raw' or 'png'")
        self.transport = transport
        self.table = vendor_table_from_option(vendor_table)
        self.symbology = symbology or self.table.symbology
        self.reshuffle_each_round = reshuffle_each_round
        self.shoe = Shoe(
            self.table,
            decks=decks,
            seed=seed,
            serial=shoe_serial,
            jokers=jokers,
            # a deck shuffled for every round has no cut card
            cut_card=None if reshuffle_each_round else cut_card,
        )
        self.rng = random.Random(None if seed is None else seed + 1)
        self.speed = float(speed)
        self.cards_per_round = cards_per_round
        self.auto_deal = auto_deal
        self.follow_judge = follow_judge
        self.deal_interval = deal_interval
        self.no_read_message = no_read_message
        self.line_ending = line_ending
        self.fps = fps
        self.view_frames = view_frames
        if isinstance(imaging, dict):
            fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in imaging.items()}
            imaging = Imaging(**fields)
        self.imaging = imaging or Imaging()
        self.encoding = encoding
        #: the cards that went by, in order (the cut card and foreign cards included; the newest
        #: simulators.history.KEEP at least), and how many in all
        self.dealt: list[ShoeCard] = []
        self.dealt_total = 0
        self.frames_sent = 0
        self.url: str = ""
        self._queue: queue.Queue[_Deal] = queue.Queue()
        self._faults: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._busy = 0
        self._thread: threading.Thread | None = None
        self._dealt_rounds: dict[str, None] = {}  # the newest simulators.history.KEEP
        self._stopped_rounds: dict[str, None] = {}
        self._pacing_round: str | None = None  # the round being dealt by table_event
        self._left = 0  # cards it may still deal
        self._dealt_for: str | None = None  # follow_judge: the position the last card was dealt for
        self._judge_next: str | None = None  # follow_judge: the position the judge's last status named
        #: follow_judge: shoes changed at the judge's request (the shoe_change hold)
        self.shoe_changes = 0
        self._closed = False
        self._master: int | None = None
        self._server: socket.socket | None = None
        self._client: socket.socket | None = None
        self._renderer: CardRenderer | None = None
        if transport == "serial":
            self._master, self.url = open_pty_pair()
            fl = fcntl.fcntl(self._master, fcntl.F_GETFL)
            fcntl.fcntl(self._master, fcntl.F_SETFL, fl | os.O_NONBLOCK)
        else:
            self._renderer = CardRenderer(self.imaging, self.symbology, seed=seed)
            server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind((host, port))
            server.listen(1)
            server.setblocking(False)
            self._server = server
            self.url = f"tcp://{host}:{server.getsockname()[1]}"

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("the simulator was stopped")
            if self._thread is not None:
                return
            self._stop.clear()
            target = self._run_serial if self.transport == "serial" else self._run_camera
            self._thread = threading.Thread(
                target=target, name=f"shoe-simulator-{self.transport}", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread and close the port; idempotent."""
        self._stop.set()
        client = self._client
        if client is not None:  # a send blocked on a stalled reader must not hold the thread
            try:
                client.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(5)
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for s in (self._client, self._server):
                if s is not None:
                    s.close()
            self._client = self._server = None
            if self._master is not None:
                os.close(self._master)
                self._master = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # ------------------------------------------------------------------ dealing (thread-safe)
    def inject(self, fault: str, **options: Any) -> None:
        """Apply ``fault`` to the next card dealt (faults queue up, one per card)."""
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        with self._lock:
            self._faults.append((fault, options))

    def deal(self, n: int = 1, *, round_id: str | None = None) -> None:
        """Deal the next ``n`` cards of the shoe (the cut card comes out when its turn comes).

        Each card is taken from the shoe when its turn comes, so cards of a round that ends
        before they are dealt stay in the shoe (see :meth:`table_event`).
        """
        with self._lock:
            for _ in range(n):
                self._enqueue(None, round_id)

    def deal_card(self, code: str, fault: str | None = None, **options: Any) -> ShoeCard:
        """Deal a chosen card next (the first one left in the shoe, or "CUT"); returns it."""
        with self._lock:
            if fault is not None:
                self.inject(fault, **options)
            card = self.shoe.take(code)
            self._enqueue(card, None)
            return card

    def _enqueue(self, card: ShoeCard | None, round_id: str | None) -> None:
        fault, options = self._faults.pop(0) if self._faults else (None, {})
        if fault == "unknown_barcode":  # an extra card comes out first
            extra = self.shoe.foreign(payload=options.get("payload", "PROMO-0042"))
            self._put(_Deal(extra, fault, options, round_id))
            fault, options = None, {}
        elif fault == "other_shoe":
            extra = self.shoe.other_shoe(deck=options.get("deck"), card=options.get("card"))
            self._put(_Deal(extra, fault, options, round_id))
            fault, options = None, {}
        self._put(_Deal(card, fault, options, round_id))

    def _next_deal(self, timeout: float) -> _Deal | None:
        """The next queued action whose round is still being dealt (the others are dropped)."""
        try:
            deal = self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
        except queue.Empty:
            return None
        if deal.round_id is not None and deal.round_id in self._stopped_rounds:
            self._done()
            return None
        return deal

    def _resolve(self, deal: _Deal) -> list[_Deal]:
        """The cards a queued deal puts out: the shoe's next card (the cut card before it, in its turn)."""
        if deal.card is not None or deal.raw is not None:
            cards = [deal]
        else:
            with self._lock:
                card = self.shoe.next()
                cards = []
                if card.special == "cut_card":
                    cards.append(_Deal(card, round_id=deal.round_id))
                    card = self.shoe.next()
                cards.append(replace(deal, card=card))
        with self._lock:
            went = [d.card for d in cards if d.card is not None]
            self.dealt_total += len(went)
            keep_recent(self.dealt, *went)
        return cards

    def _put(self, deal: _Deal) -> None:
        self._busy += 1
        self._idle.clear()
        self._queue.put(deal)

    def _done(self) -> None:
        with self._lock:
            self._busy -= 1
            if self._busy == 0:
                self._idle.set()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until every queued card has gone by (its frames sent or its lines written)."""
        return self._idle.wait(timeout)

    def table_event(self, what: str, data: dict[str, Any]) -> None:
        """The studio's table listener (called on its event loop: never blocks).

        Acts as the dealer: when a round closes betting, deals up to ``cards_per_round`` cards,
        ``deal_interval`` apart; as soon as the round has its result, is held or is voided, the
        cards not dealt yet stay in the shoe (a dealer stops when the hand is complete or the
        supervisor is called).
        """
        if not self.auto_deal:
            return
        if self.follow_judge:
            self._follow_judge(what, data)
            return
        if what == "device":
            # paced like a dealer who looks at the screen: the next card only once the last one was read
            # and the hand still wants cards (else a card in flight lands after the result)
            if data.get("kind") in ("card_drawn", "card_unreadable"):
                with self._lock:
                    rid = self._pacing_round
                    if rid is not None and rid not in self._stopped_rounds and self._left > 0:
                        self._left -= 1
                        self.deal(1, round_id=rid)
            return
        if what != "round":
            return
        round_id = str(data.get("round_id", ""))
        transition = data.get("transition")
        with self._lock:
            if transition == "close_betting" and round_id not in self._dealt_rounds:
                remember(self._dealt_rounds, round_id)
                self._fresh_deck()
                self._pacing_round, self._left = round_id, self.cards_per_round - 1
                self.deal(1, round_id=round_id)
            elif (
                transition in ("result_pending", "certify", "void", "hold") and round_id in self._dealt_rounds
            ):
                remember(self._stopped_rounds, round_id)
                if self._pacing_round == round_id:
                    self._pacing_round, self._left = None, 0

    def _follow_judge(self, what: str, data: dict[str, Any]) -> None:
        """``follow_judge``: one card each time the judge's status names a new position for the next card."""
        with self._lock:
            if what == "judge":
                status = data.get("judge")
                nxt = status.get("next") if isinstance(status, dict) else None
                self._judge_next = (
                    str(nxt.get("position")) if isinstance(nxt, dict) and nxt.get("position") else None
                )
                self._deal_next()
            elif what == "hold" and data.get("code") == "shoe_change":
                # the judge asks for a new shoe: the dealer puts a freshly shuffled shoe in (cards queued for this
                # round, if any, come from it)
                self.shoe.new_shoe()
                self.shoe_changes += 1
            elif what == "round":
                round_id = str(data.get("round_id", ""))
                transition = data.get("transition")
                if transition == "close_betting" and round_id not in self._dealt_rounds:
                    remember(self._dealt_rounds, round_id)
                    self._fresh_deck()
                    self._pacing_round, self._dealt_for, self._judge_next = round_id, None, None
                elif (
                    transition in ("result_pending", "certify", "void", "hold")
                    and round_id in self._dealt_rounds
                ):
                    remember(self._stopped_rounds, round_id)
                elif (
                    transition == "release"
                    and round_id == self._pacing_round
                    and data.get("state") not in ("certified", "voided")
                    and not data.get("holds")
                ):
                    # the supervisor released the hold: deal on (the card for the position the judge still names,
                    # if it was held back or went by unplaced)
                    self._stopped_rounds.pop(round_id, None)
                    self._dealt_for = None
                    self._deal_next()

    def _fresh_deck(self) -> None:
        """``reshuffle_each_round``: the dealer shuffles the whole deck before each round (a single-deck game)."""
        if self.reshuffle_each_round:
            self.shoe.new_shoe()

    def _deal_next(self) -> None:
        rid, position = self._pacing_round, self._judge_next
        if rid is None or rid in self._stopped_rounds or position is None or position == self._dealt_for:
            return
        self._dealt_for = position
        self.deal(1, round_id=rid)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "transport": self.transport,
                "url": self.url,
                "decks": self.shoe.decks,
                "serial": self.shoe.serial,
                "remaining": self.shoe.remaining,
                "shoes": self.shoe.shoes,
                "dealt": self.dealt_total,
                "queued": self._busy,
                "frames_sent": self.frames_sent,
                "client": self._client is not None,
            }

    # ------------------------------------------------------------------ serial transport
    def write_raw(self, data: bytes) -> None:
        """Put bytes on the scanner line as they are, after the cards queued before (garbage, torn lines)."""
        if self.transport != "serial":
            raise ValueError("write_raw is for the serial transport")
        with self._lock:
            self._put(_Deal(raw=bytes(data)))

    def _write(self, data: bytes) -> None:
        master = self._master
        if master is None:
            return
        view = memoryview(data)
        deadline = time.monotonic() + 2.0
        while view and time.monotonic() < deadline:
            try:
                n = os.write(master, view)
                view = view[n:]
            except BlockingIOError:
                select.select([], [master], [], 0.05)
            except OSError as exc:
                if exc.errno == errno.EIO:
                    return  # nobody has the slave side open: the line is lost, as on a real cable
                raise

    def _drain_input(self) -> None:
        master = self._master
        if master is None:
            return
        try:
            while os.read(master, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def _wait(self, seconds: float) -> bool:
        """Sleep ``seconds`` of simulated time; True if stopped meanwhile."""
        return self._stop.wait(max(0.0, seconds) / self.speed)

    def _line(self, payload: str) -> None:
        self._write((payload + self.line_ending).encode("ascii", "replace"))

    def _run_serial(self) -> None:
        while not self._stop.is_set():
            self._drain_input()  # a scanner ignores what the host sends
            deal = self._next_deal(0.05)
            if deal is None:
                continue
            try:
                if deal.raw is not None:
                    self._write(deal.raw)
                    continue
                for i, d in enumerate(self._resolve(deal)):
                    if i and self._wait(self.deal_interval):
                        return
                    self._serial_deal(d)
            finally:
                self._done()
            if self._wait(self.deal_interval):
                return

    def _serial_deal(self, deal: _Deal) -> None:
        card, fault, opts = deal.card, deal.fault, deal.options
        assert card is not None
        if fault == "unreadable":
            if self.no_read_message is not None:
                self._line(self.no_read_message)
            return
        if fault == "double_read":
            self._line(card.payload)
            self._wait(opts.get("gap", 0.15))
            self._line(card.payload)
            return
        if fault == "pull_back":
            self._line(card.payload)
            self._wait(opts.get("gap", 0.3))
        self._line(card.payload)

    # ------------------------------------------------------------------ camera transport
    def _accept(self) -> None:
        server = self._server
        if server is None or self._client is not None:
            return
        try:
            client, _ = server.accept()
        except (BlockingIOError, OSError):
            return
        client.setblocking(True)
        client.settimeout(10.0)  # a slow reader slows the camera down; it is not dropped
        client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 * 1024 * 1024)
        self._client = client

    def _send_frame(self, image: Any, stamp: float) -> None:
        client = self._client
        if client is None:
            return
        encoded = None
        if self.encoding == "png":
            ok, buf = self._renderer.cv2.imencode(".png", image)  # type: ignore[union-attr]
            encoded = buf.tobytes() if ok else None
        data = pack_frame(image, self.frames_sent, encoded=encoded, timestamp_us=int(stamp * 1e6))
        try:
            client.sendall(data)
            self.frames_sent += 1
        except OSError:  # the driver went away (or stalled for 10 s): drop it, wait for the next one
            with self._lock:
                self._client = None
            client.close()

    def disconnect_client(self) -> None:
        """Drop the connected driver (tests: a camera link going down)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def _camera_frames(self, deal: _Deal) -> Iterator[Any]:
        renderer = self._renderer
        assert renderer is not None and deal.card is not None
        yield from renderer.passage(deal.card, self.rng, fault=deal.fault, view_frames=self.view_frames)
        if deal.fault == "pull_back":  # pushed back: after the gap the same card is drawn for real
            for _ in range(max(1, round(deal.options.get("gap", 0.3) * self.fps / self.speed))):
                yield None
            yield from renderer.passage(deal.card, self.rng, view_frames=self.view_frames)

    def _run_camera(self) -> None:
        renderer = self._renderer
        assert renderer is not None
        period = 1.0 / self.fps
        idle = [renderer.empty_frame(self.rng) for _ in range(4)]
        frames: Iterator[Any] | None = None
        gap = 0  # empty-slot frames still to show before the next card
        next_t = time.monotonic()
        n = 0
        while not self._stop.is_set():
            self._accept()
            image = None
            if self._client is not None:
                if frames is None and gap <= 0:
                    deal = self._next_deal(0)
                    if deal is not None:
                        frames = self._passage_then_done(deal)
                gap -= 1
                if frames is not None:
                    try:
                        image = next(frames)
                    except StopIteration:
                        frames = None
                        # the pause between two cards, counted in frames so that it is the same on a busy machine
                        gap = max(1, round(self.deal_interval * self.fps / self.speed))
                if image is None:
                    image = idle[n % len(idle)]
                # capture times on the camera's own clock, one period apart however late the frame is
                # sent (a loaded machine slows the stream down; it does not stretch the card's time)
                self._send_frame(image, 1.0 + n * period)
                n += 1
            next_t += period
            delay = next_t - time.monotonic()
            if delay < -1.0:
                next_t = time.monotonic()  # fell far behind (a slow machine): do not burst
            if self._stop.wait(max(0.0, delay)):
                break

    def _passage_then_done(self, deal: _Deal) -> Iterator[Any]:
        try:
            for i, d in enumerate(self._resolve(deal)):
                if i:  # the cut card, then the card after it: a pause between the two
                    yield from [None] * max(2, round(self.deal_interval * self.fps / self.speed))
                yield from self._camera_frames(d)
        finally:
            self._done()


# --------------------------------------------------------------------------- factories and CLI


def _serial_factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[ShoeSimulator, str]:
    sim = ShoeSimulator("serial", speed=speed, seed=seed, **options)
    return sim, sim.url


def _camera_factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[ShoeSimulator, str]:
    sim = ShoeSimulator("camera", speed=speed, seed=seed, **options)
    return sim, sim.url


#: device kind -> factory, found by studio.simulated for devices whose URL is "simulator"
SIMULATORS = {"serial-shoe": _serial_factory, "camera-shoe": _camera_factory}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Dealing shoe simulator (a scanner on a pty, or a camera on TCP)"
    )
    parser.add_argument("--transport", choices=("serial", "camera"), default="serial")
    parser.add_argument("--decks", type=int, default=8)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--port", type=int, default=0, help="camera: TCP port (0: any free one)")
    parser.add_argument("--cards", type=int, default=6, help="cards dealt each --every seconds")
    parser.add_argument("--every", type=float, default=15.0)
    args = parser.parse_args(argv)
    sim = ShoeSimulator(args.transport, decks=args.decks, seed=args.seed, port=args.port, deal_interval=1.0)
    with sim:
        print(sim.url, flush=True)
        try:
            while True:
                sim.deal(args.cards)
                time.sleep(args.every)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
