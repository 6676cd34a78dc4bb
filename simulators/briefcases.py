"""Deal or No Deal Live's briefcases and scanner, as software: a ``serial-briefcase-scanner`` on a pty
(devices/briefcases/scanner.py).

As the dealer's assistant: when a round opens the 16 number cards go into the briefcases in a random order
(``random.Random(seed)``); once betting closes the briefcases are opened stage by stage (3, 4, 4, 3, then the
last of the rows and the player's), ``open_delay`` seconds apart and ``offer_delay`` between stages (divided by
``speed``), each card's code (``tag_format``, ``CASE07``) written as the scanner sends it. A fault on request
for the next card (:meth:`BriefcaseScannerSimulator.inject`): ``"unreadable"`` sends ``NOREAD`` and the opening
stops until the table holds with ``misread``; then the card is scanned again and the opening goes on.
"""

from __future__ import annotations

from typing import Any

from .history import remember
from .line_dealer import LineDealerSimulator

__all__ = ["SIMULATORS", "BriefcaseScannerSimulator"]

#: briefcases opened before each offer; the final two after the last offer
STAGE_ENDS = (3, 7, 11, 14)


class BriefcaseScannerSimulator(LineDealerSimulator):
    thread_name = "briefcase-scanner-sim"

    def __init__(
        self,
        *,
        speed: float = 1.0,
        seed: int | None = None,
        cases: int = 16,
        tag_format: str = "CASE{:02d}",
        open_delay: float = 1.0,
        offer_delay: float = 3.0,
        rescan_delay: float = 1.0,
        act_as_dealer: bool = True,
    ) -> None:
        super().__init__(speed=speed, seed=seed, act_as_dealer=act_as_dealer)
        self.cases, self.tag_format = int(cases), tag_format
        self.open_delay, self.offer_delay, self.rescan_delay = (
            float(open_delay),
            float(offer_delay),
            float(rescan_delay),
        )
        #: the number card in each briefcase, in the order they will be opened (the truth, for tests)
        self.cards: list[int] = []
        self.opened = 0
        self._faults: list[str] = []
        self._round: str | None = None
        self._opening: dict[str, None] = {}  # the newest simulators.history.KEEP
        self._waiting_rescan = False

    def inject(self, fault: str) -> None:
        if fault != "unreadable":
            raise ValueError(f"unknown fault {fault!r}; known: unreadable")
        self._faults.append(fault)

    def fill(self) -> None:
        self.cards = list(range(1, self.cases + 1))
        self.rng.shuffle(self.cards)
        self.opened = 0

    def _open_next(self, round_id: str) -> None:
        if round_id != self._round or self.opened >= len(self.cards):
            return
        if self._faults:
            self._faults.pop(0)
            self._waiting_rescan = True
            self.write_line("NOREAD")
            return
        self.write_line(self.tag_format.format(self.cards[self.opened]))
        self.opened += 1
        if self.opened < len(self.cards):
            pause = self.offer_delay if self.opened in STAGE_ENDS else self.open_delay
            self.later(pause, lambda: self._open_next(round_id))

    def on_table_event(self, what: str, data: dict[str, Any]) -> None:
        if what == "hold" and data.get("code") == "misread" and self._waiting_rescan and self._round:
            self._waiting_rescan = False
            rid = self._round
            self.later(self.rescan_delay, lambda: self._open_next(rid))
            return
        if what != "round":
            return
        round_id = str(data.get("round_id", ""))
        transition = data.get("transition")
        if transition == "open_round":
            self._round = round_id
            self.later(0, self.fill)
        elif transition == "close_betting" and round_id == self._round and round_id not in self._opening:
            remember(self._opening, round_id)
            self.later(self.open_delay, lambda: self._open_next(round_id))
        elif transition in ("void", "certify") and round_id == self._round:
            self._round = None


def _factory(
    *, speed: float = 1.0, seed: int | None = None, **options: Any
) -> tuple[BriefcaseScannerSimulator, str]:
    sim = BriefcaseScannerSimulator(speed=speed, seed=seed, **options)
    return sim, sim.url


#: device kind -> factory, found by studio.simulated for devices whose URL is "simulator"
SIMULATORS = {"serial-briefcase-scanner": _factory}
