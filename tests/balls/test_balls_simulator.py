"""The ball machine simulator: the pure model in machine time, the ball path, discovery."""

from __future__ import annotations

import pytest

from simulators.balls import (
    _PATHS,
    FAULT_EMPTY,
    SIMULATORS,
    STATE_FAULT,
    STATE_IDLE,
    STATE_MIXING,
    STATE_RELEASING,
    BallMachineSimulator,
    BallReaderSimulator,
    MachineModel,
    Timings,
    ball_path,
)

T = Timings()
TAGS = [f"BALL{n:03d}" for n in range(1, 11)]


def run(m: MachineModel, until: float, step: float = 0.01) -> list[tuple[float, str, str]]:
    out, now = [], 0.0
    while now <= until + 1e-9:
        out += [(round(now, 3), tag, mode) for tag, mode in m.advance(now)]
        now += step
    return out


def test_one_release_in_time():
    m = MachineModel(TAGS, seed=1)
    assert m.command("start_blower", 0.0)
    assert m.image(0.1)["blower"] == 0 and m.image(T.spin_up_s)["blower"] == 1
    assert m.state_code(1.0) == STATE_MIXING
    assert m.command("release_ball", 1.0)
    assert m.image(1.0)["gate"] == 1 and m.state_code(1.0) == STATE_RELEASING
    assert not m.command("release_ball", 1.01)  # one release at a time
    reads = run(m, 1.0 + T.gate_s - 0.02)
    assert m.released == 0
    m.advance(1.0 + T.gate_s)
    assert m.released == 1 and len(m.drum) == 9
    m.advance(1.0 + T.gate_s + T.gate_close_s)
    assert m.image(1.4)["gate"] == 0 and not m.releasing
    t_chute = 1.0 + T.gate_s + T.travel_s
    m.advance(t_chute)
    assert m.image(t_chute)["ball_in_chute"] == 1
    reads = m.advance(t_chute + T.read_s)
    assert len(reads) == 1 and reads[0][1] == "ok"
    m.advance(t_chute + T.chute_s)
    assert m.image(3.0)["ball_in_chute"] == 0 and m.tube == [reads[0][0]]


def test_the_same_seed_draws_the_same_balls():
    def draw(seed):
        m = MachineModel(TAGS, seed=seed)
        m.command("start_blower", 0)
        tags = []
        for i in range(5):
            m.command("release_ball", 1 + i * 2)
            tags += [t for t, _ in m.advance(2 + i * 2)]
        return tags

    assert draw(5) == draw(5) and len(set(draw(5))) == 5
    assert draw(5) != draw(6)


def test_double_release_two_balls_pass_the_gate_and_are_read_in_turn():
    m = MachineModel(TAGS, seed=2)
    m.inject("double_release", 0)
    m.command("release_ball", 0)
    reads = run(m, 2.0)
    assert m.released == 2 and len(reads) == 2 and reads[1][0] > reads[0][0]


def test_jam_and_clear():
    m = MachineModel(TAGS, seed=2)
    m.inject("jam", 0, plc_fault=True, detect_s=1.0)
    m.command("release_ball", 0)
    assert run(m, 3.0) == [] and m.released == 1 and len(m.stuck) == 1
    assert m.fault == 1 and m.state_code(3.0) == STATE_FAULT
    m.clear_jam(3.0)
    assert m.fault == 0
    reads = m.advance(4.0)
    assert len(reads) == 1 and reads[0][1] == "ok"


def test_misread_and_unknown_tag_modes_and_reread():
    m = MachineModel(TAGS, seed=3)
    m.inject("misread", 0)
    m.command("release_ball", 0)
    ((tag, mode),) = m.advance(2.0)
    assert mode == "misread" and tag in TAGS
    assert m.reread(2.5) == [(tag, "ok")]
    m.inject("unknown_tag", 2.5)
    m.command("release_ball", 3.0)
    ((tag2, mode2),) = m.advance(5.0)
    assert mode2 == "unknown" and tag2 not in TAGS


def test_fault_blocks_commands_until_reset_and_an_empty_drum_faults():
    m = MachineModel(TAGS[:1], seed=4)
    m.command("start_blower", 0)
    m.inject("fault", 0.1, code=5)
    assert m.image(1.0)["fault_code"] == 5 and m.image(1.0)["blower"] == 0
    assert not m.command("start_blower", 1.0) and not m.command("release_ball", 1.0)
    assert m.command("reset_fault", 1.1) and m.state_code(1.1) == STATE_IDLE
    m.command("release_ball", 2.0)
    m.advance(3.0)
    m.command("release_ball", 4.0)
    m.advance(5.0)
    assert m.fault == FAULT_EMPTY and m.released == 1
    assert not m.command("fly", 5.0) and m.refused[-1] == "fly"
    with pytest.raises(ValueError):
        m.inject("earthquake", 0)


def test_start_blower_returns_the_last_draw_even_a_ball_still_in_the_chute():
    m = MachineModel(TAGS, seed=5)
    m.command("start_blower", 0)
    for i in range(3):
        m.command("release_ball", 1 + i)
        m.advance(1 + i + T.gate_s + T.travel_s + T.read_s)  # the last one is still in the chute
    m.command("stop_blower", 5.0)
    assert len(m.tube) == 2 and len(m.chute) == 1
    m.command("start_blower", 5.1)
    assert len(m.drum) == 9 and m.tube == []
    m.advance(10)
    assert len(m.drum) == 10


def test_ball_paths_pair_the_machine_and_its_readers_by_machine_id_or_seed():
    a = BallMachineSimulator(machine_id="table-a", ball_set="1-5")
    ra = BallReaderSimulator(machine_id="table-a")
    rb = BallReaderSimulator(seed=99)
    b = BallMachineSimulator(seed=99, ball_set="1-5")
    try:
        assert a.path is ra.path and ra.path.readers == [ra]
        assert b.path is rb.path and b.path.key == "seed-99" and a.path is not b.path
        a.path.deliver("BALL001")
        assert ra.lines == ["BALL001", "BALL001"] and rb.lines == []
    finally:
        for s in (a, ra, rb, b):
            s.stop()
    assert "table-a" not in _PATHS and "seed-99" not in _PATHS
    assert ball_path("x") is ball_path("x")
    ball_path("x").attach()
    ball_path("x").detach()
    assert "x" not in _PATHS


@pytest.mark.parametrize("transport", ["tcp", "rtu"])
def test_factories_return_urls_the_drivers_open(transport):
    sim, url = SIMULATORS["modbus-ball-machine"](speed=5, seed=1, transport=transport, machine_id="f")
    reader, path = SIMULATORS["serial-ball-reader"](speed=5, seed=1, machine_id="f")
    camera, curl = SIMULATORS["camera-ball-reader"](speed=5, seed=1, machine_id="f")
    try:
        sim.start()
        reader.start()
        camera.start()
        assert url.startswith(f"modbus-{transport}://") and "unit=1" in url
        assert path.startswith("/dev/pts/") and curl.startswith("frames+tcp://127.0.0.1:")
        assert set(sim.path.readers) == {reader, camera}
    finally:
        for s in (sim, reader, camera):
            s.stop()
        sim.stop()  # idempotent


def test_the_simulator_implements_a_technicians_register_map(events):
    from devices.balls.modbus_machine import ModbusBallMachineDriver

    packed = {
        "model": "packed",
        "state": {"table": "holding_register", "address": 10},
        "blower": {"table": "holding_register", "address": 11, "bit": 0},
        "gate": {"table": "holding_register", "address": 11, "bit": 1},
        "ball_in_chute": {"table": "holding_register", "address": 11, "bit": 2},
        "balls_released": {"table": "holding_register", "address": 12},
        "fault_code": {"table": "holding_register", "address": 13},
        "commands": {
            "start_blower": [{"table": "holding_register", "address": 20, "value": 1}],
            "stop_blower": [{"table": "holding_register", "address": 20, "value": 0}],
            "release_ball": [{"table": "holding_register", "address": 21, "value": 1}],
        },
    }
    sim = BallMachineSimulator(speed=20, register_map=packed, machine_id="packed", ball_set="1-5")
    sim.start()
    drv = ModbusBallMachineDriver("t/m", sim.url, events, register_map=packed, poll_interval=0.01)
    try:
        drv.start()
        events.wait_kind("device_connected")
        drv.send("start_blower")
        events.wait_for(lambda e: e.kind == "ball_machine_status" and e.blower)
        drv.send("release_ball")
        assert events.wait_kind("ball_released").total == 1
        events.wait_for(lambda e: e.kind == "ball_machine_status" and e.ball_in_chute and e.blower)
    finally:
        drv.stop()
        sim.stop()
