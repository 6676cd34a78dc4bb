"""Checkpoints on the feed (the journal's head, signed and chained) and `studio verify --expect SEQ:HASH`, which
catches a journal whose last records were deleted: the chain alone cannot (docs/design.md)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from integrity_helpers import TOKEN, Served, make_studio, wheel_table
from waiting import WAIT_S, until
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from streaming.canonical import load_public_key_b64, verify_message
from streaming.messages import CheckpointMessage, parse_feed_message
from studio.journal import verify_journal
from studio.journal_writer import JOURNAL_FILE

ROOT = Path(__file__).resolve().parents[2]


class Run:
    def __init__(self, data: Path, messages: list[dict[str, Any]], public_key: str) -> None:
        self.data = data
        self.messages = messages
        self.public_key = public_key

    def checkpoints(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["kind"] == "checkpoint"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """A studio with a checkpoint every 0.2 s and a backend reading its feed until a few results are in."""
    data = tmp_path_factory.mktemp("checkpoints") / "data"
    served = Served(make_studio(data, [wheel_table(speed=60)], checkpoint_seconds=0.2))
    messages: list[dict[str, Any]] = []
    auth = {"Authorization": f"Bearer {TOKEN}"}
    try:
        with connect(
            f"ws://127.0.0.1:{served.port}/v1/feed?after=0", additional_headers=auth, open_timeout=WAIT_S
        ) as ws:

            def read() -> None:
                try:
                    while True:
                        messages.append(json.loads(ws.recv()))
                except ConnectionClosed:
                    pass

            reader = threading.Thread(target=read, name="integrity-checkpoints", daemon=True)
            reader.start()
            until(
                lambda: (
                    sum(m["kind"] == "checkpoint" for m in messages) >= 5
                    and any(m["kind"] == "result" for m in messages)
                ),
                "five checkpoints and a result on the feed",
            )
            held = len(messages)
    finally:
        served.stop()
    yield Run(data, messages[:held], served.studio.public_key_b64)


def test_checkpoints_are_signed_chained_feed_messages_on_a_short_interval(run: Run) -> None:
    key = load_public_key_b64(run.public_key)
    assert [m["seq"] for m in run.messages] == list(range(1, len(run.messages) + 1))
    for before, m in zip(run.messages, run.messages[1:]):
        assert m["prev_hash"] == before["hash"]
    heads = []
    for m in run.checkpoints():
        verify_message(m, key)
        cp = parse_feed_message(m)
        assert isinstance(cp, CheckpointMessage)
        heads.append(cp.head.journal_seq)
    assert heads == sorted(heads) and len(set(heads)) == len(heads)  # the journal grew between them


def test_the_shutdown_writes_a_last_checkpoint_and_verify_accepts_every_checkpoint(run: Run) -> None:
    db = sqlite3.connect(f"file:{run.data / JOURNAL_FILE}?mode=ro", uri=True)
    try:
        (last_kind,) = db.execute(
            "SELECT kind FROM records WHERE feed_seq = (SELECT MAX(feed_seq) FROM records)"
        )
    finally:
        db.close()
    assert last_kind == ("checkpoint",)
    for m in run.checkpoints():
        report = verify_journal(run.data, expect=(m["seq"], m["hash"]))
        assert report.ok, report.error


def _truncated_copy(run: Run, folder: Path, feed_seq: int) -> tuple[Path, int]:
    """A copy of the journal without its records from the one holding feed message `feed_seq` on."""
    folder.mkdir()
    src = sqlite3.connect(f"file:{run.data / JOURNAL_FILE}?mode=ro", uri=True)
    dst = sqlite3.connect(folder / JOURNAL_FILE)
    try:
        src.backup(dst)
        # whoever edits the file drops the append-only triggers first
        for (name,) in dst.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            dst.execute(f'DROP TRIGGER "{name}"')
        (cut,) = dst.execute("SELECT seq FROM records WHERE feed_seq = ?", (feed_seq,)).fetchone()
        deleted = dst.execute("DELETE FROM records WHERE seq >= ?", (cut,)).rowcount
        dst.commit()
    finally:
        src.close()
        dst.close()
    return folder, deleted


def _verify(data: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "verify", "--data", str(data), *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )


def test_a_journal_cut_short_passes_plain_verify_but_not_verify_expect(run: Run, tmp_path: Path) -> None:
    held = run.checkpoints()[-2]  # the newest checkpoint this backend holds, with records after it
    copy, deleted = _truncated_copy(run, tmp_path / "copy", held["seq"])
    assert deleted > 1

    plain = _verify(copy)
    assert plain.returncode == 0 and "journal ok" in plain.stdout  # the documented limit of the chain alone

    expect = _verify(copy, "--expect", f"{held['seq']}:{held['hash']}")
    assert expect.returncode == 1
    assert (
        "shorter than expected" in expect.stderr and f"feed message {held['seq']} is missing" in expect.stderr
    )

    whole = _verify(run.data, "--expect", f"{held['seq']}:{held['hash']}")
    assert whole.returncode == 0, whole.stderr


def test_verify_expect_names_a_hash_that_differs(run: Run) -> None:
    held = run.checkpoints()[0]
    other = "0" * 64
    r = _verify(run.data, "--expect", f"{held['seq']}:{other}")
    assert r.returncode == 1
    assert f"feed message {held['seq']}'s hash is {held['hash']}, not the {other} expected" in r.stderr


def test_verify_expect_refuses_a_malformed_head(run: Run) -> None:
    r = _verify(run.data, "--expect", "12:nothex")
    assert r.returncode == 2 and "SEQ:HASH" in r.stderr


def test_the_checkpoint_example_in_the_docs_verifies_and_chains_after_the_correction() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    doc = (ROOT / "docs" / "feed.md").read_text(encoding="utf-8")
    test_key = Ed25519PrivateKey.from_private_bytes(
        bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    ).public_key()
    blocks = [json.loads(part.split("```", 1)[0]) for part in doc.split("```json\n")[1:]]
    by_seq = {m["seq"]: m for m in blocks if "seq" in m}
    checkpoint = by_seq[43]
    verify_message(checkpoint, test_key)
    assert isinstance(parse_feed_message(checkpoint), CheckpointMessage)
    assert checkpoint["prev_hash"] == by_seq[42]["hash"]
