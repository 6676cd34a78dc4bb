"""The journal's writer in a process of its own (the default): same journal as the thread writer, and it
neither loses nor outlives the studio: Ctrl-C does not stop it, a dead writer stops the journal loudly, a
killed studio leaves no writer behind and an intact journal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from waiting import WAIT_S

from studio.config import ConfigError, parse_config
from studio.journal import Journal, JournalClosed, verify_journal
from studio.keys import load_or_create_key

ROOT = Path(__file__).resolve().parents[2]


def feed_message(n: int) -> dict:
    return {
        "kind": "result",
        "table_id": "t1",
        "game": "european_roulette",
        "round_id": f"r{n}",
        "round_number": n,
        "version": 1,
        "result": {"number": str(n % 37)},
        "outcome": {"winning_bets": []},
        "reason": None,
        "source": {"type": "device", "device_id": "w1", "serial_number": "S1"},
        "commitment": None,
        "reveal": None,
    }


def write_some(j: Journal, n: int) -> None:
    for i in range(1, n + 1):
        j.append(
            "device_event",
            {"kind": "wheel_status", "i": i, "text": "é ü 中"},
            table_id="t1",
            round_id=f"r{i}",
        )
        projection = {"round_id": f"r{i}", "table_id": "t1", "round_number": i, "state": "certified"}
        j.append(
            "round_state",
            dict(projection, transition="certify"),
            table_id="t1",
            round_id=f"r{i}",
            round_projection=projection,
        )
        j.append_feed(feed_message(i))
    j.flush()


def records(path: Path) -> list[tuple]:
    import sqlite3

    db = sqlite3.connect(path / "journal.sqlite3")
    try:
        return list(db.execute("SELECT seq, kind, table_id, round_id, feed_seq FROM records ORDER BY seq"))
    finally:
        db.close()


def writer_pid(j: Journal) -> int:
    return j._sink.pid  # type: ignore[union-attr]


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in state


def test_process_and_thread_writers_write_the_same_journal(tmp_path: Path) -> None:
    out = {}
    for writer in ("process", "thread"):
        d = tmp_path / writer
        j = Journal(d, load_or_create_key(d), writer=writer)
        try:
            write_some(j, 7)
            assert j.get_round("r7")["state"] == "certified"
            assert [s for s, _ in j.read_after(0, 100)] == list(range(1, 8))
        finally:
            j.close()
        report = verify_journal(d)
        assert report.ok, report.error
        assert (report.records, report.feed_messages) == (22, 7)
        out[writer] = records(d)
    assert out["process"] == out["thread"]


def test_the_writer_runs_in_another_process_that_ends_with_close(tmp_path: Path) -> None:
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    pid = writer_pid(j)
    assert pid != os.getpid() and not gone(pid)
    write_some(j, 2)
    j.close()
    assert gone(pid)
    assert verify_journal(tmp_path).ok


def test_ctrl_c_does_not_stop_the_writer(tmp_path: Path) -> None:
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    try:
        os.kill(writer_pid(j), signal.SIGINT)  # the terminal sends it to the whole process group
        os.kill(writer_pid(j), signal.SIGTERM)
        time.sleep(0.2)
        write_some(j, 3)  # the studio's shutdown still has its voids to write
        assert not gone(writer_pid(j))
    finally:
        j.close()
    assert verify_journal(tmp_path).feed_messages == 3


def test_a_dead_writer_stops_the_journal_loudly_and_loses_nothing_it_said_was_durable(tmp_path: Path) -> None:
    committed: list = []
    j = Journal(tmp_path, load_or_create_key(tmp_path), on_commit=committed.extend)
    try:
        write_some(j, 2)
        os.kill(writer_pid(j), signal.SIGKILL)
        deadline = time.monotonic() + WAIT_S
        while j.failure is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert isinstance(j.failure, JournalClosed) and "writer process ended" in str(j.failure)
        with pytest.raises(JournalClosed, match="failed"):
            j.append("device_event", {"i": 99}, table_id="t1")
    finally:
        j.close()  # does not hang on the dead writer
    report = verify_journal(tmp_path)
    assert report.ok and report.feed_messages == 2
    assert len(records(tmp_path)) == 1 + len(committed)  # the key record, then everything reported durable


def test_a_record_that_is_not_data_stops_the_journal_and_fails_its_caller(tmp_path: Path) -> None:
    j = Journal(tmp_path, load_or_create_key(tmp_path))
    try:
        write_some(j, 1)
        with open(os.devnull) as handle:
            future = j.append("device_event", {"handle": handle}, table_id="t1")
            with pytest.raises(TypeError):
                future.result(10)
        with pytest.raises(JournalClosed):
            j.append("device_event", {"i": 1}, table_id="t1")
    finally:
        j.close()
    assert verify_journal(tmp_path).ok


STUDIO_SCRIPT = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from studio.journal import Journal
    from studio.keys import load_or_create_key
    from pathlib import Path
    d = Path({data!r})
    j = Journal(d, load_or_create_key(d))
    print(j._sink.pid, flush=True)
    i = 0
    while True:
        i += 1
        j.append("device_event", {{"i": i}}, table_id="t1")
        if i % 50 == 0:
            j.flush()
            print("durable", i, flush=True)
""")


def test_a_killed_studio_leaves_no_writer_behind_and_an_intact_journal(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", STUDIO_SCRIPT.format(root=str(ROOT), data=str(tmp_path))],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        pid = int(proc.stdout.readline())
        durable = 0
        while durable < 200:
            line = proc.stdout.readline()
            assert line, "the studio script ended early"
            durable = int(line.split()[1])
        proc.kill()  # SIGKILL mid-stream
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + WAIT_S
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert gone(pid), "the writer process outlived the studio"
    report = verify_journal(tmp_path)
    assert report.ok, report.error
    assert report.records >= 1 + durable
    j = Journal(tmp_path, load_or_create_key(tmp_path))  # and the next start carries on the chain
    try:
        write_some(j, 1)
    finally:
        j.close()
    assert verify_journal(tmp_path).ok


def test_the_writer_is_a_setting(tmp_path: Path) -> None:
    base = {"studio": {"data_dir": str(tmp_path)}, "consumers": [], "tables": []}
    assert parse_config(base, "t").studio.journal_writer == "process"
    assert (
        parse_config(
            {**base, "studio": {"data_dir": str(tmp_path), "journal_writer": "thread"}}, "t"
        ).studio.journal_writer
        == "thread"
    )
    with pytest.raises(ConfigError, match="journal_writer"):
        parse_config({**base, "studio": {"data_dir": str(tmp_path), "journal_writer": "fork"}}, "t")
    with pytest.raises(ValueError, match="writer"):
        Journal(tmp_path, load_or_create_key(tmp_path), writer="fork")


def test_a_burst_larger_than_the_pipes_neither_deadlocks_nor_loses_a_record(tmp_path: Path) -> None:
    """The appender blocks on a full pipe while the writer blocks on a full pipe of replies: the replies must
    still be taken (the appender's lock must not stop them), or neither side moves again."""
    import threading

    j = Journal(tmp_path, load_or_create_key(tmp_path))
    futures: list = []
    N = 30000

    def burst() -> None:
        for i in range(N):  # ~10 MB of records, replies of up to a thousand records: beyond both pipes
            futures.append(j.append("device_event", {"i": i, "pad": "x" * 300}, table_id="t1"))

    try:
        producer = threading.Thread(target=burst)
        producer.start()
        producer.join(60)
        assert not producer.is_alive(), "the appender is stuck"
        assert [f.result(60).seq for f in futures] == list(range(2, N + 2))
    finally:
        j.close()
    assert verify_journal(tmp_path).records == N + 1


def test_the_writer_is_our_code_whatever_the_working_directory(tmp_path: Path) -> None:
    # a studio started from a folder holding another checkout: its studio/ must not be the writer's code
    decoy = tmp_path / "elsewhere" / "studio"
    decoy.mkdir(parents=True)
    marker = tmp_path / "decoy-ran"
    (decoy / "__init__.py").write_text("")
    (decoy / "journal_writer.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise SystemExit(3)\n")
    data = tmp_path / "data"
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from studio.journal import Journal
        from studio.keys import load_or_create_key
        d = Path({str(data)!r})
        j = Journal(d, load_or_create_key(d))
        j.append("device_event", {{"i": 1}}, table_id="t1")
        j.flush()
        j.close()
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=decoy.parent, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "the writer ran the working directory's studio/"
    assert verify_journal(data).ok
