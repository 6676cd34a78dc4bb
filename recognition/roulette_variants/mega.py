"""Mega Roulette (seed 000:L5, "Mega Roulette": named, no rules given): a physical single-zero wheel plus
computer-drawn Mega Numbers with multipliers. Pure.

The published rules of the game: European roulette on the studio's wheel; before each spin one to five Mega
Numbers are drawn, each with a multiplier from 50x to 500x; a straight-up bet on the winning number pays its
multiplier when the number is a Mega Number, else 30 to 1 (the base that funds the multipliers); every other
bet pays as in European roulette.

Which part is software: the wheel and ball are physical and read by the wheel's driver like any roulette; the
Mega Numbers and their multipliers are drawn by the studio's secure generator when the round opens, committed
on the feed before betting closes and revealed with the result, exactly as Lightning Roulette's lucky numbers
(recognition/roulette_variants/lightning.py, whose draw, extras and checks this reuses: ``lucky_numbers`` in
the extras are the Mega Numbers; a multiplier of Nx is a net payout of N-1 to 1).
"""

from __future__ import annotations

from typing import Any

from .lightning import LightningRoulette

__all__ = ["GAMES", "MEGA_PAYOUT_WEIGHTS", "MegaRoulette"]

#: a straight-up on a number that is not a Mega Number (net, to 1)
MEGA_BASE_STRAIGHT_UP = 30


#: a Mega Number's net payout -> weight, per mille. The provider does not publish its weights: these are chosen
#: so that a straight-up returns 97.4 % with one to five Mega Numbers equally likely and the 30 to 1 base (the
#: tests compute it exactly); an operator sets its own with the table setting ``lucky_payout_weights``
MEGA_PAYOUT_WEIGHTS: dict[int, int] = {
    49: 539,
    99: 270,
    149: 101,
    199: 45,
    249: 15,
    299: 10,
    349: 7,
    399: 5,
    449: 4,
    499: 4,
}


class MegaRoulette(LightningRoulette):
    game_id = "mega_roulette"

    def __init__(self, *, straight_up_payout: int = MEGA_BASE_STRAIGHT_UP) -> None:
        super().__init__(straight_up_payout=straight_up_payout)

    def draw_tables(self, **settings: Any) -> tuple[dict[int, int], dict[int, int]]:
        return super().draw_tables(**{"lucky_payout_weights": MEGA_PAYOUT_WEIGHTS, **settings})


GAMES = {g.game_id: g for g in (MegaRoulette(),)}
