"""Configuration name -> driver class, imported only when a table asks for it."""
from __future__ import annotations

import importlib

from .base import Driver

DRIVERS: dict[str, tuple[str, str]] = {
    "cammegh-ss2": ("devices.roulette.cammegh_ss2", "CammeghSS2Driver"),
}


class UnknownDeviceKind(ValueError):
    pass


def driver_class(kind: str) -> type[Driver]:
    try:
        module, name = DRIVERS[kind]
    except KeyError:
        raise UnknownDeviceKind(f"unknown device kind {kind!r}; known: {', '.join(sorted(DRIVERS))}") from None
    return getattr(importlib.import_module(module), name)
