"""Tables whose device URL is "simulator": start the device's software twin on a pty.

The driver then opens the pty's slave path like any serial port, so the studio
runs exactly the code it runs against a real wheel.
"""
from __future__ import annotations

from typing import Any

from .config import TableConfig


def start_simulator(tcfg: TableConfig) -> tuple[Any, str]:
    kind = tcfg.device.kind
    if kind == "cammegh-ss2":
        from simulators.cammegh_ss2 import SS2Simulator

        sim = SS2Simulator.on_pty(speed=tcfg.device.simulator.speed, seed=tcfg.device.simulator.seed)
        sim.start()
        assert sim.slave_path is not None
        return sim, sim.slave_path
    raise ValueError(f"no simulator for device kind {kind!r}")
