"""Benchmark: camera shoe, frame to card event, per 1280x720 frame on one core (target: under 10 ms).

For each decoder (zxing-cpp, pyzbar) the real ``CameraShoeDriver.process_frame`` runs on frames
rendered by the shoe simulator (simulators/shoe.py ``CardRenderer``: seeded cards of an 8-deck
shoe, rotation up to +-30 degrees, scale, gain, glare, Gaussian and motion blur, sensor noise), in
this process, pinned to one core, with OpenCV told to use one thread:

    grey conversion -> card finding (1/4 scale, Otsu, contours) -> straightening (warpAffine of the
    card) -> decode restricted to the symbology -> [full-frame decode if nothing was read and the
    fallback is on] -> CameraTracker (check digit, confirmation, folding) -> CardDrawn

Each card is shown in two frames (the driver confirms a read in a second frame before it deals
the card; ``confirm_reads = 2``), then two empty frames end its passage. Figures:

* ``card frame``  - wall time per frame with a card in view (p50, p99, max), the second of which
  emits the CardDrawn: this is "frame to card event"; also the thread's CPU time per frame, which
  a busy neighbour on a shared machine does not inflate;
* ``empty frame`` - time per frame of the empty shoe slot;
* ``read``        - cards dealt / cards shown, and WRONG cards (a card other than the one shown:
  must be 0); ``single-frame read rate`` - stills read on their own;
* ``no straightening`` (``--compare``) - the same stills decoded on the whole frame only,
  to show what card finding and straightening buy.

    python bench/shoe_camera.py                      # 300 cards, code128, both decoders (about 30 s)
    python bench/shoe_camera.py --cards 1000 --symbology qr
    python bench/shoe_camera.py --decoders zxing --compare
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import cv2

from devices.shoe.camera_shoe import CameraShoeDriver
from devices.shoe.vendor_table import default_vendor_table
from devices.shoe.vision import make_decoder, to_gray
from simulators.shoe import CardRenderer, Imaging, Shoe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import MachineLoad

TARGET_MS = 10.0


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


def one_core() -> str:
    cv2.setNumThreads(1)
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}, cv2.setNumThreads(1)"
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return "not pinned (no sched_setaffinity), cv2.setNumThreads(1)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--symbology", choices=("code128", "qr", "datamatrix"), default="code128")
    ap.add_argument("--decoders", default="zxing,pyzbar")
    ap.add_argument("--compare", action="store_true", help="also decode the whole frame without card finding")
    args = ap.parse_args(argv)

    pinned = one_core()
    table = default_vendor_table()
    shoe = Shoe(table, decks=8, seed=args.seed, cut_card=None)
    renderer = CardRenderer(Imaging(), args.symbology, seed=args.seed)
    rng = random.Random(args.seed)
    print(f"shoe camera benchmark: {args.cards} cards, {args.symbology}, 1280x720 BGR frames, {pinned}")
    t0 = time.perf_counter()
    cards = [shoe.next() for _ in range(args.cards)]
    # two frames of each card (each its own pose, blur, glare and noise), as the camera would see it
    stills = [(renderer.still(c, rng), renderer.still(c, rng)) for c in cards]
    empties = [renderer.empty_frame(rng) for _ in range(8)]
    print(f"rendered {2 * len(stills) + len(empties)} frames in {time.perf_counter() - t0:.1f} s")

    decoders = [d.strip() for d in args.decoders.split(",") if d.strip()]
    ok = True
    at = datetime.now(UTC)
    for name in decoders:
        if name == "pyzbar" and args.symbology == "datamatrix":
            print(f"\n[{name}] skipped: pyzbar cannot read DataMatrix")
            continue
        driver = CameraShoeDriver(
            "bench/shoe", "tcp://127.0.0.1:1", lambda e: None, decoder=name, symbology=args.symbology
        )
        driver.build_pipeline()
        # warm-up: first calls allocate buffers
        for f in empties[:2] + [stills[0][0]]:
            driver.process_frame(f, now=0.0, index=0, at=at)
        driver._tracker.flush(now=0.0, at=at, why="warm-up")
        load = MachineLoad()
        card_ms: list[float] = []
        card_cpu_ms: list[float] = []
        event_ms: list[float] = []
        empty_ms: list[float] = []
        dealt = wrong = unreadable = 0
        index = 0
        for card, (a, b) in zip(cards, stills):
            for frame in (a, b):
                index += 1
                t, c = time.perf_counter(), time.thread_time()
                events = driver.process_frame(frame, now=index / 30, index=index, at=at)
                ms = (time.perf_counter() - t) * 1000
                card_cpu_ms.append((time.thread_time() - c) * 1000)
                card_ms.append(ms)
                for e in events:
                    if e.kind == "card_drawn":
                        dealt += 1
                        event_ms.append(ms)
                        wrong += (e.card, e.payload) != (card.card, card.payload)
                    else:
                        unreadable += 1
            for _ in range(2):
                index += 1
                t = time.perf_counter()
                events = driver.process_frame(
                    empties[index % len(empties)], now=index / 30, index=index, at=at
                )
                empty_ms.append((time.perf_counter() - t) * 1000)
                unreadable += sum(e.kind == "card_unreadable" for e in events)
        load.stop()
        analyzer = driver._analyzer
        single = sum(
            any(r.text == c.payload for r in analyzer.analyze(a).reads) for c, (a, _) in zip(cards, stills)
        )
        p50, p99 = pct(card_ms, 0.5), pct(card_ms, 0.99)
        print(f"\n[{name}] fallback to full frame: {'on' if analyzer.full_frame_fallback else 'off'}")
        print(
            f"  card frame : p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  max {max(card_ms):6.2f} ms  (n={len(card_ms)})"
        )
        print(
            f"  card frame, CPU time of this thread: p50 {pct(card_cpu_ms, 0.5):6.2f} ms  "
            f"p99 {pct(card_cpu_ms, 0.99):6.2f} ms  (what a busy neighbour does not inflate)"
        )
        print(
            f"  card event : p50 {pct(event_ms, 0.5):6.2f} ms  p99 {pct(event_ms, 0.99):6.2f} ms  "
            "(the frame that confirms the read; +1 frame interval of waiting for it)"
        )
        print(f"  empty frame: p50 {pct(empty_ms, 0.5):6.2f} ms  p99 {pct(empty_ms, 0.99):6.2f} ms")
        print(
            f"  read       : {dealt}/{len(cards)} cards dealt ({100 * dealt / len(cards):.1f}%), "
            f"{unreadable} reported unreadable, WRONG cards: {wrong}"
        )
        print(f"  single-frame read rate: {single}/{len(cards)} ({100 * single / len(cards):.1f}%)")
        verdict = "meets" if p99 < TARGET_MS else ("p50 meets, p99 misses" if p50 < TARGET_MS else "misses")
        cpu_verdict = "meets" if pct(card_cpu_ms, 0.99) < TARGET_MS else "misses"
        print(
            f"  target {TARGET_MS:.0f} ms per frame on one core: wall time {verdict}; CPU time p99 {cpu_verdict}"
        )
        print(f"  {load.summary()}")
        ok = ok and wrong == 0
        if args.compare:
            dec = make_decoder(name, args.symbology)
            hits, times = 0, []
            for c, (a, _) in zip(cards, stills):
                t = time.perf_counter()
                got = dec.decode(to_gray(a))
                times.append((time.perf_counter() - t) * 1000)
                hits += any(text == c.payload for text, _, _ in got)
            print(
                f"  no straightening (whole frame only): {hits}/{len(cards)} read "
                f"({100 * hits / len(cards):.1f}%), p50 {pct(times, 0.5):.2f} ms p99 {pct(times, 0.99):.2f} ms"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
