"""The dice games: Sic Bo (and Super / Mega Sic Bo), Lightning Dice, Dice Duel, Craps, Bac Bo.

Rules, payouts, seed line numbers and every choice: docs/dice-games.md.
The dice are read by the vision half (recognition/dice/, ``DiceJudge``); these
modules only validate results and say which bets win. Pure: no I/O, no clock,
randomness only through the rng passed to ``draw_extras``.
"""

from __future__ import annotations

from .bac_bo import BacBo
from .craps import Craps, CrapsPointJudge, CrapsTableState
from .dice_duel import DiceDuel
from .lightning_dice import LightningDice
from .sic_bo import MegaSicBo, SicBo, SuperSicBo

__all__ = [
    "GAMES",
    "BacBo",
    "Craps",
    "CrapsPointJudge",
    "CrapsTableState",
    "DiceDuel",
    "LightningDice",
    "MegaSicBo",
    "SicBo",
    "SuperSicBo",
]

GAMES = {
    g.game_id: g for g in (SicBo(), SuperSicBo(), MegaSicBo(), LightningDice(), DiceDuel(), Craps(), BacBo())
}
