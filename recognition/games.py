"""Game id -> the game's rules.

Every module of the `recognition` package (and its sub-packages) that defines a
module-level `GAMES` dict of game id -> rules object is registered here, so a
new game is one module and touches nothing else.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from discovery import discover

from .game import GameRules


def _check(game_id: str, rules: Any, module: str) -> None:
    if game_id != rules.game_id:
        raise RuntimeError(f"{module}: GAMES key {game_id!r} differs from its game_id {rules.game_id!r}")


@cache
def all_games() -> dict[str, GameRules]:
    import recognition

    return discover(recognition, "GAMES", what="game id", skip=(__name__,), check=_check)


GAMES: dict[str, GameRules] = all_games()


def game_rules(game_id: str) -> GameRules:
    try:
        return GAMES[game_id]
    except KeyError:
        raise ValueError(f"unknown game {game_id!r}; known: {', '.join(sorted(GAMES))}") from None
