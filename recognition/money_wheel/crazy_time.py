"""Crazy Time: the 54-segment main wheel, the Top Slot and the four bonus games. Pure.

Seed 000 L2047-2098 (digest seed-B §11). What is read and what is drawn:

* Main wheel (L2049), read by the wheel sensors: 1 x21, 2 x13, 5 x7, 10 x4, Cash Hunt x2,
  Pachinko x2, Coin Flip x4, Crazy Time x1. Order and colours NOT GIVEN: the default order
  spreads them evenly; a table gives its wheel's in ``layout``. A number pays its number to 1
  (L2049: 1,000 on 5 wins 5,000; the stake comes back on top, as Monopoly L1869 says).
* Top Slot (L2051-2057): drawn by the studio's secure generator when the round opens and
  committed before betting closes: a bet spot (all 8 equally likely) and a multiplier, or no
  match. When the spot is the winning segment, a number's payout, or every multiplier of the
  bonus game, is multiplied by it.
* The bonus games are drawn by the secure generator with the Top Slot, all four every round
  (only the one the wheel lands on is used), and replayed by the outcome from the draws:
  - Cash Hunt (L2065-2067): a wall of 108 multipliers (times the Top Slot's). Each player picks
    a spot in the game client; the outcome gives the whole wall (``choices``) and one committed
    random spot for players who made no choice (``auto_choice``).
  - Pachinko (L2069-2075): 16 multipliers and DOUBLE columns, a puck dropped from zones 4-12
    (1-based) landing (ours) a binomial 8-peg walk away; DOUBLE doubles every multiplier (up to
    10,000x, then DOUBLE is 10,000x) and drops again; a Rescue Drop after a 2x, 3x or 4x
    (``pachinko_rescue`` chance, ours 1/4) raises every lower multiplier to it and drops again.
  - Coin Flip (L2077-2083): a red and a blue multiplier (times the Top Slot's), the side drawn
    1/2-1/2. The Rescue Flip (L2083, circular in the seed) is NOT implemented.
  - Crazy Time (L2085-2095): a 64-segment wheel (ours: CT_WHEEL) under three flappers (green,
    blue, yellow; ours: 0, 21 and 43 segments apart); DOUBLE/TRIPLE under a flapper doubles or
    triples every multiplier for that flapper's players and the wheel is spun again for them,
    up to 20,000x (then DOUBLE and TRIPLE are 20,000x). The outcome gives the three flappers'
    multipliers (``choices``) and one committed random flapper for players who made no choice.
  The seed suggests a physical coin, puck board and bonus wheel; no sensor for them exists in
  the studio, so these are software draws, committed and verifiable like the Top Slot. Reading
  them from devices is NOT implemented (docs/money-wheels.md).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

from .base import MoneyWheelGame, draw, need_extras, read_fraction, won
from .calibration import spread

NUMBERS = ("1", "2", "5", "10")
CASH_HUNT, PACHINKO, COIN_FLIP, CRAZY_TIME = "cash_hunt", "pachinko", "coin_flip", "crazy_time"
BONUSES = (CASH_HUNT, PACHINKO, COIN_FLIP, CRAZY_TIME)
SPOTS = NUMBERS + BONUSES
DOUBLE, TRIPLE = "DOUBLE", "TRIPLE"

#: ours: the seed gives no distributions
TOP_SLOT_MULTIPLIERS = ((2, 10), (3, 8), (4, 6), (5, 6), (7, 4), (10, 4), (15, 2), (20, 2), (25, 1), (50, 1))
TOP_SLOT_MISS = 44  # weight of "no match": half the time
CASH_HUNT_VALUES = (
    (5, 20),
    (7, 15),
    (10, 20),
    (15, 12),
    (20, 12),
    (25, 8),
    (50, 8),
    (75, 4),
    (100, 5),
    (200, 2),
    (500, 1),
)
PACHINKO_BOARD: tuple[int | str, ...] = (2, 10, 5, 25, 3, 50, DOUBLE, 5, 3, 100, 10, DOUBLE, 25, 7, 2, 4)
COIN_VALUES = ((2, 10), (3, 10), (4, 8), (5, 8), (6, 5), (8, 5), (10, 5), (15, 3), (20, 3), (25, 2), (50, 1))
CT_WHEEL: tuple[int | str, ...] = tuple(
    spread(
        [
            ("10", 10),
            ("15", 8),
            ("20", 10),
            ("25", 8),
            ("50", 10),
            ("75", 3),
            ("100", 6),
            ("150", 2),
            ("200", 3),
            ("500", 1),
            (DOUBLE, 2),
            (TRIPLE, 1),
        ]
    )
)
CT_WHEEL = tuple(v if v in (DOUBLE, TRIPLE) else int(v) for v in CT_WHEEL)
FLAPPERS = (("green", 0), ("blue", 21), ("yellow", 43))
PACHINKO_CAP, CRAZY_CAP = 10_000, 20_000
MAX_REPEATS = 60
CASH_HUNT_PAYS = "the multiplier at the spot the player picked, to 1"
CRAZY_TIME_PAYS = "the multiplier under the flapper the player picked, to 1"


class CrazyTime(MoneyWheelGame):
    game_id = "crazy_time"
    name = "Crazy Time"
    segment_counts = (
        ("1", 21),
        ("2", 13),
        ("5", 7),
        ("10", 4),
        (CASH_HUNT, 2),
        (PACHINKO, 2),
        (COIN_FLIP, 4),
        (CRAZY_TIME, 1),
    )
    counts_from_seed = True
    extra_settings = ("pachinko_rescue",)

    def bet_spots(self) -> list[dict[str, Any]]:
        return [
            {"bet": n, "type": "number", "source": "seed 000 L2049", "payout": int(n)} for n in NUMBERS
        ] + [
            {
                "bet": b,
                "type": "bonus",
                "source": "seed 000 L2063",
                "payout": None,
                "pays": "decided in the bonus game",
            }
            for b in BONUSES
        ]

    # -- draws ------------------------------------------------------------------------------------

    def draw_extras(self, rng: random.Random, **settings: Any) -> dict[str, Any]:
        s = self.wheel_settings(settings)
        rescue = read_fraction(s.game.get("pachinko_rescue", "1/4"), "pachinko_rescue")
        if not 0 <= rescue <= 1:
            raise ValueError("pachinko_rescue is a chance 0..1")
        spot = SPOTS[rng.randrange(len(SPOTS))]
        total = sum(w for _, w in TOP_SLOT_MULTIPLIERS) + TOP_SLOT_MISS
        multiplier = draw(rng, TOP_SLOT_MULTIPLIERS) if rng.randrange(total) >= TOP_SLOT_MISS else None
        top = {"spot": spot, "multiplier": multiplier}

        def top_for(bonus: str) -> int:
            return multiplier if spot == bonus and multiplier else 1

        cash = {"wall": [draw(rng, CASH_HUNT_VALUES) for _ in range(108)], "auto_choice": rng.randrange(108)}
        pachinko = self._draw_pachinko(rng, top_for(PACHINKO), rescue)
        coin = {
            "red": draw(rng, COIN_VALUES),
            "blue": draw(rng, COIN_VALUES),
            "side": rng.choice(("red", "blue")),
        }
        crazy = self._draw_crazy(rng, top_for(CRAZY_TIME))
        return {
            "top_slot": top,
            "bonus": {CASH_HUNT: cash, PACHINKO: pachinko, COIN_FLIP: coin, CRAZY_TIME: crazy},
        }

    def _draw_pachinko(self, rng: random.Random, top: int, rescue_chance: Any) -> dict[str, Any]:
        drops: list[dict[str, Any]] = []
        board = [v if v == DOUBLE else v * top for v in PACHINKO_BOARD]
        for _ in range(MAX_REPEATS):
            zone = rng.randint(4, 12)
            slot = min(16, max(1, zone + sum(rng.randrange(2) for _ in range(8)) - 4))
            value = board[slot - 1]
            drop: dict[str, Any] = {"zone": zone, "slot": slot}
            if value == DOUBLE:
                drops.append(drop)
                board = _pachinko_double(board)
                continue
            if value in (2, 3, 4) and rng.random() < rescue_chance:
                drop["rescue"] = True
                drops.append(drop)
                board = [v if isinstance(v, str) or v >= value else value for v in board]  # str: DOUBLE
                continue
            drops.append(drop)
            break
        return {"drops": drops}

    def _draw_crazy(self, rng: random.Random, top: int) -> dict[str, Any]:
        stops = [rng.randrange(len(CT_WHEEL))]
        for _ in range(MAX_REPEATS):
            flappers = _crazy_play(stops, top)
            if all(f["done"] for f in flappers.values()):
                break
            stops.append(rng.randrange(len(CT_WHEEL)))
        return {"stops": stops, "auto_choice": rng.choice([name for name, _ in FLAPPERS])}

    # -- outcome ----------------------------------------------------------------------------------

    fast_evaluate = True

    @cached_property
    def _fast_lines(self) -> Any:
        from .fast_bonus import CrazyTimeLines

        return CrazyTimeLines(self.evaluate)

    def evaluate_json(self, line: str) -> str | None:
        """`studio evaluate`'s line for a round in the usual shape (recognition/money_wheel/fast_bonus.py)."""
        return self._fast_lines(line)

    def settle(self, result: dict[str, Any], extras: dict[str, Any] | None) -> dict[str, Any]:
        top = self.read_top(need_extras(extras, "top_slot", self.name))
        label = result["segment"]
        boost = top["multiplier"] if top["multiplier"] and top["spot"] == label else 1
        out: dict[str, Any] = {"top_slot": top, "top_slot_applied": boost != 1}
        if label in NUMBERS:
            out["winning_bets"] = [won(label, "number", int(label) * boost)]
            return out
        bonus = need_extras(extras, "bonus", self.name)
        if not isinstance(bonus, Mapping) or label not in bonus or not isinstance(bonus[label], Mapping):
            raise ValueError(f"extras.bonus needs the drawn {label} bonus game")
        record = bonus[label]
        if label == CASH_HUNT:
            wall, auto = record.get("wall"), record.get("auto_choice")
            if (
                not isinstance(wall, list)
                or len(wall) != 108
                or any(_bad_int(v) for v in wall)
                or _bad_int(auto, 0)
                or not auto < 108
            ):
                raise ValueError("extras.bonus.cash_hunt is {wall: 108 multipliers, auto_choice: 0..107}")
            wall = [v * boost for v in wall]
            out["winning_bets"] = [
                {
                    "bet": CASH_HUNT,
                    "type": "bonus_choice",
                    "choices": wall,
                    "auto_choice": auto,
                    "pays": CASH_HUNT_PAYS,
                }
            ]
        elif label == PACHINKO:
            played = _pachinko_play(record.get("drops"), boost)
            out["winning_bets"] = [won(PACHINKO, "bonus", played["win"])]
            out["pachinko"] = played
        elif label == COIN_FLIP:
            red, blue, side = record.get("red"), record.get("blue"), record.get("side")
            if _bad_int(red, 1) or _bad_int(blue, 1) or side not in ("red", "blue"):
                raise ValueError("extras.bonus.coin_flip is {red, blue: multipliers, side: 'red' or 'blue'}")
            values = {"red": red * boost, "blue": blue * boost}
            out["winning_bets"] = [won(COIN_FLIP, "bonus", values[side])]
            out["coin_flip"] = {**values, "side": side}
        else:
            stops, auto = record.get("stops"), record.get("auto_choice")
            if (
                not isinstance(stops, list)
                or not stops
                or any(_bad_int(s, 0) or s >= len(CT_WHEEL) for s in stops)
                or auto not in [n for n, _ in FLAPPERS]
            ):
                raise ValueError("extras.bonus.crazy_time is {stops: [0..63, ...], auto_choice: a flapper}")
            flappers = _crazy_play(stops, boost)
            if not all(f["done"] for f in flappers.values()):
                raise ValueError("the recorded Crazy Time spins end before every flapper has a multiplier")
            if max(f["spins"] for f in flappers.values()) != len(stops):
                raise ValueError("the recorded Crazy Time bonus has more spins than the flappers needed")
            out["winning_bets"] = [
                {
                    "bet": CRAZY_TIME,
                    "type": "bonus_choice",
                    "choices": {n: f["value"] for n, f in flappers.items()},
                    "auto_choice": auto,
                    "pays": CRAZY_TIME_PAYS,
                }
            ]
            out["crazy_time"] = {"stops": list(stops), "flappers": flappers}
        return out

    def read_top(self, top: Any) -> dict[str, Any]:
        if not isinstance(top, Mapping) or set(top) != {"spot", "multiplier"} or top["spot"] not in SPOTS:
            raise ValueError("extras.top_slot is {spot: a bet spot, multiplier: a whole number or null}")
        m = top["multiplier"]
        if m is not None and _bad_int(m, 2):
            raise ValueError("extras.top_slot.multiplier is a whole number >= 2 or null")
        return {"spot": top["spot"], "multiplier": m}


def _bad_int(v: Any, minimum: int = 1) -> bool:
    return isinstance(v, bool) or not isinstance(v, int) or v < minimum


def _pachinko_double(board: list[int | str]) -> list[int | str]:
    doubled = [v if v == DOUBLE else min(PACHINKO_CAP, int(v) * 2) for v in board]
    if all(v == PACHINKO_CAP for v in doubled if v != DOUBLE):
        doubled = [PACHINKO_CAP if v == DOUBLE else v for v in doubled]  # L2073
    return doubled


def _pachinko_play(drops: Any, top: int) -> dict[str, Any]:
    if not isinstance(drops, list) or not drops:
        raise ValueError("extras.bonus.pachinko is {drops: [{zone, slot, rescue?}, ...]}")
    board: list[int | str] = [v if v == DOUBLE else int(v) * top for v in PACHINKO_BOARD]
    for i, d in enumerate(drops):
        if (
            not isinstance(d, Mapping)
            or _bad_int(d.get("zone"), 4)
            or d["zone"] > 12
            or _bad_int(d.get("slot"))
            or d["slot"] > 16
            or set(d) - {"zone", "slot", "rescue"}
        ):
            raise ValueError(f"pachinko drop {i} is {{zone: 4..12, slot: 1..16, rescue?: true}}, not {d!r}")
        value = board[d["slot"] - 1]
        last = i == len(drops) - 1
        if value == DOUBLE:
            if last:
                raise ValueError("the recorded Pachinko game ends on a DOUBLE")
            board = _pachinko_double(board)
            continue
        if d.get("rescue"):
            if value not in (2, 3, 4) or last:
                raise ValueError(f"a Rescue Drop follows only a 2x, 3x or 4x, not {value!r}")
            board = [v if v == DOUBLE or int(v) >= int(value) else value for v in board]
            continue
        if not last:
            raise ValueError("the recorded Pachinko game has drops after the puck landed on a multiplier")
        return {"drops": list(drops), "board": board, "win": int(value)}
    raise AssertionError("unreachable")


def _crazy_play(stops: Sequence[int], top: int) -> dict[str, dict[str, Any]]:
    """Each flapper's multiplier after the spins ``stops`` (it reads the segment ``offset`` after the stop).

    A DOUBLE or TRIPLE doubles or triples every number on the wheel, to CRAZY_CAP; once every number is at
    the cap, the DOUBLE and TRIPLE segments are the cap too (L2095). So a number read after doublings is
    ``min(CRAZY_CAP, number * top * their product)`` (the cap taken at each step or once is the same), and
    the wheel is all cap once its least number times that reaches it: nothing is rebuilt per spin."""
    out: dict[str, dict[str, Any]] = {}
    n = len(CT_WHEEL)
    for name, offset in FLAPPERS:
        factor = 1  # the product of the DOUBLEs and TRIPLEs read so far
        capped = False
        value: int | None = None
        spins = 0
        for stop in stops:
            spins += 1
            v = CT_WHEEL[(stop + offset) % n]
            if capped:
                value = CRAZY_CAP
                break
            if v == DOUBLE or v == TRIPLE:
                factor *= 2 if v == DOUBLE else 3
                capped = _CT_LEAST * top * factor >= CRAZY_CAP
                continue
            value = int(v) * top if factor == 1 else min(CRAZY_CAP, int(v) * top * factor)
            break
        out[name] = {"value": value, "spins": spins, "done": value is not None}
    return out


#: the wheel's least number (what reaches the cap last)
_CT_LEAST = min(int(v) for v in CT_WHEEL if v not in (DOUBLE, TRIPLE))


GAMES = {g.game_id: g for g in (CrazyTime(),)}
