"""Shared by every test folder. Its folder, tests/, is on sys.path, so the helper modules here (event_log,
waiting, thread_leaks, fixture_files) import by name from any test."""

from __future__ import annotations

import pytest
from event_log import EventLog


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("numprocesses", None) and not hasattr(config, "workerinput"):
        return  # the controller of pytest -n N runs no test: only its workers need the fork server
    # The journal's writer processes are forked from one fork server, started by the first journal and kept for
    # the life of the process (with its pipe and socket). Start it before any test, so that the tests that check
    # for descriptors left open do not count it against the first test that opens a journal.
    from studio.journal import writer_fork_server

    writer_fork_server()


@pytest.fixture
def events() -> EventLog:
    """A driver's on_event sink to wait on (tests/event_log.py)."""
    return EventLog()
