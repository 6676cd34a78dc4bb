"""Roulette rules: wheels, the bet spots of the layout, outcomes and payouts. Pure.

The authority is seed 000 lines 85-187 (digest: shared/rules-digest/seed-A.md §1).
Everything a variant changes is data:

* a :class:`Wheel` says which pockets exist (the zeros), their order around the
  wheel, which numbers are red, and the bets the zeros take part in on the
  layout (European: splits 0-1/0-2/0-3, trios 0-1-2/0-2-3, first four 0-1-2-3;
  American: 0-00 splits and trios and the Five Bet);
* :class:`RouletteRules` turns a wheel into the game contract of
  :mod:`recognition.game`; its ``la_partage`` switch returns half of the
  even-money stakes on a zero (seed L187), written as the exact fraction
  ``"1/2"`` (feed messages carry no floats).

The judge reads only the vendor-neutral wheel events of :mod:`devices.events`, so any
wheel driver plays these games: a wheel alone is judged by
:class:`recognition.wheel_judge.WheelJudge`; a table that also has an overhead camera,
checks the ball's revolutions or starts the wheel's games itself (auto-roulette) gets
:class:`recognition.roulette_variants.table_judge.RouletteTableJudge`, which wraps the
wheel judge (docs/roulette.md). Lightning and Double Ball Roulette
are in :mod:`recognition.roulette_variants`.

Numbers 1-36 sit on the same 12 x 3 grid in every variant (row r holds
3r+1, 3r+2, 3r+3; column 1 is 1, 4, ..., 34 as in seed L108), so the inside bets
among them are derived from the grid and only the bets touching a zero are
listed per wheel.

Bet spot ids are stable strings: ``straight:17``, ``split:17-20``,
``street:1-2-3`` (also the trios ``street:0-1-2``), ``corner:1-2-4-5`` (also the
first four ``corner:0-1-2-3``), ``six_line:1-2-3-4-5-6``, ``five_bet:0-00-1-2-3``,
``dozen:1``..``dozen:3``, ``column:1``..``column:3``, and the even-money spots
``low``, ``high``, ``red``, ``black``, ``odd``, ``even``. The numbers inside an id
are in layout order (zeros first, then ascending).

Payouts are net odds to 1 (seed L101-111, read as the standard net odds; the
seed's "tripled"/"doubled" wording for dozens, columns and even chances is
gross, see the digest).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from recognition import equipment
from recognition.game import BaseGame, Judge

GREEN, RED, BLACK = "green", "red", "black"

#: what la partage returns of an even-money stake on a zero (seed L187: "half of the bet"), exact
HALF = "1/2"

#: net odds to 1, per bet type
PAYOUTS: dict[str, int] = {
    "straight": 35,
    "split": 17,
    "street": 11,  # three numbers in a row, and the trios with a zero
    "corner": 8,  # four numbers, and the European first four 0-1-2-3
    "five_bet": 6,  # American 0-00-1-2-3 (seed L183)
    "six_line": 5,
    "dozen": 2,
    "column": 2,
    "even_money": 1,  # low/high, red/black, odd/even
}

#: the order in which spots are listed (and winning bets sorted)
BET_TYPES: tuple[str, ...] = tuple(PAYOUTS)

_NUMBERS = tuple(str(n) for n in range(1, 37))


@dataclass(frozen=True)
class BetSpot:
    id: str
    type: str
    numbers: tuple[str, ...]
    payout: int  # net odds to 1

    def as_dict(self) -> dict[str, Any]:
        return {"bet": self.id, "type": self.type, "numbers": list(self.numbers), "payout": self.payout}


@dataclass(frozen=True)
class Wheel:
    name: str
    zeros: tuple[str, ...]
    #: pockets in wheel order, starting at 0
    order: tuple[str, ...]
    red: frozenset[str]
    #: inside bets that include a zero, as (bet type, numbers in layout order)
    zero_bets: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def pockets(self) -> tuple[str, ...]:
        """Every pocket in layout order: the zeros, then 1..36."""
        return self.zeros + _NUMBERS

    def color(self, pocket: str) -> str:
        if pocket in self.zeros:
            return GREEN
        return RED if pocket in self.red else BLACK

    def pocket(self, value: Any) -> str:
        """The pocket label for a result's number (a label or an int), or ValueError saying why not."""
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError(
                f"the number must be a pocket label such as '17' or an integer, not {type(value).__name__} {value!r}"
            )
        label = str(value)
        if label in self.pockets:
            return label
        if isinstance(value, int):
            raise ValueError(f"{value} is not a pocket of the {self.name} wheel ({self._describe()})")
        if label in ("00", "000", "0000"):
            raise ValueError(
                f"{label!r} is not a pocket of the {self.name} wheel ({self._describe()}); "
                "is the wheel set up for another roulette variant?"
            )
        canonical = label.strip().lstrip("0") or "0"  # " 6" -> "6", "07" -> "7", "0 " -> "0"
        if label.strip() and canonical in self.pockets:
            raise ValueError(f"{label!r} is not a pocket label; write {canonical!r}")
        raise ValueError(f"{label!r} is not a pocket of the {self.name} wheel ({self._describe()})")

    def _describe(self) -> str:
        return "pockets " + ", ".join(repr(z) for z in self.zeros) + " and '1'..'36'"


_RED = frozenset(str(n) for n in (1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36))

EUROPEAN = Wheel(
    name="European single-zero",
    zeros=("0",),
    order=tuple(
        str(n)
        for n in (
            0,
            32,
            15,
            19,
            4,
            21,
            2,
            25,
            17,
            34,
            6,
            27,
            13,
            36,
            11,
            30,
            8,
            23,
            10,
            5,
            24,
            16,
            33,
            1,
            20,
            14,
            31,
            9,
            22,
            18,
            29,
            7,
            28,
            12,
            35,
            3,
            26,
        )
    ),
    red=_RED,
    zero_bets=(
        ("split", ("0", "1")),
        ("split", ("0", "2")),
        ("split", ("0", "3")),
        ("street", ("0", "1", "2")),
        ("street", ("0", "2", "3")),
        ("corner", ("0", "1", "2", "3")),
    ),
)

# The zero bets of the American layout (0 above 1-2, 00 above 2-3) follow the
# common US table; the seed names only the Five Bet (L183). Casinos differ on the
# 0-2 / 00-2 splits: change the data, not the code.
AMERICAN = Wheel(
    name="American double-zero",
    zeros=("0", "00"),
    order=(
        "0",
        "28",
        "9",
        "26",
        "30",
        "11",
        "7",
        "20",
        "32",
        "17",
        "5",
        "22",
        "34",
        "15",
        "3",
        "24",
        "36",
        "13",
        "1",
        "00",
        "27",
        "10",
        "25",
        "29",
        "12",
        "8",
        "19",
        "31",
        "18",
        "6",
        "21",
        "33",
        "16",
        "4",
        "23",
        "35",
        "14",
        "2",
    ),
    red=_RED,
    zero_bets=(
        ("split", ("0", "00")),
        ("split", ("0", "1")),
        ("split", ("0", "2")),
        ("split", ("00", "2")),
        ("split", ("00", "3")),
        ("street", ("0", "1", "2")),
        ("street", ("0", "00", "2")),
        ("street", ("00", "2", "3")),
        ("five_bet", ("0", "00", "1", "2", "3")),
    ),
)


def _grid_bets() -> list[tuple[str, tuple[int, ...]]]:
    """Inside bets among 1..36 on the 12 x 3 grid (n is in column (n-1) % 3, row (n-1) // 3)."""
    bets: list[tuple[str, tuple[int, ...]]] = []
    for n in range(1, 37):
        if n % 3:  # not in the third column: a neighbour to the right
            bets.append(("split", (n, n + 1)))
        if n <= 33:  # a neighbour in the next row
            bets.append(("split", (n, n + 3)))
        if n % 3 and n <= 32:
            bets.append(("corner", (n, n + 1, n + 3, n + 4)))
    for row in range(12):
        first = 3 * row + 1
        bets.append(("street", (first, first + 1, first + 2)))
        if row < 11:
            bets.append(("six_line", tuple(range(first, first + 6))))
    return bets


@cache
def bet_spots(wheel: Wheel) -> tuple[BetSpot, ...]:
    """Every bet spot of the wheel's layout, in a stable order (type, then layout order)."""
    index = {p: i for i, p in enumerate(wheel.pockets)}

    def spot(type_: str, numbers: tuple[str, ...], spot_id: str | None = None) -> BetSpot:
        numbers = tuple(sorted(numbers, key=index.__getitem__))
        return BetSpot(spot_id or f"{type_}:" + "-".join(numbers), type_, numbers, PAYOUTS[type_])

    spots = [spot("straight", (p,)) for p in wheel.pockets]
    spots += [spot(t, tuple(str(n) for n in ns)) for t, ns in _grid_bets()]
    spots += [spot(t, ns) for t, ns in wheel.zero_bets]
    for i in range(3):
        spots.append(spot("dozen", tuple(str(n) for n in range(12 * i + 1, 12 * i + 13)), f"dozen:{i + 1}"))
        spots.append(spot("column", tuple(str(n) for n in range(i + 1, 37, 3)), f"column:{i + 1}"))
    even_money = {  # in this order in the spot list
        "low": lambda n: n <= 18,
        "high": lambda n: n >= 19,
        "red": lambda n: str(n) in wheel.red,
        "black": lambda n: str(n) not in wheel.red,
        "odd": lambda n: n % 2 == 1,
        "even": lambda n: n % 2 == 0,
    }
    spots += [
        spot("even_money", tuple(str(n) for n in range(1, 37) if wins(n)), name)
        for name, wins in even_money.items()
    ]
    order = {t: i for i, t in enumerate(BET_TYPES)}
    named = list(even_money)

    def key(s: BetSpot) -> tuple[int, int, list[int]]:
        return (order[s.type], named.index(s.id) if s.id in named else -1, [index[n] for n in s.numbers])

    return tuple(sorted(spots, key=key))


@cache
def _winners(wheel: Wheel) -> dict[str, tuple[BetSpot, ...]]:
    spots = bet_spots(wheel)
    return {p: tuple(s for s in spots if p in s.numbers) for p in wheel.pockets}


class RouletteRules(BaseGame):
    """The game contract (:class:`recognition.game.GameRules`) for one roulette variant.

    Subclasses set ``game_id``, ``wheel`` and, for la partage, ``la_partage``.
    """

    game_id: str = ""
    #: any roulette wheel (a driver of the "roulette-wheel" family: its own number, phases and timings)
    #: and, optionally, an overhead camera (devices/overhead_camera) that cross-checks the number and
    #: counts the ball's revolutions
    device_kinds: tuple[str, ...] = ("roulette-wheel", "roulette-camera")
    wheel: Wheel = EUROPEAN
    #: on a zero, half of every even-money stake is returned (seed L187)
    la_partage: bool = False
    #: balls thrown per spin (Double Ball Roulette: 2, which needs the camera)
    balls: int = 1
    #: table settings this game's draw_extras reads (not the judge's)
    draw_settings: frozenset[str] = frozenset()
    #: judge with :class:`RouletteTableJudge` even without table settings, so the ball-revolution
    #: check (default 4) applies to every wheel (docs/roulette.md, "Ball revolutions")
    uses_table_judge: bool = True
    #: the judge setting saying how much faster than real time the wheel's events come (a simulator at speed N)
    time_scale_setting: str = "wheel_time_scale"
    #: judge settings for events without real timings (a capture replayed from a file): no revolution count
    untimed_settings: ClassVar[dict[str, Any]] = {"min_ball_revolutions": 0}

    @property
    def spots(self) -> tuple[BetSpot, ...]:
        return bet_spots(self.wheel)

    def equipment_reading(
        self, result: Mapping[str, Any], source: Mapping[str, Any]
    ) -> list[tuple[str, str]]:
        return equipment.wheel_reading(self.wheel.order, equipment.roulette_pockets(result))

    def equipment_odds(self, quantity: str, settings: Mapping[str, Any]) -> Mapping[str, float] | None:
        return equipment.wheel_odds(self.wheel.order, quantity)

    def spot(self, spot_id: str) -> BetSpot:
        for s in self.spots:
            if s.id == spot_id:
                return s
        raise ValueError(f"{spot_id!r} is not a bet spot of {self.game_id}")

    def new_judge(self, **settings: Any) -> Judge:
        """A spin judge for the wheel; it refuses numbers this wheel does not have.

        Without table settings beyond the wheel judge's own, that is :class:`WheelJudge`
        itself. A camera (``camera = true``), a minimum of ball revolutions
        (``min_ball_revolutions``), ``auto_start`` or a second ball make it a
        :class:`RouletteTableJudge` around the wheel judge (settings: docs/roulette.md).
        A misspelt setting is a TypeError, never ignored.
        """
        # the judges (device events, pydantic) on first use: the rules alone (`studio evaluate`) need none
        from recognition.roulette_variants.table_judge import TABLE_SETTINGS, RouletteTableJudge
        from recognition.wheel_judge import WheelJudge

        settings = {k: v for k, v in settings.items() if k not in self.draw_settings}
        settings.setdefault("pockets", self.wheel.pockets)
        table = {k: settings.pop(k) for k in list(settings) if k in TABLE_SETTINGS}
        if self.balls == 1 and not table and not self.uses_table_judge:
            return WheelJudge(**settings)
        return RouletteTableJudge(
            balls=self.balls, pockets=self.wheel.pockets, wheel_settings=settings, **table
        )

    def check_devices(self, settings: Mapping[str, Any], kinds: Mapping[str, str]) -> None:
        """A table's devices (role -> kind) against its settings, for the studio's configuration check.

        The judge tells the overhead camera from the wheel by the device's role (both speak the same
        neutral wheel events), so a camera must have the role the judge reads (``camera_role``), the
        wheel the one its commands name (``wheel_role``), and there is one of each at most; a table that
        must cross-check with the camera (``camera = true``, two balls) needs one.
        """
        camera_role = settings.get("camera_role", "camera")
        wheel_role = settings.get("wheel_role", "wheel")
        cameras = sorted(role for role, kind in kinds.items() if kind == "roulette-camera")
        wheels = sorted(role for role, kind in kinds.items() if kind != "roulette-camera")
        if len(cameras) > 1:
            raise ValueError(
                f"a roulette table has one overhead camera at most, not {len(cameras)} ({cameras})"
            )
        if len(wheels) > 1:
            raise ValueError(f"a roulette table has one wheel, not {len(wheels)} ({wheels})")
        if cameras and cameras[0] != camera_role:
            raise ValueError(
                f"the overhead camera has the role {cameras[0]!r} but the judge reads the camera of role "
                f"{camera_role!r}: rename the device or set camera_role = {cameras[0]!r}"
            )
        if cameras and wheels and wheels[0] != wheel_role:
            raise ValueError(
                f"the wheel has the role {wheels[0]!r} but the judge sends its commands to {wheel_role!r}: "
                f"rename the device or set wheel_role = {wheels[0]!r}"
            )
        if settings.get("camera", self.balls == 2) is True and not cameras:
            raise ValueError("the camera must confirm every number here: add a roulette-camera device")

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """``{"number": "17"}`` (or 17) -> ``{"number": "17", "color": "black"}``.

        Other keys (such as the judge's ``game_counter``) are not part of the
        canonical result and are dropped; a ``color`` that is given must agree.
        """
        if not isinstance(result, dict):
            raise ValueError(
                f"a roulette result is a dict like {{'number': '17'}}, not {type(result).__name__}"
            )
        if "number" not in result:
            raise ValueError("a roulette result needs a 'number': the winning pocket, e.g. {'number': '17'}")
        number = self.wheel.pocket(result["number"])
        color = self.wheel.color(number)
        if "color" in result and result["color"] != color:
            raise ValueError(f"pocket {number} is {color}, not {result['color']!r}")
        return {"number": number, "color": color}

    def outcome(self, result: dict[str, Any], extras: dict[str, Any] | None = None) -> dict[str, Any]:
        """Every winning bet spot of a result, in the stable spot order.

        On a zero every even-money bet loses (seed L99); with la partage the
        outcome also lists them under ``half_back_bets`` with ``"returned": "1/2"``
        (half the stake returned, as an exact fraction: no floats on the feed).
        """
        canonical = self.validate_result(result)
        number = canonical["number"]
        out: dict[str, Any] = {
            **canonical,
            "winning_bets": [s.as_dict() for s in _winners(self.wheel)[number]],
        }
        if self.la_partage:
            out["half_back_bets"] = (
                [
                    {"bet": s.id, "type": s.type, "numbers": list(s.numbers), "returned": HALF}
                    for s in self.spots
                    if s.type == "even_money"
                ]
                if number in self.wheel.zeros
                else []
            )
        return out


class EuropeanRoulette(RouletteRules):
    game_id = "european_roulette"
    wheel = EUROPEAN


class AmericanRoulette(RouletteRules):
    game_id = "american_roulette"
    wheel = AMERICAN


class LaPartageRoulette(RouletteRules):
    """Auto-Roulette La Partage / French Roulette Gold (seed L185-187): European, half back on 0."""

    game_id = "la_partage_roulette"
    wheel = EUROPEAN
    la_partage = True


GAMES = {g.game_id: g for g in (EuropeanRoulette(), AmericanRoulette(), LaPartageRoulette())}
