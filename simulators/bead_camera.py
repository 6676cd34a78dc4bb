"""Fan Tan's tray under a camera, as software: a ``camera-bead-counter``'s frame stream
(``frames+tcp://127.0.0.1:PORT``, devices/camera/frames.py) showing the beads the dealer laid out.

Frames (``width`` x ``height`` grey, ``fps`` a second, to every client) show the light cloth with sensor
noise and, once laid out, the beads as dark discs in lines of four. As the dealer: a random pile of
``min_beads``..``max_beads`` beads (``random.Random(seed)``) is separated when a round opens; ``count_delay``
seconds after betting closes (divided by ``speed``) the beads lie laid out, and they stay until the round is
certified or voided. A fault on request for the next layout (:meth:`BeadCameraSimulator.inject`):
``"overlap"`` lays three beads on one another (the camera cannot count them); when the table holds with
``misread`` the dealer spreads them again ``recount_delay`` later.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import cv2
import numpy as np

from devices.camera.frames import pack_frame

from .line_dealer import LineDealerSimulator

__all__ = ["SIMULATORS", "BeadCameraSimulator", "render_tray"]

CLOTH, BEAD = 190, 40
BEAD_RADIUS = 8


def render_tray(
    beads: int, *, width: int, height: int, rng: np.random.Generator, overlap: bool = False
) -> np.ndarray:
    """The tray with `beads` laid out in lines of four (three of them piled up with `overlap`)."""
    img = np.full((height, width), CLOTH, np.uint8)
    step, line_gap, row = 2 * BEAD_RADIUS + 6, 16, 2 * BEAD_RADIUS + 8
    line_w = 4 * step + line_gap
    per_row = max(1, (width - 10) // line_w)
    for i in range(beads):
        line, pos = divmod(i, 4)
        r, c = divmod(line, per_row)
        x = 10 + BEAD_RADIUS + c * line_w + pos * step
        y = 10 + BEAD_RADIUS + r * row
        if overlap and i < 3:
            x, y = 10 + BEAD_RADIUS + 6 * i, height - 10 - BEAD_RADIUS  # a little pile at the tray's edge
        cv2.circle(img, (x, y), BEAD_RADIUS, BEAD, -1)
    noise = rng.normal(0, 6, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


class BeadCameraSimulator(LineDealerSimulator):
    """The dealer's timing comes from LineDealerSimulator (without its pty: the frames go on TCP)."""

    thread_name = "bead-camera-sim"

    def __init__(
        self,
        *,
        speed: float = 1.0,
        seed: int | None = None,
        min_beads: int = 20,
        max_beads: int = 120,
        count_delay: float = 3.0,
        recount_delay: float = 2.0,
        width: int = 480,
        height: int = 400,
        fps: float = 10.0,
        act_as_dealer: bool = True,
        host: str = "127.0.0.1",
    ) -> None:
        if not 1 <= min_beads <= max_beads:
            raise ValueError("need 1 <= min_beads <= max_beads")
        super().__init__(speed=speed, seed=seed, act_as_dealer=act_as_dealer, pty=False)
        self.min_beads, self.max_beads = int(min_beads), int(max_beads)
        self.count_delay, self.recount_delay = float(count_delay), float(recount_delay)
        self.width, self.height, self.fps = int(width), int(height), float(fps)
        self._noise = np.random.default_rng(seed)
        self._listen = socket.create_server((host, 0))
        self._listen.settimeout(0.05)
        self.url = f"frames+tcp://{host}:{self._listen.getsockname()[1]}"
        self._clients: list[socket.socket] = []
        self._lock = threading.Lock()
        self._halt = threading.Event()
        self._frames: threading.Thread | None = None
        self._faults: list[str] = []
        self._round: str | None = None
        #: the beads separated for the round, and whether they lie laid out (the truth, for tests)
        self.beads: int | None = None
        self.shown = 0
        self.overlap = False
        self.frames_sent = 0
        #: every layout, in order: (beads, piled up)
        self.laid: list[tuple[int, bool]] = []

    def inject(self, fault: str) -> None:
        if fault != "overlap":
            raise ValueError(f"unknown fault {fault!r}; known: overlap")
        self._faults.append(fault)

    def lay_out(self, beads: int | None = None) -> None:
        """The dealer lays the beads out in lines of four (the round's pile, or `beads`)."""
        if beads is not None:
            self.beads = beads
        if self.beads is None:
            self.beads = self.rng.randint(self.min_beads, self.max_beads)
        with self._lock:
            self.overlap = bool(self._faults) and self._faults.pop(0) == "overlap"
            self.shown = self.beads
            self.laid.append((self.beads, self.overlap))

    def clear(self) -> None:
        with self._lock:
            self.shown, self.overlap = 0, False

    def on_table_event(self, what: str, data: dict[str, Any]) -> None:
        if what == "hold" and data.get("code") == "misread":
            self.later(self.recount_delay, self.lay_out)
            return
        if what != "round":
            return
        round_id, transition = str(data.get("round_id", "")), data.get("transition")
        if transition == "open_round":
            self._round = round_id
            self.beads = self.rng.randint(self.min_beads, self.max_beads)
            self.later(0, self.clear)
        elif transition == "close_betting" and round_id == self._round:
            self.later(self.count_delay, self.lay_out)
        elif transition in ("certify", "void") and round_id == self._round:
            self.later(0, self.clear)

    # --- the frame stream -------------------------------------------------------------------------

    def start(self) -> None:
        super().start()
        if self._frames is None:
            self._frames = threading.Thread(target=self._serve, name="bead-camera-frames", daemon=True)
            self._frames.start()

    def stop(self) -> None:
        super().stop()
        self._halt.set()
        if self._frames is not None:
            self._frames.join(5)
        self._listen.close()
        with self._lock:
            for c in self._clients:
                c.close()
            self._clients.clear()

    def _serve(self) -> None:
        seq, period = 0, 1.0 / self.fps
        while not self._halt.is_set():
            t0 = time.monotonic()
            try:
                conn, _ = self._listen.accept()
                conn.settimeout(2.0)
                with self._lock:
                    self._clients.append(conn)
            except (TimeoutError, OSError):
                pass
            with self._lock:
                shown, overlap, clients = self.shown, self.overlap, list(self._clients)
            if clients:
                image = render_tray(
                    shown, width=self.width, height=self.height, rng=self._noise, overlap=overlap
                )
                data = pack_frame(image, seq)
                seq += 1
                for c in clients:
                    try:
                        c.sendall(data)
                        self.frames_sent += 1
                    except OSError:
                        with self._lock:
                            if c in self._clients:
                                self._clients.remove(c)
                        c.close()
            self._halt.wait(max(0.0, period - (time.monotonic() - t0)))


def _factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[BeadCameraSimulator, str]:
    sim = BeadCameraSimulator(speed=speed, seed=seed, **options)
    return sim, sim.url


#: device kind -> factory, found by studio.simulated for devices whose URL is "simulator"
SIMULATORS = {"camera-bead-counter": _factory}
