"""Configuration name -> driver class, and device kind -> capture reader.

Every module of the `devices` package (and its sub-packages) that defines a
module-level `DRIVERS` dict of kind -> driver class is registered, so a new
device is one module and touches nothing else. A driver module that can read a
raw capture of its device without a port (for `studio replay`) also defines
`REPLAYERS`: kind -> `iter_events(chunks, device_id=...)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache

from discovery import discover

from .base import Driver
from .events import DeviceEvent

#: reads a raw capture (its bytes, in chunks) the way the driver reads its port: the events it would emit
CaptureReader = Callable[..., Iterator[DeviceEvent]]


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


@cache
def all_replayers() -> dict[str, CaptureReader]:
    """Device kind -> its capture reader, called as `reader(chunks: Iterable[bytes], device_id=...)`."""
    import devices

    return discover(devices, "REPLAYERS", what="capture reader of device kind", skip=(__name__,))
