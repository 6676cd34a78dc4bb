"""The judge contract (recognition.game.Judge), run over every judge the registered games make.

Each game's judge is made with the default settings and with the settings that pick another judge class (a
camera's bonus dice, a wheel without the table judge); a last test checks that these cover every judge class of
`recognition`, so a new judge is held to the contract as soon as a game makes it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, get_args

import pytest

import recognition
from devices.events import DeviceConnected, DeviceDisconnected
from recognition.game import BaseJudge, Decision, Judge, RoundSignal
from recognition.games import GAMES
from recognition.wheel_judge import WheelJudge

AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
DECISIONS = get_args(Decision)

#: settings under which a game makes a judge of another class than its default one
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("monopoly_live", {"bonus_dice": "camera"}),
]


def _judges() -> list[tuple[str, Any]]:
    made: list[tuple[str, Any]] = [
        (game_id, lambda g=game_id: GAMES[g].new_judge()) for game_id in sorted(GAMES)
    ]
    made += [(f"{g}{sorted(s)}", lambda g=g, s=s: GAMES[g].new_judge(**s)) for g, s in VARIANTS]
    # the SS2 wheel's own judge, which the roulette games wrap (a game without the table judge uses it alone)
    made.append(("wheel", WheelJudge))
    return made


JUDGES = _judges()


@pytest.fixture(params=[make for _, make in JUDGES], ids=[name for name, _ in JUDGES])
def judge(request: pytest.FixtureRequest) -> Judge:
    made: Judge = request.param()
    return made


def _all_decisions(out: Any) -> None:
    assert isinstance(out, list)
    for d in out:
        assert isinstance(d, DECISIONS), d


def test_the_optional_abilities_are_declared(judge: Judge) -> None:
    assert judge.prepare is None or callable(judge.prepare)
    assert judge.status is None or callable(judge.status)
    if judge.status is not None:
        status = judge.status()
        assert status is None or isinstance(status, dict)


def test_round_signals_give_decisions(judge: Judge) -> None:
    for signal in ("round_opened", "betting_closed"):
        _all_decisions(judge.feed(RoundSignal(signal=signal, round_number=1, at=AT)))
    _all_decisions(judge.feed(RoundSignal(signal="round_ended", round_number=1, at=AT, final_state="voided")))


def test_a_device_that_comes_and_goes_gives_decisions(judge: Judge) -> None:
    for event in (
        DeviceConnected(device_id="t/device", port="test", at=AT),
        DeviceDisconnected(device_id="t/device", reason="unplugged", at=AT),
        DeviceConnected(device_id="t/device", port="test", at=AT),
    ):
        _all_decisions(judge.feed(event))
        if judge.prepare is not None:  # the prepared event is what the table feeds
            _all_decisions(judge.feed(judge.prepare(event)))


def _subclasses(cls: type) -> set[type]:
    out: set[type] = set()
    subs: list[type] = cls.__subclasses__()
    for sub in subs:
        out |= {sub} | _subclasses(sub)
    return out


def test_the_judges_above_cover_every_judge_class_of_recognition() -> None:
    import importlib
    import pkgutil

    for info in pkgutil.walk_packages(recognition.__path__, "recognition."):
        importlib.import_module(info.name)
    made = {type(make()) for _, make in JUDGES}
    declared = {c for c in _subclasses(BaseJudge) if c.__module__.startswith("recognition.")}
    assert declared - made == set(), "add the settings that make these judges to VARIANTS"
