"""The dice games against the studio's game contract: registration, result parsing, the judge hook,
`studio evaluate`, and feed-safe outcomes (no floats), over every throw of every game."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import types
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from app.audit import evaluate_line
from recognition.dice_games import GAMES, BacBo, Craps, CrapsPointJudge, DiceDuel, LightningDice, SicBo
from recognition.dice_games._common import as_fraction, payout, read_face, read_faces
from recognition.game import BaseGame, BaseJudge
from studio.journal import check_feed_message

REPO = Path(__file__).resolve().parents[2]
IDS = ("sic_bo", "super_sic_bo", "mega_sic_bo", "lightning_dice", "dice_duel", "craps", "bac_bo")
LIGHTNING = {"lightning": [{"total": 10, "multiplier": 30}, {"total": 18, "multiplier": 1000}]}


def every_result(game_id: str):
    """Every possible canonical result of a game (craps: under every point)."""
    if game_id in ("sic_bo", "super_sic_bo", "mega_sic_bo", "lightning_dice"):
        for dice in product(range(1, 7), repeat=3):
            yield {"dice": list(dice)}
    elif game_id == "dice_duel":
        for r, b in product(range(1, 7), repeat=2):
            yield {"red": r, "blue": b}
    elif game_id == "craps":
        for point in (None, 4, 5, 6, 8, 9, 10):
            for dice in product(range(1, 7), repeat=2):
                yield {"dice": list(dice), "point": point}
    elif game_id == "bac_bo":
        for p1, p2, b1, b2 in product(range(1, 7), repeat=4):
            yield {"player": [p1, p2], "banker": [b1, b2]}


def extras_for(game_id: str):
    return LIGHTNING if game_id == "lightning_dice" else None


def walk(value, path="$"):
    if isinstance(value, dict):
        for k, v in value.items():
            assert isinstance(k, str), path
            yield from walk(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, f"{path}[{i}]")
    else:
        yield path, value


# --- registration ----------------------------------------------------------------------


def test_every_dice_game_is_registered_by_discovery_with_the_contract_attributes():
    from recognition.games import GAMES as ALL_GAMES  # imports every recognition module

    for game_id in IDS:
        game = ALL_GAMES[game_id]
        assert game is GAMES[game_id]
        assert isinstance(game, BaseGame)
        assert game.game_id == game_id
        assert game.pacing == "dealer"
        assert game.device_kinds == ("dice-camera",)


def test_only_lightning_dice_draws_extras():
    import random

    for game_id in IDS:
        drawn = GAMES[game_id].draw_extras(random.Random(5))
        assert (drawn is not None) == (game_id == "lightning_dice"), game_id


# --- faces --------------------------------------------------------------------------------


@pytest.mark.parametrize("value, face", [(1, 1), (6, 6), ("1", 1), ("6", 6)])
def test_a_face_is_an_int_or_a_one_digit_string(value, face):
    assert read_face(value, "die") == face
    assert type(read_face(value, "die")) is int


@pytest.mark.parametrize(
    "value, says",
    [
        (0, "1..6"),
        (7, "1..6"),
        (-1, "1..6"),
        (True, "bool"),
        (False, "bool"),
        (3.0, "float"),
        (2.5, "float"),
        ("07", "'07'"),
        (" 3", "' 3'"),
        ("3 ", "'3 '"),
        ("three", "'three'"),
        ("", "''"),
        ("7", "'7'"),
        ("\uff13", "'\uff13'"),
        (None, "NoneType"),
        ([3], "list"),
        ({"face": 3}, "dict"),
    ],
)
def test_anything_else_is_refused_saying_what_and_where(value, says):
    with pytest.raises(ValueError) as err:
        read_face(value, "die 2 of 3")
    assert "die 2 of 3" in str(err.value) and says in str(err.value)


def test_a_list_of_faces_must_have_the_right_length_and_is_sorted():
    assert read_faces([6, "2", 4], 3, "dice") == [2, 4, 6]
    assert read_faces((5, 1), 2, "dice") == [1, 5]
    for bad in ([1, 2], [1, 2, 3, 4], [], "123", b"123", 123, None, {1: 1, 2: 2, 3: 3}):
        with pytest.raises(ValueError, match="dice"):
            read_faces(bad, 3, "dice")


def test_results_refuse_non_objects_and_missing_keys_with_an_example():
    cases = {
        "sic_bo": [[1, 2, 3], {"faces": [1, 2, 3]}, {"dice": [1, 2]}, {"dice": [1, 2, 7]}],
        "lightning_dice": [{"dice": [1, 2, 3.0]}, {"die": [1, 2, 3]}],
        "dice_duel": [
            {"red": 3},
            {"blue": 3},
            {"red": 3, "blue": 7},
            {"dice": [3, 4]},
            {"red": "3.0", "blue": 1},
        ],
        "craps": [
            {"dice": [3, 4]},
            {"dice": [3, 4], "point": 7},
            {"dice": [3, 4], "point": "off"},
            {"dice": [3, 4], "point": True},
            {"dice": [3, 4], "point": 0},
            {"dice": [3, 4, 5], "point": None},
        ],
        "bac_bo": [
            {"player": [1, 2]},
            {"player": [1, 2], "banker": [1, 2, 3]},
            {"dice": [1, 2, 3, 4]},
            {"player": [1, 2], "banker": [0, 2]},
        ],
    }
    for game_id, bads in cases.items():
        for bad in bads:
            with pytest.raises(ValueError):
                GAMES[game_id].validate_result(bad)
    with pytest.raises(ValueError, match="point"):
        GAMES["craps"].validate_result({"dice": [3, 4]})


def test_derived_values_a_result_carries_must_agree_and_other_keys_are_dropped():
    assert GAMES["sic_bo"].validate_result({"dice": [1, 2, 3], "total": 6, "frame": 17}) == {
        "dice": [1, 2, 3]
    }
    with pytest.raises(ValueError, match="total"):
        GAMES["sic_bo"].validate_result({"dice": [1, 2, 3], "total": 7})
    with pytest.raises(ValueError, match="player_total"):
        GAMES["bac_bo"].validate_result({"player": [1, 2], "banker": [3, 4], "player_total": 4})
    with pytest.raises(ValueError, match="total"):
        GAMES["dice_duel"].validate_result({"red": 1, "blue": 2, "total": 4})


def test_validation_is_idempotent_for_every_result_of_every_game():
    for game_id in IDS:
        game = GAMES[game_id]
        for result in every_result(game_id):
            canonical = game.validate_result(result)
            assert game.validate_result(canonical) == canonical


def test_numeric_strings_give_the_same_outcome_as_ints():
    assert GAMES["sic_bo"].outcome({"dice": ["6", 1, "3"]}) == GAMES["sic_bo"].outcome({"dice": [3, 6, 1]})
    assert GAMES["craps"].outcome({"dice": ["4", "4"], "point": "8"}) == GAMES["craps"].outcome(
        {"dice": [4, 4], "point": 8}
    )
    assert GAMES["dice_duel"].outcome({"red": "2", "blue": "5"}) == GAMES["dice_duel"].outcome(
        {"red": 2, "blue": 5}
    )


def test_make_result_builds_results_from_what_a_camera_reads():
    assert SicBo().make_result([3, "1", 2]) == {"dice": [1, 2, 3]}
    assert Craps().make_result([6, 1], point=4) == {"dice": [1, 6], "point": 4}
    assert Craps().make_result([6, 1], point=None) == {"dice": [1, 6], "point": None}
    assert Craps().make_result([6, "1"]) == {"dice": [1, 6]}  # the point judge adds the table's point
    assert BacBo().make_result({"player": [2, 1], "banker": [6, 6]}) == {"player": [1, 2], "banker": [6, 6]}
    with pytest.raises(ValueError):
        Craps().make_result([6, 7])
    assert DiceDuel().make_result({"red": [5], "blue": [2]}) == {"red": 5, "blue": 2}
    assert DiceDuel().make_result({"red": 5, "blue": 2}) == {"red": 5, "blue": 2}
    assert BacBo().make_result({"blue": [6, 1], "red": [2, 2]}) == {"player": [1, 6], "banker": [2, 2]}
    with pytest.raises(ValueError, match="one red"):
        DiceDuel().make_result({"red": [5, 4], "blue": [2]})
    with pytest.raises(ValueError):
        DiceDuel().make_result({"red": [5]})
    with pytest.raises(ValueError):
        BacBo().make_result({"blue": [6, 1, 2], "red": [2]})


# --- payouts are exact and feed-safe ----------------------------------------------------


def test_payouts_are_ints_or_exact_fraction_strings():
    assert payout(Fraction(7, 6)) == "7/6" and payout(Fraction(12, 2)) == 6 and payout(3) == 3
    assert as_fraction("7/6") == Fraction(7, 6) and as_fraction(6) == 6
    with pytest.raises(ValueError):
        payout(-1)
    with pytest.raises(ValueError):
        as_fraction(1.5)


def test_no_outcome_of_any_throw_holds_a_float_and_every_one_is_a_valid_feed_message():
    for game_id in IDS:
        game = GAMES[game_id]
        for i, result in enumerate(every_result(game_id)):
            out = game.outcome(result, extras_for(game_id))
            for path, value in walk(out):
                assert value is None or isinstance(value, (bool, int, str)), (game_id, result, path, value)
            for bet in out["winning_bets"]:
                assert isinstance(bet["payout"], (int, str)) and not isinstance(bet["payout"], bool)
                assert as_fraction(bet["payout"]) > 0
            if i % 97 == 0:  # the schema check is slower: a spread sample of every game's throws
                check_feed_message(
                    {
                        "kind": "result",
                        "table_id": "t1",
                        "game": game_id,
                        "round_id": "r1",
                        "round_number": 1,
                        "version": 1,
                        "result": game.validate_result(result),
                        "outcome": out,
                        "reason": None,
                        "source": {"type": "device"},
                        "commitment": None,
                        "reveal": None,
                    }
                )


def test_every_winning_bet_is_a_spot_of_the_layout():
    for game_id in IDS:
        game = GAMES[game_id]
        ids = [s.id for s in game.spots]
        assert len(ids) == len(set(ids)), game_id
        for result in every_result(game_id):
            out = game.outcome(result, extras_for(game_id))
            won = [b["bet"] for b in out["winning_bets"]]
            assert set(won) <= set(ids) and len(won) == len(set(won))
            assert won == sorted(won, key=ids.index), "winning bets come in layout order"


def test_winning_payouts_are_the_layout_s_and_varying_ones_are_described():
    for game_id in IDS:
        game = GAMES[game_id]
        spots = {s.id: s for s in game.spots}
        for spot in spots.values():
            assert (spot.payout is None) == bool(spot.pays), spot
            assert spot.as_dict()["source"].startswith(("seed 000 L", "standard"))
        for result in every_result(game_id):
            for bet in game.outcome(result, extras_for(game_id))["winning_bets"]:
                spot = spots[bet["bet"]]
                if spot.payout is not None and "lightning_multiplier" not in bet:
                    assert bet["payout"] == spot.payout, (game_id, result, bet)


# --- the judge hook -----------------------------------------------------------------------


def test_importing_the_games_does_not_import_the_vision_stack():
    code = "import sys, recognition.dice_games; print('recognition.dice.judge' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@pytest.fixture
def fake_dice_judge(monkeypatch):
    """A stand-in for recognition.dice.judge that records how it was built."""
    built: list[dict] = []

    class DiceJudge(BaseJudge):
        def __init__(self, **kwargs):
            built.append(kwargs)
            self.kwargs = kwargs

        def feed(self, event):
            return []

    module = types.ModuleType("recognition.dice.judge")
    module.DiceJudge = DiceJudge
    try:  # the vision package itself, if it is there; only its judge module is replaced
        importlib.import_module("recognition.dice")
    except ImportError:
        monkeypatch.setitem(sys.modules, "recognition.dice", types.ModuleType("recognition.dice"))
    monkeypatch.setitem(sys.modules, "recognition.dice.judge", module)
    return built


def test_new_judge_asks_the_dice_judge_for_the_game_s_dice_and_colours(fake_dice_judge):
    expected = {
        "sic_bo": (3, None),
        "super_sic_bo": (3, None),
        "mega_sic_bo": (3, None),
        "lightning_dice": (3, None),
        "dice_duel": (2, ("red", "blue")),
        "craps": (2, None),
        "bac_bo": (4, ("blue", "blue", "red", "red")),
    }
    for game_id, (dice, colors) in expected.items():
        judge = GAMES[game_id].new_judge(camera="cam-1")
        kwargs = fake_dice_judge[-1]
        assert kwargs == {"game": GAMES[game_id], "dice": dice, "colors": colors, "camera": "cam-1"}, game_id
        if game_id == "craps":
            assert isinstance(judge, CrapsPointJudge) and judge.point is None
    assert isinstance(GAMES["craps"].new_judge(point=6), CrapsPointJudge)
    assert GAMES["craps"].new_judge(point="9").point == 9
    assert "point" not in fake_dice_judge[-1]
    with pytest.raises(ValueError, match="point"):
        GAMES["craps"].new_judge(point=7)
    with pytest.raises(ValueError, match="3 dice"):
        GAMES["sic_bo"].new_judge(dice=2)
    assert GAMES["dice_duel"].new_judge(colors=("crimson", "navy")) is not None
    assert fake_dice_judge[-1]["colors"] == ("crimson", "navy")


# --- studio evaluate ---------------------------------------------------------------------


def test_evaluate_line_contract_for_every_game():
    lines = {
        "sic_bo": ('{"id": 1, "dice": [4, 4, "1"]}', '{"id": 2, "dice": [4, 4]}'),
        "super_sic_bo": ('{"id": 1, "dice": [6, 6, 6]}', '{"id": 2, "dice": [6, 6, 6.0]}'),
        "mega_sic_bo": ('{"id": 1, "dice": [1, 2, 3]}', '{"id": 2, "dice": null}'),
        "lightning_dice": (
            '{"id": 1, "dice": [4, 3, 3], "extras": {"lightning": [{"total": 10, "multiplier": 30}]}}',
            '{"id": 2, "dice": [4, 3, 3]}',
        ),
        "dice_duel": ('{"id": 1, "red": 6, "blue": "2"}', '{"id": 2, "red": 6}'),
        "craps": ('{"id": 1, "dice": [2, 2], "point": 4}', '{"id": 2, "dice": [2, 2]}'),
        "bac_bo": (
            '{"id": 1, "player": [6, 6], "banker": [6, 6]}',
            '{"id": 2, "player": [6, 6], "banker": 12}',
        ),
    }
    for game_id, (good, bad) in lines.items():
        ok = evaluate_line(GAMES[game_id], good, 1)
        assert ok["id"] == 1 and ok["valid"] is True and set(ok) == {"id", "valid", "result", "outcome"}, ok
        refused = evaluate_line(GAMES[game_id], bad, 2)
        assert refused["id"] == 2 and refused["valid"] is False and refused["error"], refused
    lightning = evaluate_line(GAMES["lightning_dice"], lines["lightning_dice"][0], 1)
    assert lightning["outcome"]["winning_bets"] == [
        {"bet": "total:10", "type": "total", "payout": 29, "lightning_multiplier": 30}
    ]
    assert evaluate_line(GAMES["craps"], lines["craps"][0], 1)["outcome"]["new_point"] is None


def test_the_studio_evaluate_command_reads_json_lines_for_a_dice_game():
    lines = (
        '{"id": "a", "dice": [1, 1], "point": null}\n'
        "not json\n"
        '{"id": "b", "dice": [5, 6], "point": 9}\n'
        '{"id": "c", "dice": [3, 4], "point": 5}'
    )
    out = subprocess.run(
        [sys.executable, "-m", "app.cli", "evaluate", "--game", "craps"],
        input=lines,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["valid"] for r in rows] == [True, False, True, True]
    assert rows[0]["outcome"]["winning_bets"][0] == {"bet": "field", "type": "field", "payout": 2}
    assert (
        rows[2]["outcome"]["new_point"] == 9
        and {"bet": "eleven", "type": "eleven", "payout": 15} in rows[2]["outcome"]["winning_bets"]
    )
    assert rows[3]["outcome"]["new_point"] is None
    assert any(b["bet"] == "dont_pass" for b in rows[3]["outcome"]["winning_bets"])
    assert LightningDice().evaluate({"dice": [1, 1, 1], "extras": LIGHTNING})["outcome"]["total"] == 3
