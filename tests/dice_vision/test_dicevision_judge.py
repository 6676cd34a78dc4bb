"""The dice judge on sequences of rendered camera frames: throw, rest, certify; faults and losses hold."""

from __future__ import annotations

from datetime import timedelta

import pytest
from dicevision_helpers import T0, Scene

from devices.events import DeviceConnected, DeviceDisconnected
from recognition.dice.judge import DiceJudge
from recognition.dice_games.bac_bo import BacBo
from recognition.dice_games.dice_duel import DiceDuel
from recognition.dice_games.sic_bo import SicBo
from recognition.game import Hold, Release, ResultReady, RoundSignal


def open_and_close(judge: DiceJudge, scene: Scene, number: int = 1) -> list:
    out = judge.feed(RoundSignal(signal="round_opened", round_number=number, at=scene.at()))
    out += judge.feed(RoundSignal(signal="betting_closed", round_number=number, at=scene.at(0.01)))
    return out


def play(judge: DiceJudge, scene: Scene, frames: int = 20, cameras: int = 1) -> list:
    """Feed `frames` sampled frames of every camera (the dice roll for 1 s, then lie still)."""
    out = []
    for _ in range(frames):
        for cam in range(cameras):
            out += judge.feed(scene.frame(cam, step=0.2 if cam == 0 else 0.0))
        if any(isinstance(d, (ResultReady, Hold)) for d in out):
            break
    return out


def kinds(decisions: list) -> list[str]:
    return [d.kind for d in decisions if d.kind != "note"]


def test_sic_bo_throw_is_certified_with_the_faces_and_its_source() -> None:
    scene = Scene(("white", "white", "white"), seed=1)
    judge = SicBo().new_judge(calibration=scene.calibration())
    assert isinstance(judge, DiceJudge)
    out = open_and_close(judge, scene)
    truth = scene.throw()
    out += play(judge, scene)
    assert kinds(out) == ["result_ready"]
    ready = next(d for d in out if isinstance(d, ResultReady))
    assert ready.result == {"dice": truth.faces}
    src = ready.source
    assert src["kind"] == "dice-camera" and src["device_id"] == "t1/camera-1"
    cam = src["cameras"][0]
    assert len(cam["frames"]) == judge.stable_frames and cam["calibration"].startswith("v1/")
    assert isinstance(cam["confidence_permille"], int) and 900 <= cam["confidence_permille"] <= 1000
    notes = [d for d in out if d.kind == "note"]
    assert notes and "calibration" in notes[0].message  # which calibration reads is journaled
    # nothing more for this round, whatever the camera sees next
    assert kinds(play(judge, scene, frames=4)) == []
    scene.throw()
    assert kinds(play(judge, scene, frames=12)) == []


def test_dice_duel_result_is_by_colour() -> None:
    scene = Scene(("red", "blue"), seed=2)
    judge = DiceDuel().new_judge(calibration=scene.calibration())
    open_and_close(judge, scene)
    truth = scene.throw()
    ready = [d for d in play(judge, scene) if isinstance(d, ResultReady)]
    assert ready and ready[0].result == {d.color: d.face for d in truth.dice}


def test_bac_bo_four_dice_by_side() -> None:
    scene = Scene(("blue", "blue", "red", "red"), seed=3)
    judge = BacBo().new_judge(calibration=scene.calibration())
    open_and_close(judge, scene)
    truth = scene.throw()
    ready = [d for d in play(judge, scene, frames=25) if isinstance(d, ResultReady)]
    assert ready, "not certified"
    want = {
        "player": sorted(d.face for d in truth.dice if d.color == "blue"),
        "banker": sorted(d.face for d in truth.dice if d.color == "red"),
    }
    assert ready[0].result == want


def test_frames_before_betting_closed_and_dice_never_thrown_are_not_certified() -> None:
    scene = Scene(("white", "white"), seed=4)
    judge = DiceJudge(dice=2, calibration=scene.calibration())
    judge.feed(RoundSignal(signal="round_opened", round_number=1, at=scene.at()))
    scene.throw()
    assert kinds(play(judge, scene)) == []  # thrown while betting is open: not read
    judge.feed(RoundSignal(signal="betting_closed", round_number=1, at=scene.at(0.01)))
    # the dice lie still since before betting closed: no throw seen, no result, no hold
    assert kinds(play(judge, scene, frames=30)) == []
    # without the throw rule (e.g. a shaker the camera cannot see move) the still dice are read
    lax = DiceJudge(dice=2, calibration=scene.calibration(), require_throw=False)
    lax.feed(RoundSignal(signal="betting_closed", round_number=1, at=scene.at(0.01)))
    assert kinds(play(lax, scene, frames=6)) == ["result_ready"]


@pytest.mark.parametrize(
    "reader, fault, code",
    [
        ("rules", "missing", "dice_missing"),
        ("rules", "outside", "dice_outside"),
        ("rules", "cocked", None),
        ("rules", "stacked", None),
        # auto: the rule reader's reading when it certifies, else the learned reader's (which says why)
        ("auto", "missing", "dice_missing"),
        ("auto", "outside", None),
        ("auto", "cocked", None),
        ("auto", "stacked", None),
    ],
)
def test_a_fault_holds_with_evidence_and_a_rethrow_releases_and_certifies(
    reader: str, fault: str, code: str | None
) -> None:
    scene = Scene(("white", "white", "white"), seed=10 + len(fault))
    calibration = {**scene.calibration(), "reader": reader}
    judge = SicBo().new_judge(calibration=calibration, hold_after_s=1.0)
    open_and_close(judge, scene)
    scene.throw(faults=(fault,))
    out = play(judge, scene, frames=25)
    holds = [d for d in out if isinstance(d, Hold)]
    assert kinds(out) == ["hold"], kinds(out)
    if code:
        assert holds[0].code == code
    assert holds[0].code.startswith("dice_")
    evidence_id = holds[0].message.rsplit("picture ", 1)[1].rstrip(")")
    ev = judge.evidence(evidence_id)
    assert ev is not None and ev.code == holds[0].code and ev.png().startswith(b"\x89PNG")
    assert ev.image.shape == (360, 640, 3)
    # the held throw is not read again
    assert kinds(play(judge, scene, frames=5)) == []
    # the dealer re-throws: the hold is released, then the new throw is certified
    truth = scene.throw()
    out = play(judge, scene, frames=25)
    assert [d.code for d in out if isinstance(d, Release)] == [holds[0].code]
    ready = [d for d in out if isinstance(d, ResultReady)]
    assert ready and ready[0].result == {"dice": truth.faces}


def test_a_camera_lost_during_the_round_holds_until_it_is_back_and_sees_a_throw() -> None:
    scene = Scene(("white", "white", "white"), seed=5)
    judge = SicBo().new_judge(calibration=scene.calibration())
    open_and_close(judge, scene)
    scene.throw()
    judge.feed(scene.frame())  # rolling
    out = judge.feed(DeviceDisconnected(device_id="t1/camera-1", at=scene.at(), reason="stream stopped"))
    assert [(d.kind, d.code) for d in out] == [("hold", "dice_camera_lost")]
    assert "stream stopped" in out[0].message
    assert judge.feed(DeviceConnected(device_id="t1/camera-1", at=scene.at(), port="x")) == []
    # back, the dice at rest: nobody knows what happened meanwhile, so still no result
    for _ in range(8):
        scene.clock += 0.3
    assert kinds(play(judge, scene, frames=8)) == []
    # a re-throw releases and is certified
    truth = scene.throw()
    out = play(judge, scene, frames=25)
    assert kinds(out) == ["release", "result_ready"]
    assert next(d for d in out if isinstance(d, ResultReady)).result == {"dice": truth.faces}


def test_two_cameras_must_both_read_and_agree() -> None:
    scene = Scene(("white", "white", "white"), seed=6, cameras=2)
    judge = SicBo().new_judge(
        cameras=2, calibrations={"camera-1": scene.calibration(0), "camera-2": scene.calibration(1)}
    )
    open_and_close(judge, scene)
    truth = scene.throw()
    out = play(judge, scene, frames=25, cameras=2)
    ready = [d for d in out if isinstance(d, ResultReady)]
    assert ready and ready[0].result == {"dice": truth.faces}
    assert sorted(c["device_id"] for c in ready[0].source["cameras"]) == ["t1/camera-1", "t1/camera-2"]


def test_two_cameras_that_disagree_hold_the_round() -> None:
    left = Scene(("white", "white", "white"), seed=7, cameras=1)
    right = Scene(("white", "white", "white"), seed=8, cameras=1)
    judge = SicBo().new_judge(cameras=2, calibration=left.calibration())
    open_and_close(judge, left)
    a, b = left.throw(faces=[1, 2, 3]), right.throw(faces=[4, 5, 6])
    out = []
    for _ in range(25):
        out += judge.feed(left.frame())
        f = right.frame(device_id="t1/camera-2")
        out += judge.feed(f.model_copy(update={"at": left.at()}))
        if any(isinstance(d, (Hold, ResultReady)) for d in out):
            break
    holds = [d for d in out if isinstance(d, Hold)]
    assert kinds(out) == ["hold"] and holds[0].code == "dice_cameras_disagree"
    assert "1, " not in holds[0].message or "white 4" in holds[0].message
    assert a.faces != b.faces


def test_one_of_two_cameras_silent_holds() -> None:
    scene = Scene(("white", "white"), seed=9)
    judge = DiceJudge(dice=2, cameras=2, calibration=scene.calibration(), hold_after_s=1.0)
    open_and_close(judge, scene)
    scene.throw()
    out = play(judge, scene, frames=25)
    assert kinds(out) == ["hold"] and "only 1 of the 2 cameras" in out[-1].message


def test_settings_are_checked_and_foreign_ones_noted() -> None:
    with pytest.raises(ValueError):
        DiceJudge(dice=2, colors=["red"])
    with pytest.raises(ValueError):
        DiceJudge(dice=3, cameras=3)
    with pytest.raises(ValueError):
        DiceJudge(dice=3, calibration={"tray": [[0, 0]]})
    judge = DiceJudge(dice=3, lightning_count=5)
    assert judge.ignored_settings == ["lightning_count"]
    scene = Scene(("white", "white", "white"))
    note = judge.feed(scene.frame())[0]
    assert note.kind == "note" and "lightning_count" in note.message and "no calibration" in note.message


def test_round_signals_reset_between_rounds() -> None:
    scene = Scene(("white", "white", "white"), seed=12)
    judge = SicBo().new_judge(calibration=scene.calibration())
    open_and_close(judge, scene, 1)
    first = scene.throw()
    assert [d.result for d in play(judge, scene) if isinstance(d, ResultReady)] == [{"dice": first.faces}]
    judge.feed(RoundSignal(signal="round_ended", round_number=1, at=scene.at(), final_state="certified"))
    open_and_close(judge, scene, 2)
    second = scene.throw()
    assert [d.result for d in play(judge, scene) if isinstance(d, ResultReady)] == [{"dice": second.faces}]
    assert T0 < scene.at()
    assert scene.at() - T0 > timedelta(seconds=1)


def test_craps_and_lightning_dice_through_their_games() -> None:
    from recognition.dice_games.craps import Craps
    from recognition.dice_games.lightning_dice import LightningDice

    for game, colours, key in (
        (Craps(), ("red", "red"), {"point": None}),
        (LightningDice(), ("white",) * 3, {}),
    ):
        scene = Scene(colours, seed=21)
        judge = game.new_judge(calibration=scene.calibration())
        open_and_close(judge, scene)
        truth = scene.throw()
        ready = [d for d in play(judge, scene) if isinstance(d, ResultReady)]
        assert ready and ready[0].result == {"dice": truth.faces, **key}
        assert game.validate_result(ready[0].result)["dice"] == truth.faces
