"""Fixtures for device tests: the SS2 capture, fake wheels on real ptys, a thread-leak check."""

from __future__ import annotations

import os
import select
import time
import tty
from collections.abc import Callable, Iterator

import pytest
from fixture_files import ss2_capture
from thread_leaks import no_new_threads  # tests/ is on sys.path (tests/conftest.py)


@pytest.fixture(scope="session")
def capture_bytes() -> bytes:
    return ss2_capture()


@pytest.fixture(scope="session")
def capture_lines(capture_bytes: bytes) -> list[str]:
    return capture_bytes.decode("ascii").split("\r\n")[:-1]


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    """Like pymodbus' system_health_check: a test must not leave threads behind."""
    with no_new_threads():
        yield


class FakeWheel:
    """The wheel end of a real pty: the driver opens ``path``; we write the master."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)  # no \n -> \r\n translation, no echo
        self.path = os.ttyname(self.slave)
        self._rx = bytearray()

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self.master, view)
            view = view[n:]

    def read_exactly(self, n: int, timeout: float = 2.0) -> bytes:
        """Read exactly n bytes the driver sent, or fail after timeout."""
        deadline = time.monotonic() + timeout
        while len(self._rx) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"expected {n} bytes, got {bytes(self._rx)!r}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                self._rx += os.read(self.master, 4096)
        out, self._rx = bytes(self._rx[:n]), self._rx[n:]
        return out

    def read_available(self, wait: float = 0.05) -> bytes:
        ready, _, _ = select.select([self.master], [], [], wait)
        if ready:
            self._rx += os.read(self.master, 4096)
        out, self._rx = bytes(self._rx), bytearray()
        return out

    def unplug(self) -> None:
        for fd in (self.master, self.slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = None  # type: ignore[assignment]

    close = unplug


@pytest.fixture
def make_wheel() -> Iterator[Callable[[], FakeWheel]]:
    wheels: list[FakeWheel] = []

    def make() -> FakeWheel:
        w = FakeWheel()
        wheels.append(w)
        return w

    yield make
    for w in wheels:
        w.close()
