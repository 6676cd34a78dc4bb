"""Game id -> the game's rules.

Every module of the `recognition` package (and its sub-packages) that defines a
module-level `GAMES` dict of game id -> rules object is registered here, so a
new game is one module and touches nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from .game import GameRules


@cache
def all_games() -> dict[str, GameRules]:
    import recognition

    found: dict[str, GameRules] = {}
    for info in pkgutil.walk_packages(recognition.__path__, "recognition."):
        if info.name == __name__:
            continue
        module = importlib.import_module(info.name)
        registered: dict[str, GameRules] = getattr(module, "GAMES", {})  # discovery, not an ability
        for game_id, rules in registered.items():
            if game_id in found and found[game_id] is not rules:
                raise RuntimeError(f"game id {game_id!r} is defined twice ({info.name})")
            if game_id != rules.game_id:
                raise RuntimeError(
                    f"{info.name}: GAMES key {game_id!r} differs from its game_id {rules.game_id!r}"
                )
            found[game_id] = rules
    return dict(sorted(found.items()))


GAMES: dict[str, GameRules] = all_games()


def game_rules(game_id: str) -> GameRules:
    try:
        return GAMES[game_id]
    except KeyError:
        raise ValueError(f"unknown game {game_id!r}; known: {', '.join(sorted(GAMES))}") from None
