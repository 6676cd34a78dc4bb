"""Exact numbers on the feed: payouts and returns as an int when whole, else the fraction "a/b".

Feed messages carry no floating-point numbers (a verifier in another language could not rebuild
the signed bytes), so every game writes its payouts through these. Payouts are net odds to 1 (the
stake comes back on top).
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["Payout", "as_fraction", "exact_text", "payout"]

Payout = int | str


def exact_text(value: int | Fraction) -> Payout:
    """An int when whole, else the reduced fraction as "a/b" (39/8 -> "39/8")."""
    value = Fraction(value)
    return int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def payout(value: int | Fraction) -> Payout:
    """Net odds to 1 as :func:`exact_text` writes them; never negative."""
    if value < 0:
        raise ValueError(f"a payout is never negative: {Fraction(value)}")
    return exact_text(value)


def as_fraction(value: Payout) -> Fraction:
    """The inverse of :func:`payout`: 6 -> 6, "7/6" -> 7/6 (for settlement code and tests)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        # ValueError, not TypeError: a bad result from outside is refused like any other bad value
        raise ValueError(f"a payout is an int or an 'a/b' string, not {value!r}")
    return Fraction(value)
