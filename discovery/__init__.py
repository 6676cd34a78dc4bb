"""Registries found by scanning a package: a new game, driver or simulator is one module.

Each registry is a module-level dict in the modules of one package (``DRIVERS`` in
``devices``, ``GAMES`` in ``recognition``, ``SIMULATORS`` in ``simulators``): key -> object.
:func:`discover` imports every module of the package and merges those dicts.

This package imports nothing of ours, so that every layer may use it: ``devices`` imports
nothing else of ours and ``recognition`` at most the event types of ``devices``, so the
helper cannot live in either.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

__all__ = ["discover"]


def discover(
    package: ModuleType,
    attribute: str,
    *,
    what: str,
    recursive: bool = True,
    skip: Iterable[str] = (),
    check: Callable[[str, Any, str], None] | None = None,
) -> dict[str, Any]:
    """The ``attribute`` dicts of every module of ``package`` merged, in key order.

    ``recursive``: the modules of its sub-packages too; ``skip``: module names not to
    import (a registry module that defines the dict itself); ``check(key, value, module)``
    raises on an entry that is not valid. A key that two modules give different values is a
    RuntimeError naming ``what`` the key is ("device kind", "game id", ...).
    """
    scan = pkgutil.walk_packages if recursive else pkgutil.iter_modules
    skipped = set(skip)
    found: dict[str, Any] = {}
    for info in scan(package.__path__, package.__name__ + "."):
        if info.name in skipped:
            continue
        module = importlib.import_module(info.name)
        # a registry is a module's dict found by its name: module discovery, no ability probe
        for key, value in getattr(module, attribute, {}).items():
            if key in found and found[key] is not value:
                raise RuntimeError(f"{what} {key!r} is defined twice ({info.name})")
            if check is not None:
                check(key, value, info.name)
            found[key] = value
    return dict(sorted(found.items()))
