"""Monopoly Live: 54 segments (1 2 5 10, Chance, 2 Rolls, 4 Rolls) and the Monopoly bonus game. Pure.

Seed 000 L1861-1941 (digest seed-B §8). Every choice the seed leaves open is listed in
docs/money-wheels.md; in short:

* Segments (L1933-1940): 1 x22, 2 x15, 5 x7, 10 x4, Chance x2, 2 Rolls x3, 4 Rolls x1. Order and
  colours NOT GIVEN: the default order spreads them evenly; a table gives its wheel's in ``layout``.
* A number pays its number to 1 and the stake comes back (L1869: 1,000 on 5 -> 6,000).
* Chance (L1871-1887): a card with a cash prize or a multiplier, drawn by the studio's secure
  generator when the round opens and committed before betting closes (``extras.chance``).
  - multiplier m: the bets stand for the next spin (``bets_stand``), whose win is multiplied by m;
    multipliers stack over repeated Chance stops (L1883, L1887): ``next_multipliers``.
  - cash prize c (in stakes; the seed's amounts are in EUR): paid at once, as L1877 says (L1885's
    example, which adds it to the next spin's win, contradicts L1877): every number bet (1, 2, 5,
    10) wins c to 1, times the multipliers in force; 2 Rolls and 4 Rolls lose. Who is paid is not
    stated: ours.
* 2 Rolls / 4 Rolls (L1889-1921): only those bets play the bonus game. The dice: the seed does
  not say whether they are physical. Setting ``bonus_dice`` (docs/money-wheels.md):
  - ``"generator"`` (default): the bonus game's dice are drawn by the secure generator with
    everything else random in it (the buildings and hotels "automatically created ... randomly",
    L1911; the Chance and Community Chest card amounts, L1913), once for each of the two bonus
    games, when the round opens, and committed (``extras.bonus = {spot: {buildings, dice, cards}}``).
  - ``"camera"`` (a table with a ``dice-camera``): the presenter throws two physical dice, each throw
    read at rest by the dice camera (recognition.dice's DiceJudge, settings ``bonus_camera``); only
    the buildings and a deck of card amounts are drawn and committed at round open
    (``extras.bonus = {spot: {buildings, cards}}``: the walk takes the cards in order, the rest
    stay unused), and the read dice are in the result (``bonus_dice``). :class:`MonopolyCameraJudge`.
  The outcome replays the walk from these, so an auditor recomputes it (``studio evaluate`` with
  the extras, and ``bonus_dice`` for the camera variant).
* The board and its values: the seed names the fields (L1907) but gives no values: ours (BOARD,
  GROUP_VALUE, BUILDING_FACTOR, CARD_VALUES). The walk: Mr. Monopoly starts on GO; each roll
  moves him the sum of the dice (L1901); a Property, Railway or Free Parking adds its value
  (in stakes) to the bonus win (L1909); Chance and Community Chest add a card's amount (L1913);
  Income Tax takes 1/10 of the stake, Super Tax (Luxury Tax) 1/5 (L1915) and a Utility 1/10 (ours:
  the seed gives no amount), each only if the bonus win so far covers it (L1913-1915); stopping on
  GO doubles every field's value (L1917); a double gives an extra roll (L1899, L1919), except the
  double that gets him out of Jail; Go to Jail: the next roll must be a double or the bonus game
  ends, the win so far kept (L1921). The bonus bet pays the bonus win to 1, times the
  multipliers in force, and the stake comes back (L1903).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

from recognition.game import BaseJudge

from .base import (
    MoneyWheelGame,
    WheelSettings,
    draw,
    need_extras,
    payout,
    product,
    read_draw_table,
    read_fraction,
    won,
)

if TYPE_CHECKING:
    from devices.camera.events import CameraFrame, CameraStatus
    from recognition.game import Decision, ResultReady, RoundSignal

NUMBERS = ("1", "2", "5", "10")
CHANCE, TWO_ROLLS, FOUR_ROLLS = "chance", "2_rolls", "4_rolls"
BONUS_DICE = ("generator", "camera")
DICE_CAMERA = "dice-camera"
#: what ``bonus_camera`` takes: the dice judge's settings (recognition/dice/judge.py), and the cameras' roles
CAMERA_SETTINGS = (
    "roles",
    "calibration",
    "calibrations",
    "cameras",
    "colors",
    "stable_frames",
    "hold_after_s",
    "move_tolerance",
    "min_confidence",
    "evidence_keep",
)
ROLLS = {TWO_ROLLS: 2, FOUR_ROLLS: 4}

# (name, kind, group) for the 40 fields, GO first, in the order he walks
BOARD: tuple[tuple[str, str, str], ...] = (
    ("GO", "go", ""),
    ("Mediterranean Avenue", "property", "brown"),
    ("Community Chest", "chest", ""),
    ("Baltic Avenue", "property", "brown"),
    ("Income Tax", "tax", "income"),
    ("Reading Railroad", "railway", ""),
    ("Oriental Avenue", "property", "light_blue"),
    ("Chance", "chance", ""),
    ("Vermont Avenue", "property", "light_blue"),
    ("Connecticut Avenue", "property", "light_blue"),
    ("Jail", "jail", ""),
    ("St. Charles Place", "property", "pink"),
    ("Electric Company", "utility", ""),
    ("States Avenue", "property", "pink"),
    ("Virginia Avenue", "property", "pink"),
    ("Pennsylvania Railroad", "railway", ""),
    ("St. James Place", "property", "orange"),
    ("Community Chest", "chest", ""),
    ("Tennessee Avenue", "property", "orange"),
    ("New York Avenue", "property", "orange"),
    ("Free Parking", "parking", ""),
    ("Kentucky Avenue", "property", "red"),
    ("Chance", "chance", ""),
    ("Indiana Avenue", "property", "red"),
    ("Illinois Avenue", "property", "red"),
    ("B. & O. Railroad", "railway", ""),
    ("Atlantic Avenue", "property", "yellow"),
    ("Ventnor Avenue", "property", "yellow"),
    ("Water Works", "utility", ""),
    ("Marvin Gardens", "property", "yellow"),
    ("Go to Jail", "gotojail", ""),
    ("Pacific Avenue", "property", "green"),
    ("North Carolina Avenue", "property", "green"),
    ("Community Chest", "chest", ""),
    ("Pennsylvania Avenue", "property", "green"),
    ("Short Line", "railway", ""),
    ("Chance", "chance", ""),
    ("Park Place", "property", "dark_blue"),
    ("Super Tax", "tax", "super"),
    ("Boardwalk", "property", "dark_blue"),
)
JAIL = 10
#: value of a field in stakes (ours)
GROUP_VALUE = {
    "brown": 1,
    "light_blue": 2,
    "pink": 3,
    "orange": 4,
    "red": 5,
    "yellow": 6,
    "green": 8,
    "dark_blue": 10,
    "railway": 5,
    "parking": 8,
}
#: a property's value times this for 0-4 houses and a hotel (5) (ours)
BUILDING_FACTOR = (1, 2, 3, 5, 8, 15)
BUILDING_WEIGHTS = ((0, 40), (1, 25), (2, 15), (3, 10), (4, 6), (5, 4))
CARD_VALUES = ((1, 30), (2, 25), (3, 15), (5, 15), (10, 10), (20, 5))
TAX = {"income": Fraction(1, 10), "super": Fraction(1, 5), "utility": Fraction(1, 10)}
PROPERTIES = tuple(i for i, (_, kind, _) in enumerate(BOARD) if kind == "property")
CHANCE_MULTIPLIERS = [2, 3, 4, 5, 10]
CHANCE_CASH = [5, 10, 15, 20, 25, 50]
MAX_ROLLS = 64  # a bonus game stops after this many rolls (doubles forever: probability 6^-60)


def field_value(pos: int, buildings: Sequence[int]) -> Fraction:
    _, kind, group = BOARD[pos]
    if kind == "property":
        return Fraction(GROUP_VALUE[group] * BUILDING_FACTOR[buildings[PROPERTIES.index(pos)]])
    if kind in ("railway", "parking"):
        return Fraction(GROUP_VALUE[kind])
    return Fraction(0)


def play_bonus(
    rolls: int,
    buildings: Sequence[int],
    dice: Sequence[Sequence[int]],
    cards: Sequence[int],
    *,
    deck: bool = False,
) -> dict[str, Any]:
    """Replay a recorded bonus game: the walk, step by step, and the bonus win in stakes.

    The draws must be used up exactly: a recorded game with a roll or a card too many or too few is refused.
    ``deck`` (the camera variant): ``cards`` is the committed deck, taken in order; the rest stays unused."""
    d_iter, c_iter = iter(dice), iter(cards)

    def roll() -> tuple[int, int]:
        try:
            return _pair(next(d_iter))
        except StopIteration:
            raise ValueError(f"the bonus game needs more dice than the {len(dice)} rolls recorded") from None

    def card() -> int:
        try:
            return _whole(next(c_iter), "a card amount")
        except StopIteration:
            raise ValueError(
                f"the bonus game needs more card amounts than the {len(cards)} recorded"
            ) from None

    played = walk(rolls, buildings, roll, card)
    if played["dice_used"] != len(dice) or (played["cards_used"] != len(cards) and not deck):
        raise ValueError(
            f"the recorded bonus game has {len(dice) - played['dice_used']} roll(s) and "
            f"{len(cards) - played['cards_used']} card amount(s) more than the walk uses"
        )
    return played


class _NeedRoll(Exception):
    """The walk needs a roll that has not been thrown yet."""


def bonus_progress(rolls: int, dice: Sequence[Sequence[int]]) -> dict[str, Any]:
    """How far a bonus game has come with the rolls read so far (the walk's moves depend on the dice only).

    ``{"over": bool, "steps": [...], "position": field, "in_jail": bool}``; "over" with as many rolls as
    the game uses (a roll too many raises ValueError). The steps' wins are not the real ones (no cards)."""
    d_iter = iter(dice)

    def roll() -> tuple[int, int]:
        try:
            return _pair(next(d_iter))
        except StopIteration:
            raise _NeedRoll() from None

    record: list[dict[str, Any]] = []

    def card() -> int:
        return 0

    no_buildings = [0] * len(PROPERTIES)
    try:
        played = walk(rolls, no_buildings, roll, card, record)
    except _NeedRoll:
        last = record[-1] if record else {}
        jail = str(last.get("event", "")).startswith("go to jail")
        return {
            "over": False,
            "steps": record,
            "position": JAIL if jail else last.get("field", 0),
            "in_jail": jail,
        }
    if played["dice_used"] != len(dice):
        raise ValueError(
            f"the bonus game ended after {played['dice_used']} roll(s); {len(dice)} were recorded"
        )
    return {
        "over": True,
        "steps": record,
        "position": record[-1].get("field", 0) if record else 0,
        "in_jail": False,
    }


def walk(
    rolls: int,
    buildings: Sequence[int],
    roll: Callable[[], tuple[int, int]],
    card: Callable[[], int],
    steps: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Mr. Monopoly's walk (the rules in the module docstring); ``roll`` and ``card`` give the draws in order.

    ``steps``: the list the steps are appended to (so a caller sees them when ``roll`` raises)."""
    if len(buildings) != len(PROPERTIES) or any(isinstance(b, bool) or b not in range(6) for b in buildings):
        raise ValueError(f"buildings: one level 0-5 for each of the {len(PROPERTIES)} properties")
    pos, total, doubling = 0, Fraction(0), 1
    left, in_jail, used_dice, used_cards = rolls, False, 0, 0
    steps = [] if steps is None else steps
    while left > 0 and used_dice < MAX_ROLLS:
        a, b = roll()
        used_dice += 1
        left -= 1
        step: dict[str, Any] = {"dice": [a, b]}
        if in_jail:
            if a != b:
                step["event"] = "no double in jail: the bonus game ends"
                steps.append(step)
                break
            in_jail = False
            step["event"] = "double: out of jail"
        elif a == b:
            left += 1
            step["extra_roll"] = True
        pos = (pos + a + b) % len(BOARD)
        name, kind, group = BOARD[pos]
        step.update(field=pos, name=name)
        gain = Fraction(0)
        if kind in ("property", "railway", "parking"):
            gain = field_value(pos, buildings) * doubling
        elif kind in ("chance", "chest"):
            gain = Fraction(card())
            used_cards += 1
        elif kind in ("tax", "utility"):
            tax = TAX[group if kind == "tax" else "utility"]
            if total >= tax:
                gain = -tax
            else:
                step["event"] = "tax not taken: the bonus win does not cover it"
        elif kind == "go":
            doubling *= 2
            step["event"] = "GO: every field's value doubles"
        elif kind == "gotojail":
            pos, in_jail = JAIL, True
            step["event"] = "go to jail: the next roll must be a double"
        total += gain
        step["win"] = payout(gain) if gain >= 0 else f"-{payout(-gain)}"
        step["total"] = payout(total)
        steps.append(step)
    return {"steps": steps, "win": total, "dice_used": used_dice, "cards_used": used_cards}


def _pair(value: Any) -> tuple[int, int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise ValueError(f"a roll is two dice like [3, 4], not {value!r}")
    a, b = (_whole(v, "a die") for v in value)
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise ValueError(f"a die shows 1..6: {list(value)!r}")
    return a, b


def _whole(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{what} is a whole number, not {v!r}")
    return v


class MonopolyLive(MoneyWheelGame):
    game_id = "monopoly_live"
    name = "Monopoly Live"
    segment_counts = (("1", 22), ("2", 15), ("5", 7), ("10", 4), (CHANCE, 2), (TWO_ROLLS, 3), (FOUR_ROLLS, 1))
    counts_from_seed = True
    carries_multipliers = True
    #: the wheel's sensors, and the dice camera that reads the bonus dice (``bonus_dice = "camera"``)
    device_kinds = ("wheel-encoder", "wheel-pointer", DICE_CAMERA)
    extra_settings = ("chance_multipliers", "chance_cash", "chance_cash_share", "bonus_dice", "bonus_camera")
    example = (
        "{'segment': '5', 'index': 17, 'multipliers': []} or {'segment': '2_rolls', 'bonus_dice': [[3, 4]]}"
    )

    # -- the bonus dice: generator or camera ------------------------------------------------------

    def bonus_mode(self, settings: Mapping[str, Any]) -> str:
        """The table's ``bonus_dice``: "generator" (default) or "camera"; ValueError on a bad combination."""
        mode = settings.get("bonus_dice", "generator")
        if mode not in BONUS_DICE:
            raise ValueError(f"bonus_dice is 'generator' or 'camera', not {mode!r}")
        if mode == "generator" and settings.get("bonus_camera") is not None:
            raise ValueError("bonus_camera (the dice camera's settings) is for bonus_dice = 'camera'")
        return mode

    def camera_settings(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """The dice judge's settings from ``bonus_camera`` (a table), checked."""
        value = settings.get("bonus_camera") or {}
        if not isinstance(value, Mapping):
            raise ValueError(
                "bonus_camera is a table of the dice camera's settings (calibration, stable_frames, ...)"
            )
        unknown = sorted(set(value) - set(CAMERA_SETTINGS))
        if unknown:
            raise ValueError(
                f"bonus_camera has no {', '.join(unknown)} (it takes {', '.join(CAMERA_SETTINGS)})"
            )
        roles = value.get("roles", ["dice"])
        if (
            isinstance(roles, str)
            or not isinstance(roles, Sequence)
            or not roles
            or not all(isinstance(r, str) and r for r in roles)
        ):
            raise ValueError('bonus_camera.roles lists the dice cameras\' roles, e.g. ["dice"]')
        colors = value.get("colors")
        if colors is not None and (
            isinstance(colors, str) or not isinstance(colors, Sequence) or len(colors) != 2
        ):
            raise ValueError(
                'bonus_camera.colors names the colour of each of the two dice, e.g. ["white", "white"]'
            )
        return dict(value)

    def check_devices(self, settings: Mapping[str, Any], kinds: Mapping[str, str]) -> None:
        """A table's devices (role -> kind) against its settings: a dice camera if and only if
        ``bonus_dice = "camera"``, and a wheel sensor. For the studio's configuration check."""
        mode = self.bonus_mode(settings)
        cameras = sorted(role for role, kind in kinds.items() if kind == DICE_CAMERA)
        if not any(kind in ("wheel-encoder", "wheel-pointer") for kind in kinds.values()):
            raise ValueError("a Monopoly Live table needs a wheel sensor (wheel-encoder or wheel-pointer)")
        if mode == "camera":
            if not cameras:
                raise ValueError("bonus_dice = 'camera' needs a dice-camera device on the table")
            wanted = self.camera_settings(settings)
            roles = list(wanted.get("roles", ["dice"]))
            missing = [r for r in cameras if r not in roles]
            if missing:
                raise ValueError(
                    f"the dice camera(s) {', '.join(missing)} are not in bonus_camera.roles {roles}"
                )
            if int(wanted.get("cameras", 1)) > len(cameras):
                raise ValueError(
                    f"bonus_camera.cameras = {wanted['cameras']} but the table has {len(cameras)}"
                )
        elif cameras:
            raise ValueError(
                "the table has a dice camera but bonus_dice is 'generator': set bonus_dice = 'camera' "
                "to read the bonus dice with it, or remove the camera"
            )

    def new_judge(self, **settings: Any) -> Any:
        mode = self.bonus_mode(settings)
        wheel = self.wheel_settings(settings)
        if mode == "generator":
            return super().new_judge(**settings)
        return MonopolyCameraJudge(self, wheel, self.camera_settings(settings))

    def bet_spots(self) -> list[dict[str, Any]]:
        return [
            {"bet": n, "type": "number", "source": "seed 000 L1869", "payout": int(n)} for n in NUMBERS
        ] + [
            {
                "bet": b,
                "type": "bonus",
                "source": "seed 000 L1893",
                "payout": None,
                "pays": "the bonus game's win to 1",
            }
            for b in (TWO_ROLLS, FOUR_ROLLS)
        ]

    # -- the computer draws -----------------------------------------------------------------------

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any]:
        s = self.wheel_settings(settings)
        share = read_fraction(
            s.game.get("chance_cash_share", "1/2"), "chance_cash_share", minimum=Fraction(0)
        )
        if share > 1:
            raise ValueError("chance_cash_share is a fraction 0..1")
        if rng.random() < share:
            card = {
                "type": "cash",
                "value": draw(rng, read_draw_table(s.game.get("chance_cash", CHANCE_CASH), "chance_cash")),
            }
        else:
            card = {
                "type": "multiplier",
                "value": draw(
                    rng,
                    read_draw_table(
                        s.game.get("chance_multipliers", CHANCE_MULTIPLIERS), "chance_multipliers", minimum=2
                    ),
                ),
            }
        if self.bonus_mode(settings) == "camera":
            return {"chance": card, "bonus": {spot: self.draw_board(rng) for spot in ROLLS}}
        return {"chance": card, "bonus": {spot: self.draw_bonus(rng, rolls) for spot, rolls in ROLLS.items()}}

    def draw_board(self, rng: random.Random) -> dict[str, Any]:
        """The camera variant's draws for one bonus game: the buildings, and a deck of card amounts (one for each
        roll the longest game can have), which the walk takes in order."""
        return {
            "buildings": [draw(rng, BUILDING_WEIGHTS) for _ in PROPERTIES],
            "cards": [draw(rng, CARD_VALUES) for _ in range(MAX_ROLLS)],
        }

    def draw_bonus(self, rng: random.Random, rolls: int) -> dict[str, Any]:
        """One bonus game's draws: the buildings, then the dice and card amounts as the walk needs them."""
        buildings = [draw(rng, BUILDING_WEIGHTS) for _ in PROPERTIES]
        dice: list[list[int]] = []
        cards: list[int] = []

        def roll() -> tuple[int, int]:
            dice.append([rng.randint(1, 6), rng.randint(1, 6)])
            return dice[-1][0], dice[-1][1]

        def card() -> int:
            cards.append(draw(rng, CARD_VALUES))
            return cards[-1]

        walk(rolls, buildings, roll, card)
        return {"buildings": buildings, "dice": dice, "cards": cards}

    # -- results ----------------------------------------------------------------------------------

    def validate_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """The common result, plus ``bonus_dice`` (camera variant, 2 Rolls / 4 Rolls only): every roll read, in
        order, as [a, b]; they must make exactly one whole bonus game."""
        if not isinstance(result, Mapping) or "bonus_dice" not in result:
            return super().validate_result(result)
        out = super().validate_result({k: v for k, v in result.items() if k != "bonus_dice"})
        label = out["segment"]
        if label not in ROLLS:
            raise ValueError(f"bonus_dice belong to a 2_rolls or 4_rolls result, not to {label!r}")
        value = result["bonus_dice"]
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
            raise ValueError("bonus_dice is the list of the rolls read, e.g. [[3, 4], [6, 6], [1, 2]]")
        rolls = [list(_pair(r)) for r in value]
        if not bonus_progress(ROLLS[label], rolls)["over"]:
            raise ValueError(f"the {len(rolls)} roll(s) in bonus_dice do not finish the {label} bonus game")
        return {**out, "bonus_dice": rolls}

    # -- outcome ----------------------------------------------------------------------------------

    fast_evaluate = True

    @cached_property
    def _fast_lines(self) -> Any:
        from .fast_bonus import MonopolyLines

        return MonopolyLines(self.evaluate)

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a round in the usual shape (recognition/money_wheel/fast_bonus.py)."""
        return self._fast_lines(line)

    def settle(self, result: dict[str, Any], extras: dict[str, Any] | None) -> dict[str, Any]:
        label, carried = result["segment"], result["multipliers"]
        m = product(carried)
        base = {"multiplier": m, "respin": False, "bets_stand": False, "next_multipliers": []}
        if label in NUMBERS:
            return {"winning_bets": [won(label, "number", int(label) * m)], **base}
        if label == CHANCE:
            card = self.read_card(need_extras(extras, "chance", self.name))
            if card["type"] == "multiplier":
                following = carried + [card["value"]]
                return {
                    "winning_bets": [],
                    "chance": card,
                    "multiplier": product(following),
                    "respin": True,
                    "bets_stand": True,
                    "next_multipliers": following,
                }
            return {
                "winning_bets": [won(n, "number", card["value"] * m, chance="cash") for n in NUMBERS],
                "chance": card,
                **base,
            }
        game = need_extras(extras, "bonus", self.name)
        if not isinstance(game, Mapping) or label not in game:
            raise ValueError(f"extras.bonus needs the drawn {label} bonus game")
        record = game[label]
        read = result.get("bonus_dice")
        if isinstance(record, Mapping) and set(record) == {"buildings", "cards"}:  # the dice camera's variant
            if read is None:
                raise ValueError(
                    f"this round's bonus dice were to be read by the dice camera: the {label} result "
                    "needs 'bonus_dice' (the rolls read, e.g. [[3, 4], [6, 6], [1, 2]])"
                )
            cards = record["cards"]
            if isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence):
                raise ValueError("extras.bonus.cards is the list of card amounts")
            played = play_bonus(ROLLS[label], record["buildings"], read, cards, deck=True)
            return {
                "winning_bets": [won(label, "bonus", played["win"] * m)],
                "bonus_game": {
                    "rolls": ROLLS[label],
                    "win": payout(played["win"]),
                    "steps": played["steps"],
                    "buildings": list(record["buildings"]),
                    "dice": "camera",
                    "cards_used": played["cards_used"],
                },
                **base,
            }
        if not isinstance(record, Mapping) or set(record) != {"buildings", "dice", "cards"}:
            raise ValueError(
                "a drawn bonus game is {buildings, dice, cards} (or {buildings, cards} when the dice "
                "camera reads the dice)"
            )
        if read is not None:
            raise ValueError(
                "this round's bonus dice were drawn by the secure generator (extras.bonus): the result "
                "has no 'bonus_dice'"
            )
        played = play_bonus(ROLLS[label], record["buildings"], record["dice"], record["cards"])
        return {
            "winning_bets": [won(label, "bonus", played["win"] * m)],
            "bonus_game": {
                "rolls": ROLLS[label],
                "win": payout(played["win"]),
                "steps": played["steps"],
                "buildings": list(record["buildings"]),
            },
            **base,
        }

    def read_card(self, card: Any) -> dict[str, Any]:
        if (
            not isinstance(card, Mapping)
            or set(card) != {"type", "value"}
            or card["type"] not in ("cash", "multiplier")
        ):
            raise ValueError("extras.chance is {type: 'cash' or 'multiplier', value}")
        value = _whole(card["value"], "extras.chance.value")
        if value < (2 if card["type"] == "multiplier" else 1):
            raise ValueError(f"extras.chance.value {value} is too small")
        return {"type": card["type"], "value": value}


class MonopolyCameraJudge(BaseJudge):
    """The money-wheel judge of a Monopoly Live table whose bonus dice are read by a dice camera.

    Pure, like both judges it combines: the wheel's :class:`MoneyWheelJudge` reads the spin; when the spin
    stops on 2 Rolls or 4 Rolls the round does not certify yet: a ``Note`` (``bonus_game``) tells the
    presenter to throw the two dice, and recognition.dice's :class:`DiceJudge` (two dice, the camera's
    settings from ``bonus_camera``) reads each throw at rest, exactly as at a dice table: a throw must
    move after the previous one was read, and an uncertain reading (a cocked, missing, stacked die, ...)
    holds the round with the dice judge's codes until the presenter throws again (the throw releases it)
    or a supervisor enters the whole result by hand. Each roll read moves the bonus game (``Note``
    ``bonus_roll``); when the game is over: ``ResultReady`` with the wheel's result plus ``bonus_dice``
    (every roll read, in order) and a source with the wheel's evidence plus each throw's camera evidence.

    Camera events while no bonus game is on change nothing but the dice judge's view of the camera (lost or
    back); they are never read. Devices are the dice camera's when they sent camera events or their role is
    in ``bonus_camera.roles`` (default ["dice"]); every other device is the wheel's.
    """

    def __init__(self, game: MonopolyLive, settings: WheelSettings, camera: Mapping[str, Any]) -> None:
        from recognition.dice.judge import DiceJudge

        from .judge import MoneyWheelJudge

        self.game = game
        self.wheel = MoneyWheelJudge(game, settings)
        camera = dict(camera)
        self.roles = set(camera.pop("roles", ["dice"]))
        self.dice = DiceJudge(game=None, dice=2, require_throw=True, **camera)
        self.cameras: set[str] = set()
        self.round = 0
        self.extras: dict[str, Any] | None = None
        #: the bonus game being played: {segment, rolls, result, source, dice, throws}
        self.bonus: dict[str, Any] | None = None
        self.missing_hold = False

    # the wheel judge's state, for the console and tests
    @property
    def multipliers(self) -> list[int]:
        return self.wheel.multipliers

    def evidence(self, evidence_id: str) -> Any:
        """The dice judge's annotated picture behind a hold ("picture <id>")."""
        return self.dice.evidence(evidence_id)

    def status(self) -> dict[str, Any] | None:
        b = self.bonus
        if b is None:
            return None
        progress = bonus_progress(b["rolls"], b["dice"])
        return {
            "bonus_game": {
                "segment": b["segment"],
                "rolls": b["rolls"],
                "dice": [list(d) for d in b["dice"]],
                "rolls_left": self._left(b, progress),
                "in_jail": progress["in_jail"],
                "next": "throw the two dice",
            }
        }

    def _is_camera(self, device_id: str) -> bool:
        return device_id in self.cameras or device_id.partition("/")[2] in self.roles

    # -- entry -----------------------------------------------------------------------------------

    def prepare(self, event: Any) -> Any:
        """The dice vision of a still camera frame on the table's worker thread, while a bonus game is on
        (otherwise frames are not read: handed back as they are). ``feed(prepare(e))`` = ``feed(e)``."""
        if self.bonus is not None and isinstance(event, _camera_frame_type()):
            return self.dice.prepare(event)
        return event

    def feed(self, event: Any) -> list[Decision]:
        from devices.events import DeviceConnected, DeviceDisconnected
        from recognition.dice.judge import PreparedFrame
        from recognition.game import ResultReady, RoundSignal

        if isinstance(event, RoundSignal):
            return self._signal(event)
        frame = event.event if isinstance(event, PreparedFrame) else event
        if isinstance(frame, _camera_event_types()):
            self.cameras.add(frame.device_id)
            return self._camera(event, frame)
        if isinstance(event, (DeviceConnected, DeviceDisconnected)) and self._is_camera(event.device_id):
            return self._camera(event, event)
        out: list[Decision] = []
        for d in self.wheel.feed(event):
            if isinstance(d, ResultReady) and self.bonus is None and d.result.get("segment") in ROLLS:
                out += self._start_bonus(d, event.at)
            else:
                out.append(d)
        return out

    def _signal(self, sig: RoundSignal) -> list[Decision]:
        from recognition.game import RoundSignal

        out = self.wheel.feed(sig)
        self.round = sig.round_number
        if sig.signal == "betting_closed":
            self.extras = sig.extras
        else:  # a new round, or the end of one: no bonus game; the dice judge forgets the last throw
            self.bonus, self.missing_hold = None, False
            self.dice.feed(RoundSignal(signal="round_opened", round_number=sig.round_number, at=sig.at))
        return out

    # -- the bonus game ----------------------------------------------------------------------------

    def _start_bonus(self, ready: ResultReady, at: Any) -> list[Decision]:
        from recognition.game import Hold, Note

        label = ready.result["segment"]
        self.bonus = {
            "segment": label,
            "rolls": ROLLS[label],
            "result": dict(ready.result),
            "source": dict(ready.source),
            "dice": [],
            "throws": [],
        }
        out: list[Decision] = [
            Note(
                code="bonus_game",
                message=(
                    f"{'2 Rolls' if label == TWO_ROLLS else '4 Rolls'}: the bonus game is on ({ROLLS[label]} rolls; a double "
                    "gives an extra roll). Throw the two dice in the tray; the dice camera reads each throw when the dice "
                    "are at rest."
                ),
            )
        ]
        out += self._arm(at)
        if not self.cameras:
            self.missing_hold = True
            out.append(
                Hold(
                    code="bonus_camera_missing",
                    message=(
                        "The bonus game's dice are read by the dice camera, but no dice camera has sent a picture. Check "
                        "the camera; when it sends pictures, throw the dice (or a supervisor enters the result)."
                    ),
                )
            )
        return out

    def _arm(self, at: Any) -> list[Decision]:
        """Ready the dice judge for the next throw: only dice thrown (seen moving) after ``at`` are read."""
        from recognition.game import RoundSignal

        self.dice.feed(RoundSignal(signal="round_opened", round_number=self.round, at=at))
        return self.dice.feed(RoundSignal(signal="betting_closed", round_number=self.round, at=at))

    def _camera(self, event: Any, frame: Any) -> list[Decision]:
        from recognition.game import Note, Release, ResultReady

        out: list[Decision] = []
        if self.missing_hold and isinstance(frame, _camera_frame_type()):
            self.missing_hold = False
            out.append(Release(code="bonus_camera_missing"))
        for d in self.dice.feed(event):
            if isinstance(d, ResultReady):
                if self.bonus is not None:
                    out += self._roll(d, frame.at)
            elif self.bonus is not None or isinstance(d, Note):
                out.append(d)  # holds and releases only matter while a bonus game is on
        return out

    def _roll(self, ready: ResultReady, at: Any) -> list[Decision]:
        from recognition.game import Note, ResultReady

        b = self.bonus
        assert b is not None
        faces = ready.result.get("dice")
        if faces is None:  # dice of given colours: {colour: faces}
            faces = [f for v in ready.result.values() for f in (v if isinstance(v, list) else [v])]
        roll = [int(f) for f in faces]
        b["dice"].append(roll)
        b["throws"].append(ready.source)
        progress = bonus_progress(b["rolls"], b["dice"])
        step = progress["steps"][-1] if progress["steps"] else {}
        n = len(b["dice"])
        if progress["over"]:
            result = {**b["result"], "bonus_dice": [list(d) for d in b["dice"]]}
            source = {**b["source"], "bonus_dice": {"device_kind": DICE_CAMERA, "throws": list(b["throws"])}}
            note = Note(
                code="bonus_roll",
                message=f"Roll {n}: {roll[0]} and {roll[1]}"
                + (f", {step['name']}" if "name" in step else "")
                + ". The bonus game is over.",
            )
            self.bonus = None
            return [note, ResultReady(result=result, source=source)]
        left = self._left(b, progress)
        where = f", {step['name']}" if "name" in step else ""
        then = (
            "Mr. Monopoly is in jail: the next roll must be a double."
            if progress["in_jail"]
            else "A double: an extra roll."
            if step.get("extra_roll")
            else ""
        )
        out: list[Decision] = [
            Note(
                code="bonus_roll",
                message=(
                    f"Roll {n}: {roll[0]} and {roll[1]}{where}. {then} Throw the dice again ({left} roll(s) left).".replace(
                        ".  ", ". "
                    )
                ),
            )
        ]
        out += self._arm(at)
        return out

    @staticmethod
    def _left(b: Mapping[str, Any], progress: Mapping[str, Any]) -> int:
        extra = sum(1 for s in progress["steps"] if s.get("extra_roll"))
        return b["rolls"] + extra - len(b["dice"])


def _camera_frame_type() -> type:
    from devices.camera.events import CameraFrame

    return CameraFrame


def _camera_event_types() -> tuple[type[CameraFrame], type[CameraStatus]]:
    from devices.camera.events import CameraFrame, CameraStatus

    return (CameraFrame, CameraStatus)


GAMES = {g.game_id: g for g in (MonopolyLive(),)}
