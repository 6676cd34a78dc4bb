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
  not say whether they are physical. The studio has no dice-camera driver yet, so the bonus
  game's dice are drawn by the secure generator with everything else random in it (the
  buildings and hotels "automatically created ... randomly", L1911; the Chance and Community
  Chest card amounts, L1913), once for each of the two bonus games, when the round opens, and
  committed (``extras.bonus``). The outcome replays the walk from these draws, so an auditor
  recomputes it (``studio evaluate`` with the extras).
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
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

from .base import MoneyWheelGame, draw, need_extras, payout, product, read_draw_table, read_fraction, won

NUMBERS = ("1", "2", "5", "10")
CHANCE, TWO_ROLLS, FOUR_ROLLS = "chance", "2_rolls", "4_rolls"
ROLLS = {TWO_ROLLS: 2, FOUR_ROLLS: 4}

# (name, kind, group) for the 40 fields, GO first, in the order he walks
BOARD: tuple[tuple[str, str, str], ...] = (
    ("GO", "go", ""), ("Mediterranean Avenue", "property", "brown"), ("Community Chest", "chest", ""),
    ("Baltic Avenue", "property", "brown"), ("Income Tax", "tax", "income"), ("Reading Railroad", "railway", ""),
    ("Oriental Avenue", "property", "light_blue"), ("Chance", "chance", ""),
    ("Vermont Avenue", "property", "light_blue"),
    ("Connecticut Avenue", "property", "light_blue"), ("Jail", "jail", ""), ("St. Charles Place", "property", "pink"),
    ("Electric Company", "utility", ""), ("States Avenue", "property", "pink"), ("Virginia Avenue", "property", "pink"),
    ("Pennsylvania Railroad", "railway", ""), ("St. James Place", "property", "orange"),
    ("Community Chest", "chest", ""), ("Tennessee Avenue", "property", "orange"),
    ("New York Avenue", "property", "orange"), ("Free Parking", "parking", ""),
    ("Kentucky Avenue", "property", "red"), ("Chance", "chance", ""), ("Indiana Avenue", "property", "red"),
    ("Illinois Avenue", "property", "red"), ("B. & O. Railroad", "railway", ""),
    ("Atlantic Avenue", "property", "yellow"), ("Ventnor Avenue", "property", "yellow"),
    ("Water Works", "utility", ""), ("Marvin Gardens", "property", "yellow"), ("Go to Jail", "gotojail", ""),
    ("Pacific Avenue", "property", "green"), ("North Carolina Avenue", "property", "green"),
    ("Community Chest", "chest", ""), ("Pennsylvania Avenue", "property", "green"), ("Short Line", "railway", ""),
    ("Chance", "chance", ""), ("Park Place", "property", "dark_blue"), ("Super Tax", "tax", "super"),
    ("Boardwalk", "property", "dark_blue"),
)
JAIL = 10
#: value of a field in stakes (ours)
GROUP_VALUE = {"brown": 1, "light_blue": 2, "pink": 3, "orange": 4, "red": 5, "yellow": 6, "green": 8,
               "dark_blue": 10, "railway": 5, "parking": 8}
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


def play_bonus(rolls: int, buildings: Sequence[int], dice: Sequence[Sequence[int]], cards: Sequence[int]
               ) -> dict[str, Any]:
    """Replay a recorded bonus game: the walk, step by step, and the bonus win in stakes.

    The draws must be used up exactly: a recorded game with a roll or a card too many or too few is refused."""
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
            raise ValueError(f"the bonus game needs more card amounts than the {len(cards)} recorded") from None

    played = walk(rolls, buildings, roll, card)
    if played["dice_used"] != len(dice) or played["cards_used"] != len(cards):
        raise ValueError(f"the recorded bonus game has {len(dice) - played['dice_used']} roll(s) and "
                         f"{len(cards) - played['cards_used']} card amount(s) more than the walk uses")
    return played


def walk(rolls: int, buildings: Sequence[int], roll: Callable[[], tuple[int, int]], card: Callable[[], int]
         ) -> dict[str, Any]:
    """Mr. Monopoly's walk (the rules in the module docstring); ``roll`` and ``card`` give the draws in order."""
    if len(buildings) != len(PROPERTIES) or any(isinstance(b, bool) or b not in range(6) for b in buildings):
        raise ValueError(f"buildings: one level 0-5 for each of the {len(PROPERTIES)} properties")
    pos, total, doubling = 0, Fraction(0), 1
    left, in_jail, used_dice, used_cards = rolls, False, 0, 0
    steps: list[dict[str, Any]] = []
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
    extra_settings = ("chance_multipliers", "chance_cash", "chance_cash_share")
    example = "{'segment': '5', 'index': 17, 'multipliers': []}"

    def bet_spots(self) -> list[dict[str, Any]]:
        return ([{"bet": n, "type": "number", "source": "seed 000 L1869", "payout": int(n)} for n in NUMBERS]
                + [{"bet": b, "type": "bonus", "source": "seed 000 L1893", "payout": None,
                    "pays": "the bonus game's win to 1"} for b in (TWO_ROLLS, FOUR_ROLLS)])

    # -- the computer draws -----------------------------------------------------------------------

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any]:
        s = self.wheel_settings(settings)
        share = read_fraction(s.game.get("chance_cash_share", "1/2"), "chance_cash_share", minimum=Fraction(0))
        if share > 1:
            raise ValueError("chance_cash_share is a fraction 0..1")
        if rng.random() < share:
            card = {"type": "cash", "value": draw(rng, read_draw_table(s.game.get("chance_cash", CHANCE_CASH),
                                                                       "chance_cash"))}
        else:
            card = {"type": "multiplier", "value": draw(rng, read_draw_table(
                s.game.get("chance_multipliers", CHANCE_MULTIPLIERS), "chance_multipliers", minimum=2))}
        return {"chance": card, "bonus": {spot: self.draw_bonus(rng, rolls) for spot, rolls in ROLLS.items()}}

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

    # -- outcome ----------------------------------------------------------------------------------

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
                return {"winning_bets": [], "chance": card, "multiplier": product(following), "respin": True,
                        "bets_stand": True, "next_multipliers": following}
            return {"winning_bets": [won(n, "number", card["value"] * m, chance="cash") for n in NUMBERS],
                    "chance": card, **base}
        game = need_extras(extras, "bonus", self.name)
        if not isinstance(game, Mapping) or label not in game:
            raise ValueError(f"extras.bonus needs the drawn {label} bonus game")
        record = game[label]
        if not isinstance(record, Mapping) or set(record) != {"buildings", "dice", "cards"}:
            raise ValueError("a drawn bonus game is {buildings, dice, cards}")
        played = play_bonus(ROLLS[label], record["buildings"], record["dice"], record["cards"])
        return {"winning_bets": [won(label, "bonus", played["win"] * m)],
                "bonus_game": {"rolls": ROLLS[label], "win": payout(played["win"]), "steps": played["steps"],
                               "buildings": list(record["buildings"])}, **base}

    def read_card(self, card: Any) -> dict[str, Any]:
        if not isinstance(card, Mapping) or set(card) != {"type", "value"} \
                or card["type"] not in ("cash", "multiplier"):
            raise ValueError("extras.chance is {type: 'cash' or 'multiplier', value}")
        value = _whole(card["value"], "extras.chance.value")
        if value < (2 if card["type"] == "multiplier" else 1):
            raise ValueError(f"extras.chance.value {value} is too small")
        return {"type": card["type"], "value": value}


GAMES = {g.game_id: g for g in (MonopolyLive(),)}
