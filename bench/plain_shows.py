"""Plain implementations of the game shows' rules for `studio evaluate`, and rounds to feed them (issue 25,
target 4): Deal or No Deal, Mega Ball, Cash or Crash, Crazy Time, Monopoly Live, and poker with joker.

In the style of plain_rules.py: one `json.loads` a line, the rules as plain Python read from the seed and the
game's module for the choices the seed leaves open (the boards, wheels and tables the seeds do not give are
the modules' own, copied here), one `json.dumps` a line; nothing of `recognition`. The rounds carry the
computer draws the studio commits when a round opens (`extras`), drawn here as the studio draws them.
`GAMES` maps a game id to its (round generator, plain line function); plain_rules.py adds them to its own.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from bench.plain_cards import _HANDS, DECK, Generator, Plain, _answer, _line, _rank5, _winner


def _exact(x: Fraction | int) -> int | str:
    """An amount as the studio writes it: an int when whole, else "n/d"."""
    x = Fraction(x)
    return int(x) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _weighted(rng: random.Random, table: tuple[tuple[int, int], ...]) -> int:
    pick = rng.randrange(sum(w for _, w in table))
    for value, weight in table:
        if pick < weight:
            return value
        pick -= weight
    raise AssertionError("unreachable")


# --- Deal or No Deal (seed 000 L1942-2009): the 16 briefcases in the order opened -----------------------------


def deal_or_no_deal_rounds(rng: random.Random, rounds: int) -> list[str]:
    return [json.dumps({"id": i, "opened": rng.sample(range(1, 17), 16)}) + "\n" for i in range(rounds)]


def deal_or_no_deal(line: str) -> str:
    """Four stages of 3, 4, 4 and 3 briefcases, an offer after each; the 15th opened is the other briefcase
    (Switch wins it), the 16th the player's (No Deal wins it)."""
    item = json.loads(line)
    opened = item["opened"]
    stages, closed, at = [], [], 0
    for n in (3, 4, 4, 3):
        stages.append(opened[at : at + n])
        at += n
        closed.append(sorted(opened[at:]))
    outcome = {
        "winning_bets": [
            {"bet": "no_deal", "briefcase": opened[15]},
            {"bet": "switch", "briefcase": opened[14]},
        ],
        "pushed_bets": [],
        "stages": stages,
        "closed_at_offer": closed,
        "player_briefcase": opened[15],
        "other_briefcase": opened[14],
    }
    return _line({"id": item["id"], "valid": True, "result": {"opened": opened}, "outcome": outcome})


# --- Mega Ball (seed 000 L2837-2868): 20 of 51, then one or two Mega Balls --------------------------------------

_MEGA_LINES = {"1": 1, "2": 5, "3": 50, "4": 250, "5": 1000, "6": 10000}


def mega_ball_rounds(rng: random.Random, rounds: int) -> list[str]:
    """A second Mega Ball one round in ten; every multiplier 5-100 equally likely."""
    out = []
    for i in range(rounds):
        megas = 2 if rng.random() < 0.1 else 1
        balls = [str(b) for b in rng.sample(range(1, 52), 20 + megas)]
        extras = {"mega_multipliers": [rng.randint(5, 100) for _ in range(megas)]}
        out.append(json.dumps({"id": i, "balls": balls, "extras": extras}) + "\n")
    return out


def mega_ball(line: str) -> str:
    """The draw, its Mega Balls with their multipliers and the seed's line table (cards settle apart)."""
    item = json.loads(line)
    balls = item["balls"]
    mults = item["extras"]["mega_multipliers"]
    outcome = {
        "balls": balls,
        "main_balls": balls[:20],
        "mega_balls": [{"ball": b, "multiplier": m} for b, m in zip(balls[20:], mults)],
        "line_payouts": _MEGA_LINES,
        "max_lines_paid": 6,
        "mega_rule": "seed",
    }
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- Cash or Crash (seed 000 L4397-4409): 19 green, 8 red, 1 golden, until the blimp crashes ------------------


def cash_or_crash_rounds(rng: random.Random, rounds: int) -> list[str]:
    out = []
    for i in range(rounds):
        bag = ["green"] * 19 + ["red"] * 8 + ["golden"]
        rng.shuffle(bag)
        balls, level, shield = [], 0, False
        for ball in bag:
            balls.append(ball)
            if ball != "red":
                level += 1
                shield = shield or ball == "golden"
            elif shield:
                shield = False
            else:
                break
            if level == 20:
                break
        out.append(json.dumps({"id": i, "balls": balls}) + "\n")
    return out


def cash_or_crash(line: str) -> str:
    """Green raises the blimp a level, golden too and gives it a shield; a red uses the shield up, or crashes
    an unshielded blimp; level 20 is the top."""
    item = json.loads(line)
    balls = item["balls"]
    level, shield, levels, end, shield_used_at = 0, False, [], None, None
    for n, ball in enumerate(balls, 1):
        if ball == "green":
            level += 1
        elif ball == "golden":
            level += 1
            shield = True
        elif shield:
            shield = False
            if shield_used_at is None:
                shield_used_at = n
        else:
            end = "crash"
        if end is None and level == 20:
            end = "top"
        levels.append(level)
    outcome = {
        "balls": balls,
        "colors": balls,
        "levels": levels,
        "final_level": level,
        "end": end,
        "shield_used_at": shield_used_at,
    }
    return _line({"id": item["id"], "valid": True, "result": {"balls": balls}, "outcome": outcome})


# --- Crazy Time (seed 000 L2047-2098): the main wheel, the Top Slot and four bonus games -------------------------

#: the main wheel's default order (recognition/money_wheel's, the seed gives the counts only)
_CT_MAIN = [
    "1",
    "2",
    "5",
    "1",
    "10",
    "2",
    "1",
    "coin_flip",
    "1",
    "2",
    "5",
    "1",
    "cash_hunt",
    "pachinko",
    "1",
    "2",
    "1",
    "2",
    "5",
    "1",
    "10",
    "coin_flip",
    "1",
    "2",
    "1",
    "crazy_time",
    "1",
    "2",
    "5",
    "1",
    "2",
    "1",
    "10",
    "coin_flip",
    "1",
    "2",
    "5",
    "1",
    "cash_hunt",
    "2",
    "1",
    "pachinko",
    "1",
    "5",
    "2",
    "1",
    "10",
    "1",
    "2",
    "coin_flip",
    "1",
    "5",
    "2",
    "1",
]
_CT_SPOTS = ("1", "2", "5", "10", "cash_hunt", "pachinko", "coin_flip", "crazy_time")
_TOP_SLOT = ((2, 10), (3, 8), (4, 6), (5, 6), (7, 4), (10, 4), (15, 2), (20, 2), (25, 1), (50, 1))
_CASH_HUNT = (
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
_COIN = ((2, 10), (3, 10), (4, 8), (5, 8), (6, 5), (8, 5), (10, 5), (15, 3), (20, 3), (25, 2), (50, 1))
_PACHINKO: list[Any] = [2, 10, 5, 25, 3, 50, "DOUBLE", 5, 3, 100, 10, "DOUBLE", 25, 7, 2, 4]
#: the bonus wheel, 64 segments (the module's order)
_CT_BONUS: list[Any] = [
    int(v) if v.isdigit() else v
    for v in [
        "10",
        "20",
        "50",
        "15",
        "25",
        "100",
        "75",
        "200",
        "10",
        "20",
        "50",
        "15",
        "25",
        "150",
        "DOUBLE",
        "10",
        "20",
        "50",
        "100",
        "15",
        "25",
        "10",
        "20",
        "50",
        "500",
        "100",
        "TRIPLE",
        "15",
        "25",
        "10",
        "20",
        "50",
        "75",
        "200",
        "10",
        "20",
        "50",
        "15",
        "25",
        "100",
        "10",
        "20",
        "50",
        "15",
        "25",
        "150",
        "DOUBLE",
        "10",
        "20",
        "50",
        "100",
        "15",
        "25",
        "75",
        "10",
        "20",
        "50",
        "200",
        "100",
        "15",
        "25",
        "10",
        "20",
        "50",
    ]
]
_FLAPPERS = (("green", 0), ("blue", 21), ("yellow", 43))


def _pachinko_double(board: list[Any]) -> list[Any]:
    """Every multiplier doubled, up to 10,000x; all at 10,000x: DOUBLE is 10,000x too."""
    board = [v if v == "DOUBLE" else min(10_000, v * 2) for v in board]
    if all(v == 10_000 for v in board if v != "DOUBLE"):
        board = [10_000 if v == "DOUBLE" else v for v in board]
    return board


def _flappers(stops: list[int], boost: int) -> dict[str, dict[str, Any]]:
    """Each flapper's multiplier after the spins: DOUBLE/TRIPLE under it multiply its wheel and spin again."""
    out = {}
    for name, offset in _FLAPPERS:
        wheel = [v if v in ("DOUBLE", "TRIPLE") else v * boost for v in _CT_BONUS]
        value, spins = None, 0
        for stop in stops:
            spins += 1
            v = wheel[(stop + offset) % 64]
            if v in ("DOUBLE", "TRIPLE"):
                k = 2 if v == "DOUBLE" else 3
                wheel = [x if x in ("DOUBLE", "TRIPLE") else min(20_000, x * k) for x in wheel]
                if all(x == 20_000 for x in wheel if x not in ("DOUBLE", "TRIPLE")):
                    wheel = [20_000 if x in ("DOUBLE", "TRIPLE") else x for x in wheel]
                continue
            value = v
            break
        out[name] = {"value": value, "spins": spins, "done": value is not None}
    return out


def _crazy_time_extras(rng: random.Random) -> dict[str, Any]:
    """The Top Slot and the four bonus games, drawn when the round opens (a Rescue Drop one time in four)."""
    spot = rng.choice(_CT_SPOTS)
    multiplier = _weighted(rng, _TOP_SLOT) if rng.random() < 0.5 else None

    def boost(bonus: str) -> int:
        return multiplier if spot == bonus and multiplier else 1

    board = [v if v == "DOUBLE" else v * boost("pachinko") for v in _PACHINKO]
    drops: list[dict[str, Any]] = []
    while True:
        zone = rng.randint(4, 12)
        slot = min(16, max(1, zone + sum(rng.randrange(2) for _ in range(8)) - 4))
        value = board[slot - 1]
        drop: dict[str, Any] = {"zone": zone, "slot": slot}
        drops.append(drop)
        if value == "DOUBLE":
            board = _pachinko_double(board)
        elif value in (2, 3, 4) and rng.random() < 0.25:
            drop["rescue"] = True
            board = [v if v == "DOUBLE" or v >= value else value for v in board]
        else:
            break
    stops = [rng.randrange(64)]
    while not all(f["done"] for f in _flappers(stops, boost("crazy_time")).values()):
        stops.append(rng.randrange(64))
    return {
        "top_slot": {"spot": spot, "multiplier": multiplier},
        "bonus": {
            "cash_hunt": {
                "wall": [_weighted(rng, _CASH_HUNT) for _ in range(108)],
                "auto_choice": rng.randrange(108),
            },
            "pachinko": {"drops": drops},
            "coin_flip": {
                "red": _weighted(rng, _COIN),
                "blue": _weighted(rng, _COIN),
                "side": rng.choice(("red", "blue")),
            },
            "crazy_time": {"stops": stops, "auto_choice": rng.choice(("green", "blue", "yellow"))},
        },
    }


def crazy_time_rounds(rng: random.Random, rounds: int) -> list[str]:
    out = []
    for i in range(rounds):
        index = rng.randrange(54)
        item = {"id": i, "segment": _CT_MAIN[index], "index": index, "extras": _crazy_time_extras(rng)}
        out.append(json.dumps(item) + "\n")
    return out


def crazy_time(line: str) -> str:
    """A number pays its number to 1; a bonus game pays what it gives; the Top Slot's multiplier multiplies
    the winning segment's payout, or every multiplier of its bonus game, when its spot is that segment."""
    item = json.loads(line)
    label, extras = item["segment"], item["extras"]
    top = extras["top_slot"]
    boost = top["multiplier"] if top["multiplier"] and top["spot"] == label else 1
    outcome: dict[str, Any] = {
        "segment": label,
        "index": item["index"],
        "top_slot": {"spot": top["spot"], "multiplier": top["multiplier"]},
        "top_slot_applied": boost != 1,
    }
    if label in ("1", "2", "5", "10"):
        outcome["winning_bets"] = [{"bet": label, "type": "number", "payout": int(label) * boost}]
    elif label == "cash_hunt":
        game = extras["bonus"]["cash_hunt"]
        outcome["winning_bets"] = [
            {
                "bet": "cash_hunt",
                "type": "bonus_choice",
                "choices": [v * boost for v in game["wall"]],
                "auto_choice": game["auto_choice"],
                "pays": "the multiplier at the spot the player picked, to 1",
            }
        ]
    elif label == "pachinko":
        drops = extras["bonus"]["pachinko"]["drops"]
        board = [v if v == "DOUBLE" else v * boost for v in _PACHINKO]
        for drop in drops:
            value = board[drop["slot"] - 1]
            if value == "DOUBLE":
                board = _pachinko_double(board)
            elif drop.get("rescue"):
                board = [v if v == "DOUBLE" or v >= value else value for v in board]
        outcome["winning_bets"] = [{"bet": "pachinko", "type": "bonus", "payout": value}]
        outcome["pachinko"] = {"drops": drops, "board": board, "win": value}
    elif label == "coin_flip":
        game = extras["bonus"]["coin_flip"]
        values = {"red": game["red"] * boost, "blue": game["blue"] * boost}
        outcome["winning_bets"] = [{"bet": "coin_flip", "type": "bonus", "payout": values[game["side"]]}]
        outcome["coin_flip"] = {**values, "side": game["side"]}
    else:
        game = extras["bonus"]["crazy_time"]
        flappers = _flappers(game["stops"], boost)
        outcome["winning_bets"] = [
            {
                "bet": "crazy_time",
                "type": "bonus_choice",
                "choices": {name: f["value"] for name, f in flappers.items()},
                "auto_choice": game["auto_choice"],
                "pays": "the multiplier under the flapper the player picked, to 1",
            }
        ]
        outcome["crazy_time"] = {"stops": game["stops"], "flappers": flappers}
    result = {"segment": label, "index": item["index"]}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": outcome})


# --- Monopoly Live (seed 000 L1861-1941): the wheel, Chance, and the 2 Rolls / 4 Rolls board walk ------------------

_MONO_MAIN = [
    "1",
    "2",
    "5",
    "1",
    "2",
    "1",
    "10",
    "2_rolls",
    "1",
    "2",
    "1",
    "5",
    "2",
    "1",
    "chance",
    "1",
    "2",
    "1",
    "5",
    "2",
    "1",
    "10",
    "4_rolls",
    "1",
    "2",
    "1",
    "2",
    "5",
    "1",
    "2_rolls",
    "1",
    "2",
    "1",
    "10",
    "2",
    "1",
    "5",
    "2",
    "1",
    "chance",
    "1",
    "2",
    "5",
    "1",
    "2",
    "1",
    "2_rolls",
    "1",
    "10",
    "2",
    "1",
    "5",
    "2",
    "1",
]
#: the 40 fields from GO (name, kind, value in stakes of a property's group, a railway, Free Parking: the module's)
_BOARD: list[tuple[str, str, int]] = [
    ("GO", "go", 0),
    ("Mediterranean Avenue", "property", 1),
    ("Community Chest", "chest", 0),
    ("Baltic Avenue", "property", 1),
    ("Income Tax", "tax", 0),
    ("Reading Railroad", "railway", 5),
    ("Oriental Avenue", "property", 2),
    ("Chance", "chance", 0),
    ("Vermont Avenue", "property", 2),
    ("Connecticut Avenue", "property", 2),
    ("Jail", "jail", 0),
    ("St. Charles Place", "property", 3),
    ("Electric Company", "utility", 0),
    ("States Avenue", "property", 3),
    ("Virginia Avenue", "property", 3),
    ("Pennsylvania Railroad", "railway", 5),
    ("St. James Place", "property", 4),
    ("Community Chest", "chest", 0),
    ("Tennessee Avenue", "property", 4),
    ("New York Avenue", "property", 4),
    ("Free Parking", "parking", 8),
    ("Kentucky Avenue", "property", 5),
    ("Chance", "chance", 0),
    ("Indiana Avenue", "property", 5),
    ("Illinois Avenue", "property", 5),
    ("B. & O. Railroad", "railway", 5),
    ("Atlantic Avenue", "property", 6),
    ("Ventnor Avenue", "property", 6),
    ("Water Works", "utility", 0),
    ("Marvin Gardens", "property", 6),
    ("Go to Jail", "gotojail", 0),
    ("Pacific Avenue", "property", 8),
    ("North Carolina Avenue", "property", 8),
    ("Community Chest", "chest", 0),
    ("Pennsylvania Avenue", "property", 8),
    ("Short Line", "railway", 5),
    ("Chance", "chance", 0),
    ("Park Place", "property", 10),
    ("Super Tax", "tax", 0),
    ("Boardwalk", "property", 10),
]
_PROPERTIES = [i for i, field in enumerate(_BOARD) if field[1] == "property"]
_BUILDING_FACTOR = (1, 2, 3, 5, 8, 15)  # 0-4 houses, a hotel
_BUILDINGS = ((0, 40), (1, 25), (2, 15), (3, 10), (4, 6), (5, 4))
_CARDS = ((1, 30), (2, 25), (3, 15), (5, 15), (10, 10), (20, 5))
_TAX = {"Income Tax": Fraction(1, 10), "Super Tax": Fraction(1, 5)}  # a utility: 1/10


def _walk(
    rolls: int, buildings: list[int], dice: Iterator[list[int]], cards: Iterator[int]
) -> tuple[list, Fraction]:
    """Mr. Monopoly's walk from GO: each roll moves him the dice's sum; a double rolls again (not the one that
    frees him from jail); property, railway and Free Parking pay their value (times 2 for each stop on GO),
    Chance and Community Chest a card, taxes and utilities cost when the win covers them; Go to Jail: the next
    roll must be a double or the game ends."""
    pos, total, doubling, left, in_jail, used = 0, Fraction(0), 1, rolls, False, 0
    steps = []
    while left > 0 and used < 64:
        a, b = next(dice)
        used += 1
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
        pos = (pos + a + b) % 40
        name, kind, value = _BOARD[pos]
        step["field"] = pos
        step["name"] = name
        gain = Fraction(0)
        if kind == "property":
            gain = Fraction(value * _BUILDING_FACTOR[buildings[_PROPERTIES.index(pos)]] * doubling)
        elif kind in ("railway", "parking"):
            gain = Fraction(value * doubling)
        elif kind in ("chance", "chest"):
            gain = Fraction(next(cards))
        elif kind in ("tax", "utility"):
            tax = _TAX.get(name, Fraction(1, 10))
            if total >= tax:
                gain = -tax
            else:
                step["event"] = "tax not taken: the bonus win does not cover it"
        elif kind == "go":
            doubling *= 2
            step["event"] = "GO: every field's value doubles"
        elif kind == "gotojail":
            pos, in_jail = 10, True
            step["event"] = "go to jail: the next roll must be a double"
        total += gain
        step["win"] = _exact(gain) if gain >= 0 else f"-{_exact(-gain)}"
        step["total"] = _exact(total)
        steps.append(step)
    return steps, total


def _monopoly_bonus(rng: random.Random, rolls: int) -> dict[str, Any]:
    buildings = [_weighted(rng, _BUILDINGS) for _ in _PROPERTIES]
    dice: list[list[int]] = []
    cards: list[int] = []

    def roll() -> Iterator[list[int]]:
        while True:
            dice.append([rng.randint(1, 6), rng.randint(1, 6)])
            yield dice[-1]

    def card() -> Iterator[int]:
        while True:
            cards.append(_weighted(rng, _CARDS))
            yield cards[-1]

    _walk(rolls, buildings, roll(), card())
    return {"buildings": buildings, "dice": dice, "cards": cards}


def monopoly_live_rounds(rng: random.Random, rounds: int) -> list[str]:
    """Spins with the Chance card and both bonus games drawn; a Chance multiplier carries to the next spin."""
    out = []
    carried: list[int] = []
    for i in range(rounds):
        index = rng.randrange(54)
        label = _MONO_MAIN[index]
        kind = "cash" if rng.random() < 0.5 else "multiplier"
        value = rng.choice((5, 10, 15, 20, 25, 50) if kind == "cash" else (2, 3, 4, 5, 10))
        chance: dict[str, Any] = {"type": kind, "value": value}
        extras = {
            "chance": chance,
            "bonus": {"2_rolls": _monopoly_bonus(rng, 2), "4_rolls": _monopoly_bonus(rng, 4)},
        }
        item = {"id": i, "segment": label, "index": index, "multipliers": carried, "extras": extras}
        out.append(json.dumps(item) + "\n")
        carried = carried + [value] if label == "chance" and kind == "multiplier" else []
    return out


def monopoly_live(line: str) -> str:
    """A number pays its number to 1 times the multipliers carried; Chance: a multiplier makes the bets stand
    for the next spin, cash pays every number bet; 2 Rolls / 4 Rolls pay the walk's win."""
    item = json.loads(line)
    label, carried, extras = item["segment"], item.get("multipliers", []), item["extras"]
    m = 1
    for x in carried:
        m *= x
    base = {"multiplier": m, "respin": False, "bets_stand": False, "next_multipliers": []}
    settled: dict[str, Any]
    if label in ("1", "2", "5", "10"):
        settled = {"winning_bets": [{"bet": label, "type": "number", "payout": int(label) * m}], **base}
    elif label == "chance":
        card = {"type": extras["chance"]["type"], "value": extras["chance"]["value"]}
        if card["type"] == "multiplier":
            following = carried + [card["value"]]
            settled = {
                "winning_bets": [],
                "chance": card,
                "multiplier": m * card["value"],
                "respin": True,
                "bets_stand": True,
                "next_multipliers": following,
            }
        else:
            wins = [
                {"bet": n, "type": "number", "payout": card["value"] * m, "chance": "cash"}
                for n in ("1", "2", "5", "10")
            ]
            settled = {"winning_bets": wins, "chance": card, **base}
    else:
        game = extras["bonus"][label]
        rolls = 2 if label == "2_rolls" else 4
        steps, win = _walk(rolls, game["buildings"], iter(game["dice"]), iter(game["cards"]))
        settled = {
            "winning_bets": [{"bet": label, "type": "bonus", "payout": _exact(win * m)}],
            "bonus_game": {
                "rolls": rolls,
                "win": _exact(win),
                "steps": steps,
                "buildings": game["buildings"],
            },
            **base,
        }
    result = {"segment": label, "index": item["index"], "multipliers": carried}
    return _line({"id": item["id"], "valid": True, "result": result, "outcome": {**result, **settled}})


# --- poker with joker (seed 000 L453-515): 53 cards, the joker any card, one card exchanged ----------------------

_JOKER_RAISE = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 7, 7: 15, 8: 35, 9: 75, 10: 150}  # by category, pair up
_JOKER_HANDS = _HANDS + ("four_of_a_kind_and_joker",)


def _joker_value(cards: list[str]) -> tuple[int, ...]:
    """A hand's (category, tie-breaks, natural): with the joker, the best hand it makes as any of the 52
    cards; four of a kind and the joker is the best hand; equal hands: the natural one wins."""
    if "JK" not in cards:
        return (*_rank5(cards), 1)
    others = [c for c in cards if c != "JK"]
    if len({c[0] for c in others}) == 1:
        return (10, 14 if others[0][0] == "A" else "23456789TJQK".index(others[0][0]) + 2, 0)
    return (*max(_rank5(others + [card]) for card in DECK), 0)


def joker_poker_rounds(rng: random.Random, rounds: int) -> list[str]:
    """A fresh 53-card deck a round; half the time the player keeps, else gives back one card (not the joker)."""
    out = []
    for i in range(rounds):
        deck = rng.sample(DECK + ["JK"], 11)
        player = deck[:5]
        if rng.random() < 0.5:
            made: dict = {"seat": "player", "action": "keep"}
            cards = player + deck[5:10]
        else:
            made = {
                "seat": "player",
                "action": "discard",
                "cards": [rng.choice([c for c in player if c != "JK"])],
            }
            cards = deck
        out.append(json.dumps({"id": i, "cards": cards, "decisions": [made]}) + "\n")
    return out


def joker_poker(line: str) -> str:
    """The player's five (the replacement takes the discarded card's place), the dealer's up card, the
    replacement, the dealer's four others. The dealer qualifies with a pair; the raise by the table; the bonus
    (flush or better) on the five dealt, lost by an exchange."""
    item = json.loads(line)
    cards = item["cards"]
    made = item["decisions"][0]
    dealt = cards[:5]
    discards = made.get("cards", []) if made["action"] == "discard" else []
    drawn = cards[6 : 6 + len(discards)]
    dealer = [cards[5]] + cards[6 + len(discards) :]
    player = list(dealt)
    for old, new in zip(discards, drawn):
        player[player.index(old)] = new
    p, d, bonus = _joker_value(player), _joker_value(dealer), _joker_value(dealt)
    qualifies = d[0] >= 1
    winner = _winner(p, d)
    wins: list[dict] = []
    pushes: list[dict] = []
    if not qualifies:
        wins.append({"bet": "ante", "payout": 1})
        pushes.append({"bet": "raise", "returned": 1})
    elif winner == "player":
        wins.append({"bet": "ante", "payout": 1})
        wins.append({"bet": "raise", "payout": _JOKER_RAISE[p[0]], "hand": _JOKER_HANDS[p[0]]})
    elif winner == "tie":
        pushes += [{"bet": "ante", "returned": 1}, {"bet": "raise", "returned": 1}]
    if bonus[0] >= 5 and not discards:
        wins.append({"bet": "bonus", "hand": _JOKER_HANDS[bonus[0]]})
    result = {
        "cards": cards,
        "player_cards": player,
        "dealer_cards": dealer,
        "dealer_up_card": dealer[0],
        "player_hand": _JOKER_HANDS[p[0]],
        "dealer_hand": _JOKER_HANDS[d[0]],
        "dealer_qualifies": qualifies,
        "winner": winner,
        "dealt_player_cards": dealt,
        "dealt_player_hand": _JOKER_HANDS[bonus[0]],
        "discards": discards,
        "draws": drawn,
        "decisions": [
            {
                "window": "player/hand_1/exchange",
                "seat": "player",
                "hand": 1,
                "action": made["action"],
                "cards": discards,
                "by": "backend",
            }
        ],
    }
    return _answer(item, result, {"winning_bets": wins, "pushed_bets": pushes})


GAMES: dict[str, tuple[Generator, Plain]] = {
    "deal_or_no_deal": (deal_or_no_deal_rounds, deal_or_no_deal),
    "mega_ball": (mega_ball_rounds, mega_ball),
    "cash_or_crash": (cash_or_crash_rounds, cash_or_crash),
    "crazy_time": (crazy_time_rounds, crazy_time),
    "monopoly_live": (monopoly_live_rounds, monopoly_live),
    "joker_poker": (joker_poker_rounds, joker_poker),
}
