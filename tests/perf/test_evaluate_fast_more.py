"""The fast paths of `studio evaluate` for the blackjacks, the game shows and poker with joker write, for every
line they answer, the general path's very line, and they answer every round as the studio records it.

Rounds from bench/'s generators (dealt as a table deals them, the players' decisions and the committed draws
included), then each changed once at random (a value replaced, a list item dropped, doubled or moved, a key
added or dropped, another spacing): a fast path answers a changed line only with the general path's answer
(valid or not is the general path's to say)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from app.evaluate import evaluate_line
from bench.plain_blackjack import GAMES as PLAIN_BLACKJACK
from bench.plain_shows import GAMES as PLAIN_SHOWS
from recognition.games import GAMES

FAST = {**PLAIN_BLACKJACK, **PLAIN_SHOWS}


def general(game_id: str, line: str) -> str:
    return json.dumps(evaluate_line(GAMES[game_id], line, 1), separators=(",", ":")) + "\n"


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every place in a JSON value (the value itself first)."""
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*path, i))
    return out


def _get(value: Any, path: tuple) -> Any:
    for p in path:
        value = value[p]
    return value


_REPLACEMENTS: list[Any] = [0, 1, 2, -1, 8, 22, 107, 108, 1000, True, False, None, 1.0, [], {}, [1, 2]]
_REPLACEMENTS += ["", "x", "AS", "9S", "JK", "sit", "hit", "seat_1", "common", "red", "7", "01"]


def changed(rng: random.Random, line: str) -> str:
    """The line with one change at a random place of its JSON, written with a random spacing."""
    item = json.loads(line)
    places = [p for p in _paths(item) if p]
    path = rng.choice(places)
    parent, key = _get(item, path[:-1]), path[-1]
    how = rng.randrange(6)
    if how == 0:
        parent[key] = rng.choice(_REPLACEMENTS)
    elif how == 1 and isinstance(parent, list):
        del parent[key]
    elif how == 2 and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(parent[key]))
    elif how == 3 and isinstance(parent, list) and len(parent) > 1:
        parent[key], parent[-1] = parent[-1], parent[key]
    elif how == 4 and isinstance(parent, dict):
        del parent[key]
    elif isinstance(parent, dict):
        parent[rng.choice(["extra", "by", "window", "cards", "hand"])] = rng.choice(_REPLACEMENTS)
    else:
        parent[key] = rng.choice(_REPLACEMENTS)
    separators = rng.choice([(", ", ": "), (",", ":"), (", ", ":"), (" ,", ": "), (",  ", ": ")])
    return json.dumps(item, separators=separators) + rng.choice(["\n", ""])


@pytest.mark.parametrize("game_id", sorted(FAST))
def test_the_fast_path_answers_each_round_as_the_general_path(game_id: str) -> None:
    game = GAMES[game_id]
    assert game.fast_evaluate
    generate, _ = FAST[game_id]
    lines = generate(random.Random(31), 1500)
    answers = [game.evaluate_json(line) for line in lines]
    assert None not in answers  # the fast path takes every round as the studio records it
    assert answers == [general(game_id, line) for line in lines]


@pytest.mark.parametrize("game_id", sorted(FAST))
def test_a_changed_line_is_answered_as_the_general_path_answers_it(game_id: str) -> None:
    game = GAMES[game_id]
    generate, _ = FAST[game_id]
    rng = random.Random(game_id)
    lines = [changed(rng, line) for line in generate(random.Random(32), 1500)]
    answered = refused = 0
    for line in lines:
        fast = game.evaluate_json(line)
        if fast is not None:
            answered += 1
            assert fast == general(game_id, line), line
            refused += '"valid":false' in fast
    assert answered  # some changes leave a round the fast path still takes (another spacing, another id)


def test_monopolys_board_walk_in_tenths_is_play_bonus() -> None:
    """The fast path's walk (integer tenths of a stake) gives play_bonus's steps and win, or None where
    play_bonus refuses the draws; over bonus games drawn as the studio draws them, and changed."""
    from fractions import Fraction

    from recognition.money_wheel import monopoly_live as ml
    from recognition.money_wheel.fast_bonus import play_board

    game = GAMES["monopoly_live"]
    rng = random.Random(33)
    walked = refused = 0
    for n in range(3000):
        rolls = rng.choice((2, 4))
        record = game.draw_bonus(rng, rolls)  # type: ignore[attr-defined]
        buildings, dice, cards = record["buildings"], record["dice"], record["cards"]
        if n % 3 == 1:  # a level, a die or a card changed, a roll or a card dropped or added
            what = rng.randrange(5)
            if what == 0:
                buildings[rng.randrange(len(buildings))] = rng.choice((5, 6, 0))
            elif what == 1:
                dice[rng.randrange(len(dice))] = [rng.randint(0, 7), rng.randint(1, 6)]
            elif what == 2 and cards:
                cards[rng.randrange(len(cards))] = rng.choice((0, 50, 7))
            elif what == 3:
                dice.append([rng.randint(1, 6), rng.randint(1, 6)])
            else:
                (cards if cards and rng.random() < 0.5 else dice).pop()
        try:
            expected = ml.play_bonus(rolls, buildings, dice, cards)
        except ValueError:
            expected = None
        got = play_board(rolls, buildings, dice, cards)
        if expected is None:
            assert got is None
            refused += 1
        else:
            assert got is not None
            steps, tenths = got
            assert steps == expected["steps"] and Fraction(tenths, 10) == expected["win"]
            walked += 1
    assert walked > 2000 and refused > 100
