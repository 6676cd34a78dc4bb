"""The bias watch's statistics: the chi-square distribution against closed forms, the simulated exact test,
the looks' false alarms against the level, and biased equipment caught by the count the power analysis
predicts. Every random stream is seeded: the figures are the same on every run."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from studio.bias import Looks, chi2_isf, chi2_sf, goodness_of_fit, rounds_to_detect
from studio.bias_watch import BiasModel

POCKETS = {str(i): 1 / 37 for i in range(37)}
FACES = {str(i): 1 / 6 for i in range(1, 7)}


def even_df_sf(x: float, df: int) -> float:
    """The chi-square survival function in closed form for an even df (a Poisson sum)."""
    m = df // 2
    return math.exp(-x / 2) * sum((x / 2) ** i / math.factorial(i) for i in range(m))


@pytest.mark.parametrize("df", [2, 4, 6, 10, 36, 48, 100])
@pytest.mark.parametrize("x", [0.1, 1.0, 5.0, 20.0, 60.0, 150.0])
def test_chi_square_tail_matches_the_closed_form(df: int, x: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(even_df_sf(x, df), rel=1e-9, abs=1e-300)


def test_published_critical_values() -> None:
    # the tables' critical values: 3.841 (df 1, 5 %), 6.635 (df 1, 1 %), 67.985 (df 36, 0.1 %)
    assert chi2_sf(3.841459, 1) == pytest.approx(0.05, rel=1e-5)
    assert chi2_sf(6.634897, 1) == pytest.approx(0.01, rel=1e-5)
    assert chi2_isf(0.001, 36) == pytest.approx(67.985, abs=1e-3)


def test_the_exact_test_is_used_for_small_counts_and_agrees_with_enumeration() -> None:
    # 6 throws of a die: the exact multinomial p-value of the chi-square statistic, by enumerating all 6^6
    observed = {"6": 4, "1": 1, "2": 1}
    fit = goodness_of_fit(observed, FACES, name="die")
    assert fit.method.startswith("exact")
    counts = np.array([1, 1, 0, 0, 0, 4])
    stat = ((counts - 1) ** 2).sum()
    rolls = np.array(np.meshgrid(*[range(6)] * 6)).reshape(6, -1).T
    tallies = np.stack([(rolls == f).sum(axis=1) for f in range(6)], axis=1)
    exact = (((tallies - 1) ** 2).sum(axis=1) >= stat).mean()
    assert fit.p_value == pytest.approx(exact, abs=0.006)  # 20,000 samples: 3 sigma of the estimate
    assert goodness_of_fit(observed, FACES, name="die") == fit  # seeded: an auditor gets the same figure
    assert fit.evidence[0][:2] == ("6", 4)


def test_categories_outside_the_expectation_are_refused() -> None:
    with pytest.raises(ValueError, match="outside the expectation"):
        goodness_of_fit({"7": 1}, FACES)


def test_looks_double_and_spend_the_level() -> None:
    looks = Looks(37, 0.01)
    assert [looks.at(k) for k in range(3)] == [185, 370, 740]
    assert sum(looks.level_at(k) for k in range(40)) == pytest.approx(0.01)
    assert looks.due(0, 184) == [] and looks.due(184, 185) == [0] and looks.due(100, 800) == [0, 1, 2]
    assert Looks(6, 0.01).first == 30 and Looks(6, 0.01, first_look=12).first == 12


def _run_series(
    rng: np.random.Generator, p: np.ndarray, odds: dict[str, float], looks: Looks, k: int
) -> bool:
    cats = sorted(odds)
    draws = rng.choice(len(cats), size=looks.at(k - 1), p=p)
    for look in range(k):
        counts = Counter(cats[i] for i in draws[: looks.at(look)])
        if goodness_of_fit(counts, odds, samples=2000).p_value < looks.level_at(look):
            return True
    return False


@pytest.mark.parametrize(("odds", "first_look"), [(POCKETS, None), (FACES, None), (FACES, 6)])
def test_fair_equipment_raises_no_more_false_alarms_than_the_level(odds, first_look) -> None:
    level, series = 0.05, 300
    looks = Looks(len(odds), level, first_look)
    rng = np.random.default_rng(20261201)
    fair = np.full(len(odds), 1 / len(odds))
    alarms = sum(_run_series(rng, fair, odds, looks, 4) for _ in range(series))
    # at most the level over all four looks; three standard deviations of a binomial for the noise
    assert alarms <= series * level + 3 * math.sqrt(series * level * (1 - level)), alarms


def test_biased_equipment_is_caught_by_the_predicted_count() -> None:
    level = 0.001
    true = {c: (4.0 if c == "17" else 1.0) / 40 for c in POCKETS}
    n = rounds_to_detect(true, POCKETS, level, power=0.9)
    looks = Looks(37, level)
    k = looks.due(0, n)[-1] + 1  # the looks up to the predicted one
    rng = np.random.default_rng(7)
    p = np.array([true[c] for c in sorted(POCKETS)])
    series = 100
    caught = sum(_run_series(rng, p, POCKETS, looks, k) for _ in range(series))
    assert caught >= series * (0.9 - 3 * math.sqrt(0.09 / series)), (n, caught)


def roulette(number: str, device: str = "w1/wheel") -> dict:
    return {"game": "european_roulette", "result": {"number": number}, "source": {"device_id": device}}


def test_the_model_counts_pockets_and_sectors_and_raises_one_alarm_per_series() -> None:
    model = BiasModel(level=0.001, first_look=20)
    for _ in range(40):
        model.add("w1", roulette("17"))
    pending = model.pending()
    assert {a.key for a in pending} == {("w1", "w1/wheel", "pocket"), ("w1", "w1/wheel", "sector")}
    pocket = next(a for a in pending if a.key[2] == "pocket")
    assert pocket.look == 0 and pocket.fit.n == 20 and pocket.fit.evidence[0][:2] == ("17", 20)
    model.journaled("w1", {"device_id": "w1/wheel", "quantity": "pocket", "look": 0})
    assert [a.key[2] for a in model.pending()] == ["sector"]
    report = {s["quantity"]: s for s in model.report()}
    assert report["pocket"]["n"] == 40 and report["pocket"]["counts"] == {"17": 40}
    assert report["pocket"]["expected"]["0"] == pytest.approx(40 / 37, abs=1e-3)
    assert report["pocket"]["last_test"]["look"] == 1 and report["pocket"]["next_test_at"] == 80


def test_a_money_wheel_is_watched_against_the_tables_own_layout() -> None:
    from recognition.games import GAMES

    game = GAMES["dream_catcher"]
    layout = game.layout_from({})
    model = BiasModel({"mw": {}}, level=0.001)
    label = layout[0].label
    model.add("mw", {"game": "dream_catcher", "result": {"segment": label, "index": 0}, "source": {}})
    series = {s["quantity"]: s for s in model.report()}
    assert series["segment"]["categories"] == layout.size
    assert series["label"]["expected"][label] == pytest.approx(layout.counts()[label] / layout.size, abs=1e-3)
    assert series["label"]["device_id"] == "mw"  # no device named: the table's equipment
