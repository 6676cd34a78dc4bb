"""The discovery helper on a package written for the test, and the four registries built with it."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from discovery import discover


def _package(root: Path, name: str, modules: dict[str, str]) -> object:
    pkg = root / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for rel, text in modules.items():
        path = pkg / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.parent != pkg and not (path.parent / "__init__.py").exists():
            (path.parent / "__init__.py").write_text("")
        path.write_text(textwrap.dedent(text))
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    return importlib.import_module(name)


@pytest.fixture
def make_package(tmp_path, monkeypatch):
    made: list[str] = []

    def make(name: str, modules: dict[str, str]) -> object:
        made.append(name)
        return _package(tmp_path, name, modules)

    monkeypatch.setattr(sys, "path", list(sys.path))
    yield make
    for mod in [m for m in sys.modules if any(m == n or m.startswith(n + ".") for n in made)]:
        del sys.modules[mod]


def test_every_module_and_sub_package_is_merged_in_key_order(make_package):
    pkg = make_package(
        "disc_pkg_merge",
        {
            "b.py": "THINGS = {'zeta': 1, 'alpha': 2}\n",
            "sub/c.py": "THINGS = {'mid': 3}\n",
            "plain.py": "OTHER = {'x': 4}\n",
        },
    )
    found = discover(pkg, "THINGS", what="thing")
    assert list(found.items()) == [("alpha", 2), ("mid", 3), ("zeta", 1)]
    assert discover(pkg, "THINGS", what="thing", recursive=False) == {"alpha": 2, "zeta": 1}
    assert discover(pkg, "THINGS", what="thing", skip=("disc_pkg_merge.b",)) == {"mid": 3}


def test_a_key_two_modules_define_is_refused(make_package):
    pkg = make_package(
        "disc_pkg_twice", {"a.py": "THINGS = {'k': object()}\n", "b.py": "THINGS = {'k': 1}\n"}
    )
    with pytest.raises(RuntimeError, match="thing 'k' is defined twice"):
        discover(pkg, "THINGS", what="thing")


def test_the_check_sees_each_entry_with_its_module(make_package):
    pkg = make_package("disc_pkg_check", {"a.py": "THINGS = {'k': 1, 'bad': 2}\n"})
    seen: list[tuple[str, object, str]] = []

    def check(key: str, value: object, module: str) -> None:
        seen.append((key, value, module))
        if key == "bad":
            raise RuntimeError(f"{module}: {key} refused")

    with pytest.raises(RuntimeError, match="disc_pkg_check.a: bad refused"):
        discover(pkg, "THINGS", what="thing", check=check)
    assert seen == [("k", 1, "disc_pkg_check.a"), ("bad", 2, "disc_pkg_check.a")]


def test_the_four_registries_are_found():
    from devices.base import Driver
    from devices.registry import all_drivers
    from recognition.cards import all_card_games
    from recognition.games import GAMES
    from studio.simulated import all_simulators

    drivers = all_drivers()
    assert {"camera-shoe", "roulette-camera", "cammegh-ss2"} <= set(drivers)
    assert all(issubclass(cls, Driver) for cls in drivers.values())
    assert all(game_id == rules.game_id for game_id, rules in GAMES.items())
    cards = all_card_games()
    assert cards and all(GAMES[game_id] is rules for game_id, rules in cards.items())
    assert set(all_simulators()) <= set(drivers)
