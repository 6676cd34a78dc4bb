"""What every dice game shares: reading faces, payouts as exact values, the judge hook. Pure.

Faces are ints 1..6. A result may also carry them as one-digit numeric strings
("1".."6"), which are accepted and turned into ints; everything else (bools,
floats such as 3.0, "07", " 3", None, 0, 7) is refused with a ValueError that
says what is wrong and where.

Payouts are net odds to 1 (the stake comes back on top): an ``int`` when whole,
otherwise an exact fraction in a string such as ``"7/6"``. Feed messages carry no
floats (docs/feed.md), so no payout is ever a float.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any, ClassVar

from recognition import equipment
from recognition.game import BaseGame, Pacing
from recognition.payouts import (
    Payout,
    as_fraction,  # noqa: F401 - re-exported: the settlement tests use it
    payout,
)

FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
_FACE_STRINGS = {str(f): f for f in FACES}


def read_face(value: Any, where: str) -> int:
    """One die's face as an int 1..6, or ValueError naming ``where`` (e.g. "die 2 of 3")."""
    if isinstance(value, bool):
        raise ValueError(f"{where} is {value!r}: a face is an integer 1..6, not a bool")
    if isinstance(value, int):
        if value in FACES:
            return value
        raise ValueError(f"{where} is {value}: a die shows 1..6")
    if isinstance(value, str):
        if value in _FACE_STRINGS:
            return _FACE_STRINGS[value]
        raise ValueError(f"{where} is {value!r}: a face is an integer 1..6 or one of the strings '1'..'6'")
    raise ValueError(f"{where} is {type(value).__name__} {value!r}: a face is an integer 1..6")


def read_faces(value: Any, count: int, what: str) -> list[int]:
    """``count`` faces from a list (or tuple), in ascending order; ``what`` names the list in errors."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        example = list(range(1, count + 1))
        raise ValueError(
            f"{what} must be a list of {count} faces such as {example}, not {type(value).__name__} {value!r}"
        )
    if len(value) != count:
        raise ValueError(f"{what} must hold exactly {count} faces, not {len(value)}: {list(value)!r}")
    return sorted(read_face(v, f"{what}: die {i + 1} of {count}") for i, v in enumerate(value))


def require_dict(result: Any, game: str, example: str) -> dict[str, Any]:
    if not isinstance(result, Mapping):
        raise ValueError(
            f"a {game} result is an object like {example}, not {type(result).__name__} {result!r}"
        )
    return dict(result)


def require_key(result: Mapping[str, Any], key: str, game: str, example: str) -> Any:
    if key not in result:
        raise ValueError(f"a {game} result needs {key!r}: {example}")
    return result[key]


def check_derived(result: Mapping[str, Any], key: str, value: Any) -> None:
    """A derived value (a total, ...) that a result carries must agree with the dice."""
    if key in result and result[key] != value:
        raise ValueError(f"the result says {key} = {result[key]!r}, but the dice give {value!r}")


@dataclass(frozen=True)
class BetSpot:
    """One bet spot of a layout: a stable id, its bet type, where the seed names it, its payout."""

    id: str
    type: str
    #: where the bet is named, e.g. "seed 000 L2689"; "standard" where the seed only names the game
    source: str
    #: net odds to 1 as printed on the layout; None where they depend on the throw (see ``pays``)
    payout: Payout | None
    #: the payouts in words where they depend on the throw
    pays: str = ""

    def as_dict(self) -> dict[str, Any]:
        out = {"bet": self.id, "type": self.type, "source": self.source, "payout": self.payout}
        if self.pays:
            out["pays"] = self.pays
        return out


def won(spot_id: str, type_: str, pays: int | Fraction, **more: Any) -> dict[str, Any]:
    return {"bet": spot_id, "type": type_, "payout": payout(pays), **more}


def returned(spot_id: str, type_: str, share: int | Fraction) -> dict[str, Any]:
    """A bet that does not win but gets ``share`` of its stake back (1 = push)."""
    return {"bet": spot_id, "type": type_, "returned": payout(share)}


class DiceGame(BaseGame):
    """Defaults for the dice games: dealer-paced, read by a dice camera, judged by the vision's DiceJudge."""

    pacing: Pacing = "dealer"
    device_kinds: tuple[str, ...] = ("dice-camera",)
    #: how many dice the judge must read, and their colours (None: plain dice of one colour)
    judge_dice: int = 0
    judge_colors: tuple[str, ...] | None = None
    #: a game whose result groups its dice by side: side -> the colour of that side's dice (Bac Bo); empty
    #: for a game of one group
    side_colors: ClassVar[Mapping[str, str]] = MappingProxyType({})

    def equipment_reading(
        self, result: Mapping[str, Any], source: Mapping[str, Any]
    ) -> list[tuple[str, str]]:
        return equipment.dice_reading(result, source)

    def equipment_odds(self, quantity: str, settings: Mapping[str, Any]) -> Mapping[str, float] | None:
        return equipment.dice_odds(quantity)

    @property
    def spots(self) -> tuple[BetSpot, ...]:
        raise NotImplementedError

    def spot(self, spot_id: str) -> BetSpot:
        for s in self.spots:
            if s.id == spot_id:
                return s
        raise ValueError(f"{spot_id!r} is not a bet spot of {self.game_id}")

    def new_judge(self, **settings: Any) -> Any:
        """The vision engineer's dice judge, told how many dice (and which colours) this game reads.

        Imported lazily: the recognition package must load (and `studio evaluate`
        must work) on machines without the vision stack.
        """
        from recognition.dice.judge import DiceJudge

        return DiceJudge(game=self, **self.judge_settings(settings))

    def judge_settings(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        settings = dict(settings)
        if settings.setdefault("dice", self.judge_dice) != self.judge_dice:
            raise ValueError(
                f"{self.game_id} is played with {self.judge_dice} dice, "
                f"not {settings['dice']!r} (remove 'dice' from the judge settings)"
            )
        settings.setdefault("colors", self.judge_colors)
        return settings

    def make_result(self, dice: Any) -> dict[str, Any]:
        """The canonical result from what a camera read (see each game); ValueError if it cannot be one."""
        raise NotImplementedError
