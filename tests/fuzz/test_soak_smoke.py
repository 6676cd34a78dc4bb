"""The accelerated soak (bench/soak.py) works: a tiny run with one SIGKILL, unplugs and garbage passes its audit,
and the audit fails a run that lost or repeated a seq."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SOAK = REPO / "bench" / "soak.py"


def soak_module() -> Any:
    spec = importlib.util.spec_from_file_location("bench_soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_tiny_soak_passes_its_audit(tmp_path: Path) -> None:
    report_file = tmp_path / "soak.json"
    run = subprocess.run(
        [
            sys.executable,
            str(SOAK),
            "--tables=2",
            "--rounds=4",
            "--kill-at=2",
            "--unplug-every=2",
            "--garbage-every=0.5",
            "--data",
            str(tmp_path / "soak"),
            "--json",
            str(report_file),
        ],
        capture_output=True,
        text=True,
        timeout=600,  # a guard against a hang only: the run takes seconds
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(report_file.read_text())
    assert report["kills"] == 1 and report["studio_starts"] == 2 and report["consumer_clients"] == 2
    assert report["rounds_finished"] >= 8 and report["rounds_certified"] >= 1
    verified = " ".join(report["verify"])
    assert report["verify_rc"] == 0 and "journal ok" in verified and "is the one expected" in verified
    assert report["seqs_once"] == report["feed_last_seq"] > 0
    assert report["seqs_missing"] == report["seqs_twice_or_more"] == 0
    assert "audit             PASS" in run.stdout


def test_the_audit_fails_a_lost_or_repeated_seq() -> None:
    soak = soak_module()
    good = {
        "verify_rc": 0,
        "seqs_missing": 0,
        "seqs_twice_or_more": 0,
        "seqs_beyond_journal": 0,
        "journal_feed_seqs_unique": True,
        "consumer_error": None,
        "seqs_once": 12,
        "feed_last_seq": 12,
    }
    assert soak.audit_ok(good)
    for bad in (
        {"seqs_missing": 1, "seqs_once": 11},
        {"seqs_twice_or_more": 1, "seqs_once": 11},
        {"verify_rc": 1},
        {"consumer_error": "ChainBroken('seq 5 follows seq 3')"},
    ):
        assert not soak.audit_ok({**good, **bad}), bad
