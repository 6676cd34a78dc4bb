"""Configuration name -> driver class.

Every module of the `devices` package (and its sub-packages) that defines a
module-level `DRIVERS` dict of kind -> driver class is registered, so a new
device is one module and touches nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from .base import Driver


class UnknownDeviceKind(ValueError):
    pass


@cache
def all_drivers() -> dict[str, type[Driver]]:
    import devices

    found: dict[str, type[Driver]] = {}
    for info in pkgutil.walk_packages(devices.__path__, "devices."):
        if info.name == __name__:
            continue
        module = importlib.import_module(info.name)
        registered: dict[str, type[Driver]] = getattr(module, "DRIVERS", {})  # discovery, not an ability
        for kind, cls in registered.items():
            if kind in found and found[kind] is not cls:
                raise RuntimeError(f"device kind {kind!r} is defined twice ({info.name})")
            found[kind] = cls
    return dict(sorted(found.items()))


def driver_class(kind: str) -> type[Driver]:
    drivers = all_drivers()
    try:
        return drivers[kind]
    except KeyError:
        raise UnknownDeviceKind(f"unknown device kind {kind!r}; known: {', '.join(drivers)}") from None
