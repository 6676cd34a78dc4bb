"""Fixtures for the shoe tests: a scanner end of a real pty, a thread-leak check."""

from __future__ import annotations

import os
import tty
from collections.abc import Iterator

import pytest
from thread_leaks import no_new_threads  # tests/ is on sys.path (tests/conftest.py)


@pytest.fixture(autouse=True)
def no_thread_leak() -> Iterator[None]:
    """A test must not leave driver or simulator threads behind."""
    with no_new_threads():
        yield


class Scanner:
    """The scanner end of a real pty in raw mode: the driver opens ``path``; we write the master."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self.master, view)
            view = view[n:]

    def close(self) -> None:
        for fd in (self.master, self.slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = None  # type: ignore[assignment]


@pytest.fixture
def scanner() -> Iterator[Scanner]:
    s = Scanner()
    yield s
    s.close()
