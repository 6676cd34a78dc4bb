"""Fan Tan's rules over their whole space: every count's last line, every bet spot against the seed's words
(000:L3993-4003), the odds with and without the commission, and refusals of wrong results."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from recognition.fan_tan import FanTan, last_line
from recognition.games import GAMES
from recognition.payouts import as_fraction

FAN_TAN = GAMES["fan_tan"]


def spots(outcome: dict) -> tuple[dict[str, Fraction], set[str]]:
    return {w["bet"]: as_fraction(w["payout"]) for w in outcome["winning_bets"]}, {
        p["bet"] for p in outcome["pushed_bets"]
    }


def test_the_last_line_of_every_count_from_1_to_400() -> None:
    for beads in range(1, 401):
        rest = beads % 4
        expected = rest if rest else 4  # laid out four by four, the last line holds what is left (L3987)
        assert last_line(beads) == expected
        assert FAN_TAN.validate_result({"beads": beads}) == {"result": expected, "beads": beads}


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_every_bet_spot_for_every_result(k: int) -> None:
    wins, pushed = spots(FAN_TAN.outcome({"result": k}))
    c = Fraction(19, 20)  # the default commission leaves 95% of the winnings
    expected = {
        f"fan_{k}": 3 * c,
        ("small" if k in (1, 2) else "big"): c,
        ("odd" if k in (1, 3) else "even"): c,
    }
    expected |= {f"nim_{k}_{b}": 2 * c for b in (1, 2, 3, 4) if b != k}
    expected |= {f"kwok_{a}_{b}": c for a, b in itertools.combinations((1, 2, 3, 4), 2) if k in (a, b)}
    expected |= {
        "ssh_" + "_".join(map(str, t)): Fraction(1, 3) * c
        for t in itertools.combinations((1, 2, 3, 4), 3)
        if k in t
    }
    assert wins == expected
    # Nim: the second number returns the stake ("odds of 1", L3999)
    assert pushed == {f"nim_{a}_{k}" for a in (1, 2, 3, 4) if a != k}
    assert all(p["returned"] == 1 for p in FAN_TAN.outcome({"result": k})["pushed_bets"])


def test_the_seed_examples() -> None:
    assert "nim_1_2" in spots(FAN_TAN.outcome({"result": 1}))[0]  # "1Nim2": 1 bead remains, the player wins
    assert "nim_1_2" in spots(FAN_TAN.outcome({"result": 2}))[1]  # 2: odds of 1
    for k in (2, 3):  # "Kwok2-3" wins with 2 and with 3
        assert "kwok_2_3" in spots(FAN_TAN.outcome({"result": k}))[0]
    assert "ssh_1_2_3" not in spots(FAN_TAN.outcome({"result": 4}))[0]  # "Ssh 3-2-1" loses with 4


def test_no_commission_pays_the_traditional_odds() -> None:
    wins, _ = spots(FanTan(commission="0").outcome({"result": 3}))
    assert (
        wins["fan_3"] == 3
        and wins["nim_3_1"] == 2
        and wins["big"] == 1
        and wins["ssh_1_2_3"] == Fraction(1, 3)
    )


@pytest.mark.parametrize("bad", [0.05, "x", "1", "-1/20", True])
def test_a_wrong_commission_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="commission"):
        FanTan(commission=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad",
    [
        {},
        {"result": 0},
        {"result": 5},
        {"result": "2"},
        {"beads": 0},
        {"beads": 7, "result": 2},
        {"beads": 2.0},
    ],
)
def test_a_wrong_result_is_refused_with_a_reason(bad: dict) -> None:
    with pytest.raises(ValueError):
        FAN_TAN.validate_result(bad)


def test_evaluate_takes_the_count_or_the_last_line() -> None:
    assert FAN_TAN.evaluate({"beads": 37})["result"] == {"result": 1, "beads": 37}
    assert FAN_TAN.evaluate({"result": 4})["outcome"]["result"] == 4


def test_the_manual_result_dialog_shows_an_example_the_game_takes() -> None:
    from dealer_ui.result_forms import result_form

    form = result_form(FAN_TAN)
    assert form["type"] == "json" and FAN_TAN.validate_result(form["example"]) == form["example"]
