"""`studio check-config` and `studio run` check a file in one code path: through the real command line, both refuse
the same files with the same messages and exit code, before anything opens; both accept the same good files, and
a good file's studio starts even when a device of it cannot, pausing only that device's table."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from waiting import WAIT_S

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "config-cli-test-token-01"

HEAD = """
[studio]
data_dir = "data"
journal_writer = "thread"

[server]
port = {port}

[[consumers]]
name = "t"
token = "config-cli-test-token-01"
"""

WHEEL_ON_A_TTY = """
[[tables]]
id = "roulette-1"
game = "european_roulette"
[tables.device]
kind = "cammegh-ss2"
role = "wheel"
url = "{url}"
"""

SIMULATED_WHEEL = """
[[tables]]
id = "{id}"
game = "european_roulette"
[tables.device]
kind = "cammegh-ss2"
role = "wheel"
url = "simulator"
[tables.device.options]
keep_powered = true
[tables.device.simulator]
speed = 20
seed = 7
"""

BALL_DRAW = """
[[tables]]
id = "balls-1"
game = "lucky_6_48"
require_opening_check = false
[[tables.devices]]
kind = "modbus-ball-machine"
role = "machine"
url = "{url}"
[[tables.devices]]
kind = "serial-ball-reader"
role = "reader"
url = "simulator"
"""

CAMERA_WHEEL = """
[[tables]]
id = "roulette-3"
game = "european_roulette"
[[tables.devices]]
kind = "cammegh-ss2"
role = "wheel"
url = "simulator"
[[tables.devices]]
kind = "roulette-camera"
role = "camera"
url = "tcp://127.0.0.1:9"
"""

#: a single-deck game dealt by a simulated shoe: the shoe deals the game's one deck unless told otherwise
SINGLE_DECK = """
[[tables]]
id = "ab-1"
game = "andar_bahar"
betting_seconds = 0.5
auto_round_seconds = 0.5
[tables.device]
kind = "serial-shoe"
role = "shoe"
url = "simulator"
[tables.device.simulator]
speed = 20
seed = 3
[tables.device.simulator.options]
follow_judge = true
deal_interval = 0.05
{decks}
"""

BAD: dict[str, tuple[str, list[str]]] = {
    "ball machine at socket://": (
        SIMULATED_WHEEL.format(id="roulette-2") + BALL_DRAW.format(url="socket://127.0.0.1:5020"),
        ['table "balls-1" (tables[1]), key devices[0].url', "modbus-tcp://127.0.0.1:5020"],
    ),
    "roulette camera without its calibration": (
        SIMULATED_WHEEL.format(id="roulette-2") + CAMERA_WHEEL,
        ['table "roulette-3" (tables[1]), key devices[1].options', "needs its calibration"],
    ),
    "port as a string": (
        SIMULATED_WHEEL.format(id="roulette-2"),
        ["key server.port", "valid integer", "18110 without quotes"],
    ),
    "port out of range": (
        SIMULATED_WHEEL.format(id="roulette-2"),
        ["key server.port", "65535"],
    ),
    "two devices on one tty": (
        WHEEL_ON_A_TTY.format(url="/dev/ttyUSB0")
        + WHEEL_ON_A_TTY.format(url="spy:///dev/ttyUSB0?file=trace.txt").replace("roulette-1", "roulette-2"),
        [
            'table "roulette-2" (tables[1]), key device.url',
            'table "roulette-1" (tables[0]), key device.url opens it already',
        ],
    ),
    "two devices on one URL": (
        WHEEL_ON_A_TTY.format(url="socket://10.0.0.5:4001")
        + WHEEL_ON_A_TTY.format(url="socket://10.0.0.5:4001").replace("roulette-1", "roulette-2"),
        ['table "roulette-2" (tables[1]), key device.url', 'table "roulette-1" (tables[0]), key device.url'],
    ),
    "a shoe simulator dealing other decks than the game's": (
        SIMULATED_WHEEL.format(id="roulette-2") + SINGLE_DECK.format(decks="decks = 8"),
        ['table "ab-1" (tables[1])', "deals 8 decks", "andar_bahar is played with 1"],
    ),
}
PORTS = {"port as a string": '"18110"', "port out of range": "99999"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write(tmp_path: Path, body: str, port: str | None = None) -> Path:
    path = tmp_path / "studio.toml"
    path.write_text(HEAD.format(port=port or free_port()) + body)
    return path


def studio(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )


@contextmanager
def running(path: Path) -> Iterator[Callable[[str], Any]]:
    """`studio run` on the file, until it serves; yields GET (JSON) on it; stops it with Ctrl-C (SIGINT)."""
    port = int(next(line for line in path.read_text().splitlines() if line.startswith("port")).split("=")[1])
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "run", "--config", str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def get(url_path: str) -> Any:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}{url_path}", headers={"Authorization": f"Bearer {TOKEN}"}
        )
        with urllib.request.urlopen(request, timeout=WAIT_S) as r:
            return json.loads(r.read())

    try:
        until(lambda: _answers(get, proc), "the studio to serve /v1/health")
        yield get
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        assert proc.returncode == 0, (out, err)
        assert "Traceback" not in err, err


def _answers(get: Callable[[str], Any], proc: subprocess.Popen[str]) -> bool:
    if proc.poll() is not None:
        raise AssertionError(f"studio run ended with {proc.returncode}: {proc.communicate()}")
    try:
        return bool(get("/v1/health"))
    except urllib.error.HTTPError:
        return True  # it answers: 503 is the health of a studio none of whose tables can play
    except OSError:
        return False


def until(cond: Callable[[], Any], what: str) -> Any:
    end = time.monotonic() + WAIT_S
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


@pytest.mark.parametrize("case", sorted(BAD))
def test_run_and_check_config_refuse_the_same_file_with_the_same_words(tmp_path: Path, case: str) -> None:
    body, words = BAD[case]
    path = write(tmp_path, body, PORTS.get(case))
    checked = studio("check-config", str(path))
    ran = studio("run", "--config", str(path))
    assert checked.returncode == ran.returncode == 2, (checked, ran)
    assert checked.stderr == ran.stderr, (checked.stderr, ran.stderr)
    assert ran.stdout == "", ran.stdout  # refused before the banner
    assert "Traceback" not in ran.stderr
    lines = ran.stderr.splitlines()
    assert lines[0] == "studio: configuration refused:"
    assert all(line.startswith(f"{path}: ") for line in lines[1:]), lines
    assert all(w in ran.stderr for w in words), ran.stderr
    assert not (tmp_path / "data").exists()  # nothing was opened or created


def test_every_problem_of_a_file_is_named_not_just_the_first(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        BALL_DRAW.format(url="socket://127.0.0.1:5020")
        + CAMERA_WHEEL
        + SINGLE_DECK.format(decks="decks = 8"),
        port="99999",
    )
    ran = studio("run", "--config", str(path))
    assert ran.returncode == 2 and ran.stderr == studio("check-config", str(path)).stderr
    problems = ran.stderr.splitlines()[1:]
    assert len(problems) == 4, problems
    for words in ("key server.port", 'table "balls-1" (tables[0])', 'table "roulette-3" (tables[1])'):
        assert any(words in p for p in problems), (words, problems)
    assert 'table "ab-1" (tables[2])' in problems[-1]  # in the file's order


GOOD = {
    "devices on ttys that are not plugged in": WHEEL_ON_A_TTY.format(url="/dev/ttyUSB-config-test-absent")
    + SIMULATED_WHEEL.format(id="roulette-2"),
    "a single-deck game's simulated shoe with no decks given": SINGLE_DECK.format(decks=""),
    "Modbus units of one gateway": BALL_DRAW.format(url="modbus-tcp://127.0.0.1:5020?unit=1")
    + BALL_DRAW.format(url="modbus-tcp://127.0.0.1:5020?unit=2").replace("balls-1", "balls-2"),
}


@pytest.mark.parametrize("case", sorted(GOOD))
def test_run_and_check_config_accept_the_same_good_files(tmp_path: Path, case: str) -> None:
    path = write(tmp_path, GOOD[case])
    checked = studio("check-config", str(path))
    assert checked.returncode == 0 and f"{path}: ok (" in checked.stdout, checked
    with running(path) as get:
        configured = {t["id"] for t in tomllib.loads(path.read_text())["tables"]}
        assert {t["table_id"] for t in get("/v1/tables")} == configured


def test_a_table_whose_device_cannot_start_pauses_and_the_others_play(tmp_path: Path) -> None:
    # roulette-1's tty is absent; roulette-4's simulator cannot start (an option its factory does not take);
    # roulette-2 and the single-deck ab-1 play and certify
    broken = (
        SIMULATED_WHEEL.format(id="roulette-4") + "[tables.device.simulator.options]\nno_such_option = 1\n"
    )
    path = write(
        tmp_path,
        WHEEL_ON_A_TTY.format(url="/dev/ttyUSB-config-test-absent")
        + SIMULATED_WHEEL.format(id="roulette-2")
        + broken
        + SINGLE_DECK.format(decks=""),
    )
    assert studio("check-config", str(path)).returncode == 0  # only opening the device finds it
    with running(path) as get:
        seen: dict[str, set[str]] = {"roulette-2": set(), "ab-1": set()}  # round ids, table by table
        certified: set[str] = set()

        def played() -> bool:
            for t in get("/v1/tables"):
                if t["table_id"] in seen and t["round"]:
                    seen[t["table_id"]].add(t["round"]["round_id"])
            for table_id, rounds in seen.items():
                if table_id not in certified and any(state(r) == "certified" for r in rounds):
                    certified.add(table_id)
            return certified == set(seen)

        def state(round_id: str) -> str | None:
            try:
                return get(f"/v1/rounds/{round_id}")["round"]["state"]
            except urllib.error.HTTPError as exc:
                if exc.code == 404:  # the table shows a round before its first record is durable
                    return None
                raise

        until(played, "a certified round at roulette-2 and at ab-1")
        tables = {t["table_id"]: t for t in get("/v1/tables")}
        assert tables["roulette-1"]["status"] == "paused"
        assert "/dev/ttyUSB-config-test-absent" in tables["roulette-1"]["paused_reason"]
        assert tables["roulette-4"]["status"] == "paused"
        assert "could not start" in tables["roulette-4"]["paused_reason"]
        assert "no_such_option" in tables["roulette-4"]["paused_reason"]
        assert tables["roulette-2"]["status"] == tables["ab-1"]["status"] == "running"
        assert len(get("/v1/health")["tables"]) == 4
