"""Game id -> the game's rules. A new game is one module and one line here."""
from __future__ import annotations

from .game import GameRules
from .roulette import EuropeanRoulette

GAMES: dict[str, GameRules] = {
    "european_roulette": EuropeanRoulette(),
}


def game_rules(game_id: str) -> GameRules:
    try:
        return GAMES[game_id]
    except KeyError:
        raise ValueError(f"unknown game {game_id!r}; known: {', '.join(sorted(GAMES))}") from None
