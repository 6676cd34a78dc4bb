"""What a game contributes to the studio: a judge of device events and an outcome function.

The round lifecycle in studio/ is the same for every game. A game only says,
from the device events it sees, when a round opens, when betting closes, when
play starts, what the result is (or why it cannot be trusted), and which bet
spots a result wins. Everything here is pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

if TYPE_CHECKING:
    from devices.events import DeviceEvent
    from recognition.decisions import (
        Decision,
    )

#: the decision models (recognition/decisions.py), loaded on first use: the rules of a game need no pydantic
_DECISIONS = frozenset(
    (
        "OpenRound",
        "CloseBetting",
        "StartPlay",
        "ResultReady",
        "Hold",
        "Release",
        "Void",
        "SendCommand",
        "Note",
        "RoundSignal",
        "AskDecision",
        "DecisionTaken",
        "DecisionRefused",
        "Decision",
        "PlayerDecision",
    )
)


def __getattr__(name: str) -> Any:
    if name in _DECISIONS:
        from recognition import decisions

        value = getattr(decisions, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Judge(Protocol):
    """Turns one table's device events (and the table's round signals), in order, into decisions.

    `feed` takes a device event, a `RoundSignal`, what `prepare` made of a device event, or (games with
    player decisions) a `PlayerDecision`, which it answers with DecisionTaken or DecisionRefused first, then
    any other decisions. The optional abilities are declared, defaulted members (`BaseJudge` has the defaults):
    None means the judge has not got that ability.
    """

    def feed(self, event: Any) -> list[Decision]: ...

    @property
    def prepare(self) -> Callable[[DeviceEvent], Any] | None:
        """Heavy, pure, thread-safe work on a device event (a camera frame's vision), run by the table on a
        worker thread, in order; the table then feeds what it returned. `feed` must still accept the raw event.
        None: the table feeds device events as they come, on the loop."""
        ...

    @property
    def status(self) -> Callable[[], dict[str, Any] | None] | None:
        """What the dealer must know now, shown on the console, e.g. {"next": {"position", "label"} | None,
        "awaiting": [{"window", "seat", "hand", "allowed", "default"}]}. None: the judge has nothing to show."""
        ...


class BaseJudge:
    """Defaults of a judge's optional abilities: no preparation off the loop, no status for the dealer.

    A judge defines `def prepare(self, event)` or `def status(self)` to have the ability."""

    prepare: Callable[[DeviceEvent], Any] | None = None
    status: Callable[[], dict[str, Any] | None] | None = None

    def feed(self, event: Any) -> list[Decision]:
        raise NotImplementedError


Pacing = Literal["device", "dealer"]


class OpeningCheck(Protocol):
    """A check the table must pass before it opens (a ball draw's ball-set check): fed every device event
    while it runs (True: its report changed); its report has `ok`, `message` and `as_dict()` (journaled)."""

    def feed(self, event: Any) -> bool: ...

    @property
    def complete(self) -> bool: ...

    def report(self) -> Any: ...


#: a game's opening check, made from the table's drivers by role (None for a device not started)
OpeningCheckFactory = Callable[[Mapping[str, Any]], OpeningCheck]


class GameRules(Protocol):
    """What the studio needs of a game. Every member is declared here; the optional abilities have defaults
    (`BaseGame`), so the studio calls them rather than asking whether a game has them."""

    game_id: str
    #: device kinds whose events the judge understands
    device_kinds: tuple[str, ...]
    #: "device": the device opens rounds and closes betting (an SS2 wheel in arcade mode);
    #: "dealer": the table opens rounds and closes betting (dealer button or betting timer)
    pacing: Pacing

    @property
    def has_decisions(self) -> bool:
        """Players decide during the round (blackjack, draw poker): the judge asks with `AskDecision`."""
        ...

    @property
    def seats(self) -> tuple[str, ...]:
        """The seats of a decision game with seats, in deal order; () for none."""
        ...

    @property
    def common_hand(self) -> bool:
        """A decision game with one common player hand (no seats to sit at)."""
        ...

    @property
    def opening_check(self) -> OpeningCheckFactory | None:
        """The check a table of this game must pass before it opens (a ball draw: every ball read once);
        None: the table opens at once."""
        ...

    @property
    def dealer_releasable_holds(self) -> tuple[str, ...]:
        """Hold codes of this game's judge a dealer may clear alone, by confirming the condition is resolved
        (no supervisor); () for none: every hold is voided or resolved with a supervisor."""
        ...

    @property
    def time_scale_setting(self) -> str | None:
        """The judge setting that says how much faster than real time the device's events come (a simulator
        at speed N), so timing checks scale back; None: the judge checks no timings."""
        ...

    @property
    def untimed_settings(self) -> Mapping[str, Any]:
        """Judge settings for events without real timings (a capture replayed from a file)."""
        ...

    def new_judge(self, **settings: Any) -> Judge: ...

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """Return the result in canonical form, or raise ValueError saying what is wrong."""
        ...

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        """The winning bet spots of a validated result with their payouts (extras: committed draws)."""
        ...

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any] | None:
        """Computer-drawn parts of a round (lightning multipliers, ...), drawn with the studio's secure
        generator when the round opens and committed on the feed before betting closes; None if none."""
        ...

    def void_terms(self, code: str) -> dict[str, Any] | None:
        """What a round void for reason `code` settles beyond every bet returned; None: the bets returned."""
        ...

    def check_devices(self, settings: Mapping[str, Any], kinds: Mapping[str, str]) -> None:
        """Check a table's settings against its devices (role -> kind); raise ValueError saying what is wrong."""
        ...

    def evaluate(self, item: dict[str, Any]) -> dict[str, Any]:
        """Re-check a recorded round for auditors (`studio evaluate`): the item without its "id"
        (e.g. {"cards": [...]}, {"dice": [...]}, {"number": "17"}, optionally "extras") ->
        {"result": ..., "outcome": ...}; raise ValueError saying what is wrong."""
        ...

    @property
    def fast_evaluate(self) -> bool:
        """The game has a fast path of its own (`evaluate_json`): `studio evaluate` runs its tight loop."""
        ...

    def evaluate_json(self, line: str) -> str | None:
        """A fast path of `studio evaluate`: the exact output line for an input line, or None (not handled:
        the CLI goes through `evaluate`)."""
        ...

    def equipment_reading(
        self, result: Mapping[str, Any], source: Mapping[str, Any]
    ) -> list[tuple[str, str]]:
        """What the equipment produced in a certified round, for the bias watch: (quantity, category) pairs,
        one per pocket, segment, die, ball or card (e.g. ("pocket", "17"), ("face white", "4")); [] for none."""
        ...

    def equipment_odds(self, quantity: str, settings: Mapping[str, Any]) -> Mapping[str, float] | None:
        """Each category's probability for `quantity` on fair equipment (the table's `settings`: a money
        wheel's layout); None: the quantity is not watched."""
        ...


class BaseGame:
    """Defaults for a game module: device pacing, no computer draws, evaluate = validate + outcome, and none
    of the optional abilities (no player decisions, no opening check, no timing checks)."""

    game_id: str = ""
    device_kinds: tuple[str, ...] = ()
    pacing: Pacing = "device"
    has_decisions: bool = False
    fast_evaluate: bool = False
    seats: tuple[str, ...] = ()
    common_hand: bool = False
    #: a game whose table must pass a check before it opens defines
    #: `def opening_check(self, devices: Mapping[role, driver or None]) -> OpeningCheck`
    opening_check: OpeningCheckFactory | None = None
    dealer_releasable_holds: tuple[str, ...] = ()
    time_scale_setting: str | None = None
    untimed_settings: ClassVar[Mapping[str, Any]] = MappingProxyType({})

    def new_judge(self, **settings: Any) -> Judge:
        raise NotImplementedError

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any] | None:
        return None

    def void_terms(self, code: str) -> dict[str, Any] | None:
        """What a round of this game void for reason `code` settles beyond every bet returned (the outcome of
        its void message), e.g. {"refund": "all_bets", "compensation": {"ante": "1/2"}, "rule": ...}; None:
        the bets returned, nothing more (the feed's void outcome is then null)."""
        return None

    def check_devices(self, settings: Mapping[str, Any], kinds: Mapping[str, str]) -> None:
        return None

    def evaluate(self, item: dict[str, Any]) -> dict[str, Any]:
        extras = item.get("extras")
        result = self.validate_result({k: v for k, v in item.items() if k != "extras"})
        return {"result": result, "outcome": self.outcome(result, extras)}

    def evaluate_json(self, line: str) -> str | None:
        return None

    def equipment_reading(
        self, result: Mapping[str, Any], source: Mapping[str, Any]
    ) -> list[tuple[str, str]]:
        return []

    def equipment_odds(self, quantity: str, settings: Mapping[str, Any]) -> Mapping[str, float] | None:
        return None
