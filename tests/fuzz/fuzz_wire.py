"""Fuzz targets of the register decoders (the ball machine, the money wheel's encoder), the camera frame stream
and the feed's handshake at both ends. fuzz_targets.py says what every check asserts."""

from __future__ import annotations

import base64
import json
import socket
import struct
from typing import Any

from fuzz_base import AT

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
