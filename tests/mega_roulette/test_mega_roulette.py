"""Mega Roulette: European roulette on the wheel, Mega Numbers drawn by the studio: a straight-up on a Mega
Number pays its multiplier, else 30 to 1; the default weights return 97.4 % on a straight-up, exactly."""

from __future__ import annotations

import random
from fractions import Fraction

from recognition.games import GAMES
from recognition.roulette import EUROPEAN
from recognition.roulette_variants.mega import MEGA_PAYOUT_WEIGHTS

MEGA = GAMES["mega_roulette"]


def straight(outcome: dict) -> dict:
    (w,) = [w for w in outcome["winning_bets"] if w["type"] == "straight"]
    return w


def test_it_is_played_on_the_wheel_with_the_computer_draw() -> None:
    assert (
        MEGA.device_kinds == GAMES["european_roulette"].device_kinds if "european_roulette" in GAMES else True
    )
    assert MEGA.pacing == "device"


def test_a_mega_number_pays_its_multiplier_and_any_other_straight_up_30_to_1() -> None:
    rng = random.Random(5)
    for _ in range(300):
        extras = MEGA.draw_extras(rng)
        assert extras is not None
        mega = {e["number"]: e["payout"] for e in extras["lucky_numbers"]}
        assert 1 <= len(mega) <= 5 and all(p in MEGA_PAYOUT_WEIGHTS for p in mega.values())
        for number in EUROPEAN.pockets:
            w = straight(MEGA.outcome({"number": number}, extras))
            assert w["payout"] == mega.get(number, 30)


def test_the_default_weights_return_97_4_percent_on_a_straight_up() -> None:
    total = sum(MEGA_PAYOUT_WEIGHTS.values())
    mean_return = sum(Fraction((p + 1) * w, total) for p, w in MEGA_PAYOUT_WEIGHTS.items())
    pockets = len(EUROPEAN.pockets)
    lucky = Fraction(3, pockets)  # one to five Mega Numbers, equally likely: three on average
    rtp = Fraction(1, pockets) * (lucky * mean_return + (1 - lucky) * 31)
    assert Fraction(973, 1000) < rtp < Fraction(975, 1000)


def test_the_operator_may_set_its_own_weights() -> None:
    extras = MEGA.draw_extras(random.Random(1), lucky_payout_weights={"499": 1})
    assert extras is not None and {e["payout"] for e in extras["lucky_numbers"]} == {499}
