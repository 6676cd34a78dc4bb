"""Every registered game with its equipment, and a simulated table of it configured as a technician would.

`catalog()` lists each game of the registry (recognition/games.py): its family, the equipment a studio puts on
its table, the device kinds its judge reads and whether every device of that equipment has a simulator (then
`studio demo --games` and the end-to-end test of every game run it). `simulated_table()` builds one table of a
game on its simulators, everything derived from the game's rules so that a new game needs no entry here:

* a card game deals from a shoe of the game's deck, in the game's number of decks (config.py sees to that);
  a deck other than the standard 52 (a 36- or 44-card deck, named jokers, symbol cards) is a vendor table of
  just those cards, given to the shoe's driver and to its simulator alike; a game with player decisions has the
  shoe follow the judge (one card per position the judge names) and the demo backend at the table;
* a dice game gets a dice camera of the game's dice and colours;
* a ball draw gets a machine and a reader sharing the game's ball set (its labels, each as many times as the
  set has it, with its colour);
* a money wheel gets an encoder on a wheel of the game's segment count;
* a roulette game gets a Cammegh SS2 wheel of the game's pocket count; Double Ball Roulette adds the overhead
  camera (calibrated by the configuration from the simulated camera's view, as a technician measures a real
  one; studio/simulated.py links it to the wheel), started by the judge in the wheel's manual-start mode;
* a game of another family gets one device: the first of its device kinds that has a simulator (its role the
  kind's last word: "camera" for a "bead-camera"); a game that needs more gets a recipe here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recognition.cards.base import CardGame
from recognition.games import GAMES
from recognition.money_wheel.base import MoneyWheelGame

from .game_families import DiceGame, DrawGame, RouletteRules

#: family -> the equipment of a table, in words (docs/games.md's equipment column)
EQUIPMENT = {
    "cards": "card shoe (barcode scanner; or a camera shoe)",
    "dice": "dice camera over the tray",
    "balls": "ball machine (Modbus) and ball reader (RFID; or a camera reader)",
    "money wheel": "money wheel with an angle encoder (or a pointer reader)",
    "roulette": "roulette wheel controller (Cammegh SS2)",
    "roulette+camera": "roulette wheel controller (Cammegh SS2) and an overhead roulette camera",
}

#: the wheel's manual-start mode (the simulator's 133 + 2): the judge starts each game (auto_start)
MANUAL_START_MODE = 135


@dataclass(frozen=True)
class GameEntry:
    game_id: str
    family: str
    equipment: str
    #: what the judge reads (the game's device_kinds)
    device_kinds: tuple[str, ...]
    #: the kinds of the simulated table's devices, in order
    table_kinds: tuple[str, ...]
    has_decisions: bool
    #: every device of the table has a simulator and a driver: the demo and the end-to-end test run it
    simulated: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "family": self.family,
            "equipment": self.equipment,
            "device_kinds": list(self.device_kinds),
            "table_kinds": list(self.table_kinds),
            "has_decisions": self.has_decisions,
            "simulated": self.simulated,
        }


def family(game_id: str) -> str:
    """The game's family, from its rules' family class."""
    game = GAMES[game_id]
    kinds = set(game.device_kinds)
    if isinstance(game, CardGame) and kinds & {"serial-shoe", "camera-shoe"}:
        return "cards"
    if isinstance(game, DrawGame):
        return "balls"
    if isinstance(game, MoneyWheelGame):
        return "money wheel"
    if isinstance(game, RouletteRules):
        return "roulette+camera" if game.balls == 2 else "roulette"
    if isinstance(game, DiceGame):
        return "dice"
    return "other"


def catalog() -> list[GameEntry]:
    """Every registered game, by id."""
    from devices.registry import all_drivers

    from .simulated import all_simulators

    drivers, sims = all_drivers(), all_simulators()
    out = []
    for game_id in sorted(GAMES):
        fam = family(game_id)
        try:
            kinds = tuple(d["kind"] for d in _devices(game_id, fam, "t", 1.0))
        except ValueError:
            kinds = ()
        out.append(
            GameEntry(
                game_id=game_id,
                family=fam.split("+")[0],
                equipment=EQUIPMENT.get(fam, ", ".join(GAMES[game_id].device_kinds)),
                device_kinds=tuple(GAMES[game_id].device_kinds),
                table_kinds=kinds,
                has_decisions=GAMES[game_id].has_decisions,
                simulated=bool(kinds) and all(k in drivers and k in sims for k in kinds),
            )
        )
    return out


def simulated_games() -> list[str]:
    """The ids of the games a studio can run on simulators alone."""
    return [e.game_id for e in catalog() if e.simulated]


def simulated_table(
    game_id: str, table_id: str, *, speed: float = 1.0, seed: int | None = None, number: int = 1
) -> dict[str, Any]:
    """A table of `game_id` on its simulators (a TableConfig dict): devices, settings and pace."""
    game = GAMES[game_id]
    fam = family(game_id)
    devices = []
    for i, d in enumerate(_devices(game_id, fam, table_id, speed)):
        sim: dict[str, Any] = {"speed": d.pop("speed", speed), "options": d.pop("sim", {})}
        if seed is not None:
            sim["seed"] = seed + 10 * number + i
        devices.append(
            {
                "url": "simulator",
                "serial_number": f"SIM-{d['kind'].upper()}-{number:03d}",
                "simulator": sim,
                **d,
            }
        )
    table: dict[str, Any] = {"id": table_id, "game": game_id, "devices": devices}
    if fam == "roulette+camera":
        # the judge starts each game of the unattended wheel (manual start), beside the camera
        table["settings"] = {"auto_start": True, "wheel_mode": MANUAL_START_MODE}
    if game.pacing == "dealer":
        # a simulated ball set needs no check; the waiver is journaled (a real table runs the ball-set check)
        table["require_opening_check"] = False
        table["betting_seconds"] = max(1.0, 10.0 / speed)
        table["auto_round_seconds"] = max(0.2, 3.0 / speed)
    if game.has_decisions:
        table["decision_seconds"] = max(2.0, 10.0 / speed)
        # the backend's players take their seats while betting is open, at the real pace whatever the speed: a
        # studio of all the games on a busy machine answers a seat's request seconds late
        if game.seats and not game.common_hand:
            table["betting_seconds"] = 10.0
        # a dealer takes a moment between two hands
        table["auto_round_seconds"] = max(2.0, 3.0 / speed)
    return table


def _devices(game_id: str, fam: str, table_id: str, speed: float) -> list[dict[str, Any]]:
    game: Any = GAMES[game_id]
    if fam == "cards":
        sim: dict[str, Any] = {}
        driver: dict[str, Any] = {}
        vendor = shoe_vendor_table(game)
        if vendor is not None:
            sim["vendor_table"] = driver["vendor_table"] = vendor
        # the dealer deals a card each time the judge names where the next one goes (as a dealer reads the
        # console): any deal script, Andar Bahar's deal to a match and blackjack's decisions alike
        sim["follow_judge"] = True
        return [{"kind": "serial-shoe", "role": "shoe", "options": driver, "sim": sim}]
    if fam == "dice":
        colors = list(game.judge_colors or ("white",) * game.judge_dice)
        # a 640x360 picture: the dice vision reads it as well as a full-HD one, for a quarter of the work
        # (a studio of every game runs seven dice cameras)
        sim = {"colors": colors, "width": 640, "height": 360}
        return [{"kind": "dice-camera", "role": "camera", "sim": sim}]
    if fam == "balls":
        ball_set = game_ball_set(game)
        return [
            {
                "kind": "modbus-ball-machine",
                "role": "machine",
                "sim": {"machine_id": table_id, "act_as_dealer": True, "ball_set": ball_set},
            },
            {
                "kind": "serial-ball-reader",
                "role": "reader",
                "options": {"ball_set": ball_set},
                "sim": {"machine_id": table_id},
            },
        ]
    if fam == "money wheel":
        return [
            {
                "kind": "wheel-encoder",
                "role": "encoder",
                "sim": {"wheel_id": table_id, "segments": game.segments},
            }
        ]
    if fam.startswith("roulette"):
        wheel: dict[str, Any] = {
            "kind": "cammegh-ss2",
            "role": "wheel",
            "options": {"keep_powered": True},
            "sim": {"pockets": len(game.wheel.pockets)},
        }
        if fam == "roulette":
            return [wheel]
        wheel["sim"]["mode"] = MANUAL_START_MODE
        return [wheel, roulette_camera(game, speed)]
    # another family: the first device kind of the game that has a simulator (a game of one device)
    from devices.registry import all_drivers

    from .simulated import all_simulators

    drivers, sims = all_drivers(), all_simulators()
    for kind in game.device_kinds:
        if kind in drivers and kind in sims:
            return [{"kind": kind, "role": kind.rsplit("-", 1)[-1]}]
    raise ValueError(f"{game_id}: no simulated table for a game read by {', '.join(game.device_kinds)}")


def roulette_camera(game: Any, speed: float) -> dict[str, Any]:
    """The overhead camera of a two-ball wheel (its calibration is the configuration's default for a simulated
    camera: what a technician would measure on its view)."""
    width, height, wheel = 640, 360, "american" if len(game.wheel.pockets) == 38 else "european"
    # the camera's spin, in real seconds: short enough for a fast demo, long enough to follow both balls
    scale = max(1.0, 10.0 / speed)
    return {
        "kind": "roulette-camera",
        "role": "camera",
        # no calibration written: studio/config.py gives a simulated camera the one a technician would measure
        # on its view (View(...).calibration())
        "options": {"settle_s": 0.25},
        "speed": 1.0,
        "sim": {
            "width": width,
            "height": height,
            "wheel": wheel,
            "fps": 30,
            "balls": 2,
            "launch_after_s": 0.7 * scale,
            "track_s": 1.6 * scale,
            "drop_s": 0.35 * scale,
            "revolutions": 4.5,
        },
    }


def shoe_vendor_table(game: Any) -> str | dict[str, Any] | None:
    """The vendor table of a shoe holding the game's deck; None: the shipped table (the 52 cards) fits."""
    from devices.shoe.vendor_table import SYMBOL_CARDS, default_vendor_table

    spec = game.shoe_spec(game.decks)
    cards = {c for c, n in spec.copies.items() if n > 0}
    if spec.joker_limit:  # jokers the cards do not tell apart: "JK" (a red or black joker read as such fits)
        cards = (cards - {"RJ", "BJ"}) | {"JK"}
    if cards <= set(SYMBOL_CARDS):
        return "symbols"
    default = default_vendor_table()
    standard = {c for c in default.codes.values() if c != "JK"}
    if cards == standard:
        return None
    table = default.model_dump(exclude={"codes"})
    codes = {code: card for code, card in default.codes.items() if card in cards and card != "JK"}
    # jokers: one code for "a joker", or one for each of the red and the black joker the game tells apart
    spare = iter(f"{n:02d}" for n in range(53, 100))
    for joker in ("JK", "RJ", "BJ"):
        if joker in cards:
            codes[next(spare)] = joker
    return {**table, "vendor": f"{default.vendor}-{game.game_id}", "codes": codes, "require_full_deck": False}


def game_ball_set(game: Any) -> str | dict[str, Any]:
    """The ball set of a draw game: a numbered range where its balls are 1..N (or 0..N) once each, else a
    table with every ball of the set (a label the set carries N times is N balls, told apart by tag)."""
    labels = list(game.ball_labels)
    numeric = all(x.isdigit() for x in labels) and all(game.max_count(x) == 1 for x in labels)
    if numeric and [int(x) for x in labels] == list(range(int(labels[0]), int(labels[-1]) + 1)):
        return f"{labels[0]}-{labels[-1]}"
    balls: list[dict[str, str]] = []
    for label in labels:
        for _ in range(game.max_count(label)):
            ball = {"tag": f"BALL{len(balls) + 1:03d}", "label": label}
            color = game.color_of(label)
            if color:
                ball["color"] = color
            balls.append(ball)
    return {"name": f"{game.game_id}-set", "balls": balls}


__all__ = [
    "EQUIPMENT",
    "GameEntry",
    "catalog",
    "family",
    "game_ball_set",
    "shoe_vendor_table",
    "simulated_games",
    "simulated_table",
]
