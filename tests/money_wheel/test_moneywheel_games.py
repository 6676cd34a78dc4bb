"""Every money-wheel game against hand-checked spins, the draws of the computer-drawn parts, and evaluate."""

from __future__ import annotations

import json
import random
from fractions import Fraction as F
from typing import Any

import pytest
from moneywheel_helpers import money_wheel_games

from recognition.money_wheel import crazy_time as ct
from recognition.money_wheel import monopoly_live as mono
from recognition.money_wheel.base import MoneyWheelGame, as_fraction

GAMES = money_wheel_games()
MONEY_WHEELS = (
    "wheel_of_fortune",
    "dream_catcher",
    "mega_wheel",
    "monopoly_live",
    "crazy_time",
    "music_wheel",
    "wheelbet",
    "spin_and_win",
)


def wins(game: str, result: dict, extras: dict | None = None) -> dict[str, Any]:
    out = GAMES[game].outcome(result, extras)
    return {b["bet"]: b.get("payout") for b in out["winning_bets"]}


def no_floats(value: Any, where: str = "$") -> None:
    assert not isinstance(value, float), f"float at {where}"
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str)
            no_floats(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            no_floats(v, f"{where}[{i}]")


def test_registered_with_the_seed_counts():
    seeds = {
        "wheel_of_fortune": 19,
        "dream_catcher": 54,
        "mega_wheel": 54,
        "monopoly_live": 54,
        "crazy_time": 54,
        "music_wheel": 54,
        "wheelbet": 38,
        "spin_and_win": 37,
    }
    for gid, n in seeds.items():
        g = GAMES[gid]
        assert isinstance(g, MoneyWheelGame) and g.pacing == "dealer"
        # Monopoly Live also takes the dice camera that reads its bonus dice (bonus_dice = "camera")
        assert g.device_kinds == ("wheel-encoder", "wheel-pointer") + (
            ("dice-camera",) if gid == "monopoly_live" else ()
        )
        assert g.segments == n and g.default_layout().size == n
    counts = lambda gid: dict(GAMES[gid].segment_counts)
    assert counts("dream_catcher") == {
        "1": 23,
        "2": 15,
        "5": 7,
        "10": 4,
        "20": 2,
        "40": 1,
        "2x": 1,
        "7x": 1,
    }  # L1758
    assert counts("monopoly_live") == {
        "1": 22,
        "2": 15,
        "5": 7,
        "10": 4,
        "chance": 2,
        "2_rolls": 3,
        "4_rolls": 1,
    }
    assert counts("crazy_time") == {
        "1": 21,
        "2": 13,
        "5": 7,
        "10": 4,
        "cash_hunt": 2,
        "pachinko": 2,
        "coin_flip": 4,
        "crazy_time": 1,
    }  # L2049


# --- Wheel of Fortune ---------------------------------------------------------------------------

WOF_COLOR = {
    **{n: "grey" for n in (1, 2, 7, 8, 13, 14)},
    **{n: "red" for n in (3, 4, 9, 10, 15, 16)},
    **{n: "black" for n in (5, 6, 11, 12, 17, 18)},
}


def wof_expected(label: str, color: str) -> dict[str, int]:
    """The 18 bets of L2477-2511, written out by hand; payouts 18/k - 1 for k sectors covered."""
    out: dict[str, int] = {}
    if label == "cup":
        out["cup"] = 17
    else:
        n = int(label)
        out[f"number:{n}"] = 17
        out["range:1-6" if n <= 6 else "range:7-12" if n <= 12 else "range:13-18"] = 2
        out["under:9.5" if n < 9.5 else "over:9.5"] = 1
        out["even" if n % 2 == 0 else "odd"] = 1
        if color in ("grey", "red", "black"):
            out[f"{'even' if n % 2 == 0 else 'odd'}:{color}"] = 5
    if color in ("grey", "red", "black"):
        out[f"color:{color}"] = 2
    return out


@pytest.mark.parametrize("label", [str(n) for n in range(1, 19)] + ["cup"])
def test_wheel_of_fortune_every_sector(label):
    color = WOF_COLOR.get(int(label), "gold") if label != "cup" else "gold"
    assert wins("wheel_of_fortune", {"segment": label, "index": 3}) == wof_expected(label, color)


def test_wheel_of_fortune_hand_checked_and_table_colours():
    assert wins("wheel_of_fortune", {"segment": "4"}) == {
        "number:4": 17,
        "range:1-6": 2,
        "under:9.5": 1,
        "color:red": 2,
        "even": 1,
        "even:red": 5,
    }
    assert wins("wheel_of_fortune", {"segment": "cup"}) == {"cup": 17}
    # a table whose layout paints 4 black: the result carries the colour the judge read from the layout
    assert wins("wheel_of_fortune", {"segment": "4", "color": "black"})["even:black"] == 5
    g = GAMES["wheel_of_fortune"]
    assert g.spin_rule.direction == "clockwise" and g.spin_rule.min_turns == 3 and g.spin_rule.counter_start


# --- Dream Catcher -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 5, 10, 20, 40])
def test_dream_catcher_numbers_pay_their_number(n):
    out = GAMES["dream_catcher"].outcome({"segment": str(n), "index": 0})
    assert out["winning_bets"] == [{"bet": str(n), "type": "number", "payout": n}]
    assert out["next_multipliers"] == [] and not out["bets_stand"]


def test_dream_catcher_seed_example_2x_7x_5_pays_70():
    g = GAMES["dream_catcher"]
    first = g.outcome({"segment": "2x", "index": 1})
    assert first["winning_bets"] == [] and first["bets_stand"] and first["next_multipliers"] == [2]
    second = g.outcome({"segment": "7x", "index": 2, "multipliers": first["next_multipliers"]})
    assert second["next_multipliers"] == [2, 7] and second["multiplier"] == 14
    third = g.outcome({"segment": "5", "index": 3, "multipliers": second["next_multipliers"]})
    assert third["winning_bets"] == [{"bet": "5", "type": "number", "payout": 70}]  # (5 to 1) x 2 x 7, L1754
    assert third["next_multipliers"] == []
    with pytest.raises(ValueError, match="not a Dream Catcher multiplier"):
        g.validate_result({"segment": "5", "multipliers": [3]})
    with pytest.raises(ValueError, match="not a Dream Catcher segment"):
        g.validate_result({"segment": "3"})


# --- Mega Wheel -----------------------------------------------------------------------------------


def test_mega_wheel_lucky_number():
    g = GAMES["mega_wheel"]
    lucky = {"lucky": {"number": "20", "index": 7, "payout": 300, "scope": "segment"}}
    assert wins("mega_wheel", {"segment": "20", "index": 7}, lucky) == {"20": 300}
    assert wins("mega_wheel", {"segment": "20", "index": 8}, lucky) == {"20": 20}  # another sector of 20
    assert wins("mega_wheel", {"segment": "8", "index": 3}, lucky) == {"8": 8}
    by_number = {"lucky": {**lucky["lucky"], "scope": "number"}}
    assert wins("mega_wheel", {"segment": "20", "index": 8}, by_number) == {"20": 300}
    with pytest.raises(ValueError, match="committed extras"):
        g.outcome({"segment": "20", "index": 7})
    with pytest.raises(ValueError, match="needs its 'index'"):
        g.outcome({"segment": "20"}, lucky)
    with pytest.raises(ValueError, match="up to x500|500"):
        g.outcome({"segment": "20", "index": 7}, {"lucky": {**lucky["lucky"], "payout": 501}})


def test_mega_wheel_draw_uses_only_the_rng_and_the_layout():
    g = GAMES["mega_wheel"]
    a = g.draw_extras(random.Random(42))
    assert a == g.draw_extras(random.Random(42))
    layout = g.default_layout()
    seen = set()
    for s in range(400):
        lucky = g.draw_extras(random.Random(s))["lucky"]
        assert layout[lucky["index"]].label == lucky["number"]
        assert int(lucky["number"]) < lucky["payout"] <= 500
        seen.add(lucky["index"])
    assert len(seen) > 40  # every sector can be drawn
    custom = g.draw_extras(
        random.Random(1),
        lucky_payouts={
            "1": [11],
            "2": [22],
            "5": [55],
            "8": [88],
            "10": [110],
            "15": [150],
            "20": [200],
            "30": [300],
            "40": [400],
        },
        lucky_scope="number",
    )["lucky"]
    want = {"1": 11, "2": 22, "5": 55, "8": 88, "10": 110, "15": 150, "20": 200, "30": 300, "40": 400}
    assert custom["scope"] == "number" and custom["payout"] == want[custom["number"]]
    with pytest.raises(ValueError):
        g.draw_extras(random.Random(1), lucky_payouts={"40": [900]})


# --- Monopoly Live ----------------------------------------------------------------------------------


def bonus_extras(spot: str, dice: list, cards: list, buildings: list | None = None) -> dict:
    return {
        "chance": {"type": "multiplier", "value": 2},
        "bonus": {spot: {"buildings": buildings or [0] * len(mono.PROPERTIES), "dice": dice, "cards": cards}},
    }


def test_monopoly_numbers_and_chance():
    g = GAMES["monopoly_live"]
    extras_m = {"chance": {"type": "multiplier", "value": 8}, "bonus": {}}
    assert wins("monopoly_live", {"segment": "5", "index": 0}, extras_m) == {
        "5": 5
    }  # 1,000 on 5 -> 6,000 (L1869)
    chance = g.outcome({"segment": "chance", "index": 0}, extras_m)
    assert chance["winning_bets"] == [] and chance["bets_stand"] and chance["next_multipliers"] == [8]
    # L1883: x8 then x2, then 5: 100 x 8 x 2 x 5
    chance2 = g.outcome(
        {"segment": "chance", "multipliers": [8]}, {"chance": {"type": "multiplier", "value": 2}}
    )
    assert chance2["next_multipliers"] == [8, 2]
    assert wins("monopoly_live", {"segment": "5", "multipliers": [8, 2]}, extras_m) == {"5": 80}
    cash = {"chance": {"type": "cash", "value": 20}}
    assert wins("monopoly_live", {"segment": "chance"}, cash) == {"1": 20, "2": 20, "5": 20, "10": 20}
    assert g.outcome({"segment": "chance"}, cash)["next_multipliers"] == []
    assert wins("monopoly_live", {"segment": "chance", "multipliers": [3]}, cash)["10"] == 60


def test_monopoly_bonus_walks_hand_checked():
    # 3+4 -> Chance (7): card 5; 2+2 double -> St. Charles (11, pink 3), extra roll; 1+2 -> Virginia (14, pink 3)
    e = bonus_extras("2_rolls", [[3, 4], [2, 2], [1, 2]], [5])
    assert wins("monopoly_live", {"segment": "2_rolls"}, e) == {"2_rolls": 11}
    assert wins("monopoly_live", {"segment": "2_rolls", "multipliers": [2]}, e) == {"2_rolls": 22}
    # Reading Railroad 5, then Electric Company takes a tenth of the stake: 49/10
    assert wins("monopoly_live", {"segment": "2_rolls"}, bonus_extras("2_rolls", [[2, 3], [6, 1]], [])) == {
        "2_rolls": "49/10"
    }
    # a tax the bonus win does not cover is not taken (L1915): Income Tax first, then Oriental (light blue 2)
    assert wins(
        "monopoly_live", {"segment": "2_rolls"}, bonus_extras("2_rolls", [[1, 3], [1, 1], [1, 2]], [])
    ) == {"2_rolls": 2 + 2}  # 4 -> tax not taken; 6 Oriental 2 (double: extra roll); 9 Connecticut 2
    # GO doubles every field (L1917): 11 St. Charles 3; 23 Indiana 5 (double); 34 Pennsylvania Ave 8;
    # 40 = GO (double); 5 Reading RR 5 x 2; 8 Vermont 2 x 2 -> 3 + 5 + 8 + 10 + 4
    walk = [[6, 5], [6, 6], [6, 5], [3, 3], [2, 3], [1, 2]]
    out = GAMES["monopoly_live"].outcome({"segment": "4_rolls"}, bonus_extras("4_rolls", walk, []))
    assert out["winning_bets"] == [{"bet": "4_rolls", "type": "bonus", "payout": 30}]
    assert [s["field"] for s in out["bonus_game"]["steps"]] == [11, 23, 34, 0, 5, 8]
    # Go to Jail, then no double: the bonus ends at once with the win so far (L1921)
    jail = [[6, 6], [6, 6], [3, 3], [1, 2]]  # Electric Co (tax not taken), Illinois 5, Go to Jail, no double
    out = GAMES["monopoly_live"].outcome({"segment": "2_rolls"}, bonus_extras("2_rolls", jail, []))
    assert out["winning_bets"][0]["payout"] == 5 and out["bonus_game"]["steps"][-1]["event"].startswith(
        "no double"
    )
    # buildings raise a property's value: Baltic Avenue (brown 1) with a hotel x15
    hotel = [0] * len(mono.PROPERTIES)
    hotel[mono.PROPERTIES.index(3)] = 5
    # Baltic 15; 13 States 3 (double); 25 B&O Railroad 5 (double); 36 Chance: card 1
    assert wins(
        "monopoly_live",
        {"segment": "2_rolls"},
        bonus_extras("2_rolls", [[1, 2], [5, 5], [6, 6], [6, 5]], [1], hotel),
    ) == {"2_rolls": 15 + 3 + 5 + 1}
    # a recorded game must be used up exactly
    with pytest.raises(ValueError, match="more than the walk uses"):
        GAMES["monopoly_live"].outcome(
            {"segment": "2_rolls"}, bonus_extras("2_rolls", [[2, 3], [6, 1], [1, 1]], [])
        )
    with pytest.raises(ValueError, match="needs more dice"):
        GAMES["monopoly_live"].outcome({"segment": "4_rolls"}, bonus_extras("4_rolls", [[2, 3]], []))


def test_monopoly_draws_replay_exactly():
    g = GAMES["monopoly_live"]
    for s in range(60):
        extras = g.draw_extras(random.Random(s))
        assert extras == g.draw_extras(random.Random(s))
        for spot in ("2_rolls", "4_rolls"):
            out = g.outcome({"segment": spot}, extras)  # strict replay: every drawn roll and card is used
            rolls = out["bonus_game"]["steps"]
            assert len(rolls) >= (2 if spot == "2_rolls" else 4) or rolls[-1].get("event", "").startswith(
                "no double"
            )
            no_floats(out)
        no_floats(extras)


# --- Crazy Time --------------------------------------------------------------------------------------


def ct_extras(top: dict, **bonus: Any) -> dict:
    return {"top_slot": top, "bonus": bonus}


def test_crazy_time_numbers_and_top_slot():
    miss = ct_extras({"spot": "5", "multiplier": None})
    hit = ct_extras({"spot": "5", "multiplier": 10})
    assert wins("crazy_time", {"segment": "5"}, miss) == {"5": 5}  # L2049: 1,000 on 5 wins 5,000
    assert wins("crazy_time", {"segment": "5"}, hit) == {"5": 50}  # L2055
    assert wins("crazy_time", {"segment": "2"}, hit) == {"2": 2}  # the Top Slot was for 5


def test_crazy_time_bonus_games_hand_checked():
    coin = {"red": 4, "blue": 10, "side": "blue"}
    assert wins(
        "crazy_time", {"segment": "coin_flip"}, ct_extras({"spot": "1", "multiplier": None}, coin_flip=coin)
    ) == {"coin_flip": 10}
    assert wins(
        "crazy_time",
        {"segment": "coin_flip"},
        ct_extras({"spot": "coin_flip", "multiplier": 3}, coin_flip=coin),
    ) == {"coin_flip": 30}  # L2079
    # Pachinko: slot 7 is DOUBLE, slot 4 is 25: 50 (L2071); with a Top Slot x3 first: 150
    drops = {"drops": [{"zone": 7, "slot": 7}, {"zone": 5, "slot": 4}]}
    assert wins(
        "crazy_time", {"segment": "pachinko"}, ct_extras({"spot": "1", "multiplier": None}, pachinko=drops)
    ) == {"pachinko": 50}
    assert wins(
        "crazy_time",
        {"segment": "pachinko"},
        ct_extras({"spot": "pachinko", "multiplier": 3}, pachinko=drops),
    ) == {"pachinko": 150}
    # Rescue Drop after a 3x: the lower multipliers (the 2x) become 3x, and the next puck lands on slot 1 (was 2x)
    rescue = {"drops": [{"zone": 5, "slot": 5, "rescue": True}, {"zone": 4, "slot": 1}]}
    assert wins(
        "crazy_time", {"segment": "pachinko"}, ct_extras({"spot": "1", "multiplier": None}, pachinko=rescue)
    ) == {"pachinko": 3}
    with pytest.raises(ValueError, match="ends on a DOUBLE"):
        GAMES["crazy_time"].outcome(
            {"segment": "pachinko"},
            ct_extras({"spot": "1", "multiplier": None}, pachinko={"drops": [{"zone": 7, "slot": 7}]}),
        )
    # Cash Hunt: the wall, times the Top Slot, and the committed pick for players who did not choose
    wall = list(range(1, 109))
    out = GAMES["crazy_time"].outcome(
        {"segment": "cash_hunt"},
        ct_extras({"spot": "cash_hunt", "multiplier": 2}, cash_hunt={"wall": wall, "auto_choice": 5}),
    )
    bet = out["winning_bets"][0]
    assert bet["choices"] == [2 * v for v in wall] and bet["auto_choice"] == 5


def test_crazy_time_wheel_flappers():
    wheel = ct.CT_WHEEL
    n = len(wheel)
    assert n == 64  # L2085
    plain = next(s for s in range(n) if all(isinstance(wheel[(s + o) % n], int) for _, o in ct.FLAPPERS))
    out = GAMES["crazy_time"].outcome(
        {"segment": "crazy_time"},
        ct_extras({"spot": "1", "multiplier": None}, crazy_time={"stops": [plain], "auto_choice": "blue"}),
    )
    choices = out["winning_bets"][0]["choices"]
    assert choices == {name: wheel[(plain + o) % n] for name, o in ct.FLAPPERS}
    # DOUBLE under the green flapper: green's values double and the wheel is spun again for green (L2093)
    d = next(
        s
        for s in range(n)
        if wheel[s] == ct.DOUBLE and all(isinstance(wheel[(s + o) % n], int) for _, o in ct.FLAPPERS[1:])
    )
    again = plain
    out = GAMES["crazy_time"].outcome(
        {"segment": "crazy_time"},
        ct_extras(
            {"spot": "crazy_time", "multiplier": 2}, crazy_time={"stops": [d, again], "auto_choice": "green"}
        ),
    )
    choices = out["winning_bets"][0]["choices"]
    assert choices["green"] == wheel[again] * 2 * 2  # Top Slot x2 (L2085), DOUBLE x2
    assert choices["blue"] == wheel[(d + 21) % n] * 2 and choices["yellow"] == wheel[(d + 43) % n] * 2
    with pytest.raises(ValueError, match="more spins"):
        GAMES["crazy_time"].outcome(
            {"segment": "crazy_time"},
            ct_extras(
                {"spot": "1", "multiplier": None},
                crazy_time={"stops": [plain, plain], "auto_choice": "green"},
            ),
        )


def test_crazy_time_draws_replay():
    g = GAMES["crazy_time"]
    for s in range(60):
        extras = g.draw_extras(random.Random(s))
        assert extras == g.draw_extras(random.Random(s))
        no_floats(extras)
        for label in ct.SPOTS:
            no_floats(g.outcome({"segment": label}, extras))


# --- Music Wheel, Wheelbet, Spin & Win ------------------------------------------------------------------


def test_music_wheel():
    bonus_4 = {"bonus": {"number": "4", "index": None, "multiplier": 3}}
    assert wins("music_wheel", {"segment": "4", "index": 9}, bonus_4) == {"4": 11}  # 4 x 3 times the stake
    assert wins("music_wheel", {"segment": "2", "index": 0}, bonus_4) == {"2": 1}  # 2 times the stake
    bonus_16 = {"bonus": {"number": "16", "index": 20, "multiplier": 2}}
    assert wins("music_wheel", {"segment": "16", "index": 20}, bonus_16) == {"16": 31}
    assert wins("music_wheel", {"segment": "16", "index": 21}, bonus_16) == {"16": 15}  # another 16 sector
    g = GAMES["music_wheel"]
    assert {n: c for n, c in g.segment_counts} == {
        "2": 24,
        "4": 12,
        "6": 8,
        "12": 4,
        "16": 3,
        "24": 2,
        "48": 1,
    }
    for s in range(50):
        b = g.draw_extras(random.Random(s))["bonus"]
        assert (b["index"] is None) == (b["number"] not in ("16", "48"))
        if b["index"] is not None:
            assert g.default_layout()[b["index"]].label == b["number"]


AMERICAN_RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}


def wheelbet_expected(label: str) -> dict[str, Any]:
    out: dict[str, Any] = {f"number:{label}": 35}
    out.update(
        {
            "selection:2": 17,
            "selection:3": 11,
            "selection:4": 8,
            "selection:6": 5,
            "selection:12": 2,
            "selection:18": 1,
        }
    )
    if label in ("0", "00"):
        return out
    n = int(label)
    color = "red" if n in AMERICAN_RED else "black"
    out[f"range:{1 if n <= 12 else 13 if n <= 24 else 25}-{12 if n <= 12 else 24 if n <= 24 else 36}"] = 2
    for cut, under, over in (
        (18, 1, 1),
        (14, "11/7", "7/11"),
        (22, "7/11", "11/7"),
        (9, 3, "1/3"),
        (27, "1/3", 3),
    ):
        if n <= cut:
            out[f"under:{cut}.5"] = under
        else:
            out[f"over:{cut}.5"] = over
    out[f"color:{color}"] = 1
    out["even" if n % 2 == 0 else "odd"] = 1
    # 8 red evens, 10 red odds, 10 black evens, 8 black odds: 36/8 - 1 and 36/10 - 1
    key = f"{'even' if n % 2 == 0 else 'odd'}:{color}"
    out[key] = "7/2" if key in ("even:red", "odd:black") else "13/5"
    out[f"row:{(n - 1) % 3 + 1}"] = 2
    return out


@pytest.mark.parametrize("label", ["0", "00"] + [str(n) for n in range(1, 37)])
def test_wheelbet_every_sector(label):
    assert wins("wheelbet", {"segment": label}) == wheelbet_expected(label)


@pytest.mark.parametrize("label", [str(n) for n in range(37)])
def test_spin_and_win_every_segment(label):
    n = int(label)
    got = wins("spin_and_win", {"segment": label})
    if n == 0:
        assert got == {"number:0": 35, "color:green": 35}
        return
    want = {
        f"number:{n}": 35,
        f"color:{'red' if n in AMERICAN_RED else 'black'}": 1,
        f"range:{1 if n <= 12 else 13 if n <= 24 else 25}-{12 if n <= 12 else 24 if n <= 24 else 36}": 2,
        "even" if n % 2 == 0 else "odd": 1,
    }
    assert got == want
    if n == 12:
        assert "even" in got and n == 12  # the seed's own example (L3979)


# --- the contract ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("gid", MONEY_WHEELS)
def test_results_are_checked(gid):
    g = GAMES[gid]
    label = g.labels[0]
    for bad in (
        {"segment": "nope"},
        {"index": 1},
        {"segment": label, "index": g.segments},
        {"segment": label, "index": True},
        {"segment": label, "extra": 1},
        "x",
        {"segment": 1.0},
    ):
        with pytest.raises(ValueError):
            g.validate_result(bad)  # type: ignore[arg-type]
    canonical = g.validate_result({"segment": label})
    assert g.validate_result(canonical) == canonical


@pytest.mark.parametrize("gid", MONEY_WHEELS)
def test_outcomes_have_no_floats_and_exact_payouts(gid):
    g = GAMES[gid]
    extras = g.draw_extras(random.Random(7))
    for label in g.labels:
        out = g.outcome({"segment": label, "index": g.default_layout().indexes_of(label)[0]}, extras)
        no_floats(out)
        for b in out["winning_bets"]:
            if b.get("payout") is not None:
                assert as_fraction(b["payout"]) >= 0


def test_settings_are_checked():
    g = GAMES["dream_catcher"]
    s = g.wheel_settings(
        {
            "layout": list(reversed(g.default_layout().labels())),
            "min_turns": 2.5,
            "calibration": {"zero_offset": 12},
        }
    )
    assert s.rule.min_turns == F(5, 2) and s.calibration.zero_offset == 12
    for bad in (
        {"layout": ["1"] * 54},
        {"layout": ["1"] * 53},
        {"direction": "up"},
        {"boundary_margin": 0.5},
        {"sensors": ["camera"]},
        {"typo": 1},
        {"min_turns": "x"},
        {"multipliers": [3]},
    ):
        with pytest.raises(ValueError):
            g.wheel_settings(bad)
    wof = GAMES["wheel_of_fortune"]
    with pytest.raises(ValueError, match="colour"):
        wof.wheel_settings({"colors": {"4": "purple"}})
    assert wof.wheel_settings({"colors": {"4": "black"}}).layout[3].color == "black"
    mega = GAMES["mega_wheel"]  # counts not given by the seed: another mix of numbers is allowed
    assert mega.wheel_settings({"layout": ["1"] * 45 + ["40"] * 9}).layout.counts() == {"1": 45, "40": 9}


def test_studio_evaluate_json_lines(tmp_path, capsys):
    from app.cli import main

    lines = [
        {"id": "a", "segment": "5", "multipliers": [2, 7]},
        {"id": "b", "segment": "2x"},
        {"id": "c", "segment": "3"},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert main(["evaluate", "--game", "dream_catcher", "--in", str(path)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert out[0]["valid"] and out[0]["outcome"]["winning_bets"][0]["payout"] == 70
    assert out[1]["valid"] and out[1]["outcome"]["next_multipliers"] == [2]
    assert not out[2]["valid"] and "not a Dream Catcher segment" in out[2]["error"]
    mega = tmp_path / "mega.jsonl"
    mega.write_text(
        json.dumps(
            {
                "id": 1,
                "segment": "40",
                "index": 5,
                "extras": {"lucky": {"number": "40", "index": 5, "payout": 500, "scope": "segment"}},
            }
        )
        + "\n"
        + json.dumps({"id": 2, "segment": "40", "index": 5})
        + "\n"
    )
    assert main(["evaluate", "--game", "mega_wheel", "--in", str(mega)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert out[0]["outcome"]["winning_bets"] == [
        {"bet": "40", "type": "number", "payout": 500, "mega_win": True}
    ]
    assert not out[1]["valid"] and "extras" in out[1]["error"]


@pytest.mark.parametrize("gid", MONEY_WHEELS)
def test_every_outcome_is_a_publishable_feed_message(gid):
    """Results, outcomes and revealed extras drawn with the studio's generator pass the feed's own check."""
    import secrets

    from studio.journal import check_feed_message

    g = GAMES[gid]
    rng = secrets.SystemRandom()
    for _ in range(5):
        extras = g.draw_extras(rng)
        for label in g.labels:
            result = g.validate_result({"segment": label, "index": g.default_layout().indexes_of(label)[0]})
            message = {
                "kind": "result",
                "table_id": "w1",
                "game": gid,
                "round_id": "r1",
                "round_number": 1,
                "version": 1,
                "result": result,
                "outcome": g.outcome(result, extras),
                "reason": None,
                "source": {"type": "device", "device_id": "w1/encoder", "turns": "4.20"},
                "commitment": None,
                "reveal": {"extras": extras, "nonce": "ab" * 32} if extras else None,
            }
            check_feed_message(message)
