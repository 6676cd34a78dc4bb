"""Monopoly Live with bonus_dice = "camera": the wheel's judge plus the dice camera's, on hand-made wheel events
and rendered dice frames (simulators.dice); evaluate round trips; the generator path unchanged."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from moneywheel_helpers import money_wheel_games

from devices.camera.events import CameraFrame
from devices.money_wheel.events import EncoderSample, WheelAtRest
from recognition.game import Hold, Note, ResultReady, RoundSignal
from recognition.money_wheel import monopoly_live as mono
from recognition.money_wheel.judge import MoneyWheelJudge
from simulators.dice import (
    DiceWorld,
    TrayGeometry,
    calibration_document,
    camera_view,
    render,
)

GAME = money_wheel_games()["monopoly_live"]
CPR = 5400  # 54 segments of 100 counts
T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
ENC, CAM = "m1/encoder", "m1/dice"
LAYOUT = GAME.default_layout()


def index_of(label: str) -> int:
    return next(s.index for s in LAYOUT.segments if s.label == label)


class Table:
    """One Monopoly table fed by hand: an encoder's events and a dice camera's rendered frames, one clock."""

    def __init__(self, seed: int = 1, **settings: Any) -> None:
        self.geometry = TrayGeometry.for_frame(640, 360)
        self.view = camera_view(0, 640, 360)
        self.world = DiceWorld(
            self.geometry, ("white", "white"), seed=seed, roll_s=1.0, hard=False, touching=0.2
        )
        self.nrng = np.random.default_rng(seed)
        cal = calibration_document(self.geometry, self.view, camera="dice")
        settings.setdefault("bonus_dice", "camera")
        if settings["bonus_dice"] == "camera":
            settings.setdefault("bonus_camera", {"calibration": cal, "hold_after_s": 1.0})
        self.judge = GAME.new_judge(**settings)
        self.clock = 0.0  # seconds since T0
        self.count = 0
        self.round = 0
        self.frames = 0
        self.extras: dict[str, Any] | None = None
        self.out: list[Any] = []

    def at(self, step: float = 0.05) -> datetime:
        self.clock += step
        return T0 + timedelta(seconds=self.clock)

    def feed(self, event: Any) -> list[Any]:
        d = self.judge.feed(event)
        self.out += d
        return d

    def new_round(self) -> list[Any]:
        self.round += 1
        self.extras = GAME.draw_extras(random.Random(self.round), bonus_dice="camera")
        out = self.feed(RoundSignal(signal="round_opened", round_number=self.round, at=self.at()))
        return out + self.feed(
            RoundSignal(signal="betting_closed", round_number=self.round, at=self.at(), extras=self.extras)
        )

    def sample(self, count: int, moving: bool = True) -> list[Any]:
        self.count = count
        return self.feed(
            EncoderSample(
                device_id=ENC,
                at=self.at(),
                count=count,
                position=count % CPR,
                counts_per_turn=CPR,
                index_count=1,
                velocity=0,
                moving=moving,
            )
        )

    def spin_to(self, segment: int, turns: int = 4) -> list[Any]:
        """A clockwise spin of at least ``turns`` turns that stops on the centre of ``segment``, at rest."""
        out = self.sample(self.count, moving=False)
        target_pos = ((54 - segment) % 54) * 100
        base = self.count + turns * CPR
        final = base + (target_pos - base) % CPR
        while self.count != final:
            out += self.sample(self.count + max(-400, min(400, final - self.count)))
        out += self.sample(self.count, moving=False)
        return out + self.feed(
            WheelAtRest(
                device_id=ENC,
                at=self.at(),
                sensor="encoder",
                still_ms=400,
                count=self.count,
                position=self.count % CPR,
                counts_per_turn=CPR,
            )
        )

    def frame(self, step: float = 0.2) -> list[Any]:
        at = self.at(step)
        dice, blur, rest = self.world.scene(self.clock, 0.05)
        img = render(dice, self.geometry, self.view, self.world.look(0), self.nrng, blur_vectors=blur)
        self.frames += 1
        return self.feed(
            CameraFrame(
                device_id=CAM,
                at=at,
                frame_number=self.frames,
                captured_at=at,
                width=640,
                height=360,
                motion=0.0 if rest else 0.05,
                moving=not rest,
                still_frames=5 if rest else 0,
                reason="settling" if rest else "motion",
                image=img,
            )
        )

    def throw(self, faces: Sequence[int] | None, faults: Sequence[str] = (), frames: int = 14) -> list[Any]:
        """Throw the two dice and feed frames until the throw is read or held (or ``frames`` run out)."""
        self.world.throw(self.clock, faces=faces, faults=faults)
        out: list[Any] = []
        for _ in range(frames):
            out += self.frame()
            if any(
                isinstance(d, (Hold, ResultReady)) or (isinstance(d, Note) and d.code == "bonus_roll")
                for d in out
            ):
                break
        return out


def _code(d: Any) -> str:
    return getattr(d, "code", "")


def codes(decisions: list[Any]) -> list[str]:
    return [
        f"{d.kind}:{_code(d)}" if _code(d) else d.kind for d in decisions if _code(d) != "dice_calibration"
    ]


def test_two_rolls_walks_with_the_read_dice_and_certifies_them() -> None:
    t = Table(seed=3)
    assert isinstance(t.judge, mono.MonopolyCameraJudge)
    t.new_round()
    t.frame()  # the camera is heard from before the wheel stops
    # a throw while no bonus game is on is never read
    assert codes(t.throw([6, 6], frames=10)) == []
    out = t.spin_to(index_of("2_rolls"))
    assert codes(out) == ["note:bonus_game"]
    assert "2 Rolls" in out[0].message and "dice camera" in out[0].message
    assert t.judge.status()["bonus_game"]["rolls_left"] == 2
    # the dice lying still since before the wheel stopped are not read: a throw is needed
    for _ in range(8):
        assert codes(t.frame()) == []
    out = t.throw([3, 3])  # a double: an extra roll
    assert codes(out) == ["note:bonus_roll"] and "extra roll" in out[-1].message
    assert t.judge.status()["bonus_game"] == {
        "segment": "2_rolls",
        "rolls": 2,
        "dice": [[3, 3]],
        "rolls_left": 2,
        "in_jail": False,
        "next": "throw the two dice",
    }
    for _ in range(6):  # the read dice lie still: not read again
        assert codes(t.frame()) == []
    assert codes(t.throw([2, 5])) == ["note:bonus_roll"]
    out = t.throw([1, 4])
    assert codes(out) == ["note:bonus_roll", "result_ready"]
    ready = out[-1]
    assert ready.result == {
        "segment": "2_rolls",
        "index": index_of("2_rolls"),
        "multipliers": [],
        "bonus_dice": [[3, 3], [2, 5], [1, 4]],
    }
    throws = ready.source["bonus_dice"]["throws"]
    assert len(throws) == 3 and all(th["kind"] == "dice-camera" and th["device_id"] == CAM for th in throws)
    assert ready.source["sensors"] == ["encoder"]
    # the table's checks and an auditor's replay agree
    assert GAME.validate_result(ready.result) == ready.result
    outcome = GAME.outcome(ready.result, t.extras)
    assert outcome["bonus_game"]["dice"] == "camera"
    assert [s["dice"] for s in outcome["bonus_game"]["steps"]] == [[3, 3], [2, 5], [1, 4]]
    assert [s["field"] for s in outcome["bonus_game"]["steps"]] == [6, 13, 18]
    record = t.extras["bonus"]["2_rolls"]
    want = mono.play_bonus(2, record["buildings"], [[3, 3], [2, 5], [1, 4]], record["cards"], deck=True)[
        "win"
    ]
    assert want == sum(mono.field_value(f, record["buildings"]) for f in (6, 13, 18))  # three properties
    assert outcome["winning_bets"] == [{"bet": "2_rolls", "type": "bonus", "payout": mono.payout(want)}]
    item = {"id": 7, **{k: v for k, v in ready.result.items() if k != "index"}, "extras": t.extras}
    assert (
        GAME.evaluate({k: v for k, v in item.items() if k != "id"})["outcome"]["winning_bets"]
        == outcome["winning_bets"]
    )
    # the round is over: more throws change nothing; the next round starts clean
    assert codes(t.throw([5, 5], frames=10)) == []
    t.feed(
        RoundSignal(
            signal="round_ended",
            round_number=1,
            at=t.at(),
            final_state="certified",
            result=ready.result,
            outcome=outcome,
        )
    )
    assert t.judge.status() is None


def test_jail_without_a_double_ends_the_game() -> None:
    t = Table(seed=5)
    t.new_round()
    t.frame()
    t.spin_to(index_of("4_rolls"))
    assert codes(t.throw([5, 5])) == ["note:bonus_roll"]  # field 10 (jail, visiting); extra roll
    out = t.throw([6, 6])  # field 22; extra roll
    assert codes(out) == ["note:bonus_roll"]
    out = t.throw([4, 4])  # field 30: go to jail (the double's extra roll stands, but he must throw a double)
    assert codes(out) == ["note:bonus_roll"] and "jail" in out[-1].message
    assert t.judge.status()["bonus_game"]["in_jail"] is True
    out = t.throw([1, 2])  # no double in jail: the game is over
    assert codes(out) == ["note:bonus_roll", "result_ready"]
    assert out[-1].result["bonus_dice"] == [[5, 5], [6, 6], [4, 4], [1, 2]]
    GAME.outcome(out[-1].result, t.extras)


@pytest.mark.parametrize("fault, code", [("missing", "dice_missing"), ("cocked", None)])
def test_an_uncertain_throw_holds_and_a_rethrow_goes_on(fault: str, code: str | None) -> None:
    t = Table(seed=11)
    t.new_round()
    t.frame()
    t.spin_to(index_of("2_rolls"))
    out = t.throw([2, 3], faults=(fault,), frames=25)
    holds = [d for d in out if isinstance(d, Hold)]
    assert codes(out) == [f"hold:{holds[0].code}"] if holds else False, codes(out)
    assert holds[0].code.startswith("dice_") and (code is None or holds[0].code == code)
    evidence = holds[0].message.rsplit("picture ", 1)[1].rstrip(")")
    assert t.judge.evidence(evidence) is not None
    for _ in range(6):  # the held throw is not read again
        assert codes(t.frame()) == []
    assert t.judge.status()["bonus_game"]["dice"] == []
    out = t.throw([2, 3])  # the presenter throws again: released, read
    assert codes(out)[0] == f"release:{holds[0].code}" and codes(out)[-1] == "note:bonus_roll"
    out = t.throw([1, 3])
    assert codes(out) == ["note:bonus_roll", "result_ready"]
    assert out[-1].result["bonus_dice"] == [[2, 3], [1, 3]]


def test_numbers_certify_at_once_and_a_missing_camera_holds_the_bonus() -> None:
    t = Table(seed=2)
    t.new_round()
    out = t.spin_to(index_of("5"))
    assert codes(out) == ["result_ready"] and "bonus_dice" not in out[-1].result
    t.feed(
        RoundSignal(
            signal="round_ended",
            round_number=1,
            at=t.at(),
            final_state="certified",
            result=out[-1].result,
            outcome=GAME.outcome(out[-1].result, t.extras),
        )
    )
    t.new_round()
    out = t.spin_to(index_of("2_rolls"))  # no dice camera has sent a picture
    assert codes(out) == ["note:bonus_game", "hold:bonus_camera_missing"]
    out = t.frame()
    assert codes(out) == ["release:bonus_camera_missing"]
    t.throw([1, 2])
    out = t.throw([4, 6])
    assert codes(out) == ["note:bonus_roll", "result_ready"] and out[-1].result["bonus_dice"] == [
        [1, 2],
        [4, 6],
    ]


def test_evaluate_shapes_and_refusals() -> None:
    extras = GAME.draw_extras(random.Random(9), bonus_dice="camera")
    assert (
        set(extras["bonus"]["2_rolls"]) == {"buildings", "cards"}
        and len(extras["bonus"]["4_rolls"]["cards"]) == 64
    )
    item = {"segment": "2_rolls", "bonus_dice": [[1, 2], [6, 4]], "multipliers": [2], "extras": extras}
    got = GAME.evaluate(item)
    assert got["result"] == {
        "segment": "2_rolls",
        "index": None,
        "multipliers": [2],
        "bonus_dice": [[1, 2], [6, 4]],
    }
    record = extras["bonus"]["2_rolls"]
    win = mono.play_bonus(2, record["buildings"], [[1, 2], [6, 4]], record["cards"], deck=True)["win"]
    assert got["outcome"]["winning_bets"] == [
        {"bet": "2_rolls", "type": "bonus", "payout": mono.payout(win * 2)}
    ]
    bad = [
        ({**item, "bonus_dice": [[1, 2]]}, "do not finish"),  # one roll short
        ({**item, "bonus_dice": [[1, 2], [6, 4], [3, 3]]}, "ended after 2"),  # one too many
        ({**item, "bonus_dice": [[1, 7], [2, 2]]}, "1..6"),
        ({**item, "segment": "5"}, "2_rolls or 4_rolls"),
        ({k: v for k, v in item.items() if k != "bonus_dice"}, "needs 'bonus_dice'"),
        ({**item, "extras": GAME.draw_extras(random.Random(9))}, "drawn by the secure generator"),
    ]
    for it, words in bad:
        with pytest.raises(ValueError, match=words):
            GAME.evaluate(it)


def test_generator_path_and_settings_unchanged() -> None:
    assert type(GAME.new_judge()) is MoneyWheelJudge
    assert type(GAME.new_judge(bonus_dice="generator")) is MoneyWheelJudge
    a, b = GAME.draw_extras(random.Random(4)), GAME.draw_extras(random.Random(4), bonus_dice="generator")
    assert a == b and set(a["bonus"]["4_rolls"]) == {"buildings", "dice", "cards"}
    assert GAME.outcome({"segment": "4_rolls"}, a)["winning_bets"][0]["bet"] == "4_rolls"
    with pytest.raises(ValueError, match="bonus_dice is"):
        GAME.new_judge(bonus_dice="dealer")
    with pytest.raises(ValueError, match="for bonus_dice = 'camera'"):
        GAME.new_judge(bonus_camera={"stable_frames": 3})
    with pytest.raises(ValueError, match="bonus_camera has no"):
        GAME.new_judge(bonus_dice="camera", bonus_camera={"dice": 3})
    # the table's devices against the setting
    GAME.check_devices({}, {"encoder": "wheel-encoder"})
    GAME.check_devices({"bonus_dice": "camera"}, {"encoder": "wheel-encoder", "dice": "dice-camera"})
    with pytest.raises(ValueError, match="needs a dice-camera"):
        GAME.check_devices({"bonus_dice": "camera"}, {"encoder": "wheel-encoder"})
    with pytest.raises(ValueError, match="bonus_dice is 'generator'"):
        GAME.check_devices({}, {"encoder": "wheel-encoder", "dice": "dice-camera"})
    with pytest.raises(ValueError, match="not in bonus_camera.roles"):
        GAME.check_devices({"bonus_dice": "camera"}, {"pointer": "wheel-pointer", "cam": "dice-camera"})
