"""Devices whose URL is "simulator": start the device's software twin and give the driver its port.

The driver then opens the simulator's port (a pty's slave side, a local TCP
port, ...) like a real device, so the studio runs exactly the code it runs
against real hardware.

Every module of the `simulators` package that defines a module-level
`SIMULATORS` dict of device kind -> `SimulatorFactory` is registered. A factory
is called as `factory(speed=..., seed=..., **options)` and returns
`(simulator, url)`; the simulator is a `Simulator`.

The simulators of one table watch one game as the real devices do: a simulator that follows another device of
its table declares it with an ability of `simulators.abilities` its class inherits, and is linked to the
simulator with the matching ability (an overhead roulette camera, `FollowsWheel`, is given the table's wheel,
`ForcesNumber`: both then see the same ball). Simulators sharing a physical thing across processes use an
option instead (a ball machine and its reader share `machine_id`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from discovery import discover
from simulators.abilities import FollowsWheel, ForcesNumber

from .config import DeviceConfig

if TYPE_CHECKING:
    from .table import Table

#: what a table tells its listeners: ("round", the round's data with its "transition"), ("hold", ...), ...
TableListener = Callable[[str, dict[str, Any]], None]


class Simulator(Protocol):
    """A device's software twin, serving the port its factory returned the URL of."""

    def start(self) -> object:
        """Start serving (on threads of its own); returns at once."""
        ...

    def stop(self) -> None:
        """Stop serving and join its threads; safe to call twice."""
        ...

    @property
    def table_event(self) -> TableListener | None:
        """A simulator of a dealer-paced game (a shoe, a dice shaker, a ball machine) may act as the dealer
        would: this is called (on the event loop: it must not block) with every table event ("round" with the
        round's data and its "transition", "hold", "status", "note", "refused"). None: it plays no dealer."""
        ...


class SimulatorFactory(Protocol):
    def __call__(self, *, speed: float, seed: int | None, **options: Any) -> tuple[Simulator, str]: ...


@cache
def all_simulators() -> dict[str, SimulatorFactory]:
    import simulators

    return discover(simulators, "SIMULATORS", what="simulator of device kind")


#: the simulators started so far for each table (linked as the next ones start)
_table_simulators: weakref.WeakKeyDictionary[Any, list[Any]] = weakref.WeakKeyDictionary()


def link_simulators(sims: list[Any]) -> None:
    """Link the simulators of one table that follow one another (see the module's documentation)."""
    wheel = next((s for s in sims if isinstance(s, ForcesNumber)), None)
    for sim in sims:
        if isinstance(sim, FollowsWheel) and wheel is not None and wheel is not sim:
            sim.link_wheel(wheel)


def start_simulator(dcfg: DeviceConfig, table: Table | None = None) -> tuple[Simulator, str]:
    factories = all_simulators()
    try:
        factory = factories[dcfg.kind]
    except KeyError:
        raise ValueError(
            f"no simulator for device kind {dcfg.kind!r}; known: {', '.join(sorted(factories))}"
        ) from None
    sim, url = factory(speed=dcfg.simulator.speed, seed=dcfg.simulator.seed, **dcfg.simulator.options)
    sim.start()
    if table is not None:
        if sim.table_event is not None:
            table.listeners.append(sim.table_event)
        started = _table_simulators.setdefault(table, [])
        started.append(sim)
        link_simulators(started)
    return sim, url
