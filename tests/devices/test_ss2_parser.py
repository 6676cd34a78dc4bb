"""parse_line: one SS2 line -> one typed message (spec §3, §6, §9.7-9.11, §9.19-9.23)."""

from __future__ import annotations

from collections import Counter

import pytest

from devices.roulette.cammegh_ss2 import (
    Bonus,
    Calibration,
    Echo,
    Fault,
    Flags,
    Reply,
    SensorReport,
    Status,
    Unknown,
    WinningNumber,
    normalise_number,
    parse_line,
)

# -- status ----------------------------------------------------------------------------


def test_status_fields_from_the_capture():
    m = parse_line("*X;5;013; 6;0;177;1")
    assert m == Status(
        raw="*X;5;013; 6;0;177;1",
        state=5,
        game_counter=13,
        number="6",
        flags=Flags(0),
        speed_rpm=17.7,
        direction="counterclockwise",
    )


@pytest.mark.parametrize(
    "line, state, counter, number, speed, direction",
    [
        ("*X;1;011;23;0;154;0", 1, 11, "23", 15.4, "clockwise"),  # guide p.20
        ("*X;3;011;23;0;170;1", 3, 11, "23", 17.0, "counterclockwise"),
        ("*X;5;011;25;0;165;1", 5, 11, "25", 16.5, "counterclockwise"),
        ("*X;1;011;34;0;057;0", 1, 11, "34", 5.7, "clockwise"),  # capture L3
        ("*X;2;011;34;0;000;0", 2, 11, "34", 0.0, "clockwise"),  # speed 0 in state 2 is normal
        ("*X;7;256;36;0;999;1", 7, 256, "36", 99.9, "counterclockwise"),
        ("*X;6;000;  ;0;000;0", 6, 0, None, 0.0, "clockwise"),
    ],
)
def test_status_examples(line, state, counter, number, speed, direction):
    m = parse_line(line)
    assert isinstance(m, Status)
    assert (m.state, m.game_counter, m.number, m.speed_rpm, m.direction) == (
        state,
        counter,
        number,
        speed,
        direction,
    )
    assert m.raw == line


def test_zero_and_double_zero_are_different_pockets():
    zero = parse_line("*X;5;011; 0;0;150;0")
    double = parse_line("*X;5;011;00;0;150;0")
    assert zero.number == "0"
    assert double.number == "00"
    assert zero.number != double.number


@pytest.mark.parametrize(
    "field, number", [("000", "000"), ("0000", "0000"), ("  ", None), (" 9", "9"), ("10", "10")]
)
def test_field4_variants_parse_by_splitting_not_by_column(field, number):
    m = parse_line(f"*X;5;011;{field};0;150;0")
    assert isinstance(m, Status)
    assert m.number == number
    assert (m.flags, m.speed_rpm, m.direction) == (0, 15.0, "clockwise")  # later fields still right


@pytest.mark.parametrize("value", range(16))
@pytest.mark.parametrize("case", ["upper", "lower"])
def test_every_flag_combination_is_decoded_bitwise(value, case):
    digit = f"{value:X}" if case == "upper" else f"{value:x}"
    m = parse_line(f"*X;3;011;27;{digit};150;1")
    assert isinstance(m, Status)
    assert int(m.flags) == value
    assert (Flags.NO_BALL in m.flags) == bool(value & 1)
    assert (Flags.BALL_SAME_DIRECTION in m.flags) == bool(value & 2)
    assert (Flags.COMPONENT_FAULT in m.flags) == bool(value & 4)
    assert (Flags.LAUNCH_RETRY in m.flags) == bool(value & 8)


def test_flag_a_is_launch_retry_plus_same_direction():
    m = parse_line("*X;3;011;27;A;150;1")
    assert m.flags == Flags.LAUNCH_RETRY | Flags.BALL_SAME_DIRECTION


@pytest.mark.parametrize(
    "line",
    [
        "*X;8;011;27;0;150;1",  # state out of range
        "*X;0;011;27;0;150;1",
        "*X;1;11;27;0;150;1",  # counter not 3 digits
        "*X;1;011;27;G;150;1",  # flags not hex
        "*X;1;011;27;00;150;1",  # flags 2 digits
        "*X;1;011;27;0;15;1",  # speed 2 digits
        "*X;1;011;27;0;150;2",  # direction
        "*X;1;011;27;0;150",  # field missing
        "*X;1;011;27;0;150;1;9",  # extra field
        "*X; 1;011;27;0;150;1",  # spaces around separators
        "*X;1;011;27 ;0;150;1",
        "*X;1;011;6;0;150;1",  # number not padded
        "*X;1;011;06;0;150;1",  # 1-9 are space padded, never zero padded
        "*X;1;011;37;0;150;1",  # no pocket 37
        "*X;1;011;99;0;150;1",
        "*X;1;０11;27;0;150;1",  # non-ASCII digit
        "*x;1;011;27;0;150;1",
        "*X;4;01",  # torn
        "*X;",
    ],
)
def test_malformed_status_is_unknown(line):
    m = parse_line(line)
    assert isinstance(m, Unknown)
    assert m.raw == line


def test_trailing_terminator_and_blanks_are_ignored_leading_space_is_not():
    assert parse_line("*X;5;013; 6;0;177;1 \r\n").raw == "*X;5;013; 6;0;177;1"
    assert parse_line(" 6\r\n") == WinningNumber(raw=" 6", number="6")


# -- winning-number line (§3.2, §9.21) ------------------------------------------------


@pytest.mark.parametrize(
    "line, number",
    [
        (" 6", "6"),
        (" 0", "0"),
        ("00", "00"),
        ("10", "10"),
        ("27", "27"),
        ("36", "36"),
        ("000", "000"),
        ("0000", "0000"),
    ],
)
def test_winning_number_line(line, number):
    assert parse_line(line) == WinningNumber(raw=line, number=number)


@pytest.mark.parametrize("line", ["6", "06", "37", "99", "  6", "100", "00000", "2 7", "ab", "-1"])
def test_bare_lines_that_are_not_pockets_are_unknown(line):
    assert isinstance(parse_line(line), Unknown)


def test_normalise_number():
    assert normalise_number(" 0") == "0"
    assert normalise_number("00") == "00"
    with pytest.raises(ValueError):
        normalise_number("06")


# -- faults (§3.4) --------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, code, words",
    [
        ("*F 0", 0, "no errors"),
        ("*F 4", 4, "direction"),
        ("*F 11", 11, "sensor 1 broken on"),
        ("*F 23", 23, "sensor 3 broken off"),
        ("*F 100", 100, "timed out"),
        ("*F 9", 9, "undefined"),
    ],
)
def test_fault_lines(line, code, words):
    m = parse_line(line)
    assert isinstance(m, Fault)
    assert m.code == code
    assert words in m.description


def test_fault_busy_is_a_reply_and_bare_f_an_echo():
    assert parse_line("*F BUSY") == Reply(raw="*F BUSY", command="F", text="BUSY")
    assert parse_line("*F") == Echo(raw="*F", command="F", args="")


@pytest.mark.parametrize("line", ["*F x", "*F 1000", "*F -1", "*F1"])
def test_malformed_fault_is_unknown(line):
    assert isinstance(parse_line(line), Unknown)


# -- bonus, calibration, sensor reports ---------------------------------------------------


def test_bonus_lines():
    assert parse_line("*Y;1;123") == Bonus(raw="*Y;1;123", index=1, value=123, days_left=None)
    assert parse_line("*Y;6;007;30") == Bonus(raw="*Y;6;007;30", index=6, value=7, days_left=30)
    expired = parse_line("*Y;2;999;00")
    assert expired.expired and expired.days_left == 0
    assert not parse_line("*Y;1;123").expired
    for bad in ["*Y;7;123", "*Y;1;12", "*Y;1;123;3", "*Y;1;123;30;1"]:
        assert isinstance(parse_line(bad), Unknown), bad


@pytest.mark.parametrize(
    "line, outcome",
    [
        ("*C OK : Calibrate Sensor Positions (Ball In Middle '0')", "OK"),
        ("*C BALL : OK Clockwise", "BALL"),
        ("*C BALL : No ball direction found", "BALL"),
        ("*C OK : Completed (1234, 5678, 9012)", "OK"),
        ("*C FAIL : Sensor(s) 2 Broken", "FAIL"),
    ],
)
def test_calibration_progress(line, outcome):
    m = parse_line(line)
    assert isinstance(m, Calibration)
    assert m.outcome == outcome
    assert m.text == line[3:]


def test_calibration_echo_and_garbage():
    assert parse_line("*C") == Echo(raw="*C", command="C", args="")
    assert isinstance(parse_line("*C MAYBE"), Unknown)


def test_sensor_reports():
    assert parse_line("*bs 1 ") == SensorReport(raw="*bs 1", kind="bs", value=1)
    assert parse_line("*bn 12") == SensorReport(raw="*bn 12", kind="bn", value=12)
    assert isinstance(parse_line("*bs"), Unknown)
    assert isinstance(parse_line("*bx 1"), Unknown)


# -- replies and echoes (§3.8, §4, §9.19-9.20) ------------------------------------------


@pytest.mark.parametrize(
    "line, command, text",
    [
        ("*P OK", "P", "OK"),
        ("*R OK", "R", "OK"),
        ("*S 1.20", "S", "1.20"),
        ("*V SS2 V2.52 Cammegh", "V", "SS2 V2.52 Cammegh"),
        ("*v FPGA 3 COP 7", "v", "FPGA 3 COP 7"),
        ("*K CAM", "K", "CAM"),
        ("*K OK", "K", "OK"),
        ("*u OK", "u", "OK"),
        ("*I 4", "I", "4"),
        ("*I 0", "I", "0"),
        ("*A 17", "A", "17"),
        ("*d g 12:34:56 - 01/02/26", "d", "g 12:34:56 - 01/02/26"),
        ("*d OK", "d", "OK"),
        ("*o 1159", "o", "1159"),
        ("*T OK", "T", "OK"),
        ("T OK", "T", "OK"),  # misprint in the guide, §10
        ("*Z OK", "T", "OK"),  # reply to *T z, §10
        ("*T d 15", "T", "d 15"),
        ("*T s 14.0 17.5", "T", "s 14.0 17.5"),
        ("*T m 1.5", "T", "m 1.5"),
        ("*w 12.5 40%", "w", "12.5 40%"),
        ("*W BUSY", "W", "BUSY"),
        ("*W 1234", "W", "1234"),
        ("*M BUSY", "M", "BUSY"),
        ("*s t 3", "s", "t 3"),
        ("*s e ERASED WINNING NUMBER LOG", "s", "e ERASED WINNING NUMBER LOG"),
        ("*i all pockets = 15000", "i", "all pockets = 15000"),
        ("*i 17=15000", "i", "17=15000"),
        ("*i stored", "i", "stored"),
        ("*j OK", "j", "OK"),
        ("*O 6 1 60 1159", "O", "6 1 60 1159"),
        ("*q OK", "q", "OK"),
        ("*y 123", "y", "123"),
        ("*y R 1234-5678-9abc-def0", "y", "R 1234-5678-9abc-def0"),
        ("*y A OK(365)", "y", "A OK(365)"),
    ],
)
def test_replies(line, command, text):
    assert parse_line(line) == Reply(raw=line, command=command, text=text)


@pytest.mark.parametrize(
    "line, command, args",
    [
        ("*P 1", "P", "1"),  # capture L1
        ("*P 0", "P", "0"),  # capture L446
        ("*R", "R", ""),
        ("*S", "S", ""),
        ("*X", "X", ""),
        ("*K", "K", ""),
        ("*u 1", "u", "1"),
        ("*u 3", "u", "3"),
        ("*T D", "T", "D"),
        ("*T f", "T", "f"),
        ("*W", "W", ""),
        ("*s r 2", "s", "r 2"),
        ("*i s 17 15000", "i", "s 17 15000"),
        ("*j 1 100 200 300", "j", "1 100 200 300"),
        ("*q 0", "q", "0"),
        ("*y", "y", ""),
        ("*y A 1234-5678 9abc-def0", "y", "A 1234-5678 9abc-def0"),
        ("*d s 2 14", "d", "s 2 14"),
    ],
)
def test_echoes(line, command, args):
    assert parse_line(line) == Echo(raw=line, command=command, args=args)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "   ",
        "hello",
        "*",
        "*Q",
        "*Q OK",
        "*PX",
        "*P 2",
        "*P  OK",
        "*R NOPE",
        "*X 1",
        "*K WHAT",
        "\ufffd\ufffd",
        "*T ok",
        "*q 2",
    ],
)
def test_unknown_lines(line):
    m = parse_line(line)
    assert isinstance(m, Unknown)
    assert m.reason


def test_every_capture_line_is_known(capture_lines):
    messages = [parse_line(line) for line in capture_lines]
    assert not [m for m in messages if isinstance(m, Unknown)]
    kinds = Counter(type(m).__name__ for m in messages)
    assert kinds == {"Status": 452, "WinningNumber": 6, "Echo": 2, "Reply": 2}
    assert [m.number for m in messages if isinstance(m, WinningNumber)] == ["27", "16", "6", "3", "10", "0"]
    assert all(m.flags == 0 for m in messages if isinstance(m, Status))
    speeds = [m.speed_rpm for m in messages if isinstance(m, Status)]
    assert (min(speeds), max(speeds)) == (0.0, 18.1)  # §8


def test_messages_are_immutable():
    m = parse_line("*X;5;013; 6;0;177;1")
    with pytest.raises(AttributeError):
        m.state = 4  # type: ignore[misc]
