"""Live ball-draw games (seeds B and C): rules, validation, outcomes and bet settlement. Pure.

docs/draw-games.md has the rules, every choice, and the contract with the shared
DrawJudge (recognition/balls/judge.py).
"""

from __future__ import annotations

from .base import DEVICE_KINDS, DrawGame, Market
from .cash_or_crash import CashOrCrash
from .fruitrace import Fruitrace
from .lotto_express import LottoExpress535
from .lucky import Lucky5, Lucky6Of48, Lucky6Of60, Lucky7
from .mega_6 import Mega6
from .mega_ball import MegaBall
from .single_ball import Bingo37, Bingo38, KenoExpress, OneBet
from .super_six import SuperSix

GAMES: dict[str, DrawGame] = {
    g.game_id: g
    for g in (
        KenoExpress(),
        Lucky5(),
        Lucky7(),
        Lucky6Of60(),
        Lucky6Of48(),
        MegaBall(),
        Mega6(),
        SuperSix(),
        LottoExpress535(),
        Bingo37(),
        Bingo38(),
        OneBet(),
        CashOrCrash(),
        Fruitrace(),
    )
}

__all__ = [
    "DEVICE_KINDS",
    "GAMES",
    "Bingo37",
    "Bingo38",
    "CashOrCrash",
    "DrawGame",
    "Fruitrace",
    "KenoExpress",
    "LottoExpress535",
    "Lucky5",
    "Lucky6Of48",
    "Lucky6Of60",
    "Lucky7",
    "Market",
    "Mega6",
    "MegaBall",
    "OneBet",
    "SuperSix",
]
