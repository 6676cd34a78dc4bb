"""Plain implementations of the rules of the games that are not dealt from a shoe, and rounds to feed them
(issue 25, target 4): roulette variants, dice, the bead game, money wheels, ball draws, Deal or No Deal.

The same yardstick as `bench/plain_rules.py` (which registers `GAMES` here into its own): one `json.loads` a
line, the rules as plain Python from the seed's text and the game's module for the choices the seeds leave
open (a table built once at import where the game has one), one `json.dumps` a line; the very line `studio
evaluate` writes for a valid round. Nothing of `recognition` is imported. Import it through
`bench.plain_rules` (the two import each other's names).
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

from bench.plain_rules import _EUROPEAN, _RED, Generator, Plain, _line

_POCKETS = ["0"] + [str(n) for n in range(1, 37)]


def _pays(x: Fraction | int) -> int | str:
    """Net odds as the feed writes them: an integer, or the exact fraction "n/d"."""
    x = Fraction(x)
    return x.numerator if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _weighted(rng: random.Random, table: dict[int, int]) -> int:
    return rng.choices(list(table), weights=list(table.values()))[0]


# --- Double Ball Roulette (seed 000 L117-177) ---------------------------------------------------------------

_DB_INSIDE = {"straight": 17, "split": 8, "street": 5, "corner": "7/2", "six_line": 2}
_DB_BOTH = [(spot, spot if t == "even_money" else t, numbers) for spot, t, numbers in _EUROPEAN]
_DB_OUTSIDE = {
    "column": 8,
    "dozen": 8,
    "red": 3,
    "black": 3,
    "even": 3,
    "odd": 3,
    "low": 3,
    "high": 3,
}
_DB_OUTSIDE_ORDER = ["column:1", "column:2", "column:3", "dozen:1", "dozen:2", "dozen:3", "red", "black"]
_DB_OUTSIDE_ORDER_2 = ["even", "odd", "low", "high"]
_DB_SPOTS = {spot: (t, numbers) for spot, t, numbers in _DB_BOTH}


def double_ball_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [
        json.dumps({"id": i, "numbers": [rng.choice(_POCKETS), rng.choice(_POCKETS)]}) + "\n"
        for i in range(rounds)
    ]


def double_ball_roulette(line: str) -> str:
    """Inside bets pay once per ball on them, outside bets once if both balls are on them; one red and one
    black ball pay 1:1, two balls in one pocket 35:1, both in the chosen pocket 1300:1."""
    item = json.loads(line)
    a, b = sorted(item["numbers"], key=int)
    colors = ["green" if n == "0" else "red" if int(n) in _RED else "black" for n in (a, b)]
    won = []
    for spot, t, numbers in _EUROPEAN:
        if t in _DB_INSIDE:
            wins = (a in numbers) + (b in numbers)
            if wins:
                won.append(
                    {"bet": spot, "type": t, "numbers": numbers, "payout": _DB_INSIDE[t], "wins": wins}
                )

    def both(spot: str) -> None:
        t, numbers = _DB_SPOTS[spot]
        if a in numbers and b in numbers:
            won.append({"bet": spot, "type": t, "numbers": numbers, "payout": _DB_OUTSIDE[t], "wins": 1})

    for spot in _DB_OUTSIDE_ORDER:
        both(spot)
    if sorted(colors) == ["black", "red"]:
        won.append({"bet": "red_black", "type": "red_black", "numbers": _POCKETS[1:], "payout": 1, "wins": 1})
    for spot in _DB_OUTSIDE_ORDER_2:
        both(spot)
    if a == b:
        won.append({"bet": "any_double", "type": "any_double", "numbers": _POCKETS, "payout": 35, "wins": 1})
        won.append({"bet": f"double:{a}", "type": "double", "numbers": [a], "payout": 1300, "wins": 1})
    result = {"numbers": [a, b], "colors": colors, "same_pocket": a == b}
    outcome = {**result, "winning_bets": won}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})


# --- Lightning Roulette (seed 000 L113-115, 004 L805-894), Mega Roulette (its published rules) ----------------

_LIGHTNING_PAYOUTS = {49: 460, 99: 290, 149: 120, 199: 60, 249: 30, 299: 15, 349: 10, 399: 7, 449: 4, 499: 4}
_MEGA_PAYOUTS = {49: 539, 99: 270, 149: 101, 199: 45, 249: 15, 299: 10, 349: 7, 399: 5, 449: 4, 499: 4}


def _lucky_rounds(payouts: dict[int, int]) -> Generator:
    """A pocket, and one to five lucky numbers (equally likely counts), each with a weighted payout."""

    def rounds(rng: random.Random, n: int) -> list[str]:
        out = []
        for i in range(n):
            lucky = sorted(rng.sample(_POCKETS, rng.randint(1, 5)), key=int)
            extras = {"lucky_numbers": [{"number": x, "payout": _weighted(rng, payouts)} for x in lucky]}
            out.append(json.dumps({"id": i, "number": rng.choice(_POCKETS), "extras": extras}) + "\n")
        return out

    return rounds


def _lucky_roulette(straight_up: int) -> Plain:
    """European roulette; a straight-up pays the lucky number's payout, else `straight_up` to 1."""
    payouts = {"straight": straight_up, "split": 17, "street": 11, "corner": 8, "six_line": 5}
    payouts.update(dozen=2, column=2, even_money=1)

    def evaluate(line: str) -> str:
        item = json.loads(line)
        number = item["number"]
        lucky = {e["number"]: e["payout"] for e in item["extras"]["lucky_numbers"]}
        color = "green" if number == "0" else "red" if int(number) in _RED else "black"
        winning = []
        for spot, t, numbers in _EUROPEAN:
            if number in numbers:
                bet = {"bet": spot, "type": t, "numbers": numbers, "payout": payouts[t]}
                if t == "straight" and number in lucky:
                    bet["payout"], bet["lucky"] = lucky[number], True
                winning.append(bet)
        lucky_numbers = [{"number": x, "payout": lucky[x]} for x in sorted(lucky, key=int)]
        result = {"number": number, "color": color}
        outcome = {
            **result,
            "winning_bets": winning,
            "lucky_numbers": lucky_numbers,
            "lucky": number in lucky,
        }
        return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})

    return evaluate


# --- Dice Duel (seed 000 L2683-2743) ------------------------------------------------------------------------


def _dice_duel_bets() -> list[tuple[str, str, object]]:
    bets: list[tuple[str, str, object]] = [
        ("red_wins", "red_wins", lambda r, b: r > b),
        ("draw", "draw", lambda r, b: r == b),
        ("blue_wins", "blue_wins", lambda r, b: b > r),
    ]
    bets += [(f"red:{n}", "red_number", lambda r, b, n=n: r == n) for n in range(1, 7)]
    bets += [(f"blue:{n}", "blue_number", lambda r, b, n=n: b == n) for n in range(1, 7)]
    bets += [
        (f"combination:{x}-{y}", "combination", lambda r, b, x=x, y=y: r == x and b == y)
        for x in range(1, 7)
        for y in range(1, 7)
    ]
    bets += [
        ("red_odd", "red_odd", lambda r, b: r % 2 == 1),
        ("red_even", "red_even", lambda r, b: r % 2 == 0),
        ("blue_odd", "blue_odd", lambda r, b: b % 2 == 1),
        ("blue_even", "blue_even", lambda r, b: b % 2 == 0),
        ("sum_odd", "sum_odd", lambda r, b: (r + b) % 2 == 1),
        ("sum_even", "sum_even", lambda r, b: (r + b) % 2 == 0),
        ("red_under:3.5", "red_under", lambda r, b: r <= 3),
        ("red_over:3.5", "red_over", lambda r, b: r >= 4),
        ("blue_under:3.5", "blue_under", lambda r, b: b <= 3),
        ("blue_over:3.5", "blue_over", lambda r, b: b >= 4),
    ]
    for x in range(4, 10):
        bets.append((f"sum_under:{x}.5", "sum_under", lambda r, b, x=x: r + b <= x))
        bets.append((f"sum_over:{x}.5", "sum_over", lambda r, b, x=x: r + b > x))
    return bets


#: the decimal odds, 95 % of fair rounded down (the module's rule), as net odds by the winning pairs of 36
_DD_BY_WAYS = {
    1: "166/5",
    6: "47/10",
    10: "12/5",
    15: "5/4",
    18: "9/10",
    21: "31/50",
    26: "3/10",
    30: "7/50",
}
_DD_BETS = [
    (spot, t, wins, _DD_BY_WAYS[sum(wins(r, b) for r in range(1, 7) for b in range(1, 7))])  # type: ignore[operator]
    for spot, t, wins in _dice_duel_bets()
]


def dice_duel_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [
        json.dumps({"id": i, "red": rng.randint(1, 6), "blue": rng.randint(1, 6)}) + "\n"
        for i in range(rounds)
    ]


def dice_duel(line: str) -> str:
    """The higher die wins (equal: a draw); the seed's 28 bet types at 95 % of the fair odds."""
    item = json.loads(line)
    red, blue = item["red"], item["blue"]
    winner = "red" if red > blue else "blue" if blue > red else "draw"
    wins = [{"bet": spot, "type": t, "payout": pays} for spot, t, won, pays in _DD_BETS if won(red, blue)]  # type: ignore[operator]
    result = {"red": red, "blue": blue}
    outcome = {**result, "total": red + blue, "winner": winner, "winning_bets": wins}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})


# --- Lightning Dice (seed 000 L3069; the published table) ---------------------------------------------------


def _mirror(table: dict[int, object]) -> dict[int, object]:
    return {t: table[min(t, 21 - t)] for t in range(3, 19)}


_LD_BASE = _mirror({3: 150, 4: 50, 5: 25, 6: 15, 7: 10, 8: 7, 9: 6, 10: 5})
_LD_STRIKES = {1: 1, 2: 3, 3: 3, 4: 1}
_LD_MULTIPLIERS = _mirror(
    {
        3: {250: 11, 500: 5, 750: 5, 1000: 4},
        4: {100: 9, 200: 3, 300: 2, 500: 1},
        5: {50: 9, 100: 3, 150: 2, 250: 1},
        6: {25: 11, 50: 5, 75: 5, 100: 4},
        7: {20: 6, 30: 5, 50: 3, 100: 1},
        8: {15: 12, 25: 9, 40: 4, 50: 3},
        9: {10: 12, 20: 5, 30: 5, 50: 3},
        10: {10: 14, 20: 6, 30: 6, 50: 5},
    }
)


def lightning_dice_rounds(rng: random.Random, rounds: int) -> list[str]:
    out = []
    for i in range(rounds):
        struck = sorted(rng.sample(range(3, 19), _weighted(rng, _LD_STRIKES)))
        lightning = [{"total": t, "multiplier": _weighted(rng, _LD_MULTIPLIERS[t])} for t in struck]  # type: ignore[arg-type]
        dice = [rng.randint(1, 6) for _ in range(3)]
        out.append(json.dumps({"id": i, "dice": dice, "extras": {"lightning": lightning}}) + "\n")
    return out


def lightning_dice(line: str) -> str:
    """The total of three dice pays its table odds, or its lightning multiplier (gross) when struck."""
    item = json.loads(line)
    dice = sorted(item["dice"])
    total = sum(dice)
    lightning = sorted(item["extras"]["lightning"], key=lambda s: s["total"])
    struck = {s["total"]: s["multiplier"] for s in lightning}
    if total in struck:
        win = {"bet": f"total:{total}", "type": "total", "payout": struck[total] - 1}
        win["lightning_multiplier"] = struck[total]
    else:
        win = {"bet": f"total:{total}", "type": "total", "payout": _LD_BASE[total] - 1}  # type: ignore[operator]
    lightning = [{"total": s["total"], "multiplier": s["multiplier"]} for s in lightning]
    outcome = {"dice": dice, "total": total, "lightning": lightning, "winning_bets": [win]}
    return _line({"id": item["id"], "valid": True, "result": {"dice": dice}, "outcome": outcome})


GAMES: dict[str, tuple[Generator, Plain]] = {
    "double_ball_roulette": (double_ball_rounds, double_ball_roulette),
    "lightning_roulette": (_lucky_rounds(_LIGHTNING_PAYOUTS), _lucky_roulette(29)),
    "mega_roulette": (_lucky_rounds(_MEGA_PAYOUTS), _lucky_roulette(30)),
    "dice_duel": (dice_duel_rounds, dice_duel),
    "lightning_dice": (lightning_dice_rounds, lightning_dice),
}
