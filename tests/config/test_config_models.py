"""A wrong configuration file is refused at start with the file, the table's id, the key and what is wrong."""

import subprocess
import sys
from pathlib import Path

import pytest
from waiting import WAIT_S

from studio.config import ConfigError, load_config

GOOD = """
[studio]
data_dir = "d"

[server]
port = 8123

[[consumers]]
name = "backend"
token = "0123456789abcdef0123"

[[tables]]
id = "roulette-1"
game = "european_roulette"
[tables.device]
kind = "cammegh-ss2"
url = "/dev/ttyUSB0"
serial_number = "SS2-1"

[[tables]]
id = "roulette-2"
game = "european_roulette"
[tables.device]
kind = "cammegh-ss2"
url = "simulator"
[tables.device.simulator]
speed = 20
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "studio.toml"
    p.write_text(text)
    return p


def test_good_file_loads(tmp_path):
    cfg = load_config(write(tmp_path, GOOD))
    assert cfg.server.port == 8123
    assert [t.id for t in cfg.tables] == ["roulette-1", "roulette-2"]
    assert cfg.studio.data_dir == (tmp_path / "d").resolve()  # relative to the file
    assert cfg.tables[1].device.is_simulator and cfg.tables[1].device.simulator.speed == 20
    assert not cfg.tables[0].device.is_simulator


@pytest.mark.parametrize(
    "change, key, words",
    [
        (
            (
                'game = "european_roulette"\n[tables.device]\nkind = "cammegh-ss2"\nurl = "/dev/ttyUSB0"',
                'game = "blackjack_99"\n[tables.device]\nkind = "cammegh-ss2"\nurl = "/dev/ttyUSB0"',
            ),
            'table "roulette-1" (tables[0]), key game',
            "unknown game 'blackjack_99'",
        ),
        (
            ('kind = "cammegh-ss2"\nurl = "/dev/ttyUSB0"', 'kind = "wheel-9000"\nurl = "/dev/ttyUSB0"'),
            'table "roulette-1" (tables[0]), key device.kind',
            "unknown device kind",
        ),
        (("port = 8123", "port = 99999"), "key server.port", "less than or equal"),
        (("port = 8123", 'port = "eighty"'), "key server.port", "integer"),
        (('token = "0123456789abcdef0123"', 'token = "short"'), "key consumers[0].token", "at least 16"),
        (('id = "roulette-2"', 'id = "roulette-1"'), "toml: duplicate table id: roulette-1", "roulette-1"),
        (('id = "roulette-2"', 'id = "Roulette Two"'), "(tables[1]), key id", "a table id"),
        (
            ("speed = 20", "speed = 0"),
            'table "roulette-2" (tables[1]), key device.simulator.speed',
            "greater than 0",
        ),
        (
            ('serial_number = "SS2-1"', 'serial_numbr = "SS2-1"'),
            'table "roulette-1" (tables[0]), key device.serial_numbr',
            "Extra inputs",
        ),
        (
            ('url = "/dev/ttyUSB0"', 'url = ""'),
            'table "roulette-1" (tables[0]), key device.url',
            "at least 1",
        ),
    ],
)
def test_wrong_file_names_file_key_and_problem(tmp_path, change, key, words):
    old, new = change
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(ConfigError) as err:
        load_config(path)
    text = str(err.value)
    assert str(path) in text and key in text and words in text, text


def test_not_toml_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[[tables]\nid ="))
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.toml")
    p = tmp_path / "bin.toml"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="UTF-8"):
        load_config(p)


def test_cli_refuses_a_wrong_file_before_starting(tmp_path):
    path = write(tmp_path, GOOD.replace("port = 8123", "port = -1"))
    for args in (["run", "--config", str(path)], ["check-config", str(path)]):
        r = subprocess.run(
            [sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, timeout=WAIT_S
        )
        assert r.returncode == 2
        assert "server.port" in r.stderr and str(path) in r.stderr
    ok = subprocess.run(
        [sys.executable, "-m", "app.cli", "check-config", str(write(tmp_path, GOOD))],
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert ok.returncode == 0 and "2 tables" in ok.stdout


def test_game_options_build_a_table_specific_game_or_are_refused(tmp_path):
    from recognition.games import GAMES
    from studio.config import build_game, parse_config

    table = {
        "id": "m1",
        "game": "mega_ball",
        "game_options": {"mega_rule": "multiply"},
        "devices": [
            {"kind": "modbus-ball-machine", "role": "machine", "url": "simulator"},
            {"kind": "serial-ball-reader", "role": "reader", "url": "simulator"},
        ],
    }
    cfg = parse_config({"tables": [table]})
    game = build_game("mega_ball", cfg.tables[0].game_options)
    assert game is not GAMES["mega_ball"] and type(game) is type(GAMES["mega_ball"])
    assert build_game("mega_ball", {}) is GAMES["mega_ball"]
    with pytest.raises(ConfigError, match='table "m1" \\(tables\\[0\\]\\).*game_options for mega_ball'):
        parse_config({"tables": [dict(table, game_options={"nonsense": 1})]})
    with pytest.raises(ConfigError, match="role machine"):
        parse_config({"tables": [dict(table, devices=[table["devices"][0], table["devices"][0]])]})


def test_wrong_game_settings_are_refused_at_load(tmp_path):
    text = GOOD + "\n[tables.settings]\nbogus_setting = 3\n"
    with pytest.raises(
        ConfigError, match='table "roulette-2" \\(tables\\[1\\]\\).*settings for european_roulette'
    ):
        load_config(write(tmp_path, text))


def test_simulated_wheels_get_their_time_scale_and_real_wheels_do_not():
    from studio.config import TableConfig

    def table(url: str, speed: float, settings: dict | None = None) -> TableConfig:
        return TableConfig.model_validate(
            {
                "id": "t1",
                "game": "european_roulette",
                "settings": settings or {},
                "device": {"kind": "cammegh-ss2", "url": url, "simulator": {"speed": speed}},
            }
        )

    assert table("simulator", 20).settings["wheel_time_scale"] == 20
    assert table("simulator", 2.5).settings["wheel_time_scale"] == 2.5
    assert table("simulator", 20, {"wheel_time_scale": 1}).settings["wheel_time_scale"] == 1  # the file wins
    assert "wheel_time_scale" not in table("/dev/ttyUSB0", 20).settings  # a real wheel runs in real time


def test_monopoly_bonus_dice_from_a_camera_need_a_dice_camera_at_the_table():
    from studio.config import TableConfig

    encoder = {"kind": "wheel-encoder", "role": "encoder", "url": "simulator"}
    camera = {"kind": "dice-camera", "role": "dice", "url": "simulator"}

    def table(settings: dict, devices: list[dict]) -> TableConfig:
        return TableConfig.model_validate(
            {"id": "m1", "game": "monopoly_live", "settings": settings, "devices": devices}
        )

    assert table({"bonus_dice": "camera"}, [encoder, camera]).settings["bonus_dice"] == "camera"
    assert table({}, [encoder])  # the secure generator's dice need no camera
    with pytest.raises(ValueError, match="devices for monopoly_live"):
        table({"bonus_dice": "camera"}, [encoder])
    with pytest.raises(ValueError, match="devices for monopoly_live"):
        table({}, [encoder, camera])
