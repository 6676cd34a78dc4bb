"""docs/client.md's complete backend, run as written against a real studio: it settles results, and started
again it goes on from where it stopped (at least once, as the document says); and the package imports nothing
of the studio's."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from client_studio import FEED_TOKEN, ServedStudio, wheel_table
from studio_client import FileSeqStore
from waiting import WAIT_S, until

ROOT = Path(__file__).resolve().parents[2]


def _example() -> str:
    doc = (ROOT / "docs" / "client.md").read_text(encoding="utf-8")
    code = doc.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.splitlines()) < 40
    return code


def _run_until(script: Path, env: dict[str, str], settlements: int) -> list[str]:
    """Run the backend until it printed `settlements` settlements, then stop it."""
    proc = subprocess.Popen(
        [sys.executable, str(script)], cwd=script.parent, env=env, stdout=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    try:
        until(
            lambda: sum(x.startswith("settle ") for x in lines) >= settlements or proc.poll() is not None,
            f"{settlements} settlements from the docs' backend",
        )
        assert proc.poll() is None, f"the backend ended: {lines}"
    finally:
        proc.terminate()
        proc.wait(WAIT_S)
        reader.join(WAIT_S)
    return lines


def test_the_docs_backend_settles_and_resumes_where_it_stopped(tmp_path: Path) -> None:
    served = ServedStudio(tmp_path / "data", [wheel_table()], checkpoint_seconds=0.5)
    try:
        script = tmp_path / "backend" / "backend.py"
        script.parent.mkdir()
        script.write_text(_example(), encoding="utf-8")
        env = {**os.environ, "STUDIO_URL": served.url, "STUDIO_TOKEN": FEED_TOKEN}
        first = _run_until(script, env, 2)
        stored = FileSeqStore(script.parent / "feed-position.json").load()
        second = _run_until(script, env, 2)
    finally:
        served.stop()
    assert stored.public_key == served.studio.public_key_b64 and stored.last_seq > 0
    settled = [x for x in first + second if x.startswith("settle ")]
    rounds = [int(x.split("#", 1)[1].split(" ", 1)[0]) for x in settled]
    assert sorted(set(rounds)) == list(range(1, max(rounds) + 1))  # none missed across the restart
    # at least once, as documented: only the round being settled when the first run was stopped comes again
    first_rounds = [r for r, x in zip(rounds, settled) if x in first]
    assert len(rounds) - len(set(rounds)) <= 1 and rounds == sorted(rounds)
    assert all(r == first_rounds[-1] for r in rounds if rounds.count(r) > 1)


def test_the_package_stands_alone(tmp_path: Path) -> None:
    """Importing studio_client loads none of the studio's own packages (it is installed on its own)."""
    ours = {"app", "studio", "devices", "recognition", "streaming", "dealer_ui", "simulators", "discovery"}
    code = (
        "import sys, studio_client\n"
        f"loaded = sorted({{m.split('.')[0] for m in sys.modules}} & set({sorted(ours)!r}))\n"
        "assert not loaded, loaded\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
