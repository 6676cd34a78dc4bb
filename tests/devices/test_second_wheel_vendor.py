"""A second wheel vendor is one driver module.

The module below speaks a made-up line protocol ("PH BETS 7", "WN 7 17") and maps it onto the
vendor-neutral wheel events of devices/events.py. It is written into the devices package's search
path at test time, found by the real registry, accepted by the real configuration check, read over a
real pty by the real serial-line driver base, and its events run a round through the real judge and
rules. No other file knows it.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path

import pytest

import devices
from devices.events import WheelResult, WheelStatus
from devices.registry import all_drivers, all_replayers, driver_class
from recognition.game import CloseBetting, OpenRound, ResultReady, SendCommand, StartPlay
from recognition.games import game_rules
from studio.config import parse_config

VENDOR_MODULE = textwrap.dedent(
    '''
    """Acme roulette wheel: PH <phase> <game>, WN <game> <number>, WR <code> (a warning)."""

    from __future__ import annotations

    from devices.events import (
        START_SPIN,
        DeviceEvent,
        DeviceUnknownMessage,
        WheelResult,
        WheelStatus,
        WheelWarning,
        utcnow,
    )
    from devices.serial_line import SerialLineDriver

    PHASES = {"IDLE": "starting", "BETS": "spin_started", "RIM": "ball_in_rim", "NMB": "no_more_bets",
              "WIN": "winning_number", "OFF": "closed"}
    WARNINGS = {"M": "motor_fault", "S": "sensor_blind"}
    COMMANDS = {START_SPIN: "GO"}


    class AcmeWheelDriver(SerialLineDriver):
        kind = "acme-wheel"
        family = "roulette-wheel"
        baudrate = 19200

        def handle_line(self, line: str) -> list[DeviceEvent]:
            words, at = line.split(), utcnow()
            if len(words) == 3 and words[0] == "PH" and words[1] in PHASES and words[2].isdigit():
                phase = PHASES[words[1]]
                return [WheelStatus(device_id=self.device_id, at=at, phase=phase, game_counter=int(words[2]),
                                    raw=line)]
            if len(words) == 3 and words[0] == "WN" and words[1].isdigit():
                return [WheelResult(device_id=self.device_id, at=at, game_counter=int(words[1]),
                                    number=words[2], raw=line)]
            if len(words) == 2 and words[0] == "WR" and words[1] in WARNINGS:
                return [WheelWarning(device_id=self.device_id, at=at, code=WARNINGS[words[1]],
                                     vendor_code=words[1], raw=line)]
            return [DeviceUnknownMessage(device_id=self.device_id, at=at, raw=line)]

        def send(self, command: str) -> None:
            super().send(COMMANDS.get(command, command))


    def iter_events(chunks, device_id):
        """A capture of the wheel's lines, read as the driver reads its port (for `studio replay`)."""
        driver = AcmeWheelDriver(device_id, "capture", lambda event: None)
        for line in b"".join(chunks).decode().splitlines():
            if line.strip():
                yield from driver.handle_line(line.strip())


    DRIVERS = {"acme-wheel": AcmeWheelDriver}
    REPLAYERS = {"acme-wheel": iter_events}
    '''
)

A_GAME = ["PH IDLE 6", "PH BETS 7", "PH RIM 7", "PH NMB 7", "WN 7 17", "PH WIN 7"]


@pytest.fixture
def acme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The vendor's module, where the registry looks for drivers (devices.__path__)."""
    (tmp_path / "acme_wheel.py").write_text(VENDOR_MODULE)
    monkeypatch.setattr(devices, "__path__", [*devices.__path__, str(tmp_path)])
    all_drivers.cache_clear()
    all_replayers.cache_clear()
    yield driver_class("acme-wheel")
    all_drivers.cache_clear()
    all_replayers.cache_clear()
    sys.modules.pop("devices.acme_wheel", None)


def test_the_registry_finds_the_vendors_module_and_a_roulette_table_takes_it(acme):
    assert acme.kind == "acme-wheel" and acme.__module__ == "devices.acme_wheel"
    config = parse_config(
        {
            "tables": [
                {
                    "id": "acme-1",
                    "game": "european_roulette",
                    "device": {"kind": "acme-wheel", "url": "/dev/ttyUSB0"},
                }
            ]
        }
    )
    assert config.tables[0].all_devices[0].kind == "acme-wheel"
    with pytest.raises(ValueError, match="cannot be played with a acme-wheel"):
        parse_config(
            {
                "tables": [
                    {"id": "x", "game": "baccarat", "device": {"kind": "acme-wheel", "url": "/dev/ttyUSB0"}}
                ]
            }
        )


def test_the_console_gives_the_vendors_wheel_the_wheel_family_by_its_declared_family(acme):
    from dealer_ui.families import WHEEL, family_of
    from studio.device_slots import DeviceSlot

    slot = DeviceSlot("acme-1/wheel", "acme-wheel", "wheel", "ACME-1")
    assert slot.family == "roulette-wheel"
    family = family_of(slot)
    assert family.id == "wheel" and family.start == WHEEL.start and family.commands == ()


def test_a_round_over_a_pty_through_the_real_judge_and_rules(acme, make_wheel, events):
    wheel = make_wheel()
    driver = acme("acme-1/wheel", wheel.path, events, reconnect_min=0.02, reconnect_max=0.2)
    game = game_rules("european_roulette")
    # a line protocol gives no real timings here: the ball-revolution check is off, as for a replay
    judge = game.new_judge(**game.untimed_settings, auto_start=True, start_command="start_spin")
    decisions = []
    driver.start()
    try:
        events.wait_kind("device_connected")
        wheel.write("".join(f"{line}\r\n" for line in A_GAME).encode())
        events.wait_kind("wheel_status", phase="winning_number")
        for e in events.seen:
            decisions += judge.feed(e)
        for d in decisions:
            if isinstance(d, SendCommand):
                driver.send(d.command)  # the judge's neutral command, in the vendor's words
        # started at power-on and again once the game was certified: the vendor's own command both times
        sent = [d.command for d in decisions if isinstance(d, SendCommand)]
        assert sent == ["start_spin", "start_spin"]
        assert wheel.read_exactly(2 * len(b"GO" + driver.terminator.encode())) == 2 * (
            b"GO" + driver.terminator.encode()
        )
    finally:
        driver.stop()
    statuses = [e for e in events.seen if isinstance(e, WheelStatus)]
    assert [s.phase for s in statuses] == [
        "starting",
        "spin_started",
        "ball_in_rim",
        "no_more_bets",
        "winning_number",
    ]
    assert [e.number for e in events.seen if isinstance(e, WheelResult)] == ["17"]
    opened, closed, play, ready = (
        [d for d in decisions if isinstance(d, kind)]
        for kind in (OpenRound, CloseBetting, StartPlay, ResultReady)
    )
    assert [o.device_game for o in opened] == ["7"] and len(closed) == len(play) == 1
    assert [r.result for r in ready] == [{"number": "17", "game_counter": 7}]
    assert ready[0].source == {"device_id": "acme-1/wheel", "game_counter": 7}
    result = game.validate_result(ready[0].result)
    assert result == {"number": "17", "color": "black"}
    assert {"bet": "straight:17"}.items() <= game.outcome(result)["winning_bets"][0].items()


def test_studio_replay_reads_the_vendors_capture_through_its_declared_reader(acme, tmp_path, capsys):
    from app.audit import cmd_replay

    capture = tmp_path / "acme.log"
    capture.write_bytes("".join(f"{line}\r\n" for line in A_GAME).encode())
    # no --game: a roulette wheel's capture replays through European roulette, whoever made the wheel
    assert cmd_replay(argparse.Namespace(device="acme-wheel", game=None, file=str(capture))) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    results = [line for line in lines if line.get("kind") == "result"]
    assert [(r["game_counter"], r["number"]) for r in results] == [(7, "17")]
    assert results[0]["source"]["kind"] == "acme-wheel"
