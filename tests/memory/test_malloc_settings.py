"""app/malloc.py: with the studio's malloc settings and its trimmer, freed camera-sized blocks leave the
resident size; under glibc's defaults they stay."""

from __future__ import annotations

import platform
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.malloc import trimming

REPO = Path(__file__).resolve().parents[2]

# a thread allocates 40 frames of 4 MB with a small block after each (which pins the heap below it), then
# frees them; printed: the resident MB with the frames held, and after they are freed (with the studio's
# settings: once the trimmer has run, waited for up to 60 s)
FRAMES = """
import sys, threading, time
sys.path.insert(0, sys.argv[1])
from app.malloc import trimming, tune_malloc

def rss():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmRSS")).split()[1]) // 1024

def work():
    first = bytearray(4 << 20)
    del first  # freeing one large block raises glibc's dynamic mmap threshold above it
    frames, pins = [], []
    for _ in range(40):
        frames.append(bytearray(4 << 20))
        pins.append(bytes(2000) + b"x")
    held = rss()
    frames.clear()
    if sys.argv[2] == "studio":
        with trimming(every=0.05):
            deadline = time.monotonic() + 60
            while rss() > held - 150 and time.monotonic() < deadline:
                time.sleep(0.05)
    print(held, rss())

if sys.argv[2] == "studio":
    assert tune_malloc()
t = threading.Thread(target=work)
t.start()
t.join()
"""

GLIBC = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc's malloc, /proc"
)


def held_and_freed(mode: str) -> tuple[int, int]:
    out = subprocess.run(
        [sys.executable, "-c", FRAMES, str(REPO), mode],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout.split()
    return int(out[0]), int(out[1])


@GLIBC
def test_freed_frames_are_given_back_with_the_studio_settings() -> None:
    held, freed = held_and_freed("studio")
    assert held - freed >= 0.9 * 160  # nearly all of the 160 MB of frames left the resident size


@GLIBC
def test_without_them_glibc_keeps_the_freed_frames() -> None:
    # what the settings are for: the same program under the defaults keeps the memory
    held, freed = held_and_freed("plain")
    assert held - freed < 0.5 * 160


def test_the_trimmer_runs_only_inside_its_block() -> None:
    before = set(threading.enumerate())
    with trimming(every=0.01):
        inside = [t.name for t in set(threading.enumerate()) - before]
    assert set(threading.enumerate()) <= before
    if platform.libc_ver()[0] == "glibc":
        assert inside == ["malloc-trim"]
