"""Helpers shared by the draw-game tests (a unique module name: tests/ has other conftest modules)."""

from __future__ import annotations

import json
from typing import Any


def winners(outcome: dict[str, Any]) -> set[str]:
    return {w["bet"] for w in outcome["winning_bets"]}


def assert_no_floats(value: Any, where: str = "value") -> None:
    assert not isinstance(value, float), f"float at {where}: {value!r}"
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str), f"non-string key {k!r} at {where}"
            assert_no_floats(v, f"{where}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            assert_no_floats(v, f"{where}[{i}]")
    json.dumps(value, allow_nan=False)
