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
from collections.abc import Callable
from fractions import Fraction
from itertools import combinations
from typing import Any

from bench.plain_rules import _EUROPEAN, _RED, Generator, Plain, _line

#: whether a bet spot wins, from the facts of a round
Wins = Callable[..., bool]

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


def _dice_duel_bets() -> list[tuple[str, str, Wins]]:
    bets: list[tuple[str, str, Wins]] = [
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
    (spot, t, wins, _DD_BY_WAYS[sum(wins(r, b) for r in range(1, 7) for b in range(1, 7))])
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
    wins = [{"bet": spot, "type": t, "payout": pays} for spot, t, won, pays in _DD_BETS if won(red, blue)]
    result = {"red": red, "blue": blue}
    outcome = {**result, "total": red + blue, "winner": winner, "winning_bets": wins}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})


# --- Lightning Dice (seed 000 L3069; the published table) ---------------------------------------------------


def _mirror(table: dict[int, Any]) -> dict[int, Any]:
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
        lightning = [{"total": t, "multiplier": _weighted(rng, _LD_MULTIPLIERS[t])} for t in struck]
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
        win = {"bet": f"total:{total}", "type": "total", "payout": _LD_BASE[total] - 1}
    lightning = [{"total": s["total"], "multiplier": s["multiplier"]} for s in lightning]
    outcome = {"dice": dice, "total": total, "lightning": lightning, "winning_bets": [win]}
    return _line({"id": item["id"], "valid": True, "result": {"dice": dice}, "outcome": outcome})


# --- Fan Tan (seed 000 L3981-4003) --------------------------------------------------------------------------

#: the traditional net odds less the customary 5 % commission on winnings (the game's default)
_FT_KEEP = Fraction(19, 20)
_FT = {
    kind: _pays(odds * _FT_KEEP)
    for kind, odds in (("fan", 3), ("nim", 2), ("one", 1), ("ssh", Fraction(1, 3)))
}


def fan_tan_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [json.dumps({"id": i, "beads": rng.randint(30, 120)}) + "\n" for i in range(rounds)]


def fan_tan(line: str) -> str:
    """The beads laid out four by four: the last line's count (1-4) wins fan, small/big, odd/even, nim (its
    reverse returned), kwok and ssh bets."""
    item = json.loads(line)
    beads = item["beads"]
    k = (beads - 1) % 4 + 1
    wins = [
        {"bet": f"fan_{k}", "payout": _FT["fan"]},
        {"bet": "small" if k <= 2 else "big", "payout": _FT["one"]},
        {"bet": "odd" if k % 2 else "even", "payout": _FT["one"]},
    ]
    wins += [{"bet": f"nim_{k}_{b}", "payout": _FT["nim"]} for b in range(1, 5) if b != k]
    pushed = [{"bet": f"nim_{a}_{k}", "returned": 1} for a in range(1, 5) if a != k]
    wins += [
        {"bet": f"kwok_{a}_{b}", "payout": _FT["one"]} for a, b in combinations(range(1, 5), 2) if k in (a, b)
    ]
    wins += [
        {"bet": "ssh_" + "_".join(map(str, trio)), "payout": _FT["ssh"]}
        for trio in combinations(range(1, 5), 3)
        if k in trio
    ]
    outcome = {"winning_bets": wins, "pushed_bets": pushed, "result": k}
    result = {"result": k, "beads": beads}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})


# --- money wheels: segments read by the pointer (seed 000 L1748-1769 and the games' sections) -----------------


def _wheel_rounds(order: list[str]) -> Generator:
    """Fair spins of a wheel laid out in `order`: the segment and its physical index."""

    def rounds(rng: random.Random, n: int) -> list[str]:
        out = []
        for i in range(n):
            index = rng.randrange(len(order))
            out.append(json.dumps({"id": i, "segment": order[index], "index": index}) + "\n")
        return out

    return rounds


def _wheel_line(item: dict, result: dict, settled: dict) -> str:
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": {**result, **settled}})


# Wheel of Fortune (L2467-2511): 1-18 and the cup; a bet on k of the 19 sectors pays 18/k - 1 (the module's)
_WOF_COLOR = {str(n): ("grey", "red", "black")[(n - 1) % 6 // 2] for n in range(1, 19)} | {"cup": "gold"}


def _wof_spots() -> list[tuple[str, str, Wins, int | str]]:
    def number(test: Wins, color: str | None = None) -> Wins:
        return lambda label, c: label != "cup" and test(int(label)) and color in (None, c)

    spots: list[tuple[str, str, Wins]] = [
        (f"number:{n}", "number", lambda label, c, n=n: label == str(n)) for n in range(1, 19)
    ]
    spots += [
        (f"range:{lo}-{lo + 5}", "range", number(lambda n, lo=lo: lo <= n <= lo + 5)) for lo in (1, 7, 13)
    ]
    spots += [
        ("under:9.5", "under_over", number(lambda n: n < 9.5)),
        ("over:9.5", "under_over", number(lambda n: n > 9.5)),
    ]
    spots += [(f"color:{c}", "color", lambda label, c, want=c: c == want) for c in ("grey", "red", "black")]
    spots += [("cup", "cup", lambda label, c: label == "cup")]
    spots += [
        ("even", "parity", number(lambda n: n % 2 == 0)),
        ("odd", "parity", number(lambda n: n % 2 == 1)),
    ]
    for color in ("grey", "red", "black"):
        spots += [
            (f"even:{color}", "parity_color", number(lambda n: n % 2 == 0, color)),
            (f"odd:{color}", "parity_color", number(lambda n: n % 2 == 1, color)),
        ]
    return [
        (bet, t, wins, _pays(Fraction(18, sum(bool(wins(s, c)) for s, c in _WOF_COLOR.items())) - 1))
        for bet, t, wins in spots
    ]


_WOF_SPOTS = _wof_spots()


def wheel_of_fortune(line: str) -> str:
    item = json.loads(line)
    label = item["segment"]
    color = _WOF_COLOR[label]
    wins = [{"bet": bet, "type": t, "payout": pays} for bet, t, won, pays in _WOF_SPOTS if won(label, color)]
    return _wheel_line(
        item, {"segment": label, "index": item["index"], "color": color}, {"winning_bets": wins}
    )


# Mega Wheel (L3955-3965): a number pays its number to 1, the Mega Lucky sector its boosted payout
#: the default wheel of recognition/money_wheel (the seed gives the numbers, not the counts or the order)
_MEGA_WHEEL_TEXT = "1 2 5 1 8 2 1 10 1 2 5 1 15 20 2 1 30 1 2 5 1 8 10 1 2 1 2 5 1 40 1 2 8 1 10 2 5 1 1 2 15 1 20 5 2 1 8 1 2 10 1 5 2 1"
_MEGA_WHEEL = _MEGA_WHEEL_TEXT.split()
_MEGA_LUCKY = {
    "1": [10, 15, 20, 25, 50],
    "2": [20, 25, 30, 50, 100],
    "5": [25, 50, 75, 100],
    "8": [40, 80, 120, 160],
    "10": [50, 100, 150, 200],
    "15": [75, 150, 225, 300],
    "20": [100, 200, 300, 400],
    "30": [150, 300, 450],
    "40": [200, 300, 400, 500],
}


def mega_wheel_rounds(rng: random.Random, rounds: int) -> list[str]:
    """Fair spins, each with its Mega Lucky sector (any sector) and a boosted payout for it."""
    out = []
    for i in range(rounds):
        index, lucky = rng.randrange(54), rng.randrange(54)
        number = _MEGA_WHEEL[lucky]
        extras = {
            "lucky": {
                "number": number,
                "index": lucky,
                "payout": rng.choice(_MEGA_LUCKY[number]),
                "scope": "segment",
            }
        }
        out.append(
            json.dumps({"id": i, "segment": _MEGA_WHEEL[index], "index": index, "extras": extras}) + "\n"
        )
    return out


def mega_wheel(line: str) -> str:
    item = json.loads(line)
    label, index, lucky = item["segment"], item["index"], item["extras"]["lucky"]
    hit = index == lucky["index"]
    bet = {"bet": label, "type": "number", "payout": lucky["payout"] if hit else int(label)}
    if hit:
        bet["mega_win"] = True
    lucky = {
        "number": lucky["number"],
        "index": lucky["index"],
        "payout": lucky["payout"],
        "scope": lucky["scope"],
    }
    return _wheel_line(
        item, {"segment": label, "index": index}, {"winning_bets": [bet], "mega_win": hit, "lucky": lucky}
    )


# Music Wheel (L4335-4341): a number n pays n - 1 to 1; the bonus number (one sector for 16 and 48) n x m - 1
#: the default wheel of recognition/money_wheel: 48/n sectors of each number n, spread
_MUSIC_WHEEL_TEXT = "2 4 6 2 12 2 4 2 16 6 2 4 2 24 2 4 2 6 2 12 4 2 48 2 6 4 2 16 2 4 2 6 2 4 12 2 6 2 4 2 24 2 4 2 6 16 2 4 2 12 2 6 4 2"
_MUSIC_WHEEL = _MUSIC_WHEEL_TEXT.split()


def music_wheel_rounds(rng: random.Random, rounds: int) -> list[str]:
    """Fair spins, each with its bonus: a number (equally likely), a multiplier of 2, 3 or 5, and for 16
    and 48 one of their sectors."""
    out = []
    for i in range(rounds):
        index = rng.randrange(54)
        number = rng.choice(["2", "4", "6", "12", "16", "24", "48"])
        sectors = [j for j, label in enumerate(_MUSIC_WHEEL) if label == number]
        bonus = {
            "number": number,
            "index": rng.choice(sectors) if number in ("16", "48") else None,
            "multiplier": rng.choice([2, 3, 5]),
        }
        out.append(
            json.dumps({"id": i, "segment": _MUSIC_WHEEL[index], "index": index, "extras": {"bonus": bonus}})
            + "\n"
        )
    return out


def music_wheel(line: str) -> str:
    item = json.loads(line)
    label, index, bonus = item["segment"], item["index"], item["extras"]["bonus"]
    hit = label == bonus["number"] and bonus["index"] in (None, index)
    n = int(label)
    bet = {"bet": label, "type": "number", "payout": (n * bonus["multiplier"] if hit else n) - 1}
    if hit:
        bet["bonus"] = True
    bonus = {"number": bonus["number"], "index": bonus["index"], "multiplier": bonus["multiplier"]}
    settled = {"winning_bets": [bet], "bonus_hit": hit, "bonus": bonus}
    return _wheel_line(item, {"segment": label, "index": index}, settled)


# Wheelbet (L4343-4395) and Spin & Win (L3967-3979): roulette numbers, colours and orders; k numbers pay 36/k - 1
_EUROPEAN_ORDER = (
    "0 32 15 19 4 21 2 25 17 34 6 27 13 36 11 30 8 23 10 5 24 16 33 1 20 14 31 9 22 18 29 7 28 12 35 3 26"
)
_AMERICAN_ORDER = (
    "0 28 9 26 30 11 7 20 32 17 5 22 34 15 3 24 36 13 1 00 27 10 25 29 12 8 19 31 18 6 21 33 16 4 23 35 14 2"
)


def _number_wheel_spots(wheelbet: bool) -> list[tuple[str, str, Wins, int | str]]:
    """(bet, type, wins(n or None for a zero, colour), payout) in the outcome's order; the numbers bets apart."""

    def within(lo: int, hi: int) -> Wins:
        return lambda n, c: n is not None and lo <= n <= hi

    def parity(rest: int, color: str | None = None) -> Wins:
        return lambda n, c: n is not None and n % 2 == rest and color in (None, c)

    spots: list[tuple[str, str, Wins]] = []
    if wheelbet:
        spots += [(f"range:{lo}-{lo + 11}", "range", within(lo, lo + 11)) for lo in (1, 13, 25)]
        for cut in (18, 14, 22, 9, 27):
            spots += [
                (f"under:{cut}.5", "under_over", within(1, cut)),
                (f"over:{cut}.5", "under_over", within(cut + 1, 36)),
            ]
        spots += [
            ("color:red", "color", lambda n, c: n is not None and c == "red"),
            ("color:black", "color", lambda n, c: n is not None and c == "black"),
            ("even", "parity", parity(0)),
            ("odd", "parity", parity(1)),
            ("even:red", "parity_color", parity(0, "red")),
            ("odd:red", "parity_color", parity(1, "red")),
            ("even:black", "parity_color", parity(0, "black")),
            ("odd:black", "parity_color", parity(1, "black")),
        ]
        spots += [
            (f"row:{r}", "row", lambda n, c, r=r: n is not None and (n - r) % 3 == 0) for r in (1, 2, 3)
        ]
    else:
        spots += [
            ("color:red", "color", lambda n, c: n is not None and c == "red"),
            ("color:black", "color", lambda n, c: n is not None and c == "black"),
            ("color:green", "color", lambda n, c: n is None),
        ]
        spots += [(f"range:{lo}-{lo + 11}", "range", within(lo, lo + 11)) for lo in (1, 13, 25)]
        spots += [("even", "parity", parity(0)), ("odd", "parity", parity(1))]
    numbers = [(None, "green")] + [(n, "red" if n in _RED else "black") for n in range(1, 37)]
    return [
        (bet, t, wins, _pays(Fraction(36, sum(bool(wins(n, c)) for n, c in numbers)) - 1))
        for bet, t, wins in spots
    ]


_SELECTIONS = [(f"selection:{k}", _pays(Fraction(36, k) - 1)) for k in (2, 3, 4, 6, 12, 18)]


def _number_wheel(zeros: tuple[str, ...], wheelbet: bool) -> Plain:
    spots = _number_wheel_spots(wheelbet)

    def evaluate(line: str) -> str:
        item = json.loads(line)
        label = item["segment"]
        n = None if label in zeros else int(label)
        color = "green" if n is None else "red" if n in _RED else "black"
        wins: list[dict] = [{"bet": f"number:{label}", "type": "number", "payout": 35}]
        if wheelbet:
            wins += [
                {"bet": bet, "type": "selection", "payout": pays, "contains": label}
                for bet, pays in _SELECTIONS
            ]
        wins += [{"bet": bet, "type": t, "payout": pays} for bet, t, won, pays in spots if won(n, color)]
        return _wheel_line(
            item, {"segment": label, "index": item["index"], "color": color}, {"winning_bets": wins}
        )

    return evaluate


# --- 1 Bet: one ball of 0-36 (seed 000 L3321-3417) ----------------------------------------------------------


def _one_bet_markets() -> list[tuple[str, int, Wins]]:
    """(bet, seed line, wins(n)) in the catalogue's order; 0 is under every line, in no interval, column or
    colour, neither even nor odd (the module's defaults)."""
    markets: list[tuple[str, int, Wins]] = []
    line = 3333

    def add(bet: str, wins: Wins) -> None:
        nonlocal line
        markets.append((bet, line, wins))
        line += 2

    for lo, hi in ((1, 12), (13, 24), (25, 36)):
        add(f"interval_{lo}_{hi}", lambda n, lo=lo, hi=hi: lo <= n <= hi)
    for col in (1, 2, 3):
        add(f"column_{col}", lambda n, col=col: n >= 1 and n % 3 == col % 3)
    for size in (3, 6):
        for lo in range(1, 37, size):
            add(f"interval_{lo}_{lo + size - 1}", lambda n, lo=lo, hi=lo + size - 1: lo <= n <= hi)
    for lo, hi in ((1, 18), (19, 36)):
        add(f"interval_{lo}_{hi}", lambda n, lo=lo, hi=hi: lo <= n <= hi)
    for t in (18.5, 14.5, 22.5, 9.5, 27.5):
        markets.append((f"over_{t}", line, lambda n, t=t: n > t))
        markets.append((f"under_{t}", line + 2, lambda n, t=t: n < t))
        line += 4
    markets += [
        ("red", 3405, lambda n: n in _RED),
        ("black", 3407, lambda n: n != 0 and n not in _RED),
        ("even", 3409, lambda n: n != 0 and n % 2 == 0),
        ("odd", 3411, lambda n: n % 2 == 1),
    ]
    return markets


_ONE_BET = _one_bet_markets()


def one_bet_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [json.dumps({"id": i, "balls": [str(rng.randint(0, 36))]}) + "\n" for i in range(rounds)]


def one_bet(line: str) -> str:
    item = json.loads(line)
    balls = item["balls"]
    n = int(balls[0])
    color = "green" if n == 0 else "red" if n in _RED else "black"
    wins = [{"bet": bet, "line": at} for bet, at, won in _ONE_BET if won(n)]
    outcome = {"balls": balls, "colors": [color], "number": n, "color": color, "winning_bets": wins}
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- Lotto Express 5/35 Plus (seed 000 L4571-4583) -----------------------------------------------------------


def lotto_express_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [
        json.dumps({"id": i, "balls": [str(b) for b in rng.sample(range(1, 36), 6)]}) + "\n"
        for i in range(rounds)
    ]


def lotto_express(line: str) -> str:
    """Every bet is a player's ticket, settled by its own odds table: the outcome is the draw, its first
    five balls and the sixth."""
    item = json.loads(line)
    balls = item["balls"]
    outcome = {"balls": balls, "first_round": balls[:5], "sixth_ball": balls[5]}
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- Craps (seed 000 L2745-2805; the standard rules where the seed's text contradicts the game) -------------

_POINTS = (4, 5, 6, 8, 9, 10)
_ONE_ROLL = {
    "field": {2: 2, 3: 1, 4: 1, 9: 1, 10: 1, 11: 1, 12: 2},
    "any_seven": {7: 4},
    "any_craps": {2: 7, 3: 7, 12: 7},
    "craps_2": {2: 30},
    "craps_3": {3: 15},
    "craps_12": {12: 30},
    "eleven": {11: 15},
    "c_and_e": {2: 3, 3: 3, 12: 3, 11: 7},
}
_TRUE_ODDS = {
    4: Fraction(2),
    5: Fraction(3, 2),
    6: Fraction(6, 5),
    8: Fraction(6, 5),
    9: Fraction(3, 2),
    10: Fraction(2),
}
_PLACE_WIN = {
    4: Fraction(9, 5),
    5: Fraction(7, 5),
    6: Fraction(7, 6),
    8: Fraction(7, 6),
    9: Fraction(7, 5),
    10: Fraction(9, 5),
}
_PLACE_LOSE = {
    4: Fraction(5, 11),
    5: Fraction(5, 8),
    6: Fraction(4, 5),
    8: Fraction(4, 5),
    9: Fraction(5, 8),
    10: Fraction(5, 11),
}
_HARDWAYS = {4: 7, 6: 9, 8: 9, 10: 7}


def craps_rounds(rng: random.Random, rounds: int) -> list[str]:
    """Throws at one table, the point carried from each throw to the next."""
    out, point = [], None
    for i in range(rounds):
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        out.append(json.dumps({"id": i, "dice": dice, "point": point}) + "\n")
        total = sum(dice)
        point = (
            (total if total in _POINTS else None) if point is None else None if total in (point, 7) else point
        )
    return out


def craps(line: str) -> str:
    """Every spot of the layout in exactly one list: won (net odds), lost, returned, moved (a come bet to its
    number), no action. On a come-out roll place-to-win bets and hardways are off and come-point odds are
    returned when their come bet is decided."""
    item = json.loads(line)
    dice, point = sorted(item["dice"]), item["point"]
    total = dice[0] + dice[1]
    come_out = point is None
    won: list[dict] = []
    lost: list[dict] = []
    back: list[dict] = []
    moved: list[dict] = []
    none: list[str] = []

    def win(bet: str, t: str, pays: Fraction | int) -> None:
        won.append({"bet": bet, "type": t, "payout": _pays(pays)})

    def lose(bet: str, t: str) -> None:
        lost.append({"bet": bet, "type": t})

    for bet, table in _ONE_ROLL.items():
        if total in table:
            win(bet, bet, table[total])
        else:
            lose(bet, bet)
    # the line bets: on the come-out as a come bet, after it decided like a come point on the point
    for bet, right in (("pass_line", True), ("dont_pass", False)):
        if come_out:
            if total in ((7, 11) if right else (2, 3)):
                win(bet, bet, 1)
            elif total in ((2, 3, 12) if right else (7, 11)):
                lose(bet, bet)
            elif total == 12:
                back.append({"bet": bet, "type": bet, "returned": 1})
            else:
                none.append(bet)
        elif total not in (point, 7):
            none.append(bet)
        elif (total == point) == right:
            win(bet, bet, 1)
        else:
            lose(bet, bet)
    if total in (7, 11):
        win("come", "come", 1)
    elif total in (2, 3, 12):
        lose("come", "come")
    else:
        moved.append({"bet": "come", "type": "come", "to": f"come:{total}"})
    if total in (2, 3):
        win("dont_come", "dont_come", 1)
    elif total == 12:
        back.append({"bet": "dont_come", "type": "dont_come", "returned": 1})
    elif total in (7, 11):
        lose("dont_come", "dont_come")
    else:
        moved.append({"bet": "dont_come", "type": "dont_come", "to": f"dont_come:{total}"})
    for kind, t, on_number, pays in (
        ("come", "come_point", True, dict.fromkeys(_POINTS, 1)),
        ("dont_come", "dont_come_point", False, dict.fromkeys(_POINTS, 1)),
        ("take_odds", "take_odds", True, _TRUE_ODDS),
        ("lay_odds", "lay_odds", False, {n: 1 / x for n, x in _TRUE_ODDS.items()}),
        ("place_win", "place_win", True, _PLACE_WIN),
        ("place_lose", "place_lose", False, _PLACE_LOSE),
    ):
        for n in _POINTS:
            bet = f"{kind}:{n}"
            if total not in (n, 7):
                none.append(bet)
            elif come_out and kind in ("take_odds", "place_win"):
                if kind == "take_odds":
                    back.append({"bet": bet, "type": t, "returned": 1})
                else:
                    none.append(bet)
            elif (total == n) == on_number:
                win(bet, t, pays[n])
            else:
                lose(bet, t)
    for n, hard_pays in _HARDWAYS.items():
        bet = f"hardway:{n}"
        if come_out:
            none.append(bet)
        elif total == n and dice[0] == dice[1]:
            win(bet, "hardway", hard_pays)
        elif total in (n, 7):
            lose(bet, "hardway")
        else:
            none.append(bet)
    if come_out:
        new_point = total if total in _POINTS else None
    else:
        new_point = None if total in (point, 7) else point
    outcome = {
        "dice": dice,
        "point": point,
        "total": total,
        "hard": dice[0] == dice[1],
        "roll": "come_out" if come_out else "point",
        "new_point": new_point,
        "winning_bets": won,
        "losing_bets": lost,
        "returned_bets": back,
        "moved_bets": moved,
        "no_action_bets": none,
    }
    result = {"dice": dice, "point": point}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})


# --- Fruitrace (seed 000 L2905-2942) ------------------------------------------------------------------------

_FRUIT_COLORS = {"plum": "blue", "cherry": "red", "lemon": "yellow", "7": "orange"}
#: the panel as the seed lists it (its order is not given: the module's default), position i beside ball i
_PANEL = ["plum"] * 3 + ["cherry"] * 3 + ["lemon"] * 3 + ["7"]
_FRUIT_LINES = {4: 2917, 5: 2919, 6: 2921, 7: 2923, 8: 2925, 10: 2927}


def fruitrace_rounds(rng: random.Random, rounds: int) -> list[str]:
    out = []
    for i in range(rounds):
        balls = _PANEL[:]
        rng.shuffle(balls)
        out.append(json.dumps({"id": i, "balls": balls}) + "\n")
    return out


def fruitrace(line: str) -> str:
    """All ten balls fall into the tube: 4-8 or 10 matches with the panel win, or the "7" matched alone."""
    item = json.loads(line)
    balls = item["balls"]
    matches = sum(b == p for b, p in zip(balls, _PANEL))
    seven = balls.index("7") == 9
    category = f"matches_{matches}" if matches >= 4 else "seven_only" if matches == 1 and seven else None
    wins = []
    if category == "seven_only":
        wins.append({"bet": "seven_only", "line": 2915})
    elif category is not None:
        wins.append({"bet": category, "line": _FRUIT_LINES[matches]})
    outcome = {
        "balls": balls,
        "colors": [_FRUIT_COLORS[b] for b in balls],
        "panel": _PANEL,
        "matches": matches,
        "seven_matched": seven,
        "category": category,
        "winning_bets": wins,
    }
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- MEGA 6: 6 of 49, odd balls white, even pink (seed 000 L4193-4249) ---------------------------------------


def mega_6_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [
        json.dumps({"id": i, "balls": [str(b) for b in rng.sample(range(1, 50), 6)]}) + "\n"
        for i in range(rounds)
    ]


def mega_6(line: str) -> str:
    """The fixed bets on the first balls, the colours, the sum and each colour's sum (strict over/under; 3
    and 3 is neither more white nor more pink; a colour not drawn sums to 0)."""
    item = json.loads(line)
    balls = item["balls"]
    numbers = [int(b) for b in balls]
    colors = ["white" if n % 2 else "pink" for n in numbers]
    first, second = numbers[0], numbers[1]
    total = sum(numbers)
    whites = colors.count("white")
    white_sum = sum(n for n in numbers if n % 2)
    pink_sum = total - white_sum
    bets: list[tuple[str, int, bool]] = [(f"first_over_{t}", 4203, first > t) for t in (15, 25, 35)]
    bets += [
        ("first_two_over_25", 4205, first > 25 and second > 25),
        ("first_two_under_25", 4205, first < 25 and second < 25),
        ("all_white", 4209, whites == 6),
        ("all_pink", 4211, whites == 0),
        ("more_white", 4213, whites > 3),
        ("more_pink", 4215, whites < 3),
        ("first_white", 4217, colors[0] == "white"),
        ("first_pink", 4219, colors[0] == "pink"),
        ("first_two_white", 4221, colors[:2] == ["white", "white"]),
        ("first_two_pink", 4223, colors[:2] == ["pink", "pink"]),
        ("first_white_second_pink", 4225, colors[:2] == ["white", "pink"]),
        ("first_pink_second_white", 4227, colors[:2] == ["pink", "white"]),
        ("sum_even", 4229, total % 2 == 0),
        ("sum_odd", 4229, total % 2 == 1),
    ]
    bets += [(f"sum_under_{t}", 4231, total < t) for t in (120, 135, 150)]
    bets += [(f"sum_over_{t}", 4233, total > t) for t in (155, 170, 185)]
    bets += [
        ("white_sum_over_100", 4235, white_sum > 100),
        ("white_sum_under_65", 4237, white_sum < 65),
        ("pink_sum_over_100", 4239, pink_sum > 100),
        ("pink_sum_under_65", 4241, pink_sum < 65),
    ]
    outcome = {
        "balls": balls,
        "colors": colors,
        "sum": total,
        "first": first,
        "second": second,
        "color_counts": {"white": whites, "pink": 6 - whites},
        "color_sums": {"white": white_sum, "pink": pink_sum},
        "winning_bets": [{"bet": bet, "line": at} for bet, at, won in bets if won],
    }
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- Lucky 7: 7 of 42, odd balls black, even yellow (seed 000 L2317-2466) ------------------------------------


def lucky_7_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [
        json.dumps({"id": i, "balls": [str(b) for b in rng.sample(range(1, 43), 7)]}) + "\n"
        for i in range(rounds)
    ]


def lucky_7(line: str) -> str:
    """The fixed bets (seed item k on line 2319 + 2k): each colour's sum against 73.5, the sum against
    100.5-200.5, each colour's count, odd/even, the first, second and last balls' parity and colour."""
    item = json.loads(line)
    balls = item["balls"]
    numbers = [int(b) for b in balls]
    colors = ["black" if n % 2 else "yellow" for n in numbers]
    total = sum(numbers)
    count = {"black": colors.count("black"), "yellow": colors.count("yellow")}
    sums = {c: sum(n for n, k in zip(numbers, colors) if k == c) for c in ("black", "yellow")}
    odd = count["black"]
    first, second, last = numbers[0] % 2, numbers[1] % 2, numbers[-1] % 2
    bets: list[tuple[int, str, bool]] = [
        (12, "yellow_sum_under_73.5", sums["yellow"] < 73.5),
        (13, "yellow_sum_over_73.5", sums["yellow"] > 73.5),
        (14, "black_sum_under_73.5", sums["black"] < 73.5),
        (15, "black_sum_over_73.5", sums["black"] > 73.5),
    ]
    for k, (side, t) in enumerate(
        (
            ("under", 100.5),
            ("under", 125.5),
            ("over", 125.5),
            ("under", 150.5),
            ("over", 150.5),
            ("under", 175.5),
            ("over", 175.5),
            ("under", 200.5),
        ),
        16,
    ):
        bets.append((k, f"sum_{side}_{t}", total < t if side == "under" else total > t))
    for base, c in ((24, "yellow"), (31, "black")):
        n = count[c]
        bets += [
            (base, f"{c}_under_3.5", n <= 3),
            (base + 1, f"{c}_over_3.5", n >= 4),
            (base + 2, f"{c}_under_2.5", n <= 2),
            (base + 3, f"{c}_over_2.5", n >= 3),
            (base + 4, f"{c}_under_1.5", n <= 1),
            (base + 5, f"{c}_over_1.5", n >= 2),
            (base + 6, f"{c}_none", n == 0),
        ]
    for base, c in ((38, "yellow"), (45, "black")):
        bets.append((base, f"{c}_7", count[c] == 7))
        bets += [(base + i, f"{c}_exactly_{k}", count[c] == k) for i, k in enumerate(range(6, 0, -1), 1)]
    bets += [
        (52, "more_odd", odd > 7 - odd),
        (53, "more_even", 7 - odd > odd),
        (54, "sum_odd", total % 2 == 1),
        (55, "sum_even", total % 2 == 0),
        (56, "first_odd", first == 1),
        (57, "first_even", first == 0),
        (58, "last_odd", last == 1),
        (59, "last_even", last == 0),
        (60, "first_two_odd", first == 1 and second == 1),
        (61, "first_two_even", first == 0 and second == 0),
        (62, "first_odd_second_even", first == 1 and second == 0),
        (63, "first_even_second_odd", first == 0 and second == 1),
        (64, "first_odd_last_even", first == 1 and last == 0),
        (65, "first_even_last_odd", first == 0 and last == 1),
        (66, "first_yellow", colors[0] == "yellow"),
        (67, "first_black", colors[0] == "black"),
        (68, "last_yellow", colors[-1] == "yellow"),
        (69, "last_black", colors[-1] == "black"),
        (70, "more_yellow", count["yellow"] > count["black"]),
        (71, "more_black", count["black"] > count["yellow"]),
        (72, "first_two_same_color", colors[0] == colors[1]),
        (73, "first_two_different_colors", colors[0] != colors[1]),
    ]
    outcome = {
        "balls": balls,
        "colors": colors,
        "sum": total,
        "odd": odd,
        "even": 7 - odd,
        "color_counts": count,
        "color_sums": sums,
        "winning_bets": [{"bet": bet, "line": 2319 + 2 * k} for k, bet, won in bets if won],
    }
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- Super Six: 35 of 48, eight colours in the seed's order repeating (seed 000 L4251-4285) -------------------

_SUPER_SIX_COLORS = ("red", "green", "blue", "purple", "brown", "yellow", "orange", "black")


def _35_balls(balls: list[str], palette: tuple[str, ...]) -> tuple[dict, int, int, int, int]:
    """What Super Six and Lucky 6 of 48 write of 35 balls of 1-48 (ball n's colour the ((n - 1) mod 8)-th of
    `palette`), and the first five's sum, the first, the last, the odd balls."""
    numbers = [int(b) for b in balls]
    colors = [palette[(n - 1) % 8] for n in numbers]
    first5, first, last = sum(numbers[:5]), numbers[0], numbers[-1]
    odd = sum(n % 2 for n in numbers)
    drawn = {
        "balls": balls,
        "colors": colors,
        "first5_sum": first5,
        "first": first,
        "last": last,
        "first_color": colors[0],
        "last_color": colors[-1],
        "odd": odd,
        "even": 35 - odd,
    }
    return drawn, first5, first, last, odd


def _35_of_48_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [
        json.dumps({"id": i, "balls": [str(b) for b in rng.sample(range(1, 49), 35)]}) + "\n"
        for i in range(rounds)
    ]


def super_six(line: str) -> str:
    """The fixed bets: the first five balls' sum against 122.5, the first ball against 24.5, the first and
    last balls' parity, more even or odd balls; the colour with the most balls, if only one."""
    item = json.loads(line)
    balls = item["balls"]
    drawn, first5, first, last, odd = _35_balls(balls, _SUPER_SIX_COLORS)
    colors = drawn["colors"]
    counts = {c: colors.count(c) for c in _SUPER_SIX_COLORS}
    top = max(counts.values())
    leaders = [c for c, n in counts.items() if n == top]
    bets = [
        ("first5_sum_over_122.5", 4263, first5 > 122.5),
        ("first5_sum_under_122.5", 4263, first5 < 122.5),
        ("first_over_24.5", 4265, first > 24.5),
        ("first_under_24.5", 4265, first < 24.5),
        ("first_even", 4271, first % 2 == 0),
        ("first_odd", 4271, first % 2 == 1),
        ("last_even", 4273, last % 2 == 0),
        ("last_odd", 4273, last % 2 == 1),
        ("more_even", 4275, 35 - odd > odd),
        ("more_odd", 4275, odd > 35 - odd),
    ]
    outcome = {
        **drawn,
        "color_counts": counts,
        "most_color": leaders[0] if len(leaders) == 1 else None,
        "winning_bets": [{"bet": bet, "line": at} for bet, at, won in bets if won],
    }
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- Lucky 6 with 60 balls: 30 red and 30 blue marked 0-9, six drop into zones A B C (seed 000 L2535-2616) ----

#: the ball set: each colour's digits 0-9 three times (the seed gives only the digits' sums, 138 and 132)
_LUCKY60_SET = [f"{c}-{d}" for c in ("red", "blue") for d in range(10) for _ in range(3)]


def lucky_6_60_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [json.dumps({"id": i, "balls": rng.sample(_LUCKY60_SET, 6)}) + "\n" for i in range(rounds)]


def lucky_6_60(line: str) -> str:
    """The fixed bets (seed item k on line 2539 + 2k): each colour's digit sum, each zone's sum against 9.5
    and its parity, the sum's parity and lines, the count of even digits (0 is even)."""
    item = json.loads(line)
    balls = item["balls"]
    colors = [b.split("-")[0] for b in balls]
    digits = [int(b.split("-")[1]) for b in balls]
    zones = {z: f"{digits[2 * i]}{digits[2 * i + 1]}" for i, z in enumerate("ABC")}
    zone_sums = {z: digits[2 * i] + digits[2 * i + 1] for i, z in enumerate("ABC")}
    total = sum(digits)
    sums = {c: sum(d for d, k in zip(digits, colors) if k == c) for c in ("red", "blue")}
    even = sum(1 for d in digits if d % 2 == 0)
    bets: list[tuple[int, str, bool]] = [
        (11, "red_sum_under_13.5", sums["red"] < 13.5),
        (12, "red_sum_over_13.5", sums["red"] > 13.5),
        (13, "blue_sum_under_12.5", sums["blue"] < 12.5),
        (14, "blue_sum_over_12.5", sums["blue"] > 12.5),
    ]
    for i, z in enumerate("ABC"):
        bets += [(15 + 2 * i, f"zone_{z}_sum_under_9.5", zone_sums[z] < 9.5)]
        bets += [(16 + 2 * i, f"zone_{z}_sum_over_9.5", zone_sums[z] > 9.5)]
    bets += [
        (21, "sum_even", total % 2 == 0),
        (22, "sum_odd", total % 2 == 1),
        (23, "even_count_under_2.5", even <= 2),
        (24, "even_count_over_2.5", even >= 3),
        (25, "odd_count_under_2.5", 6 - even <= 2),
        (26, "odd_count_over_2.5", 6 - even >= 3),
    ]
    for i, z in enumerate("ABC"):
        bets += [(27 + 2 * i, f"zone_{z}_sum_even", zone_sums[z] % 2 == 0)]
        bets += [(28 + 2 * i, f"zone_{z}_sum_odd", zone_sums[z] % 2 == 1)]
    for i, t in enumerate((26.5, 15.5, 38.5)):
        bets += [(33 + 2 * i, f"sum_under_{t}", total < t), (34 + 2 * i, f"sum_over_{t}", total > t)]
    outcome = {
        "balls": balls,
        "colors": colors,
        "digits": digits,
        "zones": zones,
        "zone_sums": zone_sums,
        "sum": total,
        "color_sums": sums,
        "even": even,
        "odd": 6 - even,
        "winning_bets": [{"bet": bet, "line": 2539 + 2 * k} for k, bet, won in bets if won],
    }
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- Lucky 6 with 48 balls, 35 drawn, colours of L2949-2963 repeating (seed 000 L2943-3066) ------------------

_LUCKY48_COLORS = ("green", "blue", "red", "purple", "yellow", "orange", "brown", "black")


def lucky_6_48(line: str) -> str:
    """The fixed bets (seed item k on line 2969 + 2k): the first five balls' sum against 122.5, the first and
    last balls against 24.5 and their parity, more even or odd balls."""
    item = json.loads(line)
    balls = item["balls"]
    drawn, first5, first, last, odd = _35_balls(balls, _LUCKY48_COLORS)
    bets = [
        (31, "first5_sum_over_122.5", first5 > 122.5),
        (32, "first5_sum_under_122.5", first5 < 122.5),
        (33, "first_over_24.5", first > 24.5),
        (34, "first_under_24.5", first < 24.5),
        (35, "last_over_24.5", last > 24.5),
        (36, "last_under_24.5", last < 24.5),
        (37, "first_even", first % 2 == 0),
        (38, "first_odd", first % 2 == 1),
        (39, "last_even", last % 2 == 0),
        (40, "last_odd", last % 2 == 1),
        (41, "more_even", 35 - odd > odd),
        (42, "more_odd", odd > 35 - odd),
    ]
    outcome = {
        **drawn,
        "winning_bets": [{"bet": bet, "line": 2969 + 2 * k} for k, bet, won in bets if won],
    }
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


GAMES: dict[str, tuple[Generator, Plain]] = {
    "double_ball_roulette": (double_ball_rounds, double_ball_roulette),
    "lightning_roulette": (_lucky_rounds(_LIGHTNING_PAYOUTS), _lucky_roulette(29)),
    "mega_roulette": (_lucky_rounds(_MEGA_PAYOUTS), _lucky_roulette(30)),
    "dice_duel": (dice_duel_rounds, dice_duel),
    "craps": (craps_rounds, craps),
    "lightning_dice": (lightning_dice_rounds, lightning_dice),
    "fan_tan": (fan_tan_rounds, fan_tan),
    "wheel_of_fortune": (_wheel_rounds([str(n) for n in range(1, 19)] + ["cup"]), wheel_of_fortune),
    "mega_wheel": (mega_wheel_rounds, mega_wheel),
    "music_wheel": (music_wheel_rounds, music_wheel),
    "wheelbet": (_wheel_rounds(_AMERICAN_ORDER.split()), _number_wheel(("0", "00"), wheelbet=True)),
    "one_bet": (one_bet_rounds, one_bet),
    "fruitrace": (fruitrace_rounds, fruitrace),
    "mega_6": (mega_6_rounds, mega_6),
    "lucky_7": (lucky_7_rounds, lucky_7),
    "lucky_6_60": (lucky_6_60_rounds, lucky_6_60),
    "super_six": (_35_of_48_rounds, super_six),
    "lucky_6_48": (_35_of_48_rounds, lucky_6_48),
    "lotto_express_5_35": (lotto_express_rounds, lotto_express),
    "spin_and_win": (_wheel_rounds(_EUROPEAN_ORDER.split()), _number_wheel(("0",), wheelbet=False)),
}
