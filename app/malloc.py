"""The C allocator's settings for a long-running studio (glibc's malloc; elsewhere nothing is changed).

The studio's threads (device drivers, simulators, camera decoding, recognition) allocate camera frames and
their working copies, 1-11 MB each, many times a second. glibc's defaults suit short programs and hold on to
that memory in a long one:

* it gives each thread that meets a locked arena one of its own (up to 8 a core), each keeping its free
  memory: `ARENA_MAX` arenas are enough when most of the work holds the GIL;
* its mmap threshold is dynamic: after a large block is freed it rises to that block's size, so later frames
  come from an arena, where a frame freed below a live small block is not given back. A threshold fixed low
  (every frame its own mapping) gives it back at once but costs a page fault per 4 KiB of every frame (the
  demo's simulators: 70,000 faults a second, 44 % of its CPU time in the kernel); `MMAP_THRESHOLD` keeps frames
  in the arenas, where the next frame reuses them, and `trimming` gives the arenas' free pages back to the
  system every `TRIM_EVERY` seconds (`malloc_trim`).

bench/memory_soak.py measures the effect; bench/README.md has the figures.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8  # glibc's malloc.h
MMAP_THRESHOLD = 32 << 20  # bytes: glibc's largest; a block this large or larger has a mapping of its own
TRIM_THRESHOLD = 8 << 20  # bytes free at the top of the main heap before it is given back
ARENA_MAX = 2
TRIM_EVERY = 30.0  # seconds


def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
    except (OSError, AttributeError):  # musl and others: no mallopt, no malloc_trim
        return None
    return libc


def tune_malloc() -> bool:
    """Apply the settings above before the studio's threads start; False when the C library is not glibc."""
    libc = _libc()
    if libc is None:
        return False
    done = [
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD),
        libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD),
        libc.mallopt(M_ARENA_MAX, ARENA_MAX),
    ]
    return all(done)


@contextmanager
def trimming(every: float = TRIM_EVERY) -> Iterator[None]:
    """While the block runs, a thread gives the allocator's free pages back every `every` seconds."""
    libc = _libc()
    if libc is None:
        yield
        return
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every):
            libc.malloc_trim(0)

    thread = threading.Thread(target=run, name="malloc-trim", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
