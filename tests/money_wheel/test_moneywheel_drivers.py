"""Wheel sensors: the encoder over real Modbus (TCP, and RTU on ptys) and the pointer reader on a real pty."""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime

import pytest

from devices.base import DeviceNotConnected
from devices.modbus_url import parse_modbus_url
from devices.money_wheel.encoder import EncoderTracker, EncoderWheelDriver
from devices.money_wheel.modbus import DEFAULT_REGISTER_MAP, register_map_from_option
from devices.money_wheel.pointer import PointerReaderDriver, PointerTracker, TagTable
from recognition.money_wheel.calibration import Calibration
from simulators.money_wheel import EncoderSimulator, PointerSimulator

AT = datetime(2026, 11, 29, tzinfo=UTC)


def raw(count: int, index_count: int = 1, index_position: int = 0, status: int = 0) -> dict[str, int]:
    return {
        "count": count & 0xFFFFFFFF,
        "index_count": index_count,
        "index_position": index_position & 0xFFFFFFFF,
        "status": status,
    }


# --- the pure layers --------------------------------------------------------------------------------


def test_tracker_unwraps_the_counter_and_measures_from_the_index():
    t = EncoderTracker("e", DEFAULT_REGISTER_MAP, counts_per_turn=4096, rest_ms=100, sample_interval=0.0)
    start = 0xFFFFFF00  # near the top of the 32-bit counter
    first = t.update(raw(start, index_position=start - 100), 0.0, AT)
    assert first[0].count == 0 and first[0].position == 100 and not first[0].moving
    evs = t.update(raw(start + 0x200, index_position=start - 100), 0.01, AT)  # wraps past 2**32
    assert evs[-1].count == 0x200 and evs[-1].moving and evs[-1].position == 100 + 0x200
    evs = t.update(raw(start + 0x200, index_position=start - 100), 0.2, AT)
    rest = [e for e in evs if e.kind == "wheel_at_rest"]
    assert rest and rest[0].count == 0x200 and rest[0].sensor == "encoder"


def test_tracker_16_bit_counter_and_reversals():
    m = register_map_from_option({"count": {"address": 0, "type": "uint16"}})
    t = EncoderTracker("e", m, counts_per_turn=1024, rest_ms=100, sample_interval=10.0, reversal_tolerance=5)
    t.update({"count": 65530}, 0.0, AT)
    t.update({"count": 10}, 0.01, AT)  # wrapped: +16
    t.update({"count": 300}, 0.02, AT)
    evs = t.update({"count": 250}, 0.03, AT)  # came back 50 counts from the furthest point: a reversal there
    rev = [e for e in evs if getattr(e, "reversal", False)]
    assert rev and rev[0].count == 306 and t.count == 256
    assert t.last.position == 250  # no index latch: the counter's range is 64 whole turns
    with pytest.raises(ValueError, match="whole number of turns"):
        EncoderTracker("e", m, counts_per_turn=1000)


def test_tracker_single_turn_absolute_encoder():
    m = register_map_from_option({"count": {"address": 0, "type": "uint16"}, "single_turn": True})
    t = EncoderTracker("e", m, counts_per_turn=1000, rest_ms=100)
    t.update({"count": 990}, 0.0, AT)
    t.update({"count": 20}, 0.01, AT)  # past the zero of the turn: +30
    assert t.count == 30 and t.last.position == 20
    t.update({"count": 950}, 0.02, AT)  # back 70
    assert t.count == -40


def test_tracker_faults():
    t = EncoderTracker("e", DEFAULT_REGISTER_MAP, counts_per_turn=4096)
    t.update(raw(0, index_count=0), 0.0, AT)
    assert t.last.position is None  # no index pulse since power-up
    t.update(raw(5000, index_count=1, index_position=4096), 0.01, AT)
    assert t.last.position == 904
    ok = t.update(raw(9000, index_count=2, index_position=8192), 0.02, AT)
    assert not [e for e in ok if e.kind == "wheel_encoder_fault"]
    bad = t.update(raw(12000, index_count=3, index_position=8192 + 4096 + 40), 0.03, AT)  # 40 counts lost
    assert [e.code for e in bad if e.kind == "wheel_encoder_fault"] == ["index_drift"]
    status = t.update(raw(12000, index_count=3, index_position=12328, status=7), 0.04, AT)
    assert [e.code for e in status if e.kind == "wheel_encoder_fault"] == ["device_fault"]


def test_pointer_tracker_lines():
    tags = TagTable(segments=19)
    t = PointerTracker("p", tags, rest_ms=300)
    a = t.handle_line("TAG S03", 0.0, AT)
    assert a[0].kind == "wheel_pointer_read" and a[0].segment_index == 3
    assert t.handle_line("TAG S03", 0.1, AT) == []  # a repeat
    assert t.handle_line("TAG S03", 0.31, AT)[0].kind == "wheel_at_rest"
    assert t.handle_line("TAG S03", 0.5, AT) == []  # once per stop
    b = t.handle_line("TAG S03 S04", 0.6, AT)[0]
    assert b.other_tag == "S04" and b.other_index == 4
    assert t.handle_line("NOREAD", 0.7, AT)[0].kind == "wheel_pointer_unreadable"
    rest = t.handle_line("NOREAD", 1.1, AT)[0]
    assert rest.kind == "wheel_at_rest" and rest.tag is None and rest.segment_index is None
    assert t.handle_line("TAG S99", 1.2, AT)[0].segment_index is None  # not in the tag table
    assert t.handle_line("HELLO WORLD", 1.3, AT)[0].kind == "device_unknown"
    assert TagTable({"A": 0, "B": 1}).index("B") == 1
    with pytest.raises(ValueError):
        TagTable(["A", "A"])


def test_urls_and_register_maps_are_checked(tmp_path):
    assert parse_modbus_url("modbus-tcp://127.0.0.1:1502?unit=3").port == 1502
    assert parse_modbus_url("modbus-rtu:///dev/ttyUSB0?baud=9600").device == "/dev/ttyUSB0"
    for bad in ("tcp://x", "modbus-tcp://x?unit=0", "modbus-tcp://x?speed=1", "modbus-rtu://?baud=1"):
        with pytest.raises(ValueError):
            parse_modbus_url(bad)
    toml = tmp_path / "map.toml"
    toml.write_text('model = "x"\ncount = {table = "input_register", address = 10, type = "int32"}\n')
    assert register_map_from_option(str(toml)).count.table == "input_register"
    with pytest.raises(ValueError, match="count"):
        register_map_from_option({"index_count": {"address": 1}})
    with pytest.raises(ValueError):
        register_map_from_option({"count": {"address": 0, "type": "float"}})


# --- the encoder over Modbus ------------------------------------------------------------------------------


def expected_segment(sim: EncoderSimulator, rest) -> int:
    cal = Calibration(
        sim.model.segments, sim.zero_offset, "clockwise" if sim.sign > 0 else "counterclockwise"
    )
    return cal.segment_at(rest.position, rest.counts_per_turn)[0]


def test_the_encoder_answers_each_read_with_the_wheel_of_that_moment(events):
    """A simulator whose ticker stalls (here: it never ticks again after the start, as a loop stalled longer
    than the rest window) still shows the spin: each Modbus read is answered from the wheel's clock, so the
    driver cannot see a still wheel in the middle of a spin."""
    sim = EncoderSimulator(speed=40, seed=5, wheel_id="drv-stalled", act_as_dealer=False, tick_s=3600.0)
    driver = EncoderWheelDriver("t/enc", sim.open(), events, rest_ms=200, timeout=5.0)
    try:
        driver.start()
        events.wait_kind("device_connected")
        plan = sim.spin()
        events.wait_for(lambda e: e.kind == "wheel_encoder_sample" and e.moving, what="a moving sample")
        rest = events.wait_kind("wheel_at_rest")
        stop = sim.stop_monotonic()
        assert stop is not None
        stopped_at = time.time() - (time.monotonic() - stop)  # the wall clock the events are stamped with
        assert rest.at.timestamp() >= stopped_at, "at rest before the wheel stopped"
        assert expected_segment(sim, rest) == plan["segment"]
    finally:
        driver.stop()
        sim.stop()


@pytest.mark.parametrize("transport", ["tcp", "rtu"])
def test_encoder_path_end_to_end(events, transport):
    sim = EncoderSimulator(
        transport=transport,
        speed=40,
        seed=3,
        wheel_id=f"drv-{transport}",
        act_as_dealer=False,
        counter_s=6.0,
        index_angle=0.3,
        counts_clockwise=False,
    )
    driver = EncoderWheelDriver("t/enc", sim.open(), events, rest_ms=200, timeout=1.0)
    try:
        driver.start()
        events.wait_kind("device_connected")
        events.wait_kind("wheel_encoder_sample")
        plan = sim.spin()
        rest = events.wait_kind("wheel_at_rest")
        assert rest.position is not None  # the spin crossed the index mark
        assert expected_segment(sim, rest) == plan["segment"]
        moved = [e for e in events.seen if e.kind == "wheel_encoder_sample" and e.moving]
        assert moved and any(
            e.reversal for e in events.seen if e.kind == "wheel_encoder_sample"
        )  # the swing back
        assert driver.health()["connected"] and driver.health()["counters"]["polls"] > 10
        driver.send("mark_zero")
        mark = events.wait_kind("wheel_encoder_zero_mark")
        assert mark.position == rest.position
        with pytest.raises(ValueError):
            driver.send("self_destruct")
    finally:
        driver.stop()
        sim.stop()
    events.drain()
    assert events.seen[-1].kind == "device_disconnected"


def test_encoder_reconnects_after_the_link_drops(events):
    sim = EncoderSimulator(speed=10, seed=4, wheel_id="drv-link", act_as_dealer=False)
    driver = EncoderWheelDriver(
        "t/enc", sim.open(), events, timeout=0.3, reconnect_min=0.05, reconnect_max=0.2
    )
    try:
        driver.start()
        events.wait_kind("device_connected")
        sim.lose_link()
        events.wait_kind("device_disconnected")
        assert not driver.connected
        with pytest.raises(DeviceNotConnected):
            driver.send("mark_zero")
        sim.restore_link()
        events.wait_kind("device_connected")
        events.wait_kind("wheel_encoder_sample")
    finally:
        driver.stop()
        sim.stop()


def test_encoder_custom_register_map(events):
    regmap = {
        "model": "test",
        "count": {"table": "input_register", "address": 20, "type": "int32", "word_order": "little"},
        "index_count": {"table": "input_register", "address": 7},
        "index_position": {"table": "holding_register", "address": 100, "type": "uint32"},
    }
    sim = EncoderSimulator(
        speed=40,
        seed=6,
        wheel_id="drv-map",
        act_as_dealer=False,
        register_map=regmap,
        count_base=-50_000,
        referenced=True,
    )
    driver = EncoderWheelDriver("t/enc", sim.open(), events, register_map=regmap, rest_ms=200)
    try:
        driver.start()
        first = events.wait_kind("wheel_encoder_sample")
        assert first.position is not None  # referenced at power-up in this simulator
        plan = sim.spin()
        rest = events.wait_kind("wheel_at_rest")
        assert expected_segment(sim, rest) == plan["segment"]
    finally:
        driver.stop()
        sim.stop()


def test_no_device_at_the_url(events):
    driver = EncoderWheelDriver(
        "t/enc", "modbus-tcp://127.0.0.1:1?unit=1", events, reconnect_min=0.05, reconnect_max=0.1
    )
    try:
        driver.start()
        ev = events.wait_kind("device_disconnected")
        assert "cannot connect" in ev.reason
    finally:
        driver.stop()


# --- the pointer reader on a pty -------------------------------------------------------------------------------


def test_pointer_path_end_to_end(events):
    sim = PointerSimulator(speed=20, seed=8, wheel_id="drv-ptr", act_as_dealer=False)
    sim.start()
    driver = PointerReaderDriver("t/ptr", sim.slave_path, events, rest_ms=300)
    try:
        driver.start()
        events.wait_kind("device_connected")
        events.wait_kind("wheel_at_rest")
        plan = sim.spin()
        rest = events.wait_for(
            lambda e: (
                e.kind == "wheel_at_rest"
                and e.at > events.seen[0].at
                and sim.model.spins
                and not sim.model.moving(sim.now())
            ),
            timeout=20,
        )
        assert rest.segment_index == plan["segment"] and rest.tag == f"S{plan['segment']:02d}"
        reads = [
            e.segment_index for e in events.seen if e.kind == "wheel_pointer_read" and e.other_tag is None
        ]
        steps = [min((b - a) % 54, (a - b) % 54) for a, b in itertools.pairwise(reads)]
        assert len(reads) > 54 * 3 and max(steps) <= 2  # every segment went by the reader
        # an unreadable tag where it stops
        sim.inject("unreadable")
        sim.spin()
        rest = events.wait_for(lambda e: e.kind == "wheel_at_rest" and e.tag is None)
        assert rest.segment_index is None
    finally:
        driver.stop()
        sim.stop()


def test_pointer_dropout_is_a_disconnect(events):
    sim = PointerSimulator(speed=10, seed=9, wheel_id="drv-drop", act_as_dealer=False)
    sim.start()
    driver = PointerReaderDriver("t/ptr", sim.slave_path, events, silence_timeout=0.4)
    try:
        driver.start()
        events.wait_kind("wheel_pointer_read")
        sim.inject("dropout", at_s=0.0, seconds=1.0)
        sim.spin()
        lost = events.wait_kind("device_disconnected")
        assert "no data" in lost.reason
        events.wait_kind("device_connected")
    finally:
        driver.stop()
        sim.stop()
