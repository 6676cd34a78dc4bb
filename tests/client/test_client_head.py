"""A studio whose head goes back is refused: restarted on a copy of its journal cut short, or sending a
checkpoint behind the one the backend holds."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from client_studio import FEED_TOKEN, ServedStudio, run, wheel_table
from studio_client import Checkpoint, FeedClient, FileSeqStore, HeadWentBack, Message, Position

from studio.journal_writer import JOURNAL_FILE


def _cut(data: Path, feed_seq: int) -> None:
    """Delete the journal's records from the one holding feed message `feed_seq` on, as a tamperer would."""
    db = sqlite3.connect(data / JOURNAL_FILE)
    try:
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            db.execute(f'DROP TRIGGER "{name}"')
        (cut,) = db.execute("SELECT seq FROM records WHERE feed_seq = ?", (feed_seq,)).fetchone()
        db.execute("DELETE FROM records WHERE seq >= ?", (cut,))
        db.commit()
    finally:
        db.close()


def test_a_studio_restarted_on_a_journal_cut_short_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    served = ServedStudio(data, [wheel_table()], checkpoint_seconds=0.2)
    store = FileSeqStore(tmp_path / "position.json")
    client = FeedClient(served.url, FEED_TOKEN, store=store, backoff=0.05)
    seen: list[Message] = []

    def on_message(message: Message) -> None:
        seen.append(message)
        if sum(isinstance(m, Checkpoint) for m in seen) >= 3 and message.seq >= 15:
            client.stop()

    try:
        run(client.run(on_message))
    finally:
        served.stop()
    held = store.load()
    assert held.last_seq >= 15 and held.head_journal_seq is not None

    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    _cut(copy, 5)  # ten messages and more gone: the restarted studio (no tables) does not write as many
    again = ServedStudio(copy, [], checkpoint_seconds=60)
    try:
        with pytest.raises(HeadWentBack, match="already processed"):
            run(FeedClient(again.url, FEED_TOKEN, store=store, backoff=0.05).run(lambda m: None))
    finally:
        again.stop()
    assert store.load() == held  # nothing of the shorter studio was taken


def test_a_checkpoint_behind_the_head_held_is_refused(tmp_path: Path) -> None:
    served = ServedStudio(tmp_path / "data", [wheel_table()], checkpoint_seconds=0.2)
    try:
        # a backend holding a head far ahead of this studio's: whatever journal it had, this one is not it
        store = FileSeqStore(tmp_path / "position.json")
        store.save(Position(head_journal_seq=10**9, head_journal_hash="e" * 64))
        with pytest.raises(HeadWentBack, match="went back from 1000000000"):
            run(FeedClient(served.url, FEED_TOKEN, store=store, backoff=0.05).run(lambda m: None))
        assert store.load().head_journal_seq == 10**9
    finally:
        served.stop()
