"""Devices whose URL is "simulator": start the device's software twin and give the driver its port.

The driver then opens the simulator's port (a pty's slave side, a local TCP
port, ...) like a real device, so the studio runs exactly the code it runs
against real hardware.

Every module of the `simulators` package that defines a module-level
`SIMULATORS` dict of device kind -> factory is registered. A factory is called
as `factory(speed=..., seed=..., **options)` and returns `(simulator, url)`;
the simulator has `start()` and `stop()`. A simulator of a dealer-paced game (a
shoe, a dice shaker, a ball machine) may also act as the dealer would: if it has
a `table_event(what, data)` method, it is called (on the event loop: it must not
block) with every table event ("round" with the round's data and its
"transition", "hold", "status", "note", "refused").
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from discovery import discover

from .config import DeviceConfig


@cache
def all_simulators() -> dict[str, Callable[..., tuple[Any, str]]]:
    import simulators

    return discover(simulators, "SIMULATORS", what="simulator of device kind")


def start_simulator(dcfg: DeviceConfig, table: Any = None) -> tuple[Any, str]:
    factories = all_simulators()
    try:
        factory = factories[dcfg.kind]
    except KeyError:
        raise ValueError(
            f"no simulator for device kind {dcfg.kind!r}; known: {', '.join(sorted(factories))}"
        ) from None
    sim, url = factory(speed=dcfg.simulator.speed, seed=dcfg.simulator.seed, **dcfg.simulator.options)
    sim.start()
    follow = getattr(sim, "table_event", None)
    if table is not None and callable(follow):
        table.listeners.append(follow)
    return sim, url
