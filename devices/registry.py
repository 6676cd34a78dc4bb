"""Configuration name -> driver class.

Every module of the `devices` package (and its sub-packages) that defines a
module-level `DRIVERS` dict of kind -> driver class is registered, so a new
device is one module and touches nothing else.
"""

from __future__ import annotations

from functools import cache

from discovery import discover

from .base import Driver


class UnknownDeviceKind(ValueError):
    pass


@cache
def all_drivers() -> dict[str, type[Driver]]:
    import devices

    return discover(devices, "DRIVERS", what="device kind", skip=(__name__,))


def driver_class(kind: str) -> type[Driver]:
    drivers = all_drivers()
    try:
        return drivers[kind]
    except KeyError:
        raise UnknownDeviceKind(f"unknown device kind {kind!r}; known: {', '.join(drivers)}") from None
