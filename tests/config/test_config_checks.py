"""studio.config_check.validate in this process: the checks the command-line tests do not spell out one by one."""

from __future__ import annotations

from pathlib import Path

from studio.config import StudioConfig
from studio.config_check import Problem, validate


def check(tmp_path: Path, body: str) -> StudioConfig | list[str]:
    path = tmp_path / "s.toml"
    path.write_text(body)
    found = validate(path)
    return [str(p) for p in found] if isinstance(found, list) else found


BALLS = """
[[tables]]
id = "balls-1"
game = "lucky_6_48"
[[tables.devices]]
kind = "modbus-ball-machine"
role = "machine"
url = "{machine}"
{options}
[[tables.devices]]
kind = "serial-ball-reader"
role = "reader"
url = "{reader}"
"""


def test_a_file_option_that_does_not_load_is_named(tmp_path: Path) -> None:
    found = check(
        tmp_path,
        BALLS.format(
            machine="modbus-tcp://10.0.0.9",
            options='[tables.devices.options]\nregister_map = "/absent/plc-map.toml"',
            reader="/dev/ttyUSB3",
        ),
    )
    where = f'{tmp_path / "s.toml"}: table "balls-1" (tables[0]), key devices[0].options: '
    assert found == [where + "/absent/plc-map.toml: cannot read the register map: No such file or directory"]


def test_a_modbus_rtu_line_and_a_reader_on_one_tty_are_refused(tmp_path: Path) -> None:
    found = check(
        tmp_path,
        BALLS.format(machine="modbus-rtu:///dev/ttyUSB3?baud=9600", options="", reader="/dev/ttyUSB3"),
    )
    assert isinstance(found, list) and len(found) == 1
    assert (
        "key devices[1].url: '/dev/ttyUSB3': table \"balls-1\" (tables[0]), key devices[0].url opens it"
        in found[0]
    )


def test_simulated_shoes_deal_the_decks_the_table_is_set_to(tmp_path: Path) -> None:
    table = """
[[tables]]
id = "bj-1"
game = "blackjack_003"
[tables.settings]
decks = {decks}
[tables.device]
kind = "serial-shoe"
role = "shoe"
url = "simulator"
"""
    config = check(tmp_path, table.format(decks=5))
    assert isinstance(config, StudioConfig)
    assert config.tables[0].all_devices[0].simulator.options["decks"] == 5
    refused = check(tmp_path, table.format(decks=5) + "[tables.device.simulator.options]\ndecks = 6\n")
    assert isinstance(refused, list) and "deals 6 decks but blackjack_003 is played with 5" in refused[0]


def test_a_table_without_a_valid_id_is_named_by_its_index() -> None:
    assert (
        str(Problem("s.toml", "tables[3].devices[0].url", "bad"))
        == "s.toml: tables[3], key devices[0].url: bad"
    )
    assert str(Problem("s.toml", "tables[3]", "bad", "r-1")) == 's.toml: table "r-1" (tables[3]): bad'
    assert str(Problem("s.toml", "", "not valid TOML")) == "s.toml: not valid TOML"
