"""Fuzz targets of the line devices, through their real drivers' reading path (framer, parser, tracker): the
line splitter, the Cammegh SS2 wheel (seeded with the real capture), the serial shoe's scanner, the RFID ball
reader and the money wheel's pointer reader. fuzz_targets.py says what every check asserts."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from fuzz_base import AT, Sink, chunk_size, chunks, feed_driver, junk_of, split_lines

from devices.events import (
    WHEEL_PHASES,
    CardDrawn,
    CardUnreadable,
    DeviceEvent,
    DeviceUnknownMessage,
    WheelReply,
    WheelRestart,
    WheelResult,
    WheelStatus,
    WheelWarning,
)
from devices.framing import LineFramer

# -- the line splitter (devices/framing.py, as devices/serial_line.py uses it) --------------------------------

MAX_LINE = 64


def check_framer(data: bytes) -> None:
    """Lines: non-empty, no terminator, no trailing blank, at most max_line; the same whatever the chunking."""
    whole = LineFramer(max_line=MAX_LINE)
    lines = whole.feed(data)
    for line in lines:
        assert line and line == line.rstrip(), f"line {line!r} is empty or ends in a blank"
        assert "\r" not in line and "\n" not in line, f"line {line!r} holds a terminator"
        assert len(line) <= MAX_LINE, f"line of {len(line)} characters (limit {MAX_LINE})"
    assert whole.pending <= MAX_LINE
    for size in (1, 7) if len(data) <= 2048 else (7,):
        framer = LineFramer(max_line=MAX_LINE)
        pieces: list[str] = []
        for chunk in chunks(data, size):
            pieces += framer.feed(chunk)
            assert framer.pending <= MAX_LINE
        assert pieces == lines, f"reads of {size} bytes give other lines"
        assert framer.pending == whole.pending and framer.garbage_bytes == whole.garbage_bytes

    # a valid line between two runs of garbage (even over-long ones) is still found
    junk = junk_of(data)
    framer = LineFramer(max_line=MAX_LINE)
    found = framer.feed(junk + b"\r\n*X;1;011;34;0;057;0\r\n" + junk)
    assert "*X;1;011;34;0;057;0" in found, f"the valid line was lost in {found!r}"

    # a flood without a terminator: memory stays bounded
    framer = LineFramer(max_line=MAX_LINE)
    flood = (junk or b"\x80") * (1 + 4096 // (len(junk) + 1))
    for _ in range(4):
        assert framer.feed(flood) == []
        assert framer.pending <= MAX_LINE


# -- Cammegh SS2 (devices/roulette/cammegh_ss2.py) ---------------------------------------------------------------

POCKETS = {str(n) for n in range(37)} | {"00", "000", "0000"}
_SS2_STATUS = re.compile(r"\*X;([1-7]);([0-9]{3});(  | [0-9]|[0-9]{2}|000|0000);[0-9A-Fa-f];([0-9]{3});[01]")
_SS2_NUMBER = re.compile(r" [0-9]|[1-3][0-9]|00|000|0000")


def ss2_driver(sink: Sink) -> Any:
    from devices.roulette.cammegh_ss2 import CammeghSS2Driver

    return CammeghSS2Driver("wheel", "loop://", sink)


def _check_ss2_event(event: DeviceEvent) -> None:
    if isinstance(event, WheelResult):
        assert event.number in POCKETS, f"result {event.number!r} is not a pocket"
        assert 0 <= event.game_counter <= 256, f"game counter {event.game_counter}"
        m = _SS2_STATUS.fullmatch(event.raw)
        if m is not None:
            assert m.group(1) == "5", f"a result from a status line in state {m.group(1)}: {event.raw!r}"
        else:
            assert _SS2_NUMBER.fullmatch(event.raw), f"a result from a line that is no result: {event.raw!r}"
    elif isinstance(event, WheelStatus):
        assert event.phase in WHEEL_PHASES
        assert 0 <= event.game_counter <= 256, f"game counter {event.game_counter}"
        assert event.last_number is None or event.last_number in POCKETS
        assert event.speed_rpm is None or 0 <= event.speed_rpm <= 99.9
        assert _SS2_STATUS.fullmatch(event.raw), f"a status from a line that is no status: {event.raw!r}"
    elif isinstance(event, WheelRestart):
        assert 0 <= event.game_counter <= 256 and 0 <= event.previous_counter <= 256
    elif isinstance(event, (WheelWarning, WheelReply)):
        assert event.raw.startswith(("*", "T OK")), f"a wheel message from {event.raw!r}"
    else:
        assert isinstance(event, DeviceUnknownMessage), f"unexpected {type(event).__name__}"


def results_of(events: Iterable[DeviceEvent]) -> list[tuple[int, str]]:
    return [(e.game_counter, e.number) for e in events if isinstance(e, WheelResult)]


def check_ss2(data: bytes) -> None:
    """Any bytes through the SS2 driver: in-range events only; garbage lines between valid ones change nothing."""
    from devices.roulette.cammegh_ss2 import parse_line

    sink = Sink()
    feed_driver(ss2_driver(sink), data, chunk_size(data))
    for event in sink:
        _check_ss2_event(event)
    for line in split_lines(data)[:50]:
        parse_line(line.decode("ascii", "replace"))  # never raises

    # garbage lines between the lines of the input: the same results
    lines = split_lines(data)
    if lines:
        junk = junk_of(data[:24]) or b"\x80"
        clean, noisy = Sink(), Sink()
        feed_driver(ss2_driver(clean), b"".join(line + b"\r\n" for line in lines), 64)
        feed_driver(ss2_driver(noisy), b"".join(junk + b"\r\n" + line + b"\r\n" for line in lines), 64)
        assert results_of(noisy) == results_of(clean), "garbage lines changed the results"


def ss2_seeds(capture: bytes) -> list[bytes]:
    """Windows of the real capture: every game's lines, and short runs around each state change."""
    lines = capture.split(b"\r\n")
    seeds: list[bytes] = []
    for start in range(0, len(lines), 12):
        seeds.append(b"\r\n".join(lines[start : start + 24]) + b"\r\n")
    for i, line in enumerate(lines):
        if not line.startswith(b"*X;") or (i and lines[i - 1][:5] != line[:5]):
            seeds.append(b"\r\n".join(lines[max(0, i - 2) : i + 3]) + b"\r\n")
    return seeds


# -- serial shoe (devices/shoe/serial_shoe.py, vendor_table.py, fold.py) -----------------------------------------


def shoe_driver(sink: Sink) -> Any:
    from devices.shoe.serial_shoe import SerialShoeDriver

    return SerialShoeDriver("shoe", "loop://", sink, fold_window=0)


def _valid_card_payload(payload: str) -> bool:
    from devices.shoe.vendor_table import default_vendor_table, luhn_digit

    table = default_vendor_table()
    return (
        len(payload) == 10
        and payload.isascii()
        and payload.isdigit()
        and luhn_digit(payload[:9]) == payload[9]
        and payload[7:9] in table.codes
    )


def check_shoe(data: bytes) -> None:
    """A card only from a payload of the table with a good check digit; every line is accounted for."""
    from devices.shoe.vendor_table import STANDARD_CARDS, default_vendor_table

    table = default_vendor_table()
    sink = Sink()
    driver = shoe_driver(sink)
    feed_driver(driver, data, chunk_size(data))
    for event in sink:
        if isinstance(event, CardDrawn):
            if event.card is not None:
                assert event.card in STANDARD_CARDS or event.card == "JK"
                assert _valid_card_payload(event.payload), f"card {event.card} from {event.payload!r}"
                assert table.codes[event.payload[7:9]] == event.card
            if event.special is not None:
                assert event.payload in table.specials
            assert event.payload.isascii() and event.payload.isprintable(), f"payload {event.payload!r}"
        else:
            assert isinstance(event, (CardUnreadable, DeviceUnknownMessage)), type(event).__name__
    framer = driver._framer
    # every line the scanner sent is evidence of a card: none vanishes (fold_window 0 folds nothing)
    assert len(sink) == framer.lines + framer.overlong_lines, "a line of the scanner left no event"

    # a card's payload after garbage (however long) is still read
    sink = Sink()
    payload = table.encode("QH", deck=104729, pack=3).encode()
    feed_driver(shoe_driver(sink), junk_of(data) + b"\r\n" + payload + b"\r\n", 64)
    assert any(isinstance(e, CardDrawn) and e.card == "QH" for e in sink), "the card after garbage was lost"


def shoe_seeds() -> list[bytes]:
    from devices.shoe.vendor_table import default_vendor_table

    table = default_vendor_table()
    cards = [table.encode(c, deck=104729, pack=p) for p, c in enumerate(["AS", "TD", "KH", "2C", "QS", "9H"])]
    bad = cards[0][:-1] + str((int(cards[0][-1]) + 1) % 10)
    lines = [*cards, "CUT", "NOREAD", "NO READ", bad, "]C0" + cards[1], "1047290", "ERR"]
    return [("\r\n".join(lines[i:] + lines[:i]) + "\r\n").encode() for i in range(len(lines))]


# -- RFID ball reader (devices/balls/reader.py) -----------------------------------------------------------------


_BALL_SET: Any = None


def ball_reader(sink: Sink) -> Any:
    """The reader with the default ball set (0-99, tags BALL000..), built once: it is 100 validated models."""
    global _BALL_SET
    from devices.balls.ballset import ball_set_from_option
    from devices.balls.reader import SerialBallReaderDriver

    if _BALL_SET is None:
        _BALL_SET = ball_set_from_option(None)
    return SerialBallReaderDriver("reader", "loop://", sink, fold_s=0, ball_set=_BALL_SET)


def check_ball_reader(data: bytes) -> None:
    from devices.balls.events import BallRead, BallUnreadable

    sink = Sink()
    driver = ball_reader(sink)
    feed_driver(driver, data, chunk_size(data))
    labels = set(driver.ball_set.labels)
    for event in sink:
        if isinstance(event, BallRead):
            assert re.fullmatch(r"[0-9A-Z_-]{1,64}", event.tag), f"tag {event.tag!r}"
            assert event.ball is None or event.ball in labels, f"ball {event.ball!r}"
            if event.ball is not None:
                assert driver.ball_set.lookup(event.tag).label == event.ball
            assert event.raw.isascii() and event.raw.strip().isprintable(), f"a ball from {event.raw!r}"
        else:
            assert isinstance(event, (BallUnreadable, DeviceUnknownMessage)), type(event).__name__

    sink = Sink()
    feed_driver(ball_reader(sink), junk_of(data) + b"\n" + b"TAG BALL007\n" + junk_of(data), 64)
    assert [e.ball for e in sink if isinstance(e, BallRead)] == ["7"], "the tag between garbage was lost"


def ball_reader_seeds() -> list[bytes]:
    lines = ["TAG BALL007", "TAG:BALL048", "TAG=ball012", "BALL099", "NOREAD", "ERR timeout", "READER V1.2"]
    return [("\r\n".join(lines[i:] + lines[:i]) + "\r\n").encode() for i in range(len(lines))]


# -- money-wheel pointer reader (devices/money_wheel/pointer.py) --------------------------------------------------


def check_pointer(data: bytes) -> None:
    """Segment indexes inside the wheel, a rest only after rest_ms of one read, noise never a read."""
    from devices.money_wheel.events import PointerRead, PointerUnreadable, WheelAtRest
    from devices.money_wheel.pointer import PointerTracker, TagTable

    table = TagTable(segments=54)
    tracker = PointerTracker("pointer", table, rest_ms=300)
    framer = LineFramer()
    events: list[DeviceEvent] = []
    for i, line in enumerate(framer.feed(data + b"\n")):
        out = tracker.handle_line(line, now=i * 0.05, at=AT)
        for event in out:
            if isinstance(event, (PointerRead, WheelAtRest)):
                for tag, index in ((event.tag, event.segment_index), (event.other_tag, event.other_index)):
                    assert index is None or 0 <= index < 54, f"segment {index}"
                    assert index == (table.index(tag) if tag is not None else None)
                    assert tag is None or (tag.isascii() and tag.isprintable()), f"a read of tag {tag!r}"
                if isinstance(event, WheelAtRest):
                    assert event.still_ms >= 300
            else:
                assert isinstance(event, (PointerUnreadable, DeviceUnknownMessage)), type(event).__name__
        events += out
    # a noise line between two reads of one tag neither moves the pointer nor ends the rest
    tracker = PointerTracker("pointer", table, rest_ms=300)
    junk = junk_of(data[:16]) or b"\x80"
    out = tracker.handle_line("TAG S07", now=0.0, at=AT)
    out += tracker.handle_line(junk.decode("ascii", "replace"), now=0.2, at=AT)
    out += tracker.handle_line("TAG S07", now=0.4, at=AT)
    kinds = [type(e).__name__ for e in out]
    assert kinds == ["PointerRead", "DeviceUnknownMessage", "WheelAtRest"], kinds


def pointer_seeds() -> list[bytes]:
    reads = ["TAG S17"] * 8 + ["TAG S17 S18"] * 2 + ["TAG S18"] * 10 + ["NOREAD", "NR", "TAG S53", "TAG X99"]
    return [("\r\n".join(reads[i:] + reads[:i]) + "\r\n").encode() for i in range(0, len(reads), 3)]
