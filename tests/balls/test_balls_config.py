"""Ball-set tables, register maps and Modbus URLs: the things technicians configure."""

from __future__ import annotations

import pytest

from devices.balls.ballset import (
    BallSetError,
    ball_set_from_option,
    load_ball_set,
    numbered_ball_set,
    parse_ball_set,
)
from devices.balls.registers import (
    ReadBlock,
    RegisterMapError,
    default_register_map,
    load_register_map,
    parse_register_map,
)
from devices.modbus_url import parse_modbus_url

# --- ball sets ------------------------------------------------------------------------------------------------


def test_numbered_default_tags_and_lookup_is_case_insensitive():
    s = ball_set_from_option("1-48")
    assert len(s) == 48 and s.labels[0] == "1" and s.labels[-1] == "48"
    assert s.lookup("BALL007").label == "7"
    assert s.lookup("ball007").label == "7"
    assert s.lookup(" BALL048 ").label == "48"
    assert s.lookup("BALL049") is None and s.lookup("BALL000") is None
    assert s.tag_for("12") == "BALL012"


def test_printed_numbers_for_a_camera():
    s = ball_set_from_option("numbered:0-36", tag_format="{n}")
    assert s.lookup("0").label == "0" and s.lookup("36").label == "36" and s.lookup("37") is None


def test_default_set_and_bad_options():
    assert len(ball_set_from_option(None)) == 100
    for bad in ("48", "a-b", "x.json", 12):
        with pytest.raises(BallSetError):
            ball_set_from_option(bad)
    with pytest.raises(BallSetError, match="first <= last"):
        numbered_ball_set(10, 1)
    with pytest.raises(BallSetError, match="tag_format"):
        numbered_ball_set(1, 3, tag_format="{x}")


def test_toml_list_with_colours_and_repeated_labels(tmp_path):
    f = tmp_path / "coc.toml"
    f.write_text(
        'name = "cash-or-crash A"\n'
        '[colors]\ngreen = "green"\nred = "red"\n'
        '[[balls]]\ntag = "G01"\nlabel = "green"\n'
        '[[balls]]\ntag = "G02"\nlabel = "green"\n'
        '[[balls]]\ntag = "R01"\nlabel = "red"\n'
        '[[balls]]\ntag = "AU1"\nlabel = "golden"\ncolor = "gold"\n'
    )
    s = load_ball_set(f)
    assert s.name == "cash-or-crash A" and len(s) == 4
    assert s.labels == ("green", "red", "golden")
    assert s.count("green") == 2 and [b.tag for b in s.with_label("green")] == ["G01", "G02"]
    assert s.lookup("g02").color == "green" and s.lookup("AU1").color == "gold"
    assert ball_set_from_option(str(f)).name == "cash-or-crash A"


def test_toml_numbered_with_colours(tmp_path):
    f = tmp_path / "mega6.toml"
    f.write_text(
        '[numbered]\nfirst = 1\nlast = 49\ntag_format = "M6-{n:02d}"\n[colors]\n"1" = "white"\n"2" = "pink"\n'
    )
    s = load_ball_set(f)
    assert (
        s.lookup("M6-01").color == "white"
        and s.lookup("M6-02").color == "pink"
        and s.lookup("M6-03").color is None
    )


@pytest.mark.parametrize(
    "text, message",
    [
        ('[[balls]]\ntag = "A"\nlabel = "1"\n[[balls]]\ntag = "a"\nlabel = "2"\n', "given to two balls"),
        ('[[balls]]\ntag = "A B"\nlabel = "1"\n', "printable"),
        (
            '[[balls]]\ntag = "A"\nlabel = "1"\ncolor = "red"\n[[balls]]\ntag = "B"\nlabel = "1"\ncolor = "blue"\n',
            "different colours",
        ),
        ("balls = []\n", "balls"),
        ('[numbered]\nfirst = 1\nlast = 5\n[[balls]]\ntag = "A"\nlabel = "1"\n', "not both"),
        ('[numbered]\nfirst = 1\nlast = 5\n[colors]\n"9" = "red"\n', "not in 1-5"),
        ('[[balls]]\ntag = "A"\nlabel = "1"\nweight = 3\n', "weight"),
    ],
)
def test_bad_ball_set_files_are_refused_naming_the_file(tmp_path, text, message):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(BallSetError, match=message) as err:
        load_ball_set(f)
    assert str(f) in str(err.value)


def test_a_case_sensitive_table():
    s = parse_ball_set(
        {"case_sensitive": True, "balls": [{"tag": "ab", "label": "1"}, {"tag": "AB", "label": "2"}]}
    )
    assert s.lookup("ab").label == "1" and s.lookup("AB").label == "2"


# --- register maps -------------------------------------------------------------------------------------------


def test_the_generic_map_reads_in_two_requests_and_decodes():
    m = default_register_map()
    plan = m.read_plan()
    assert plan == (ReadBlock("discrete_input", 0, 3), ReadBlock("input_register", 0, 4))
    snap = m.decode({plan[0]: [True, False, True], plan[1]: [2, 65535, 4, 30]})
    assert (snap.state_code, snap.blower, snap.gate, snap.ball_in_chute) == (2, True, False, True)
    assert (snap.balls_released, snap.fault_code, snap.balls_in_machine) == (65535, 4, 30)
    assert m.state_name(2) == "releasing" and m.state_name(9) == "unknown-9"
    assert m.fault_name(0) is None and m.fault_name(4) == "more than one ball passed the gate"
    assert m.fault_name(77) == "undefined fault code 77"
    assert [w.model_dump() for w in m.command("release_ball")] == [
        {"table": "coil", "address": 1, "value": 1}
    ]
    with pytest.raises(ValueError, match="no command 'open_gate'"):
        m.command("open_gate")


def test_a_map_with_flags_packed_in_a_holding_register(tmp_path):
    f = tmp_path / "packed.toml"
    f.write_text(
        'model = "packed"\n'
        'state = { table = "holding_register", address = 100 }\n'
        'blower = { table = "holding_register", address = 101, bit = 0 }\n'
        'gate = { table = "holding_register", address = 101, bit = 1 }\n'
        'ball_in_chute = { table = "holding_register", address = 101, bit = 2 }\n'
        'balls_released = { table = "holding_register", address = 102 }\n'
        'fault_code = { table = "holding_register", address = 140 }\n'
        '[commands]\nrelease_ball = [{ table = "holding_register", address = 200, value = 3 }]\n'
    )
    m = load_register_map(f)
    plan = m.read_plan()
    assert plan == (ReadBlock("holding_register", 100, 3), ReadBlock("holding_register", 140, 1))
    snap = m.decode({plan[0]: [1, 0b101, 9], plan[1]: [0]})
    assert (snap.blower, snap.gate, snap.ball_in_chute, snap.balls_released) == (True, False, True, 9)
    assert snap.balls_in_machine is None


@pytest.mark.parametrize(
    "change, message",
    [
        ({"state": {"table": "coil", "address": 0}}, "whole holding_register or input_register"),
        ({"blower": {"table": "coil", "address": 0, "bit": 3}}, "bit is only for registers"),
        ({"gate": {"table": "discrete_input", "address": 70000}}, "less than or equal"),
        ({"commands": {"x": [{"table": "coil", "address": 1, "value": 2}]}}, "0 or 1"),
        ({"commands": {"x": []}}, "no writes"),
        ({"state_names": {"one": "idle"}}, "not an integer"),
        ({"extra": 1}, "Extra inputs"),
    ],
)
def test_bad_register_maps_are_refused(change, message):
    data = default_register_map().model_dump()
    data.update(change)
    with pytest.raises(RegisterMapError, match=message):
        parse_register_map(data, "map.toml")


# --- URLs ----------------------------------------------------------------------------------------------------


def test_modbus_urls():
    u = parse_modbus_url("modbus-tcp://10.0.0.7:5020?unit=3&timeout=0.25")
    assert (u.transport, u.host, u.port, u.unit, u.timeout) == ("tcp", "10.0.0.7", 5020, 3, 0.25)
    assert parse_modbus_url("modbus-tcp://plc-1").port == 502
    r = parse_modbus_url("modbus-rtu:///dev/ttyUSB0?baud=9600&parity=e&stopbits=2&unit=17")
    assert (r.transport, r.device, r.baudrate, r.parity, r.stopbits, r.unit) == (
        "rtu",
        "/dev/ttyUSB0",
        9600,
        "E",
        2,
        17,
    )
    assert parse_modbus_url("modbus-rtu://COM3").device == "COM3"
    assert "Modbus RTU /dev/ttyUSB0 9600 8E2 unit 17" == r.describe()


@pytest.mark.parametrize(
    "url, message",
    [
        ("tcp://host:502", "starts with modbus-tcp"),
        ("modbus-tcp://:502", "no host"),
        ("modbus-tcp://host:99999", "port"),
        ("modbus-tcp://host/x", "no path"),
        ("modbus-tcp://host?unit=0", "1-247"),
        ("modbus-tcp://host?unit=x", "whole number"),
        ("modbus-tcp://host?baud=9600", "unknown setting"),
        ("modbus-tcp://host?unit=1&unit=2", "2 times"),
        ("modbus-tcp://host?timeout=0", "timeout"),
        ("modbus-rtu://", "no serial port"),
        ("modbus-rtu:///dev/ttyS0?parity=X", "parity"),
        ("modbus-rtu:///dev/ttyS0?bytesize=9", "bytesize"),
        ("modbus-rtu:///dev/ttyS0?baud=10", "line speed"),
    ],
)
def test_bad_modbus_urls_say_what_is_wrong(url, message):
    with pytest.raises(ValueError, match=message):
        parse_modbus_url(url)
