"""What a game contributes to the studio: a judge of device events and an outcome function.

The round lifecycle in studio/ is the same for every game. A game only says,
from the device events it sees, when a round opens, when betting closes, when
play starts, what the result is (or why it cannot be trusted), and which bet
spots a result wins. Everything here is pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from devices.events import DeviceEvent


class _Decision(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OpenRound(_Decision):
    """The device started a new game: open a new round with betting open."""

    kind: Literal["open_round"] = "open_round"
    device_game: str | None = None  # the device's own id of the game, e.g. the SS2 game counter


class CloseBetting(_Decision):
    kind: Literal["close_betting"] = "close_betting"


class StartPlay(_Decision):
    kind: Literal["start_play"] = "start_play"


class ResultReady(_Decision):
    """A result the judge is sure of; the lifecycle certifies it."""

    kind: Literal["result_ready"] = "result_ready"
    result: dict[str, Any]
    source: dict[str, Any]


class Hold(_Decision):
    """Stop and ask the dealer; nothing is certified while a hold stands."""

    kind: Literal["hold"] = "hold"
    code: str
    message: str


class Release(_Decision):
    """The condition behind a hold has cleared."""

    kind: Literal["release"] = "release"
    code: str


class Void(_Decision):
    kind: Literal["void"] = "void"
    code: str
    message: str


class SendCommand(_Decision):
    """A command the device must receive (e.g. the SS2 `*R` that acknowledges a void)."""

    kind: Literal["send_command"] = "send_command"
    command: str
    #: the table's device with this role gets it (a ball machine beside its reader); None: the device whose
    #: event caused the decision, or the table's only device
    device_role: str | None = None


class Note(_Decision):
    """Something worth journaling and showing that changes no state (e.g. a launch retry)."""

    kind: Literal["note"] = "note"
    code: str
    message: str


class RoundSignal(BaseModel):
    """What the table tells a judge about steps the judge did not decide itself.

    Dealer-paced games (cards, dice, balls) learn here that a round opened and that
    betting closed, so that a card drawn before betting closed can be held.
    `extras` carries the computer-drawn values committed for the round (lightning
    multipliers and the like), for judges whose result depends on them. A
    "round_ended" signal says how the round ended (`final_state`, and the
    certified `result` and `outcome`), so that a judge carrying state across
    rounds (the craps point) follows only certified results; a table starting up
    sends one for the last round in its journal.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["round_signal"] = "round_signal"
    signal: Literal["round_opened", "betting_closed", "round_ended"]
    round_number: int
    at: datetime
    extras: dict[str, Any] | None = None
    final_state: Literal["certified", "voided"] | None = None
    result: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None


class AskDecision(_Decision):
    """Players must decide before the next card (blackjack: hit, stand, ...; draw poker: discards).

    The table opens a decision window: it journals it, publishes it on the feed (kind
    "decision_window") and starts the table's decision timer; when the window runs out
    the table feeds the judge `PlayerDecision(by="default", action=default, window=window)`.
    Several windows may be open at once (seats deciding in parallel). `window` is unique
    within the round and deterministic (the same cards and decisions give the same ids),
    e.g. "seat_3/hand_1/2".
    """

    kind: Literal["ask_decision"] = "ask_decision"
    window: str
    seat: str
    hand: int = 1
    allowed: tuple[str, ...]
    #: what the rules do when nobody answers in time ("stand")
    default: str
    #: what the backend needs to show the player (the hand's cards and total, the dealer's card, ...)
    detail: dict[str, Any] = {}


class DecisionTaken(_Decision):
    """The judge accepted a decision (the backend's, or the default at a window's timeout): the window closes;
    the table journals it and publishes it on the feed (kind "decision")."""

    kind: Literal["decision_taken"] = "decision_taken"
    window: str
    seat: str
    hand: int = 1
    action: str
    cards: tuple[str, ...] = ()
    by: Literal["backend", "default"] = "backend"


class DecisionRefused(_Decision):
    """The judge refused a decision (not allowed now, seat not in play, window closed, a second answer):
    the table journals it and answers the backend with `code` and `message`; nothing else changes."""

    kind: Literal["decision_refused"] = "decision_refused"
    code: str
    message: str


Decision = (
    OpenRound
    | CloseBetting
    | StartPlay
    | ResultReady
    | Hold
    | Release
    | Void
    | SendCommand
    | Note
    | AskDecision
    | DecisionTaken
    | DecisionRefused
)


class PlayerDecision(BaseModel):
    """A player's decision for the open round, from the betting backend (decisions API), or the rules' default
    that the table applies when a window runs out (`by="default"`).

    `seat` and `hand` name the hand as the judge's AskDecision did; `window` (optional from the backend)
    names the window answered, so a late answer to a closed window is refused rather than applied to the
    next one. `cards` are the card codes a draw-poker player discards.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["player_decision"] = "player_decision"
    round_number: int
    seat: str
    hand: int = 1
    action: str
    cards: tuple[str, ...] = ()
    window: str | None = None
    by: Literal["backend", "default"] = "backend"
    at: datetime


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
