"""The fuzz targets of the wire parsers: one property check per parser, bytes in, AssertionError out.

Each target is a function of the bytes a device (or a feed peer) could send, run through the real parser
(the real driver's `_feed` for the line devices, so framer, parser and tracker run as on a port), that checks:

* it raises nothing but the parser's declared error (most declare none: a bad line is an event of its own);
* no event carries a value out of its range (a pocket that is not a pocket, a segment the wheel lacks...);
* garbage never becomes an event of the game (only "unknown"/"unreadable" events come of it);
* a valid line embedded in garbage is still found, where the protocol allows it;
* memory stays bounded on a flood (a held partial line is never longer than the line limit).

Seeds (`Target.seeds`) start the mutations from real lines: the SS2 targets from the real capture
(fixtures/cammegh-ss2-capture.log), the others from the lines and frames their protocols define. The suite
(tests/fuzz/test_fuzz_*.py) runs these with hypothesis; bench/fuzz.py runs the same functions in a plain
random-mutation loop for a million inputs and more.
"""

from __future__ import annotations

import json
import random
import re
import socket
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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

REPO = Path(__file__).resolve().parents[2]
SS2_CAPTURE = REPO / "fixtures" / "cammegh-ss2-capture.log"

#: bytes no line protocol here gives a meaning to: control characters (not CR/LF) and bytes above ASCII
JUNK_ALPHABET = bytes(b for b in range(256) if b >= 0x80 or (b < 0x20 and b not in (0x0A, 0x0D)))

AT = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class Target:
    name: str
    check: Callable[[bytes], None]
    seeds: list[bytes] = field(default_factory=list)


# -- helpers ---------------------------------------------------------------------------------------------------


def chunks(data: bytes, size: int) -> Iterable[bytes]:
    for i in range(0, len(data), size):
        yield data[i : i + size]


def junk_of(data: bytes) -> bytes:
    """`data` made into garbage: every byte mapped into JUNK_ALPHABET (never a terminator, never text)."""
    return bytes(JUNK_ALPHABET[b % len(JUNK_ALPHABET)] for b in data)


def split_lines(data: bytes) -> list[bytes]:
    return [line for line in re.split(rb"\r\n|\r|\n", data) if line.strip()]


class Sink(list[DeviceEvent]):
    """A driver's on_event: keeps every event."""

    def __call__(self, event: DeviceEvent) -> None:
        self.append(event)


def feed_driver(driver: Any, data: bytes, size: int) -> None:
    """The bytes through the driver's own reading path (framer, parser, tracker, garbage timer), no port."""
    for chunk in chunks(data, size):
        driver._feed(chunk)
    framer = driver._framer
    assert framer.pending <= framer.max_line, f"a partial line of {framer.pending} bytes is held"
    # the driver counts (and logs) what its parser raised instead of failing: a parser must raise nothing
    errors = {k: driver._counters[k] for k in ("handler_errors", "callback_errors")}
    assert not any(errors.values()), f"the parser raised: {errors}"


def chunk_size(data: bytes) -> int:
    """A read size from the input itself, so that the splitting varies with it (1 to 64 bytes)."""
    return 1 + (data[0] % 64 if data else 0)


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


# -- Modbus ball machine registers (devices/balls/registers.py, modbus_machine.py) --------------------------------


def _polls(data: bytes, width: int) -> list[tuple[int, ...]]:
    n = len(data) // (2 * width)
    return [struct.unpack_from(f">{width}H", data, 2 * width * i) for i in range(n)]


def check_ball_machine(data: bytes) -> None:
    """Register snapshots (4 input registers + 3 bits a poll): no release beyond the machine's, no state
    the map does not name, every value in its register's range."""
    from devices.balls.events import BallReleased, MachineStatus
    from devices.balls.modbus_machine import IMPOSSIBLE_READING, MachineTracker
    from devices.balls.registers import default_register_map

    regmap = default_register_map()
    plan = regmap.read_plan()
    tracker = MachineTracker("machine", regmap, max_release_step=10)
    prev_total: int | None = None
    prev_held: int | None = None
    for i, poll in enumerate(_polls(data, 5)):
        values: dict[Any, Any] = {}
        for block in plan:
            if block.table == "input_register":
                values[block] = list(poll[: block.count])
            else:
                values[block] = [bool(poll[4] >> b & 1) for b in range(block.count)]
        snap = regmap.decode(values)
        for event in tracker.update(snap, now=i * 0.05, at=AT):
            if isinstance(event, BallReleased):
                assert 1 <= event.count <= 10, f"{event.count} balls released in one poll"
                assert prev_held is None or event.count <= prev_held, "more balls released than held"
                assert prev_total is not None and event.total == snap.balls_released
            else:
                assert isinstance(event, MachineStatus), type(event).__name__
                assert 0 <= event.balls_released <= 0xFFFF
                assert event.state_code in regmap.state_names or event.fault_code == IMPOSSIBLE_READING
        prev_total, prev_held = snap.balls_released, snap.balls_in_machine


def ball_machine_seeds() -> list[bytes]:
    def poll(state: int, released: int, fault: int, held: int, bits: int) -> bytes:
        return struct.pack(">5H", state, released, fault, held, bits)

    draw = b"".join(poll(1, 100 + k // 3, 0, 48 - k // 3, 0b011 if k % 3 else 0b101) for k in range(18))
    return [
        draw,
        poll(0, 0, 0, 48, 0) * 3 + poll(3, 0, 1, 48, 0),
        poll(1, 65535, 0, 20, 1) + poll(1, 0, 0, 19, 1),
    ]


# -- money-wheel encoder registers (devices/money_wheel/modbus.py, encoder.py) ------------------------------------


def check_encoder(data: bytes) -> None:
    """Polls of the default map's 6 registers: the angle always inside the turn, rest only after rest_ms."""
    from devices.money_wheel.encoder import EncoderTracker
    from devices.money_wheel.events import EncoderFault, EncoderSample, WheelAtRest
    from devices.money_wheel.modbus import DEFAULT_REGISTER_MAP

    plan = DEFAULT_REGISTER_MAP.read_plan()
    tracker = EncoderTracker("encoder", DEFAULT_REGISTER_MAP, counts_per_turn=4096, rest_ms=50)
    for i, regs in enumerate(_polls(data, 6)):
        raw = DEFAULT_REGISTER_MAP.decode({plan[0]: list(regs)})
        for event in tracker.update(raw, now=i * 0.01, at=AT):
            if isinstance(event, (EncoderSample, WheelAtRest)):
                assert event.position is None or 0 <= event.position < 4096, f"position {event.position}"
                if isinstance(event, WheelAtRest):
                    assert event.still_ms >= 50
            else:
                assert isinstance(event, EncoderFault), type(event).__name__


def encoder_seeds() -> list[bytes]:
    def poll(count: int, index_count: int, index_position: int, status: int = 0) -> bytes:
        return struct.pack(">IHIH", count & 0xFFFFFFFF, index_count, index_position, status)

    spin = b"".join(poll(1000 + 37 * k * max(0, 20 - k), k // 5, 4096 * (k // 5), 0) for k in range(30))
    return [spin, poll(5, 0, 0) * 10, poll(0xFFFFFFF0, 1, 7) + poll(0x10, 1, 7) * 8 + poll(0, 2, 4103, 3)]


# -- dice camera frame stream (devices/camera/frames.py) --------------------------------------------------------


def check_frames(data: bytes) -> None:
    """A frame stream's bytes: frames of the size announced, anything else a SourceError (FrameStreamError)."""
    from devices.camera.frames import SourceError, TcpFrameSource

    a, b = socket.socketpair()
    try:
        source = TcpFrameSource("tcp://fuzz:1", "fuzz", 1)
        source._sock = a
        b.sendall(data)
        b.shutdown(socket.SHUT_WR)
        for _ in range(64):
            try:
                frame = source.read(0.5)
            except SourceError:
                break
            assert frame is not None, "a timeout on a stream that has ended"
            image = frame.image
            assert image.size > 0 and image.ndim in (2, 3), f"an empty or odd image {image.shape}"
            assert image.ndim == 2 or image.shape[2] in (1, 3, 4), f"image of {image.shape}"
        assert len(source._buf) <= len(data)
    finally:
        a.close()
        b.close()


def frame_seeds() -> list[bytes]:
    import cv2
    import numpy as np

    from devices.camera.frames import pack_frame

    grey = np.arange(12, dtype=np.uint8).reshape(3, 4)
    colour = np.arange(2 * 2 * 3, dtype=np.uint8).reshape(2, 2, 3)
    ok, png = cv2.imencode(".png", colour)
    assert ok
    return [
        pack_frame(grey, 1) + pack_frame(grey, 2, timestamp_us=10),
        pack_frame(colour, 7, encoded=png.tobytes()),
        pack_frame(colour, 0xFFFFFFFF) + pack_frame(colour, 0),
    ]


# -- the feed's handshake, both ends (streaming/feed.py, clients/python/studio_client) -----------------------------


def check_feed_handshake(data: bytes) -> None:
    """The server's reading of the Authorization header and of ?after=."""
    from streaming.feed import _AFTER_RE, _bearer_token

    header = data.decode("latin-1")  # what an HTTP header holds
    token = _bearer_token(header)
    if token is not None:
        assert token and token == token.strip() and token in header, f"token {token!r} from {header!r}"
        assert header.strip()[:7].lower() == "bearer ", f"a token from {header!r}"
    after = data.decode("utf-8", "replace")
    if _AFTER_RE.fullmatch(after):
        assert after.isascii() and 0 <= int(after) < 10**19


def check_client_refusal(data: bytes) -> None:
    """The client's reading of a refused handshake: FeedRefused, HeadWentBack or a retry, nothing else."""
    from studio_client.errors import FeedRefused, HeadWentBack
    from studio_client.feed import FeedClient
    from websockets.datastructures import Headers
    from websockets.exceptions import InvalidStatus
    from websockets.http11 import Response

    status = 400 + (data[0] if data else 0) % 200
    response = Response(status, "refused", Headers({"content-type": "application/json"}), data[1:])
    try:
        FeedClient._refused(InvalidStatus(response), 10)
    except (FeedRefused, HeadWentBack):
        return
    assert status >= 500 or status == 429, f"HTTP {status} taken as worth retrying"


_FEED_KEY: Any = None


def _feed_key() -> tuple[Any, str]:
    global _FEED_KEY
    if _FEED_KEY is None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        from streaming.canonical import public_key_b64

        key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
        _FEED_KEY = (key, public_key_b64(key.public_key()))
    return _FEED_KEY


def sign(message: dict[str, Any]) -> dict[str, Any]:
    """`message` with its hash and signature made as the studio makes them (so the check passes them)."""
    from streaming.canonical import canonical_json, sha256_hex

    key, _ = _feed_key()
    body = {k: v for k, v in message.items() if k not in ("hash", "signature")}
    signed = {**body, "hash": sha256_hex(canonical_json(body))}
    import base64

    return {**signed, "signature": base64.b64encode(key.sign(canonical_json(signed))).decode()}


def check_client_frame(data: bytes) -> None:
    """A frame that parses as JSON is signed with the studio's key (so only its shape is wrong, if anything):
    the client takes it as a message or refuses it with one of its own errors (StudioClientError)."""
    from studio_client.errors import StudioClientError
    from studio_client.feed import read_frame
    from studio_client.verify import GENESIS_HASH, Verifier

    _, public = _feed_key()
    text = data.decode("utf-8", "replace")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, dict):
        value.setdefault("seq", 1)
        value["prev_hash"] = GENESIS_HASH
        try:
            text = json.dumps(sign(value))
        except (TypeError, ValueError, RecursionError):
            pass
    verifier = Verifier(public)
    try:
        position, message = read_frame(verifier, text)
    except StudioClientError:
        return
    assert position.last_seq == message.seq == 1


def feed_seeds() -> list[bytes]:
    result = {
        "seq": 1,
        "kind": "result",
        "occurred_at": "2026-01-01T00:00:00Z",
        "prev_hash": "0" * 64,
        "table_id": "roulette-1",
        "game": "european_roulette",
        "round_id": "r-1",
        "round_number": 1,
        "version": 1,
        "result": {"number": "17"},
        "source": {"game_counter": 11},
    }
    void = {**result, "kind": "void", "reason": {"code": "device_lost", "message": "the wheel"}}
    checkpoint = {k: result[k] for k in ("seq", "occurred_at", "prev_hash")} | {
        "kind": "checkpoint",
        "head": {"journal_seq": 40, "journal_hash": "ab" * 32},
    }
    return [json.dumps(m).encode() for m in (result, void, checkpoint)] + [
        b"Bearer soak-consumer-token",
        b"bearer  abc def ",
        b"12345",
        b"\x90" + json.dumps({"code": "invalid_after", "message": "'after' must be an integer"}).encode(),
        b"\x00" + json.dumps({"code": "after_beyond_last_seq", "message": "beyond", "last_seq": 3}).encode(),
    ]


# -- all of them -----------------------------------------------------------------------------------------------


def all_targets(capture: bytes) -> dict[str, Target]:
    feed = feed_seeds()
    ss2 = ss2_seeds(capture)
    targets = [
        Target("framer", check_framer, ss2[::4] + shoe_seeds()[:2]),
        Target("ss2", check_ss2, ss2),
        Target("shoe", check_shoe, shoe_seeds()),
        Target("ball_reader", check_ball_reader, ball_reader_seeds()),
        Target("pointer", check_pointer, pointer_seeds()),
        Target("ball_machine", check_ball_machine, ball_machine_seeds()),
        Target("encoder", check_encoder, encoder_seeds()),
        Target("frames", check_frames, frame_seeds()),
        Target("feed_handshake", check_feed_handshake, feed),
        Target("client_refusal", check_client_refusal, feed[3:]),
        Target("client_frame", check_client_frame, feed[:3]),
    ]
    return {t.name: t for t in targets}


# -- mutations: the same edits for hypothesis (tests/fuzz/fuzz_strategies.py) and the bench's random loop ----------

JSON_VALUES = [
    b"0",
    b"-1",
    b"1e999",
    b"null",
    b"true",
    b"[]",
    b"{}",
    b'""',
    b'"\\u0000"',
    b"[[[[[[[[]]]]]]]]",
]
INTERESTING = [
    b"\r",
    b"\n",
    b"\r\n",
    b";",
    b"*X;",
    b" ",
    b"\x00",
    b"\xff",
    b"999",
    b"256",
    b"257",
    b"-1",
    b"{",
    b"}",
]
SET_BYTES = b"0123456789;*X \r\n"
#: one edit: (operation 0-7, position, argument, bytes to insert)
Edit = tuple[int, int, int, bytes]
EDIT_OPS = 8
MAX_INPUT = 4096


def apply_edits(seed: bytes, edits: Iterable[Edit], seeds: Sequence[bytes]) -> bytes:
    """`seed` with the edits applied in turn: flip a bit, insert a telling token, delete, duplicate a run,
    splice another seed's tail, insert bytes, set a byte to a protocol character, give a quoted (JSON) string
    a value of another type. Positions and arguments wrap, so any integers make a valid edit."""
    data = bytearray(seed)
    for op, pos, arg, blob in edits:
        pos %= len(data) + 1
        if op == 0 and data:
            data[pos % len(data)] ^= 1 << (arg % 8)
        elif op == 1:
            data[pos:pos] = INTERESTING[arg % len(INTERESTING)]
        elif op == 2:
            del data[pos : pos + 1 + arg % 16]
        elif op == 3 and data:
            start = arg % len(data)
            data[pos:pos] = data[start : start + 1 + (arg // 7) % 32]
        elif op == 4:
            other = seeds[arg % len(seeds)]
            data = data[:pos] + other[(arg // len(seeds)) % (len(other) + 1) :]
        elif op == 5:
            data[pos:pos] = blob
        elif op == 6 and data:
            data[pos % len(data)] = SET_BYTES[arg % len(SET_BYTES)]
        elif op == 7:
            quotes = [m.span() for m in re.finditer(rb'"[^"]*"', data)]
            if quotes:
                start, end = quotes[arg % len(quotes)]
                data[start:end] = JSON_VALUES[(arg // len(quotes)) % len(JSON_VALUES)]
        del data[MAX_INPUT:]
    return bytes(data)


def mutate(rng: random.Random, seeds: Sequence[bytes]) -> bytes:
    """A seed with one to six random edits (the bench's loop)."""
    edits = [
        (
            rng.randrange(EDIT_OPS),
            rng.randrange(1 << 16),
            rng.randrange(1 << 16),
            rng.randbytes(rng.randint(1, 8)),
        )
        for _ in range(rng.randint(1, 6))
    ]
    return apply_edits(rng.choice(seeds), edits, seeds)
