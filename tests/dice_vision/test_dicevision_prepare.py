"""The judge's heavy work off the event loop: prepare() on worker threads, feed() bookkeeping only, and the
same decisions as feeding raw frames."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from dicevision_helpers import Scene

import recognition.dice.judge as judge_module
from devices.events import DeviceDisconnected
from recognition.dice.judge import DiceJudge, PreparedFrame
from recognition.dice_games.dice_duel import DiceDuel
from recognition.dice_games.sic_bo import SicBo
from recognition.game import Hold, ResultReady, RoundSignal


def _script(scene: Scene, cameras: int = 1) -> list[Any]:
    """A round as the table sees it: open, close, a clean throw, a throw that loses a die, a re-throw."""
    items: list[Any] = [
        RoundSignal(signal="round_opened", round_number=1, at=scene.at()),
        RoundSignal(signal="betting_closed", round_number=1, at=scene.at(0.01)),
    ]
    for faults in ((), ("missing",), ()):
        scene.throw(faults=faults)
        for _ in range(16 if cameras == 1 else 11):
            for cam in range(cameras):
                items.append(scene.frame(cam, step=0.2 if cam == 0 else 0.0))
        if not faults:
            items.append(RoundSignal(signal="round_ended", round_number=1, at=scene.at()))
            items.append(RoundSignal(signal="round_opened", round_number=2, at=scene.at(0.01)))
            items.append(RoundSignal(signal="betting_closed", round_number=2, at=scene.at(0.02)))
    return items


def _words(decisions: list[Any]) -> list[tuple[Any, ...]]:
    out = []
    for d in decisions:
        if isinstance(d, ResultReady):
            out.append(("result", d.result, d.source))
        else:
            out.append((d.kind, getattr(d, "code", None), getattr(d, "message", None)))
    return out


@pytest.mark.parametrize(
    "game, colours, cameras", [(SicBo(), ("white", "white", "white"), 1), (DiceDuel(), ("red", "blue"), 2)]
)
def test_feeding_prepared_frames_decides_exactly_what_feeding_raw_frames_decides(
    game: Any, colours: tuple, cameras: int
) -> None:
    scene = Scene(colours, seed=21, cameras=cameras)
    settings: dict[str, Any] = {"hold_after_s": 1.0}
    if cameras == 2:
        settings["cameras"] = 2
        settings["calibrations"] = {"camera-1": scene.calibration(0), "camera-2": scene.calibration(1)}
    else:
        settings["calibration"] = scene.calibration()
    items = _script(scene, cameras)
    raw, prepared = game.new_judge(**settings), game.new_judge(**settings)
    raw_out = [d for item in items for d in raw.feed(item)]
    # the table prepares each device event on a worker thread, in order, then feeds the result on the loop
    with ThreadPoolExecutor(max_workers=2) as pool:
        ready = list(pool.map(lambda e: e if isinstance(e, RoundSignal) else prepared.prepare(e), items))
    assert sum(isinstance(p, PreparedFrame) for p in ready) > 20
    prep_out = [d for item in ready for d in prepared.feed(item)]
    assert _words(prep_out) == _words(raw_out)
    kinds = [d.kind for d in raw_out if d.kind != "note"]
    assert (
        "result_ready" in kinds and "hold" in kinds and "release" in kinds
    )  # the script exercised each path
    assert prepared.evidence_ids == raw.evidence_ids
    ev_raw, ev_prep = raw.evidence(raw.evidence_ids[0]), prepared.evidence(prepared.evidence_ids[0])
    assert ev_prep.code == ev_raw.code and ev_prep.png() == ev_raw.png()


def test_prepare_changes_nothing_and_feed_of_a_prepared_frame_reads_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scene = Scene(("white", "white", "white"), seed=3)
    judge = SicBo().new_judge(calibration=scene.calibration())
    assert isinstance(judge, DiceJudge)
    judge.feed(RoundSignal(signal="round_opened", round_number=1, at=scene.at()))
    judge.feed(RoundSignal(signal="betting_closed", round_number=1, at=scene.at(0.01)))
    truth = scene.throw()
    frames = [scene.frame() for _ in range(14)]
    before = repr(sorted(judge.__dict__.items(), key=lambda kv: kv[0]))
    prepared = [judge.prepare(f) for f in frames]
    assert repr(sorted(judge.__dict__.items(), key=lambda kv: kv[0])) == before  # prepare mutates nothing
    # a moving frame is not read; other events pass through as they are
    assert not isinstance(prepared[0], PreparedFrame) and prepared[0] is frames[0]
    lost = DeviceDisconnected(device_id="t1/camera-1", at=scene.at(), reason="x")
    assert judge.prepare(lost) is lost
    still = [p for p in prepared if isinstance(p, PreparedFrame)]
    assert still and all(p.reading is not None for p in still)

    def no_reading(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("feed read a picture that prepare had read")

    monkeypatch.setattr(judge_module, "read_dice", no_reading)
    out = [d for p in prepared for d in judge.feed(p)]
    ready = [d for d in out if isinstance(d, ResultReady)]
    assert ready and ready[0].result == {"dice": truth.faces}
    assert not [d for d in out if isinstance(d, Hold)]
