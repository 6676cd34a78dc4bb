"""Goodness of fit of what the equipment produced against what fair equipment would: the bias watch's tests.
Pure: no I/O.

- **chi-square** when every expected count is at least MIN_EXPECTED (the p-value from the regularised upper
  incomplete gamma function, as in Numerical Recipes: a series below a + 1, a continued fraction above);
- below that, an **exact test by simulation**: the multinomial p-value of the chi-square statistic estimated
  from SAMPLES draws of fair equipment (numpy), seeded from the series' name and count, so an auditor who
  runs it again gets the same figure. With 20,000 samples its resolution (5e-5) is finer than any level
  a studio configures.
- **when to look** (`Looks`): a series is tested each time its count doubles from a first look at
  max(FIRST_LOOK, 5 x categories); the k-th look (from 0) is held to level / 2^(k+1), so the chance that fair
  equipment raises an alarm at any look over the series' whole life is at most the level (alpha spending).
  Testing every new round at the full level instead would, given enough rounds, alarm on any fair wheel.
- `rounds_to_detect`: the count at which a given bias is caught with a given power by those looks (the
  non-central chi-square by Patnaik's approximation), what a technician can expect and the tests check.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

MIN_EXPECTED = 5.0
SAMPLES = 20_000
FIRST_LOOK = 30


# --- the chi-square distribution -----------------------------------------------------------------------


def _gamma_q(a: float, x: float) -> float:
    """The regularised upper incomplete gamma function Q(a, x)."""
    if x <= 0:
        return 1.0
    lg = math.lgamma(a)
    if x < a + 1:  # the series of P(a, x)
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - lg))
    # the continued fraction of Q(a, x) (modified Lentz)
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return min(1.0, math.exp(-x + a * math.log(x) - lg) * h)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with df degrees of freedom."""
    if df < 1:
        raise ValueError("a chi-square test needs at least two categories")
    return _gamma_q(df / 2, x / 2)


def chi2_isf(p: float, df: int) -> float:
    """The x with chi2_sf(x, df) = p (bisection)."""
    lo, hi = 0.0, float(df) + 10 * math.sqrt(2 * df) + 100
    while chi2_sf(hi, df) > p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if chi2_sf(mid, df) > p else (lo, mid)
    return (lo + hi) / 2


# --- one test ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    n: int
    statistic: float
    df: int
    p_value: float
    method: str
    #: the categories furthest from fair: (category, observed, expected), most surprising first
    evidence: tuple[tuple[str, int, float], ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "n": self.n,
            "statistic": round(self.statistic, 4),
            "df": self.df,
            "p_value": float(f"{self.p_value:.6g}"),
            "method": self.method,
            "evidence": [
                {"category": c, "observed": o, "expected": round(e, 2)} for c, o, e in self.evidence
            ],
        }


def _statistic(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    return (((observed - expected) ** 2) / expected).sum(axis=-1)


def _seed(name: str, n: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{name}#{n}".encode()).digest()[:8], "big")


def goodness_of_fit(
    observed: Mapping[str, int], odds: Mapping[str, float], *, name: str = "", samples: int = SAMPLES
) -> Fit:
    """Test the counts `observed` (categories outside `odds` are refused) against the probabilities `odds`."""
    unknown = set(observed) - set(odds)
    if unknown:
        raise ValueError(f"categories outside the expectation: {', '.join(sorted(unknown))}")
    cats = sorted(odds)
    obs = np.array([observed.get(c, 0) for c in cats], dtype=float)
    p = np.array([odds[c] for c in cats], dtype=float)
    p = p / p.sum()
    n = int(obs.sum())
    exp = p * n
    df = len(cats) - 1
    if n == 0:
        return Fit(0, 0.0, df, 1.0, "none", ())
    stat = float(_statistic(obs, exp))
    if exp.min() >= MIN_EXPECTED:
        value, method = chi2_sf(stat, df), "chi-square"
    else:
        rng = np.random.default_rng(_seed(name, n))
        sims = rng.multinomial(n, p, size=samples).astype(float)
        extreme = int((_statistic(sims, exp) >= stat - 1e-9).sum())
        value, method = (extreme + 1) / (samples + 1), f"exact (simulated, {samples} samples)"
    residual = (obs - exp) / np.sqrt(exp)
    worst = np.argsort(-np.abs(residual))[:3]
    evidence = tuple((cats[i], int(obs[i]), float(exp[i])) for i in worst)
    return Fit(n, stat, df, value, method, evidence)


# --- when to look --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Looks:
    """The looks at one series: at first, 2 x first, 4 x first, ... observations; look k at level/2^(k+1).
    `first_look` None: max(FIRST_LOOK, 5 x categories), where most chi-square tests are valid."""

    categories: int
    level: float
    first_look: int | None = None

    @property
    def first(self) -> int:
        return self.first_look or max(FIRST_LOOK, 5 * self.categories)

    def at(self, k: int) -> int:
        return self.first << k

    def level_at(self, k: int) -> float:
        return self.level / 2 ** (k + 1)

    def due(self, before: int, now: int) -> list[int]:
        """The looks whose count was reached between `before` (excluded) and `now` (included)."""
        out = []
        k = 0
        while self.at(k) <= now:
            if self.at(k) > before:
                out.append(k)
            k += 1
        return out


def _noncentral_sf(x: float, df: int, lam: float) -> float:
    """P(X >= x) for non-central chi-square (Patnaik: a scaled central chi-square of matched moments)."""
    c = (df + 2 * lam) / (df + lam)
    nu = (df + lam) ** 2 / (df + 2 * lam)
    return _gamma_q(nu / 2, x / (2 * c))


def rounds_to_detect(
    true: Mapping[str, float],
    odds: Mapping[str, float],
    level: float,
    power: float = 0.9,
    first_look: int | None = None,
) -> int:
    """The count of the first look at which equipment of probabilities `true` is caught with `power`."""
    cats = sorted(odds)
    effect = sum((true.get(c, 0.0) - odds[c]) ** 2 / odds[c] for c in cats)
    if effect <= 0:
        raise ValueError("fair equipment is never caught")
    looks = Looks(len(cats), level, first_look)
    df = len(cats) - 1
    for k in range(60):
        n = looks.at(k)
        if _noncentral_sf(chi2_isf(looks.level_at(k), df), df, n * effect) >= power:
            return n
    raise ValueError("a bias too small to catch")
