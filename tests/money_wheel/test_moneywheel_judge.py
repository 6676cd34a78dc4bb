"""The money-wheel judge, pure, fed with hand-made sensor events: validity, position, holds, voids, carry-over."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from moneywheel_helpers import money_wheel_games

from devices.events import DeviceConnected, DeviceDisconnected
from devices.money_wheel.events import (
    EncoderFault,
    EncoderSample,
    EncoderZeroMark,
    PointerRead,
    PointerUnreadable,
    WheelAtRest,
)
from recognition.game import Hold, Note, Release, ResultReady, RoundSignal, Void

GAMES = money_wheel_games()
CPR = 1900  # 19 segments of 100 counts on the Wheel of Fortune
T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
ENC, PTR = "w/encoder", "w/pointer"


class Feeder:
    """Feeds a judge and keeps the clock and the encoder's count."""

    def __init__(self, game: str = "wheel_of_fortune", cpr: int = CPR, **settings: Any) -> None:
        self.game = GAMES[game]
        self.judge = self.game.new_judge(**settings)
        self.cpr = cpr
        self.t = T0
        self.count = 0
        self.round = 0
        self.out: list[Any] = []

    def at(self) -> datetime:
        self.t += timedelta(milliseconds=50)
        return self.t

    def feed(self, event: Any) -> list[Any]:
        d = self.judge.feed(event)
        self.out += d
        return d

    def signal(self, signal: str, **kw: Any) -> list[Any]:
        if signal == "round_opened":
            self.round += 1
        return self.feed(RoundSignal(signal=signal, round_number=self.round, at=self.at(), **kw))

    def new_round(self) -> list[Any]:
        return self.signal("round_opened") + self.signal("betting_closed")

    def sample(self, count: int, moving: bool = True, position: Any = "auto") -> list[Any]:
        self.count = count
        pos = count % self.cpr if position == "auto" else position
        return self.feed(
            EncoderSample(
                device_id=ENC,
                at=self.at(),
                count=count,
                position=pos,
                counts_per_turn=self.cpr,
                index_count=1,
                velocity=0,
                moving=moving,
            )
        )

    def move(self, *waypoints: int, step: int = 97) -> list[Any]:
        out: list[Any] = []
        for target in waypoints:
            while self.count != target:
                nxt = self.count + max(-step, min(step, target - self.count))
                out += self.sample(nxt)
        return out

    def rest(self, position: Any = "auto") -> list[Any]:
        pos = self.count % self.cpr if position == "auto" else position
        still = self.sample(self.count, moving=False, position=pos)
        return still + self.feed(
            WheelAtRest(
                device_id=ENC,
                at=self.at(),
                sensor="encoder",
                still_ms=400,
                count=self.count,
                position=pos,
                counts_per_turn=self.cpr,
            )
        )

    def read(self, index: int | None, other: int | None = None, unreadable: bool = False) -> list[Any]:
        if unreadable:
            return self.feed(PointerUnreadable(device_id=PTR, at=self.at(), reason="no tag"))
        return self.feed(
            PointerRead(
                device_id=PTR,
                at=self.at(),
                tag=f"S{index:02d}",
                segment_index=index,
                other_tag=None if other is None else f"S{other:02d}",
                other_index=other,
            )
        )

    def spin_to(self, segment: int, turns: int = 4, windup: int = 200, n: int = 19) -> list[Any]:
        """Swing back, spin clockwise at least ``turns`` turns, stop on the centre of ``segment``."""
        start = self.count
        target_pos = ((n - segment) % n) * (
            self.cpr // n
        )  # clockwise turning moves the pointer down the numbering
        base = start - windup + turns * self.cpr
        final = base + (target_pos - base) % self.cpr
        return self.move(start - windup, final)


def kinds(decisions: list[Any]) -> list[str]:
    return [d.kind for d in decisions]


def test_a_valid_spin_gives_the_segment():
    f = Feeder()
    f.sample(0, moving=False)
    assert f.new_round() == []
    assert f.spin_to(4) == []
    d = f.rest()
    assert kinds(d) == ["result_ready"]
    assert d[0].result == {"segment": "5", "index": 4, "color": "black"}
    assert d[0].source["turns"].startswith("4.") and d[0].source["direction"] == "clockwise"
    assert d[0].source["position"] == 1500 and d[0].source["edge"] == "0.50"
    # nothing more for this round, whatever the wheel does
    assert f.spin_to(7) == [] and f.rest() == []


@pytest.mark.parametrize(
    "path, code",
    [
        ([-200, 1500], "weak_spin"),  # 0.89 turn clockwise
        ([200, -3 * CPR - 400], "wrong_direction"),  # swung clockwise, spun counterclockwise
        ([4 * CPR + 1500], "no_counter_start"),  # no swing back first (L2471)
        ([-200, 4 * CPR + 1500, 4 * CPR + 1200], "wrong_direction"),  # rolled back 0.16 turn at the end
    ],
)
def test_spins_that_do_not_count_void_the_round(path, code):
    f = Feeder()
    f.sample(0, moving=False)
    f.new_round()
    f.move(*path)
    d = f.rest()
    assert kinds(d) == ["void"] and d[0].code == code and d[0].message


def test_a_boundary_holds_and_a_valid_respin_releases():
    f = Feeder()
    f.sample(0, moving=False)
    f.new_round()
    f.move(-200, 4 * CPR + 1450)  # 1450: the boundary between segments 4 and 5
    d = f.rest()
    assert kinds(d) == ["hold"] and d[0].code == "on_boundary"
    f.spin_to(11)
    d = f.rest()
    assert kinds(d) == ["release", "result_ready"] and d[0].code == "on_boundary"
    assert d[1].result["segment"] == "12"


def test_boundary_margin_setting():
    f = Feeder(boundary_margin="1/5")
    f.sample(0, moving=False)
    f.new_round()
    f.move(-200, 4 * CPR + 1470)  # 0.2 segment from the boundary: inside a 1/5 margin is on it
    assert kinds(f.rest()) == ["result_ready"]
    f = Feeder(boundary_margin="1/5")
    f.sample(0, moving=False)
    f.new_round()
    f.move(-200, 4 * CPR + 1469)
    assert kinds(f.rest()) == ["hold"]


def test_both_sensors_must_agree():
    f = Feeder()
    f.sample(0, moving=False)
    f.read(0)
    f.new_round()
    f.spin_to(4)
    f.read(4)
    d = f.rest()
    assert kinds(d) == ["result_ready"] and d[0].source["pointer_tag"] == "S04"
    assert d[0].source["sensors"] == ["encoder", "pointer"]

    for problem, code in (((5,), "sensors_disagree"), ((4, 5), "on_boundary"), (None, "tag_unreadable")):
        f.new_round()
        f.spin_to(9)
        if problem is None:
            f.read(None, unreadable=True)
        else:
            f.read(*problem)
        d = f.rest()
        assert kinds(d) == ["hold"] and d[0].code == code, problem
        f.spin_to(2)  # the dealer spins again; now the reader agrees
        f.read(2)
        d = f.rest()
        assert kinds(d) == ["release", "result_ready"] and d[-1].result["index"] == 2


def test_an_unknown_tag_holds():
    f = Feeder(sensors=["encoder", "pointer"])
    f.sample(0, moving=False)
    f.read(0)
    f.new_round()
    f.spin_to(3)
    f.feed(PointerRead(device_id=PTR, at=f.at(), tag="ZZ", segment_index=None))
    assert [d.code for d in f.rest()] == ["unknown_tag"]


def test_a_lost_sensor_holds_and_that_spin_is_never_used():
    f = Feeder()
    f.sample(0, moving=False)
    f.new_round()
    f.move(-200, 2 * CPR)
    d = f.feed(DeviceDisconnected(device_id=ENC, at=f.at(), reason="no answer"))
    assert kinds(d) == ["hold"] and d[0].code == "sensor_lost"
    f.feed(DeviceConnected(device_id=ENC, at=f.at(), port="x"))
    f.move(5 * CPR + 1500)  # the rest of that spin, seen after the reconnect
    d = f.rest()
    assert kinds(d) == ["note"] and "not used" in d[0].message  # still held: no result
    f.spin_to(6)
    d = f.rest()
    assert kinds(d) == ["release", "result_ready"] and d[1].result["index"] == 6


def test_a_sensor_down_when_betting_closes_holds():
    f = Feeder()
    f.sample(0, moving=False)
    f.feed(DeviceDisconnected(device_id=ENC, at=f.at(), reason="cannot connect"))
    d = f.new_round()
    assert [x.code for x in d if isinstance(x, Hold)] == ["sensor_lost"]
    f.feed(DeviceConnected(device_id=ENC, at=f.at(), port="x"))
    f.sample(0, moving=False)  # the first poll after the reconnect
    f.sample(0, moving=False)  # a heartbeat: the wheel stands still
    f.spin_to(8)
    assert kinds(f.rest()) == ["release", "result_ready"]


def test_a_wheel_moving_when_betting_closes_never_counts():
    f = Feeder()
    f.sample(0, moving=False)
    f.signal("round_opened")
    f.move(-200, CPR)  # spun before betting closed
    d = f.signal("betting_closed")
    assert kinds(d) == ["hold"] and d[0].code == "moving_at_close"
    f.move(5 * CPR + 1500)
    assert kinds(f.rest()) == ["note"]
    f.spin_to(1)
    d = f.rest()
    assert kinds(d) == ["release", "result_ready"] and d[1].result["segment"] == "2"


def test_an_encoder_fault_during_the_spin_holds():
    f = Feeder()
    f.sample(0, moving=False)
    f.new_round()
    f.move(-200, CPR)
    d = f.feed(EncoderFault(device_id=ENC, at=f.at(), code="index_drift", description="counts lost"))
    assert kinds(d) == ["hold"] and d[0].code == "sensor_fault"
    f.move(5 * CPR + 1500)
    assert kinds(f.rest()) == ["note"]
    f.spin_to(3)
    assert kinds(f.rest()) == ["release", "result_ready"]


def test_an_unreferenced_encoder_holds():
    f = Feeder()
    f.sample(0, moving=False, position=None)
    f.new_round()
    f.spin_to(4)
    assert [d.code for d in f.rest(position=None)] == ["not_referenced"]


def test_counts_per_turn_must_match_the_calibration():
    f = Feeder(calibration={"counts_per_turn": 2000})
    f.sample(0, moving=False)
    f.new_round()
    f.spin_to(4)
    assert [d.code for d in f.rest()] == ["calibration"]


def test_zero_mark_and_calibration_direction():
    f = Feeder()
    f.sample(0, moving=False)
    d = f.feed(EncoderZeroMark(device_id=ENC, at=f.at(), position=100, count=100, counts_per_turn=CPR))
    assert isinstance(d[0], Note) and "zero_offset = 100" in d[0].message
    f.new_round()
    f.spin_to(4)  # stops at position 1500; with zero at 100 that is segment 5
    assert f.rest()[0].result["index"] == 5
    # counting counterclockwise: the same counts are the other way round
    g = Feeder(
        calibration={"counting": "counterclockwise"}, counter_start=False, direction="counterclockwise"
    )
    g.sample(0, moving=False)
    g.new_round()
    g.move(4 * CPR + 1500)
    assert g.rest()[0].result["index"] == (19 - 4) % 19


def test_dream_catcher_carries_multipliers_through_the_tables_signals():
    f = Feeder("dream_catcher", cpr=5400)
    labels = f.game.default_layout().labels()
    two_x, five = labels.index("2x"), labels.index("5")
    f.sample(0, moving=False)
    f.new_round()
    f.spin_to(two_x, n=54)
    d = f.rest()[0]
    assert d.result == {"segment": "2x", "index": two_x, "multipliers": []}
    out = f.game.outcome(d.result)
    f.signal("round_ended", final_state="certified", result=d.result, outcome=out)
    f.new_round()
    f.spin_to(five, n=54)
    d = f.rest()[0]
    assert d.result["multipliers"] == [2]
    assert f.game.outcome(d.result)["winning_bets"][0]["payout"] == 10
    # a voided spin ends the carried multipliers (bets returned, L1768) unless carry_after_void
    for carry, after in ((False, []), (True, [2])):
        g = Feeder("dream_catcher", cpr=5400, carry_after_void=carry, multipliers=[2])
        g.sample(0, moving=False)
        g.signal("round_opened")
        g.signal("round_ended", final_state="voided")
        g.new_round()
        g.spin_to(five, n=54)
        assert g.rest()[0].result["multipliers"] == after


def test_pointer_only_spins():
    f = Feeder("dream_catcher", sensors=["pointer"])
    f.read(10)
    f.feed(
        WheelAtRest(device_id=PTR, at=f.at(), sensor="pointer", still_ms=1500, tag="S10", segment_index=10)
    )
    f.new_round()
    idx = 10
    for _ in range(54 * 3 + 5):  # three turns and a bit clockwise: the index goes down
        idx = (idx - 1) % 54
        f.read(idx)
    assert f.out == []
    d = f.feed(
        WheelAtRest(
            device_id=PTR, at=f.at(), sensor="pointer", still_ms=1500, tag=f"S{idx:02d}", segment_index=idx
        )
    )
    assert kinds(d) == ["result_ready"] and d[0].result["index"] == idx and d[0].source["turns"] == "3.09"
    # missed reads: the turns cannot be counted
    f.new_round()
    f.read((idx - 1) % 54)
    f.read((idx - 20) % 54)
    d = f.feed(
        WheelAtRest(
            device_id=PTR,
            at=f.at(),
            sensor="pointer",
            still_ms=1500,
            tag="S00",
            segment_index=(idx - 20) % 54,
        )
    )
    assert [x.code for x in d] == ["spin_not_verified"]


def test_results_only_after_betting_closed():
    f = Feeder()
    f.sample(0, moving=False)
    f.signal("round_opened")
    f.spin_to(4)
    assert f.rest() == []  # a spin while betting is open is nobody's result


def test_releases_only_its_own_holds():
    f = Feeder()
    f.sample(0, moving=False)
    f.new_round()
    f.move(-200, 4 * CPR + 1450)
    f.rest()
    f.spin_to(2)
    d = f.rest()
    assert [x.code for x in d if isinstance(x, Release)] == ["on_boundary"]
    assert isinstance(d[-1], ResultReady) and not any(isinstance(x, (Hold, Void)) for x in d)


def test_no_result_while_a_sensor_is_down():
    f = Feeder()
    f.sample(0, moving=False)
    f.read(0)
    f.feed(DeviceDisconnected(device_id=PTR, at=f.at(), reason="no data for 1.0 s"))
    d = f.new_round()
    assert [x.code for x in d] == ["sensor_lost"]
    f.spin_to(4)
    d = f.rest()  # the pointer's last read is stale: nothing is certified on the encoder alone
    assert kinds(d) == ["note"] and "disconnected" in d[0].message
    f.read(4)  # the reader is back (its first read clears it) and agrees after a new spin
    f.spin_to(7)
    f.read(7)
    assert kinds(f.rest()) == ["release", "result_ready"]
