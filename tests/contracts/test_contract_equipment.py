"""The bias watch's part of the game contract (GameRules.equipment_reading / equipment_odds), over every
registered game: what a game watches is a probability distribution, and what its results add lies in it."""

from __future__ import annotations

import math

import pytest

from recognition.cards.base import CardGame
from recognition.dice_games._common import DiceGame
from recognition.draw_games.base import DrawGame
from recognition.equipment import sectors
from recognition.game import GameRules
from recognition.games import GAMES
from recognition.money_wheel.base import MoneyWheelGame
from recognition.roulette import RouletteRules

ALL = sorted(GAMES)
QUANTITIES = ("pocket", "sector", "segment", "label", "face", "face red", "ball", "rank", "suit", "colour")


@pytest.fixture(params=ALL)
def game(request: pytest.FixtureRequest) -> GameRules:
    return GAMES[request.param]


def test_every_watched_quantity_is_a_distribution(game: GameRules) -> None:
    for q in QUANTITIES:
        odds = game.equipment_odds(q, {})
        if odds is None:
            continue
        assert odds and all(p > 0 for p in odds.values()), (game.game_id, q)
        assert math.isclose(sum(odds.values()), 1.0, rel_tol=1e-9), (game.game_id, q)


def test_an_empty_result_adds_nothing_and_raises_nothing(game: GameRules) -> None:
    assert game.equipment_reading({}, {}) == []


def test_each_family_watches_its_equipment(game: GameRules) -> None:
    watched = {q for q in QUANTITIES if game.equipment_odds(q, {}) is not None}
    if isinstance(game, RouletteRules):
        assert watched == {"pocket", "sector"}
    elif isinstance(game, MoneyWheelGame):
        assert watched == {"segment", "label"}
    elif isinstance(game, DiceGame):
        assert watched == {"face", "face red"}
    elif isinstance(game, DrawGame):
        assert watched == {"ball"}
    elif isinstance(game, CardGame) and game.game_id != "rock_paper_scissors":
        assert watched == {"rank", "suit"}


@pytest.mark.parametrize("game_id", [g for g in ALL if isinstance(GAMES[g], RouletteRules)])
def test_every_pocket_lands_in_its_pocket_and_one_sector(game_id: str) -> None:
    game = GAMES[game_id]
    pockets, secs = game.equipment_odds("pocket", {}), game.equipment_odds("sector", {})
    assert pockets is not None and secs is not None
    for p in pockets:
        result = {"numbers": [p, p]} if game.balls == 2 else {"number": p}
        reading = game.equipment_reading(result, {})
        assert ("pocket", p) in reading
        (sector,) = {c for q, c in reading if q == "sector"}  # both balls of a double ball: one sector
        assert sector in secs and sector.split().count(p) == 1


def test_sectors_cut_the_wheel_into_arcs_that_cover_it_once() -> None:
    order = [str(i) for i in range(37)]
    arcs = sectors(order)
    assert [len(a) for a in arcs] == [5, 5, 5, 5, 5, 4, 4, 4]
    assert [p for a in arcs for p in a] == order


@pytest.mark.parametrize("game_id", [g for g in ALL if isinstance(GAMES[g], DrawGame)])
def test_a_draws_balls_are_each_a_ball_of_the_set(game_id: str) -> None:
    game = GAMES[game_id]
    odds = game.equipment_odds("ball", {})
    assert odds is not None and set(odds) == set(game.ball_labels)
    labels = list(game.ball_labels)[: max(1, game.draw_count)]
    assert game.equipment_reading({"balls": labels}, {}) == [("ball", b) for b in labels]


def test_dice_faces_are_read_per_colour_when_the_camera_tells_colours() -> None:
    game = GAMES["sic_bo"]
    source = {"read": [{"color": "red", "face": 2}, {"color": "white", "face": 6}]}
    assert game.equipment_reading({"dice": [2, 6]}, source) == [
        ("face", "2"),
        ("face red", "2"),
        ("face", "6"),
        ("face white", "6"),
    ]
    assert game.equipment_reading({"dice": [1, 1, 3]}, {}) == [("face", "1"), ("face", "1"), ("face", "3")]


def test_cards_are_read_from_the_shoes_order_and_weighed_by_the_shoe() -> None:
    game = GAMES["baccarat"]
    reading = game.equipment_reading({}, {"cards": ["7H", "TD"]})
    assert reading == [("rank", "7"), ("suit", "H"), ("rank", "T"), ("suit", "D")]
    ranks = game.equipment_odds("rank", {})
    assert ranks is not None and len(ranks) == 13 and math.isclose(ranks["K"], 1 / 13)


@pytest.mark.parametrize("game_id", [g for g in ALL if isinstance(GAMES[g], MoneyWheelGame)])
def test_a_money_wheels_labels_are_weighed_by_their_segments(game_id: str) -> None:
    game = GAMES[game_id]
    layout = game.layout_from({})
    labels = game.equipment_odds("label", {})
    assert labels is not None
    for label, n in layout.counts().items():
        assert math.isclose(labels[label], n / layout.size)
    assert game.equipment_reading({"segment": layout[3].label, "index": 3}, {}) == [
        ("label", layout[3].label),
        ("segment", "3"),
    ]
