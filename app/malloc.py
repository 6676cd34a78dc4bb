"""The C allocator's settings for a long-running studio (glibc's malloc; elsewhere nothing is changed).

The studio's threads (device drivers, simulators, camera decoding) allocate camera frames of 1-11 MB many
times a second. glibc's defaults suit short programs and hold on to that memory in a long one:

* its mmap threshold is dynamic: once a large block is freed the threshold rises to that block's size, so
  later frames come from the heap, where a frame freed below a live small block cannot be given back: the
  resident size grows in a sawtooth with each new peak; a fixed threshold (`MMAP_THRESHOLD`) keeps every
  frame in a mapping of its own, unmapped when it is freed;
* it gives each thread that meets a locked arena one of its own (up to 8 a core), each keeping its free
  memory; `ARENA_MAX` arenas are enough when most of the work holds the GIL.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8  # glibc's malloc.h
MMAP_THRESHOLD = 1 << 20  # bytes: a block this large or larger has a mapping of its own
TRIM_THRESHOLD = 8 << 20  # bytes free at the heap's top before it is given back
ARENA_MAX = 2


def tune_malloc() -> bool:
    """Apply the settings above before the studio's threads start; False when the C library is not glibc."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl and others: no mallopt
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    done = [
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD),
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD),
        mallopt(M_ARENA_MAX, ARENA_MAX),
    ]
    return all(done)
