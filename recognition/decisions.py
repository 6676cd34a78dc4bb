"""The decisions a judge takes and the signals and player decisions it is fed: pydantic models, frozen.

`recognition.game` re-exports every name here, imported on first use, so that a module needing only a game's
rules (`studio evaluate`, the game registry) does not load pydantic.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict


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
