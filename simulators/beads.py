"""Fan Tan's bead counter, as software: a ``serial-bead-counter`` on a pty (devices/beads/counter.py).

As the dealer it separates a random number of beads with the cup while betting is open and, once betting
closes, lays them out and has them counted: ``COUNT <n>`` ``count_delay`` seconds later (divided by ``speed``),
``n`` drawn from ``min_beads``..``max_beads`` with ``random.Random(seed)``. A fault on request for the next
count (:meth:`BeadCounterSimulator.inject`): ``"unreadable"`` sends ``NOREAD``; the dealer then counts again
(``recount_delay`` later) when the table holds with ``misread``, as a dealer asked to recount would.
"""

from __future__ import annotations

from typing import Any

from .history import remember
from .line_dealer import LineDealerSimulator

__all__ = ["SIMULATORS", "BeadCounterSimulator"]


class BeadCounterSimulator(LineDealerSimulator):
    thread_name = "bead-counter-sim"

    def __init__(
        self,
        *,
        speed: float = 1.0,
        seed: int | None = None,
        min_beads: int = 20,
        max_beads: int = 120,
        count_delay: float = 3.0,
        recount_delay: float = 2.0,
        act_as_dealer: bool = True,
    ) -> None:
        if not 1 <= min_beads <= max_beads:
            raise ValueError("need 1 <= min_beads <= max_beads")
        super().__init__(speed=speed, seed=seed, act_as_dealer=act_as_dealer)
        self.min_beads, self.max_beads = int(min_beads), int(max_beads)
        self.count_delay, self.recount_delay = float(count_delay), float(recount_delay)
        self._faults: list[str] = []
        self._counted: dict[str, None] = {}  # the newest simulators.history.KEEP
        #: the beads separated for the round being played (the truth the counter reports)
        self.beads: int | None = None

    def inject(self, fault: str) -> None:
        if fault != "unreadable":
            raise ValueError(f"unknown fault {fault!r}; known: unreadable")
        self._faults.append(fault)

    def count(self, beads: int | None = None) -> None:
        """The counter reports now: the given beads, or the round's (a new random pile if none)."""
        if beads is not None:
            self.beads = beads
        if self.beads is None:
            self.beads = self.rng.randint(self.min_beads, self.max_beads)
        if self._faults:
            self._faults.pop(0)
            self.write_line("NOREAD")
            return
        self.write_line(f"COUNT {self.beads}")

    def on_table_event(self, what: str, data: dict[str, Any]) -> None:
        if what == "hold" and data.get("code") == "misread":
            self.later(self.recount_delay, self.count)
            return
        if what != "round":
            return
        round_id = str(data.get("round_id", ""))
        transition = data.get("transition")
        if transition == "open_round":
            self.beads = self.rng.randint(self.min_beads, self.max_beads)
        elif transition == "close_betting" and round_id not in self._counted:
            remember(self._counted, round_id)
            self.later(self.count_delay, self.count)


def _factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[BeadCounterSimulator, str]:
    sim = BeadCounterSimulator(speed=speed, seed=seed, **options)
    return sim, sim.url


#: device kind -> factory, found by studio.simulated for devices whose URL is "simulator"
SIMULATORS = {"serial-bead-counter": _factory}
