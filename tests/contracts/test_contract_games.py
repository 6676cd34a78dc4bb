"""The game contract (recognition.game.GameRules), run over every registered game.

A new game module registers itself through its `GAMES` dict; these tests then hold it to the contract the studio
relies on: every member declared, the optional abilities either absent (their default) or working.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

from devices.events import DeviceConnected
from recognition.game import BaseGame, GameRules, OpeningCheck
from recognition.games import GAMES

ALL = sorted(GAMES)
#: the games with an optional ability, so that each ability's test runs over exactly the games that have it
DECIDING = [g for g in ALL if GAMES[g].has_decisions]
CHECKED = [g for g in ALL if GAMES[g].opening_check is not None]


@pytest.fixture(params=ALL)
def game(request: pytest.FixtureRequest) -> GameRules:
    return GAMES[request.param]


def test_every_game_is_registered_under_its_own_id() -> None:
    assert ALL, "no game registered"
    for game_id, rules in GAMES.items():
        assert rules.game_id == game_id


def test_the_declared_members_have_their_declared_types(game: GameRules) -> None:
    # every registered game takes the defaults of the optional abilities from BaseGame
    assert isinstance(game, BaseGame)
    assert game.device_kinds and all(isinstance(k, str) and k for k in game.device_kinds)
    assert isinstance(game.device_kinds, tuple)
    assert game.pacing in ("device", "dealer")
    assert isinstance(game.has_decisions, bool)
    assert isinstance(game.common_hand, bool)
    assert isinstance(game.seats, tuple) and all(isinstance(s, str) for s in game.seats)
    assert game.opening_check is None or callable(game.opening_check)
    assert isinstance(game.dealer_releasable_holds, tuple)
    assert all(isinstance(c, str) and c for c in game.dealer_releasable_holds)
    assert game.time_scale_setting is None or isinstance(game.time_scale_setting, str)
    assert isinstance(game.untimed_settings, Mapping)


def test_there_are_games_with_each_optional_ability() -> None:
    assert DECIDING and CHECKED


@pytest.mark.parametrize("game_id", DECIDING)
def test_a_decision_game_has_seats_or_one_common_hand(game_id: str) -> None:
    game = GAMES[game_id]
    assert bool(game.seats) != game.common_hand, "seats to sit at, or one common hand"


def test_a_game_judges_with_its_default_settings_and_its_declared_ones(game: GameRules) -> None:
    assert game.new_judge() is not None
    game.new_judge(**dict(game.untimed_settings))
    if game.time_scale_setting is not None:
        game.new_judge(**{game.time_scale_setting: 10})


def test_the_computer_draw_is_none_or_a_dict_and_reproducible(game: GameRules) -> None:
    first = game.draw_extras(random.Random(7))
    assert first is None or (isinstance(first, dict) and first)
    assert game.draw_extras(random.Random(7)) == first


def test_void_terms_are_none_or_a_dict(game: GameRules) -> None:
    for code in ("superseded", "studio_restart", "studio_stopped", "device_lost", "manual"):
        terms = game.void_terms(code)
        assert terms is None or isinstance(terms, dict)


def test_a_wrong_result_is_refused_with_a_value_error(game: GameRules) -> None:
    with pytest.raises(ValueError):
        game.validate_result({"not_a_result_of_any_game": True})
    with pytest.raises(ValueError):
        game.evaluate({"not_a_result_of_any_game": True})


def test_the_fast_evaluate_path_declines_or_answers_with_a_line(game: GameRules) -> None:
    out = game.evaluate_json('{"id": "x", "not_a_result_of_any_game": true}')
    assert out is None or isinstance(out, str)


def test_check_devices_accepts_the_games_own_device_kinds_or_says_why(game: GameRules) -> None:
    try:
        game.check_devices({}, {"device": game.device_kinds[0]})
    except ValueError as exc:
        assert str(exc)  # refused with a reason (a game needing a second device)


@pytest.mark.parametrize("game_id", CHECKED)
def test_an_opening_check_is_fed_events_and_reports(game_id: str) -> None:
    game = GAMES[game_id]
    assert game.opening_check is not None
    check: OpeningCheck = game.opening_check({"reader": None})
    assert isinstance(check.feed(DeviceConnected(device_id="t/reader", port="test")), bool)
    assert not check.complete  # no ball was read
    report = check.report()
    data: dict[str, Any] = report.as_dict()
    assert data["ok"] is False and report.ok is False and isinstance(report.message, str) and report.message
