"""What a game contributes to the studio: a judge of device events and an outcome function.

The round lifecycle in studio/ is the same for every game. A game only says,
from the device events it sees, when a round opens, when betting closes, when
play starts, what the result is (or why it cannot be trusted), and which bet
spots a result wins. Everything here is pure: no I/O, no clock, no randomness.
"""
from __future__ import annotations

from typing import Any, Literal, Protocol, Union

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


class Note(_Decision):
    """Something worth journaling and showing that changes no state (e.g. a launch retry)."""

    kind: Literal["note"] = "note"
    code: str
    message: str


Decision = Union[OpenRound, CloseBetting, StartPlay, ResultReady, Hold, Release, Void, SendCommand, Note]


class Judge(Protocol):
    """Turns one table's device events, in order, into decisions."""

    def feed(self, event: DeviceEvent) -> list[Decision]: ...


class GameRules(Protocol):
    game_id: str
    #: device kinds whose events the judge understands
    device_kinds: tuple[str, ...]

    def new_judge(self, **settings: Any) -> Judge: ...

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """Return the result in canonical form, or raise ValueError saying what is wrong."""
        ...

    def outcome(self, result: dict[str, Any]) -> dict[str, Any]:
        """The winning bet spots of a validated result with their payouts."""
        ...
