"""What a simulator can do besides the Simulator contract (studio.simulated.Simulator), declared by its class.

The simulators of one table watch one game as the real devices do: `studio.simulated.link_simulators` links
them by these abilities, asked with ``isinstance``. A simulator has an ability because its class inherits it,
never because it happens to carry a method of that name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class ForcesNumber(ABC):
    """A roulette wheel's twin that can be told the winning number of its next undecided game."""

    @abstractmethod
    def force_next_number(self, label: str | int) -> None:
        """Queue the winning number of the next undecided game ("17", " 6", "00", 17)."""


class FollowsWheel(ABC):
    """A simulator that sees the table's wheel (the overhead roulette camera): linked to the table's wheel twin,
    it tells the wheel where its ball lands, so both report the same number."""

    @abstractmethod
    def link_wheel(self, wheel: ForcesNumber) -> None:
        """From now on, tell ``wheel`` the first ball's pocket of every spin."""
