"""Crazy Time's flappers (`crazy_time._crazy_play`, the studio's draw and both evaluate paths) give what the
rule says spin by spin: the reference below rebuilds the wheel after every DOUBLE or TRIPLE, as the seed
describes it; the module computes the same without rebuilding it."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from recognition.money_wheel.crazy_time import CRAZY_CAP, CT_WHEEL, DOUBLE, FLAPPERS, TRIPLE, _crazy_play


def reference(stops: Sequence[int], top: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, offset in FLAPPERS:
        values = [v if v in (DOUBLE, TRIPLE) else int(v) * top for v in CT_WHEEL]
        value: Any = None
        spins = 0
        for stop in stops:
            spins += 1
            v = values[(stop + offset) % len(CT_WHEEL)]
            if v in (DOUBLE, TRIPLE):
                k = 2 if v == DOUBLE else 3
                values = [x if x in (DOUBLE, TRIPLE) else min(CRAZY_CAP, int(x) * k) for x in values]
                if all(x == CRAZY_CAP for x in values if x not in (DOUBLE, TRIPLE)):
                    values = [CRAZY_CAP if x in (DOUBLE, TRIPLE) else x for x in values]
                continue
            value = int(v)
            break
        out[name] = {"value": value, "spins": spins, "done": value is not None}
    return out


DOUBLES = [i for i, v in enumerate(CT_WHEEL) if v in (DOUBLE, TRIPLE)]
TOPS = (1, 2, 3, 4, 5, 7, 10, 15, 20, 25, 50, 1000, CRAZY_CAP)


def test_every_single_spin_and_every_pair_of_spins_for_every_top_slot_multiplier() -> None:
    n = len(CT_WHEEL)
    for top in TOPS:
        for a in range(n):
            assert _crazy_play([a], top) == reference([a], top), (a, top)
            for b in range(n):
                assert _crazy_play([a, b], top) == reference([a, b], top), (a, b, top)


def test_long_runs_of_doubles_reach_the_cap_as_the_rebuilt_wheel_does() -> None:
    rng = random.Random(25)
    n = len(CT_WHEEL)
    at_cap = 0
    for _ in range(20_000):
        top = rng.choice(TOPS)
        # spins that land a flapper on a DOUBLE or TRIPLE often: the cap and L2095 are reached
        stops = [
            (rng.choice(DOUBLES) - rng.choice(FLAPPERS)[1]) % n if rng.random() < 0.7 else rng.randrange(n)
            for _ in range(rng.randint(1, 30))
        ]
        got = _crazy_play(stops, top)
        assert got == reference(stops, top), (stops, top)
        at_cap += any(f["value"] == CRAZY_CAP for f in got.values())
    assert at_cap > 1000, at_cap  # the cap was reached often enough to be tested
