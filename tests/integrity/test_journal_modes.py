"""The journal is nobody else's to read: its folder 0700, its files 0600 (new ones made so, old ones tightened)."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest
from waiting import WAIT_S

from studio.journal import Journal
from studio.journal_writer import JOURNAL_FILE
from studio.keys import load_or_create_key


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _append_one(data_dir: Path) -> None:
    journal = Journal(data_dir, load_or_create_key(data_dir))
    try:
        journal.append("note", {"code": "test", "message": "hello"}).result(WAIT_S)
        for end in ("", "-wal", "-shm"):
            path = data_dir / (JOURNAL_FILE + end)
            if path.exists():
                assert _mode(path) == 0o600, (path, oct(_mode(path)))
    finally:
        journal.close()


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_a_new_journal_and_its_folder_are_private(tmp_path: Path, umask: int) -> None:
    data_dir = tmp_path / "data" / "studio"
    old = os.umask(umask)
    try:
        _append_one(data_dir)
    finally:
        os.umask(old)
    assert _mode(data_dir) == 0o700
    assert _mode(data_dir / JOURNAL_FILE) == 0o600


def test_an_old_world_readable_journal_is_tightened_and_the_log_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data_dir = tmp_path / "data"
    _append_one(data_dir)
    os.chmod(data_dir / JOURNAL_FILE, 0o644)  # as the studio made it before
    os.chmod(data_dir, 0o755)
    with caplog.at_level(logging.WARNING, logger="studio.journal"):
        _append_one(data_dir)
    assert _mode(data_dir) == 0o700
    assert _mode(data_dir / JOURNAL_FILE) == 0o600
    said = [r.getMessage() for r in caplog.records if "tightened" in r.getMessage()]
    assert any("0o644" in m and JOURNAL_FILE in m for m in said), said
    assert any("0o755" in m and "data folder" in m for m in said), said
