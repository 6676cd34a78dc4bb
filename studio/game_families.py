"""The games' families, as the console tells them apart to build a result form (a pocket pad for a wheel
game, a die pad for a dice game, a ball pad for a draw).

These are the family classes the games declare in recognition/ (each brings its family's members: a
roulette game its ``wheel``, a dice game its ``side_colors``, a draw its ``ball_labels``, ``draw_count``,
``colors`` and ``max_count``), re-exported here because the console imports only studio.
"""

from __future__ import annotations

from recognition.dice_games._common import DiceGame
from recognition.draw_games.base import DrawGame
from recognition.game import GameRules
from recognition.roulette import RouletteRules

__all__ = ["DiceGame", "DrawGame", "GameRules", "RouletteRules"]
